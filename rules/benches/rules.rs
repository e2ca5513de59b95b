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
use lembas_rules::permission::plain::{analyse, Place};
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
                            .map_or(0, |answer| answer.text().len())
                    })
                    .sum::<usize>()
            })
        });
    }
}

/// A tree of 32 agents (the main agent, 7 sub-managers with 3 subagents each, 3 more) and a room
/// of 10,000 messages: team_read of the newest 50 and one delivery look only at what they need.
/// The command reader (issue: fail closed): every line of the permission case files read and
/// judged in auto, the longest nested line of the corpus, and a 100 KB line.
fn reader(c: &mut Criterion) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance");
    let mut lines: Vec<String> = Vec::new();
    for f in ["permission.json", "hostile.json", "delegation.json"] {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(f)).unwrap()).unwrap();
        for case in v["cases"].as_array().unwrap() {
            if let Some(l) = case["request"]["line"].as_str() {
                lines.push(l.to_string());
            }
        }
    }
    let auto = Context::new(Mode::Auto);
    let requests: Vec<Request> = lines.iter().map(|l| Request::bash(l)).collect();
    let place = Place {
        root: "/project",
        home: None,
    };
    println!("reader: {} corpus lines", lines.len());
    c.bench_function(
        "reader: every corpus line judged in auto (all lines)",
        |b| {
            b.iter(|| {
                for r in &requests {
                    black_box(evaluate(black_box(r), &auto));
                }
            })
        },
    );
    // Shells inside substitutions inside shells, as deep as the reader goes.
    let mut nested = String::from("rm -rf /");
    for _ in 0..8 {
        nested = format!("bash -c \"$(echo {})\" x", nested.replace('"', "\\\""));
    }
    println!("reader: the nested line is {} bytes", nested.len());
    c.bench_function("reader: nested bash -c $(…) line, judged", |b| {
        b.iter(|| evaluate(black_box(&Request::bash(&nested)), &auto))
    });
    let words = "ls -la src/ && git status; echo done | tee -a log.txt; ".repeat(15_000 / 55 + 1);
    let big = words.get(..15_000).unwrap_or(&words).to_string();
    c.bench_function("reader: a 15 KB line (under the size limit), read", |b| {
        b.iter(|| analyse(black_box(&big), place))
    });
    // Lines made to be slow to read, just under the size limit.
    let crafted = [
        ("cd", "cd a; ".repeat(2700)),
        ("ln -s", "ln -s a b; ".repeat(1400)),
        ("find -exec", "find a b c d -exec rm {} + ; ".repeat(500)),
        (
            "for",
            "for x in a b c d e f g h; do rm -rf $x; done; ".repeat(300),
        ),
        (
            "variables",
            (1..900)
                .map(|i| format!("X{i}=$X{}; ", i - 1))
                .collect::<String>()
                + "rm -rf $X899",
        ),
        (
            "find starts",
            format!(
                "find {} {}",
                "d ".repeat(600),
                "-exec rm {} + ".repeat(1000)
            ),
        ),
    ];
    c.bench_function("reader: six lines crafted to be slow (all six)", |b| {
        b.iter(|| {
            for (_, l) in &crafted {
                black_box(analyse(black_box(l), place));
            }
        })
    });
    let huge = "echo x; ".repeat(100_000 / 8);
    c.bench_function("reader: a 100 KB line, judged", |b| {
        b.iter(|| evaluate(black_box(&Request::bash(&huge)), &auto))
    });
}

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
    let since = tm.room().len() as u64 - 50;
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
                // A clone's room is exactly full; one message more gives it room to grow, as a
                // live room has.
                let mut t = tm.clone();
                let _ = t.call(
                    "w2-1",
                    "team_send",
                    &json!({"to": ["m2"], "message": "first"}),
                );
                let _ = t.take_delivered();
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
    targets = rules, reader, team
}
criterion_main!(benches);
