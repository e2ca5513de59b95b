//! What the team tools and clients read (subagents.md §8, §12): team_read's text, team_whoami's
//! lines, findings, and the tree's data. Every sentence is `loop.json` `team`'s.

use super::{team_spec, Agent, AgentState, RoomKind, RoomMessage, Team};
use crate::input::{InputError, Obj};
use crate::json::{Fields, Json, Keys, ToJson};
use crate::progress::{duration, Progress};
use crate::text::fill;
use serde_json::Value;

/// A row of the tree (§12).
#[derive(Debug, Clone, PartialEq)]
pub struct TreeAgent {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its position, one line.
    pub position: String,
    /// Its parent's name; none for the main agent.
    pub parent: Option<String>,
    /// Its state.
    pub state: AgentState,
    /// The served id of its model.
    pub model: String,
    /// Its mode.
    pub mode: crate::permission::Mode,
    /// Its request options.
    pub request: Vec<crate::permission::RiskClass>,
    /// Whether it manages subagents.
    pub manager: bool,
    /// Its task (a subagent's).
    pub task: Option<String>,
    /// Its context use, as its engine last said it.
    pub context: Option<ContextUse>,
    /// Its progress, as its engine last said it.
    pub progress: Option<Progress>,
    /// Its findings kept.
    pub findings: usize,
    /// Room messages from or to it.
    pub messages: usize,
    /// When it ended (Unix ms), for an ended one.
    pub ended: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
/// Tokens in an agent's context, of its model's window.
pub struct ContextUse {
    /// Tokens in its context.
    pub used: u64,
    /// Its model's window.
    pub window: u64,
}

impl ToJson for super::Finding {
    /// `{ n, text, time }`, as `_lembas/team/findings` lists it.
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        Fields::of(out, keys)
            .with("n", self.n)
            .with("text", &self.text)
            .with("time", self.time)
            .done()
    }
}

impl ToJson for RoomMessage {
    /// `{ n, from, to, recipients, text, time, report, kind }`, as `_lembas/team` lists the room.
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        Fields::of(out, keys)
            .with("n", self.n)
            .with("from", &self.from)
            .with("to", &self.to)
            .with("recipients", &self.recipients)
            .with("text", &self.text)
            .with("time", self.time)
            .with("report", self.kind == RoomKind::Report)
            .with("kind", self.kind.as_str())
            .done()
    }
}

impl ToJson for ContextUse {
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        Fields::of(out, keys)
            .with("used", self.used)
            .with("window", self.window)
            .done()
    }
}

/// The tree as clients draw it (§12).
#[derive(Debug, Clone, PartialEq)]
pub struct TreeInfo {
    /// The setting's min.
    pub min: u32,
    /// The setting's max.
    pub max: u32,
    /// The team's size (team.md §3).
    pub size: u32,
    /// Open slots (§6).
    pub open_slots: u32,
    /// The live agents in tree order.
    pub agents: Vec<TreeAgent>,
    /// The ended ones, in the order they ended.
    pub ended: Vec<TreeAgent>,
}

impl ToJson for TreeAgent {
    /// `task`, `context` and `ended` are left out when there is none.
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        Fields::of(out, keys)
            .with("id", &self.id)
            .with("name", &self.name)
            .with("position", &self.position)
            .with("parent", &self.parent)
            .with("state", self.state)
            .with("model", &self.model)
            .with("mode", self.mode)
            .with("request", &self.request)
            .with("manager", self.manager)
            .with_some("task", &self.task)
            .with_some("context", &self.context)
            .with("progress", &self.progress)
            .with("findings", self.findings)
            .with("messages", self.messages)
            .with_some("ended", &self.ended)
            .done()
    }
}

impl ToJson for TreeInfo {
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        Fields::of(out, keys)
            .with("min", self.min)
            .with("max", self.max)
            .with("size", self.size)
            .with("open_slots", self.open_slots)
            .with("agents", &self.agents)
            .with("ended", &self.ended)
            .done()
    }
}

serialize_as_json!(TreeAgent, ContextUse, TreeInfo);

impl TreeAgent {
    /// A row of the tree as clients receive it (§12, a `team` event's `tree.agents[i]`), read
    /// back; an error names the field that is not one.
    pub fn from_json(path: &str, value: &Value) -> Result<TreeAgent, InputError> {
        use crate::permission::{Mode, RiskClass};
        let o = Obj::new(path, value)?;
        // A count this machine can hold; a bigger one is said, not cut.
        let small_count = |key: &str| -> Result<usize, InputError> {
            usize::try_from(o.opt_count(key)?.unwrap_or(0)).map_err(|_| InputError::Type {
                path: o.at(key),
                expected: "a count this machine can hold",
            })
        };
        let context_path = o.at("context");
        let context = match o.opt_obj("context", &context_path)? {
            Some(c) => Some(ContextUse {
                used: c.count("used")?,
                window: c.count("window")?,
            }),
            None => None,
        };
        let progress = match o.get("progress") {
            Some(p) => Some(Progress::from_json(&o.at("progress"), p)?),
            None => None,
        };
        let request = o
            .opt_strings("request")?
            .unwrap_or_default()
            .into_iter()
            .map(|k| {
                RiskClass::parse(k).ok_or_else(|| InputError::Unknown {
                    path: o.at("request"),
                    what: "request option",
                    value: k.to_string(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TreeAgent {
            id: o.str("id")?.to_string(),
            name: o.str("name")?.to_string(),
            position: o.opt_str("position")?.unwrap_or_default().to_string(),
            parent: o.opt_str("parent")?.map(str::to_string),
            state: o.word("state", "state", AgentState::parse)?,
            model: o.opt_str("model")?.unwrap_or_default().to_string(),
            mode: o.word("mode", "mode", Mode::parse)?,
            request,
            manager: o.bool_or("manager", false)?,
            task: o.opt_str("task")?.map(str::to_string),
            context,
            progress,
            findings: small_count("findings")?,
            messages: small_count("messages")?,
            ended: o.opt_int("ended")?,
        })
    }
}

impl TreeInfo {
    /// The tree as clients receive it (§12, a `team` event's `tree`), read back; an error names
    /// the field that is not one.
    pub fn from_json(path: &str, value: &Value) -> Result<TreeInfo, InputError> {
        let o = Obj::new(path, value)?;
        let count = |key: &str| -> Result<u32, InputError> {
            u32::try_from(o.count(key)?).map_err(|_| InputError::Type {
                path: o.at(key),
                expected: "a count under 2^32",
            })
        };
        let agents = |key: &str| -> Result<Vec<TreeAgent>, InputError> {
            o.opt_array(key)?
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .enumerate()
                .map(|(i, a)| TreeAgent::from_json(&crate::input::index(&o.at(key), i), a))
                .collect()
        };
        Ok(TreeInfo {
            min: count("min")?,
            max: count("max")?,
            size: count("size")?,
            open_slots: count("open_slots")?,
            agents: agents("agents")?,
            ended: agents("ended")?,
        })
    }
}

/// A mode with its request options, as team_read writes it (`manual + write, execute`).
fn mode_text(mode: crate::permission::Mode, request: &[crate::permission::RiskClass]) -> String {
    if request.is_empty() {
        return mode.as_str().to_string();
    }
    let kinds: Vec<&str> = request.iter().map(|k| k.as_str()).collect();
    format!(
        "{} {}",
        mode,
        fill(&team_spec().read.request, &[("kinds", &kinds.join(", "))])
    )
}

/// Tokens used of a window, in whole percent.
fn percent(used: u64, window: u64) -> u64 {
    crate::text::whole_percent(used, window)
}

impl TreeAgent {
    /// Its mode with its request options, as team_read writes it.
    pub fn mode_text(&self) -> String {
        mode_text(self.mode, &self.request)
    }

    /// How full its context is, in whole percent, and the text team_read says it with.
    pub fn context_text(&self) -> Option<(u64, String)> {
        let c = self.context.filter(|c| c.window > 0)?;
        let p = percent(c.used, c.window);
        Some((
            p,
            fill(&team_spec().read.context, &[("percent", &p.to_string())]),
        ))
    }
}

impl Team {
    fn row(&self, a: &Agent) -> TreeAgent {
        TreeAgent {
            id: a.id.clone(),
            name: a.name.clone(),
            position: a.position.clone(),
            parent: self.parent_name(a),
            state: a.state,
            model: a.model.clone(),
            mode: a.mode,
            request: a.request.clone(),
            manager: a.manager,
            task: a.parent.as_ref().map(|_| a.task.clone()),
            context: a.context,
            progress: a.progress.clone(),
            findings: a.findings.len(),
            messages: usize::try_from(a.messages).unwrap_or(usize::MAX),
            ended: a.ended_at,
        }
    }

    /// The tree's data (§12): the live agents in tree order, then the ended ones in the order
    /// they ended.
    pub fn info(&self) -> TreeInfo {
        TreeInfo {
            min: self.min,
            max: self.max,
            size: self.size(),
            open_slots: self.open_slots(),
            agents: self.tree().into_iter().map(|a| self.row(a)).collect(),
            ended: self
                .ended
                .iter()
                .filter_map(|id| self.by_id(id))
                .map(|a| self.row(a))
                .collect(),
        }
    }

    /// The names whose messages `by` may see: none for the main agent (it sees all); else
    /// itself and the subagents under it.
    fn seen_names(&self, by: &str) -> Option<Vec<String>> {
        let me = self.live(by)?;
        me.parent.as_ref()?;
        Some(
            self.subtree(&me.id)
                .iter()
                .filter_map(|id| self.by_id(id).map(|a| a.name.clone()))
                .collect(),
        )
    }

    /// The room's messages above `since` that `by` may see (the main agent all; another agent
    /// what it or the subagents under it sent or received), oldest first, at most `read_max`;
    /// whether there are more after the last shown. Only the messages after `since` are looked at.
    pub fn read_room(&self, by: &str, since: u64) -> (Vec<&RoomMessage>, bool) {
        let max = team_spec().read_max;
        let mine = self.seen_names(by);
        if self.live(by).is_none() {
            return (Vec::new(), false);
        }
        let may_see = |m: &RoomMessage| match &mine {
            None => true,
            Some(names) => {
                names.contains(&m.from) || m.recipients.iter().any(|r| names.contains(r))
            }
        };
        // Numbers are 1.. in order, so the messages above `since` start at index `since`.
        let start = usize::try_from(since)
            .unwrap_or(usize::MAX)
            .min(self.room.len());
        let mut shown = Vec::new();
        let mut more = false;
        for m in self.room.get(start..).unwrap_or(&[]) {
            if !may_see(m) {
                continue;
            }
            if shown.len() == max {
                more = true;
                break;
            }
            shown.push(m);
        }
        (shown, more)
    }

    fn mode_text(a: &Agent) -> String {
        mode_text(a.mode, &a.request)
    }

    fn percent(used: u64, window: u64) -> u64 {
        percent(used, window)
    }

    /// The tree as team_read writes it (§8): the header, the agents in tree order, the open
    /// slots, the ended subagents. Also what a terminal draws.
    pub fn tree_lines(&self) -> Vec<String> {
        let r = &team_spec().read;
        let none = r.unknown.as_ref();
        let mut lines = vec![fill(
            &r.tree,
            &[
                ("size", &self.size().to_string()),
                ("max", &self.max.to_string()),
            ],
        )];
        for a in self.tree() {
            let context = match a.context {
                Some(c) if c.window > 0 => fill(
                    &r.context,
                    &[("percent", &Self::percent(c.used, c.window).to_string())],
                ),
                _ => none.to_string(),
            };
            let last = match (a.state, a.last_ended) {
                (AgentState::Working | AgentState::Paused, _) => r.active.to_string(),
                (_, Some(at)) => fill(
                    &r.ago,
                    &[("duration", &duration(self.now.saturating_sub(at) / 1000))],
                ),
                (_, None) => none.to_string(),
            };
            lines.push(fill(
                &r.agent,
                &[
                    ("indent", &"  ".repeat(self.depth(a))),
                    ("name", &a.name),
                    ("id", &a.id),
                    ("role", &a.position),
                    ("state", a.state.word()),
                    ("model", &a.model),
                    ("mode", &Self::mode_text(a)),
                    ("context", &context),
                    ("last", &last),
                ],
            ));
        }
        let open = self.open_slots();
        if open > 0 {
            lines.push(fill(&r.slots, &[("n", &open.to_string())]));
        }
        if !self.ended.is_empty() {
            lines.push(r.ended.to_string());
            for a in self.ended.iter().filter_map(|id| self.by_id(id)) {
                lines.push(fill(
                    &r.ended_agent,
                    &[
                        ("name", &a.name),
                        ("id", &a.id),
                        ("role", &a.position),
                        ("state", a.state.word()),
                        ("findings", &a.findings.len().to_string()),
                    ],
                ));
            }
        }
        lines
    }

    /// team_read (§8): the tree, open slots, ended subagents, then the room.
    pub fn read(&self, by: &str, since: u64) -> String {
        let r = &team_spec().read;
        let mut lines = self.tree_lines();
        lines.push(String::new());
        let (messages, more) = self.read_room(by, since);
        let since_s = since.to_string();
        if messages.is_empty() {
            lines.push(fill(&r.none, &[("since", &since_s)]));
        } else {
            lines.push(fill(&r.room, &[("since", &since_s)]));
            for m in &messages {
                let template = if m.kind == RoomKind::Report {
                    &r.report
                } else {
                    &r.message
                };
                lines.push(fill(
                    template,
                    &[
                        ("n", &m.n.to_string()),
                        ("from", &m.from),
                        ("to", &m.to.join(", ")),
                        ("text", &m.text.replace('\n', "\n  ")),
                    ],
                ));
            }
            if more {
                let last = messages.last().map_or(0, |m| m.n).to_string();
                lines.push(fill(&r.more, &[("last", &last)]));
            }
        }
        lines.join("\n")
    }

    /// team_whoami (§8): one line each, in `team.whoami`'s order.
    pub fn whoami(&self, by: &str) -> String {
        let w = &team_spec().whoami.lines;
        let Some(a) = self.live(by) else {
            return fill(
                &team_spec().texts.unknown,
                &[("name", by), ("names", &self.names())],
            );
        };
        let is_lead = a.parent.is_none();
        let mut lines = vec![fill(
            &w.who,
            &[("name", &a.name), ("id", &a.id), ("role", &a.position)],
        )];
        if let Some(p) = self.parent_name(a) {
            lines.push(fill(&w.parent, &[("parent", &p)]));
            lines.push(fill(
                &w.task,
                &[("task", a.task.lines().next().unwrap_or(""))],
            ));
        }
        lines.push(fill(&w.mode, &[("mode", a.mode.as_str())]));
        if !a.request.is_empty() {
            let kinds: Vec<&str> = a.request.iter().map(|k| k.as_str()).collect();
            lines.push(fill(&w.request, &[("kinds", &kinds.join(", "))]));
        }
        lines.push(fill(&w.model, &[("model", &a.model)]));
        let steps = self.steps.for_agent(is_lead);
        lines.push(fill(
            &w.limits,
            &[
                ("size", &self.size().to_string()),
                ("max", &self.max.to_string()),
                ("steps", &steps.to_string()),
                ("spawn", if is_lead { &w.spawn_yes } else { &w.spawn_no }),
            ],
        ));
        if let Some(c) = a.context.filter(|c| c.window > 0) {
            lines.push(fill(
                &w.context,
                &[
                    ("used", &c.used.to_string()),
                    ("window", &c.window.to_string()),
                    ("percent", &Self::percent(c.used, c.window).to_string()),
                ],
            ));
        }
        lines.join("\n")
    }

    /// Whether `by` may read `target`'s findings: its own, one in its subtree (ended ones by where
    /// they were), or the main agent anyone's.
    fn may_read(&self, by: &str, target: &Agent) -> bool {
        let Some(me) = self.live(by) else {
            return false;
        };
        if me.parent.is_none() || target.id == me.id {
            return true;
        }
        let mut up = target.moved_from.clone().or(target.parent.clone());
        let mut guard = 0;
        while let Some(id) = up {
            if id == me.id {
                return true;
            }
            up = self.by_id(&id).and_then(|a| a.parent.clone());
            guard += 1;
            if guard > self.agents.len() {
                break;
            }
        }
        false
    }

    /// team_findings read (§8).
    pub fn read_findings(&self, by: &str, of: Option<&str>) -> String {
        let texts = &team_spec().texts;
        let target = match of {
            Some(x) => self.find(x),
            None => self.live(by),
        };
        let Some(target) = target else {
            return fill(
                &texts.unknown,
                &[("name", of.unwrap_or(by)), ("names", &self.names())],
            );
        };
        if !self.may_read(by, target) {
            return texts.not_yours_findings.to_string();
        }
        let f = &team_spec().findings;
        let mut lines = vec![fill(
            &f.header,
            &[("name", &target.name), ("id", &target.id)],
        )];
        if target.findings.is_empty() {
            lines.push(texts.no_findings.to_string());
        }
        for x in &target.findings {
            lines.push(fill(&f.item, &[("n", &x.n.to_string()), ("text", &x.text)]));
        }
        lines.join("\n")
    }
}
