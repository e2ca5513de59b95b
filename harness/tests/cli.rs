#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! `lembas conformance` run as a process.

mod common;
use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output};

fn lembas(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lembas"))
        .env("XDG_STATE_HOME", common::state_home())
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lembas-cli-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn every_case_of_the_repository_passes() {
    let o = lembas(&["conformance"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    let last = out.lines().last().unwrap();
    let (passed, failed) = last.split_once(" passed, ").unwrap();
    assert!(passed.parse::<usize>().unwrap() >= 60);
    assert_eq!(failed, "0 failed");
}

#[test]
fn a_failing_case_is_shown_with_its_about_and_exits_1() {
    let f = temp(
        "progress.json",
        r#"{"cases": [
            {"about": "right", "progress": {"phase": "thinking", "since": 0}, "now": 1000, "expect": {"text": "Thinking", "line": "Thinking · 1s"}},
            {"about": "wrong on purpose", "progress": {"phase": "thinking", "since": 0}, "now": 1000, "expect": {"text": "Thinking", "line": "Thinking · 2s"}},
            {"about": "mistyped", "progress": {"phase": "thinking", "since": "soon"}, "now": 1000, "expect": {}}
        ]}"#,
    );
    let o = lembas(&["conformance", f.to_str().unwrap()]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("wrong on purpose"), "{out}");
    assert!(out.contains("\"line\":\"Thinking · 1s\""), "{out}");
    assert!(out.contains("progress.since: expected an integer"), "{out}");
    assert!(
        !out.contains("#0:"),
        "the passing case is reported as a failure: {out}"
    );
    assert_eq!(out.lines().last(), Some("1 passed, 2 failed"));
}

#[test]
fn a_broken_file_exits_2_and_names_it() {
    let f = temp("broken.json", "{ not json");
    let o = lembas(&["conformance", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("broken.json: not JSON"), "{err}");
    let o = lembas(&["conformance", "/no/such/file.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/no/such/file.json: cannot be read"));
    let f = temp("mystery.json", r#"{"cases": []}"#);
    let o = lembas(&["conformance", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown area \"mystery\""));
}

#[test]
fn json_prints_one_object_per_case() {
    let o = lembas(&["conformance", "--json", "../conformance/progress.json"]);
    assert_eq!(o.status.code(), Some(0));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() >= 19);
    assert!(lines
        .iter()
        .all(|l| l["pass"] == true && l["area"] == "progress"));
    assert!(String::from_utf8_lossy(&o.stderr)
        .trim_end()
        .ends_with(" passed, 0 failed"));
}

#[test]
fn schema_prints_each_areas_schema_and_names_a_wrong_area() {
    for area in ["progress", "delegation", "subagents", "permission", "team"] {
        let o = lembas(&["conformance", "--schema", area]);
        assert_eq!(o.status.code(), Some(0), "{area}");
        let schema: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert!(
            schema["$defs"][format!("{area}_case")].is_object(),
            "{area}"
        );
    }
    let any = lembas(&["conformance", "--schema", "file"]);
    let schema: serde_json::Value = serde_json::from_slice(&any.stdout).unwrap();
    assert_eq!(schema["$defs"].as_object().unwrap().len(), 5);
    let wrong = lembas(&["conformance", "--schema", "teams"]);
    assert_eq!(wrong.status.code(), Some(2));
    let said = String::from_utf8_lossy(&wrong.stderr);
    assert!(said.contains("--schema teams: not an area"), "{said}");
    assert!(said.contains("permission, team"), "{said}");
}
