//! The work whose instructions `scripts/instructions.sh` counts (under valgrind's callgrind: the
//! same count on a loaded machine as on a quiet one, unlike a time): `evaluate N` judges
//! `git push origin main` in edit mode N times, `api N` the same through the npm package's API
//! (JSON text in and out, as its `.wasm` runs it; built with the `wasm` feature), `run N DIR` runs
//! every case file of DIR N times, `api-run N DIR` the same through the API (each file and its name
//! as JSON text in, the results as text out).

use lembas_rules::conformance::run_file;
use lembas_rules::permission::{evaluate, Context, Mode, Request};
use std::hint::black_box;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let times: u32 = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(1);
    match args.get(1).map(String::as_str) {
        Some("evaluate") => {
            let context = Context::new(Mode::Edit);
            let push = Request::bash("git push origin main");
            for _ in 0..times {
                black_box(evaluate(black_box(&push), &context));
            }
        }
        #[cfg(feature = "wasm")]
        Some("api") => {
            let push = r#"[{"tool":"bash","line":"git push origin main"},{"mode":"edit"}]"#;
            for _ in 0..times {
                let args = lembas_rules::api::parse("arguments", black_box(push));
                let answer = args
                    .and_then(|args| lembas_rules::api::dispatch("evaluate", &args))
                    .map(lembas_rules::api::Answer::into_text);
                black_box(answer).ok();
            }
        }
        #[cfg(feature = "wasm")]
        Some("api-run") => {
            let dir = args.get(3).map_or("conformance", String::as_str);
            let texts: Vec<String> = case_files(dir)
                .iter()
                .map(|(name, value)| serde_json::json!([value, name]).to_string())
                .collect();
            for _ in 0..times {
                for text in &texts {
                    let args = lembas_rules::api::parse("arguments", black_box(text));
                    let answer = args
                        .and_then(|args| lembas_rules::api::dispatch("runFile", &args))
                        .map(lembas_rules::api::Answer::into_text);
                    black_box(answer).ok();
                }
            }
        }
        Some("run") => {
            let dir = args.get(3).map_or("conformance", String::as_str);
            let files = case_files(dir);
            for _ in 0..times {
                for (name, value) in &files {
                    black_box(run_file(value, Some(name)).map_or(0, |r| r.passed));
                }
            }
        }
        _ => {
            eprintln!("usage: instructions evaluate N | api N | run N [DIR] | api-run N [DIR]");
            std::process::exit(2);
        }
    }
}

/// Every case file of `dir`, read (its name without `.json`, its JSON); the program ends when
/// there is none.
fn case_files(dir: &str) -> Vec<(String, serde_json::Value)> {
    let mut files: Vec<(String, serde_json::Value)> = Vec::new();
    for path in std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
    {
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_some_and(|x| x == "json") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if let Ok(value) = serde_json::from_str(&text) {
                files.push((stem.to_string(), value));
            }
        }
    }
    if files.is_empty() {
        eprintln!("no case file in {dir}");
        std::process::exit(2);
    }
    files
}
