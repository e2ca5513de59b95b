#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! Benchmarks of the rules (criterion): `make bench` runs them and `scripts/bench-medians`
//! prints the medians the README quotes. Not timed tests: these machines are shared and noisy.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use lembas_rules::conformance::run_file;
use lembas_rules::delegation::{who_decides, Grant, Subagent};
use lembas_rules::permission::{evaluate, Context, Mode, Request, RiskClass};
use lembas_rules::progress::{line, Phase, Progress};
use std::time::Duration;

fn rules(c: &mut Criterion) {
    let ctx = Context::new(Mode::Edit);
    let push = Request::bash("git push origin main");
    let compound = Request::bash("git status && cargo test -p lembas-rules 2>&1 | tail -5");
    c.bench_function("evaluate git push (edit)", |b| {
        b.iter(|| evaluate(black_box(&push), black_box(&ctx)))
    });
    c.bench_function("evaluate compound line (edit)", |b| {
        b.iter(|| evaluate(black_box(&compound), black_box(&ctx)))
    });

    let grants = [Grant {
        tool: "bash".into(),
        permission: "bash".into(),
        pattern: "git push *".into(),
    }];
    let kinds = [RiskClass::Execute];
    let sub = Subagent {
        mode: Mode::Edit,
        request: &kinds,
        grants: &grants,
    };
    let main = Context::new(Mode::Auto);
    c.bench_function("who_decides git push (granted)", |b| {
        b.iter(|| {
            who_decides(
                black_box(&push),
                black_box(&main),
                black_box(&sub),
                Mode::Auto,
            )
        })
    });

    let tool = Progress::new(
        Phase::RunningTool {
            tool: "bash".into(),
            what: Some("bun test".into()),
        },
        1_762_790_400_000,
    );
    c.bench_function("progress line (running_tool)", |b| {
        b.iter(|| line(black_box(&tool), black_box(1_762_790_461_000)))
    });

    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "json") {
            if let Ok(text) = std::fs::read_to_string(&path) {
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
                    files.push((
                        path.file_stem()
                            .and_then(|s| s.to_str())
                            .unwrap_or("")
                            .to_string(),
                        v,
                    ));
                }
            }
        }
    }
    c.bench_function("conformance: every case file", |b| {
        b.iter(|| {
            files
                .iter()
                .map(|(name, v)| run_file(black_box(v), Some(name)).map_or(0, |r| r.passed))
                .sum::<usize>()
        })
    });
    // The npm package's runFile natively: the same work as a call from JavaScript — the
    // arguments' JSON text read, the cases run, the answer written as JSON text.
    #[cfg(feature = "wasm")]
    {
        let texts: Vec<String> = files
            .iter()
            .map(|(name, v)| serde_json::json!([v, name]).to_string())
            .collect();
        c.bench_function("api runFile: JSON text in and out, every case file", |b| {
            b.iter(|| {
                texts
                    .iter()
                    .map(|t| {
                        let args = lembas_rules::api::parse("arguments", black_box(t));
                        args.and_then(|a| lembas_rules::api::dispatch("runFile", &a))
                            .map_or(0, |v| lembas_rules::api::text(&v).len())
                    })
                    .sum::<usize>()
            })
        });
    }
}

/// A tree of 32 agents (the main agent, 7 sub-managers with 3 subagents each, 3 more) and a room
/// of 10,000 messages: team_read of the newest 50 and one delivery look only at what they need.
fn team(c: &mut Criterion) {
    use lembas_rules::team::{Team, TeamOptions};
    use serde_json::json;
    let mut tm = Team::new(&TeamOptions {
        min: 1,
        max: 32,
        ..TeamOptions::default()
    });
    let mut names = Vec::new();
    for m in 0..7 {
        let mgr = format!("m{m}");
        let _ = tm.call(
            "lead",
            "team_add",
            &json!({"name": mgr, "role": "r", "task": "t", "goal": "g", "lead": true}),
        );
        names.push(mgr.clone());
        for s in 0..3 {
            let n = format!("w{m}-{s}");
            let _ = tm.call(
                "lead",
                "team_add",
                &json!({"name": n, "role": "r", "task": "t", "parent": mgr}),
            );
            names.push(n);
        }
    }
    for x in 0..3 {
        let n = format!("x{x}");
        let _ = tm.call(
            "lead",
            "team_add",
            &json!({"name": n, "role": "r", "task": "t"}),
        );
        names.push(n);
    }
    assert_eq!(tm.size(), 32);
    for i in 0..10_000usize {
        let from = &names[i % names.len()];
        let to = &names[(i * 7 + 3) % names.len()];
        if from != to {
            let _ = tm.call(
                from,
                "team_send",
                &json!({"to": [to], "message": "progress report"}),
            );
        } else {
            let _ = tm.call(
                from,
                "team_send",
                &json!({"to": ["lead"], "message": "progress report"}),
            );
        }
        let _ = tm.take_delivered();
    }
    let since = tm.room.len() as u64 - 50;
    c.bench_function("team_read newest 50 (main agent, room of 10,000)", |b| {
        b.iter(|| tm.read(black_box("lead"), black_box(since)))
    });
    c.bench_function("team_read newest 50 (a sub-manager, room of 10,000)", |b| {
        b.iter(|| tm.read(black_box("m3"), black_box(since)))
    });
    c.bench_function("team_send and its delivery (room of 10,000)", |b| {
        // The clone is set up, and dropped, outside what is timed.
        b.iter_batched_ref(
            || {
                // A clone's room is exactly full; room to grow, as a live room has.
                let mut t = tm.clone();
                t.room.reserve(64);
                t
            },
            |t| {
                t.call(
                    "w2-1",
                    "team_send",
                    &json!({"to": ["m2"], "message": "done"}),
                )
            },
            criterion::BatchSize::LargeInput,
        )
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_millis(800)).measurement_time(Duration::from_secs(3));
    targets = rules, team
}
criterion_main!(benches);
