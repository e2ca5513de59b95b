//! One agent's turns: the conversation sent to the provider with the tools the spec data defines;
//! each call judged by the rules — the main agent's through `permission::evaluate`, a subagent's
//! through `delegation::who_decides` — then run, asked of the person through an [`Asker`], or
//! answered with the refusal's text; the results sent back in the order called, until a final
//! reply, the step limit, or `team_finish`. Calls of one step that only read run at once.
//!
//! In a tree (a [`Tree`], which the crew is) the engine also hears what reached it as it worked (team.md §5), says
//! its context use after each step and, paused at `pause_at` of its window, takes the final turn
//! it is given (subagents.md §9). Its progress is derived from what happens and said through the
//! rules' pacer (progress.md §4).

use crate::call::{self, Block, CallShown, CallStatus, Location};
use crate::events::{AgentRef, FileDiff, SessionEvent};
use crate::plan::{self as plan_tools, Plan};
use crate::provider::chat::{AssistantCall, ChatEvent, ChatRequest, Message, StreamOptions};
use crate::provider::chat::{Reply, ToolCall};
use crate::provider::client::{Provider, StreamEvent};
use crate::tools::{reads_only, run_bash, Args, Workspace};
use lembas_rules::delegation::{CallAnswer, Verdict};
use lembas_rules::permission::approval::{approve, approve_exactly};
use lembas_rules::permission::{evaluate, Context, Request, Target};
use lembas_rules::progress::{
    advance, short_what, Paced, Pacer, PersonWait, Phase, Progress, StopReason,
};
use lembas_rules::spec::{spec, tool_file};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};
use thiserror::Error;

/// The person's answer to an approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    /// This call.
    Once,
    /// What the rules' approval adds, for the session.
    Always,
    /// The same, kept for this project's later sessions too.
    AlwaysInProject,
    /// Refused.
    Deny,
}

/// Keeps approvals given "always in this project".
pub type Remember = Arc<dyn Fn(&[lembas_rules::permission::Rule]) + Send + Sync>;

/// A question to the person about one call: whose it is, the call as shown (its id, title and
/// arguments), and what it would do — the change of a write or an edit, or the plan put for
/// approval.
pub struct Question<'a> {
    /// Whose call it is.
    pub agent: &'a AgentRef,
    /// The call.
    pub call: &'a CallShown,
    /// The file as it is and as the call would leave it.
    pub change: Option<&'a FileDiff>,
    /// The plan, for `plan_submit`: approved (once or always) or not.
    pub plan: Option<&'a Plan>,
    /// What "always in this project" would keep, in words (the exact command or file); none
    /// when it cannot be kept (nothing is offered then).
    pub kept_in_project: Option<String>,
}

/// Who answers approvals: the terminal, a client, a script in tests, or nobody (unattended).
pub trait Asker: Send + Sync {
    fn ask(&self, question: &Question<'_>) -> Approval;
}

/// Nobody can answer: every approval is refused.
pub struct Unattended;

impl Asker for Unattended {
    fn ask(&self, _question: &Question<'_>) -> Approval {
        Approval::Deny
    }
}

/// What an engine asks of the tree it works in (subagents.md §5–§13). The crew implements it;
/// an engine alone has none.
pub trait Tree: Send + Sync {
    /// The texts that reached `name` as it worked, for its next step.
    fn take_inbox(&self, name: &str) -> Vec<String>;
    /// The team tools `name` is offered now.
    fn offered(&self, name: &str) -> Vec<&'static str>;
    /// A call's answer from the tree — a team tool's, or a refusal before permission — or none
    /// when the call goes on to permission.
    fn call(&self, name: &str, tool: &str, args: &Value) -> Option<String>;
    /// Who decides a subagent's call (§7); none for the main agent's own calls.
    fn who_decides(&self, name: &str, request: &Request, session: &Context) -> Option<Verdict>;
    /// Its context use after a step; the steps it has left when that paused it (§9).
    fn context(&self, name: &str, used: u64, window: u64) -> Option<u32>;
    /// Whether `name` has ended (team_finish, or a stop while it worked).
    fn has_ended(&self, name: &str) -> bool;
    /// The served id of the model `name` runs on now (the main agent's may change between turns);
    /// none when it is not in the tree.
    fn model_of(&self, name: &str) -> Option<String>;
    /// The person approved the plan: the session leaves plan mode for the mode it had before
    /// (edit when it started in plan); the mode now, or why it could not change.
    fn leave_plan(&self) -> Result<lembas_rules::permission::Mode, String>;
    /// The modes `name`'s commands run under: its own, then each agent's above it (the rules'
    /// `Team::mode_chain`); empty when it is not live.
    fn mode_chain(&self, name: &str) -> Vec<lembas_rules::permission::Mode>;
}

/// Where an engine works in a tree: who it is, what it is told first, its steps a turn, its
/// model's window.
pub struct Placement {
    /// The agent it runs.
    pub agent: AgentRef,
    /// Its system message.
    pub system: String,
    /// The steps a turn may take.
    pub max_steps: u32,
    /// Its model's context window in tokens, when known.
    pub window: Option<u64>,
    /// The tree.
    pub tree: Arc<dyn Tree>,
}

/// An agent's conversation, shared with whoever reads it (a client's transcript) while the
/// engine works: read while a request is sent, written between steps.
pub type Transcript = Arc<tokio::sync::RwLock<Vec<Message>>>;

/// Where an engine's events go.
pub type Listener<'a> = dyn FnMut(SessionEvent) + Send + 'a;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EngineError {
    #[error("{0}")]
    Provider(#[from] crate::provider::client::ProviderError),
}

/// The tools of this project the engine runs, as a model is sent them (`rules/spec/tools/`).
pub const TOOLS: &[&str] = &["read", "write", "edit", "list", "glob", "grep", "bash"];

/// The plan tools, offered to the main agent (`rules/spec/tools/plan_*.json`).
pub const PLAN_TOOLS: &[&str] = &["plan_write", "plan_update", "plan_submit"];

/// The session's plan as the main agent's engine keeps it: shared with the session (a client
/// reads it), and its file's path relative to the root.
#[derive(Clone)]
pub struct PlanDesk {
    /// The plan, once written.
    pub plan: Arc<Mutex<Option<Plan>>>,
    /// Its file, relative to the root (`.lembas/plans/<session>.md`).
    pub file: String,
}

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Every tool's definition as a model is sent it, from `rules/spec/tools/*.json`, made once.
static DEFINITIONS: LazyLock<Vec<(&'static str, Value)>> = LazyLock::new(|| {
    spec()
        .tools()
        .filter_map(|t| Some((t.name, tool_file(t.name)?)))
        .map(|(name, file)| {
            let definition = json!({"type": "function", "function": {
                "name": name,
                "description": file.get("description").cloned().unwrap_or(Value::Null),
                "parameters": file.get("parameters").cloned().unwrap_or(json!({"type": "object"})),
            }});
            (name, definition)
        })
        .collect()
});

/// The definitions of `names` sent to the model, in that order.
pub fn definitions(names: &[&str]) -> Vec<Value> {
    names
        .iter()
        .filter_map(|name| DEFINITIONS.iter().find(|(n, _)| n == name))
        .map(|(_, definition)| definition.clone())
        .collect()
}

/// The output of a call the person stopped before it ended.
pub const STOPPED_CALL: &str = "The person stopped this call before it ended.";

/// How often a writing agent's rate is worked out again.
const RATE_EVERY_MS: i64 = 250;

/// An agent's progress, derived and paced.
#[derive(Debug)]
struct PacedProgress {
    /// Whose progress it is.
    agent: AgentRef,
    progress: Option<Progress>,
    pacer: Pacer,
    /// Since when it writes, the pieces written (one a token, as servers stream them), and when
    /// its rate was last worked out.
    writing: Option<(i64, u64, i64)>,
}

impl PacedProgress {
    fn new(agent: AgentRef) -> PacedProgress {
        PacedProgress {
            agent,
            progress: None,
            pacer: Pacer::default(),
            writing: None,
        }
    }

    /// A piece of the reply arrived: writing, with its rate in tokens a second once a second has
    /// passed, worked out again at most every [`RATE_EVERY_MS`] (the pacer sends no more often).
    fn reply_piece(&mut self, on: &mut Listener<'_>) {
        let now = now_ms();
        self.poll(now, on);
        let (since, pieces, rated) = self.writing.get_or_insert((now, 0, now));
        *pieces += 1;
        if matches!(
            self.progress.as_ref().map(|p| &p.phase),
            Some(Phase::Writing { .. })
        ) && now - *rated < RATE_EVERY_MS
        {
            return;
        }
        *rated = now;
        let secs = (now - *since) as f64 / 1000.0;
        let rate = (secs >= 1.0).then(|| (*pieces as f64 / secs).round());
        self.set_phase(Some(Phase::Writing { rate }), on);
    }

    /// Sends what the pacer held back once its window is over (progress.md §5: the last state is
    /// always sent). It is asked at each event; what is held when events stop goes out with the
    /// next one or at the end of the turn.
    fn poll(&mut self, now: i64, on: &mut Listener<'_>) {
        if let Some(Paced::Send { progress }) = self.pacer.poll(now) {
            on(SessionEvent::Phase {
                agent: self.agent.clone(),
                progress,
            });
        }
    }

    fn set_phase(&mut self, next: Option<Phase>, on: &mut Listener<'_>) {
        // The same phase again changes nothing (most frames of a stream).
        if self.progress.as_ref().map(|p| &p.phase) == next.as_ref() {
            self.poll(now_ms(), on);
            return;
        }
        if !matches!(next, Some(Phase::Writing { .. })) {
            self.writing = None;
        }
        let now = now_ms();
        self.progress = next.map(|p| advance(self.progress.as_ref(), p, now));
        if let Paced::Send { progress } = self.pacer.push(self.progress.clone(), now) {
            on(SessionEvent::Phase {
                agent: self.agent.clone(),
                progress,
            });
        }
    }

    fn flush(&mut self, on: &mut Listener<'_>) {
        if let Some(Paced::Send { progress }) = self.pacer.flush(now_ms()) {
            on(SessionEvent::Phase {
                agent: self.agent.clone(),
                progress,
            });
        }
    }
}

/// One agent's engine: its conversation, its tools, its place in a tree.
pub struct Engine {
    provider: Provider,
    model: String,
    workspace: Workspace,
    /// The session's permissions: its mode, rules and the approvals given (shared by the tree).
    permissions: Arc<Mutex<Context>>,
    messages: Transcript,
    max_steps: u32,
    asker: Arc<dyn Asker>,
    /// Its agent in the tree (the main agent when alone).
    agent: AgentRef,
    /// Said first, as the system message.
    system: Option<String>,
    /// Its model's context window in tokens, when known.
    window: Option<u64>,
    /// The tree it is part of.
    tree: Option<Arc<dyn Tree>>,
    paced: PacedProgress,
    /// Calls made so far (each call's id is the agent's id and its number).
    calls: u64,
    /// Keeps approvals given "always in this project".
    remember: Option<Remember>,
    /// The session's plan, for the main agent's engine.
    plan: Option<PlanDesk>,
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnEnd {
    pub reply: String,
    pub steps: u32,
    pub stopped_at_limit: bool,
    /// It ended itself (team_finish) or was ended while it worked.
    pub ended: bool,
}

/// A call after its checks.
enum Judged {
    /// Its answer is known: a team tool's (completed), a refusal or bad arguments (failed).
    Answer { output: String, status: CallStatus },
    /// It runs; a file tool on the path the rules judged.
    Run(Args, Option<Pinned>),
}

/// A file tool's path as the rules judged it: the call's `path`, and the real path judged.
#[derive(Debug, Clone)]
struct Pinned {
    path: String,
    judged: PathBuf,
}

/// A call allowed to run: its place among the step's calls, the call, its arguments, its path.
struct Allowed {
    at: usize,
    call: CallShown,
    args: Args,
    pin: Option<Pinned>,
}

impl Allowed {
    /// The workspace its tool runs in: the session's, its path pinned to what was judged.
    fn workspace(&self, workspace: &Workspace) -> Workspace {
        match &self.pin {
            Some(pin) => workspace.pinned_to(&pin.path, pin.judged.clone()),
            None => workspace.clone(),
        }
    }
}

impl Judged {
    /// A call that does not run, with why.
    fn refused(why: String) -> Judged {
        Judged::Answer {
            output: why,
            status: CallStatus::Failed,
        }
    }
}

/// What one step of a turn came to.
enum StepEnd {
    /// The calls ran: the next step.
    Next,
    /// The turn is over.
    Over(TurnEnd),
}

impl Engine {
    /// The main agent's engine, alone, with its own permissions and asker.
    pub fn new(
        provider: Provider,
        model: &str,
        workspace: Workspace,
        permissions: Context,
        asker: Box<dyn Asker>,
    ) -> Engine {
        Engine::shared(
            provider,
            model,
            workspace,
            Arc::new(Mutex::new(permissions)),
            Arc::from(asker),
        )
    }

    /// An engine whose permissions and asker are the session's, shared with the tree's others.
    pub fn shared(
        provider: Provider,
        model: &str,
        workspace: Workspace,
        permissions: Arc<Mutex<Context>>,
        asker: Arc<dyn Asker>,
    ) -> Engine {
        Engine {
            provider,
            model: model.to_string(),
            workspace,
            permissions,
            messages: Transcript::default(),
            max_steps: 200,
            asker,
            agent: AgentRef::main(),
            system: None,
            window: None,
            tree: None,
            paced: PacedProgress::new(AgentRef::main()),
            calls: 0,
            plan: None,
            remember: None,
        }
    }

    /// The engine keeping approvals given "always in this project" with `remember`.
    pub fn remembering(mut self, remember: Option<Remember>) -> Engine {
        self.remember = remember;
        self
    }

    /// The engine with the session's plan and the plan tools (the main agent's).
    pub fn with_plan(mut self, desk: PlanDesk) -> Engine {
        self.plan = Some(desk);
        self
    }

    /// The engine at its place in a tree.
    pub fn placed(mut self, place: Placement) -> Engine {
        self.paced = PacedProgress::new(place.agent.clone());
        self.agent = place.agent;
        self.system = Some(place.system);
        self.max_steps = place.max_steps;
        self.window = place.window;
        self.tree = Some(place.tree);
        self
    }

    /// The engine with this many steps a turn.
    pub fn with_max_steps(mut self, max_steps: u32) -> Engine {
        self.max_steps = max_steps;
        self
    }

    /// The session's permissions (the approvals given grow them).
    pub fn permissions(&self) -> &Arc<Mutex<Context>> {
        &self.permissions
    }

    /// Goes on from an earlier conversation (a resumed session's): its system message, then
    /// those messages but their own system message.
    pub fn restore(&mut self, history: Vec<Message>) {
        let mut messages: Vec<Message> = self
            .system
            .iter()
            .map(|content| Message::System {
                content: content.clone(),
            })
            .collect();
        messages.extend(
            history
                .into_iter()
                .filter(|m| !matches!(m, Message::System { .. })),
        );
        self.messages = Arc::new(tokio::sync::RwLock::new(messages));
    }

    /// Its conversation, shared: what a client reads as its transcript, live.
    pub fn transcript(&self) -> Transcript {
        Arc::clone(&self.messages)
    }

    /// Its turn was stopped from outside (the person's Ctrl-C): every call of the last step that
    /// has no output gets one saying so, so that the conversation stays one a server reads, and
    /// the next turn goes on from it.
    pub async fn interrupted(&mut self) {
        let mut messages = self.messages.write().await;
        let last_calls = messages.iter().rposition(
            |m| matches!(m, Message::Assistant { tool_calls, .. } if !tool_calls.is_empty()),
        );
        if let Some(at) = last_calls {
            let answered: Vec<String> = messages
                .iter()
                .skip(at + 1)
                .filter_map(|m| match m {
                    Message::Tool { tool_call_id, .. } => Some(tool_call_id.clone()),
                    _ => None,
                })
                .collect();
            let unanswered: Vec<String> = match messages.get(at) {
                Some(Message::Assistant { tool_calls, .. }) => tool_calls
                    .iter()
                    .map(|c| c.id.clone())
                    .filter(|id| !answered.contains(id))
                    .collect(),
                _ => Vec::new(),
            };
            for tool_call_id in unanswered {
                messages.push(Message::Tool {
                    tool_call_id,
                    content: STOPPED_CALL.to_string(),
                });
            }
        }
        self.paced = PacedProgress::new(self.agent.clone());
    }

    fn set_phase(&mut self, next: Option<Phase>, on: &mut Listener<'_>) {
        self.paced.set_phase(next, on);
    }

    /// The tools it is offered now: the project's, then the team tools the tree offers it.
    fn tools(&self) -> Vec<Value> {
        let mut names: Vec<&str> = TOOLS.to_vec();
        if self.plan.is_some() {
            names.extend(PLAN_TOOLS);
        }
        if let Some(tree) = &self.tree {
            names.extend(tree.offered(&self.agent.name));
        }
        definitions(&names)
    }

    /// Runs one turn for `prompt`: step after step until a final reply, the step limit, or its
    /// end in the tree.
    pub async fn turn(
        &mut self,
        prompt: &str,
        on: &mut Listener<'_>,
    ) -> Result<TurnEnd, EngineError> {
        {
            let mut messages = self.messages.write().await;
            if messages.is_empty() {
                if let Some(system) = &self.system {
                    messages.push(Message::System {
                        content: system.clone(),
                    });
                }
            }
            messages.push(Message::User {
                content: prompt.to_string(),
            });
        }
        let mut limit = self.max_steps;
        let mut steps = 0;
        loop {
            steps += 1;
            if steps > limit {
                return Ok(self.over(
                    Some(Phase::Stopped {
                        reason: Some(StopReason::Steps),
                    }),
                    TurnEnd {
                        reply: String::new(),
                        steps: steps - 1,
                        stopped_at_limit: true,
                        ended: false,
                    },
                    on,
                ));
            }
            match self.step_of_turn(steps, &mut limit, on).await? {
                StepEnd::Next => {}
                StepEnd::Over(end) => return Ok(end),
            }
        }
    }

    /// The turn ends: its last phase said and flushed.
    fn over(&mut self, last: Option<Phase>, end: TurnEnd, on: &mut Listener<'_>) -> TurnEnd {
        self.set_phase(last, on);
        self.paced.flush(on);
        end
    }

    /// One step: what reached it, the model's reply, its context use, the calls run.
    async fn step_of_turn(
        &mut self,
        steps: u32,
        limit: &mut u32,
        on: &mut Listener<'_>,
    ) -> Result<StepEnd, EngineError> {
        // What reached it as it worked, at its next step (team.md §5).
        if let Some(tree) = &self.tree {
            let reached = tree.take_inbox(&self.agent.name);
            let mut messages = self.messages.write().await;
            for content in reached {
                messages.push(Message::User { content });
            }
        }
        let reply = self.model_reply(on).await?;
        // Its context use, as the server counted it: said, for a client's meter.
        if let Some((prompt, completion)) = reply.usage {
            on(SessionEvent::Usage {
                agent: self.agent.clone(),
                used: prompt.saturating_add(completion),
                window: self.window,
            });
        }
        // Its context use; paused at pause_at, it has final_steps steps left (§9).
        if let (Some(tree), Some((prompt, completion)), Some(window)) =
            (&self.tree, reply.usage, self.window)
        {
            if let Some(final_steps) = tree.context(&self.agent.name, prompt + completion, window) {
                *limit = steps + final_steps;
            }
        }
        let calls: Vec<ToolCall> = reply.tool_calls.into_iter().map(|(_, c)| c).collect();
        self.messages.write().await.push(Message::Assistant {
            content: reply.content.clone(),
            tool_calls: calls.iter().map(AssistantCall::from).collect(),
        });
        if calls.is_empty() {
            return Ok(StepEnd::Over(self.over(
                None,
                TurnEnd {
                    reply: reply.content,
                    steps,
                    stopped_at_limit: false,
                    ended: false,
                },
                on,
            )));
        }
        let outputs = self.step(&calls, on).await;
        {
            let mut messages = self.messages.write().await;
            for (call, content) in calls.into_iter().zip(outputs) {
                messages.push(Message::Tool {
                    tool_call_id: call.id,
                    content,
                });
            }
        }
        // team_finish (or a stop while it worked) ends its turn after the step (§10).
        if self
            .tree
            .as_ref()
            .is_some_and(|t| t.has_ended(&self.agent.name))
        {
            return Ok(StepEnd::Over(self.over(
                None,
                TurnEnd {
                    reply: String::new(),
                    steps,
                    stopped_at_limit: false,
                    ended: true,
                },
                on,
            )));
        }
        Ok(StepEnd::Next)
    }

    /// The model's reply to the conversation, its progress said as it streams.
    async fn model_reply(&mut self, on: &mut Listener<'_>) -> Result<Reply, EngineError> {
        self.set_phase(
            Some(Phase::ReadingPrompt {
                done: None,
                total: None,
            }),
            on,
        );
        let tools = self.tools();
        // The model it runs on now, as the tree says (the person may pick another between turns).
        let model_now = self
            .tree
            .as_ref()
            .and_then(|t| t.model_of(&self.agent.name))
            .unwrap_or_else(|| self.model.clone());
        let result = {
            let Engine {
                provider,
                paced,
                messages,
                agent,
                ..
            } = self;
            let model = &model_now;
            let conversation = messages.read().await;
            let request = ChatRequest {
                model,
                messages: &conversation,
                tools: &tools,
                stream_options: StreamOptions {
                    include_usage: true,
                },
            };
            provider
                .stream(&request, |e| match e {
                    StreamEvent::Chat(ChatEvent::Reasoning(text)) => {
                        paced.set_phase(Some(Phase::Thinking), on);
                        on(SessionEvent::Reasoning {
                            agent: agent.clone(),
                            text,
                        });
                    }
                    StreamEvent::Chat(ChatEvent::Content(text)) => {
                        paced.reply_piece(on);
                        on(SessionEvent::Text {
                            agent: agent.clone(),
                            text,
                        });
                    }
                    StreamEvent::Chat(ChatEvent::ToolCall { .. }) => paced.reply_piece(on),
                    StreamEvent::Chat(ChatEvent::PromptProgress { done, total }) => paced
                        .set_phase(
                            Some(Phase::ReadingPrompt {
                                done: Some(done),
                                total: Some(total),
                            }),
                            on,
                        ),
                    StreamEvent::Retrying {
                        reason,
                        in_secs,
                        attempt,
                    } => paced.set_phase(
                        Some(Phase::Retrying {
                            reason,
                            in_secs,
                            attempt: Some(attempt),
                        }),
                        on,
                    ),
                    StreamEvent::Chat(_) => {}
                })
                .await
        };
        result.map_err(|e| {
            let reason = short_what(&e.to_string()).unwrap_or_default();
            self.set_phase(Some(Phase::Failed { reason }), on);
            self.paced.flush(on);
            e.into()
        })
    }

    /// A call as it is shown from the moment the model made it: its id, title, kind, arguments
    /// and the files it touches.
    fn shown(&mut self, call: &ToolCall) -> CallShown {
        self.calls += 1;
        let input = if call.oversize {
            Value::Null
        } else {
            serde_json::from_str::<Value>(&call.arguments)
                .unwrap_or_else(|_| Value::String(call.arguments.clone()))
        };
        let args = Args(input.clone());
        // A tool that touches no path or line (the plan's, the team's) is about nothing more.
        let target = if TOOLS.contains(&call.name.as_str()) {
            args.target(&call.name)
        } else {
            Target::Tool
        };
        let kind = Block::of(&call.name);
        let line = args
            .count("offset")
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| *n > 0);
        let locations = match (&target, kind) {
            (Target::Path(path), Block::Read | Block::Edit | Block::Search)
                if args.opt("path").is_some() =>
            {
                self.workspace
                    .path(path)
                    .map(|abs| {
                        vec![Location {
                            path: abs.to_string_lossy().into_owned(),
                            line,
                        }]
                    })
                    .unwrap_or_default()
            }
            _ => Vec::new(),
        };
        CallShown {
            id: format!("{}-{}", self.agent.id, self.calls),
            tool: call.name.clone(),
            what: what_of(&target),
            title: call::title(&call.name, &input),
            kind,
            input,
            locations,
        }
    }

    /// One step's calls: each shown first, then judged in the order called, then run — calls
    /// that only read at once, the others alone — and their outputs given back in the order
    /// called. A call that does not run ends `failed` with why.
    async fn step(&mut self, calls: &[ToolCall], on: &mut Listener<'_>) -> Vec<String> {
        let shown: Vec<CallShown> = calls.iter().map(|c| self.shown(c)).collect();
        for call in &shown {
            on(SessionEvent::ToolStart {
                agent: self.agent.clone(),
                call: call.clone(),
            });
        }
        let mut judged = Vec::with_capacity(calls.len());
        for (call, seen) in calls.iter().zip(&shown) {
            judged.push(if call.oversize {
                Judged::refused(format!(
                    "the call's arguments passed {} MiB: it is not run; write a large file in \
                     parts (write, then edit to add)",
                    crate::provider::chat::ARGUMENTS_MAX >> 20
                ))
            } else {
                self.judge(seen, &call.arguments, on)
            });
        }
        let mut outputs: Vec<String> = vec![String::new(); calls.len()];
        let mut pending = shown.into_iter().zip(judged).enumerate().peekable();
        while let Some((at, (call, judged))) = pending.next() {
            let args = match judged {
                Judged::Answer { output, status } => {
                    on(SessionEvent::ToolEnd {
                        agent: self.agent.clone(),
                        id: call.id.clone(),
                        tool: call.tool.clone(),
                        status,
                        output: output.clone(),
                        diff: None,
                        found: Vec::new(),
                    });
                    if let Some(slot) = outputs.get_mut(at) {
                        *slot = output;
                    }
                    continue;
                }
                Judged::Run(args, pin) => (args, pin),
            };
            // The run of reading calls from here goes at once.
            let reads = reads_only(&call.tool);
            let mut group = vec![Allowed {
                at,
                call,
                args: args.0,
                pin: args.1,
            }];
            if reads {
                while let Some((next, (c, Judged::Run(a, pin)))) = pending.peek() {
                    if !reads_only(&c.tool) {
                        break;
                    }
                    group.push(Allowed {
                        at: *next,
                        call: c.clone(),
                        args: a.clone(),
                        pin: pin.clone(),
                    });
                    pending.next();
                }
            }
            for (at, out) in self.run(group, on).await {
                if let Some(slot) = outputs.get_mut(at) {
                    *slot = out;
                }
            }
        }
        outputs
    }

    /// The change a write or an edit would make, for the person to review before it is allowed:
    /// the file as it is (none: the call makes it) and as the call would leave it.
    fn change_of(&self, tool: &str, args: &Args) -> Option<FileDiff> {
        let abs = self.workspace.path(args.opt("path")?).ok()?;
        // The file as it is, read only where the rules let it be read without asking: a
        // question is no way to read a file.
        let readable = self.workspace.read_allowed(&abs);
        let old = if readable {
            self.workspace.peek(&abs)
        } else {
            None
        };
        let shown_old = |old: Option<String>| match old {
            Some(text) => Some(text),
            None if !readable && abs.exists() => Some(NOT_SHOWN.to_string()),
            None => None,
        };
        let new = match tool {
            "write" => args.opt("content")?.to_string(),
            "edit" => {
                let (from, to) = (args.opt("old")?, args.opt("new")?);
                let text = old.as_deref()?;
                (text.matches(from).count() == 1).then(|| text.replacen(from, to, 1))?
            }
            _ => return None,
        };
        Some(FileDiff {
            path: abs.to_string_lossy().into_owned(),
            old: shown_old(old),
            new,
        })
    }

    /// A call's checks in the spec's order: the tree's (team tools, only_main, a manager's work),
    /// then permission — run, ask the person, or the refusal as its answer.
    fn judge(&mut self, call: &CallShown, arguments: &str, on: &mut Listener<'_>) -> Judged {
        let tool = call.tool.as_str();
        let args = match Args::parse(arguments) {
            Ok(a) => a,
            Err(e) => return Judged::refused(e),
        };
        if let Some(tree) = &self.tree {
            if let Some(answer) = tree.call(&self.agent.name, tool, &args.0) {
                return Judged::Answer {
                    output: answer,
                    status: CallStatus::Completed,
                };
            }
        }
        let plan_tool = self.plan.is_some() && PLAN_TOOLS.contains(&tool);
        let mut pin = None;
        let request = if plan_tool {
            Request::tool(tool, Target::Tool)
        } else {
            // The rules judge the path the tool will use: its real path, which the tool then
            // opens as it is (a link swapped in meanwhile is refused, never followed).
            let judged = match self.workspace.judged(args.target(tool)) {
                Ok(t) => t,
                Err(e) => return Judged::refused(e.to_string()),
            };
            if let (Target::Path(abs), Some(raw)) = (&judged, args.opt("path")) {
                pin = Some(Pinned {
                    path: raw.to_string(),
                    judged: PathBuf::from(abs),
                });
            }
            Request::tool(tool, judged).filter(|_| TOOLS.contains(&tool))
        };
        let Some(request) = request else {
            return Judged::refused(format!("there is no tool \"{tool}\""));
        };
        let permissions = self
            .permissions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let decide = |request: &Request| match self
            .tree
            .as_ref()
            .and_then(|t| t.who_decides(&self.agent.name, request, &permissions))
        {
            Some(v) => (v.answer, v.text.unwrap_or_default()),
            None => {
                let d = evaluate(request, &permissions);
                (CallAnswer::of(d.action), d.reason.into_owned())
            }
        };
        let (mut answer, mut refusal) = decide(&request);
        // An edit reads its file too (its answer says whether `old` is in it): it is judged as
        // a read as well, and the stricter answer holds.
        if tool == "edit" {
            if let Some(read) = Request::tool("read", request.target.clone()) {
                let (read_answer, read_refusal) = decide(&read);
                if strictness(read_answer) > strictness(answer) {
                    (answer, refusal) = (read_answer, read_refusal);
                }
            }
        }
        match answer {
            CallAnswer::Refused => Judged::refused(refusal),
            CallAnswer::Run => Judged::Run(args, pin),
            CallAnswer::Person => {
                self.set_phase(
                    Some(Phase::WaitingForPerson {
                        what: PersonWait::Approval,
                        tool: Some(tool.to_string()),
                    }),
                    on,
                );
                let change = self.change_of(tool, &args);
                let for_project = self
                    .remember
                    .as_ref()
                    .and_then(|_| approve_exactly(&request, &permissions));
                let question = Question {
                    agent: &self.agent,
                    call,
                    change: change.as_ref(),
                    plan: None,
                    kept_in_project: for_project.as_ref().map(|kept| kept.words.clone()),
                };
                match self.asker.ask(&question) {
                    Approval::Deny => Judged::refused(spec().modes_file.reasons.person.to_string()),
                    Approval::Once => Judged::Run(args, pin),
                    always @ (Approval::Always | Approval::AlwaysInProject) => {
                        let mut p = self
                            .permissions
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner);
                        if let Ok(rules) = approve(&request, &p) {
                            p.approvals.extend(rules.iter().cloned());
                        }
                        drop(p);
                        // Kept for this project's later sessions: only the exact call.
                        if always == Approval::AlwaysInProject {
                            if let (Some(remember), Some(kept)) = (&self.remember, &for_project) {
                                remember(std::slice::from_ref(&kept.rule));
                            }
                        }
                        Judged::Run(args, pin)
                    }
                }
            }
        }
    }

    /// Runs a plan tool: its answer, and whether it did what it was asked.
    fn plan_tool(
        &mut self,
        call: &CallShown,
        args: &Args,
        on: &mut Listener<'_>,
    ) -> (String, CallStatus) {
        let Some(desk) = self.plan.clone() else {
            return (
                format!("there is no tool \"{}\"", call.tool),
                CallStatus::Failed,
            );
        };
        let keep = |plan: &Plan, on: &mut Listener<'_>| -> Result<(), String> {
            // The plan's file is where it is said to be: a link on the way (`.lembas/plans` to
            // another folder) is refused, as the file tools refuse one.
            let expected = self.workspace.root.join(&desk.file);
            if self.workspace.path(&desk.file).ok().as_deref() != Some(expected.as_path()) {
                return Err(format!(
                    "{}: a link on the way, or it cannot be reached; the plan is not written",
                    desk.file
                ));
            }
            self.workspace
                .write(&desk.file, &plan.markdown())
                .map_err(|e| e.to_string())?;
            on(SessionEvent::Plan { plan: plan.clone() });
            Ok(())
        };
        match call.tool.as_str() {
            "plan_write" => match Plan::written(&args.0) {
                Ok(plan) => {
                    if let Err(e) = keep(&plan, on) {
                        return (e, CallStatus::Failed);
                    }
                    let count = plan.steps.len().to_string();
                    *desk.plan.lock().unwrap_or_else(PoisonError::into_inner) = Some(plan);
                    let answer = plan_tools::text(
                        "plan_write",
                        "written",
                        &[("count", &count), ("path", &desk.file)],
                    );
                    (answer, CallStatus::Completed)
                }
                Err(bad) => (bad, CallStatus::Failed),
            },
            "plan_update" => {
                let current = desk
                    .plan
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone();
                let Some(mut plan) = current else {
                    return (
                        plan_tools::text("plan_update", "none", &[]),
                        CallStatus::Failed,
                    );
                };
                // Changed only once its file is written.
                match plan.update(&args.0) {
                    Ok(answer) => match keep(&plan, on) {
                        Ok(()) => {
                            *desk.plan.lock().unwrap_or_else(PoisonError::into_inner) = Some(plan);
                            (answer, CallStatus::Completed)
                        }
                        Err(e) => (e, CallStatus::Failed),
                    },
                    Err(bad) => (bad, CallStatus::Failed),
                }
            }
            "plan_submit" => self.submit_plan(call, &desk, on),
            other => (format!("there is no tool \"{other}\""), CallStatus::Failed),
        }
    }

    /// `plan_submit`: the plan put to the person. Approved, the session leaves plan mode;
    /// refused, the model is told so. Outside plan mode it answers its `unavailable` text.
    fn submit_plan(
        &mut self,
        call: &CallShown,
        desk: &PlanDesk,
        on: &mut Listener<'_>,
    ) -> (String, CallStatus) {
        let mode = self
            .permissions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .mode;
        if mode != lembas_rules::permission::Mode::Plan {
            return (plan_tools::unavailable("plan_submit"), CallStatus::Failed);
        }
        let plan = desk
            .plan
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let Some(plan) = plan else {
            return (
                plan_tools::text("plan_submit", "none", &[]),
                CallStatus::Failed,
            );
        };
        self.set_phase(
            Some(Phase::WaitingForPerson {
                what: PersonWait::Plan,
                tool: None,
            }),
            on,
        );
        let question = Question {
            agent: &self.agent,
            call,
            change: None,
            plan: Some(&plan),
            kept_in_project: None,
        };
        if self.asker.ask(&question) == Approval::Deny {
            return (
                plan_tools::text("plan_submit", "refused", &[]),
                CallStatus::Failed,
            );
        }
        let left = match &self.tree {
            Some(tree) => tree.leave_plan(),
            None => {
                let mut p = self
                    .permissions
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                p.mode = lembas_rules::permission::Mode::Edit;
                Ok(p.mode)
            }
        };
        match left {
            Ok(mode) => {
                on(SessionEvent::Mode { mode });
                let answer =
                    plan_tools::text("plan_submit", "approved", &[("mode", mode.as_str())]);
                (answer, CallStatus::Completed)
            }
            Err(why) => (why, CallStatus::Failed),
        }
    }

    /// What this agent's commands may reach: its mode's sandbox policy, narrowed by every agent
    /// above it and by the session's mode.
    fn sandbox_policy(&self) -> lembas_rules::permission::sandbox::Policy {
        let mut chain = self
            .tree
            .as_ref()
            .map(|t| t.mode_chain(&self.agent.name))
            .unwrap_or_default();
        chain.push(
            self.permissions
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .mode,
        );
        lembas_rules::permission::sandbox::Policy::of_chain(&chain, self.workspace.network())
    }

    /// Runs allowed calls (more than one only when they all read): (index, output) each.
    async fn run(&mut self, group: Vec<Allowed>, on: &mut Listener<'_>) -> Vec<(usize, String)> {
        if let Some(Allowed { call, .. }) = group.first() {
            self.set_phase(
                Some(Phase::RunningTool {
                    tool: call.tool.clone(),
                    what: (!call.what.is_empty()).then(|| call.what.clone()),
                }),
                on,
            );
        }
        for Allowed { call, .. } in &group {
            on(SessionEvent::ToolRunning {
                agent: self.agent.clone(),
                id: call.id.clone(),
            });
        }
        let mut done = Vec::with_capacity(group.len());
        let mut diff = None;
        if let [allowed] = group.as_slice() {
            let (at, call, args) = (&allowed.at, &allowed.call, &allowed.args);
            let tool = call.tool.as_str();
            // The workspace with the call's path pinned to what the rules judged.
            let workspace = allowed.workspace(&self.workspace);
            // A write or an edit: the file before and after, for a client to show the change.
            let changed = matches!(tool, "write" | "edit")
                .then(|| args.opt("path").and_then(|p| workspace.path(p).ok()))
                .flatten();
            // Its text before, read only where the rules let it be read without asking.
            let before = changed.as_ref().map(|p| {
                if workspace.read_allowed(p) {
                    workspace.peek(p)
                } else {
                    p.exists().then(|| NOT_SHOWN.to_string())
                }
            });
            let (output, status) = if PLAN_TOOLS.contains(&tool) && self.plan.is_some() {
                self.plan_tool(call, args, on)
            } else if tool == "bash" {
                // Its output said as it comes, then its answer.
                let policy = self.sandbox_policy();
                let (live, mut pieces) = tokio::sync::mpsc::unbounded_channel();
                let ran = run_bash(&self.workspace, args, policy, Some(live));
                tokio::pin!(ran);
                let output = loop {
                    tokio::select! {
                        output = &mut ran => break output,
                        Some(text) = pieces.recv() => on(SessionEvent::ToolOutput {
                            agent: self.agent.clone(),
                            id: call.id.clone(),
                            text,
                        }),
                    }
                };
                while let Ok(text) = pieces.try_recv() {
                    on(SessionEvent::ToolOutput {
                        agent: self.agent.clone(),
                        id: call.id.clone(),
                        text,
                    });
                }
                (output, CallStatus::Completed)
            } else {
                match workspace.attempt(tool, args) {
                    Ok(output) => (output, CallStatus::Completed),
                    Err(why) => (why, CallStatus::Failed),
                }
            };
            if let (Some(path), Some(old)) = (changed, before) {
                if let Some(new) = workspace.peek(&path) {
                    if old.as_deref() != Some(new.as_str()) {
                        diff = Some(FileDiff {
                            path: path.to_string_lossy().into_owned(),
                            old,
                            new,
                        });
                    }
                }
            }
            done.push((*at, call.clone(), output, status));
        } else {
            let mut set = tokio::task::JoinSet::new();
            // Which call each task runs, so a task that fails still answers its own call.
            let mut calls = std::collections::HashMap::new();
            for allowed in group {
                let w = allowed.workspace(&self.workspace);
                let Allowed { at, call, args, .. } = allowed;
                let shown = call.clone();
                let handle = set.spawn_blocking(move || match w.attempt(&call.tool, &args) {
                    Ok(out) => (at, call, out, CallStatus::Completed),
                    Err(why) => (at, call, why, CallStatus::Failed),
                });
                calls.insert(handle.id(), (at, shown));
            }
            while let Some(r) = set.join_next_with_id().await {
                match r {
                    Ok((_, x)) => done.push(x),
                    Err(e) => {
                        if let Some((at, call)) = calls.remove(&e.id()) {
                            done.push((
                                at,
                                call,
                                format!("the tool failed: {e}"),
                                CallStatus::Failed,
                            ));
                        }
                    }
                }
            }
            done.sort_by_key(|(at, _, _, _)| *at);
        }
        done.into_iter()
            .map(|(at, call, output, status)| {
                let found = if call.tool == "grep" && status == CallStatus::Completed {
                    grep_hits(&self.workspace.root, &output)
                } else {
                    Vec::new()
                };
                on(SessionEvent::ToolEnd {
                    agent: self.agent.clone(),
                    id: call.id,
                    tool: call.tool,
                    status,
                    output: output.clone(),
                    diff: diff.take(),
                    found,
                });
                (at, output)
            })
            .collect()
    }
}

/// grep's hits as places (`path:line: text` a line), 50 at most.
fn grep_hits(root: &std::path::Path, output: &str) -> Vec<Location> {
    output
        .lines()
        .filter_map(|l| {
            let (path, rest) = l.split_once(':')?;
            let (line, _) = rest.split_once(':')?;
            let line: u32 = line.parse().ok()?;
            Some(Location {
                path: root.join(path).to_string_lossy().into_owned(),
                line: Some(line),
            })
        })
        .take(50)
        .collect()
}

/// How strict an answer is: a refusal over a question over a run.
fn strictness(answer: CallAnswer) -> u8 {
    match answer {
        CallAnswer::Run => 0,
        CallAnswer::Person => 1,
        CallAnswer::Refused => 2,
    }
}

/// The old text of a change the rules do not let be read without asking: not shown.
pub const NOT_SHOWN: &str = "(not shown: the rules do not let this file be read without asking)";

/// What a call is about, in a few words (progress.md `what`).
fn what_of(target: &Target) -> String {
    match target {
        Target::Line(l) | Target::Path(l) => short_what(l).unwrap_or_default(),
        Target::Tool => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_the_pacer_held_goes_out_at_the_next_event_after_its_window() {
        let mut paced = PacedProgress::new(AgentRef::main());
        let mut sent: Vec<Option<Progress>> = Vec::new();
        let mut on = |e: SessionEvent| {
            if let SessionEvent::Phase { progress, .. } = e {
                sent.push(progress);
            }
        };
        paced.set_phase(Some(Phase::Writing { rate: None }), &mut on);
        // The same phase with new data, at once: held for the rest of the pacer's window.
        paced.set_phase(Some(Phase::Writing { rate: Some(5.0) }), &mut on);
        std::thread::sleep(std::time::Duration::from_millis(400));
        paced.set_phase(Some(Phase::Writing { rate: Some(5.0) }), &mut on);
        let phases: Vec<Phase> = sent.into_iter().flatten().map(|p| p.phase).collect();
        assert_eq!(
            phases,
            [
                Phase::Writing { rate: None },
                Phase::Writing { rate: Some(5.0) }
            ]
        );
    }
}
