//! What the playground shows, without the page: the case files (built in, and the author's own),
//! each case run by the rules' one runner, the summary, the filters. Every verdict is
//! `lembas_rules::conformance`'s; nothing here decides one.

use lembas_rules::conformance::{run_case, summary, CaseResult, AREAS};
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
        .filter_map(|(name, text)| read_file(name, text, true).ok())
        .collect()
}

/// A JSON error with its line and column.
pub fn json_error(e: &serde_json::Error) -> String {
    format!("line {}, column {}: {e}", e.line(), e.column())
}

/// Reads a case file, or one case (an object with `expect` or `steps`) in `area`.
pub fn read_file(name: &str, text: &str, builtin: bool) -> Result<CaseFile, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| json_error(&e))?;
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
        .or_else(|| AREAS.iter().copied().find(|a| *a == name));
    let Some(area) = file_area else {
        return Err("area: missing (give the file an `area`, or pick one)".into());
    };
    if !AREAS.contains(&area) {
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

/// The version of a link's format (`#v=…`): a link made by an older playground still opens, or
/// says why not.
pub const LINK_VERSION: &str = "1";

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// base64url, without padding.
pub fn b64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 4 / 3 + 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk.first().copied().unwrap_or(0),
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            let idx = ((n >> (18 - 6 * i)) & 63) as usize;
            out.push(char::from(B64.get(idx).copied().unwrap_or(b'A')));
        }
    }
    out
}

/// base64url back to bytes; None for a character that is not one.
pub fn b64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for c in text.bytes() {
        let v = B64.iter().position(|x| *x == c)? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xff) as u8);
        }
    }
    Some(out)
}

/// The fragment of a link that reproduces a case: `v=1&spec=3.4.0&area=…&case=<base64url JSON>`.
pub fn case_link(area: &str, case_json: &str) -> String {
    format!(
        "v={LINK_VERSION}&spec={}&area={area}&case={}",
        lembas_rules::spec_version(),
        b64_encode(case_json.as_bytes())
    )
}

/// A link's case: its area and its JSON text, or why it cannot be opened. A link made for
/// another spec version opens, with a warning.
pub fn read_link(fragment: &str) -> Result<(String, String, Option<String>), String> {
    let mut v = None;
    let mut spec = None;
    let mut area = None;
    let mut case = None;
    for part in fragment.trim_start_matches('#').split('&') {
        match part.split_once('=') {
            Some(("v", x)) => v = Some(x),
            Some(("spec", x)) => spec = Some(x),
            Some(("area", x)) => area = Some(x),
            Some(("case", x)) => case = Some(x),
            _ => {}
        }
    }
    match v {
        Some(LINK_VERSION) => {}
        Some(other) => {
            return Err(format!(
                "this link is of format {other}; this playground reads format {LINK_VERSION}"
            ))
        }
        None => return Err("not a case link".into()),
    }
    let area = area
        .filter(|a| AREAS.contains(a))
        .ok_or("the link names no known area")?;
    let bytes = case
        .and_then(b64_decode)
        .ok_or("the link's case is damaged")?;
    let text = String::from_utf8(bytes).map_err(|_| "the link's case is damaged".to_string())?;
    let warning = spec
        .filter(|s| *s != lembas_rules::spec_version())
        .map(|s| {
            format!(
                "this link was made for spec {s}; this playground runs spec {}",
                lembas_rules::spec_version()
            )
        });
    Ok((area.to_string(), text, warning))
}

#[cfg(test)]
mod link_tests {
    use super::*;

    #[test]
    fn a_link_carries_a_case_and_its_versions() {
        for s in ["", "a", "ab", "abc", "{\"é\": \"→\"}"] {
            assert_eq!(b64_decode(&b64_encode(s.as_bytes())).unwrap(), s.as_bytes());
        }
        let link = case_link("progress", "{\"now\": 1}");
        assert_eq!(
            read_link(&format!("#{link}")).unwrap(),
            ("progress".into(), "{\"now\": 1}".into(), None)
        );
        let old = link.replace("spec=3.4.0", "spec=3.3.0");
        assert!(read_link(&old).unwrap().2.unwrap().contains("spec 3.3.0"));
        assert!(read_link("v=9&area=progress&case=e30")
            .unwrap_err()
            .contains("format 9"));
        assert!(read_link("v=1&area=progress&case=!!").is_err());
    }
}
