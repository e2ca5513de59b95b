//! The team tools (subagents.md §6–§8; tools/team_*.json), each with its refusals in the spec's
//! order. [`Team::call`] takes the caller, the tool and its JSON arguments, and gives the tool's
//! answer — a refusal's text word for word, or what it did — or none for a tool that is not the
//! team's and is not refused here (it goes on to its own checks, permission first).

use super::{lead, team_spec, AgentState, RoomKind, Team};
use crate::delegation::{check_mode, request_refusal, requested};
use crate::input::{InputError, Obj};
use crate::permission::{evaluate, Action, Context, Mode, Request};
use crate::spec::spec;
use crate::subagents::{subagent_model, Model, Models};
use crate::text::fill;
use serde_json::Value;

/// The team tools the main agent is offered (§8), sorted.
pub fn lead_tools() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = spec()
        .tools()
        .filter(|t| t.name.starts_with("team_") && t.offered != Some("subagent"))
        .map(|t| t.name)
        .collect();
    v.sort_unstable();
    v
}

/// The team tools a subagent (or sub-manager) is offered (§8): team_request only with request
/// options. Sorted.
pub fn member_tools(has_request: bool) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = spec()
        .tools()
        .filter(|t| t.name.starts_with("team_") && t.offered != Some("main"))
        .filter(|t| has_request || t.name != "team_request")
        .map(|t| t.name)
        .collect();
    v.sort_unstable();
    v
}

/// A team tool's answer: what it did, or why it refused — each in the spec's words, which the
/// model reads as they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolAnswer {
    /// It did what it was asked; the text says what.
    Done(String),
    /// It refused; the text says why (`loop.json` `team.texts`).
    Refused(String),
}

impl ToolAnswer {
    /// The text the model reads.
    pub fn text(&self) -> &str {
        match self {
            ToolAnswer::Done(text) | ToolAnswer::Refused(text) => text,
        }
    }

    /// Whether it refused.
    pub fn is_refusal(&self) -> bool {
        matches!(self, ToolAnswer::Refused(_))
    }
}

/// A refusal as a tool's answer.
pub(super) fn refuse(text: impl Into<String>) -> Result<ToolAnswer, InputError> {
    Ok(ToolAnswer::Refused(text.into()))
}

/// What a tool did, as its answer.
pub(super) fn done(text: String) -> Result<ToolAnswer, InputError> {
    Ok(ToolAnswer::Done(text))
}

fn is_team_tool(tool: &str) -> bool {
    tool.starts_with("team_") && spec().tool(tool).is_some()
}

fn main_only(tool: &str) -> bool {
    team_spec().main_only.tools.iter().any(|x| x == tool)
}

impl Team {
    /// The tools `by` is offered, sorted; none while the team cannot be had (not offered, one
    /// agent allowed, no model to serve a subagent).
    pub fn offered_tools(&self, by: &str) -> Vec<&'static str> {
        if self.unavailable().is_some() {
            return Vec::new();
        }
        match self.live(by) {
            Some(a) if a.parent.is_none() => lead_tools(),
            Some(a) => member_tools(!a.request.is_empty()),
            None => Vec::new(),
        }
    }

    /// Whether a call does the work, which a manager leaves to its subagents (team.md §6): a
    /// tool of a class in `team.work`, but a command the defaults allow in manual mode (a
    /// reading one).
    fn is_work(tool: &str, args: &Value) -> bool {
        let work = &team_spec().work;
        if work.kept.iter().any(|k| k == tool) {
            return false;
        }
        let Some(info) = spec().tool(tool) else {
            return false;
        };
        if !work.classes.iter().any(|c| c == info.risk.as_str()) {
            return false;
        }
        if let Some(line) = args
            .get("command")
            .or_else(|| args.get("line"))
            .and_then(Value::as_str)
        {
            return evaluate(&Request::bash(line), &Context::new(Mode::Manual)).action
                != Action::Allow;
        }
        true
    }

    /// What a call answers before it runs — the team tools' requirement, only_main, task's size,
    /// a manager's work — or none when it goes on to its own checks.
    pub fn refusal(&self, by: &str, tool: &str, args: &Value) -> Option<String> {
        let texts = &team_spec().texts;
        let is_lead = self.live(by).is_some_and(|a| a.parent.is_none());
        if is_team_tool(tool) {
            if let Some(no) = self.unavailable() {
                return Some(no);
            }
            if !is_lead && main_only(tool) {
                return Some(texts.only_main.to_string());
            }
            return None;
        }
        if tool == "task" {
            if !is_lead {
                return Some(texts.only_main.to_string());
            }
            if self.offered && self.max <= 1 && self.live_subagents() == 0 {
                return Some(team_spec().unavailable.one_agent.to_string());
            }
            if self.offered && self.size() + 1 > self.max {
                return Some(fill(&texts.task_full, &[("max", &self.max.to_string())]));
            }
            return None;
        }
        if self.is_manager(by) && Self::is_work(tool, args) {
            return Some(texts.manager.to_string());
        }
        None
    }

    /// A call by `by` to `tool` with `args`: the answer — done or refused — or none for a call
    /// that goes on.
    pub fn call(
        &mut self,
        by: &str,
        tool: &str,
        args: &Value,
    ) -> Result<Option<ToolAnswer>, InputError> {
        if self.live(by).is_none() {
            return Err(InputError::Unknown {
                path: "by".into(),
                what: "agent",
                value: by.to_string(),
            });
        }
        if let Some(no) = self.refusal(by, tool, args) {
            return Ok(Some(ToolAnswer::Refused(no)));
        }
        let empty = serde_json::Map::new();
        let a = match args {
            Value::Null => Obj {
                path: "args",
                map: &empty,
            },
            v => Obj::new("args", v)?,
        };
        let answer = match tool {
            "team_add" => self.add(by, &a)?,
            "team_send" => self.send(by, &a)?,
            "team_read" => ToolAnswer::Done(self.read(by, a.opt_count("since")?.unwrap_or(0))),
            "team_stop" => self.stop(&a)?,
            "team_whoami" => ToolAnswer::Done(self.whoami(by)),
            "team_findings" => self.findings(by, &a)?,
            "team_finish" => self.finish(by, &a)?,
            "team_request" => self.request(by, &a)?,
            "team_decide" => self.decide(&a)?,
            "team_assign" => self.assign(&a)?,
            "team_replace" => self.replace(&a)?,
            "task" => {
                self.tasks += 1;
                return Ok(None);
            }
            _ => return Ok(None),
        };
        Ok(Some(answer))
    }

    pub(super) fn unknown(&self, name: &str) -> String {
        fill(
            &team_spec().texts.unknown,
            &[("name", name), ("names", &self.names())],
        )
    }

    /// team_add (§6): `unavailable` and `only_main` come first (in [`Team::refusal`]), then the
    /// name, goal and size, then `parent`, then the mode's, then the model's.
    fn add(&mut self, _by: &str, a: &Obj<'_>) -> Result<ToolAnswer, InputError> {
        let texts = &team_spec().texts;
        let names = &team_spec().names;
        let name = a.str("name")?;
        let role = a.str("role")?;
        let task = a.str("task")?;
        let goal = a.opt_str("goal")?.map(str::trim).filter(|g| !g.is_empty());
        let request = a.opt_strings("request")?.unwrap_or_default();
        let mode = a.opt_word("mode", "mode", Mode::parse)?;
        if name == names.all {
            return refuse(texts.all_name.to_string());
        }
        let pattern_ok = name_matches(name);
        if !pattern_ok {
            return refuse(fill(&texts.bad_name, &[("name", name)]));
        }
        if self.live(name).is_some() || names.reserved.iter().any(|r| r == name) {
            return refuse(fill(&texts.taken, &[("name", name)]));
        }
        let lead_goal = self.lead().map(|l| l.goal.clone()).unwrap_or_default();
        if lead_goal.is_empty() && goal.is_none() {
            return refuse(texts.no_goal.to_string());
        }
        if self.size() + 1 > self.max {
            return refuse(fill(&texts.full, &[("max", &self.max.to_string())]));
        }
        let parent_name = a.opt_str("parent")?.unwrap_or(lead());
        let Some(parent) = self.live(parent_name) else {
            return refuse(self.unknown(parent_name));
        };
        if !parent.manager {
            return refuse(fill(&texts.not_manager, &[("name", parent_name)]));
        }
        let placed = match check_mode(parent.mode, mode, &request) {
            Ok(p) => p,
            Err(refusal) => return refuse(refusal.text()),
        };
        let (parent_id, parent_goal) = (parent.id.clone(), parent.goal.clone());
        let model = match a.opt_str("model")? {
            None => self.model.clone(),
            Some(m) => {
                let session = Model {
                    served: self.model.clone(),
                    id: self.model.clone(),
                    name: self.model.clone(),
                    capacity: self.capacity.clone(),
                };
                match subagent_model(&session, &Models(vec![session.clone()]), &[], Some(m)) {
                    Ok(served) => served,
                    Err(refusal) => return refuse(refusal.text()),
                }
            }
        };
        if let (Some(g), Some(l)) = (goal, self.agents.first_mut()) {
            l.goal = g.to_string();
        }
        let goal = goal.map(str::to_string).unwrap_or_else(|| {
            if parent_goal.is_empty() {
                lead_goal.clone()
            } else {
                parent_goal
            }
        });
        let id = self.next_id();
        let agent = super::Agent {
            position: role.trim().lines().next().unwrap_or("").to_string(),
            task: task.to_string(),
            request: placed.request,
            parent: Some(parent_id),
            manager: a.bool_or("lead", false)?,
            goal,
            agent_kind: a.opt_str("agent")?.unwrap_or("general").to_string(),
            ..super::Agent::blank(id.clone(), name, &model, placed.mode)
        };
        self.agents.push(agent);
        self.want_turn(&id, Some(task.to_string()));
        let waits = self
            .by_id(&id)
            .is_some_and(|a| a.state == AgentState::Waiting);
        let template = if waits {
            &texts.added_waiting
        } else {
            &texts.added
        };
        done(fill(
            template,
            &[
                ("name", name),
                ("id", &id),
                ("size", &self.size().to_string()),
                ("max", &self.max.to_string()),
            ],
        ))
    }

    /// team_send (3.2.0; `parent` from 3.4.0).
    fn send(&mut self, by: &str, a: &Obj<'_>) -> Result<ToolAnswer, InputError> {
        let texts = &team_spec().texts;
        let names = &team_spec().names;
        let message = a.str("message")?;
        let to: Vec<&str> = match a.get("to") {
            Some(Value::String(s)) => vec![s.as_str()],
            _ => a
                .opt_strings("to")?
                .ok_or_else(|| InputError::missing("args.to"))?,
        };
        let mut list: Vec<String> = Vec::new();
        for n in to {
            let n = if n == names.parent {
                let Some(me) = self.live(by) else {
                    return refuse(self.unknown(by));
                };
                match self.parent_name(me) {
                    Some(p) => p,
                    None => return refuse(texts.no_parent.to_string()),
                }
            } else {
                n.to_string()
            };
            if !list.contains(&n) {
                list.push(n);
            }
        }
        if list.is_empty() {
            return Err(InputError::missing("args.to"));
        }
        let recipients: Vec<String> = if list.iter().any(|n| *n == names.all) {
            let others: Vec<String> = self
                .tree()
                .iter()
                .filter(|x| x.name != by)
                .map(|x| x.name.clone())
                .collect();
            if others.is_empty() {
                return refuse(texts.nobody.to_string());
            }
            list = vec![names.all.to_string()];
            others
        } else {
            for n in &list {
                if n == by {
                    return refuse(texts.self_.to_string());
                }
                if self.live(n).is_none() {
                    return refuse(self.unknown(n));
                }
            }
            list.clone()
        };
        self.post(
            by,
            list.clone(),
            recipients,
            message.to_string(),
            RoomKind::Message,
            "",
        );
        done(fill(&texts.sent, &[("names", &list.join(", "))]))
    }

    /// team_stop (§10: the main agent's only).
    fn stop(&mut self, a: &Obj<'_>) -> Result<ToolAnswer, InputError> {
        let texts = &team_spec().texts;
        let name = a.str("name")?;
        let ids: Vec<String> = if name == team_spec().names.all {
            let all: Vec<String> = self
                .tree()
                .iter()
                .filter(|x| x.parent.is_some())
                .map(|x| x.id.clone())
                .collect();
            if all.is_empty() {
                return refuse(texts.nobody_to_stop.to_string());
            }
            all
        } else {
            match self.live(name) {
                Some(x) if x.parent.is_some() => self.subtree(&x.id.clone()),
                Some(x) => return refuse(fill(&texts.not_yours, &[("name", &x.name.clone())])),
                None => return refuse(self.unknown(name)),
            }
        };
        let names: Vec<String> = ids
            .iter()
            .filter_map(|id| self.by_id(id).map(|x| x.name.clone()))
            .collect();
        self.end(&ids, AgentState::Stopped);
        done(fill(
            &texts.stopped,
            &[
                ("names", &names.join(", ")),
                ("size", &self.size().to_string()),
                ("max", &self.max.to_string()),
            ],
        ))
    }

    /// team_findings write and read (§8).
    fn findings(&mut self, by: &str, a: &Obj<'_>) -> Result<ToolAnswer, InputError> {
        let texts = &team_spec().texts;
        match a.str("action")? {
            "write" => {
                let text = a.opt_str("text")?.map(str::trim).unwrap_or("");
                if text.is_empty() {
                    return refuse(texts.finding_text.to_string());
                }
                let now = self.now;
                let Some(me) = self.live_mut(by) else {
                    return refuse(String::new());
                };
                let n = u32::try_from(me.findings.len())
                    .unwrap_or(u32::MAX)
                    .saturating_add(1);
                me.findings.push(super::Finding {
                    n,
                    text: text.to_string(),
                    time: now,
                });
                done(fill(&texts.noted, &[("n", &n.to_string())]))
            }
            "read" => done(self.read_findings(by, a.opt_str("of")?)),
            other => Err(InputError::Unknown {
                path: "args.action".into(),
                what: "action",
                value: other.to_string(),
            }),
        }
    }

    /// team_finish (§8): the report to its parent, and it ends (done).
    fn finish(&mut self, by: &str, a: &Obj<'_>) -> Result<ToolAnswer, InputError> {
        let texts = &team_spec().texts;
        let report = a.str("report")?.trim();
        let Some(me) = self.live(by) else {
            return refuse(texts.no_parent.to_string());
        };
        let Some(parent) = self.parent_name(me) else {
            return refuse(texts.no_parent.to_string());
        };
        let id = me.id.clone();
        let body = if report.is_empty() {
            texts.no_report.to_string()
        } else {
            report.to_string()
        };
        self.post(
            by,
            vec![parent.clone()],
            vec![parent.clone()],
            body,
            RoomKind::Report,
            "",
        );
        self.end(&[id], AgentState::Done);
        done(fill(&texts.finished, &[("to", &parent)]))
    }

    /// team_request (§7).
    fn request(&mut self, by: &str, a: &Obj<'_>) -> Result<ToolAnswer, InputError> {
        let texts = &team_spec().texts;
        let tool = a.str("tool")?;
        let pattern = a.str("pattern")?;
        let why = a.str("why")?;
        let Some(me) = self.live(by) else {
            return refuse(texts.no_parent.to_string());
        };
        if me.parent.is_none() {
            return refuse(texts.no_parent.to_string());
        }
        let class = spec().tool(tool).map(|x| x.risk);
        if let Some(no) = request_refusal(tool, class, &me.request) {
            return refuse(no);
        }
        let from = me.id.clone();
        let id = self.next_request_id();
        self.requests.push(super::OpenRequest {
            id: id.clone(),
            from,
            tool: tool.to_string(),
            pattern: pattern.to_string(),
            why: why.to_string(),
            open: true,
        });
        let body = fill(
            &texts.request_body,
            &[("tool", tool), ("pattern", pattern), ("why", why)],
        );
        self.post(
            by,
            vec![lead().to_string()],
            vec![lead().to_string()],
            body,
            RoomKind::Request,
            &id,
        );
        done(requested(&id))
    }
}

/// Whether a name fits `team.names.pattern` (`^[a-z][a-z0-9-]{0,31}$`): checked by hand, since
/// the rules take no regex engine; a test checks the pattern is still this one.
pub fn name_matches(name: &str) -> bool {
    let mut chars = name.chars();
    let first = chars.next().is_some_and(|c| c.is_ascii_lowercase());
    let rest: Vec<char> = chars.collect();
    first
        && rest.len() <= 31
        && rest
            .iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
}
