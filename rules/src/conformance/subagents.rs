//! Area `subagents` (subagents.md §2–§4, spec 3.3.0): ops `model` and `offer`.

use super::CaseOutcome;
use crate::input::{InputError, Obj};
use crate::json::object;
use crate::subagents::{offer, subagent_model, Models};
use serde_json::Value;

pub fn run(case: &Obj<'_>) -> Result<CaseOutcome, InputError> {
    let op = case.str("op")?;
    let models_value = case.get("models").ok_or(InputError::Missing {
        path: "models".into(),
    })?;
    let models = Models::from_json("models", models_value)?;
    let session_name = case.str("session")?;
    let session = models
        .get(session_name)
        .ok_or_else(|| InputError::Unknown {
            path: "session".into(),
            what: "model (not in models)",
            value: session_name.to_string(),
        })?;
    match op {
        "model" => {
            case.only(&[
                "about", "op", "session", "models", "said", "other", "model", "expect",
            ])?;
            let said = case.opt_strings("said")?.unwrap_or_default();
            // Texts that are not the person's never name a model: read, and not used.
            case.opt_strings("other")?;
            let actual = match subagent_model(session, &models, &said, case.opt_str("model")?) {
                Ok(served) => object([("model", Value::String(served))]),
                Err(refusal) => object([("refused", Value::String(refusal.text()))]),
            };
            Ok(CaseOutcome::whole(actual))
        }
        "offer" => {
            case.only(&["about", "op", "session", "models", "subagents", "expect"])?;
            let o = offer(session, &models, case.bool_or("subagents", true)?);
            Ok(CaseOutcome::whole(object([
                ("offered", Value::Bool(o.offered)),
                ("own", Value::Bool(o.own)),
                ("note", o.note.map_or(Value::Null, Value::String)),
            ])))
        }
        other => Err(InputError::Unknown {
            path: "op".into(),
            what: "op",
            value: other.to_string(),
        }),
    }
}
