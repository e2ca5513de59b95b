# lembas — the README says what each target is for.
SHELL := /bin/bash
.ONESHELL:
.SHELLFLAGS := -eu -o pipefail -c

# Debian's Rust 1.96 builds for wasm32 (rustup's toolchain here has no wasm32 target).
WASM_ENV := PATH=/usr/bin:$$PATH RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 RUSTFLAGS="-C linker=wasm-ld-22" CARGO_TARGET_DIR=target/wasm
WASM_CARGO := $(WASM_ENV) /usr/bin/cargo
WASM_FLAGS := --target wasm32-unknown-unknown -Zbuild-std=std,panic_abort

.PHONY: run test toolchain fmt clippy unit wasm-rules bench conformance

## The main job: every conformance case, natively.
run:
	cargo run -q -p lembas-harness -- conformance

conformance: run

## Every test: formatting, clippy (native and wasm32), the tests, the wasm32 build of rules/.
test: toolchain fmt clippy unit wasm-rules
	@echo "make test: all checks passed"

toolchain:
	@./scripts/toolchain.sh

fmt:
	cargo fmt --all -- --check

clippy:
	cargo clippy -q --workspace --all-targets -- -D warnings

unit:
	cargo test -q --workspace

wasm-rules:
	$(WASM_CARGO) build -q $(WASM_FLAGS) -p lembas-rules
	$(WASM_CARGO) clippy -q $(WASM_FLAGS) -p lembas-rules -- -D warnings

## Benchmarks (criterion), then their medians.
bench:
	cargo bench -q -p lembas-rules --bench rules
	./scripts/bench-medians
