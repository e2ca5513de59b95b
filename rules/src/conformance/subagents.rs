//! Area `subagents` (subagents.md §2–§4, spec 3.3.0): ops `model` and `offer`.

use super::CaseOutcome;
use crate::input::{InputError, Obj};
use crate::json::object;
use crate::schema::{Field, Shape, Variant, Variants};
use crate::subagents::{offer, subagent_model, Models};
use serde_json::Value;

/// A subagents case's shape: op `model` or `offer`.
pub(super) fn shape() -> Shape {
    let common = vec![
        super::about_field(),
        Field::required(
            "session",
            Shape::Text,
            "The session's model: a served id of `models`.",
        ),
        Field::required(
            "models",
            Models::shape(),
            "The person's models by served id.",
        ),
    ];
    let model = Variant {
        word: "model".into(),
        doc: "Which model a subagent runs on (subagents.md §2–§3).".into(),
        fields: vec![
            Field::optional(
                "said",
                Shape::list(Shape::Text),
                "The person's messages, oldest first.",
            ),
            Field::optional(
                "other",
                Shape::list(Shape::Text),
                "Texts that are not the person's: they never name a model.",
            ),
            Field::optional(
                "model",
                Shape::Text,
                "The model the call names (absent: none given).",
            ),
            super::expect_field(
                vec![
                    Field::optional("model", Shape::Text, "The served id it runs on."),
                    Field::optional("refused", Shape::Text, "The refusal, word for word."),
                ],
                "`{ model }` or `{ refused }`.",
            ),
        ],
    };
    let offer = Variant {
        word: "offer".into(),
        doc: "Whether subagents are offered (subagents.md §4).".into(),
        fields: vec![
            Field::optional(
                "subagents",
                Shape::Bool,
                "The Subagents setting (default true).",
            ),
            super::expect_field(
                vec![
                    Field::optional(
                        "offered",
                        Shape::Bool,
                        "Whether the team tools are offered.",
                    ),
                    Field::optional(
                        "own",
                        Shape::Bool,
                        "Whether the session's own model can run subagents.",
                    ),
                    Field::optional(
                        "note",
                        Shape::Any,
                        "The context.note.team_own text, or null.",
                    ),
                ],
                "`{ offered, own, note }`.",
            ),
        ],
    };
    Shape::Variants(Variants {
        key: "op".into(),
        key_doc: "What is asked.".into(),
        default: None,
        common,
        variants: vec![model, offer],
    })
}

pub fn run(case: &Obj<'_>) -> Result<CaseOutcome, InputError> {
    let op = case.str("op")?;
    let models_value = case
        .get("models")
        .ok_or_else(|| InputError::missing("models"))?;
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
