//! Area `delegation` (subagents.md §7): ops `add`, `call`, `request`, `switch`. The project root
//! is /project and only the default rules apply.

use super::{CaseOutcome, Compare};
use crate::delegation::{
    check_mode, request_id, request_refusal, requested, tighten, who_decides, Grant, Subagent,
    TreeMember,
};
use crate::input::{self, InputError, Obj};
use crate::json::object;
use crate::json::ToJson;
use crate::permission::{Context, Mode, Request, RiskClass};
use crate::spec::spec;
use serde_json::{Map, Value};

/// A `call` case's setup: the call, the session, the main agent's mode and the subagent's.
pub(super) struct Call {
    pub(super) req: Request,
    pub(super) session: Context,
    pub(super) main: Mode,
    mode: Mode,
    request: Vec<RiskClass>,
    grants: Vec<Grant>,
}

impl Call {
    /// Reads a `call` case's fields (its other fields are checked by the run).
    pub(super) fn read(case: &Obj<'_>) -> Result<Call, InputError> {
        let main = case.word("main_mode", "mode", Mode::parse)?;
        let mode = case.word("mode", "mode", Mode::parse)?;
        let request = kinds(case)?;
        let grants = Grant::list_from_json("grants", case.opt_array("grants")?)?;
        let call = case.get("call").ok_or(InputError::Missing {
            path: "call".into(),
        })?;
        let req = Request::from_json("call", call)?;
        let mut session = Context::new(main);
        session.unattended = case.bool_or("unattended", false)?;
        Ok(Call {
            req,
            session,
            main,
            mode,
            request,
            grants,
        })
    }

    /// The subagent that makes the call.
    pub(super) fn subagent(&self) -> Subagent<'_> {
        Subagent {
            mode: self.mode,
            request: &self.request,
            grants: &self.grants,
        }
    }
}

fn kinds(case: &Obj<'_>) -> Result<Vec<RiskClass>, InputError> {
    let list = case.opt_strings("request")?.unwrap_or_default();
    list.iter()
        .enumerate()
        .map(|(i, k)| {
            RiskClass::parse(k).ok_or_else(|| InputError::Unknown {
                path: input::index("request", i),
                what: "risk class",
                value: k.to_string(),
            })
        })
        .collect()
}

pub fn run(case: &Obj<'_>) -> Result<CaseOutcome, InputError> {
    let op = case.str("op")?;
    match op {
        "add" => {
            case.only(&["about", "op", "parent_mode", "mode", "request", "expect"])?;
            let parent = case.word("parent_mode", "mode", Mode::parse)?;
            let mode = case.opt_word("mode", "mode", Mode::parse)?;
            let request = case.opt_strings("request")?.unwrap_or_default();
            let actual = match check_mode(parent, mode, &request) {
                Ok(placed) => object([
                    ("result", Value::Null),
                    ("mode", Value::String(placed.mode.as_str().into())),
                ]),
                Err(refusal) => object([
                    ("result", Value::String(refusal.text())),
                    ("mode", Value::Null),
                ]),
            };
            Ok(CaseOutcome::whole(actual))
        }
        "call" => {
            case.only(&[
                "about",
                "op",
                "main_mode",
                "mode",
                "request",
                "grants",
                "call",
                "unattended",
                "own_reason",
                "expect",
            ])?;
            let call = Call::read(case)?;
            let v = who_decides(&call.req, &call.session, &call.subagent(), call.main);
            let why = Some(v.to_json());
            let mut actual = Map::new();
            actual.insert("answer".into(), v.answer.to_json());
            if let Some(text) = v.text {
                actual.insert("text".into(), Value::String(text));
            }
            let compare = if case.bool_or("own_reason", false)? {
                Compare::Keys(vec!["answer".into()])
            } else {
                Compare::Whole
            };
            Ok(CaseOutcome {
                actual: Value::Object(actual),
                compare,
                expected: None,
                why,
            })
        }
        "request" => {
            case.only(&["about", "op", "request", "tool", "expect"])?;
            let request = kinds(case)?;
            let tool = case.str("tool")?;
            let class = spec().tool(tool).map(|t| t.risk);
            let result =
                request_refusal(tool, class, &request).unwrap_or_else(|| requested(&request_id(1)));
            Ok(CaseOutcome::whole(object([(
                "result",
                Value::String(result),
            )])))
        }
        "switch" => {
            case.only(&["about", "op", "agents", "main_from", "main_to", "expect"])?;
            case.word("main_from", "mode", Mode::parse)?;
            let main = case.word("main_to", "mode", Mode::parse)?;
            let mut agents = Vec::new();
            for (i, a) in case.array("agents")?.iter().enumerate() {
                let p = input::index("agents", i);
                let o = Obj::new(&p, a)?;
                o.only(&["name", "parent", "mode"])?;
                agents.push(TreeMember {
                    name: o.str("name")?.to_string(),
                    parent: o.str("parent")?.to_string(),
                    mode: o.word("mode", "mode", Mode::parse)?,
                });
            }
            let after = tighten(main, &agents).map_err(|e| InputError::Invalid {
                path: "agents".into(),
                message: e.to_string(),
            })?;
            let mut m = Map::new();
            for (name, mode) in after {
                m.insert(name, Value::String(mode.as_str().into()));
            }
            Ok(CaseOutcome::whole(Value::Object(m)))
        }
        other => Err(InputError::Unknown {
            path: "op".into(),
            what: "op",
            value: other.to_string(),
        }),
    }
}
