//! Area `team` (this project's; subagents.md §5–§13 on team.md 3.2.0): one session step by step.
//! `start` `{ min, max, subagents?, capacity, mode?, now? }`, then `steps`, each an operation as
//! [`TeamStep`] reads it, with `expect` compared on the keys it names (`null`: the step answers
//! nothing). conformance/README.md lists the operations.

use super::{CaseOutcome, Compare, Why};
use crate::input::{self, InputError, Obj};
use crate::schema::{Field, Shape};
use crate::team::operation::{Audience, TeamStep};
use crate::team::{Team, TeamOptions};
use serde_json::Value;

/// The clock a team case starts at unless it says.
pub const START: i64 = 1_762_790_400_000;

/// A team case's shape: `start`, then `steps`.
pub(super) fn shape() -> Shape {
    Shape::Object(vec![
        super::about_field(),
        Field::required(
            "start",
            TeamOptions::shape(),
            "The session's setting at its start.",
        ),
        Field::required(
            "steps",
            Shape::list(TeamStep::shape()),
            "The session, step by step.",
        ),
        Field::optional(
            "expect",
            Shape::Any,
            "Not read: each step has its own expect.",
        ),
    ])
}

pub fn run(case: &Obj<'_>) -> Result<CaseOutcome, InputError> {
    case.only(&["about", "start", "steps", "expect"])?;
    let start = case
        .opt_obj("start", "start")?
        .ok_or_else(|| InputError::missing("start"))?;
    // A case names its setting: min and max are not taken from the defaults.
    start.count("min")?;
    start.count("max")?;
    let mut team = Team::new(&TeamOptions::read(
        &start,
        TeamOptions {
            now: START,
            ..TeamOptions::default()
        },
    )?);
    let steps = case.array("steps")?;
    let mut actual = Vec::with_capacity(steps.len());
    let mut expected = Vec::with_capacity(steps.len());
    for (i, s) in steps.iter().enumerate() {
        let path = input::index("steps", i);
        let o = Obj::new(&path, s)?;
        expected.push(o.get("expect").cloned().unwrap_or(Value::Null));
        o.opt_str("about")?;
        let step = TeamStep::read(&o, &["expect", "about"])?;
        let answer = team.apply(&step).map_err(|e| e.under(&path))?;
        actual.push(answer.to_json(Audience::Case));
    }
    // The case's expect is the steps' expects; each compared on the keys it names.
    let shown: Vec<Value> = actual
        .into_iter()
        .zip(&expected)
        .map(|(g, e)| match (g, e) {
            (Value::Object(g), Value::Object(e)) => {
                crate::json::object_of(g.into_iter().filter(|(k, _)| e.contains_key(k)))
            }
            (g, _) => g,
        })
        .collect();
    Ok(CaseOutcome {
        actual: Value::Array(shown),
        compare: Compare::Whole,
        expected: Some(Value::Array(expected)),
        why: Why::Nothing,
    })
}
