//! The team's class for JavaScript (`new Team(options)`): the tools as `call`, and what it reads.
//!
//! A saved team (`toJSON`) is its options and every call that changed it, in order; restoring one
//! (`Team.fromJSON`) makes the team from the options and makes the same calls again. The rules are
//! pure and time is an argument, so the restored team is the same team — by construction, with no
//! second reader of the team's state to keep in step with it (nor to compile into the `.wasm`).

use super::{arg, camel_keys, int_arg, mode_arg, str_arg, unknown_function, ApiError, ApiResult};
use crate::input::{InputError, Obj};
use crate::json::{Object, ToJson};
use crate::permission::Mode;
use crate::subagents::Capacity;
use crate::team::{Team, TeamOptions};
use serde_json::{Map, Value};

/// A team for JavaScript: `new Team(options)`, the tools as `call`, and what it reads.
#[derive(Debug)]
pub struct ApiTeam {
    team: Team,
    /// The options it was made with, and the calls that changed it since (`[name, args]`).
    options: Value,
    changes: Vec<Value>,
}

/// The methods that change a team: a saved team keeps these calls (errors too — a call that
/// failed may still have moved the team's clock).
const CHANGES: &[&str] = &[
    "call",
    "setContext",
    "contextFull",
    "endTurn",
    "setMainMode",
    "personStop",
    "delivered",
];

fn not_saved(e: impl std::fmt::Display) -> ApiError {
    ApiError {
        code: "bad_team_state",
        message: format!("team: not a saved team ({e})"),
    }
}

fn delivered_value(list: Vec<(String, String)>) -> Value {
    let mut m: Map<String, Value> = Map::new();
    for (name, text) in list {
        if let Value::Array(l) = m.entry(name).or_insert_with(|| Value::Array(Vec::new())) {
            l.push(Value::String(text));
        }
    }
    Value::Object(m)
}

impl ApiTeam {
    /// `{ min, max, subagents?, capacity?, mode?, now?, model?, steps? }` (the team area's `start`).
    pub fn new(options: &Value) -> Result<ApiTeam, ApiError> {
        let o = Obj::new("options", options)?;
        o.only(&[
            "min",
            "max",
            "subagents",
            "capacity",
            "mode",
            "now",
            "model",
        ])?;
        let d = TeamOptions::default();
        let capacity = match o.get("capacity") {
            Some(c) => Capacity::from_json("options.capacity", c)?,
            None => Capacity::default(),
        };
        let count = |k: &str, dflt: u32| -> Result<u32, ApiError> {
            Ok(o.opt_count(k)?
                .map_or(dflt, |n| u32::try_from(n).unwrap_or(u32::MAX)))
        };
        let (min, max) = (count("min", d.min)?, count("max", d.max)?);
        if let Some(message) = Team::impossible_setting(min, max) {
            return Err(InputError::Invalid {
                path: "options".into(),
                message,
            }
            .into());
        }
        let team = Team::new(&TeamOptions {
            min,
            max,
            subagents: o.bool_or("subagents", true)?,
            capacity,
            model: o.opt_str("model")?.map_or(d.model.clone(), str::to_string),
            mode: o.opt_word("mode", "mode", Mode::parse)?.unwrap_or(d.mode),
            steps: d.steps,
            now: o.opt_int("now")?.unwrap_or(0),
        });
        Ok(ApiTeam {
            team,
            options: options.clone(),
            changes: Vec::new(),
        })
    }

    fn at(&mut self, now: &Value) -> Result<(), ApiError> {
        if !now.is_null() {
            self.team.set_now(int_arg("now", now)?);
        }
        Ok(())
    }

    fn agent<'a>(&self, by: &'a Value) -> Result<&'a str, ApiError> {
        let by = str_arg("by", by)?;
        if self.team.find(by).is_none() {
            return Err(InputError::Unknown {
                path: "by".into(),
                what: "agent",
                value: by.to_string(),
            }
            .into());
        }
        Ok(by)
    }

    /// A tool call: `{ result, delivered, started }`.
    fn call(&mut self, by: &Value, tool: &Value, args: &Value, now: &Value) -> ApiResult {
        self.at(now)?;
        let by = self.agent(by)?;
        let result = self.team.call(by, str_arg("tool", tool)?, args)?;
        Ok(Object::new()
            .with("result", result)
            .with("delivered", delivered_value(self.team.take_delivered()))
            .with("started", delivered_value(self.team.take_started()))
            .done())
    }

    pub fn tree(&self) -> Value {
        camel_keys(self.team.info().to_json())
    }

    pub fn read(&self, by: &Value, since: &Value) -> ApiResult {
        let by = self.agent(by)?;
        let since = match since {
            Value::Null => 0,
            v => v.as_u64().ok_or(InputError::Type {
                path: "since".into(),
                expected: "a whole number",
            })?,
        };
        Ok(Value::String(self.team.read(by, since)))
    }

    pub fn whoami(&self, by: &Value) -> ApiResult {
        Ok(Value::String(self.team.whoami(self.agent(by)?)))
    }

    pub fn offered(&self, by: &Value) -> ApiResult {
        let tools = self.team.offered_tools(self.agent(by)?);
        Ok(Object::new()
            .with("tools", tools.as_slice())
            .with("setting", self.team.offered)
            .done())
    }

    fn set_context(&mut self, by: &Value, used: &Value, window: &Value) -> ApiResult {
        let by = self.agent(by)?.to_string();
        let n = |p: &str, v: &Value| -> Result<u64, ApiError> {
            v.as_u64().ok_or_else(|| {
                InputError::Type {
                    path: p.into(),
                    expected: "a whole number of tokens",
                }
                .into()
            })
        };
        self.team
            .set_context(&by, n("used", used)?, n("window", window)?);
        Ok(Value::Bool(self.team.context_reached(&by)))
    }

    fn context_full(&mut self, by: &Value, now: &Value) -> ApiResult {
        self.at(now)?;
        let by = self.agent(by)?.to_string();
        let text = self.team.context_full(&by);
        Ok(Object::new()
            .with("text", text)
            .with("delivered", delivered_value(self.team.take_delivered()))
            .done())
    }

    fn end_turn(&mut self, by: &Value, reply: &Value, reason: &Value, now: &Value) -> ApiResult {
        self.at(now)?;
        let by = self.agent(by)?.to_string();
        let reply = match reply {
            Value::Null => "",
            v => str_arg("reply", v)?,
        };
        let reason = match reason {
            Value::Null => None,
            v => Some(str_arg("reason", v)?),
        };
        self.team.end_turn(&by, reply, reason);
        Ok(Object::new()
            .with("delivered", delivered_value(self.team.take_delivered()))
            .with("started", delivered_value(self.team.take_started()))
            .done())
    }

    fn set_main_mode(&mut self, mode: &Value) -> ApiResult {
        self.team.set_main_mode(mode_arg("mode", mode)?);
        Ok(Value::Null)
    }

    fn person_stop(&mut self, name: &Value, now: &Value) -> ApiResult {
        self.at(now)?;
        let stopped = self.team.person_stop(str_arg("name", name)?);
        Ok(Object::new()
            .with("stopped", stopped)
            .with("delivered", delivered_value(self.team.take_delivered()))
            .done())
    }

    /// What reached whom since last asked.
    fn delivered(&mut self) -> Value {
        delivered_value(self.team.take_delivered())
    }

    /// The saved team: `{ options, changes }`, what [`ApiTeam::from_json`] restores.
    pub fn to_json(&self) -> Value {
        Object::new()
            .with("options", &self.options)
            .with("changes", &self.changes)
            .done()
    }

    /// The team `to_json` saved: made from its options, then every change made again in order.
    pub fn from_json(saved: &Value) -> Result<ApiTeam, ApiError> {
        let o = Obj::new("team", saved).map_err(not_saved)?;
        o.only(&["options", "changes"]).map_err(not_saved)?;
        let options = o.get("options").unwrap_or(&Value::Null);
        let mut team = ApiTeam::new(options).map_err(|e| not_saved(e.message))?;
        for (i, change) in o.array("changes").map_err(not_saved)?.iter().enumerate() {
            let (name, args) = match change.as_array().map(Vec::as_slice) {
                Some([Value::String(name), args @ Value::Array(_)])
                    if CHANGES.contains(&name.as_str()) =>
                {
                    (name, args)
                }
                _ => {
                    return Err(not_saved(format!(
                        "team.changes[{i}]: expected [method, arguments], the method one of {}",
                        CHANGES.join(", ")
                    )))
                }
            };
            // The call answers as it answered the first time, an error too: both are past.
            let _ = team.dispatch(name, args);
        }
        Ok(team)
    }
}

impl ApiTeam {
    /// The team's methods by name — the only way to change it, so that every change is kept for
    /// [`ApiTeam::to_json`].
    pub fn dispatch(&mut self, name: &str, args: &Value) -> ApiResult {
        if CHANGES.contains(&name) {
            self.changes
                .push(Value::Array(vec![Value::from(name), args.clone()]));
        }
        let a = |i| arg(args, i);
        match name {
            "call" => self.call(a(0), a(1), a(2), a(3)),
            "tree" => Ok(self.tree()),
            "read" => self.read(a(0), a(1)),
            "whoami" => self.whoami(a(0)),
            "offered" => self.offered(a(0)),
            "setContext" => self.set_context(a(0), a(1), a(2)),
            "contextFull" => self.context_full(a(0), a(1)),
            "endTurn" => self.end_turn(a(0), a(1), a(2), a(3)),
            "setMainMode" => self.set_main_mode(a(0)),
            "personStop" => self.person_stop(a(0), a(1)),
            "delivered" => Ok(self.delivered()),
            "toJSON" => Ok(self.to_json()),
            other => Err(unknown_function(other)),
        }
    }
}
