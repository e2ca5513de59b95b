//! The tree at work (subagents.md §5–§13; team.md §5–§8): the rules' [`Team`] driven by real
//! turns. The rules decide everything — who is added, whose turn starts with what, what reaches
//! whom, who decides a call, when a context is full — and this shell does the I/O: every change
//! is an operation the team applies ([`Team::apply`]); each agent is an [`Engine`] in its own
//! tokio task with its own conversation; a turn the rules start is sent
//! to its task; a text delivered while it works goes to its next step; a subagent that ends is
//! stopped with its running commands. The tree's state goes out at most four times a second, the
//! last state always.

use crate::engine::{now_ms, Asker, Engine, EngineError, Placement, Tree, TurnEnd};
use crate::events::{AgentRef, SessionEvent};
use crate::provider::client::Provider;
use crate::tools::Workspace;
use lembas_rules::delegation::{who_decides, Subagent, Verdict};
use lembas_rules::input::InputError;
use lembas_rules::permission::{Context, Request};
use lembas_rules::progress::{advance, Phase, StopReason, WaitReason};
use lembas_rules::spec::loop_spec;
use lembas_rules::team::operation::{Deliveries, Operation, TeamAnswer, TeamStep, TurnEndReason};
use lembas_rules::team::view::TreeInfo;
use lembas_rules::team::{lead, AgentState, Team, TeamOptions};
use serde_json::Value;
use std::collections::BTreeMap;
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
}

/// The tree at work: the rules' team, each agent's task, and where the events go.
pub struct Crew {
    setup: Setup,
    inner: Mutex<Inner>,
    out: mpsc::UnboundedSender<SessionEvent>,
    quiet: watch::Sender<bool>,
    /// Itself, for the tasks it starts (an engine's calls come in by reference).
    me: Weak<Crew>,
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
            setup,
            inner: Mutex::new(Inner {
                team: Team::new(options),
                tasks: BTreeMap::new(),
                waiting: Vec::new(),
                dirty: true,
                failed: None,
            }),
            out,
            quiet: watch::Sender::new(false),
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
        let _ = self.out.send(out);
    }

    /// The main agent's first turn, for the person's prompt.
    pub fn begin(&self, prompt: &str) {
        let mut inner = self.lock();
        let lead_id = lead().to_string();
        self.start_agent(&mut inner, &lead_id, lead(), prompt.to_string());
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

    /// The person stops everything (Ctrl-C): every subagent is stopped with its subtree
    /// (subagents.md §10), every task ends, and the main agent's turn stops.
    pub fn stop_all(&self) {
        let mut inner = self.lock();
        let children: Vec<String> = inner
            .team
            .tree()
            .iter()
            .filter(|a| a.parent_id() == Some(lead()))
            .map(|a| a.name().to_string())
            .collect();
        for name in children {
            // Nothing starts after a stop of everything: what the stop delivers stays unread.
            let _ = inner.apply(Operation::PersonStop { name });
        }
        let tasks = std::mem::take(&mut inner.tasks);
        for (_, task) in tasks {
            task.handle.abort();
            let stopped = Phase::Stopped {
                reason: Some(StopReason::Person),
            };
            let progress = advance(None, stopped, now_ms());
            self.send_out(SessionEvent::Phase {
                agent: task.agent,
                progress: Some(progress),
            });
        }
        inner.dirty = true;
        drop(inner);
        self.send_tree();
        self.quiet.send_replace(true);
    }

    /// Ends every agent's task (the session is over).
    pub fn close(&self) {
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
        self.send_out(event);
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
                    self.send_out(SessionEvent::Reply { text: end.reply });
                }
                ended
            }
            Err(e) => {
                let error = e.to_string();
                self.send_out(SessionEvent::Notice {
                    agent: inner.agent(name),
                    text: error.clone(),
                });
                if is_lead {
                    inner.failed = Some(error);
                    drop(inner);
                    self.stop_all();
                    return;
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
        let quiet = inner.tasks.values().all(|s| !s.running)
            && !inner
                .team
                .agents()
                .iter()
                .any(|a| a.state() == AgentState::Waiting);
        drop(inner);
        if quiet {
            self.send_tree();
            self.quiet.send_replace(true);
        }
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
        for (name, text) in delivered {
            let id = inner.team.live(&name).map(|a| a.id().to_string());
            if let Some(task) = id.and_then(|id| inner.tasks.get_mut(&id)) {
                if task.running {
                    task.inbox.push(text);
                }
            }
        }
        for (name, text) in started {
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
            team.steps().0
        } else {
            system.extend(team.member_block(name, ""));
            team.steps().1
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
        .placed(Placement {
            agent: me.clone(),
            system: system.join("\n\n"),
            max_steps,
            window: s.window,
            tree: Arc::clone(&crew) as Arc<dyn Tree>,
        });
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        let _ = tx.send(text);
        let (id_owned, name_owned) = (id.to_string(), name.to_string());
        let handle = tokio::spawn(async move {
            while let Some(text) = rx.recv().await {
                let end = {
                    let mut on = |e: SessionEvent| crew.on_agent_event(e);
                    engine.turn(&text, &mut on).await
                };
                crew.turn_ended(&id_owned, &name_owned, end);
            }
        });
        inner.tasks.insert(
            id.to_string(),
            AgentTask {
                agent: me,
                inbox: Vec::new(),
                running: true,
                tx,
                handle,
            },
        );
    }
}

impl Tree for Crew {
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
