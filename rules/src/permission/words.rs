//! The words of a decision (permission/modes.json): modes, risk classes, actions, where a rule
//! comes from, and a decision with what decided it. The spec data's reader imports only these.

use super::shell::Construct;
use crate::json::{Fields, Json, Keys, ToJson};
use std::borrow::Cow;
use std::fmt;

/// A permission mode (modes.json `order`: loosest first). `Ord` follows that order, so the
/// stricter of two modes is their `max()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mode {
    /// Allows what would be asked; the hardline and deny rules still refuse.
    Auto,
    /// Allows reading and writing, asks before running commands.
    Edit,
    /// Allows reading, asks before writing and running.
    Manual,
    /// Changes nothing but the plan.
    Plan,
}

words!(Mode { Auto => "auto", Edit => "edit", Manual => "manual", Plan => "plan" });

impl Mode {
    /// Every mode, loosest first.
    pub const ALL: [Mode; 4] = [Mode::Auto, Mode::Edit, Mode::Manual, Mode::Plan];

    /// Its place in [`Mode::ALL`] (loosest first).
    pub fn index(self) -> usize {
        match self {
            Mode::Auto => 0,
            Mode::Edit => 1,
            Mode::Manual => 2,
            Mode::Plan => 3,
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tool's risk class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RiskClass {
    /// Reads files (read, list, glob, grep).
    Read,
    /// Changes files (write, edit).
    Write,
    /// Runs commands (bash).
    Execute,
    /// Talks with the person or the team.
    Interact,
}

impl RiskClass {
    /// Every risk class.
    pub const ALL: [RiskClass; 4] = [
        RiskClass::Read,
        RiskClass::Write,
        RiskClass::Execute,
        RiskClass::Interact,
    ];
}

words!(RiskClass { Read => "read", Write => "write", Execute => "execute", Interact => "interact" });

impl fmt::Display for RiskClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What is done with a call. Ordered loosest first: the strictest of several is their `max()`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// The call runs.
    #[default]
    Allow,
    /// The person is asked first.
    Ask,
    /// The call is refused.
    Deny,
}

words!(Action { Allow => "allow", Ask => "ask", Deny => "deny" });

/// Where a rule comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleSource {
    /// `permission/defaults.json`.
    Defaults,
    /// The session's own rules.
    Session,
    /// An "always allow" answer of the person.
    Approval,
    /// A grant of the main agent to a subagent (subagents.md §7).
    Grant,
}

words!(RuleSource { Defaults => "defaults", Session => "session", Approval => "approval", Grant => "grant" });

/// What decided a call: the rule, the mode or the hardline entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecidedBy {
    /// A hardline entry (or a guarding path entry).
    Hardline {
        /// The entry's id.
        entry: String,
        /// The part of the call it found, spelled plainly (or the path).
        part: String,
    },
    /// A rule.
    Rule {
        /// Where the rule comes from.
        source: RuleSource,
        /// Its permission key.
        permission: String,
        /// Its pattern.
        pattern: String,
        /// What it does.
        action: Action,
    },
    /// The mode, by the call's risk class.
    Mode {
        /// The mode.
        mode: Mode,
        /// The call's risk class.
        class: RiskClass,
    },
    /// A path outside the project root.
    OutsideRoot {
        /// The path, absolute.
        path: String,
    },
    /// Nobody can answer: what would ask is refused.
    Unattended,
    /// The line holds a construct the reader does not read exactly.
    Opaque {
        /// The first construct outside the reader's subset.
        construct: Construct,
    },
    /// A redirection that opens a network connection (`/dev/tcp/…`): no rule allows it.
    Network {
        /// The redirection, as written.
        part: String,
    },
    /// A refused program (or a write) whose target is known only when it runs.
    UnknownTarget {
        /// The hardline entry that would refuse it (or `write`).
        entry: String,
        /// The part of the line.
        part: String,
    },
}

impl ToJson for DecidedBy {
    /// Tagged by `by`: `{ by: "rule", source, permission, pattern, action }`, …
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        match self {
            DecidedBy::Hardline { entry, part } => Fields::of(out, keys)
                .with("by", "hardline")
                .with("entry", entry)
                .with("part", part),
            DecidedBy::Rule {
                source,
                permission,
                pattern,
                action,
            } => Fields::of(out, keys)
                .with("action", *action)
                .with("by", "rule")
                .with("pattern", pattern)
                .with("permission", permission)
                .with("source", *source),
            DecidedBy::Mode { mode, class } => Fields::of(out, keys)
                .with("by", "mode")
                .with("class", *class)
                .with("mode", *mode),
            DecidedBy::OutsideRoot { path } => Fields::of(out, keys)
                .with("by", "outside_root")
                .with("path", path),
            DecidedBy::Unattended => Fields::of(out, keys).with("by", "unattended"),
            DecidedBy::Opaque { construct } => Fields::of(out, keys)
                .with("by", "opaque")
                .with("construct", *construct),
            DecidedBy::Network { part } => Fields::of(out, keys)
                .with("by", "network")
                .with("part", part),
            DecidedBy::UnknownTarget { entry, part } => Fields::of(out, keys)
                .with("by", "unknown_target")
                .with("entry", entry)
                .with("part", part),
        }
        .done()
    }
}

/// The answer to a call: what is done, why, and what decided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// What is done with the call.
    pub action: Action,
    /// Why, in the spec's words: borrowed where the spec's sentence needs nothing filled in (a
    /// mode's answer for a class), so that the commonest decision copies no text.
    pub reason: Cow<'static, str>,
    /// What decided it.
    pub decided_by: DecidedBy,
}

impl ToJson for Decision {
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        Fields::of(out, keys)
            .with("action", self.action)
            .with("decided_by", &self.decided_by)
            .with("reason", self.reason.as_ref())
            .done()
    }
}

serialize_as_json!(DecidedBy, Decision);
