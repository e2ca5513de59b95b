//! lembas-harness: the native CLI of the rules. Every decision is `lembas-rules`'; this crate
//! reads files and streams, prints and exits.
//!
//! - [`conformance`] — `lembas conformance`;
//! - [`provider`] — an OpenAI-compatible chat stream: read into events, sent and retried;
//! - [`call`] — a call as every front shows it: its id, title, kind, places and end;
//! - [`tools`] — the files and the shell, as the rules allowed;
//! - [`guard`] — git's hooks and running settings put back after every command;
//! - [`files`] — a file tool's file opened as the rules judged it, beneath the root, through no link;
//! - [`sandbox`] — the kernel's floor under the rules: every command confined by its agent's mode;
//! - [`plan`] — the session's plan: written, marked, submitted, kept as a file;
//! - [`engine`] — one agent's turns: the provider, the tools, the rules' permission and progress;
//! - [`crew`] — the tree at work: the rules' team driven by an engine per agent, each in its task;
//! - [`config`] — `lembas run`'s settings: flags, environment, config file;
//! - [`screen`] — what a person sees of a run, and the `--events` file;
//! - [`lines`] — the person's lines at a terminal: edited, kept per project;
//! - [`asking`] — a question to the person at a terminal, about one call;
//! - [`session`] — the main agent's conversation and tree, kept across prompts;
//! - [`store`] — sessions that last: kept under the person's state folder as they go;
//! - [`run`] — `lembas run`: a session of one turn;
//! - [`chat`] — `lembas chat` (and `lembas` alone): a session of many, at a terminal;
//! - [`prompt`] — an editor's prompt as the model reads it: its text and what was attached;
//! - [`acp`] — `lembas acp`: sessions for editors, over the Agent Client Protocol.

pub mod acp;
pub mod asking;
pub mod call;
pub mod chat;
pub mod config;
pub mod conformance;
pub mod crew;
pub mod engine;
pub mod events;
pub mod files;
pub mod guard;
pub mod lines;
pub mod pid_namespace;
pub mod pinned_folder;
pub mod plan;
pub mod prompt;
pub mod provider;
pub mod run;
pub mod sandbox;
pub mod screen;
pub mod session;
pub mod store;
pub mod survivors;
pub mod text;
pub mod tools;
