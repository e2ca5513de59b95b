#!/usr/bin/env bash
# Installs what the build and the tests need, and only what is missing: Debian's rustc-web,
# cargo-web, rust-web-src and rust-web-clippy (Rust 1.96 with the wasm32 target's sources) and
# lld-22 (wasm-ld), for building rules/ for wasm32-unknown-unknown. Idempotent and quiet.
set -euo pipefail

need=()
for pkg in rustc-web cargo-web rust-web-src rust-web-clippy lld-22; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "toolchain: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
for tool in /usr/bin/rustc /usr/bin/cargo /usr/bin/clippy-driver wasm-ld-22; do
  command -v "$tool" >/dev/null || { echo "toolchain: $tool is missing after the install" >&2; exit 1; }
done
rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy rustfmt >/dev/null 2>&1 || true
