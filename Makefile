# lembas — each target says what it is for (the README: the two that matter first).
SHELL := /bin/bash
.ONESHELL:
.SHELLFLAGS := -eu -o pipefail -c

# Debian's Rust 1.96 builds for wasm32 (rustup's toolchain here has no wasm32 target).
WASM_ENV := PATH=/usr/bin:$$PATH RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 RUSTFLAGS="-C linker=wasm-ld-22" CARGO_TARGET_DIR=target/wasm
WASM_CARGO := $(WASM_ENV) /usr/bin/cargo
WASM_FLAGS := --target wasm32-unknown-unknown -Zbuild-std=std,panic_abort
# The npm package and the playground: std built for size too (its smaller sorts and formatting).
PKG_FLAGS := $(WASM_FLAGS) -Zbuild-std-features=optimize_for_size

# The npm package's wasm: Debian's Rust again, without reference types — binaryen 108's wasm-opt
# breaks wasm-bindgen's externref table — without the file and line of each panic site (no input
# reaches one; the panic hook still says what panicked) and with `{:?}` writing nothing (no text
# of the rules, the package or the playground is written with Debug: their messages are Display);
# then wasm-bindgen and wasm-opt.
PKG_RUSTFLAGS := -C linker=wasm-ld-22 -C target-feature=-reference-types,-multivalue -Zlocation-detail=none -Zfmt-debug=none
# The npm package alone (built at opt-level 2) inlines a function only below LLVM's cost of 100
# (225 by default at opt-level 2) and unrolls no loop: 60 KB smaller (20 KB gzipped), measured
# no slower in Node (wasm/bench/compare.mjs beside the build before: evaluate, whoDecides, runFile
# within 3%; docs/figures.md).
# Not for the playground: at "z" an explicit threshold would inline more, not less.
NPM_RUSTFLAGS := $(PKG_RUSTFLAGS) -C llvm-args=-inline-threshold=100 -C llvm-args=-unroll-threshold=0
PKG_ENV := PATH=/usr/bin:$$PATH RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 RUSTFLAGS="$(NPM_RUSTFLAGS)" CARGO_TARGET_DIR=target/wasm-pkg
# The playground's: the same, with Leptos's views type-erased (`--cfg erase_components`: one
# type for every reactive child instead of one per call site; 39 KB less .wasm), in a target
# folder of its own so that the two builds do not rebuild each other.
PLAYGROUND_ENV := PATH=/usr/bin:$$PATH RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 RUSTFLAGS="$(PKG_RUSTFLAGS) --cfg erase_components" CARGO_TARGET_DIR=target/wasm-playground
# `--low-memory-unused`: wasm-opt may fold a small constant added to an address into the access's
# offset (`load(p + 8)` → `load offset=8 (p)`), which differs only where `p + 8` would wrap past
# 4 GiB, i.e. for an address computed below 1 KB. Nothing lives there: wasm-ld places data at
# 1 KB or above, and here (its stack first) at 1 MiB, with the stack below, whose last KB only an
# overflow reaches. 4 KB less package, 8 KB less playground.
OPT_FLAGS := --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals --low-memory-unused
# wasm-opt's passes for the package: -Oz, then the control flow flattened and rebuilt (relooped),
# then -Oz again until nothing shrinks (about 1 KB gzipped less than -Oz alone).
OPT_PASSES := -Oz --flatten --rereloop -Oz --converge

.PHONY: run test toolchain fmt clippy unit wasm-rules bench bench-harness conformance npm npm-test npm-size playground-dist playground-test acp-test

## The main job: the playground, built and served on http://127.0.0.1:8080 (precompressed:
## brotli and gzip).
run: playground-dist
	@echo "lembas playground: http://127.0.0.1:8080"
	node scripts/static-server.mjs playground/dist 8080

## Every conformance case, natively.
conformance:
	cargo run -q -p lembas-harness -- conformance

## The playground, built into playground/dist/ (a static folder: HTML, JS glue, .wasm, the case
## editor's bundle, CSS, the cases; each asset named by its content's hash, and a brotli and a
## gzip copy of each).
playground-dist: toolchain
	$(PLAYGROUND_ENV) /usr/bin/cargo build -q --profile wasm $(PKG_FLAGS) -p lembas-playground
	rm -rf playground/dist && mkdir -p playground/dist
	wasm-bindgen --target web --no-typescript --out-dir playground/dist target/wasm-playground/wasm32-unknown-unknown/wasm/lembas_playground.wasm
	wasm-opt -Oz $(OPT_FLAGS) --strip-debug --strip-producers playground/dist/lembas_playground_bg.wasm -o playground/dist/lembas_playground_bg.wasm
	cp playground/static/* playground/dist/
	sed -i "s/{{spec}}/$$(node -p 'require("./rules/spec/loop.json").version')/" playground/dist/index.html
	cargo run -q -p lembas-rules --example schemas -- target/schemas
	node playground/editor/build.mjs target/schemas playground/dist/editor.js
	node scripts/bundle-cases.mjs conformance playground/dist/cases.json
	node scripts/fingerprint.mjs playground/dist
	node scripts/compress.mjs playground/dist
	@node -e 'const d="playground/dist/",f=require("fs").readdirSync(d).find(n=>n.endsWith(".wasm")),b=require("fs").readFileSync(d+f);console.log(f+": "+(b.length/1000).toFixed(1)+" KB, "+(require("zlib").gzipSync(b,{level:9}).length/1000).toFixed(1)+" KB gzipped")'

## The playground end to end in headless Chromium (it replays a `lembas run` against the scripted
## server, so it builds both), after the case editor's reading of the schemas in Node.
playground-test: playground-dist
	cargo build -q -p lembas-harness --bin lembas --examples
	node --test playground/editor/schema.test.mjs playground/editor/editor.test.mjs
	node playground/e2e/e2e.mjs

## Every test: formatting, clippy (native and wasm32), the tests, the wasm32 build of rules/, the
## npm package in Node and in headless Chromium.
## It ends with the conformance run's own line, `N passed, N failed`.
test: toolchain fmt clippy unit wasm-rules npm-test acp-test playground-test
	cargo run -q -p lembas-harness -- conformance

toolchain:
	@./scripts/toolchain.sh

fmt:
	cargo fmt --all -- --check
	./scripts/no-debug-text.sh

clippy:
	cargo clippy -q --workspace --all-targets -- -D warnings

# The workspace's tests, then the rules' own as the npm package builds them (with the `wasm`
# feature, and serde_json's maps sorted: in the workspace a library of the harness asks them to
# keep their keys in the order given, and the package's JSON text must match its map either way).
unit:
	cargo test -q --workspace --lib --bins --tests
	cargo test -q -p lembas-rules --features wasm --lib

wasm-rules:
	$(WASM_CARGO) build -q $(WASM_FLAGS) -p lembas-rules
	$(WASM_CARGO) clippy -q $(WASM_FLAGS) -p lembas-rules -- -D warnings

## The npm package, built into wasm/pkg/ for speed (the `wasm-speed` profile: opt-level 2; the
## playground stays at "z"), with the case format's JSON Schemas in wasm/pkg/schemas/ (as
## `lembas conformance --schema AREA` prints them).
npm: toolchain
	$(PKG_ENV) /usr/bin/cargo build -q --profile wasm-speed $(PKG_FLAGS) -p lembas-wasm
	rm -rf wasm/pkg && mkdir -p wasm/pkg
	wasm-bindgen --target web --no-typescript --out-dir wasm/pkg target/wasm-pkg/wasm32-unknown-unknown/wasm-speed/lembas_wasm.wasm
	wasm-opt $(OPT_PASSES) $(OPT_FLAGS) --strip-debug --strip-producers wasm/pkg/lembas_wasm_bg.wasm -o wasm/pkg/lembas_wasm_bg.wasm
	cp wasm/js/index.js wasm/js/node.js wasm/js/index.d.ts wasm/js/package.json wasm/js/README.md wasm/pkg/
	cargo run -q -p lembas-rules --example schemas -- wasm/pkg/schemas
	node wasm/scripts/size.mjs --report

## The package's tests: its size budget, Node's test runner, the types, headless Chromium, a fresh
## install.
npm-test: npm
	node wasm/scripts/size.mjs
	cargo build -q -p lembas-harness
	node --test wasm/test/node.test.mjs wasm/test/api.test.mjs wasm/test/schemas.test.mjs
	(cd wasm/test && ../node_modules/.bin/tsc -p tsconfig.json)
	node wasm/test/browser.mjs
	./wasm/scripts/fresh-install.sh

## `lembas acp` through the TypeScript SDK of the Agent Client Protocol (pinned in wasm/'s lockfile),
## against the scripted server.
acp-test: toolchain
	cargo build -q -p lembas-harness --bin lembas --examples
	node harness/tests/acp_client.mjs

## The size of the package's .wasm against its budget (480 KB, 200 KB gzipped): fails above what
## the package built for speed measures plus a little room (830 KB, 340 KB gzipped).
npm-size: npm
	node wasm/scripts/size.mjs

## Benchmarks (criterion), then their medians; then the harness's (streaming, idle subagents).
bench: bench-harness
	cargo bench -q -p lembas-rules --features wasm --bench rules
	./scripts/bench-medians

bench-harness:
	cargo run -q --release -p lembas-harness --example bench
