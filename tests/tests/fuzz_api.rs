#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! The npm package's entry points (`lembas_rules::api`, what the wasm bindings call) fed arbitrary
//! JSON: every function, the pacer's and the team's methods. None may panic — in wasm a panic
//! aborts the instance. `cargo test` runs a few thousand inputs; `scripts/fuzz-api.sh` runs a
//! million or more (`FUZZ_CASES`).

use lembas_rules::api::{dispatch, ApiPacer, ApiTeam};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Map, Value};

const FUNCTIONS: &[&str] = &[
    "progressText",
    "progressLine",
    "samePhase",
    "shortWhat",
    "evaluate",
    "approve",
    "whoDecides",
    "checkMode",
    "requestRefusal",
    "tighten",
    "subagentModel",
    "offer",
    "areas",
    "runCase",
    "runFile",
    "version",
    "specVersion",
    "nope",
];
const PACER: &[&str] = &["push", "poll", "flush", "due", "nope"];
/// The team's methods, as the core lists them, with its save and a name it does not know.
fn team_methods() -> Vec<&'static str> {
    let mut methods: Vec<&'static str> = lembas_rules::team::operation::OperationKind::ALL
        .iter()
        .map(|k| k.method())
        .collect();
    methods.extend(["toJSON", "nope"]);
    methods
}

/// Words the rules know, so that inputs often get past the first check.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "phase",
            "since",
            "queued",
            "running_tool",
            "retrying",
            "tool",
            "bash",
            "line",
            "path",
            "mode",
            "edit",
            "auto",
            "plan",
            "manual",
            "lead",
            "team_add",
            "team_send",
            "name",
            "role",
            "task",
            "goal",
            "all",
            "parent",
            "request",
            "write",
            "progress",
            "delegation",
            "team",
            "cases",
            "expect",
            "op",
            "call",
            "steps",
            "start",
            "models",
            "session",
            "rm -rf /",
            "git push origin main",
            ".env",
            "../x",
            "s1",
            "r1",
            "in",
            "now",
            "by",
            "args",
            "capacity",
            "parallel",
        ])
        .prop_map(str::to_string),
        "[a-z_]{0,8}",
        ".{0,12}",
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        word().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((word(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(3000)
}

#[test]
fn no_input_makes_an_entry_point_panic() {
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        prop::sample::select(FUNCTIONS.to_vec()),
        prop::collection::vec(json_value(), 0..4),
    );
    runner
        .run(&strategy, |(name, args)| {
            let _ = dispatch(name, &Value::Array(args));
            Ok(())
        })
        .unwrap();
}

#[test]
fn no_input_makes_a_pacer_or_a_team_panic() {
    let mut runner = TestRunner::new(Config {
        cases: cases() / 4,
        failure_persistence: None,
        ..Config::default()
    });
    let calls = prop::collection::vec(
        (
            prop::sample::select(team_methods()),
            prop::collection::vec(json_value(), 0..5),
        ),
        1..8,
    );
    let strategy = (
        json_value(),
        calls,
        prop::sample::select(PACER.to_vec()),
        prop::collection::vec(json_value(), 0..3),
    );
    runner
        .run(&strategy, |(options, calls, pacer_fn, pacer_args)| {
            let mut pacer = ApiPacer::new();
            let _ = pacer.dispatch(pacer_fn, &Value::Array(pacer_args));
            let mut team = ApiTeam::new(&options)
                .unwrap_or_else(|_| ApiTeam::new(&json!({"max": 4})).unwrap());
            for (name, args) in calls {
                let _ = team.dispatch(name, &Value::Array(args));
            }
            let saved = team.to_json();
            let _ = ApiTeam::from_json(&saved)
                .unwrap()
                .dispatch("tree", &json!([]));
            Ok(())
        })
        .unwrap();
}
