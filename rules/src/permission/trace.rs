//! How a call was judged, step by step (the feature `trace`, the playground's Why): each part of
//! the call, every rule that matched it, the strictest part, what the mode made of an ask.

use super::judge::{Judge, Part, Prepared};
use super::path::inside;
use super::request::{Context, Rule};
use super::shell;
use super::wildcard;
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
    /// The rules whose permission and pattern match it, in the order they are kept.
    pub matched: Vec<Rule>,
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

impl Judge<'_> {
    #[cfg(feature = "trace")]
    /// Every rule for `permission` whose pattern matches `subject`, in order.
    pub(super) fn matching(&self, permission: &str, subject: &str) -> Vec<Rule> {
        self.ctx
            .all_rules()
            .chain(self.extra)
            .filter(|r| {
                (r.permission == permission
                    || (r.permission.contains('*') && wildcard::matches(&r.permission, permission)))
                    && wildcard::matches(&r.pattern, subject)
            })
            .cloned()
            .collect()
    }

    #[cfg(feature = "trace")]
    /// A part as a trace names it, with the rules that matched it.
    pub(super) fn traced(&self, prepared: &Prepared, part: &Part) -> (TracedPart, Vec<Rule>) {
        match part {
            Part::Hard(hit) => (
                TracedPart::Hardline {
                    entry: hit.entry.clone(),
                    part: hit.part.clone(),
                },
                Vec::new(),
            ),
            Part::Guarded(hit, _) => (
                TracedPart::Guarded {
                    entry: hit.entry.clone(),
                    part: hit.part.clone(),
                },
                Vec::new(),
            ),
            Part::Opaque(c) => (TracedPart::Opaque(*c), Vec::new()),
            Part::Unknown(hit) => (
                TracedPart::UnknownTarget {
                    entry: hit.entry.clone(),
                    part: hit.part.clone(),
                },
                Vec::new(),
            ),
            Part::Command(text) => (
                TracedPart::Command(text.clone()),
                self.matching(&prepared.permission, text),
            ),
            Part::Tool => (TracedPart::Tool, self.matching(&prepared.permission, "*")),
            Part::Path {
                abs,
                permission,
                class,
            } => {
                let path = inside(&self.ctx.root, abs).unwrap_or_else(|| abs.clone());
                let matched = self.matching(permission, &path);
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
    pub(super) fn trace(&self, prepared: &Prepared, unattended: bool) -> Trace {
        let parts: Vec<PartTrace> = std::iter::once(&prepared.first)
            .chain(&prepared.rest)
            .map(|p| {
                let (part, matched) = self.traced(prepared, p);
                PartTrace {
                    part,
                    matched,
                    decision: self.part(prepared, p),
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
            decision: self.decide(prepared, unattended),
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
    }
    .trace(prepared, unattended)
}
