//! # lembas-rules
//!
//! The deterministic rules of harness spec 3.4.0, pure: no I/O, no clock, no threads — every time
//! is an argument in Unix milliseconds. Data flows one way:
//!
//! ```text
//! rules/spec/*.json ──► spec (typed, embedded at build time) ──► the rules ──► thin shells
//! ```
//!
//! One module per spec area:
//! - [`progress`] — progress.md: the phases, their text and line, the pacer;
//! - [`permission`] — modes, rules, the hardline, approvals: `evaluate(request, context)`;
//! - [`delegation`] — subagents.md §7: a subagent's mode, who decides its call, requests;
//! - [`subagents`] — subagents.md §2–§4 (3.3.0): which model a subagent runs on, the offer;
//! - [`team`] — subagents.md §5–§13: the main agent's tree as a pure state machine;
//! - [`conformance`] — the one runner of the test vectors, for every shell;
//! - [`schema`] — the case format as JSON Schemas, written from the readers' own shapes;
//! - [`json`] — the answers as JSON: one writer per type, which `Serialize` uses too;
//! - `api` (feature `wasm`) — the JavaScript-facing API of the npm package, as JSON values.
//!
//! Every text the spec fixes comes from [`spec`]'s data, never from a literal here. Bad input is an
//! [`input::InputError`] naming its field; nothing in this crate panics.

#![warn(missing_docs)]

#[macro_use]
pub mod json;

#[cfg(feature = "wasm")]
pub mod api;
pub mod conformance;
pub mod delegation;
pub mod input;
pub mod permission;
pub mod progress;
pub mod schema;
pub mod spec;
pub mod subagents;
pub mod team;
pub mod text;

pub use input::InputError;

/// This crate's version.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The spec version the rules implement (`"3.4.0"`).
pub fn spec_version() -> &'static str {
    spec::version()
}
