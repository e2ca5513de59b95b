//! How a call was judged, step by step (the feature `trace`, the playground's Why): each part of
//! the call, every rule that matched it, the strictest part, what the mode made of an ask.

use super::judge::{Judge, Part, Prepared, Subject};
use super::path::inside;
use super::request::{Context, Rule};
#[cfg(feature = "trace")]
use super::rule_match::ReadRule;
use super::shell;
use super::words::{Decision, Mode, RiskClass};

#[cfg(feature = "trace")]
/// A part of a call as a trace names it: what the rules judged, one part at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TracedPart {
    /// A command of a line, as rules see it.
    Command(String),
    /// A path (relative to the project root when inside it), judged under a permission key and
    /// a risk class.
    Path {
        /// The path.
        path: String,
        /// The permission key it is judged under.
        permission: String,
        /// Its risk class.
        class: RiskClass,
    },
    /// A part the hardline refuses whatever the mode.
    Hardline {
        /// The hardline entry.
        entry: String,
        /// The part it found.
        part: String,
    },
    /// A guarded path: asked where it would be allowed, refused where nobody asks.
    Guarded {
        /// The hardline entry that guards it.
        entry: String,
        /// The path.
        part: String,
    },
    /// A construct the command reader does not read exactly: the line fails closed.
    Opaque(shell::Construct),
    /// A refused program whose target is known only when it runs.
    UnknownTarget {
        /// The hardline entry that would refuse it.
        entry: String,
        /// The part of the line.
        part: String,
    },
    /// Everything inside a folder a command reads whole (relative to the project root when
    /// inside it), judged by the read rules that guard a file.
    Contents(String),
    /// A redirection that opens a network connection.
    Network(String),
    /// A call with nothing to match but its tool.
    Tool,
}

#[cfg(feature = "trace")]
/// One part of a call judged: the part, every rule that matched it in order (the last one
/// decides), and its decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartTrace {
    /// The part.
    pub part: TracedPart,
    /// The rules whose permission and pattern match it and that cover it, in the order they are
    /// kept.
    pub matched: Vec<Rule>,
    /// The rules whose pattern matches it but that do not cover it: a default allow of a
    /// command outside its program's read-only forms, an approval or a grant of a command with
    /// an effect, an approval in a stricter mode or with nobody to answer, an allow other than
    /// the defaults' of a write or a command in plan mode.
    pub uncovered: Vec<Rule>,
    /// Its decision in the mode.
    pub decision: Decision,
}

#[cfg(feature = "trace")]
/// How a call was judged in one mode: each part in order, the strictest of them, and the call's
/// decision (the strictest part's, unless the mode turns an ask into another answer or nobody is
/// there to ask).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    /// The mode.
    pub mode: Mode,
    /// Each part judged.
    pub parts: Vec<PartTrace>,
    /// The index of the strictest part (the first of equals).
    pub strictest: usize,
    /// The call's decision.
    pub decision: Decision,
}

/// The rules whose pattern matches a part: those that cover it and those that do not.
#[derive(Debug, Default)]
pub(super) struct Matched {
    matched: Vec<Rule>,
    uncovered: Vec<Rule>,
}

impl Judge<'_> {
    #[cfg(feature = "trace")]
    /// Every rule for `permission` whose pattern matches the subject, in order: those that
    /// cover it, and those that do not.
    pub(super) fn matching(&self, permission: &str, subject: Subject<'_>) -> Matched {
        let (matched, uncovered) = self
            .ctx
            .all_rules()
            .chain(self.extra)
            .filter(|r| ReadRule::new(r).matches(permission, subject.text))
            .cloned()
            .partition(|r| self.covers(r, subject));
        Matched { matched, uncovered }
    }

    #[cfg(feature = "trace")]
    /// A part as a trace names it, with the rules that matched it.
    pub(super) fn traced(&self, prepared: &Prepared, part: &Part) -> (TracedPart, Matched) {
        let none = Matched::default;
        match part {
            Part::Hard(hit) => (
                TracedPart::Hardline {
                    entry: hit.entry.clone(),
                    part: hit.part.clone(),
                },
                none(),
            ),
            Part::Guarded(hit, _) => (
                TracedPart::Guarded {
                    entry: hit.entry.clone(),
                    part: hit.part.clone(),
                },
                none(),
            ),
            Part::Opaque(c) => (TracedPart::Opaque(*c), none()),
            Part::Unknown(hit) => (
                TracedPart::UnknownTarget {
                    entry: hit.entry.clone(),
                    part: hit.part.clone(),
                },
                none(),
            ),
            Part::Command(command) => (
                TracedPart::Command(command.text.clone()),
                self.matching(
                    prepared.permission,
                    Subject {
                        text: &command.text,
                        class: prepared.class,
                        command: Some(command),
                    },
                ),
            ),
            Part::Tool => (
                TracedPart::Tool,
                self.matching(prepared.permission, Subject::of("*", prepared.class)),
            ),
            Part::Contents { abs } => (
                TracedPart::Contents(
                    inside(&self.ctx.root, abs).map_or_else(|| abs.clone(), str::to_string),
                ),
                none(),
            ),
            Part::Network(part) => (TracedPart::Network(part.clone()), none()),
            Part::UnknownRead(part) => (
                TracedPart::UnknownTarget {
                    entry: "read".into(),
                    part: part.clone(),
                },
                none(),
            ),
            Part::Path {
                abs,
                permission,
                class,
            } => {
                let path = inside(&self.ctx.root, abs).map_or_else(|| abs.clone(), str::to_string);
                let matched = self.matching(permission, Subject::of(&path, *class));
                (
                    TracedPart::Path {
                        path,
                        permission: permission.clone(),
                        class: *class,
                    },
                    matched,
                )
            }
        }
    }

    #[cfg(feature = "trace")]
    /// The call judged part by part, as [`Judge::decide`] judges it.
    pub(super) fn trace(&self, prepared: &Prepared) -> Trace {
        let parts: Vec<PartTrace> = std::iter::once(&prepared.first)
            .chain(&prepared.rest)
            .zip(self.decisions(prepared))
            .map(|(p, decision)| {
                let (part, rules) = self.traced(prepared, p);
                PartTrace {
                    part,
                    matched: rules.matched,
                    uncovered: rules.uncovered,
                    decision,
                }
            })
            .collect();
        let mut strictest = 0;
        let mut strictest_action = None;
        for (i, p) in parts.iter().enumerate() {
            if strictest_action.is_none_or(|a| p.decision.action > a) {
                strictest = i;
                strictest_action = Some(p.decision.action);
            }
        }
        Trace {
            mode: self.mode,
            parts,
            strictest,
            decision: self.decide(prepared),
        }
    }
}

#[cfg(feature = "trace")]
/// How a prepared call is judged in `mode`, with `grants` after the context's rules: each part,
/// the rules that matched it, and the decision [`decide`] gives.
pub fn trace(
    prepared: &Prepared,
    ctx: &Context,
    mode: Mode,
    grants: &[Rule],
    unattended: bool,
) -> Trace {
    Judge {
        ctx,
        mode,
        extra: grants,
        unattended,
    }
    .trace(prepared)
}
