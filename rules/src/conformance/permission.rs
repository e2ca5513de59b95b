//! Area `permission` (this project's; permission/*.json): ops `evaluate` (the default) and
//! `approve`. `evaluate` compares the keys its expect names (`action`, `reason`, `decided_by`);
//! `approve` compares the whole `{ rules }` or `{ refused }`.

use super::{named_keys, CaseOutcome, Compare};
use crate::input::{InputError, Obj};
use crate::json::object;
use crate::json::ToJson;
use crate::permission::approval::approve;
use crate::permission::{evaluate, Context, Request};
use serde_json::Value;

/// A case's call and context.
pub(super) fn read(case: &Obj<'_>) -> Result<(Request, Context), InputError> {
    let request = case.get("request").ok_or(InputError::Missing {
        path: "request".into(),
    })?;
    let req = Request::from_json("request", request)?;
    let context = case.get("context").ok_or(InputError::Missing {
        path: "context".into(),
    })?;
    Ok((req, Context::from_json("context", context)?))
}

pub fn run(case: &Obj<'_>) -> Result<CaseOutcome, InputError> {
    case.only(&["about", "op", "request", "context", "expect"])?;
    let (req, ctx) = read(case)?;
    match case.opt_str("op")?.unwrap_or("evaluate") {
        "evaluate" => {
            let d = evaluate(&req, &ctx);
            let expect = case.get("expect").cloned().unwrap_or(Value::Null);
            let actual = d.to_json();
            Ok(CaseOutcome {
                why: Some(actual.clone()),
                actual,
                compare: Compare::Keys(named_keys(&expect)),
                expected: None,
            })
        }
        "approve" => {
            let actual = match approve(&req, &ctx) {
                Ok(rules) => object([("rules", rules.to_json())]),
                Err(e) => object([("refused", Value::String(e.to_string()))]),
            };
            Ok(CaseOutcome::whole(actual))
        }
        other => Err(InputError::Unknown {
            path: "op".into(),
            what: "op",
            value: other.to_string(),
        }),
    }
}
