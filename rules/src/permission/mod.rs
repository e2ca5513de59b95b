//! Permission evaluation (permission/modes.json, defaults.json, hardline.json, arity.json; the
//! rules the delegation cases fix): `evaluate(request, context) → Decision`.
//!
//! The order of a decision, for every part of a call (every command of a line, the path, the
//! place outside the root):
//! 1. the hardline refuses, in every mode ([`hardline`]);
//! 2. the last rule that matches decides — defaults, then the session's rules, then approvals,
//!    then grants; a later rule overrides an earlier one, and a rule's `allow` holds in every mode;
//! 3. with no rule, the mode decides by the call's risk class (plan refuses every change but the
//!    plan);
//! 4. a path outside the project root asks, unless a rule for `external_directory` says otherwise.
//!
//! The strictest part wins (deny > ask > allow). Then auto turns an ask into allow (the hardline
//! and deny rules still refuse), and unattended, what would ask is refused.
//!
//! Fail closed: a line the reader cannot read exactly ([`shell`], an *opaque* line) and a refused
//! program whose target is known only when it runs are never allowed by a rule, an approval or a
//! grant: auto refuses them, plan and unattended refuse them, manual and edit ask.

pub mod approval;
mod first_then_rest;
pub mod glob;
pub mod hardline;
pub mod judge;
pub mod path;
mod path_patterns;
pub mod plain;
pub mod programs;
pub mod request;
pub mod rule_match;
pub mod sandbox;
pub mod shell;
#[cfg(feature = "trace")]
pub mod trace;
pub mod wildcard;
pub mod words;

/// Every text of up to `longest` pieces from `pieces`, the empty one first: the inputs of the
/// differential tests that set a fast matcher beside its first writing.
#[cfg(test)]
pub(crate) fn every_text(pieces: &[&str], longest: usize) -> Vec<String> {
    let mut texts: Vec<String> = vec![String::new()];
    let mut last = texts.clone();
    for _ in 0..longest {
        last = last
            .iter()
            .flat_map(|t| pieces.iter().map(move |p| format!("{t}{p}")))
            .collect();
        texts.extend(last.iter().cloned());
    }
    texts
}

pub use judge::{decide, prepare, strictest, Prepared};
pub use path::{inside, normalize, OUTSIDE_ROOT};
pub use request::{
    approvals_from_json, rules_from_setting, setting_key, Context, Request, Rule, Target, CASE_ROOT,
};
#[cfg(feature = "trace")]
pub use trace::{trace, PartTrace, Trace, TracedPart};
pub use words::{Action, DecidedBy, Decision, Mode, RiskClass, RuleSource};

#[cfg(feature = "trace")]
/// How a call is judged in its context's mode: [`evaluate`]'s steps, traced.
pub fn explain(req: &Request, ctx: &Context) -> Trace {
    trace(&prepare(req, ctx), ctx, ctx.mode, &[], ctx.unattended)
}

/// Judges a call (see the module's docs for the order).
pub fn evaluate(req: &Request, ctx: &Context) -> Decision {
    decide(&prepare(req, ctx), ctx, ctx.mode, &[], ctx.unattended)
}

#[cfg(test)]
mod tests;
