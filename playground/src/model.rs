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
    format!("line {}, column {}: {e}", e.line(), e.column())
}

/// Reads a case file, or one case (an object with `expect` or `steps`) in `area`.
pub fn read_file(name: &str, text: &str, builtin: bool) -> Result<CaseFile, String> {
    let value: Value = lembas_rules::json::parse_strict(text).map_err(|e| json_error(&e))?;
    read_value(name, value, builtin, None)
}

/// A case file or a single case; `area` is used for a single case or a file without `area`.
pub fn read_value(
    name: &str,
    value: Value,
    builtin: bool,
    area: Option<&str>,
) -> Result<CaseFile, String> {
    let Value::Object(map) = &value else {
        return Err("expected a case file (an object with `cases`) or one case".into());
    };
    let file_area = map
        .get("area")
        .and_then(Value::as_str)
        .or(area)
        .or_else(|| Area::parse(name).map(Area::as_str));
    let Some(area) = file_area else {
        return Err("area: missing (give the file an `area`, or pick one)".into());
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
    fn a_single_case_takes_the_area_given() {
        let f = read_value("pasted", serde_json::json!({"progress": {"phase": "thinking", "since": 0}, "now": 0, "expect": {"text": "Thinking", "line": "Thinking · 0s"}}), false, Some("progress")).unwrap();
        assert!(run_all(&[f])[0].result.pass);
        assert!(read_file("x", "{\"cases\": [", false)
            .unwrap_err()
            .starts_with("line 1, column"));
    }
}
