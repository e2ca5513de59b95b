//! `lembas conformance [PATH…] [--json]`: every case of the given files (default: every
//! `conformance/*.json`) through the rules' one runner.
//!
//! Prints each failure with its `about`, what was expected and what came, and ends with exactly
//! `N passed, N failed`. Exit 0 when all pass, 1 when any fails, 2 when a file cannot be read or
//! parsed (the others still run). `--json`: one JSON object per case on stdout, the summary on
//! stderr.

use lembas_rules::conformance::{run_file, summary, Area};
use serde_json::{json, Value};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The case files `paths` names: files as they are, folders by their `*.json`, sorted.
pub fn case_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let entries = fs::read_dir(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "json"))
                .collect();
            found.sort();
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// The default folder: `conformance/` here, else the one this binary was built beside.
pub fn default_dir() -> PathBuf {
    let here = PathBuf::from("conformance");
    if here.is_dir() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance")
}

fn short(v: &Value) -> String {
    serde_json::to_string(&sorted(v)).unwrap_or_default()
}

/// The value with every object's keys in sorted order, as the rules write them in every shell:
/// serde_json keeps the order keys were inserted in when a crate of this binary asks for it (the
/// ACP crates do), so the runner's lines are sorted here, to be the same bytes as the package's.
fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_unstable();
            Value::Object(
                keys.into_iter()
                    .filter_map(|k| m.get(k).map(|x| (k.clone(), sorted(x))))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// Prints the JSON Schema of a case file of `area`, or of any case file (`file`): 0, or 2 for a
/// word that is neither (said on `err`).
pub fn print_schema(area: &str, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    let schema = match (area, Area::parse(area)) {
        ("file", _) => lembas_rules::schema::case_file_schema(),
        (_, Some(area)) => lembas_rules::schema::area_schema(area),
        (_, None) => {
            writeln!(
                err,
                "lembas conformance: --schema {area}: not an area (the areas are {}; `file` is any case file)",
                Area::names()
            )?;
            return Ok(2);
        }
    };
    let text = serde_json::to_string_pretty(&schema).map_err(io::Error::other)?;
    writeln!(out, "{text}")?;
    Ok(0)
}

/// Runs the files and writes the report; the exit code.
pub fn run(
    paths: &[PathBuf],
    as_json: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let paths = if paths.is_empty() {
        vec![default_dir()]
    } else {
        paths.to_vec()
    };
    let files = match case_files(&paths) {
        Ok(f) => f,
        Err(e) => {
            writeln!(err, "lembas conformance: {e}")?;
            return Ok(2);
        }
    };
    let (mut passed, mut failed, mut broken) = (0usize, 0usize, false);
    for file in &files {
        let name = file.display().to_string();
        let text = match fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                writeln!(err, "{name}: cannot be read: {e}")?;
                broken = true;
                continue;
            }
        };
        let value: Value = match lembas_rules::json::parse_strict(&text) {
            Ok(v) => v,
            Err(e) => {
                writeln!(err, "{name}: not JSON: {e}")?;
                broken = true;
                continue;
            }
        };
        let stem = file.file_stem().and_then(|s| s.to_str());
        let result = match run_file(&value, stem) {
            Ok(r) => r,
            Err(e) => {
                writeln!(err, "{name}: {e}")?;
                broken = true;
                continue;
            }
        };
        passed += result.passed;
        failed += result.failed;
        for (i, r) in result.results.iter().enumerate() {
            if as_json {
                let mut line = json!({"file": name, "area": result.area, "index": i});
                if let (Value::Object(m), Ok(Value::Object(rest))) =
                    (&mut line, serde_json::to_value(r))
                {
                    m.extend(rest);
                }
                writeln!(out, "{}", short(&line))?;
            } else if !r.pass {
                writeln!(
                    out,
                    "FAIL {name} #{i}: {}",
                    r.about.as_deref().unwrap_or("(no about)")
                )?;
                writeln!(out, "  expected: {}", short(&r.expected))?;
                writeln!(out, "  actual:   {}", short(&r.actual))?;
                if let Some(m) = &r.message {
                    writeln!(out, "  message:  {m}")?;
                }
            }
        }
    }
    let line = summary(passed, failed);
    if as_json {
        writeln!(err, "{line}")?;
    } else {
        writeln!(out, "{line}")?;
    }
    Ok(if broken {
        2
    } else if failed > 0 {
        1
    } else {
        0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_has_its_keys_sorted_whatever_the_map_keeps() {
        let v = json!({"b": 1, "a": {"d": [{"z": 1, "y": 2}], "c": 2}});
        assert_eq!(short(&v), r#"{"a":{"c":2,"d":[{"y":2,"z":1}]},"b":1}"#);
    }
}
