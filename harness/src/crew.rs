//! The tree at work (subagents.md §5–§13; team.md §5–§8): the rules' [`Team`] driven by real
//! turns. The rules decide everything — who is added, whose turn starts with what, what reaches
//! whom, who decides a call, when a context is full — and this shell does the I/O: each agent is
//! an [`Engine`] in its own tokio task with its own conversation; a turn the rules start is sent
//! to its task; a text delivered while it works goes to its next step; a subagent that ends is
//! stopped with its running commands. The tree's state goes out at most four times a second, the
//! last state always.

use crate::engine::{now_ms, Asker, Engine, EngineError, Event, TurnEnd};
use crate::provider::client::Provider;
use crate::tools::Workspace;
use lembas_rules::delegation::{who_decides, Subagent, Verdict};
use lembas_rules::permission::{Context, Request};
use lembas_rules::progress::{advance, Phase, StopReason, WaitReason};
use lembas_rules::spec::loop_spec;
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

/// What the tree says.
#[derive(Debug, Clone, PartialEq)]
pub enum Out {
    /// An agent's engine said something.
    Agent { name: String, event: Event },
    /// The tree's state (§12).
    Team(TreeInfo),
    /// The main agent's final reply of a turn.
    Reply(String),
    /// A turn failed: the agent and the reason in one line.
    Failed { name: String, error: String },
}

/// How the session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The main agent's turn ended, no subagent works and no report waits to wake it.
    Finished,
    /// The main agent's turn failed.
    Failed(String),
}

/// An agent at work: the task that runs its engine's turns, and what waits for its next step.
struct AgentTask {
    name: String,
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

pub struct Crew {
    setup: Setup,
    inner: Mutex<Inner>,
    out: mpsc::UnboundedSender<Out>,
    quiet: watch::Sender<bool>,
}

impl Crew {
    /// A tree for a session with these options; what it says goes to `out`.
    pub fn new(setup: Setup, options: &TeamOptions, out: mpsc::UnboundedSender<Out>) -> Arc<Crew> {
        let crew = Arc::new(Crew {
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

    fn send_out(&self, out: Out) {
        let _ = self.out.send(out);
    }

    /// The main agent's first turn, for the person's prompt.
    pub fn begin(self: &Arc<Self>, prompt: &str) {
        let mut inner = self.lock();
        let lead_id = lead().to_string();
        self.start_agent(&mut inner, &lead_id, lead(), prompt.to_string());
    }

    /// Waits until the session is over.
    pub async fn finished(&self) -> Outcome {
        let mut rx = self.quiet.subscribe();
        let _ = rx.wait_for(|q| *q).await;
        match self.lock().failed.clone() {
            Some(e) => Outcome::Failed(e),
            None => Outcome::Finished,
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
        self.send_out(Out::Team(info));
    }

    /// The person stops everything (Ctrl-C): every subagent is stopped with its subtree
    /// (subagents.md §10), every task ends, and the main agent's turn stops.
    pub fn stop_all(&self) {
        let mut inner = self.lock();
        let children: Vec<String> = inner
            .team
            .tree()
            .iter()
            .filter(|a| a.parent.as_deref() == Some(lead()))
            .map(|a| a.name.clone())
            .collect();
        for name in children {
            inner.team.person_stop(&name);
        }
        inner.team.take_started();
        inner.team.take_delivered();
        let tasks = std::mem::take(&mut inner.tasks);
        for (_, task) in tasks {
            task.handle.abort();
            let stopped = Phase::Stopped {
                reason: Some(StopReason::Person),
            };
            let progress = advance(None, stopped, now_ms());
            self.send_out(Out::Agent {
                name: task.name,
                event: Event::Phase(Some(progress)),
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

    // ── what an engine asks of the tree ─────────────────────────────────────────

    /// The texts that reached `name` as it worked.
    pub fn take_inbox(&self, name: &str) -> Vec<String> {
        let mut inner = self.lock();
        let id = inner.team.live(name).map(|a| a.id.clone());
        id.and_then(|id| inner.tasks.get_mut(&id))
            .map(|s| std::mem::take(&mut s.inbox))
            .unwrap_or_default()
    }

    /// The team tools `name` is offered now.
    pub fn offered(&self, name: &str) -> Vec<&'static str> {
        self.lock().team.offered_tools(name)
    }

    /// A call's answer from the tree — a team tool's, or a refusal before permission — or none
    /// when the call goes on to permission.
    pub fn call(self: &Arc<Self>, name: &str, tool: &str, args: &Value) -> Option<String> {
        let mut inner = self.lock();
        let answer = match inner.team.call(name, tool, args) {
            Ok(None) => return None,
            Ok(Some(answer)) => answer,
            Err(e) => e.to_string(),
        };
        self.dispatch(&mut inner, Some(name));
        Some(answer)
    }

    /// Who decides a subagent's call (§7); none for the main agent's own calls.
    pub fn who_decides(&self, name: &str, req: &Request, session: &Context) -> Option<Verdict> {
        let inner = self.lock();
        let a = inner.team.live(name).filter(|a| a.parent.is_some())?;
        let main = inner.team.lead().map_or(session.mode, |l| l.mode);
        let sub = Subagent {
            mode: a.mode,
            request: &a.request,
            grants: &a.grants,
        };
        Some(who_decides(req, session, &sub, main))
    }

    /// Its context use after a step. When a subagent reaches `pause_at` of its window it is
    /// paused and its final turn begins: the steps it has left (§9).
    pub fn context(self: &Arc<Self>, name: &str, used: u64, window: u64) -> Option<u32> {
        let mut inner = self.lock();
        inner.team.set_context(name, used, window);
        inner.dirty = true;
        if !inner.team.context_reached(name) {
            return None;
        }
        inner.team.context_full(name)?;
        self.dispatch(&mut inner, Some(name));
        Some(loop_spec().team.context.final_steps)
    }

    /// Whether `name` has ended (team_finish, or a stop while it worked).
    pub fn has_ended(&self, name: &str) -> bool {
        self.lock().team.live(name).is_none()
    }

    // ── the runtime ─────────────────────────────────────────────────────────────

    /// What an engine said: its progress kept in the tree, everything passed on.
    fn on_agent_event(&self, name: &str, event: Event) {
        if let Event::Phase(p) = &event {
            let mut inner = self.lock();
            inner.team.set_progress(name, p.clone());
            inner.dirty = true;
        }
        self.send_out(Out::Agent {
            name: name.to_string(),
            event,
        });
    }

    /// An agent's turn ended: the rules hear its reply (a subagent's is its report), and what
    /// that starts is started.
    fn turn_ended(self: &Arc<Self>, id: &str, name: &str, end: Result<TurnEnd, EngineError>) {
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
        match end {
            Ok(end) => {
                if !end.ended {
                    let reason = end.stopped_at_limit.then_some("steps");
                    inner.team.end_turn(name, &end.reply, reason);
                }
                if is_lead {
                    self.send_out(Out::Reply(end.reply));
                }
            }
            Err(e) => {
                let error = e.to_string();
                self.send_out(Out::Failed {
                    name: name.to_string(),
                    error: error.clone(),
                });
                if is_lead {
                    inner.failed = Some(error);
                    drop(inner);
                    self.stop_all();
                    return;
                }
                inner.team.end_turn(name, "", Some(&error));
            }
        }
        self.dispatch(&mut inner, None);
        let working = inner
            .team
            .tree()
            .iter()
            .filter(|a| a.parent.is_some())
            .filter(|a| {
                matches!(
                    a.state,
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
            self.send_out(Out::Agent {
                name: lead().to_string(),
                event: Event::Phase(Some(progress)),
            });
        }
        let quiet = inner.tasks.values().all(|s| !s.running)
            && !inner
                .team
                .agents
                .iter()
                .any(|a| a.state == AgentState::Waiting);
        drop(inner);
        if quiet {
            self.send_tree();
            self.quiet.send_replace(true);
        }
    }

    /// Carries out what the rules decided: texts delivered to working agents go to their next
    /// step; turns started go to their agents' tasks (a new subagent gets its task now); agents
    /// that ended lose their tasks — but `by`, which ends after its step.
    fn dispatch(self: &Arc<Self>, inner: &mut Inner, by: Option<&str>) {
        inner.dirty = true;
        for (name, text) in inner.team.take_delivered() {
            let id = inner.team.live(&name).map(|a| a.id.clone());
            if let Some(task) = id.and_then(|id| inner.tasks.get_mut(&id)) {
                if task.running {
                    task.inbox.push(text);
                }
            }
        }
        for (name, text) in inner.team.take_started() {
            let Some(id) = inner.team.live(&name).map(|a| a.id.clone()) else {
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
                inner.team.by_id(id).is_none_or(|a| a.state.is_end()) && Some(s.name.as_str()) != by
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in ended {
            if let Some(task) = inner.tasks.remove(&id) {
                if task.running {
                    task.handle.abort();
                    self.send_out(Out::Agent {
                        name: task.name,
                        event: Event::Phase(None),
                    });
                }
            }
        }
        let waiting: Vec<(String, String, String)> = inner
            .team
            .agents
            .iter()
            .filter(|a| a.state == AgentState::Waiting && !inner.waiting.contains(&a.id))
            .map(|a| (a.id.clone(), a.name.clone(), a.model.clone()))
            .collect();
        for (id, name, model) in waiting {
            let phase = Phase::WaitingForModel {
                model,
                reason: WaitReason::Slots,
            };
            let progress = advance(None, phase, now_ms());
            inner.team.set_progress(&name, Some(progress.clone()));
            inner.waiting.push(id);
            self.send_out(Out::Agent {
                name,
                event: Event::Phase(Some(progress)),
            });
        }
    }

    /// A task for agent `id`, its first turn started with `text`.
    fn start_agent(self: &Arc<Self>, inner: &mut Inner, id: &str, name: &str, text: String) {
        let s = &self.setup;
        let Some(agent) = inner.team.by_id(id) else {
            return;
        };
        let mut engine = Engine::shared(
            s.provider.clone(),
            &agent.model,
            s.workspace.clone(),
            Arc::clone(&s.permissions),
            Arc::clone(&s.asker),
        );
        engine.name = name.to_string();
        engine.window = s.window;
        engine.crew = Some(Arc::clone(self));
        let team = &inner.team;
        let mut system = vec![s.system.clone()];
        if agent.parent.is_none() {
            engine.max_steps = team.steps.0;
            system.extend(team.lead_block());
            system.extend(team.notes());
        } else {
            engine.max_steps = team.steps.1;
            system.extend(team.member_block(name, ""));
        }
        engine.system = Some(system.join("\n\n"));
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        let _ = tx.send(text);
        let crew = Arc::clone(self);
        let (id_owned, name_owned) = (id.to_string(), name.to_string());
        let handle = tokio::spawn(async move {
            while let Some(text) = rx.recv().await {
                let end = {
                    let mut on = |e: Event| crew.on_agent_event(&name_owned, e);
                    engine.turn(&text, &mut on).await
                };
                crew.turn_ended(&id_owned, &name_owned, end);
            }
        });
        inner.tasks.insert(
            id.to_string(),
            AgentTask {
                name: name.to_string(),
                inbox: Vec::new(),
                running: true,
                tx,
                handle,
            },
        );
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
