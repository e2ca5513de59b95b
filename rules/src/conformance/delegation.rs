//! Area `delegation` (subagents.md §7): ops `add`, `call`, `request`, `switch`. The project root
//! is /project and only the default rules apply.

use super::{CaseOutcome, Compare, Why};
use crate::delegation::CallAnswer;
use crate::delegation::{
    check_mode, request_id, request_refusal, requested, tighten, who_decides, Grant, Subagent,
    TreeMember,
};
use crate::input::{self, InputError, Obj};
use crate::json::object;
use crate::json::ToJson;
use crate::permission::{Context, Mode, Request, RiskClass};
use crate::schema::{Field, Shape, Variant, Variants};
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
        let call = case
            .get("call")
            .ok_or_else(|| InputError::missing("call"))?;
        let req = Request::file_call_from_json("call", call)?;
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

/// A delegation case's shape: op `add`, `call`, `request` or `switch`.
pub(super) fn shape() -> Shape {
    let a_mode = || Shape::word("mode", Mode::WORDS);
    let kinds = || Shape::list(Shape::word("risk class", RiskClass::WORDS));
    let add = Variant {
        word: "add".into(),
        doc: "A subagent added: the mode it gets, or the refusal.".into(),
        fields: vec![
            Field::required("parent_mode", a_mode(), "Its parent's mode."),
            Field::optional("mode", a_mode(), "The mode asked for it."),
            Field::optional(
                "request",
                Shape::list(Shape::Suggested {
                    what: "risk class",
                    words: RiskClass::WORDS.iter().map(|w| (*w).to_string()).collect(),
                }),
                "The kinds it may request (a word no kind has is refused in the answer).",
            ),
            super::expect_field(
                vec![
                    Field::optional("result", Shape::Any, "The refusal word for word, or null."),
                    Field::optional("mode", Shape::Any, "The mode it gets, or null."),
                ],
                "`{ result, mode }`.",
            ),
        ],
    };
    let call = Variant {
        word: "call".into(),
        doc: "Who decides a subagent's call (subagents.md §7).".into(),
        fields: vec![
            Field::required("main_mode", a_mode(), "The main agent's mode."),
            Field::required("mode", a_mode(), "The subagent's mode."),
            Field::optional("request", kinds(), "The kinds it may request."),
            Field::optional(
                "grants",
                Shape::list(Grant::shape()),
                "What the main agent granted it.",
            ),
            Field::required(
                "call",
                Request::shape(),
                "The call: `{ tool: \"bash\", line }` or `{ tool, path }`.",
            ),
            Field::optional("unattended", Shape::Bool, "Nobody can answer."),
            Field::optional(
                "own_reason",
                Shape::Bool,
                "true: only `answer` is compared.",
            ),
            super::expect_field(
                vec![
                    Field::optional(
                        "answer",
                        Shape::word("answer", CallAnswer::WORDS),
                        "Who decides.",
                    ),
                    Field::optional("text", Shape::Text, "The refusal's text."),
                ],
                "`{ answer, text? }`.",
            ),
        ],
    };
    let request = Variant {
        word: "request".into(),
        doc: "team_request's answer, as the session's first request.".into(),
        fields: vec![
            Field::optional("request", kinds(), "The kinds requested."),
            Field::required("tool", Shape::Text, "The tool it is for."),
            super::expect_field(
                vec![Field::optional(
                    "result",
                    Shape::Text,
                    "The answer, word for word.",
                )],
                "`{ result }`.",
            ),
        ],
    };
    let member = Shape::Object(vec![
        Field::required("name", Shape::Text, "Its name."),
        Field::required(
            "parent",
            Shape::Text,
            "Its parent's name (`lead`: the main agent).",
        ),
        Field::required("mode", a_mode(), "Its mode before."),
    ]);
    let switch = Variant {
        word: "switch".into(),
        doc: "The main agent's mode changes: every agent's mode after.".into(),
        fields: vec![
            Field::required("agents", Shape::list(member), "The tree."),
            Field::required("main_from", a_mode(), "The main agent's mode before."),
            Field::required("main_to", a_mode(), "Its mode after."),
            Field::required(
                "expect",
                Shape::Map {
                    key: "an agent's name",
                    value: Box::new(a_mode()),
                },
                "Every agent's mode after.",
            ),
        ],
    };
    Shape::Variants(Variants {
        key: "op".into(),
        key_doc: "What is asked.".into(),
        default: None,
        common: vec![super::about_field()],
        variants: vec![add, call, request, switch],
    })
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
            let why = Why::Said(v.to_json());
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
