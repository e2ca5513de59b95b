//! lembas-harness: the native CLI of the rules. Every decision is `lembas-rules`'; this crate
//! reads files and streams, prints and exits.
//!
//! - [`conformance`] — `lembas conformance`;
//! - [`provider`] — an OpenAI-compatible chat stream read into events (no I/O: the bytes come in).

pub mod conformance;
pub mod provider;
