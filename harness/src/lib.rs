//! lembas-harness: the native CLI of the rules. Every decision is `lembas-rules`'; this crate
//! reads files, prints and exits.

pub mod conformance;
