//! What the playground shows, without the page: the case files (built in, and the author's own),
//! each case run by the rules' one runner, the summary, the filters. Every verdict is
//! `lembas_rules::conformance`'s; nothing here decides one.

use lembas_rules::conformance::{run_case, summary, Area, CaseResult};
use lembas_rules::team::operation::OperationKind;
use serde_json::Value;
use std::sync::Arc;

/// Where a case file came from, which says whether this browser keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// One of conformance/'s, as built in.
    BuiltIn,
    /// One of conformance/'s with the author's changes saved into it (kept in local storage).
    Edited,
    /// The author's own, pasted, opened or made from a template (kept in local storage).
    Own,
    /// Opened from a link: shown, not kept.
    Linked,
}

impl Source {
    /// Whether this browser keeps the file (in local storage, until it is removed).
    pub fn kept(self) -> bool {
        matches!(self, Source::Edited | Source::Own)
    }

    /// Whether the file is the author's: theirs, changed by them, or opened from a link.
    pub fn authors(self) -> bool {
        self != Source::BuiltIn
    }

    /// Its word in local storage.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::BuiltIn => "built-in",
            Source::Edited => "edited",
            Source::Own => "own",
            Source::Linked => "linked",
        }
    }
}

/// How a file's source reads after its name in the file column (nothing for a built-in one).
pub fn source_words(source: Source) -> &'static str {
    match source {
        Source::BuiltIn => "",
        Source::Edited => " (edited)",
        Source::Own => " (yours)",
        Source::Linked => " (from a link, not kept)",
    }
}

/// A case file: its name, its area, its cases, and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseFile {
    /// Its name, without `.json`.
    pub name: String,
    /// Its `about`, kept for its download.
    pub about: Option<String>,
    /// Its area.
    pub area: String,
    /// Its cases, their keys in the order they were written; shared by the file's copies (the
    /// page keeps the built-in files as they came beside the files shown), copied on a change.
    pub cases: Arc<Vec<Value>>,
    /// Where it came from.
    pub source: Source,
}

impl CaseFile {
    /// The file as JSON text, as conformance/ writes its files: its `about`, its `area` (always
    /// said, so that it opens anywhere as it is), its cases.
    pub fn to_text(&self) -> String {
        lembas_rules::json::to_pretty_text(&self.to_value()).unwrap_or_default() + "\n"
    }

    /// The file as JSON: its `about`, its `area`, its cases.
    pub fn to_value(&self) -> Value {
        let mut file = serde_json::Map::new();
        if let Some(about) = &self.about {
            file.insert("about".into(), Value::String(about.clone()));
        }
        file.insert("area".into(), Value::String(self.area.clone()));
        file.insert("cases".into(), Value::Array(self.cases.to_vec()));
        Value::Object(file)
    }

    /// Its file name for a download.
    pub fn file_name(&self) -> String {
        let stem: String = self
            .name
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        format!("{stem}.json")
    }

    /// Saves `case` as its case `index` (a new last case when `index` is its count). A built-in
    /// file saved into becomes an edited one.
    pub fn save_case(&mut self, index: usize, case: Value) -> Result<(), String> {
        if !matches!(case, Value::Object(_)) {
            return Err("a case is a JSON object".into());
        }
        let cases = Arc::make_mut(&mut self.cases);
        if index == cases.len() {
            cases.push(case);
        } else {
            match cases.get_mut(index) {
                Some(slot) => *slot = case,
                None => return Err(format!("{} has no case {index}", self.name)),
            }
        }
        if self.source == Source::BuiltIn {
            self.source = Source::Edited;
        }
        Ok(())
    }
}

/// A new case of an area (and of an operation where the area has them), made from the first
/// built-in case of it: valid as it comes, its `about` to be written.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    /// Its area.
    pub area: String,
    /// Its operation (`op`, or a team step's), when the area has them.
    pub op: Option<String>,
    /// The case.
    pub case: Value,
}

impl Template {
    /// How the picker says it: `delegation: call`.
    pub fn label(&self) -> String {
        match &self.op {
            Some(op) => format!("{}: {op}", self.area),
            None => self.area.clone(),
        }
    }
}

/// One template per area and operation, from the built-in cases in their order. A team
/// template is made for each of the rules' operations ([`OperationKind::ALL`], in that order)
/// that a built-in team case has a step of: the first such case, cut after that step.
pub fn templates(files: &[CaseFile]) -> Vec<Template> {
    let mut out: Vec<Template> = Vec::new();
    let about = |area: &str, op: Option<&str>| {
        Value::String(format!(
            "A new {area} case{}: say what it checks.",
            op.map(|o| format!(" ({o})")).unwrap_or_default()
        ))
    };
    let builtin = || files.iter().filter(|f| f.source == Source::BuiltIn);
    for f in builtin() {
        for case in f.cases.iter() {
            let Value::Object(map) = case else { continue };
            if map.contains_key("steps") {
                continue;
            }
            let op = map.get("op").and_then(Value::as_str);
            if out
                .iter()
                .any(|t| t.area == f.area && t.op.as_deref() == op)
            {
                continue;
            }
            let mut made = map.clone();
            made.insert("about".into(), about(&f.area, op));
            out.push(Template {
                area: f.area.clone(),
                op: op.map(str::to_string),
                case: Value::Object(made),
            });
        }
    }
    for kind in OperationKind::ALL {
        let op = kind.as_str();
        let first = builtin().find_map(|f| {
            f.cases.iter().find_map(|case| {
                let Value::Object(map) = case else {
                    return None;
                };
                let Some(Value::Array(steps)) = map.get("steps") else {
                    return None;
                };
                let at = steps
                    .iter()
                    .position(|step| step.get("op").and_then(Value::as_str) == Some(op))?;
                Some((f, map, steps, at))
            })
        });
        let Some((f, map, steps, at)) = first else {
            continue;
        };
        let mut made = map.clone();
        made.insert("about".into(), about(&f.area, Some(op)));
        made.insert(
            "steps".into(),
            Value::Array(steps.iter().take(at + 1).cloned().collect()),
        );
        out.push(Template {
            area: f.area.clone(),
            op: Some(op.to_string()),
            case: Value::Object(made),
        });
    }
    out
}

/// The name of the file a new case of `area` goes into.
pub fn new_cases_file(area: &str) -> String {
    format!("my-{area}-cases")
}

/// One case and its verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub file: usize,
    /// Its file's name.
    pub file_name: String,
    /// Whether its file is the author's (theirs, edited, or from a link).
    pub authors: bool,
    pub index: usize,
    pub area: String,
    pub about: String,
    pub result: CaseResult,
}

/// The built-in files of conformance/, from the bundle the page loads beside its `.wasm`
/// (`cases.json`, written by `scripts/bundle-cases.mjs`: `[[name, file], …]`, each file as its
/// text is), read strictly in one go; an error names the file that cannot be read.
pub fn read_builtin(bundle: &str) -> Result<Vec<CaseFile>, String> {
    let list = lembas_rules::json::parse_strict(bundle)
        .map_err(|e| format!("cases.json: {}", json_error(bundle, &e)))?;
    let not_pairs = || "cases.json: not a list of [name, file] pairs".to_string();
    let Value::Array(pairs) = list else {
        return Err(not_pairs());
    };
    pairs
        .into_iter()
        .map(|pair| {
            let Value::Array(pair) = pair else {
                return Err(not_pairs());
            };
            let Ok([Value::String(name), file]) = <[Value; 2]>::try_from(pair) else {
                return Err(not_pairs());
            };
            read_value(&name, file, Source::BuiltIn, None).map_err(|e| format!("{name}.json: {e}"))
        })
        .collect()
}

/// The built-in files, read from conformance/ as the page's bundle carries them (for tests).
#[cfg(test)]
pub fn builtin_files() -> Vec<CaseFile> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance");
    let mut names: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    let pairs: Vec<String> = names
        .iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(p).unwrap();
            format!(
                "[{},{}]",
                serde_json::to_string(&name).unwrap(),
                text.trim()
            )
        })
        .collect();
    read_builtin(&format!("[{}]", pairs.join(",\n"))).unwrap()
}

pub use crate::json_problem::json_error;

/// Reads a case file, or one case (an object with `expect` or `steps`) in `area`.
pub fn read_file(name: &str, text: &str, source: Source) -> Result<CaseFile, String> {
    let value: Value = lembas_rules::json::parse_strict(text).map_err(|e| json_error(text, &e))?;
    read_value(name, value, source, None)
}

/// A case file or a single case. Its area is the file's `area`, else its file name's
/// (`delegation.json`), else the one its cases' fields all say, else `picked` (the area picked
/// beside the paste box) — never a picked area over what the file itself says.
pub fn read_value(
    name: &str,
    value: Value,
    source: Source,
    picked: Option<&str>,
) -> Result<CaseFile, String> {
    let Value::Object(map) = &value else {
        return Err("expected a case file (an object with `cases`) or one case".into());
    };
    let stem = name.strip_suffix(".json").unwrap_or(name);
    let cases_say = || {
        let cases: Vec<&Value> = match map.get("cases") {
            Some(Value::Array(c)) => c.iter().collect(),
            _ => vec![&value],
        };
        let first = cases.first().and_then(|c| Area::of_case(c))?;
        cases
            .iter()
            .all(|c| Area::of_case(c) == Some(first))
            .then_some(first.as_str())
    };
    let file_area = map
        .get("area")
        .and_then(Value::as_str)
        .or_else(|| Area::parse(stem).map(Area::as_str))
        .or_else(cases_say)
        .or(picked.filter(|p| !p.is_empty()));
    let Some(area) = file_area else {
        return Err(
            "area: missing (give the file an `area`, name it after its area, or pick one)".into(),
        );
    };
    if Area::parse(area).is_none() {
        return Err(format!("area: unknown area \"{area}\""));
    }
    let area = area.to_string();
    let about = map.get("about").and_then(Value::as_str).map(str::to_string);
    let one_case = map.contains_key("expect") || map.contains_key("steps");
    // The cases are moved out of the value read, not copied: a file of a thousand cases is
    // read once.
    let cases = match value {
        Value::Object(mut map) => match map.remove("cases") {
            Some(Value::Array(c)) => c,
            Some(_) => return Err("cases: expected an array".into()),
            None if one_case => vec![Value::Object(map)],
            None => return Err("cases: missing".into()),
        },
        _ => return Err("expected a case file (an object with `cases`) or one case".into()),
    };
    Ok(CaseFile {
        name: stem.to_string(),
        about,
        area,
        cases: Arc::new(cases),
        source,
    })
}

/// Every case of every file, run.
pub fn run_all(files: &[CaseFile]) -> Vec<Row> {
    let mut rows = Vec::new();
    for (fi, f) in files.iter().enumerate() {
        for (ci, c) in f.cases.iter().enumerate() {
            rows.push(Row {
                file: fi,
                file_name: f.name.clone(),
                authors: f.source.authors(),
                index: ci,
                area: f.area.clone(),
                about: c
                    .get("about")
                    .and_then(Value::as_str)
                    .unwrap_or("(no about)")
                    .to_string(),
                result: run_case(&f.area, c),
            });
        }
    }
    rows
}

/// `N passed, N failed`.
pub fn summary_of(rows: &[Row]) -> String {
    let passed = rows.iter().filter(|r| r.result.pass).count();
    summary(passed, rows.len() - passed)
}

/// The filters of the cases view.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    pub area: Option<String>,
    /// Only the cases of this file (by name).
    pub file: Option<String>,
    pub failures_only: bool,
    pub text: String,
}

impl Filter {
    pub fn keeps(&self, row: &Row) -> bool {
        self.area.as_ref().is_none_or(|a| *a == row.area)
            && self.file.as_ref().is_none_or(|f| *f == row.file_name)
            && (!self.failures_only || !row.result.pass)
            && (self.text.is_empty()
                || row.about.to_lowercase().contains(&self.text.to_lowercase()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bundle_not_of_name_and_file_pairs_is_refused_by_name() {
        for bad in [
            "{}",
            "[1]",
            r#"[["a"]]"#,
            r#"[[1, {}]]"#,
            r#"[["a", {}, "c"]]"#,
        ] {
            assert_eq!(
                read_builtin(bad).unwrap_err(),
                "cases.json: not a list of [name, file] pairs",
                "{bad}"
            );
        }
        assert!(read_builtin("[").unwrap_err().starts_with("cases.json: "));
        // A repeated key is refused, as in any case file.
        let err = read_builtin(r#"[["mine", {"cases": [], "cases": []}]]"#).unwrap_err();
        assert!(err.starts_with("cases.json: "), "{err}");
        assert!(err.contains("cases"), "{err}");
        let err = read_builtin(r#"[["mine", "not a file"]]"#).unwrap_err();
        assert_eq!(
            err,
            "mine.json: expected a case file (an object with `cases`) or one case"
        );
        let files = read_builtin(r#"[["delegation", {"cases": []}]]"#).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files.first().map(|f| f.area.as_str()), Some("delegation"));
        assert!(read_builtin("[]").unwrap().is_empty());
    }

    #[test]
    fn the_built_in_files_all_pass() {
        let files = builtin_files();
        assert!(files.len() >= 5);
        let rows = run_all(&files);
        assert!(rows.len() > 300);
        assert!(summary_of(&rows).ends_with(" passed, 0 failed"));
    }

    #[test]
    fn every_template_passes_as_it_comes() {
        let files = builtin_files();
        let made = templates(&files);
        for area in Area::ALL {
            assert!(
                made.iter().any(|t| t.area == area.as_str()),
                "{}",
                area.as_str()
            );
        }
        // Every operation a built-in team case has a step of has its template, in the rules'
        // order of operations.
        let used: Vec<&str> = OperationKind::ALL
            .into_iter()
            .map(OperationKind::as_str)
            .filter(|op| {
                files.iter().any(|f| {
                    f.cases.iter().any(|c| {
                        c["steps"]
                            .as_array()
                            .is_some_and(|s| s.iter().any(|step| step["op"] == *op))
                    })
                })
            })
            .collect();
        assert!(used.len() >= 10, "{used:?}");
        let team: Vec<&str> = made
            .iter()
            .filter(|t| t.area == "team")
            .filter_map(|t| t.op.as_deref())
            .collect();
        assert_eq!(team, used);
        for t in &made {
            let result = run_case(&t.area, &t.case);
            assert!(result.pass, "{}: {:?}", t.label(), result.message);
            assert!(t.case["about"].as_str().unwrap().starts_with("A new"));
        }
    }

    #[test]
    fn a_saved_case_goes_into_its_file_and_the_file_reads_back() {
        let mut files = builtin_files();
        let f = files.iter_mut().find(|f| f.name == "delegation").unwrap();
        let mut case = f.cases[2].clone();
        case["about"] = serde_json::json!("changed");
        f.save_case(2, case.clone()).unwrap();
        assert_eq!(f.source, Source::Edited);
        let count = f.cases.len();
        f.save_case(count, case.clone()).unwrap();
        assert!(f.save_case(count + 5, case).is_err());
        let back = read_file("delegation.json", &f.to_text(), Source::Own).unwrap();
        assert_eq!(
            (back.area.as_str(), back.cases.len()),
            ("delegation", count + 1)
        );
        assert_eq!(back.cases[2]["about"], "changed");
        assert_eq!(back.about, f.about);
        // Keys stay in the order they were written.
        let keys: Vec<&String> = back.cases[2].as_object().unwrap().keys().collect();
        assert_eq!(keys.first().map(|k| k.as_str()), Some("about"));
        assert!(f.to_text().starts_with("{\n  \"about\""));
        assert_eq!(f.file_name(), "delegation.json");
    }

    #[test]
    fn a_file_says_its_area_before_the_area_picked() {
        let area = |name: &str, v: serde_json::Value, picked: Option<&str>| {
            read_value(name, v, Source::Own, picked).map(|f| f.area)
        };
        let delegation =
            serde_json::json!({"cases": [{"op": "add", "parent_mode": "edit", "expect": {}}]});
        // Its own `area`, else its name, else its cases' fields, else the area picked.
        assert_eq!(
            area(
                "x.json",
                serde_json::json!({"area": "team", "cases": []}),
                Some("progress")
            ),
            Ok("team".into())
        );
        assert_eq!(
            area(
                "delegation.json",
                serde_json::json!({"cases": []}),
                Some("progress")
            ),
            Ok("delegation".into())
        );
        assert_eq!(
            area("mine.json", delegation, Some("progress")),
            Ok("delegation".into())
        );
        assert_eq!(
            area(
                "mine.json",
                serde_json::json!({"cases": [{"tool": "bash", "expect": {}}]}),
                Some("permission")
            ),
            Ok("permission".into())
        );
        assert!(area(
            "mine.json",
            serde_json::json!({"cases": [{"tool": "bash", "expect": {}}]}),
            None
        )
        .unwrap_err()
        .starts_with("area: missing"));
    }

    #[test]
    fn a_single_case_takes_the_area_given() {
        let f = read_value("pasted", serde_json::json!({"progress": {"phase": "thinking", "since": 0}, "now": 0, "expect": {"text": "Thinking", "line": "Thinking · 0s"}}), Source::Own, Some("progress")).unwrap();
        assert!(run_all(&[f])[0].result.pass);
        assert!(read_file("x", "{\"cases\": [", Source::Own)
            .unwrap_err()
            .starts_with("line 1, column"));
        // The position is said once, where the fix goes, in words about the text.
        assert_eq!(
            read_file("x", "{\n  \"a\": 1\n  \"b\": 2\n}", Source::Own).unwrap_err(),
            "line 2, column 9: a comma is missing after this value (or a } to close the object)"
        );
    }
}
