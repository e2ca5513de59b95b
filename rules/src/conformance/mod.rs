//! The conformance runner: the one implementation every shell calls — the native tests, `lembas
//! conformance`, the npm package and the playground.
//!
//! A case file is `{ area?, about, cases: [...] }`; its area is its `area` field, else the name
//! the caller gives (the file's name: `progress.json` → progress). Each case is run by its area
//! and its result compared with its `expect`: the whole of it, except where the area says
//! otherwise (a delegation case with `own_reason` compares the answer only; a permission case
//! compares the keys its expect names). A case with a missing or mistyped field is that case's
//! failure, its message naming the field; the run goes on.
//!
//! Every output is a `serde_json::Value`, whose objects keep their keys sorted: the same bytes in
//! every shell.

mod delegation;
mod permission;
mod progress;
mod subagents;
mod team;

use crate::input::{InputError, Obj};
use crate::json::{Fields, Json, Keys, ToJson};
use serde_json::Value;
use thiserror::Error;

/// An area of cases: what a case file tests, and how its cases are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Area {
    /// progress.md.
    Progress,
    /// subagents.md §7: who decides a subagent's call.
    Delegation,
    /// subagents.md §2–§4: which model a subagent runs on.
    Subagents,
    /// This project's permission files.
    Permission,
    /// subagents.md §5–§13: the main agent's tree.
    Team,
}

words!(Area {
    Progress => "progress",
    Delegation => "delegation",
    Subagents => "subagents",
    Permission => "permission",
    Team => "team",
});

impl Area {
    /// The area a case's own fields say, where they say one without doubt (each area's case
    /// format, `conformance/README.md`): a team case has `steps` or `start`, a progress case
    /// `progress`, a subagents case `models`, a delegation case `parent_mode`, `main_mode` or
    /// `agents`. A permission case says none that another area lacks.
    pub fn of_case(case: &Value) -> Option<Area> {
        let has = |k: &str| case.get(k).is_some();
        if has("steps") || has("start") {
            Some(Area::Team)
        } else if has("progress") {
            Some(Area::Progress)
        } else if has("models") {
            Some(Area::Subagents)
        } else if has("parent_mode") || has("main_mode") || has("agents") {
            Some(Area::Delegation)
        } else {
            None
        }
    }

    /// Every area, in the order they are listed.
    pub const ALL: [Area; 5] = [
        Area::Progress,
        Area::Delegation,
        Area::Subagents,
        Area::Permission,
        Area::Team,
    ];

    /// The areas' names, joined by `", "` (for messages).
    pub fn names() -> String {
        Area::ALL.map(Area::as_str).join(", ")
    }
}

/// How a case's result is compared with its `expect`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Compare {
    /// The whole expect.
    Whole,
    /// Only these keys of it, each compared whole.
    Keys(Vec<String>),
}

/// What an area made of a case.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseOutcome {
    /// What the rules answered, as the case format writes it.
    pub actual: Value,
    /// How it is compared with the case's expect.
    pub compare: Compare,
    /// What the case expects, when it is not its `expect` (a team case: its steps' expects).
    pub expected: Option<Value>,
    /// Why the rules answered so, for people (not compared).
    pub why: Why,
}

/// Why the rules answered a case so, for people (not compared): see [`why`].
#[derive(Debug, Clone, PartialEq)]
pub enum Why {
    /// The area says no more than its answer.
    Nothing,
    /// The answer says it all: a permission case's decision (its action, reason and what decided
    /// it). Kept as this word, not as a second copy of the answer, since a run never reads it.
    TheAnswer,
    /// More than the answer: a delegation call's decisions in both modes with what decided each
    /// (`decided_by`).
    Said(Value),
}

impl CaseOutcome {
    /// An answer compared whole with the case's expect.
    pub fn whole(actual: Value) -> CaseOutcome {
        CaseOutcome {
            actual,
            compare: Compare::Whole,
            expected: None,
            why: Why::Nothing,
        }
    }
}

/// One case's result.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseResult {
    /// Whether the answer is the expected one.
    pub pass: bool,
    /// The case's `about`.
    pub about: Option<String>,
    /// What the case expects.
    pub expected: Value,
    /// What the rules answered.
    pub actual: Value,
    /// Why the case could not run, or how it differs.
    pub message: Option<String>,
}

/// A whole file's results.
#[derive(Debug, Clone, PartialEq)]
pub struct FileResult {
    /// The file's area.
    pub area: String,
    /// Cases that passed.
    pub passed: usize,
    /// Cases that failed.
    pub failed: usize,
    /// Each case's result, in the file's order.
    pub results: Vec<CaseResult>,
}

impl CaseResult {
    /// `{ about?, actual, expected, message?, pass }`, the case's values moved, not copied.
    pub fn written<J: Json>(self, keys: Keys, out: &mut J) {
        Fields::of(out, keys)
            .with_some("about", &self.about)
            .with_value("actual", self.actual)
            .with_value("expected", self.expected)
            .with_some("message", &self.message)
            .with("pass", self.pass)
            .done();
    }
}

impl ToJson for CaseResult {
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        self.clone().written(keys, out);
    }
}

impl From<CaseResult> for Value {
    fn from(r: CaseResult) -> Value {
        crate::json::value_of(|out| r.written(Keys::Snake, out))
    }
}

impl FileResult {
    /// `{ area, passed, failed, results }`, the cases' values moved, not copied.
    pub fn written<J: Json>(self, keys: Keys, out: &mut J) {
        Fields::of(out, keys)
            .with("area", &self.area)
            .with("failed", self.failed)
            .with("passed", self.passed)
            .with_each("results", self.results, CaseResult::written)
            .done();
    }
}

impl ToJson for FileResult {
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        self.clone().written(keys, out);
    }
}

impl From<FileResult> for Value {
    fn from(r: FileResult) -> Value {
        crate::json::value_of(|out| r.written(Keys::Snake, out))
    }
}

serialize_as_json!(CaseResult, FileResult);

/// A case file that cannot be run at all.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConformanceError {
    /// The file is not a case file (`cases` missing, `area` not a string).
    #[error("{0}")]
    Input(#[from] InputError),
    /// Its area is none of the areas.
    #[error("area: unknown area \"{0}\" (the areas are {areas})", areas = Area::names())]
    UnknownArea(String),
    /// It names no area and the caller gave no file name.
    #[error("area: missing, and no file name to take it from")]
    NoArea,
}

/// The shape of one case of `area`, as its area's reader reads it (see [`crate::schema`]).
pub(crate) fn case_shape(area: Area) -> crate::schema::Shape {
    match area {
        Area::Progress => progress::shape(),
        Area::Delegation => delegation::shape(),
        Area::Subagents => subagents::shape(),
        Area::Permission => permission::shape(),
        Area::Team => team::shape(),
    }
}

/// The fields every case has: its `about`.
fn about_field() -> crate::schema::Field {
    crate::schema::Field::optional(
        "about",
        crate::schema::Shape::Text,
        "What the case shows, in a sentence.",
    )
}

/// A case's `expect`, which must be there: an object of some of these keys, at least one.
fn expect_field(keys: Vec<crate::schema::Field>, doc: &str) -> crate::schema::Field {
    crate::schema::Field::required("expect", crate::schema::Shape::Named(keys), doc)
}

/// What an area makes of a case.
fn outcome_of(area: Area, case: &Value) -> Result<CaseOutcome, InputError> {
    let o = Obj::new("case", case)?;
    o.opt_str("about")?;
    if area != Area::Team && !o.has("expect") {
        return Err(InputError::missing("expect"));
    }
    match area {
        Area::Progress => progress::run(&o),
        Area::Delegation => delegation::run(&o),
        Area::Subagents => subagents::run(&o),
        Area::Permission => permission::run(&o),
        Area::Team => team::run(&o),
    }
}

/// Why a case cannot be read, if it cannot: the field it names and what is wrong with it (an
/// editor marks it there; the schemas' tests compare it with the schema's).
pub fn read_error(area: Area, case: &Value) -> Option<InputError> {
    outcome_of(area, case).err()
}

/// Why the rules answered a case so (see [`CaseOutcome::why`]): none for a case that cannot run or
/// an area that says no more than its answer.
pub fn why(area: &str, case: &Value) -> Option<Value> {
    let outcome = outcome_of(Area::parse(area)?, case).ok()?;
    match outcome.why {
        Why::Nothing => None,
        Why::TheAnswer => Some(outcome.actual),
        Why::Said(why) => Some(why),
    }
}

#[cfg(feature = "trace")]
/// How the rules judged a case's call, step by step: a permission case's evaluation, or a
/// delegation `call` case's steps of §7.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaseTrace {
    /// A permission case (op `evaluate`): the call judged in the context's mode.
    Permission(crate::permission::Trace),
    /// A delegation `call` case.
    Delegation(Box<crate::delegation::DelegationTrace>),
}

#[cfg(feature = "trace")]
/// The trace of a case whose answer is a judged call (see [`CaseTrace`]); none for another case,
/// or one that cannot be read.
pub fn trace(area: &str, case: &Value) -> Option<CaseTrace> {
    let o = Obj::new("case", case).ok()?;
    match Area::parse(area)? {
        Area::Permission if o.opt_str("op").ok()?.unwrap_or("evaluate") == "evaluate" => {
            let (req, ctx) = permission::read(&o).ok()?;
            Some(CaseTrace::Permission(crate::permission::explain(
                &req, &ctx,
            )))
        }
        Area::Delegation if o.opt_str("op").ok()? == Some("call") => {
            let call = delegation::Call::read(&o).ok()?;
            let explained =
                crate::delegation::explain(&call.req, &call.session, &call.subagent(), call.main);
            Some(CaseTrace::Delegation(Box::new(explained)))
        }
        _ => None,
    }
}

/// How a case's answer is compared with its expect (see [`Compare`]); none for a case that
/// cannot run. Tools that show the differences compare as the runner does.
pub fn comparison(area: &str, case: &Value) -> Option<Compare> {
    outcome_of(Area::parse(area)?, case).ok().map(|o| o.compare)
}

/// Runs one case of an area named by its word (an unknown area is the case's failure).
pub fn run_case(area: &str, case: &Value) -> CaseResult {
    match Area::parse(area) {
        Some(area) => run_area_case(area, case),
        None => CaseResult {
            pass: false,
            about: case
                .get("about")
                .and_then(Value::as_str)
                .map(str::to_string),
            expected: case.get("expect").cloned().unwrap_or(Value::Null),
            actual: Value::Null,
            message: Some(ConformanceError::UnknownArea(area.to_string()).to_string()),
        },
    }
}

/// Runs one case of an area.
pub fn run_area_case(area: Area, case: &Value) -> CaseResult {
    let about = case
        .get("about")
        .and_then(Value::as_str)
        .map(str::to_string);
    let expect = case.get("expect");
    let fail = |message: String| CaseResult {
        pass: false,
        about: about.clone(),
        expected: expect.cloned().unwrap_or(Value::Null),
        actual: Value::Null,
        message: Some(message),
    };
    let outcome = outcome_of(area, case);
    let empty = expect.is_some_and(|e| e.as_object().is_some_and(|o| o.is_empty()));
    match outcome {
        Err(e) => fail(e.to_string()),
        Ok(_) if empty => fail("expect: nothing to compare".into()),
        Ok(CaseOutcome {
            actual,
            compare,
            expected: steps,
            why: _,
        }) => {
            let expected = steps.unwrap_or_else(|| expect.cloned().unwrap_or(Value::Null));
            let (pass, message) = compare_with(&expected, &actual, &compare);
            CaseResult {
                pass,
                about,
                expected,
                actual,
                message,
            }
        }
    }
}

fn compare_with(expected: &Value, actual: &Value, compare: &Compare) -> (bool, Option<String>) {
    match compare {
        Compare::Whole => (expected == actual, None),
        Compare::Keys(keys) => {
            let (Value::Object(e), Value::Object(a)) = (expected, actual) else {
                return (false, Some("expect: expected an object".into()));
            };
            let mut missing = Vec::new();
            let pass = keys.iter().all(|k| {
                let same = e.get(k) == a.get(k);
                if !a.contains_key(k) {
                    missing.push(k.clone());
                }
                same
            });
            let unknown: Vec<&String> = e.keys().filter(|k| !keys.contains(k)).collect();
            if let Some(k) = unknown.first() {
                return (
                    false,
                    Some(format!("expect.{k}: not a result of this case")),
                );
            }
            (pass && missing.is_empty(), None)
        }
    }
}

/// The keys an expect names, for areas that compare only those.
pub fn named_keys(expect: &Value) -> Vec<String> {
    match expect {
        Value::Object(m) => m.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// Runs every case of a file. `name` is the file's name without `.json`, used when the file has
/// no `area`.
pub fn run_file(file: &Value, name: Option<&str>) -> Result<FileResult, ConformanceError> {
    let o = Obj::new("file", file)?;
    o.opt_str("about")?;
    let area = match o.opt_str("area")? {
        Some(a) => a,
        None => name.ok_or(ConformanceError::NoArea)?,
    };
    let area = Area::parse(area).ok_or_else(|| ConformanceError::UnknownArea(area.to_string()))?;
    let cases = o.array("cases").map_err(|_| InputError::missing("cases"))?;
    let results: Vec<CaseResult> = cases.iter().map(|c| run_area_case(area, c)).collect();
    let passed = results.iter().filter(|r| r.pass).count();
    Ok(FileResult {
        area: area.as_str().to_string(),
        passed,
        failed: results.len() - passed,
        results,
    })
}

/// The summary line every runner ends with: `N passed, N failed`.
pub fn summary(passed: usize, failed: usize) -> String {
    format!("{passed} passed, {failed} failed")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every case of `conformance/` with its file's area (its `area`, else its file name's).
    fn every_case() -> Vec<(Area, Value)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance");
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|x| x != "json") {
                continue;
            }
            let file: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let stem = path.file_stem().unwrap().to_str().unwrap();
            let area = Area::parse(file["area"].as_str().unwrap_or(stem)).unwrap();
            for case in file["cases"].as_array().unwrap() {
                out.push((area, case.clone()));
            }
        }
        out
    }

    /// An answer written with camelCase keys is the snake_case answer with its keys respelled
    /// (what a second pass over it made before), and written as text it is serde_json's text of
    /// it as a value, byte for byte, in either spelling: for the decision of every permission
    /// case, the progress of every progress case (and its pacing), and the tree after every step
    /// of every team case, with the team's answer to each step.
    #[test]
    fn answers_written_camel_case_are_the_snake_case_ones_respelled() {
        use crate::json::{camel_keys, Keys};
        use crate::progress::{Pacer, Progress};
        use crate::team::operation::{Audience, TeamStep};
        use crate::team::{Team, TeamOptions};
        fn same<T: ToJson>(value: &T, case: &Value) {
            assert_eq!(
                value.write_json(Keys::Camel),
                camel_keys(value.to_json()),
                "{case}"
            );
            for keys in [Keys::Camel, Keys::Snake] {
                assert_eq!(
                    value.write_text(keys).into_string().unwrap(),
                    value.write_json(keys).to_string(),
                    "{case}"
                );
            }
        }
        let (mut decisions, mut progresses, mut trees) = (0, 0, 0);
        for (area, case) in &every_case() {
            let o = Obj::new("case", case).unwrap();
            match area {
                Area::Permission => {
                    let (req, ctx) = permission::read(&o).unwrap();
                    same(&crate::permission::evaluate(&req, &ctx), case);
                    decisions += 1;
                }
                Area::Progress => {
                    let p = Progress::from_json("progress", &case["progress"]).unwrap();
                    same(&p, case);
                    let mut pacer = Pacer::new();
                    same(&pacer.push(Some(p.clone()), p.since), case);
                    same(&pacer.push(Some(p.clone()), p.since + 10), case);
                    progresses += 1;
                }
                Area::Team => {
                    let start = o.opt_obj("start", "start").unwrap().unwrap();
                    let mut team =
                        Team::new(&TeamOptions::read(&start, TeamOptions::default()).unwrap());
                    for s in case["steps"].as_array().unwrap() {
                        let step = Obj::new("step", s).unwrap();
                        let step = TeamStep::read(&step, &["expect", "about"]).unwrap();
                        let Ok(answer) = team.apply(&step) else {
                            break;
                        };
                        if let crate::team::operation::TeamAnswer::Tree(info) = &answer {
                            assert_eq!(
                                answer.to_json(Audience::Package),
                                camel_keys(info.to_json())
                            );
                        }
                        same(&team.info(), case);
                        trees += 1;
                    }
                }
                _ => {}
            }
        }
        assert!(decisions > 1000 && progresses > 10 && trees > 100);
    }

    /// A whole file's results written as text are serde_json's text of them as a value, byte
    /// for byte, for every case file of `conformance/` (the npm package's `runFile` answers so).
    #[test]
    fn a_file_s_results_as_text_are_the_value_s_text() {
        use crate::json::{Keys, Text};
        let mut files = 0;
        for entry in
            std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../conformance")).unwrap()
        {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|x| x != "json") {
                continue;
            }
            let file: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let name = path.file_stem().unwrap().to_str().unwrap();
            let result = run_file(&file, Some(name)).unwrap();
            let mut text = Text::default();
            result.clone().written(Keys::Snake, &mut text);
            assert_eq!(
                text.into_string().unwrap(),
                Value::from(result).to_string(),
                "{name}"
            );
            files += 1;
        }
        assert!(files >= 7, "{files} case files");
    }

    #[cfg(feature = "trace")]
    /// The trace gives the answer the run gives, for every permission and delegation `call`
    /// case of `conformance/` (the sample and the hostile corpus), and its strictest part is
    /// the part whose decision the call got unless the mode or nobody to ask changed it.
    #[test]
    fn a_trace_agrees_with_the_answer_for_every_case() {
        use crate::delegation::Combined;
        use crate::permission::{evaluate, Action};
        let mut traced = 0;
        for (area, case) in &every_case() {
            let Some(t) = trace(area.as_str(), case) else {
                continue;
            };
            traced += 1;
            match t {
                CaseTrace::Permission(t) => {
                    let o = Obj::new("case", case).unwrap();
                    let (req, ctx) = permission::read(&o).unwrap();
                    assert_eq!(t.decision, evaluate(&req, &ctx), "{case}");
                    let strictest = &t.parts[t.strictest].decision;
                    assert!(t
                        .parts
                        .iter()
                        .all(|p| p.decision.action <= strictest.action));
                    if t.decision.action != Action::Ask && strictest.action != Action::Ask {
                        assert_eq!(&t.decision, strictest, "{case}");
                    }
                }
                CaseTrace::Delegation(d) => {
                    assert_eq!(d.own.decision, d.verdict.own, "{case}");
                    if let Some(main) = &d.verdict.main {
                        assert_eq!(&d.main.decision, main, "{case}");
                    }
                    let expected = match d.combined {
                        Combined::OwnAllows => "run",
                        Combined::PersonDecides => "person",
                        _ => "refused",
                    };
                    assert_eq!(d.verdict.answer.as_str(), expected, "{case}");
                }
            }
        }
        assert!(traced > 100, "only {traced} cases traced");
    }

    #[cfg(feature = "trace")]
    #[test]
    fn a_trace_names_the_opaque_construct_the_unused_grants_and_an_impossible_setup() {
        use crate::permission::TracedPart;
        let case = json!({"request": {"tool": "bash", "line": "eval \"$CMD\""},
            "context": {"mode": "edit"}, "expect": {"action": "ask"}});
        let Some(CaseTrace::Permission(t)) = trace("permission", &case) else {
            panic!("no trace")
        };
        assert!(
            t.parts
                .iter()
                .any(|p| matches!(p.part, TracedPart::Opaque(_))),
            "{t:?}"
        );
        // A grant where the main agent's mode does not allow the call is not used; a subagent
        // looser than the main agent is a setup team_add refuses.
        let case = json!({"op": "call", "main_mode": "manual", "mode": "auto",
            "grants": [{"tool": "bash", "pattern": "git push*"}],
            "call": {"tool": "bash", "line": "git push"}, "expect": {"answer": "person"}});
        let Some(CaseTrace::Delegation(d)) = trace("delegation", &case) else {
            panic!("no trace")
        };
        assert_eq!(d.grants, crate::delegation::GrantUse::Unused);
        assert!(d.impossible.is_some(), "{d:?}");
    }

    /// Every case of `conformance/` whose fields say an area says its file's own.
    #[test]
    fn a_case_says_its_area_by_its_fields() {
        let mut said = 0;
        for (area, case) in &every_case() {
            if let Some(a) = Area::of_case(case) {
                assert_eq!(a, *area, "{case}");
                said += 1;
            }
        }
        assert!(said > 50, "{said}");
    }

    #[test]
    fn why_says_what_decided_in_both_modes() {
        let case = json!({"op": "call", "main_mode": "edit", "mode": "manual", "request": ["write"],
            "call": {"tool": "edit", "path": "src/a.ts"}, "expect": {"answer": "refused"}});
        let w = why("delegation", &case).unwrap();
        assert_eq!(w["own"]["action"], "ask", "{w}");
        assert_eq!(w["main"]["action"], "allow", "{w}");
        assert!(w["own"]["decided_by"].is_object(), "{w}");
        let case = json!({"request": {"tool": "bash", "line": "rm -rf /"}, "context": {"mode": "auto"}, "expect": {"action": "deny"}});
        let w = why("permission", &case).unwrap();
        assert_eq!(w["action"], "deny");
        assert!(w["decided_by"].is_object(), "{w}");
        assert_eq!(
            why(
                "progress",
                &json!({"progress": {"phase": "thinking", "since": 0}, "now": 0, "expect": {}})
            ),
            None
        );
        assert_eq!(why("nowhere", &case), None);
        assert_eq!(
            why("delegation", &json!(3)),
            None,
            "a case that cannot run says nothing"
        );
    }

    #[test]
    fn an_empty_expect_is_a_failure() {
        let case = json!({"request": {"tool": "bash", "line": "ls"}, "context": {"mode": "auto"}, "expect": {}});
        let r = run_case("permission", &case);
        assert!(!r.pass);
        assert_eq!(r.message.as_deref(), Some("expect: nothing to compare"));
    }

    #[test]
    fn an_impossible_team_setting_is_refused() {
        for (min, max, says) in [
            (0, 0, "min: a team has at least 1"),
            (9, 2, "min: 9 is more than max 2"),
            (1, 0, "max: a team"),
        ] {
            let case = json!({"start": {"min": min, "max": max, "capacity": {}}, "steps": [{"op": "state", "expect": {"live": 1}}]});
            let r = run_case("team", &case);
            assert!(!r.pass, "{min}/{max}");
            let m = r.message.unwrap_or_default();
            assert!(m.contains(says), "{m}");
        }
    }

    #[test]
    fn a_bad_case_is_its_own_failure_and_names_the_field() {
        let r = run_case(
            "progress",
            &json!({"progress": {"phase": "queued", "since": "x"}, "now": 0, "expect": {}}),
        );
        assert!(!r.pass);
        assert_eq!(
            r.message.as_deref(),
            Some("progress.since: expected an integer")
        );
        let r = run_case(
            "progress",
            &json!({"progress": {"phase": "queued", "since": 0}, "now": 0}),
        );
        assert_eq!(r.message.as_deref(), Some("expect: missing"));
        let r = run_case("nope", &json!({}));
        assert!(r
            .message
            .unwrap()
            .starts_with("area: unknown area \"nope\""));
    }

    #[test]
    fn a_file_takes_its_area_from_its_field_or_its_name() {
        let file = json!({"cases": [{"progress": {"phase": "thinking", "since": 0}, "now": 5000, "expect": {"text": "Thinking", "line": "Thinking · 5s"}}]});
        assert_eq!(run_file(&file, Some("progress")).unwrap().passed, 1);
        assert_eq!(run_file(&file, None), Err(ConformanceError::NoArea));
        let tagged = json!({"area": "progress", "cases": []});
        assert_eq!(
            run_file(&tagged, Some("whatever")).unwrap().area,
            "progress"
        );
        assert!(run_file(&json!({"area": "progress"}), None).is_err());
    }

    #[test]
    fn a_wrong_expect_fails() {
        let r = run_case(
            "progress",
            &json!({"progress": {"phase": "thinking", "since": 0}, "now": 5000, "expect": {"text": "Thinking", "line": "Thinking · 6s"}}),
        );
        assert!(!r.pass);
        assert_eq!(r.actual["line"], "Thinking · 5s");
    }
}
