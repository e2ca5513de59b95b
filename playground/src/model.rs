//! What the playground shows, without the page: the case files (built in, and the author's own),
//! each case run by the rules' one runner, the summary, the filters. Every verdict is
//! `lembas_rules::conformance`'s; nothing here decides one.

use lembas_rules::conformance::{run_case, summary, Area, CaseResult};
use serde_json::Value;

mod builtin {
    include!(concat!(env!("OUT_DIR"), "/cases.rs"));
}

/// A case file: where it came from, its area, its cases.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseFile {
    pub name: String,
    pub area: String,
    pub cases: Vec<Value>,
    /// One of conformance/'s (kept), or the author's (kept in local storage until removed).
    pub builtin: bool,
}

/// One case and its verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub file: usize,
    pub index: usize,
    pub area: String,
    pub about: String,
    pub result: CaseResult,
}

/// The built-in files of conformance/.
pub fn builtin_files() -> Vec<CaseFile> {
    builtin::FILES
        .iter()
        .filter_map(|(name, packed)| {
            let text = String::from_utf8(crate::lzw::decompress(packed)?).ok()?;
            read_file(name, &text, true).ok()
        })
        .collect()
}

/// A JSON error with its line and column.
pub fn json_error(e: &serde_json::Error) -> String {
    // serde_json ends its message with the position: said once, first.
    let full = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    let what = full.strip_suffix(&position).unwrap_or(&full);
    format!("line {}, column {}: {what}", e.line(), e.column())
}

/// Reads a case file, or one case (an object with `expect` or `steps`) in `area`.
pub fn read_file(name: &str, text: &str, builtin: bool) -> Result<CaseFile, String> {
    let value: Value = lembas_rules::json::parse_strict(text).map_err(|e| json_error(&e))?;
    read_value(name, value, builtin, None)
}

/// The area a case's own fields say, where they say one without doubt: a team case has `steps`,
/// a progress case `progress`, a subagents case `models`, a delegation case `parent_mode`,
/// `main_mode` or `agents`.
fn area_of_case(case: &Value) -> Option<Area> {
    let has = |k: &str| case.get(k).is_some();
    if has("steps") || has("start") {
        Some(Area::Team)
    } else if has("progress") {
        Some(Area::Progress)
    } else if has("models") {
        Some(Area::Subagents)
    } else if has("parent_mode") || has("main_mode") || has("agents") {
        Some(Area::Delegation)
    } else {
        None
    }
}

/// A case file or a single case. Its area is the file's `area`, else its file name's
/// (`delegation.json`), else the one its cases' fields all say, else `picked` (the area picked
/// beside the paste box) — never a picked area over what the file itself says.
pub fn read_value(
    name: &str,
    value: Value,
    builtin: bool,
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
        let first = cases.first().and_then(|c| area_of_case(c))?;
        cases
            .iter()
            .all(|c| area_of_case(c) == Some(first))
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
    let cases = match map.get("cases") {
        Some(Value::Array(c)) => c.clone(),
        Some(_) => return Err("cases: expected an array".into()),
        None if map.contains_key("expect") || map.contains_key("steps") => vec![value.clone()],
        None => return Err("cases: missing".into()),
    };
    Ok(CaseFile {
        name: name.to_string(),
        area: area.to_string(),
        cases,
        builtin,
    })
}

/// Every case of every file, run.
pub fn run_all(files: &[CaseFile]) -> Vec<Row> {
    let mut rows = Vec::new();
    for (fi, f) in files.iter().enumerate() {
        for (ci, c) in f.cases.iter().enumerate() {
            rows.push(Row {
                file: fi,
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
    pub failures_only: bool,
    pub text: String,
}

impl Filter {
    pub fn keeps(&self, row: &Row) -> bool {
        self.area.as_ref().is_none_or(|a| *a == row.area)
            && (!self.failures_only || !row.result.pass)
            && (self.text.is_empty()
                || row.about.to_lowercase().contains(&self.text.to_lowercase()))
    }
}

/// The keys of `expected` whose value differs from `actual`'s (a case's expect is compared on
/// them), to mark in the side-by-side view.
pub fn differing_keys(expected: &Value, actual: &Value) -> Vec<String> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => e
            .iter()
            .filter(|(k, v)| a.get(*k) != Some(*v))
            .map(|(k, _)| k.clone())
            .collect(),
        (Value::Array(e), Value::Array(a)) => e
            .iter()
            .enumerate()
            .filter(|(i, v)| a.get(*i) != Some(*v))
            .map(|(i, _)| format!("step {i}"))
            .collect(),
        (e, a) if e != a => vec!["(the whole value)".into()],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_files_all_pass() {
        let files = builtin_files();
        assert!(files.len() >= 5);
        let rows = run_all(&files);
        assert!(rows.len() > 300);
        assert!(summary_of(&rows).ends_with(" passed, 0 failed"));
    }

    #[test]
    fn a_file_says_its_area_before_the_area_picked() {
        let area = |name: &str, v: serde_json::Value, picked: Option<&str>| {
            read_value(name, v, false, picked).map(|f| f.area)
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
        let f = read_value("pasted", serde_json::json!({"progress": {"phase": "thinking", "since": 0}, "now": 0, "expect": {"text": "Thinking", "line": "Thinking · 0s"}}), false, Some("progress")).unwrap();
        assert!(run_all(&[f])[0].result.pass);
        assert!(read_file("x", "{\"cases\": [", false)
            .unwrap_err()
            .starts_with("line 1, column"));
        // The position is said once.
        assert_eq!(
            read_file("x", "{\n  \"a\": 1\n  \"b\": 2\n}", false).unwrap_err(),
            "line 3, column 3: expected `,` or `}`"
        );
    }
}
