//! Area `progress` (progress.md): `{ progress, now }` → `{ text, line }`.

use super::CaseOutcome;
use crate::input::{InputError, Obj};
use crate::json::object;
use crate::progress::{line, text, Progress};
use crate::schema::{Field, Shape};
use serde_json::Value;

/// A progress case's shape.
pub(super) fn shape() -> Shape {
    Shape::Object(vec![
        super::about_field(),
        Field::required(
            "progress",
            Progress::shape(),
            "The progress object (progress.md §1).",
        ),
        Field::required("now", Shape::Integer, "The client's clock, Unix ms."),
        super::expect_field(
            vec![
                Field::optional("text", Shape::Text, "The phase's text."),
                Field::optional(
                    "line",
                    Shape::Text,
                    "`text · elapsed`, or the text alone for stopped and failed.",
                ),
            ],
            "The text and the line the phase shows at `now`.",
        ),
    ])
}

pub fn run(case: &Obj<'_>) -> Result<CaseOutcome, InputError> {
    case.only(&["about", "progress", "now", "expect"])?;
    let value = case
        .get("progress")
        .ok_or_else(|| InputError::missing("progress"))?;
    let p = Progress::from_json("progress", value)?;
    let now = case.int("now")?;
    Ok(CaseOutcome::whole(object([
        ("text", Value::String(text(&p, now))),
        ("line", Value::String(line(&p, now))),
    ])))
}
