#!/usr/bin/env bash
# Instructions the rules take natively, counted by valgrind's callgrind: one evaluate of
# `git push origin main` in edit mode (by the rules, and through the npm package's API: JSON text
# in and out), and one whole run of every conformance case file (by the runner, and through the
# package's API: each file as JSON text in, its results as text out). A count
# is the same on a loaded machine as on a quiet one, so two versions of the rules compare well
# where their times do not (docs/figures.md). Each is the difference of two runs of different
# lengths, so that starting the program and reading the files count for nothing.
# Needs valgrind (Debian: apt-get install valgrind).
set -eu
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
cargo build -q --release -p lembas-rules --features wasm --example instructions
bin="${CARGO_TARGET_DIR:-target}/release/examples/instructions"
count() {
  local n
  n=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 | awk '/Collected/ {print $4}')
  [ -n "$n" ] || { echo "instructions.sh: callgrind counted nothing for $bin $*" >&2; exit 1; }
  echo "$n"
}
e1=$(count evaluate 2000); e2=$(count evaluate 12000)
a1=$(count api 2000); a2=$(count api 12000)
r1=$(count run 1 conformance); r2=$(count run 3 conformance)
f1=$(count api-run 1 conformance); f2=$(count api-run 3 conformance)
echo "evaluate git push origin main (edit): $(( (e2 - e1) / 10000 )) instructions"
echo "the same through the package's API (JSON text in and out): $(( (a2 - a1) / 10000 )) instructions"
echo "every conformance case file, one run: $(( (r2 - r1) / 2 / 1000000 )) M instructions"
echo "the same through the package's API (runFile, JSON text in and out): $(( (f2 - f1) / 2 / 1000000 )) M instructions"
