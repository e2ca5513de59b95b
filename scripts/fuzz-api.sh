#!/usr/bin/env bash
# Feeds the npm package's entry points a million (or FUZZ_CASES) arbitrary JSON inputs natively,
# in release mode: none may panic. Prints how many inputs ran and how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."
export FUZZ_CASES="${FUZZ_CASES:-1000000}"
start=$(date +%s)
cargo test -q --release -p lembas-tests --test fuzz_api -- --test-threads 2
echo "fuzz: ${FUZZ_CASES} inputs to the functions, $((FUZZ_CASES / 4)) sessions of pacer and team calls, $(( $(date +%s) - start ))s, no panic"
