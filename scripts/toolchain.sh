#!/usr/bin/env bash
# Installs what the build and the tests need, and only what is missing, quietly:
# - Debian's rustc-web, cargo-web, rust-web-src, rust-web-clippy (Rust 1.96 with the wasm32
#   target's sources) and lld-22 (wasm-ld), for building for wasm32-unknown-unknown;
# - binaryen (wasm-opt), chromium (the browser tests; nothing downloads a browser), shfmt (the
#   reference parser the command reader is tested against), strace (the lines the rules allow in
#   plan mode are run under it, rules/tests/allowed_for_real.rs), and zip, unzip, rsync, jq and ripgrep
#   (the lines the hardline refuses are run with them in a throwaway home,
#   rules/tests/tools_run_for_real.rs);
# - wasm-bindgen-cli at exactly the version the wasm crate pins;
# - the npm tools of wasm/ (typescript, playwright-core) from the committed lockfile.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
for pkg in rustc-web cargo-web rust-web-src rust-web-clippy lld-22 binaryen chromium shfmt strace zip unzip rsync jq ripgrep; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "toolchain: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
for tool in /usr/bin/rustc /usr/bin/cargo /usr/bin/clippy-driver wasm-ld-22 wasm-opt /usr/bin/chromium /usr/bin/shfmt /usr/bin/strace zip unzip rsync jq rg; do
  command -v "$tool" >/dev/null || { echo "toolchain: $tool is missing after the install" >&2; exit 1; }
done
rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy rustfmt >/dev/null 2>&1 || true

WASM_BINDGEN=0.2.130
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN" ]; then
  echo "toolchain: installing wasm-bindgen-cli $WASM_BINDGEN"
  cargo install -q wasm-bindgen-cli --version "$WASM_BINDGEN"
fi

if [ ! -d wasm/node_modules ] || [ wasm/package-lock.json -nt wasm/node_modules/.package-lock.json ]; then
  echo "toolchain: npm ci in wasm/"
  (cd wasm && npm ci --no-audit --no-fund --silent)
fi
