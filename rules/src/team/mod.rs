//! The main agent's tree of subagents (subagents.md §5–§13, spec 3.4.0, on team.md 3.2.0's room,
//! size and capacity), as a pure state machine: no clock (the time comes in with [`Team::set_now`]
//! before a call), no I/O. A shell drives it from real turns — it tells the team when a turn
//! ends, when a context fills, what the person does — and reads back whose turn starts with what
//! ([`Team::take_started`]) and what reached whom ([`Team::take_delivered`]).
//!
//! - `mod.rs` — the agents and the tree;
//! - `life.rs` — turns and slots, the room and delivery, a subagent's life and ends;
//! - [`tools`] — the team tools, each with its refusals in the spec's order (`manage.rs`: the
//!   main agent's assign, replace and decide);
//! - [`view`] — what the tools and clients read: team_read, team_whoami, findings, the tree data.

mod life;
mod manage;
pub mod operation;
pub mod prompt;
pub mod tools;
pub mod view;

use crate::delegation::Grant;
use crate::permission::{Mode, RiskClass};
use crate::progress::Progress;
use crate::spec::{loop_spec, types::TeamSpec};
use crate::subagents::Capacity;

/// A subagent's state (team.read.states). The main agent is `working`, `waiting` or `idle`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentState {
    /// A turn runs.
    Working,
    /// It has work and waits for a slot of its model.
    Waiting,
    /// Its last turn ended with a final reply (its report); a message wakes it.
    Finished,
    /// The main agent between turns.
    Idle,
    /// Its context is full: its one final turn runs, and nothing new reaches it.
    Paused,
    /// Ended by team_finish.
    Done,
    /// Ended after its final turn.
    OutOfContext,
    /// Ended by team_stop, a replacement or the person.
    Stopped,
}

words!(AgentState {
    Working => "working",
    Waiting => "waiting",
    Finished => "finished",
    Idle => "idle",
    Paused => "paused",
    Done => "done",
    OutOfContext => "out_of_context",
    Stopped => "stopped",
});

impl AgentState {
    /// An end: the subagent has left the size and stays in the tree's `ended`.
    pub fn is_end(self) -> bool {
        match self {
            AgentState::Done | AgentState::OutOfContext | AgentState::Stopped => true,
            AgentState::Working
            | AgentState::Waiting
            | AgentState::Finished
            | AgentState::Idle
            | AgentState::Paused => false,
        }
    }

    /// A turn of it is running and holds a slot of its model.
    pub fn holds_slot(self) -> bool {
        match self {
            AgentState::Working | AgentState::Paused => true,
            AgentState::Waiting
            | AgentState::Finished
            | AgentState::Idle
            | AgentState::Done
            | AgentState::OutOfContext
            | AgentState::Stopped => false,
        }
    }

    /// Its word (team.read.states).
    pub fn word(self) -> &'static str {
        let s = &loop_spec().team.read.states;
        match self {
            AgentState::Working => &s.working,
            AgentState::Waiting => &s.waiting,
            AgentState::Finished => &s.finished,
            AgentState::Idle => &s.idle,
            AgentState::Paused => &s.paused,
            AgentState::Done => &s.done,
            AgentState::OutOfContext => &s.out_of_context,
            AgentState::Stopped => &s.stopped,
        }
    }
}

/// A finding kept beyond an agent's context (team_findings write).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Its number, from 1, per agent.
    pub n: u32,
    /// What it says.
    pub text: String,
    /// When it was written (Unix ms).
    pub time: i64,
}

/// The main agent (`lead`) or a subagent.
#[derive(Debug, Clone, PartialEq)]
pub struct Agent {
    /// `lead`, or `s1`, `s2`, … in the order added, never reused.
    pub(crate) id: String,
    pub(crate) name: String,
    /// Its position, one line (team_add's `role`).
    pub(crate) position: String,
    pub(crate) task: String,
    pub(crate) mode: Mode,
    pub(crate) request: Vec<RiskClass>,
    pub(crate) grants: Vec<Grant>,
    pub(crate) findings: Vec<Finding>,
    /// Tokens in its context now, of its model's window.
    pub(crate) context: Option<view::ContextUse>,
    pub(crate) progress: Option<Progress>,
    /// Its parent's id; none for the main agent.
    pub(crate) parent: Option<String>,
    /// The main agent, or a sub-manager (added with `lead: true`).
    pub(crate) manager: bool,
    pub(crate) goal: String,
    pub(crate) model: String,
    /// Which kind of agent it is (team_add's `agent`: `general` unless said).
    pub(crate) agent_kind: String,
    pub(crate) state: AgentState,
    /// Messages that wait for its next turn.
    pub(crate) inbox: Vec<String>,
    /// What its next turn starts with, when it is waiting for a slot with work given.
    pub(crate) brief: Option<String>,
    /// When its last turn ended.
    pub(crate) last_ended: Option<i64>,
    /// When it ended (an end state).
    pub(crate) ended_at: Option<i64>,
    /// The sub-manager it was under before that one ended by itself (a replacement takes it back).
    pub(crate) moved_from: Option<String>,
    /// When it began to wait for a slot (the order slots are given in).
    pub(crate) wait_since: Option<u64>,
    /// Room messages from it or to it (kept as they are posted: the room is never scanned).
    pub(crate) messages: u64,
}

impl Agent {
    /// Its id: `lead`, or `s1`, `s2`, … in the order added.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its parent's id; none for the main agent.
    pub fn parent_id(&self) -> Option<&str> {
        self.parent.as_deref()
    }

    /// Its state.
    pub fn state(&self) -> AgentState {
        self.state
    }

    /// The served id of the model it runs on.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Its mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Its request options (subagents.md §7).
    pub fn request(&self) -> &[RiskClass] {
        &self.request
    }

    /// The grants the main agent gave it (team_decide).
    pub fn grants(&self) -> &[Grant] {
        &self.grants
    }

    /// Its position, one line.
    pub fn position(&self) -> &str {
        &self.position
    }

    /// Its findings, kept beyond its context (team_findings).
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// Its progress, as its engine last said it.
    pub fn progress(&self) -> Option<&Progress> {
        self.progress.as_ref()
    }

    /// A new agent's state: between turns, with no findings, grants, context or messages yet.
    pub fn blank(id: String, name: &str, model: &str, mode: Mode) -> Agent {
        Agent {
            id,
            name: name.to_string(),
            position: String::new(),
            task: String::new(),
            mode,
            request: Vec::new(),
            grants: Vec::new(),
            findings: Vec::new(),
            context: None,
            progress: None,
            parent: None,
            manager: false,
            goal: String::new(),
            model: model.to_string(),
            agent_kind: String::new(),
            state: AgentState::Finished,
            inbox: Vec::new(),
            brief: None,
            last_ended: None,
            ended_at: None,
            moved_from: None,
            wait_since: None,
            messages: 0,
        }
    }
}

/// What a room message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoomKind {
    /// team_send's.
    Message,
    /// A subagent's final reply, or team_finish's report, to its parent.
    Report,
    /// team_assign's new task.
    Assignment,
    /// team_request's request to the main agent.
    Request,
    /// team_decide's answer to a request.
    Decision,
}

words!(RoomKind {
    Message => "message",
    Report => "report",
    Assignment => "assignment",
    Request => "request",
    Decision => "decision",
});

/// A message of the room, numbered from 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoomMessage {
    /// Its number in the room.
    pub n: u64,
    /// Who posted it (a name).
    pub from: String,
    /// As addressed (`all`, names).
    pub to: Vec<String>,
    /// Who it was posted to (names).
    pub recipients: Vec<String>,
    /// What it says.
    pub text: String,
    /// When it was posted (Unix ms).
    pub time: i64,
    /// What it is.
    pub kind: RoomKind,
}

/// A subagent's request to the main agent (team_request), open until decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenRequest {
    /// Its id (`r1`, `r2`, …).
    pub id: String,
    /// The asking subagent's id.
    pub from: String,
    /// The tool it asks for.
    pub tool: String,
    /// The pattern it asks for.
    pub pattern: String,
    /// Why, in the subagent's words.
    pub why: String,
    /// Whether it waits for team_decide.
    pub open: bool,
}

/// How a team starts (the team area's `start`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamOptions {
    /// The fewest agents the main agent is asked to work with (the main agent included).
    pub min: u32,
    /// The most agents there may be (the main agent included).
    pub max: u32,
    /// The Subagents setting is on (default).
    pub subagents: bool,
    /// The session model's capacity.
    pub capacity: Capacity,
    /// The session's model (its served id).
    pub model: String,
    /// The main agent's mode.
    pub mode: Mode,
    /// Steps a turn may take: the main agent's, a subagent's.
    pub steps: Steps,
    /// The clock (Unix ms).
    pub now: i64,
}

/// The most steps one turn may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Steps {
    /// A turn of the main agent.
    pub main: u32,
    /// A turn of a subagent.
    pub subagent: u32,
}

impl Steps {
    /// The steps a turn of this agent may take: the main agent's or a subagent's.
    pub fn for_agent(self, is_main: bool) -> u32 {
        if is_main {
            self.main
        } else {
            self.subagent
        }
    }
}

impl Default for TeamOptions {
    fn default() -> Self {
        let a = &loop_spec().team.agents;
        TeamOptions {
            min: a.min,
            max: a.max,
            subagents: true,
            capacity: Capacity::default(),
            model: "m".into(),
            mode: Mode::Edit,
            steps: Steps {
                main: 200,
                subagent: 50,
            },
            now: 0,
        }
    }
}

/// A text that reached an agent (a message, a report, a notice), or the text its turn started
/// with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The agent's name.
    pub to: String,
    /// The text, as the agent reads it.
    pub text: String,
}

impl Delivery {
    /// `text` for the agent named `to`.
    pub fn new(to: &str, text: String) -> Delivery {
        Delivery {
            to: to.to_string(),
            text,
        }
    }
}

/// The main agent and its subagents, their room, their requests.
#[derive(Debug, Clone, PartialEq)]
pub struct Team {
    pub(crate) min: u32,
    pub(crate) max: u32,
    pub(crate) cap: u32,
    pub(crate) subagents: bool,
    /// Whether the team tools are offered (fixed when the prompt is made).
    pub(crate) offered: bool,
    pub(crate) capacity: Capacity,
    pub(crate) model: String,
    pub(crate) steps: Steps,
    pub(crate) now: i64,
    /// Every agent ever, the main agent first, in the order added; ended ones stay.
    pub(crate) agents: Vec<Agent>,
    pub(crate) room: Vec<RoomMessage>,
    pub(crate) requests: Vec<OpenRequest>,
    /// Subagents that ended, in the order they ended (ids).
    pub(crate) ended: Vec<String>,
    /// `task` subagents running (they count toward the size).
    pub(crate) tasks: u32,
    /// What reached whom since it was last taken.
    pub(crate) delivered: Vec<Delivery>,
    /// Turns that started since last taken: whose, and the text each started with.
    pub(crate) started: Vec<Delivery>,
    /// What each agent's latest turn was started with.
    pub(crate) last_started: Vec<Delivery>,
    /// The Subagents setting changed since the main agent was told it.
    pub(crate) setting_changed: bool,
    id_seq: u64,
    req_seq: u64,
    wait_seq: u64,
}

pub(crate) fn team_spec() -> &'static TeamSpec {
    &loop_spec().team
}

/// The main agent's name and id.
pub fn lead() -> &'static str {
    &team_spec().names.lead
}

impl Team {
    /// A team as `options` say: the main agent alone, working.
    pub fn new(options: &TeamOptions) -> Team {
        let spec = team_spec();
        let lead_agent = Agent {
            position: spec.read.lead_role.to_string(),
            manager: true,
            state: AgentState::Working,
            ..Agent::blank(lead().to_string(), lead(), &options.model, options.mode)
        };
        let mut team = Team {
            min: 1,
            max: 1,
            cap: spec.agents.cap,
            subagents: options.subagents,
            offered: false,
            capacity: options.capacity.clone(),
            model: options.model.clone(),
            steps: options.steps,
            now: options.now,
            agents: vec![lead_agent],
            room: Vec::new(),
            requests: Vec::new(),
            ended: Vec::new(),
            tasks: 0,
            delivered: Vec::new(),
            started: Vec::new(),
            last_started: Vec::new(),
            setting_changed: false,
            id_seq: 0,
            req_seq: 0,
            wait_seq: 0,
        };
        team.set_setting(options.min, options.max);
        team.fix_offer();
        team
    }

    /// Why a Subagents setting `{min, max}` cannot be a team's (team.md §2: 1 ≤ min ≤ max): the
    /// case reader and the package refuse such a setting where a person's is lowered.
    pub fn impossible_setting(min: u32, max: u32) -> Option<String> {
        if min == 0 {
            Some("min: a team has at least 1 agent (the main agent)".into())
        } else if max == 0 {
            Some("max: a team has at least 1 agent (the main agent)".into())
        } else if min > max {
            Some(format!("min: {min} is more than max {max}"))
        } else {
            None
        }
    }

    /// The Subagents setting `{min, max}`, read as team.md §2 says: 1 ≤ min ≤ max ≤ cap (lowered,
    /// never refused).
    pub fn set_setting(&mut self, min: u32, max: u32) {
        let max = max.clamp(1, self.cap.max(1));
        self.max = max;
        self.min = min.clamp(1, max);
    }

    /// Decides whether the team tools are offered (when the prompt is made): the setting is on
    /// and the session's model can serve its own subagents (subagents.md §4).
    pub fn fix_offer(&mut self) {
        self.offered = self.subagents && !self.capacity.one_at_a_time();
    }

    /// Every agent ever, the main agent first, in the order added; ended ones stay.
    pub fn agents(&self) -> &[Agent] {
        &self.agents
    }

    /// The room's messages, oldest first.
    pub fn room(&self) -> &[RoomMessage] {
        &self.room
    }

    /// The steps a turn may take: the main agent's, a subagent's.
    pub fn steps(&self) -> Steps {
        self.steps
    }

    /// Whether the team tools are offered (fixed when the prompt is made).
    pub fn tools_offered(&self) -> bool {
        self.offered
    }

    /// Moves the team's clock to `now` (Unix ms).
    pub fn set_now(&mut self, now: i64) {
        self.now = now;
    }

    // ── lookups ─────────────────────────────────────────────────────────────────

    /// A live agent (not ended) by name.
    pub fn live(&self, name: &str) -> Option<&Agent> {
        self.agents
            .iter()
            .find(|a| a.name == name && !a.state.is_end())
    }

    pub(crate) fn live_mut(&mut self, name: &str) -> Option<&mut Agent> {
        self.agents
            .iter_mut()
            .find(|a| a.name == name && !a.state.is_end())
    }

    /// An agent by id, ended or not.
    pub fn by_id(&self, id: &str) -> Option<&Agent> {
        self.agents.iter().find(|a| a.id == id)
    }

    pub(crate) fn by_id_mut(&mut self, id: &str) -> Option<&mut Agent> {
        self.agents.iter_mut().find(|a| a.id == id)
    }

    /// An agent by name (live first, else the latest that ended with it) or by id.
    pub fn find(&self, name_or_id: &str) -> Option<&Agent> {
        self.live(name_or_id)
            .or_else(|| self.by_id(name_or_id))
            .or_else(|| self.agents.iter().rev().find(|a| a.name == name_or_id))
    }

    /// The modes a live agent's commands run under: its own, then its parent's, up to the main
    /// agent's (the sandbox narrows its policy by each: `permission::sandbox::Policy::of_chain`).
    /// Empty for an agent that is not live.
    pub fn mode_chain(&self, name: &str) -> Vec<Mode> {
        let mut out = Vec::new();
        let mut at = self.live(name);
        while let Some(agent) = at {
            if out.len() > self.agents.len() {
                break;
            }
            out.push(agent.mode());
            at = agent.parent.as_deref().and_then(|p| self.by_id(p));
        }
        out
    }

    /// The main agent.
    pub fn lead(&self) -> Option<&Agent> {
        self.agents.first()
    }

    /// A live agent's parent's name.
    pub fn parent_name(&self, a: &Agent) -> Option<String> {
        a.parent
            .as_deref()
            .and_then(|p| self.by_id(p))
            .map(|p| p.name.clone())
    }

    /// The live agents in tree order: an agent, then its subagents in the order added, depth first.
    pub fn tree(&self) -> Vec<&Agent> {
        let mut out = Vec::new();
        let mut stack: Vec<(&Agent, usize)> = Vec::new();
        if let Some(l) = self.lead() {
            stack.push((l, 0));
        }
        while let Some((a, depth)) = stack.pop() {
            out.push(a);
            let children: Vec<&Agent> = self
                .agents
                .iter()
                .filter(|c| !c.state.is_end() && c.parent.as_deref() == Some(a.id.as_str()))
                .collect();
            for c in children.into_iter().rev() {
                stack.push((c, depth + 1));
            }
            if out.len() > self.agents.len() {
                break;
            }
        }
        out
    }

    /// How deep a live agent is below the main agent.
    pub fn depth(&self, a: &Agent) -> usize {
        let mut depth = 0;
        let mut up = a.parent.as_deref();
        while let Some(id) = up {
            depth += 1;
            up = self.by_id(id).and_then(|p| p.parent.as_deref());
            if depth > self.agents.len() {
                break;
            }
        }
        depth
    }

    /// An agent and every live agent under it (ids), in tree order.
    pub fn subtree(&self, id: &str) -> Vec<String> {
        self.tree()
            .into_iter()
            .filter(|a| {
                let mut up = Some(a.id.as_str());
                let mut guard = 0;
                while let Some(x) = up {
                    if x == id {
                        return true;
                    }
                    up = self.by_id(x).and_then(|p| p.parent.as_deref());
                    guard += 1;
                    if guard > self.agents.len() {
                        break;
                    }
                }
                false
            })
            .map(|a| a.id.clone())
            .collect()
    }

    /// Live subagents.
    pub fn live_subagents(&self) -> usize {
        self.agents
            .iter()
            .filter(|a| a.parent.is_some() && !a.state.is_end())
            .count()
    }

    /// The team's size (team.md §3): the main agent, its live subagents and running tasks.
    pub fn size(&self) -> u32 {
        1 + u32::try_from(self.live_subagents()).unwrap_or(u32::MAX) + self.tasks
    }

    /// Open slots (§6): `max(0, min − 1 − live subagents)` while offered.
    pub fn open_slots(&self) -> u32 {
        if !self.offered || self.min < 2 {
            return 0;
        }
        (self.min - 1).saturating_sub(u32::try_from(self.live_subagents()).unwrap_or(u32::MAX))
    }

    /// The live agents' names, in tree order, joined (for `unknown`).
    pub fn names(&self) -> String {
        self.tree()
            .iter()
            .map(|a| a.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether an agent manages: the main agent once it has a subagent or open slots, and a
    /// sub-manager always (team.md §6).
    pub fn is_manager(&self, name: &str) -> bool {
        match self.live(name) {
            Some(a) if a.parent.is_none() => self.live_subagents() > 0 || self.open_slots() > 0,
            Some(a) => a.manager,
            None => false,
        }
    }

    /// What a team tool answers while the team cannot be had now (team.md §2): the person allows
    /// one agent and there is no subagent; or the model can no longer serve subagents.
    pub fn unavailable(&self) -> Option<String> {
        if !self.offered || (self.max <= 1 && self.live_subagents() == 0) {
            return Some(team_spec().unavailable.one_agent.to_string());
        }
        if self.capacity.one_at_a_time() {
            return Some(team_spec().unavailable.one_request.to_string());
        }
        None
    }

    pub(crate) fn next_id(&mut self) -> String {
        self.id_seq += 1;
        format!("{}{}", team_spec().names.id_prefix, self.id_seq)
    }

    pub(crate) fn next_request_id(&mut self) -> String {
        self.req_seq += 1;
        crate::delegation::request_id(self.req_seq)
    }
}

#[cfg(test)]
mod tests;
