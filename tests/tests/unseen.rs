#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! Case files no crate has seen, written to the spec's rules, through `lembas conformance`'s own
//! entry point: every one passes, and a wrong expectation fails.

use serde_json::json;
use std::fs;
use std::path::PathBuf;

fn write(name: &str, value: &serde_json::Value) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lembas-unseen-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    path
}

fn run(path: &PathBuf) -> (i32, String) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code =
        lembas_harness::conformance::run(std::slice::from_ref(path), false, &mut out, &mut err)
            .unwrap();
    (
        code,
        String::from_utf8(out).unwrap() + &String::from_utf8(err).unwrap(),
    )
}

#[test]
fn unseen_progress_cases_pass() {
    let t0 = 1_762_790_400_000i64;
    let case = |p: serde_json::Value, now: i64, text: &str, line: &str| json!({"progress": p, "now": now, "expect": {"text": text, "line": line}});
    let file = json!({"about": "unseen", "cases": [
        case(json!({"phase": "queued", "since": t0, "ahead": 3}), t0 + 65_000, "Queued: 3 ahead", "Queued: 3 ahead · 1m 05s"),
        case(json!({"phase": "reading_prompt", "since": t0, "done": 1, "total": 3}), t0 + 3_600_000, "Reading the prompt: 1 / 3 tokens (33%)", "Reading the prompt: 1 / 3 tokens (33%) · 1h 00m"),
        case(json!({"phase": "writing", "since": t0, "rate": 41.96}), t0 + 999, "Writing: 42.0 tok/s", "Writing: 42.0 tok/s · 0s"),
        case(json!({"phase": "waiting_for_model", "since": t0, "model": "Gemma 12B", "reason": "group"}), t0 + 7_322_000, "Waiting for Gemma 12B: its server holds another model now", "Waiting for Gemma 12B: its server holds another model now · 2h 02m"),
        case(json!({"phase": "retrying", "since": t0, "reason": "503", "in": 2, "attempt": 1}), t0 + 5_000, "Retrying in 0 s: 503", "Retrying in 0 s: 503 · 5s"),
        case(json!({"phase": "stopped", "since": t0, "reason": "steps"}), t0 + 5_000, "Stopped: step limit", "Stopped: step limit"),
        case(json!({"phase": "waiting_for_person", "since": t0, "what": "approval", "tool": "edit"}), t0, "Waiting for you: allow edit?", "Waiting for you: allow edit? · 0s"),
    ]});
    let (code, out) = run(&write("progress.json", &file));
    assert_eq!(code, 0, "{out}");
    assert!(out.ends_with("7 passed, 0 failed\n"), "{out}");
}

#[test]
fn unseen_delegation_and_subagents_cases_pass() {
    let file = json!({"area": "delegation", "cases": [
        {"op": "add", "parent_mode": "manual", "mode": "plan", "request": ["read"], "expect": {"result": null, "mode": "plan"}},
        {"op": "add", "parent_mode": "plan", "mode": "auto", "expect": {"result": "A subagent's mode cannot be looser than its parent's (plan).", "mode": null}},
        {"op": "call", "main_mode": "manual", "mode": "plan", "request": ["write"], "call": {"tool": "edit", "path": "src/x.rs"}, "own_reason": true, "expect": {"answer": "refused"}},
        {"op": "call", "main_mode": "auto", "mode": "manual", "request": ["execute"], "call": {"tool": "bash", "line": "npm test"}, "expect": {"answer": "refused", "text": "Your mode does not allow this, but the main agent may: ask for it with team_request (the tool, the pattern, why), then try again once it allows."}},
        {"op": "call", "main_mode": "plan", "mode": "plan", "call": {"tool": "bash", "line": "git status"}, "expect": {"answer": "run"}},
        {"op": "request", "request": ["read"], "tool": "edit", "expect": {"result": "You may not ask for edit: your request options are read."}},
        {"op": "switch", "agents": [{"name": "a", "parent": "lead", "mode": "edit"}, {"name": "b", "parent": "a", "mode": "auto"}], "main_from": "auto", "main_to": "edit", "expect": {"a": "edit", "b": "edit"}}
    ]});
    let (code, out) = run(&write("delegation-unseen.json", &file));
    assert_eq!(code, 0, "{out}");
    let models = json!({"a/one": {"id": "one", "name": "One Model", "capacity": {"group": "g", "parallel": 1}}, "b/two": {"id": "two", "name": "Two", "capacity": {"parallel": 2}}});
    let file = json!({"area": "subagents", "cases": [
        {"op": "model", "session": "a/one", "models": models, "said": ["try One   Model"], "model": "a/one", "expect": {"refused": "This model serves one request at a time: name another model, on another server, for subagents."}},
        {"op": "model", "session": "a/one", "models": models, "said": ["put them on two:"], "model": "b/two", "expect": {"model": "b/two"}},
        {"op": "model", "session": "a/one", "models": models, "said": ["two-step plan"], "other": ["use two"], "model": "b/two", "expect": {"refused": "Use another model for subagents only when the person names it."}},
        {"op": "offer", "session": "a/one", "models": models, "expect": {"offered": true, "own": false, "note": "This model serves one request at a time, so subagents cannot run on it: they need another model, on another server, that the person names in this chat."}}
    ]});
    let (code, out) = run(&write("subagents-unseen.json", &file));
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_wrong_expectation_fails() {
    let file = json!({"area": "delegation", "cases": [
        {"about": "deliberately wrong", "op": "add", "parent_mode": "edit", "expect": {"result": null, "mode": "auto"}}
    ]});
    let (code, out) = run(&write("wrong.json", &file));
    assert_eq!(code, 1);
    assert!(
        out.contains("deliberately wrong") && out.ends_with("0 passed, 1 failed\n"),
        "{out}"
    );
}
