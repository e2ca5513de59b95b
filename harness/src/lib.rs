//! lembas-harness: the native CLI of the rules. Every decision is `lembas-rules`'; this crate
//! reads files and streams, prints and exits.
//!
//! - [`conformance`] — `lembas conformance`;
//! - [`provider`] — an OpenAI-compatible chat stream: read into events, sent and retried;
//! - [`tools`] — the files and the shell, as the rules allowed;
//! - [`engine`] — one agent's turn: the provider, the tools, the rules' permission and progress;
//! - [`run`] — `lembas run`.

pub mod conformance;
pub mod engine;
pub mod provider;
pub mod run;
pub mod tools;
