//! Area `team` (this project's; subagents.md §5–§13 on team.md 3.2.0): one session step by step.
//! `start` `{ min, max, subagents?, capacity, mode?, now? }`, then `steps`, each `{ op, …, now?,
//! expect }` whose expect is compared on the keys it names (`null`: the step answers nothing).
//! conformance/README.md lists the ops.

use super::{Compare, Outcome};
use crate::json::object;

use crate::input::{self, InputError, Obj};
use crate::permission::Mode;
use crate::subagents::Capacity;
use crate::team::{Team, TeamOptions};
use serde_json::{Map, Value};

/// The clock a team case starts at unless it says.
pub const START: i64 = 1_762_790_400_000;

fn delivered(team: &mut Team) -> Value {
    let mut m: Map<String, Value> = Map::new();
    for (name, text) in team.take_delivered() {
        if let Value::Array(list) = m.entry(name).or_insert_with(|| Value::Array(Vec::new())) {
            list.push(Value::String(text));
        }
    }
    Value::Object(m)
}

fn agent_of<'a>(team: &Team, o: &Obj<'a>) -> Result<&'a str, InputError> {
    let by = o.str("by")?;
    if team.live(by).is_none() && team.find(by).is_none() {
        return Err(InputError::Unknown {
            path: o.at("by"),
            what: "agent",
            value: by.to_string(),
        });
    }
    Ok(by)
}

fn step(team: &mut Team, o: &Obj<'_>) -> Result<Value, InputError> {
    let common = ["op", "now", "expect", "about"];
    let only = |extra: &[&str]| {
        let mut all: Vec<&str> = common.to_vec();
        all.extend_from_slice(extra);
        o.only(&all)
    };
    if let Some(now) = o.opt_int("now")? {
        team.set_now(now);
    }
    let op = o.str("op")?;
    Ok(match op {
        "call" => {
            only(&["by", "tool", "args"])?;
            let by = agent_of(team, o)?;
            let tool = o.str("tool")?;
            let args = o.get("args").cloned().unwrap_or(Value::Null);
            let result = team.call(by, tool, &args).map_err(|e| prefix(o, e))?;
            let mut out = Map::new();
            if tool == "team_read" {
                let since = args.get("since").and_then(Value::as_u64).unwrap_or(0);
                let (messages, _) = team.read_room(by, since);
                let room: Vec<Value> = messages
                    .iter()
                    .map(|m| {
                        object([
                            ("n", Value::from(m.n)),
                            ("from", Value::from(m.from.clone())),
                            ("to", Value::from(m.to.join(", "))),
                        ])
                    })
                    .collect();
                out.insert("room".into(), Value::Array(room));
            }
            out.insert("result".into(), result.map_or(Value::Null, Value::String));
            out.insert("delivered".into(), delivered(team));
            Value::Object(out)
        }
        "offered" => {
            only(&["by"])?;
            let by = agent_of(team, o)?;
            let tools: Vec<Value> = team
                .offered_tools(by)
                .into_iter()
                .map(Value::from)
                .collect();
            object([
                ("tools", Value::Array(tools)),
                ("setting", Value::Bool(team.offered)),
            ])
        }
        "tree" => {
            only(&[])?;
            let info = team.info();
            let agents: Vec<Value> = info
                .agents
                .iter()
                .map(|a| {
                    object([
                        ("id", Value::from(a.id.clone())),
                        ("name", Value::from(a.name.clone())),
                        ("parent", a.parent.clone().map_or(Value::Null, Value::from)),
                        ("state", Value::from(a.state.as_str())),
                        ("mode", Value::from(a.mode.as_str())),
                        (
                            "request",
                            Value::Array(
                                a.request.iter().map(|k| Value::from(k.as_str())).collect(),
                            ),
                        ),
                    ])
                })
                .collect();
            let ended: Vec<Value> = info
                .ended
                .iter()
                .map(|a| {
                    object([
                        ("id", Value::from(a.id.clone())),
                        ("name", Value::from(a.name.clone())),
                        ("state", Value::from(a.state.as_str())),
                    ])
                })
                .collect();
            object([
                ("size", Value::from(info.size)),
                ("open_slots", Value::from(info.open_slots)),
                ("agents", Value::Array(agents)),
                ("ended", Value::Array(ended)),
            ])
        }
        "context" => {
            only(&["by", "used", "window"])?;
            let by = agent_of(team, o)?;
            team.set_context(by, o.count("used")?, o.count("window")?);
            Value::Null
        }
        "context_full" => {
            only(&["by"])?;
            let by = agent_of(team, o)?;
            team.context_full(by);
            object([("delivered", delivered(team))])
        }
        "end_turn" => {
            only(&["by", "reply", "reason"])?;
            let by = agent_of(team, o)?;
            team.end_turn(by, o.opt_str("reply")?.unwrap_or(""), o.opt_str("reason")?);
            object([("delivered", delivered(team))])
        }
        "started" => {
            only(&["by"])?;
            let by = agent_of(team, o)?;
            object([(
                "text",
                team.started_with(by).map_or(Value::Null, Value::from),
            )])
        }
        "main_mode" => {
            only(&["mode"])?;
            team.set_main_mode(o.word("mode", "mode", Mode::parse)?);
            Value::Null
        }
        "read" => {
            only(&["by", "since"])?;
            let by = agent_of(team, o)?;
            object([(
                "text",
                Value::from(team.read(by, o.opt_count("since")?.unwrap_or(0))),
            )])
        }
        "whoami" => {
            only(&["by"])?;
            let by = agent_of(team, o)?;
            object([("text", Value::from(team.whoami(by)))])
        }
        "state" => {
            only(&[])?;
            let mut m = Map::new();
            for a in team.tree() {
                m.insert(a.name.clone(), Value::from(a.state.as_str()));
            }
            Value::Object(m)
        }
        "person_stop" => {
            only(&["name"])?;
            let stopped = team.person_stop(o.str("name")?);
            object([
                (
                    "stopped",
                    Value::Array(stopped.into_iter().map(Value::from).collect()),
                ),
                ("delivered", delivered(team)),
            ])
        }
        "capacity" => {
            only(&["capacity"])?;
            let c = o.get("capacity").ok_or(InputError::Missing {
                path: o.at("capacity"),
            })?;
            team.capacity = Capacity::from_json(&o.at("capacity"), c)?;
            team.fill_slots();
            Value::Null
        }
        other => {
            return Err(InputError::Unknown {
                path: o.at("op"),
                what: "op",
                value: other.to_string(),
            })
        }
    })
}

/// A tool's argument error, named from the step (`steps[2].args.name: missing`).
fn prefix(o: &Obj<'_>, e: InputError) -> InputError {
    InputError::Invalid {
        path: o.path.to_string(),
        message: e.to_string(),
    }
}

pub fn run(case: &Obj<'_>) -> Result<Outcome, InputError> {
    case.only(&["about", "start", "steps", "expect"])?;
    let start = case.opt_obj("start", "start")?.ok_or(InputError::Missing {
        path: "start".into(),
    })?;
    start.only(&["min", "max", "subagents", "capacity", "mode", "now"])?;
    let capacity = match start.get("capacity") {
        Some(c) => Capacity::from_json("start.capacity", c)?,
        None => Capacity::default(),
    };
    let min = u32::try_from(start.count("min")?).unwrap_or(u32::MAX);
    let max = u32::try_from(start.count("max")?).unwrap_or(u32::MAX);
    if let Some(message) = Team::impossible_setting(min, max) {
        return Err(InputError::Invalid {
            path: "start".into(),
            message,
        });
    }
    let mut team = Team::new(&TeamOptions {
        min,
        max,
        subagents: start.bool_or("subagents", true)?,
        capacity,
        mode: start
            .opt_word("mode", "mode", Mode::parse)?
            .unwrap_or(Mode::Edit),
        now: start.opt_int("now")?.unwrap_or(START),
        ..TeamOptions::default()
    });
    let steps = case.array("steps")?;
    let mut actual = Vec::with_capacity(steps.len());
    let mut expected = Vec::with_capacity(steps.len());
    for (i, s) in steps.iter().enumerate() {
        let path = input::index("steps", i);
        let o = Obj::new(&path, s)?;
        expected.push(o.get("expect").cloned().unwrap_or(Value::Null));
        actual.push(step(&mut team, &o)?);
    }
    // The case's expect is the steps' expects; each compared on the keys it names.
    let shown: Vec<Value> = actual
        .iter()
        .zip(&expected)
        .map(|(g, e)| match (g, e) {
            (Value::Object(g), Value::Object(e)) => crate::json::object_of(
                g.iter()
                    .filter(|(k, _)| e.contains_key(*k))
                    .map(|(k, v)| (k.clone(), v.clone())),
            ),
            (g, _) => g.clone(),
        })
        .collect();
    Ok(Outcome {
        actual: Value::Array(shown),
        compare: Compare::Whole,
        expected: Some(Value::Array(expected)),
        why: None,
    })
}
