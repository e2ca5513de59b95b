//! The JavaScript-facing API (feature `wasm`): what the npm package's functions take (JSON
//! values) and give (JSON text, [`Answer`]), so native tests exercise exactly what JavaScript
//! receives.
//!
//! Keys are camelCase on the wire (`decidedBy`, `openSlots`, `parentMode`); results that can be
//! one of several things are tagged (`{ model }` or `{ refused }`, `{ do: "send" }`). Case data
//! (conformance results) is passed through as the case wrote it, byte for byte the native
//! runner's. Every error is an [`ApiError`] with a stable `code` and a message naming the field.
//! `team.rs`: the team's class.

mod team;
pub use team::{team_methods, ApiTeam};

use crate::conformance;
use crate::delegation::{self, Grant, Subagent, TreeMember};
use crate::input::{self, InputError, Obj};
use crate::json::{Fields, Json, Keys, Text, ToJson};
use crate::permission::{self, approval, Context, Mode, Request, RiskClass};
use crate::progress::{self, Pacer, Progress};
use crate::subagents::{self, Models};
use serde::Serialize;
use serde_json::Value;

/// An error for JavaScript: a stable code and a message naming what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApiError {
    /// A stable code to branch on (`missing_field`, `wrong_type`, `not_json`, …).
    pub code: &'static str,
    /// What is wrong, naming the field.
    pub message: String,
}

impl From<InputError> for ApiError {
    fn from(e: InputError) -> Self {
        ApiError {
            code: e.code(),
            message: e.to_string(),
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// An answer for JavaScript: JSON text, for its `JSON.parse`. The rules' own values are written
/// as text directly ([`ToJson::write_text`]); only what is a JSON value already (a case's values,
/// a list of names) is written from its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer(String);

impl Answer {
    /// The answer's JSON text.
    pub fn text(&self) -> &str {
        &self.0
    }

    /// The answer's JSON text, taken.
    pub fn into_text(self) -> String {
        self.0
    }

    /// The answer read back as a JSON value (for Rust callers and tests).
    pub fn value(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_str(&self.0)
    }

    /// The answer of a text written whole.
    fn written(text: Text) -> ApiResult {
        text.into_string().map(Answer).map_err(|e| ApiError {
            code: "not_written",
            message: e.to_string(),
        })
    }
}

/// An answer for JavaScript, or its error.
pub type ApiResult = Result<Answer, ApiError>;

/// Parses a JSON text coming from JavaScript (its `JSON.stringify`); serde_json's depth limit
/// turns a too-deep value into an error, never a crash.
pub fn parse(what: &str, text: &str) -> Result<Value, ApiError> {
    crate::json::parse_strict(text).map_err(|e| ApiError {
        code: "not_json",
        message: format!("{what}: not JSON ({e})"),
    })
}

/// A rules' value as the answer, its keys camelCase.
fn out<T: ToJson + ?Sized>(t: &T) -> ApiResult {
    Answer::written(t.write_text(Keys::Camel))
}

/// A JSON value as the answer, as it is (its keys are not respelled).
fn value_out(value: Value) -> ApiResult {
    let mut text = Text::default();
    text.value(value, Keys::Snake);
    Answer::written(text)
}

/// `{ key: value }`.
fn one(key: &str, value: impl ToJson) -> ApiResult {
    let mut text = Text::with_capacity(128);
    Fields::of(&mut text, Keys::Camel).with(key, value).done();
    Answer::written(text)
}

fn mode_arg(path: &str, v: &Value) -> Result<Mode, ApiError> {
    match v {
        Value::String(s) => Mode::parse(s).ok_or_else(|| {
            ApiError::from(InputError::Unknown {
                path: path.into(),
                what: "mode",
                value: s.clone(),
            })
        }),
        _ => Err(InputError::Type {
            path: path.into(),
            expected: "a mode (auto, edit, manual or plan)",
        }
        .into()),
    }
}

fn int_arg(path: &str, v: &Value) -> Result<i64, ApiError> {
    v.as_i64().ok_or_else(|| {
        InputError::Type {
            path: path.into(),
            expected: "an integer (Unix ms)",
        }
        .into()
    })
}

fn str_arg<'a>(path: &str, v: &'a Value) -> Result<&'a str, ApiError> {
    v.as_str().ok_or_else(|| {
        InputError::Type {
            path: path.into(),
            expected: "a string",
        }
        .into()
    })
}

// ── progress ─────────────────────────────────────────────────────────────────

/// `progressText(progress, now)`: the phase's text (progress.md §3).
pub fn progress_text(p: &Value, now: &Value) -> ApiResult {
    let p = Progress::from_json("progress", p)?;
    out(&progress::text(&p, int_arg("now", now)?))
}

/// `progressLine(progress, now)`: the one line a client shows (progress.md §4).
pub fn progress_line(p: &Value, now: &Value) -> ApiResult {
    let p = Progress::from_json("progress", p)?;
    out(&progress::line(&p, int_arg("now", now)?))
}

/// `samePhase(a, b)`: whether two progress objects are the same phase for the same thing.
pub fn same_phase(a: &Value, b: &Value) -> ApiResult {
    let a = Progress::from_json("a", a)?;
    let b = Progress::from_json("b", b)?;
    out(&progress::same_phase(&a.phase, &b.phase))
}

/// `shortWhat(text)`: a few words of a command or path for `what`, or null.
pub fn short_what(text: &Value) -> ApiResult {
    out(&progress::short_what(str_arg("text", text)?))
}

fn optional_progress(v: &Value) -> Result<Option<Progress>, ApiError> {
    match v {
        Value::Null => Ok(None),
        v => Ok(Some(Progress::from_json("progress", v)?)),
    }
}

/// The pacer (progress.md §5), for JavaScript.
#[derive(Debug, Default)]
pub struct ApiPacer(Pacer);

impl ApiPacer {
    /// A pacer that has sent nothing yet.
    pub fn new() -> ApiPacer {
        ApiPacer(Pacer::new())
    }

    /// `push(progress, now)`: what to do with a new state.
    pub fn push(&mut self, p: &Value, now: &Value) -> ApiResult {
        let p = optional_progress(p)?;
        let now = int_arg("now", now)?;
        out(&self.0.push(p, now))
    }

    /// `poll(now)`: what was held back, once its time has come.
    pub fn poll(&mut self, now: &Value) -> ApiResult {
        out(&self.0.poll(int_arg("now", now)?))
    }

    /// `flush(now)`: what was held back, now (the end of a turn).
    pub fn flush(&mut self, now: &Value) -> ApiResult {
        out(&self.0.flush(int_arg("now", now)?))
    }

    /// `due()`: when what is held back goes out, or null.
    pub fn due(&self) -> ApiResult {
        out(&self.0.due())
    }
}

// ── permissions and delegation ───────────────────────────────────────────────

/// `evaluate(request, context)`: the permission decision `{ action, reason, decidedBy }`.
pub fn evaluate(request: &Value, context: &Value) -> ApiResult {
    let req = Request::from_json("request", request)?;
    let ctx = Context::from_json("context", context)?;
    out(&permission::evaluate(&req, &ctx))
}

/// `approve(request, context)`: the rules "always allow" adds (`{ rules }`), or `{ refused }`.
pub fn approve(request: &Value, context: &Value) -> ApiResult {
    let req = Request::from_json("request", request)?;
    let ctx = Context::from_json("context", context)?;
    match approval::approve(&req, &ctx) {
        Ok(rules) => one("rules", &rules),
        Err(e) => one("refused", e.to_string()),
    }
}

fn kinds(path: &str, v: Option<&Value>) -> Result<Vec<RiskClass>, ApiError> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let Value::Array(items) = v else {
        return Err(InputError::Type {
            path: path.into(),
            expected: "an array of risk classes",
        }
        .into());
    };
    items
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let path = input::index(path, i);
            let Some(word) = k.as_str() else {
                return Err(ApiError::from(InputError::Type {
                    path,
                    expected: "a risk class (read, write, execute or interact)",
                }));
            };
            RiskClass::parse(word).ok_or_else(|| {
                ApiError::from(InputError::Unknown {
                    path,
                    what: "risk class",
                    value: word.to_string(),
                })
            })
        })
        .collect()
}

/// `whoDecides(request, { mainMode, mode, request?, grants?, unattended?, rules?, root? })`.
pub fn who_decides(request: &Value, options: &Value) -> ApiResult {
    let req = Request::from_json("request", request)?;
    let o = Obj::new("options", options)?;
    o.only(&[
        "mainMode",
        "mode",
        "request",
        "grants",
        "unattended",
        "rules",
        "approvals",
        "root",
    ])?;
    let main = o.word("mainMode", "mode", Mode::parse)?;
    let mode = o.word("mode", "mode", Mode::parse)?;
    let request_kinds = kinds("options.request", o.get("request"))?;
    let grants = Grant::list_from_json("options.grants", o.opt_array("grants")?)?;
    let session = Context::with_fields(main, &o)?;
    let v = delegation::who_decides(
        &req,
        &session,
        &Subagent {
            mode,
            request: &request_kinds,
            grants: &grants,
        },
        main,
    );
    out(&v)
}

/// `checkMode(parentMode, mode?, request?)` → `{ refused }` or `{ mode, request }`.
pub fn check_mode(parent: &Value, mode: &Value, request: &Value) -> ApiResult {
    let parent = mode_arg("parentMode", parent)?;
    let mode = match mode {
        Value::Null => None,
        v => Some(mode_arg("mode", v)?),
    };
    let list: Vec<&str> = match request {
        Value::Null => Vec::new(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| str_arg(&input::index("request", i), v))
            .collect::<Result<_, _>>()?,
        _ => {
            return Err(InputError::Type {
                path: "request".into(),
                expected: "an array of strings",
            }
            .into())
        }
    };
    match delegation::check_mode(parent, mode, &list) {
        Ok(p) => out(&p),
        Err(refusal) => one("refused", refusal.text()),
    }
}

/// `requestRefusal(tool, request)` → the refusal's text, or null when it may ask.
pub fn request_refusal(tool: &Value, request: &Value) -> ApiResult {
    let tool = str_arg("tool", tool)?;
    let kinds = kinds("request", Some(request))?;
    let class = crate::spec::spec().tool(tool).map(|t| t.risk);
    out(&delegation::request_refusal(tool, class, &kinds))
}

/// `tighten(mainMode, [{ name, parent, mode }])` → `{ name: mode }`.
pub fn tighten(main: &Value, agents: &Value) -> ApiResult {
    let main = mode_arg("mainMode", main)?;
    let Value::Array(items) = agents else {
        return Err(InputError::Type {
            path: "agents".into(),
            expected: "an array of { name, parent, mode }",
        }
        .into());
    };
    let mut list = Vec::new();
    for (i, a) in items.iter().enumerate() {
        let p = input::index("agents", i);
        let o = Obj::new(&p, a)?;
        o.only(&["name", "parent", "mode"])?;
        list.push(TreeMember {
            name: o.str("name")?.to_string(),
            parent: o.str("parent")?.to_string(),
            mode: o.word("mode", "mode", Mode::parse)?,
        });
    }
    let after = delegation::tighten(main, &list).map_err(|e| ApiError {
        code: "invalid_value",
        message: e.to_string(),
    })?;
    // Keyed by the agents' own names, which are not respelled.
    value_out(crate::json::object_of(
        after.into_iter().map(|(n, m)| (n, Value::from(m.as_str()))),
    ))
}

// ── subagents ────────────────────────────────────────────────────────────────

fn models_and_session(o: &Obj<'_>) -> Result<(Models, subagents::Model), ApiError> {
    let models = Models::from_json(
        "models",
        o.get("models")
            .ok_or_else(|| InputError::missing("models"))?,
    )?;
    let name = o.str("session")?;
    let session = models
        .get(name)
        .cloned()
        .ok_or_else(|| InputError::Unknown {
            path: "session".into(),
            what: "model (not in models)",
            value: name.to_string(),
        })?;
    Ok((models, session))
}

/// `subagentModel({ session, models, said?, model? })` → `{ model }` or `{ refused }`.
pub fn subagent_model(options: &Value) -> ApiResult {
    let o = Obj::new("options", options)?;
    o.only(&["session", "models", "said", "other", "model"])?;
    let (models, session) = models_and_session(&o)?;
    let said = o.opt_strings("said")?.unwrap_or_default();
    match subagents::subagent_model(&session, &models, &said, o.opt_str("model")?) {
        Ok(m) => one("model", m),
        Err(refusal) => one("refused", refusal.text()),
    }
}

/// `offer({ session, models, subagents? })` → `{ offered, own, note }`.
pub fn offer(options: &Value) -> ApiResult {
    let o = Obj::new("options", options)?;
    o.only(&["session", "models", "subagents"])?;
    let (models, session) = models_and_session(&o)?;
    out(&subagents::offer(
        &session,
        &models,
        o.bool_or("subagents", true)?,
    ))
}

// ── conformance ──────────────────────────────────────────────────────────────

/// `areas()`: the conformance areas' names.
pub fn areas() -> Value {
    Value::Array(
        conformance::Area::ALL
            .iter()
            .map(|a| Value::from(a.as_str()))
            .collect(),
    )
}

/// `runCase(area, case)` → `{ pass, expected, actual, message? }`, as the native runner gives it.
pub fn run_case(area: &Value, case: &Value) -> ApiResult {
    let result = conformance::run_case(str_arg("area", area)?, case);
    let mut text = Text::default();
    result.written(Keys::Snake, &mut text);
    Answer::written(text)
}

/// `runFile(file, name?)` → `{ area, passed, failed, results }`, as the native runner gives it.
pub fn run_file(file: &Value, name: &Value) -> ApiResult {
    let name = match name {
        Value::Null => None,
        v => Some(str_arg("name", v)?),
    };
    let result = conformance::run_file(file, name).map_err(|e| ApiError {
        code: "bad_case_file",
        message: e.to_string(),
    })?;
    let mut text = Text::default();
    result.written(Keys::Snake, &mut text);
    Answer::written(text)
}

// ── one entry point for the bindings ─────────────────────────────────────────

fn arg(args: &Value, i: usize) -> &Value {
    args.get(i).unwrap_or(&Value::Null)
}

fn unknown_function(name: &str) -> ApiError {
    ApiError {
        code: "unknown_function",
        message: format!("no function \"{name}\""),
    }
}

/// One of the package's functions: its arguments (a JSON array) to its answer.
pub type EntryPoint = fn(&Value) -> ApiResult;

/// The package's functions, by the names JavaScript calls them: the one list of them. `index.js`
/// exports each and `index.d.ts` types each; the package's tests check both against this list
/// (which the package gives as `functions`).
pub const FUNCTIONS: [(&str, EntryPoint); 17] = [
    ("progressText", |a| progress_text(arg(a, 0), arg(a, 1))),
    ("progressLine", |a| progress_line(arg(a, 0), arg(a, 1))),
    ("samePhase", |a| same_phase(arg(a, 0), arg(a, 1))),
    ("shortWhat", |a| short_what(arg(a, 0))),
    ("evaluate", |a| evaluate(arg(a, 0), arg(a, 1))),
    ("approve", |a| approve(arg(a, 0), arg(a, 1))),
    ("whoDecides", |a| who_decides(arg(a, 0), arg(a, 1))),
    ("checkMode", |a| check_mode(arg(a, 0), arg(a, 1), arg(a, 2))),
    ("requestRefusal", |a| request_refusal(arg(a, 0), arg(a, 1))),
    ("tighten", |a| tighten(arg(a, 0), arg(a, 1))),
    ("subagentModel", |a| subagent_model(arg(a, 0))),
    ("offer", |a| offer(arg(a, 0))),
    ("areas", |_| value_out(areas())),
    ("runCase", |a| run_case(arg(a, 0), arg(a, 1))),
    ("runFile", |a| run_file(arg(a, 0), arg(a, 1))),
    ("version", |_| out(crate::version())),
    ("specVersion", |_| out(crate::spec_version())),
];

/// The names of [`FUNCTIONS`], in their order.
pub fn function_names() -> Value {
    Value::from(FUNCTIONS.iter().map(|(name, _)| *name).collect::<Vec<_>>())
}

/// Calls the function `name` with `args` (a JSON array): the bindings' one way in. Besides
/// [`FUNCTIONS`], two names the package's own JavaScript asks: `functions` (their names) and
/// `teamMethods` (the methods it makes on `Team`).
pub fn dispatch(name: &str, args: &Value) -> ApiResult {
    match name {
        "functions" => value_out(function_names()),
        "teamMethods" => value_out(team_methods()),
        _ => match FUNCTIONS.iter().find(|(known, _)| *known == name) {
            Some((_, function)) => function(args),
            None => Err(unknown_function(name)),
        },
    }
}

impl ApiPacer {
    /// The pacer's methods by name.
    pub fn dispatch(&mut self, name: &str, args: &Value) -> ApiResult {
        match name {
            "push" => self.push(arg(args, 0), arg(args, 1)),
            "poll" => self.poll(arg(args, 0)),
            "flush" => self.flush(arg(args, 0)),
            "due" => self.due(),
            other => Err(unknown_function(other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// An answer read back as a value.
    fn read(answer: ApiResult) -> Result<Value, ApiError> {
        answer.map(|a| a.value().expect("an answer is JSON"))
    }

    #[test]
    fn every_function_is_called_by_its_name_and_no_other_name_is() {
        let names = function_names();
        let names: Vec<&str> = names
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(names.len(), FUNCTIONS.len());
        for (at, name) in names.iter().enumerate() {
            assert!(!names[..at].contains(name), "{name} twice");
            // Called with no arguments it may refuse them, but it is found.
            if let Err(e) = dispatch(name, &json!([])) {
                assert_ne!(e.code, "unknown_function", "{name}");
            }
        }
        assert_eq!(
            read(dispatch("version", &json!([]))).unwrap(),
            crate::version()
        );
        assert_eq!(
            read(dispatch("functions", &json!([]))).unwrap(),
            function_names()
        );
        assert_eq!(
            dispatch("fly", &json!([])).unwrap_err().code,
            "unknown_function"
        );
    }

    #[test]
    fn keys_are_camel_case_on_the_wire() {
        let d = read(evaluate(
            &json!({"tool": "bash", "line": "rm -rf /"}),
            &json!({"mode": "auto"}),
        ))
        .unwrap();
        assert_eq!(d["decidedBy"]["by"], "hardline");
        let t = ApiTeam::new(&json!({"min": 3, "max": 4})).unwrap();
        assert_eq!(t.tree()["openSlots"], 2);
    }

    #[test]
    fn errors_have_a_code_and_name_the_field() {
        let e = progress_line(&json!({"phase": "sleeping", "since": 0}), &json!(0)).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                "unknown_value",
                "progress.phase: unknown phase \"sleeping\""
            )
        );
        let e = parse("case", &"[".repeat(10_000)).unwrap_err();
        assert_eq!(e.code, "not_json");
        let e = who_decides(
            &json!({"tool": "bash", "line": "x"}),
            &json!({"mode": "edit"}),
        )
        .unwrap_err();
        assert_eq!(e.message, "options.mainMode: missing");
    }

    #[test]
    fn a_team_round_trips_through_json() {
        let mut t = ApiTeam::new(&json!({"max": 4, "now": 5})).unwrap();
        let add = json!({"name": "a", "role": "r", "task": "t", "goal": "g"});
        // A team tool's method is a call of it.
        t.dispatch("teamAdd", &json!(["lead", add, 10])).unwrap();
        // A call that fails is kept too: it moved the clock before it failed.
        t.dispatch("call", &json!(["nobody", "team_read", {}, 99]))
            .unwrap_err();
        assert_eq!(
            read(t.dispatch("setContext", &json!(["a", 900, 1000]))),
            Ok(json!(true))
        );
        t.dispatch("contextFull", &json!(["a"])).unwrap();
        t.dispatch("tree", &json!([])).unwrap();
        let saved = t.to_json();
        assert_eq!(saved["steps"].as_array().unwrap().len(), 4, "{saved}");
        assert_eq!(
            saved["steps"][1],
            json!({"op": "call", "by": "nobody", "tool": "team_read", "args": {}, "now": 99})
        );
        let mut back = ApiTeam::from_json(&saved).unwrap();
        assert_eq!(back.tree(), t.tree());
        assert_eq!(back.to_json(), saved);
        // And it goes on as the first would.
        for team in [&mut t, &mut back] {
            team.dispatch("endTurn", &json!(["a", "Left: tests."]))
                .unwrap();
        }
        assert_eq!(
            back.dispatch("read", &json!(["lead"])),
            t.dispatch("read", &json!(["lead"]))
        );
        // A team case loads as a saved team: its expects are not read.
        let case = json!({"about": "x", "start": {"min": 1, "max": 3},
            "steps": [{"op": "tree", "expect": {"size": 1}}]});
        assert!(ApiTeam::from_json(&case).is_ok());
    }

    #[test]
    fn a_saved_team_that_is_not_one_is_refused_naming_what_is_wrong() {
        let cases = [
            (json!({"agents": 3}), "team.agents: not a field here"),
            (json!({"start": {}}), "team.steps: missing"),
            (
                json!({"start": {"max": "x"}, "steps": []}),
                "options.max: expected",
            ),
            (
                json!({"start": {}, "steps": [["call", []]]}),
                "team.steps[0]: expected an object",
            ),
            (
                json!({"start": {}, "steps": [{"op": "fly"}]}),
                "team.steps[0].op: unknown op \"fly\"",
            ),
        ];
        for (saved, message) in cases {
            let e = ApiTeam::from_json(&saved).unwrap_err();
            assert_eq!(e.code, "bad_team_state");
            assert!(
                e.message.starts_with("team: not a saved team (") && e.message.contains(message),
                "{saved}: {}",
                e.message
            );
        }
    }
}
