//! The tree at work (subagents.md §5–§13; team.md §5–§8): the rules' [`Team`] driven by real
//! turns. The rules decide everything — who is added, whose turn starts with what, what reaches
//! whom, who decides a call, when a context is full — and this shell does the I/O: every change
//! is an operation the team applies ([`Team::apply`]); each agent is an [`Engine`] in its own
//! tokio task with its own conversation; a turn the rules start is sent
//! to its task; a text delivered while it works goes to its next step; a subagent that ends is
//! stopped with its running commands. The tree's state goes out at most four times a second, the
//! last state always.

use crate::engine::{now_ms, Asker, Engine, EngineError, Placement, Transcript, Tree, TurnEnd};
use crate::events::{AgentRef, SessionEvent};
use crate::provider::client::Provider;
use crate::tools::Workspace;
use lembas_rules::delegation::{who_decides, Subagent, Verdict};
use lembas_rules::input::InputError;
use lembas_rules::permission::{Context, Mode, Request};
use lembas_rules::progress::{advance, Phase, StopReason, WaitReason};
use lembas_rules::spec::loop_spec;
use lembas_rules::team::operation::{Deliveries, Operation, TeamAnswer, TeamStep, TurnEndReason};
use lembas_rules::team::view::TreeInfo;
use lembas_rules::team::Delivery;
use lembas_rules::team::{lead, AgentState, Team, TeamOptions};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

/// How often the tree's state may go out: four times a second.
pub const TEAM_EVERY: Duration = Duration::from_millis(250);

/// What every agent's engine is made with.
pub struct Setup {
    pub provider: Provider,
    pub workspace: Workspace,
    pub permissions: Arc<Mutex<Context>>,
    pub asker: Arc<dyn Asker>,
    /// The models' context window in tokens, when known.
    pub window: Option<u64>,
    /// This project's own system prompt, before the spec's blocks.
    pub system: String,
    /// The session's plan, kept by the main agent's engine.
    pub plan: crate::engine::PlanDesk,
    /// Where the session is kept, and the conversation it goes on from.
    pub keeping: Keeping,
    /// Keeps approvals given "always in this project" (none: they cannot be kept).
    pub remember: Option<crate::engine::Remember>,
}

/// A session's record: the store it is kept in as it goes (none: it is not kept), and the main
/// agent's conversation it goes on from (a resumed session's).
#[derive(Default)]
pub struct Keeping {
    /// The main agent's earlier conversation, for its first turn.
    pub history: Mutex<Vec<crate::provider::chat::Message>>,
    /// The stored session, written as it goes.
    pub kept: Mutex<Option<crate::store::Kept>>,
    /// Keeping it failed once, and was said.
    pub failed: AtomicBool,
}

/// How the session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionEnd {
    /// The main agent's turn ended, no subagent works and no report waits to wake it.
    Finished,
    /// The main agent's turn failed.
    Failed(String),
}

/// An agent at work: the task that runs its engine's turns, and what waits for its next step.
struct AgentTask {
    agent: AgentRef,
    /// Texts that reached it during its turn, for its next step.
    inbox: Vec<String>,
    running: bool,
    tx: mpsc::UnboundedSender<String>,
    /// Stops its running turn (the engine and its conversation stay).
    stop: watch::Sender<u64>,
    handle: JoinHandle<()>,
}

struct Inner {
    team: Team,
    /// By agent id.
    tasks: BTreeMap<String, AgentTask>,
    /// Agents told they wait for a slot.
    waiting: Vec<String>,
    dirty: bool,
    failed: Option<String>,
    /// The main agent's latest turn failed because the server wants a key it takes.
    failed_for_key: bool,
    /// What a stop told the main agent, for its next turn.
    for_lead: Vec<String>,
    /// The person stopped the current turn.
    stopped: bool,
    /// The main agent's latest turn ran out of its steps.
    lead_out_of_steps: bool,
    /// Every agent's conversation, by id, ended ones too (read-only transcripts).
    transcripts: BTreeMap<String, Transcript>,
    /// The mode the session had when it went into plan mode (to go back to when the plan is
    /// approved).
    before_plan: Option<lembas_rules::permission::Mode>,
}

/// The tree at work: the rules' team, each agent's task, and where the events go.
pub struct Crew {
    setup: Setup,
    inner: Mutex<Inner>,
    out: mpsc::UnboundedSender<SessionEvent>,
    quiet: watch::Sender<bool>,
    /// Itself, for the tasks it starts (an engine's calls come in by reference).
    me: Weak<Crew>,
    /// Events sent so far (a front that shows them can tell when it has caught up).
    sent: AtomicU64,
}

impl Inner {
    /// Does an operation now; the answer, or the error its input made.
    fn apply(&mut self, operation: Operation) -> Result<TeamAnswer, InputError> {
        self.team.apply(&TeamStep::untimed(operation))
    }

    /// The agent `name` is, by id and name.
    fn agent(&self, name: &str) -> AgentRef {
        match self.team.find(name) {
            Some(a) => AgentRef {
                id: a.id().to_string(),
                name: a.name().to_string(),
            },
            None => AgentRef {
                id: name.to_string(),
                name: name.to_string(),
            },
        }
    }
}

impl Crew {
    /// A tree for a session with these options; what it says goes to `out`.
    pub fn new(
        setup: Setup,
        options: &TeamOptions,
        out: mpsc::UnboundedSender<SessionEvent>,
    ) -> Arc<Crew> {
        let crew = Arc::new_cyclic(|me| Crew {
            me: me.clone(),
            sent: AtomicU64::new(0),
            setup,
            inner: Mutex::new(Inner {
                team: Team::new(options),
                tasks: BTreeMap::new(),
                waiting: Vec::new(),
                dirty: true,
                failed: None,
                failed_for_key: false,
                for_lead: Vec::new(),
                stopped: false,
                lead_out_of_steps: false,
                transcripts: BTreeMap::new(),
                before_plan: None,
            }),
            out,
            quiet: watch::Sender::new(true),
        });
        let weak = Arc::downgrade(&crew);
        tokio::spawn(tick(weak));
        crew
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.team.set_now(now_ms());
        inner
    }

    fn send_out(&self, out: SessionEvent) {
        if self.out.send(out).is_ok() {
            self.sent.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// How many events it has sent so far.
    pub fn events_sent(&self) -> u64 {
        self.sent.load(Ordering::SeqCst)
    }

    /// The person's prompt: the main agent's next turn on the same conversation (its first starts
    /// its task). The session is busy until the tree is quiet again ([`Crew::finished`]).
    pub fn prompt(&self, text: &str) {
        let mut inner = self.lock();
        inner.failed = None;
        inner.failed_for_key = false;
        inner.stopped = false;
        inner.lead_out_of_steps = false;
        self.quiet.send_replace(false);
        let lead_id = lead().to_string();
        if !inner.tasks.contains_key(&lead_id) {
            self.start_agent(&mut inner, &lead_id, lead(), text.to_string());
            return;
        }
        let prompt = Operation::Prompt {
            text: text.to_string(),
        };
        if let Ok(TeamAnswer::Prompted { delivered, started }) = inner.apply(prompt) {
            self.dispatch(&mut inner, None, delivered, started);
        }
        self.settle(inner);
    }

    /// Waits until the session is over.
    pub async fn finished(&self) -> SessionEnd {
        let mut rx = self.quiet.subscribe();
        let _ = rx.wait_for(|q| *q).await;
        match self.lock().failed.clone() {
            Some(e) => SessionEnd::Failed(e),
            None => SessionEnd::Finished,
        }
    }

    /// The tree's state now.
    pub fn tree(&self) -> TreeInfo {
        self.lock().team.info()
    }

    /// The tree as team_read writes it (what a terminal draws).
    pub fn tree_lines(&self) -> Vec<String> {
        self.lock().team.tree_lines()
    }

    /// Sends the tree's state if it changed since it was last sent.
    pub fn send_tree(&self) {
        let info = {
            let mut inner = self.lock();
            if !inner.dirty {
                return;
            }
            inner.dirty = false;
            inner.team.info()
        };
        self.send_out(SessionEvent::Team { tree: info });
    }

    /// The person stops the turn (Ctrl-C): every subagent is stopped with its subtree
    /// (subagents.md §10) and its task ends; the main agent's running turn stops, its
    /// conversation kept for the next prompt, which also brings it the note of who was stopped.
    pub fn stop_turn(&self) {
        let mut inner = self.lock();
        inner.stopped = true;
        self.stop_subagents(&mut inner);
        let lead_running = match inner.tasks.get(lead()) {
            Some(task) if task.running => {
                task.stop.send_modify(|n| *n += 1);
                true
            }
            _ => false,
        };
        if !lead_running {
            let notes = std::mem::take(&mut inner.for_lead);
            inner.team.keep_for_next_turn(lead(), notes);
        }
        inner.dirty = true;
        drop(inner);
        self.send_tree();
        if !lead_running {
            self.quiet.send_replace(true);
        }
    }

    /// Every subagent stopped with its subtree, their tasks ended; the notes for the main agent
    /// kept for it.
    fn stop_subagents(&self, inner: &mut Inner) {
        let children: Vec<String> = inner
            .team
            .tree()
            .iter()
            .filter(|a| a.parent_id() == Some(lead()))
            .map(|a| a.name().to_string())
            .collect();
        for name in children {
            if let Ok(TeamAnswer::PersonStopped { delivered, .. }) =
                inner.apply(Operation::PersonStop { name })
            {
                let notes = delivered.into_iter().filter(|d| d.to == lead());
                inner.for_lead.extend(notes.map(|d| d.text));
            }
        }
        let ended: Vec<String> = inner
            .tasks
            .keys()
            .filter(|id| id.as_str() != lead())
            .cloned()
            .collect();
        for id in ended {
            if let Some(task) = inner.tasks.remove(&id) {
                task.handle.abort();
                self.stopped(task.agent);
            }
        }
        inner.waiting.clear();
    }

    /// Says an agent's turn was stopped by the person.
    fn stopped(&self, agent: AgentRef) {
        let stopped = Phase::Stopped {
            reason: Some(StopReason::Person),
        };
        self.send_out(SessionEvent::Phase {
            agent,
            progress: Some(advance(None, stopped, now_ms())),
        });
    }

    /// The main agent's turn, stopped from outside, is over: it rests, and what the stop told it
    /// waits for its next turn.
    fn turn_stopped(&self, id: &str, name: &str) {
        let mut inner = self.lock();
        if let Some(task) = inner.tasks.get_mut(id) {
            task.running = false;
            task.inbox.clear();
        }
        let _ = inner.apply(Operation::EndTurn {
            by: name.to_string(),
            reply: String::new(),
            reason: TurnEndReason::Stopped(StopReason::Person),
        });
        let notes = std::mem::take(&mut inner.for_lead);
        inner.team.keep_for_next_turn(name, notes);
        let agent = inner.agent(name);
        inner.dirty = true;
        drop(inner);
        self.stopped(agent);
        self.send_tree();
        self.quiet.send_replace(true);
    }

    /// An agent's conversation by id, live or ended; none for an id the session never had.
    pub fn transcript(&self, id: &str) -> Option<Transcript> {
        self.lock().transcripts.get(id).cloned()
    }

    /// A subagent's findings by id, live or ended; none for an id the session never had.
    pub fn findings(&self, id: &str) -> Option<Vec<lembas_rules::team::Finding>> {
        let inner = self.lock();
        inner
            .team
            .by_id(id)
            .filter(|a| a.parent_id().is_some())
            .map(|a| a.findings().to_vec())
    }

    /// The room's messages numbered above `since`, every one (the person sees the whole room).
    pub fn room(&self, since: u64) -> Vec<lembas_rules::team::RoomMessage> {
        let inner = self.lock();
        inner
            .team
            .room()
            .iter()
            .filter(|m| m.n > since)
            .cloned()
            .collect()
    }

    /// The main agent's progress now.
    pub fn lead_progress(&self) -> Option<lembas_rules::progress::Progress> {
        let inner = self.lock();
        inner.team.lead().and_then(|a| a.progress().cloned())
    }

    /// Whether a turn runs or a subagent works.
    pub fn busy(&self) -> bool {
        !*self.quiet.borrow()
    }

    /// The person stops a live subagent by id with its subtree: the ids stopped; none when the
    /// id is no live subagent.
    pub fn stop_by_id(&self, id: &str) -> Option<Vec<String>> {
        let name = {
            let inner = self.lock();
            let a = inner.team.by_id(id)?;
            if a.parent_id().is_none() || a.state().is_end() {
                return None;
            }
            a.name().to_string()
        };
        Some(self.stop_agent(&name))
    }

    /// Whether the main agent's latest turn ran out of its steps.
    pub fn lead_out_of_steps(&self) -> bool {
        self.lock().lead_out_of_steps
    }

    /// Whether the main agent's latest turn failed because the server refused its key (a 401 or
    /// a 403): an editor asks the person to authenticate.
    pub fn failed_for_key(&self) -> bool {
        self.lock().failed_for_key
    }

    /// A file the person attached to a prompt, read as the rules allow a read of its path
    /// without asking; otherwise why not (the model may still read it with the read tool, which
    /// asks).
    pub fn read_attached(&self, path: &str) -> crate::prompt::Attached {
        use crate::prompt::Attached;
        let workspace = &self.setup.workspace;
        let abs = match workspace.path(path) {
            Ok(abs) => abs,
            Err(e) => return Attached::NotRead(e.to_string()),
        };
        let Some(request) = Request::tool(
            "read",
            lembas_rules::permission::Target::Path(abs.to_string_lossy().into_owned()),
        ) else {
            return Attached::NotRead("there is no read tool".into());
        };
        let permissions = self
            .setup
            .permissions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let decision = lembas_rules::permission::evaluate(&request, &permissions);
        if decision.action != lembas_rules::permission::Action::Allow {
            return Attached::NotRead(decision.reason.into_owned());
        }
        match workspace.peek(&abs) {
            Some(text) => Attached::Read(crate::tools::bounded(&text, crate::tools::OUTPUT_MAX)),
            None => Attached::NotRead("it cannot be read as text".into()),
        }
    }

    /// Whether the person stopped the latest turn.
    pub fn was_stopped(&self) -> bool {
        self.lock().stopped
    }

    /// The served id of the session's model (the main agent's).
    pub fn model(&self) -> String {
        let inner = self.lock();
        inner
            .team
            .lead()
            .map(|a| a.model().to_string())
            .unwrap_or_default()
    }

    /// The main agent's mode now.
    pub fn mode(&self) -> lembas_rules::permission::Mode {
        self.setup
            .permissions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .mode
    }

    /// The person changes the main agent's mode between turns: the session's permissions, and
    /// every subagent looser than it made as strict (subagents.md §7). Refused, with why, where
    /// the mode needs a sandbox this machine does not have (auto without Landlock).
    pub fn set_mode(&self, mode: lembas_rules::permission::Mode) -> Result<(), String> {
        if let Some(why) = self.setup.workspace.sandbox_refuses(mode) {
            return Err(why);
        }
        let mut inner = self.lock();
        let _ = inner.apply(Operation::MainMode { mode });
        let mut permissions = self
            .setup
            .permissions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if mode == Mode::Plan && permissions.mode != Mode::Plan {
            inner.before_plan = Some(permissions.mode);
        }
        permissions.mode = mode;
        inner.dirty = true;
        drop(permissions);
        drop(inner);
        self.record();
        Ok(())
    }

    /// Keeps what changed of the session in its store: the main agent's new messages, its mode,
    /// approvals, plan and tree. Said once when it cannot be kept; the session goes on.
    pub fn record(&self) {
        let mut kept = self
            .setup
            .keeping
            .kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let Some(kept) = kept.as_mut() else {
            return;
        };
        let (transcript, tree, before_plan) = {
            let inner = self.lock();
            let tree = inner.team.info();
            let has_subagents = tree.agents.len() > 1 || !tree.ended.is_empty();
            (
                inner.transcripts.get(lead()).cloned(),
                has_subagents.then(|| lembas_rules::json::ToJson::to_json(&tree)),
                inner.before_plan,
            )
        };
        // A conversation being written is read at the next change.
        let conversation = match transcript {
            Some(t) => match t.try_read() {
                Ok(messages) => messages.clone(),
                Err(_) => return,
            },
            None => Vec::new(),
        };
        let (mode, approvals) = {
            let p = self
                .setup
                .permissions
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            (p.mode, p.approvals.clone())
        };
        let plan = self
            .setup
            .plan
            .plan
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let state = crate::store::State {
            mode,
            approvals,
            plan,
            before_plan,
            tree,
        };
        if let Err(e) = kept.record(now_ms(), &conversation, &state) {
            if !self.setup.keeping.failed.swap(true, Ordering::SeqCst) {
                eprintln!("lembas: the session is not kept: {e}");
            }
        }
    }

    /// The person picks another model for the main agent, from its next step on: the session's
    /// model (a subagent named no model runs on it).
    pub fn set_model(&self, model: &str) {
        let mut inner = self.lock();
        let _ = inner.apply(Operation::Model {
            model: model.to_string(),
        });
        inner.dirty = true;
    }

    /// The models the session's server serves, when it says.
    pub async fn served_models(&self) -> Option<Vec<String>> {
        self.setup.provider.models().await
    }

    /// A resumed session's mode before plan mode, as it was kept.
    pub fn set_before_plan(&self, mode: Option<Mode>) {
        self.lock().before_plan = mode;
    }

    /// The plan is approved: the mode the session had before plan mode (edit when it started in
    /// plan), said to every front.
    pub fn leave_plan(&self) -> Result<Mode, String> {
        let back = self.lock().before_plan.take().unwrap_or(Mode::Edit);
        self.set_mode(back)?;
        Ok(back)
    }

    /// The person changes the Subagents setting between turns: told to the main agent with its
    /// next prompt.
    pub fn set_agents(&self, min: u32, max: u32) {
        let mut inner = self.lock();
        let _ = inner.apply(Operation::Agents { min, max });
        inner.dirty = true;
    }

    /// The person stops one subagent and its subtree (subagents.md §10): the ids stopped, none
    /// when `name` is no live subagent.
    pub fn stop_agent(&self, name: &str) -> Vec<String> {
        let mut inner = self.lock();
        let answer = inner.apply(Operation::PersonStop {
            name: name.to_string(),
        });
        let Ok(TeamAnswer::PersonStopped {
            stopped,
            delivered,
            started,
        }) = answer
        else {
            return Vec::new();
        };
        let lead_running = inner.tasks.get(lead()).is_some_and(|t| t.running);
        let (for_lead, others): (Vec<_>, Vec<_>) =
            delivered.into_iter().partition(|d| d.to == lead());
        if lead_running {
            self.dispatch(&mut inner, None, for_lead, started);
        } else {
            inner
                .team
                .keep_for_next_turn(lead(), for_lead.into_iter().map(|d| d.text).collect());
            self.dispatch(&mut inner, None, others, started);
        }
        for id in &stopped {
            if let Some(task) = inner.tasks.remove(id) {
                task.handle.abort();
                self.stopped(task.agent);
            }
        }
        self.settle(inner);
        stopped
    }

    /// Says the tree's state, and that it is quiet when no turn runs and nobody waits for a slot.
    fn settle(&self, inner: MutexGuard<'_, Inner>) {
        let quiet = inner.tasks.values().all(|s| !s.running)
            && !inner
                .team
                .agents()
                .iter()
                .any(|a| a.state() == AgentState::Waiting);
        drop(inner);
        self.send_tree();
        if quiet {
            self.quiet.send_replace(true);
        }
    }

    /// Ends every agent's task (the session is over), its last state kept.
    pub fn close(&self) {
        self.record();
        let tasks = std::mem::take(&mut self.lock().tasks);
        for (_, task) in tasks {
            task.handle.abort();
        }
    }

    // ── the runtime ─────────────────────────────────────────────────────────────

    /// What an engine said: its progress kept in the tree, everything passed on.
    fn on_agent_event(&self, event: SessionEvent) {
        if let SessionEvent::Phase { agent, progress } = &event {
            let mut inner = self.lock();
            inner.team.set_progress(&agent.name, progress.clone());
            inner.dirty = true;
        }
        let changed = matches!(
            &event,
            SessionEvent::ToolEnd { agent, .. } if agent.is_main()
        ) || matches!(event, SessionEvent::Plan { .. } | SessionEvent::Mode { .. });
        self.send_out(event);
        if changed {
            self.record();
        }
    }

    /// An agent's turn ended: the rules hear its reply (a subagent's is its report), and what
    /// that starts is started.
    fn turn_ended(&self, id: &str, name: &str, end: Result<TurnEnd, EngineError>) {
        let mut inner = self.lock();
        let untaken = match inner.tasks.get_mut(id) {
            Some(task) => {
                task.running = false;
                std::mem::take(&mut task.inbox)
            }
            None => Vec::new(),
        };
        inner.team.keep_for_next_turn(name, untaken);
        let is_lead = id == lead();
        let ended = match end {
            Ok(end) => {
                let ended = (!end.ended).then(|| Operation::EndTurn {
                    by: name.to_string(),
                    reply: end.reply.clone(),
                    reason: if end.stopped_at_limit {
                        TurnEndReason::Stopped(StopReason::Steps)
                    } else {
                        TurnEndReason::Replied
                    },
                });
                if is_lead {
                    inner.lead_out_of_steps = end.stopped_at_limit;
                    self.send_out(SessionEvent::Reply { text: end.reply });
                }
                ended
            }
            Err(e) => {
                let error = e.to_string();
                if is_lead {
                    inner.failed_for_key = matches!(
                        e,
                        EngineError::Provider(
                            crate::provider::client::ProviderError::Unauthorized { .. }
                        )
                    );
                }
                self.send_out(SessionEvent::Notice {
                    agent: inner.agent(name),
                    text: error.clone(),
                });
                if is_lead {
                    // The session goes on: its subagents stop, its conversation stays.
                    inner.failed = Some(error.clone());
                    self.stop_subagents(&mut inner);
                    let notes = std::mem::take(&mut inner.for_lead);
                    inner.team.keep_for_next_turn(lead(), notes);
                }
                Some(Operation::EndTurn {
                    by: name.to_string(),
                    reply: String::new(),
                    reason: TurnEndReason::Other(error),
                })
            }
        };
        let (delivered, started) = match ended.map(|op| inner.apply(op)) {
            Some(Ok(TeamAnswer::TurnEnded { delivered, started })) => (delivered, started),
            _ => (Vec::new(), Vec::new()),
        };
        self.dispatch(&mut inner, None, delivered, started);
        let working = inner
            .team
            .tree()
            .iter()
            .filter(|a| a.parent_id().is_some())
            .filter(|a| {
                matches!(
                    a.state(),
                    AgentState::Working | AgentState::Paused | AgentState::Waiting
                )
            })
            .count();
        let lead_rests = !inner.tasks.get(lead()).is_some_and(|s| s.running);
        if lead_rests && working > 0 {
            let phase = Phase::WaitingForSubagents {
                running: u64::try_from(working).unwrap_or(u64::MAX),
            };
            let progress = advance(None, phase, now_ms());
            inner.team.set_progress(lead(), Some(progress.clone()));
            self.send_out(SessionEvent::Phase {
                agent: AgentRef::main(),
                progress: Some(progress),
            });
        }
        self.settle(inner);
    }

    /// Carries out what the rules decided: texts delivered to working agents go to their next
    /// step; turns started go to their agents' tasks (a new subagent gets its task now); agents
    /// that ended lose their tasks — but `by`, which ends after its step.
    fn dispatch(
        &self,
        inner: &mut Inner,
        by: Option<&str>,
        delivered: Deliveries,
        started: Deliveries,
    ) {
        inner.dirty = true;
        for Delivery { to: name, text } in delivered {
            let id = inner.team.live(&name).map(|a| a.id().to_string());
            if let Some(task) = id.and_then(|id| inner.tasks.get_mut(&id)) {
                if task.running {
                    task.inbox.push(text);
                }
            }
        }
        for Delivery { to: name, text } in started {
            let Some(id) = inner.team.live(&name).map(|a| a.id().to_string()) else {
                continue;
            };
            inner.waiting.retain(|w| *w != id);
            match inner.tasks.get_mut(&id) {
                // A paused one's final turn: its notice is in its inbox already.
                Some(task) if task.running => {}
                Some(task) => {
                    task.running = true;
                    let _ = task.tx.send(text);
                }
                None => self.start_agent(inner, &id, &name, text),
            }
        }
        let ended: Vec<String> = inner
            .tasks
            .iter()
            .filter(|(id, s)| {
                inner.team.by_id(id).is_none_or(|a| a.state().is_end())
                    && Some(s.agent.name.as_str()) != by
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in ended {
            if let Some(task) = inner.tasks.remove(&id) {
                if task.running {
                    task.handle.abort();
                    self.send_out(SessionEvent::Phase {
                        agent: task.agent,
                        progress: None,
                    });
                }
            }
        }
        let waiting: Vec<(String, String, String)> = inner
            .team
            .agents()
            .iter()
            .filter(|a| {
                a.state() == AgentState::Waiting && !inner.waiting.iter().any(|w| w == a.id())
            })
            .map(|a| {
                (
                    a.id().to_string(),
                    a.name().to_string(),
                    a.model().to_string(),
                )
            })
            .collect();
        for (id, name, model) in waiting {
            let phase = Phase::WaitingForModel {
                model,
                reason: WaitReason::Slots,
            };
            let progress = advance(None, phase, now_ms());
            inner.team.set_progress(&name, Some(progress.clone()));
            inner.waiting.push(id.clone());
            self.send_out(SessionEvent::Phase {
                agent: AgentRef { id, name },
                progress: Some(progress),
            });
        }
    }

    /// A task for agent `id`, its first turn started with `text`.
    fn start_agent(&self, inner: &mut Inner, id: &str, name: &str, text: String) {
        let (Some(agent), Some(crew)) = (inner.team.by_id(id), self.me.upgrade()) else {
            return;
        };
        let s = &self.setup;
        let team = &inner.team;
        let mut system = vec![s.system.clone()];
        let max_steps = if agent.parent_id().is_none() {
            system.extend(team.lead_block());
            system.extend(team.notes());
            team.steps().main
        } else {
            system.extend(team.member_block(name, ""));
            team.steps().subagent
        };
        let me = AgentRef {
            id: id.to_string(),
            name: name.to_string(),
        };
        let mut engine = Engine::shared(
            s.provider.clone(),
            agent.model(),
            s.workspace.clone(),
            Arc::clone(&s.permissions),
            Arc::clone(&s.asker),
        )
        .remembering(s.remember.clone())
        .placed(Placement {
            agent: me.clone(),
            system: system.join("\n\n"),
            max_steps,
            window: s.window,
            tree: Arc::clone(&crew) as Arc<dyn Tree>,
        });
        if agent.parent_id().is_none() {
            engine = engine.with_plan(s.plan.clone());
            let history = std::mem::take(
                &mut *s
                    .keeping
                    .history
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner),
            );
            if !history.is_empty() {
                engine.restore(history);
            }
        }
        inner
            .transcripts
            .insert(id.to_string(), engine.transcript());
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        let _ = tx.send(text);
        let (stop, mut stopped) = watch::channel(0u64);
        let (id_owned, name_owned) = (id.to_string(), name.to_string());
        let handle = tokio::spawn(async move {
            while let Some(text) = rx.recv().await {
                stopped.borrow_and_update();
                let end = {
                    let mut on = |e: SessionEvent| crew.on_agent_event(e);
                    tokio::select! {
                        end = engine.turn(&text, &mut on) => Some(end),
                        _ = stopped.changed() => None,
                    }
                };
                match end {
                    Some(end) => crew.turn_ended(&id_owned, &name_owned, end),
                    None => {
                        engine.interrupted().await;
                        crew.turn_stopped(&id_owned, &name_owned);
                    }
                }
                crew.record();
            }
        });
        inner.tasks.insert(
            id.to_string(),
            AgentTask {
                agent: me,
                inbox: Vec::new(),
                running: true,
                tx,
                stop,
                handle,
            },
        );
    }
}

impl Tree for Crew {
    fn model_of(&self, name: &str) -> Option<String> {
        self.lock().team.find(name).map(|a| a.model().to_string())
    }

    fn leave_plan(&self) -> Result<Mode, String> {
        Crew::leave_plan(self)
    }

    fn take_inbox(&self, name: &str) -> Vec<String> {
        let mut inner = self.lock();
        let id = inner.team.live(name).map(|a| a.id().to_string());
        id.and_then(|id| inner.tasks.get_mut(&id))
            .map(|s| std::mem::take(&mut s.inbox))
            .unwrap_or_default()
    }

    fn offered(&self, name: &str) -> Vec<&'static str> {
        self.lock().team.offered_tools(name)
    }

    fn call(&self, name: &str, tool: &str, args: &Value) -> Option<String> {
        let mut inner = self.lock();
        let operation = Operation::Call {
            by: name.to_string(),
            tool: tool.to_string(),
            args: args.clone(),
        };
        match inner.apply(operation) {
            Ok(TeamAnswer::Call {
                result: Some(result),
                delivered,
                started,
                ..
            }) => {
                self.dispatch(&mut inner, Some(name), delivered, started);
                Some(result.text().to_string())
            }
            Ok(_) => None,
            Err(e) => Some(e.to_string()),
        }
    }

    fn who_decides(&self, name: &str, req: &Request, session: &Context) -> Option<Verdict> {
        let inner = self.lock();
        let a = inner.team.live(name).filter(|a| a.parent_id().is_some())?;
        let main = inner.team.lead().map_or(session.mode, |l| l.mode());
        let sub = Subagent {
            mode: a.mode(),
            request: a.request(),
            grants: a.grants(),
        };
        Some(who_decides(req, session, &sub, main))
    }

    fn context(&self, name: &str, used: u64, window: u64) -> Option<u32> {
        let mut inner = self.lock();
        inner.dirty = true;
        let by = name.to_string();
        let reached = matches!(
            inner.apply(Operation::Context {
                by: by.clone(),
                used,
                window
            }),
            Ok(TeamAnswer::Context { reached: true })
        );
        if !reached {
            return None;
        }
        let Ok(TeamAnswer::ContextFull {
            text: Some(_),
            delivered,
            started,
        }) = inner.apply(Operation::ContextFull { by })
        else {
            return None;
        };
        self.dispatch(&mut inner, Some(name), delivered, started);
        Some(loop_spec().team.context.final_steps)
    }

    fn mode_chain(&self, name: &str) -> Vec<lembas_rules::permission::Mode> {
        self.lock().team.mode_chain(name)
    }

    fn has_ended(&self, name: &str) -> bool {
        self.lock().team.live(name).is_none()
    }
}

/// Sends the tree's state at most every [`TEAM_EVERY`] while the crew lives.
async fn tick(crew: Weak<Crew>) {
    loop {
        tokio::time::sleep(TEAM_EVERY).await;
        match crew.upgrade() {
            Some(c) => c.send_tree(),
            None => return,
        }
    }
}
