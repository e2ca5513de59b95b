#!/usr/bin/env bash
# The npm package and the playground are built with `-Zfmt-debug=none` (`{:?}` writes nothing, for
# size), so no text they show may be written with Debug: this fails on a `{:?}`/`{:#?}` (or a
# named `{x:?}`) in the code of rules/, wasm/ and playground/ outside their tests.
set -euo pipefail
cd "$(dirname "$0")/.."
found=0
while IFS= read -r file; do
  case "$file" in
    */tests.rs) continue ;;
    # The spec data's Rust writer: run by build.rs on the host (and by a test), never in wasm.
    rules/src/spec/rust.rs) continue ;;
  esac
  # The part of the file before its test module.
  if awk '/#\[cfg\(test\)\]/ { exit } { print FILENAME ":" FNR ": " $0 }' "$file" | grep -E '\{[A-Za-z0-9_.]*:#?\?\}'; then
    found=1
  fi
done < <(find rules/src wasm/src playground/src -name '*.rs' | sort)
if [ "$found" = 1 ]; then
  echo "no-debug-text: the lines above write text with Debug, which the wasm builds leave empty" >&2
  exit 1
fi
