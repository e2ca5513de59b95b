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
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_millis(800)).measurement_time(Duration::from_secs(3));
    targets = rules
}
criterion_main!(benches);
