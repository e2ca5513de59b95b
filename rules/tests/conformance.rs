#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! Every case file of `conformance/` through the one runner: all pass.

use lembas_rules::conformance::{run_file, summary};
use std::fs;
use std::path::Path;

#[test]
fn every_conformance_file_passes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 3, "no case files in {}", dir.display());
    let mut failures = Vec::new();
    let (mut passed, mut failed) = (0, 0);
    for path in &files {
        let value: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
        let stem = path.file_stem().unwrap().to_str().unwrap();
        let result = run_file(&value, Some(stem)).unwrap();
        passed += result.passed;
        failed += result.failed;
        for r in result.results.iter().filter(|r| !r.pass) {
            failures.push(format!(
                "{stem}: {:?}\n  expected {}\n  actual   {}\n  {:?}",
                r.about, r.expected, r.actual, r.message
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n{}",
        failures.join("\n"),
        summary(passed, failed)
    );
}
