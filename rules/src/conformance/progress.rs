//! Area `progress` (progress.md): `{ progress, now }` → `{ text, line }`.

use super::CaseOutcome;
use crate::input::{InputError, Obj};
use crate::json::object;
use crate::progress::{line, text, Progress};
use serde_json::Value;

pub fn run(case: &Obj<'_>) -> Result<CaseOutcome, InputError> {
    case.only(&["about", "progress", "now", "expect"])?;
    let value = case.get("progress").ok_or(InputError::Missing {
        path: "progress".into(),
    })?;
    let p = Progress::from_json("progress", value)?;
    let now = case.int("now")?;
    Ok(CaseOutcome::whole(object([
        ("text", Value::String(text(&p, now))),
        ("line", Value::String(line(&p, now))),
    ])))
}
