//! The team's class for JavaScript (`new Team(options)`): every [`OperationKind`] as a method by
//! its [`OperationKind::method`] name, and the team saved as what made it.
//!
//! A saved team (`toJSON`) is a team case without its expects: `{ start, steps }`, the options it
//! was made with and every step that changed it, in order, as the case format writes them.
//! Restoring one (`Team.fromJSON`) makes the team from `start` and does the same steps again. The
//! rules are pure and time is an argument, so the restored team is the same team — by
//! construction, with no second reader of the team's state to keep in step with it.

use super::{unknown_function, value_out, ApiError, ApiResult};
use crate::input::Obj;
use crate::json::camel;
use crate::team::operation::{Audience, OperationKind, TeamStep};
use crate::team::{Team, TeamOptions};
use serde_json::Value;

/// A team for JavaScript: `new Team(options)`, its operations as methods, and what made it.
#[derive(Debug)]
pub struct ApiTeam {
    team: Team,
    /// The options it was made with, and the steps that changed it since, as the case format
    /// writes them.
    options: Value,
    steps: Vec<Value>,
}

fn not_saved(e: impl std::fmt::Display) -> ApiError {
    ApiError {
        code: "bad_team_state",
        message: format!("team: not a saved team ({e})"),
    }
}

impl ApiTeam {
    /// `{ min?, max?, subagents?, capacity?, mode?, now?, model? }` (the team area's `start`).
    pub fn new(options: &Value) -> Result<ApiTeam, ApiError> {
        let o = Obj::new("options", options)?;
        let team = Team::new(&TeamOptions::read(&o, TeamOptions::default())?);
        Ok(ApiTeam {
            team,
            options: options.clone(),
            steps: Vec::new(),
        })
    }

    /// The tree's data, as the package gives it.
    pub fn tree(&self) -> Value {
        crate::team::operation::TeamAnswer::Tree(self.team.info()).to_json(Audience::Package)
    }

    /// The saved team: `{ start, steps }`, what [`ApiTeam::from_json`] restores.
    pub fn to_json(&self) -> Value {
        crate::json::Object::new()
            .with("start", &self.options)
            .with("steps", &self.steps)
            .done()
    }

    /// The team `to_json` saved: made from its `start`, then every step done again in order.
    pub fn from_json(saved: &Value) -> Result<ApiTeam, ApiError> {
        let o = Obj::new("team", saved).map_err(not_saved)?;
        o.only(&["start", "steps", "about"]).map_err(not_saved)?;
        let options = o.get("start").unwrap_or(&Value::Null);
        let mut team = ApiTeam::new(options).map_err(|e| not_saved(e.message))?;
        for (i, step) in o.array("steps").map_err(not_saved)?.iter().enumerate() {
            let path = crate::input::index("team.steps", i);
            let o = Obj::new(&path, step).map_err(not_saved)?;
            let s = TeamStep::read(&o, &["expect", "about"]).map_err(not_saved)?;
            // Kept as the case format writes it, without a case's expect and about.
            let written = crate::json::object_of(
                o.map
                    .iter()
                    .filter(|(k, _)| *k != "expect" && *k != "about")
                    .map(|(k, v)| (k.clone(), v.clone())),
            );
            // The step answers as it answered the first time, an error too: both are past.
            let _ = team.apply(s, &written);
        }
        Ok(team)
    }

    /// Does a step; one that changes the team is kept for [`ApiTeam::to_json`] (an error too:
    /// a call that failed may still have moved the team's clock).
    fn apply(&mut self, step: TeamStep, written: &Value) -> ApiResult {
        let answer = self.team.apply(&step);
        if step.operation.kind().changes_team() {
            self.steps.push(written.clone());
        }
        value_out(answer?.to_json(Audience::Package))
    }

    /// The team's methods by name ([`OperationKind::method`], a team tool's method such as
    /// `teamAdd(by, args, now)`, and `toJSON`), their arguments a JSON array in the order of
    /// [`OperationKind::fields`].
    pub fn dispatch(&mut self, name: &str, args: &Value) -> ApiResult {
        if name == "toJSON" {
            return value_out(self.to_json());
        }
        if let Some(tool) = team_tools().into_iter().find(|t| camel(t) == name) {
            let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::Null);
            let call = Value::Array(vec![arg(0), Value::from(tool), arg(1), arg(2)]);
            return match TeamStep::from_method(OperationKind::Call.method(), &call)? {
                Some((step, written)) => self.apply(step, &written),
                None => Err(unknown_function(name)),
            };
        }
        match TeamStep::from_method(name, args)? {
            Some((step, written)) => self.apply(step, &written),
            None => Err(unknown_function(name)),
        }
    }
}

/// Every team tool, sorted.
fn team_tools() -> Vec<&'static str> {
    let mut tools = crate::team::tools::lead_tools();
    for t in crate::team::tools::member_tools(true) {
        if !tools.contains(&t) {
            tools.push(t);
        }
    }
    tools.sort_unstable();
    tools
}

/// The team's methods, for the package to make them: the operations' ([`OperationKind::method`])
/// and one per team tool (`team_add` as `teamAdd(by, args, now)`).
pub fn team_methods() -> Value {
    let mut methods: Vec<String> = OperationKind::ALL
        .iter()
        .map(|k| k.method().to_string())
        .collect();
    methods.extend(team_tools().into_iter().map(camel));
    Value::from(methods)
}
