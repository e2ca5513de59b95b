//! Area `permission` (this project's; permission/*.json): ops `evaluate` (the default) and
//! `approve`. `evaluate` compares the keys its expect names (`action`, `reason`, `decided_by`);
//! `approve` compares the whole `{ rules }` or `{ refused }` — with `then`, a list of calls
//! (`{ request, mode?, unattended? }`) judged with what the approval added, `then`: their actions
//! in order (what an approval must and must not cover).

use super::{named_keys, CaseOutcome, Compare, Why};
use crate::input::{InputError, Obj};
use crate::json::object;
use crate::json::ToJson;
use crate::permission::approval::approve;
use crate::permission::{evaluate, Action, Context, Mode, Request};
use crate::schema::{Field, Shape, Variant, Variants};
use serde_json::Value;

/// A case's call and context.
pub(super) fn read(case: &Obj<'_>) -> Result<(Request, Context), InputError> {
    let request = case
        .get("request")
        .ok_or_else(|| InputError::missing("request"))?;
    let req = Request::from_json("request", request)?;
    let context = case
        .get("context")
        .ok_or_else(|| InputError::missing("context"))?;
    Ok((req, Context::from_json("context", context)?))
}

/// The action of each call of `then` (`[{ request, mode?, unattended? }]`), judged in the case's
/// context with the approval's rules added, in the call's mode (the context's when not given).
fn judged_after(
    then: &Value,
    ctx: &Context,
    added: &[crate::permission::Rule],
) -> Result<Vec<Value>, InputError> {
    let Value::Array(calls) = then else {
        return Err(InputError::Type {
            path: "then".into(),
            expected: "an array of calls",
        });
    };
    let mut answers = Vec::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        let path = crate::input::index("then", i);
        let o = Obj::new(&path, call)?;
        o.only(&["request", "mode", "unattended"])?;
        let request = o
            .get("request")
            .ok_or_else(|| InputError::missing(o.at("request")))?;
        let req = Request::from_json(&o.at("request"), request)?;
        let mut judged = ctx.clone();
        judged.approvals.extend(added.iter().cloned());
        if let Some(mode) = o.opt_word("mode", "mode", crate::permission::Mode::parse)? {
            judged.mode = mode;
        }
        judged.unattended = o.bool_or("unattended", judged.unattended)?;
        answers.push(evaluate(&req, &judged).action.to_json());
    }
    Ok(answers)
}

/// A permission case's shape: op `evaluate` (the default) or `approve`.
pub(super) fn shape() -> Shape {
    let common = vec![
        super::about_field(),
        Field::required("request", Request::shape(), "The call."),
        Field::required("context", Context::shape(), "What it is judged in."),
    ];
    let evaluate = Variant {
        word: "evaluate".into(),
        doc: "The call's decision, compared on the keys the expect names.".into(),
        fields: vec![super::expect_field(
            vec![
                Field::optional(
                    "action",
                    Shape::word("action", Action::WORDS),
                    "What the call gets.",
                ),
                Field::optional(
                    "reason",
                    Shape::Any,
                    "Why, in words (null when it has none).",
                ),
                Field::optional(
                    "decided_by",
                    Shape::Any,
                    "What decided it: a rule, the mode, the hardline, …",
                ),
            ],
            "The decision's keys to compare (each compared whole).",
        )],
    };
    let then_call = Shape::Object(vec![
        Field::required(
            "request",
            Request::shape(),
            "A call judged after the approval.",
        ),
        Field::optional(
            "mode",
            Shape::word("mode", Mode::WORDS),
            "Its mode (the context's when absent).",
        ),
        Field::optional("unattended", Shape::Bool, "Nobody can answer."),
    ]);
    let approve = Variant {
        word: "approve".into(),
        doc: "What \"always allow\" of the call adds, compared whole.".into(),
        fields: vec![
            Field::optional(
                "then",
                Shape::list(then_call),
                "Calls judged with what the approval added.",
            ),
            super::expect_field(
                vec![
                    Field::optional("rules", Shape::Any, "The rules the approval adds."),
                    Field::optional("refused", Shape::Text, "Why it cannot be approved always."),
                    Field::optional(
                        "then",
                        Shape::list(Shape::word("action", Action::WORDS)),
                        "The actions of `then`'s calls, in order.",
                    ),
                ],
                "What the approval adds, or why not; with `then`, their actions.",
            ),
        ],
    };
    Shape::Variants(Variants {
        key: "op".into(),
        key_doc: "What is asked of the call (default evaluate).".into(),
        default: Some("evaluate".into()),
        common,
        variants: vec![evaluate, approve],
    })
}

pub fn run(case: &Obj<'_>) -> Result<CaseOutcome, InputError> {
    let op = case.opt_str("op")?.unwrap_or("evaluate");
    match op {
        "evaluate" => case.only(&["about", "op", "request", "context", "expect"])?,
        _ => case.only(&["about", "op", "request", "context", "then", "expect"])?,
    }
    let (req, ctx) = read(case)?;
    match op {
        "evaluate" => {
            let keys = case.get("expect").map(named_keys).unwrap_or_default();
            Ok(CaseOutcome {
                actual: evaluate(&req, &ctx).to_json(),
                compare: Compare::Keys(keys),
                expected: None,
                why: Why::TheAnswer,
            })
        }
        "approve" => {
            let (mut actual, added) = match approve(&req, &ctx) {
                Ok(rules) => (object([("rules", rules.to_json())]), rules),
                Err(e) => (
                    object([("refused", Value::String(e.to_string()))]),
                    Vec::new(),
                ),
            };
            if let Some(then) = case.get("then") {
                let answers = judged_after(then, &ctx, &added)?;
                if let Value::Object(map) = &mut actual {
                    map.insert("then".into(), Value::Array(answers));
                }
            }
            Ok(CaseOutcome::whole(actual))
        }
        other => Err(InputError::Unknown {
            path: "op".into(),
            what: "op",
            value: other.to_string(),
        }),
    }
}
