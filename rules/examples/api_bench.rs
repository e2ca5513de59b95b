//! The npm package's calls run natively, for `wasm/bench/bench.mjs` to set beside its own figures:
//! `cargo run --release -p lembas-rules --features wasm --example api_bench -- DIR`. Prints one
//! JSON object: the median µs of each call (text in, text out, as the package's wasm does) and of
//! a whole run of every case file in DIR, by the runner alone and through the API; and of one
//! `evaluate` of `git push origin main` by the rules alone, as `make bench` calls it.

use lembas_rules::api;
use lembas_rules::conformance::run_file;
use lembas_rules::permission::{evaluate, Context, Mode, Request};
use std::time::Instant;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs.get(xs.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The median over nine rounds of µs per call of `f`, called `n` times a round.
fn bench(n: u32, mut f: impl FnMut()) -> f64 {
    for _ in 0..n.min(200) {
        f();
    }
    let rounds = (0..9)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..n {
                f();
            }
            t.elapsed().as_secs_f64() * 1e6 / f64::from(n)
        })
        .collect();
    median(rounds)
}

fn call(name: &str, args: &str) {
    let args = api::parse("arguments", args).unwrap_or_default();
    let answer = api::dispatch(name, &args).map(api::Answer::into_text);
    std::hint::black_box(answer).ok();
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "conformance".into());
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| {
            let stem = p.file_stem()?.to_string_lossy().into_owned();
            Some((std::fs::read_to_string(&p).ok()?, stem))
        })
        .collect();
    files.sort();
    let parsed: Vec<(serde_json::Value, String)> = files
        .iter()
        .filter_map(|(text, stem)| Some((serde_json::from_str(text).ok()?, stem.clone())))
        .collect();
    let push = r#"[{"tool":"bash","line":"git push origin main"},{"mode":"edit"}]"#;
    let who = r#"[{"tool":"bash","line":"git push origin main"},{"mainMode":"auto","mode":"edit","request":["execute"],"grants":[{"tool":"bash","pattern":"git push *"}]}]"#;
    let line = r#"[{"phase":"running_tool","since":1762790400000,"tool":"bash","what":"bun test"},1762790461000]"#;
    let ctx = Context::new(Mode::Edit);
    let git_push = Request::bash("git push origin main");
    let figures = [
        ("evaluate", bench(2000, || call("evaluate", push))),
        (
            "evaluate (the rules)",
            bench(20_000, || {
                std::hint::black_box(evaluate(std::hint::black_box(&git_push), &ctx));
            }),
        ),
        ("whoDecides", bench(2000, || call("whoDecides", who))),
        ("progressLine", bench(5000, || call("progressLine", line))),
        ("specVersion", bench(5000, || call("specVersion", "[]"))),
        (
            "runFile (the runner)",
            bench(20, || {
                for (file, stem) in &parsed {
                    std::hint::black_box(run_file(file, Some(stem))).ok();
                }
            }),
        ),
        (
            "runFile (the API, text in and out)",
            bench(20, || {
                for (text, stem) in &files {
                    let args = format!("[{text},{}]", serde_json::Value::from(stem.as_str()));
                    call("runFile", &args);
                }
            }),
        ),
    ];
    let out: serde_json::Map<String, serde_json::Value> = figures
        .into_iter()
        .map(|(k, v)| (k.to_string(), serde_json::Value::from(v)))
        .collect();
    println!("{}", serde_json::Value::Object(out));
}
