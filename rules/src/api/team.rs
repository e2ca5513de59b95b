//! The team's class for JavaScript (`new Team(options)`): the tools as `call`, and what it reads.

use super::{
    arg, camel_keys, int_arg, mode_arg, str_arg, to_value, unknown_function, ApiError, ApiResult,
};
use crate::input::{InputError, Obj};
use crate::permission::Mode;
use crate::subagents::Capacity;
use crate::team::{Team, TeamOptions};
use serde_json::{Map, Value};

/// A team for JavaScript: `new Team(options)`, the tools as `call`, and what it reads.
#[derive(Debug)]
pub struct ApiTeam(pub Team);

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
        Ok(ApiTeam(Team::new(&TeamOptions {
            min: count("min", d.min)?,
            max: count("max", d.max)?,
            subagents: o.bool_or("subagents", true)?,
            capacity,
            model: o.opt_str("model")?.unwrap_or("m").to_string(),
            mode: o.opt_word("mode", "mode", Mode::parse)?.unwrap_or(d.mode),
            steps: d.steps,
            now: o.opt_int("now")?.unwrap_or(0),
        })))
    }

    fn at(&mut self, now: &Value) -> Result<(), ApiError> {
        if !now.is_null() {
            self.0.set_now(int_arg("now", now)?);
        }
        Ok(())
    }

    fn agent<'a>(&self, by: &'a Value) -> Result<&'a str, ApiError> {
        let by = str_arg("by", by)?;
        if self.0.find(by).is_none() {
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
    pub fn call(&mut self, by: &Value, tool: &Value, args: &Value, now: &Value) -> ApiResult {
        self.at(now)?;
        let by = self.agent(by)?;
        let result = self.0.call(by, str_arg("tool", tool)?, args)?;
        Ok(serde_json::json!({
            "result": result,
            "delivered": delivered_value(self.0.take_delivered()),
            "started": delivered_value(self.0.take_started()),
        }))
    }

    pub fn tree(&self) -> Value {
        camel_keys(to_value(&self.0.info()))
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
        Ok(Value::String(self.0.read(by, since)))
    }

    pub fn whoami(&self, by: &Value) -> ApiResult {
        Ok(Value::String(self.0.whoami(self.agent(by)?)))
    }

    pub fn offered(&self, by: &Value) -> ApiResult {
        let tools = self.0.offered_tools(self.agent(by)?);
        Ok(serde_json::json!({ "tools": tools, "setting": self.0.offered }))
    }

    pub fn set_context(&mut self, by: &Value, used: &Value, window: &Value) -> ApiResult {
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
        self.0
            .set_context(&by, n("used", used)?, n("window", window)?);
        Ok(Value::Bool(self.0.context_reached(&by)))
    }

    pub fn context_full(&mut self, by: &Value, now: &Value) -> ApiResult {
        self.at(now)?;
        let by = self.agent(by)?.to_string();
        let text = self.0.context_full(&by);
        Ok(
            serde_json::json!({ "text": text, "delivered": delivered_value(self.0.take_delivered()) }),
        )
    }

    pub fn end_turn(
        &mut self,
        by: &Value,
        reply: &Value,
        reason: &Value,
        now: &Value,
    ) -> ApiResult {
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
        self.0.end_turn(&by, reply, reason);
        Ok(serde_json::json!({
            "delivered": delivered_value(self.0.take_delivered()),
            "started": delivered_value(self.0.take_started()),
        }))
    }

    pub fn set_main_mode(&mut self, mode: &Value) -> ApiResult {
        self.0.set_main_mode(mode_arg("mode", mode)?);
        Ok(Value::Null)
    }

    pub fn person_stop(&mut self, name: &Value, now: &Value) -> ApiResult {
        self.at(now)?;
        let stopped = self.0.person_stop(str_arg("name", name)?);
        Ok(
            serde_json::json!({ "stopped": stopped, "delivered": delivered_value(self.0.take_delivered()) }),
        )
    }

    /// What reached whom since last asked.
    pub fn delivered(&mut self) -> Value {
        delivered_value(self.0.take_delivered())
    }

    /// The whole state, to keep a session and restore it with [`ApiTeam::from_json`].
    pub fn to_json(&self) -> Value {
        to_value(&self.0)
    }

    pub fn from_json(v: &Value) -> Result<ApiTeam, ApiError> {
        serde_json::from_value::<Team>(v.clone())
            .map(ApiTeam)
            .map_err(|e| ApiError {
                code: "bad_team_state",
                message: format!("team: not a saved team ({e})"),
            })
    }
}

impl ApiTeam {
    /// The team's methods by name.
    pub fn dispatch(&mut self, name: &str, args: &Value) -> ApiResult {
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
