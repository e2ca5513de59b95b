//! `lembas acp`: lembas as an agent of the Agent Client Protocol on standard input and output, for
//! editors (Zed and others). stdout carries ACP frames only; what lembas says otherwise goes to
//! stderr. Plain ACP, so any client works: `initialize`; `session/new`, its `cwd` the project
//! root; `session/prompt`, each a turn on the session's conversation, streaming `session/update`
//! (the reply's chunks, each call as a `tool_call` and its `tool_call_update`) and answering its
//! stop reason; `session/cancel` (the turn and every subagent stop); `session/set_mode` (manual,
//! edit, auto, plan); a call the rules ask the person about is a `session/request_permission`
//! (allow once, allow always — the rules' approval — or reject).
//!
//! The spec's extension (acp.md, spec 3.4.0) only for a client that opts in with
//! `clientCapabilities._meta.lembas` in `initialize`: the capabilities `progress`, `tree` and
//! `agents`; the `phase` and `team` events as `_lembas/event`; `_lembas/session/status`,
//! `_lembas/team`, `_lembas/team/transcript`, `_lembas/team/findings`, `_lembas/team/stop`,
//! `_lembas/configure`; `_meta.lembas.agents` (and `subagents: false`, and `network: false`: no
//! command of the session gets a network) on `session/new` and on every
//! `session/prompt`; `_meta.lembas.subagent` on a subagent's permission request. A plain client
//! gets plain ACP only.
//!
//! Each session is a [`Crew`] in the project; its events reach the client through one task per
//! session. A turn runs in a task of its own: a handler that waited for it (or for a permission
//! answer) would hold the connection's loop.

use crate::call::{Block, CallShown, CallStatus};
use crate::chat::{help, read_line, Said, COMMANDS};
use crate::config::{AgentRange, SessionOptions};
use crate::crew::{Crew, SessionEnd};
use crate::engine::{Approval, Asker, Question};
use crate::events::{AgentRef, SessionEvent};
use crate::plan::{Plan, StepStatus};
use crate::prompt::prompt_text;
use crate::provider::chat::Message;
use crate::session::{crew_in, Record, SettingFromClient};
use crate::store::{rfc3339, Loaded, Store};
use crate::tools::EditorFiles;
use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{
    on_receive_notification, on_receive_request, Agent, Client, Error, JsonRpcNotification,
    JsonRpcRequest, JsonRpcResponse, Stdio,
};
use anyhow::Result;
use lembas_rules::json::ToJson;
use lembas_rules::permission::Mode;
use lembas_rules::team::{lead, RoomKind};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};
use tokio::sync::mpsc;

/// The capabilities of the spec's extension lembas has (acp.md's table).
const CAPABILITIES: [&str; 3] = ["progress", "tree", "agents"];

/// `_lembas/event`: an engine event of a session, to a client that opted in.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcNotification)]
#[notification(method = "_lembas/event")]
#[serde(rename_all = "camelCase")]
struct LembasEvent {
    session_id: String,
    event: Value,
}

/// What an extension method answers: its result object as the spec writes it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcResponse)]
#[serde(transparent)]
struct ExtAnswer(Value);

/// `_lembas/session/status`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_lembas/session/status", response = ExtAnswer)]
#[serde(rename_all = "camelCase")]
struct StatusRequest {
    session_id: String,
}

/// `_lembas/team`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_lembas/team", response = ExtAnswer)]
#[serde(rename_all = "camelCase")]
struct TeamRequest {
    session_id: String,
    #[serde(default)]
    since: Option<u64>,
}

/// `_lembas/team/transcript`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_lembas/team/transcript", response = ExtAnswer)]
#[serde(rename_all = "camelCase")]
struct TranscriptRequest {
    session_id: String,
    id: String,
}

/// `_lembas/team/findings`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_lembas/team/findings", response = ExtAnswer)]
#[serde(rename_all = "camelCase")]
struct FindingsRequest {
    session_id: String,
    id: String,
}

/// `_lembas/team/stop`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_lembas/team/stop", response = ExtAnswer)]
#[serde(rename_all = "camelCase")]
struct StopRequest {
    session_id: String,
    id: String,
}

/// `_lembas/configure`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_lembas/configure", response = ExtAnswer)]
#[serde(rename_all = "camelCase")]
struct ConfigureRequest {
    session_id: String,
    #[serde(default)]
    agents: Option<AgentsParam>,
}

/// `{ min, max }` as a client sends the Subagents setting.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct AgentsParam {
    min: u32,
    max: u32,
}

impl AgentsParam {
    /// The setting, if a team can have it; `-32602` with the rules' reason otherwise.
    fn range(self) -> std::result::Result<AgentRange, Error> {
        AgentRange::new(self.min, self.max)
            .map_err(|why| invalid("agents", &format!("expected 1 ≤ min ≤ max ({why})")))
    }
}

/// `-32602` with what is wrong.
fn invalid(field: &str, what: &str) -> Error {
    Error::invalid_params().data(json!({ field: what }))
}

/// `_meta.lembas` of a message's `_meta`.
fn lembas_meta(meta: Option<&acp::Meta>) -> Option<&Value> {
    meta.and_then(|m| m.get("lembas"))
}

/// The Subagents setting a `_meta.lembas` says, read as team.md §2 says; an error names what is
/// wrong.
fn agents_of(lembas: Option<&Value>) -> std::result::Result<SettingFromClient, Error> {
    let Some(l) = lembas else {
        return Ok(SettingFromClient::default());
    };
    let agents = match l.get("agents") {
        None | Some(Value::Null) => None,
        Some(v) => {
            let a: AgentsParam = serde_json::from_value(v.clone())
                .map_err(|_| invalid("agents", "expected { min, max }, whole numbers"))?;
            Some(a.range()?)
        }
    };
    // `said`: the person's earlier messages of the chat. This harness offers subagents the
    // session's one model, which no message needs to name, so they are read and not kept.
    if let Some(said) = l.get("said") {
        let strings = said
            .as_array()
            .is_some_and(|a| a.iter().all(Value::is_string));
        if !strings {
            return Err(invalid("said", "expected an array of strings"));
        }
    }
    let no_network = match l.get("network") {
        None | Some(Value::Null) | Some(Value::Bool(true)) => false,
        Some(Value::Bool(false)) => true,
        Some(_) => return Err(invalid("network", "expected true or false")),
    };
    Ok(SettingFromClient {
        agents,
        no_subagents: l.get("subagents") == Some(&Value::Bool(false)),
        no_network,
    })
}

/// The permission options lembas offers, by the ids acp.md gives them: `once` (allow_once),
/// `session` (allow_always: the rules' approval, for the session) and `deny` (reject_once).
const ALLOW_ONCE: &str = "once";
const ALLOW_ALWAYS: &str = "session";
const REJECT: &str = "deny";

/// A session of the link: its tree.
struct LinkSession {
    crew: Arc<Crew>,
    /// The session's events its update task has sent on to the client.
    forwarded: Arc<std::sync::atomic::AtomicU64>,
}

impl LinkSession {
    /// Waits (two seconds at most) until every event of the turn has gone to the client: a
    /// prompt's answer comes after its updates.
    async fn caught_up(&self) {
        let sent = self.crew.events_sent();
        for _ in 0..400 {
            if self.forwarded.load(Ordering::SeqCst) >= sent {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    }
}

/// Every session of the link, and how new ones are made.
struct Sessions {
    options: SessionOptions,
    /// Where sessions are kept (none: they are not; said at start).
    store: Option<Store>,
    open: Mutex<BTreeMap<String, Arc<LinkSession>>>,
    /// The client opted in to the spec's extension in `initialize`.
    lembas: AtomicBool,
    /// The client reads and writes files for the tools (`clientCapabilities.fs`).
    reads_files: AtomicBool,
    writes_files: AtomicBool,
}

impl Sessions {
    fn get(&self, id: &acp::SessionId) -> Option<Arc<LinkSession>> {
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&id.to_string())
            .cloned()
    }

    /// Whether the client opted in to the spec's extension.
    fn lembas(&self) -> bool {
        self.lembas.load(Ordering::SeqCst)
    }

    /// A session in `cwd` with the setting the client says: its tree, its events sent to the
    /// client, its approvals asked of it.
    fn create(
        &self,
        cwd: std::path::PathBuf,
        setting: SettingFromClient,
        client: ConnectionTo<Client>,
        restored: Option<Loaded>,
    ) -> Result<(acp::SessionId, Mode)> {
        let id = acp::SessionId::new(match &restored {
            Some(r) => r.info.id.clone(),
            None => crate::session::new_session_id(),
        });
        let record = Record {
            store: self.store.clone(),
            restored,
        };
        let (tx, rx) = mpsc::unbounded_channel();
        let lembas = self.lembas();
        let calls = Arc::new(CallsSent::default());
        let asker = Arc::new(ClientAsker {
            client: client.clone(),
            session: id.clone(),
            runtime: tokio::runtime::Handle::current(),
            crew: OnceLock::new(),
            lembas,
            calls: Arc::clone(&calls),
        });
        let (reads, writes) = (
            self.reads_files.load(Ordering::SeqCst),
            self.writes_files.load(Ordering::SeqCst),
        );
        let editor = (reads || writes).then(|| {
            Arc::new(ClientFiles {
                client: client.clone(),
                session: id.clone(),
                runtime: tokio::runtime::Handle::current(),
                reads,
                writes,
            }) as Arc<dyn EditorFiles>
        });
        let crew = crew_in(
            &id.to_string(),
            record,
            &self.options,
            cwd,
            Arc::clone(&asker) as Arc<dyn Asker>,
            self.options.unattended,
            setting,
            editor,
            tx,
        )?;
        let _ = asker.crew.set(Arc::downgrade(&crew));
        let mode = crew.mode();
        let forwarded = Arc::new(std::sync::atomic::AtomicU64::new(0));
        tokio::spawn(send_updates(
            rx,
            client,
            id.clone(),
            lembas,
            calls,
            Arc::clone(&forwarded),
            Arc::downgrade(&crew),
        ));
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.to_string(), Arc::new(LinkSession { crew, forwarded }));
        Ok((id, mode))
    }
}

/// The client's files (`fs/read_text_file`, `fs/write_text_file`), for the file tools of one
/// session: what it offers, asked and waited for off the runtime's workers.
struct ClientFiles {
    client: ConnectionTo<Client>,
    session: acp::SessionId,
    runtime: tokio::runtime::Handle,
    reads: bool,
    writes: bool,
}

impl EditorFiles for ClientFiles {
    fn read(&self, path: &std::path::Path) -> Option<Result<String, String>> {
        if !self.reads {
            return None;
        }
        let request = acp::ReadTextFileRequest::new(self.session.clone(), path.to_path_buf());
        let sent = self.client.send_request(request);
        let answer = tokio::task::block_in_place(|| self.runtime.block_on(sent.block_task()));
        Some(answer.map(|a| a.content).map_err(|e| e.to_string()))
    }

    fn write(&self, path: &std::path::Path, content: &str) -> Option<Result<(), String>> {
        if !self.writes {
            return None;
        }
        let request =
            acp::WriteTextFileRequest::new(self.session.clone(), path.to_path_buf(), content);
        let sent = self.client.send_request(request);
        let answer = tokio::task::block_in_place(|| self.runtime.block_on(sent.block_task()));
        Some(answer.map(|_| ()).map_err(|e| e.to_string()))
    }
}

/// Asks the client, as ACP's `session/request_permission`: allow once, allow always, reject. No
/// answer (a cancelled request, a closed link) is a refusal.
struct ClientAsker {
    client: ConnectionTo<Client>,
    session: acp::SessionId,
    runtime: tokio::runtime::Handle,
    /// The session's tree, to name a subagent whose call it is.
    crew: OnceLock<Weak<Crew>>,
    /// The client opted in to the spec's extension.
    lembas: bool,
    /// The calls whose card the client has.
    calls: Arc<CallsSent>,
}

impl ClientAsker {
    /// `_meta.lembas.subagent: { id, name, position }` when the call is a subagent's (capability
    /// `tree`).
    fn subagent_meta(&self, agent: &str) -> Option<acp::Meta> {
        if !self.lembas || agent == lead() {
            return None;
        }
        let crew = self.crew.get()?.upgrade()?;
        let tree = crew.tree();
        let a = tree.agents.iter().find(|a| a.name == agent)?;
        let mut meta = acp::Meta::new();
        meta.insert(
            "lembas".into(),
            json!({"subagent": {"id": a.id, "name": a.name, "position": a.position}}),
        );
        Some(meta)
    }
}

impl ClientAsker {
    /// Waits (two seconds at most) until the call's `tool_call` has gone to the client.
    async fn card_sent(&self, id: &str) {
        for _ in 0..400 {
            if self.calls.has(id) {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    }
}

impl Asker for ClientAsker {
    fn ask(&self, question: &Question<'_>) -> Approval {
        // A turn the client cancelled asks nothing more: what would ask is refused.
        if self
            .crew
            .get()
            .and_then(Weak::upgrade)
            .is_some_and(|c| c.was_stopped())
        {
            return Approval::Deny;
        }
        let call = question.call;
        // The question is about the call's own card: its title, kind, arguments, the change a
        // write would make, the command a call would run, or the plan.
        let mut content = Vec::new();
        if let Some(plan) = question.plan {
            content.push(acp::ToolCallContent::from(plan.markdown()));
        }
        if let Some(command) = call.input.get("command").and_then(Value::as_str) {
            content.push(acp::ToolCallContent::from(format!("```sh\n{command}\n```")));
        }
        if let Some(change) = question.change {
            content.push(acp::ToolCallContent::Diff(
                acp::Diff::new(change.path.clone(), change.new.clone())
                    .old_text(change.old.clone()),
            ));
        }
        let fields = acp::ToolCallUpdateFields::new()
            .title(call_title(question.agent, call))
            .kind(tool_kind(call))
            .status(acp::ToolCallStatus::Pending)
            .locations(locations(call))
            .raw_input(call.input.clone())
            .content(content);
        let update = acp::ToolCallUpdate::new(call.id.clone(), fields);
        let options = if question.plan.is_some() {
            vec![
                acp::PermissionOption::new(
                    ALLOW_ONCE,
                    "Approve the plan",
                    acp::PermissionOptionKind::AllowOnce,
                ),
                acp::PermissionOption::new(
                    REJECT,
                    "Keep planning",
                    acp::PermissionOptionKind::RejectOnce,
                ),
            ]
        } else {
            vec![
                acp::PermissionOption::new(
                    ALLOW_ONCE,
                    "Allow once",
                    acp::PermissionOptionKind::AllowOnce,
                ),
                acp::PermissionOption::new(
                    ALLOW_ALWAYS,
                    "Allow always, for this session",
                    acp::PermissionOptionKind::AllowAlways,
                ),
                acp::PermissionOption::new(REJECT, "Reject", acp::PermissionOptionKind::RejectOnce),
            ]
        };
        let request = acp::RequestPermissionRequest::new(self.session.clone(), update, options)
            .meta(self.subagent_meta(&question.agent.name));
        let answer = tokio::task::block_in_place(|| {
            self.runtime.block_on(async {
                self.card_sent(&call.id).await;
                self.client.send_request(request).block_task().await
            })
        });
        match answer.map(|a| a.outcome) {
            Ok(acp::RequestPermissionOutcome::Selected(chosen)) => {
                match chosen.option_id.to_string().as_str() {
                    ALLOW_ONCE => Approval::Once,
                    ALLOW_ALWAYS if question.plan.is_none() => Approval::Always,
                    _ => Approval::Deny,
                }
            }
            _ => Approval::Deny,
        }
    }
}

/// A mode as a client's picker shows it (`harness/texts/modes.json`).
#[derive(Deserialize)]
struct ModeText {
    name: String,
    description: String,
}

/// `harness/texts/modes.json`.
#[derive(Deserialize)]
struct ModeTexts {
    modes: BTreeMap<String, ModeText>,
}

/// The modes' names and descriptions, read once (a test shows they are read).
static MODE_TEXTS: std::sync::LazyLock<Option<ModeTexts>> =
    std::sync::LazyLock::new(|| serde_json::from_str(include_str!("../texts/modes.json")).ok());

/// The modes a client may pick, the rules' four, each named and described.
fn modes(current: Mode) -> acp::SessionModeState {
    acp::SessionModeState::new(
        current.as_str(),
        Mode::ALL
            .iter()
            .map(|m| {
                let text = MODE_TEXTS.as_ref().and_then(|t| t.modes.get(m.as_str()));
                acp::SessionMode::new(m.as_str(), text.map_or(m.as_str(), |t| t.name.as_str()))
                    .description(text.map(|t| t.description.clone()))
            })
            .collect::<Vec<_>>(),
    )
}

/// The chat's commands an editor offers in its `/` menu.
fn commands() -> acp::AvailableCommandsUpdate {
    acp::AvailableCommandsUpdate::new(
        COMMANDS
            .iter()
            .filter(|c| c.in_editor)
            .map(|c| {
                acp::AvailableCommand::new(c.name, c.description).input(c.argument.map(|a| {
                    acp::AvailableCommandInput::Unstructured(acp::UnstructuredCommandInput::new(a))
                }))
            })
            .collect(),
    )
}

/// What a command typed in the editor does, and what the session says of it: its answer, and the
/// mode it changed to.
fn run_command(session: &LinkSession, said: Said) -> (String, Option<Mode>) {
    let crew = &session.crew;
    match said {
        Said::Mode(mode) => match crew.set_mode(mode) {
            Ok(()) => (format!("The main agent's mode is {mode}."), Some(mode)),
            Err(why) => (format!("The mode stays: {why}."), None),
        },
        Said::Agents(range) => {
            crew.set_agents(range.min, range.max);
            (
                format!(
                    "The team may have {} to {} agents; the main agent is told with the next prompt.",
                    range.min, range.max
                ),
                None,
            )
        }
        Said::Tree => (crew.tree_lines().join("\n"), None),
        Said::Stop(name) => {
            let stopped = crew.stop_agent(&name);
            if stopped.is_empty() {
                (
                    format!("/stop: no subagent \"{name}\" works in the tree"),
                    None,
                )
            } else {
                (format!("Stopped {name} ({}).", stopped.join(", ")), None)
            }
        }
        Said::Help => (help(), None),
        Said::Quit => ("Close the thread in the editor to leave.".into(), None),
        Said::Wrong(what) => (what, None),
        Said::Prompt(_) | Said::Nothing => (String::new(), None),
    }
}

/// What a call is, as ACP's `kind` says it: from its tool's block; submitting the plan switches
/// the mode.
fn tool_kind(call: &CallShown) -> acp::ToolKind {
    match call.kind {
        _ if call.tool == "plan_submit" => acp::ToolKind::SwitchMode,
        Block::Read => acp::ToolKind::Read,
        Block::Edit => acp::ToolKind::Edit,
        Block::Search => acp::ToolKind::Search,
        Block::Shell => acp::ToolKind::Execute,
        Block::Web => acp::ToolKind::Fetch,
        Block::Plan => acp::ToolKind::Think,
        Block::Task | Block::Hidden | Block::Tool => acp::ToolKind::Other,
    }
}

/// A call's title for the client: a subagent's calls carry its name first.
fn call_title(agent: &AgentRef, call: &CallShown) -> String {
    if agent.is_main() {
        call.title.clone()
    } else {
        format!("{}: {}", agent.name, call.title)
    }
}

/// The files a call touches, as ACP's locations.
fn locations(call: &CallShown) -> Vec<acp::ToolCallLocation> {
    call.locations
        .iter()
        .map(|l| acp::ToolCallLocation::new(l.path.clone()).line(l.line))
        .collect()
}

/// The plan as ACP's `plan` update.
fn plan_update(plan: &Plan) -> acp::Plan {
    acp::Plan::new(
        plan.steps
            .iter()
            .map(|step| {
                let status = match step.status {
                    StepStatus::Pending => acp::PlanEntryStatus::Pending,
                    StepStatus::InProgress => acp::PlanEntryStatus::InProgress,
                    StepStatus::Completed => acp::PlanEntryStatus::Completed,
                };
                acp::PlanEntry::new(step.text.clone(), acp::PlanEntryPriority::Medium, status)
            })
            .collect(),
    )
}

/// The calls of a session whose `tool_call` has gone to the client: a permission request about
/// a call is sent only after its card, so that the client ties the two.
#[derive(Default)]
struct CallsSent {
    ids: Mutex<std::collections::HashSet<String>>,
}

impl CallsSent {
    fn sent(&self, id: &str) {
        self.ids
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.to_string());
    }

    fn has(&self, id: &str) -> bool {
        self.ids
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(id)
    }
}

/// The subagents' cards a session has sent: each subagent's life as a call of its own —
/// `Subagent api: its task`, in progress while it works, its progress as content, completed
/// with its report (or the state it ended in).
#[derive(Default)]
struct SubagentCards {
    /// By subagent id: the state and progress last said, and whether its card was closed.
    said: BTreeMap<String, (String, bool)>,
}

impl SubagentCards {
    /// The updates a tree's state makes: a card for each subagent not seen before, a change of
    /// state or progress, a card closed when its subagent ended.
    fn updates(
        &mut self,
        tree: &lembas_rules::team::view::TreeInfo,
        report: &dyn Fn(&str) -> Option<String>,
    ) -> Vec<acp::SessionUpdate> {
        let now = crate::engine::now_ms();
        let mut out = Vec::new();
        let live = tree.agents.iter().map(|a| (a, false));
        let ended = tree.ended.iter().map(|a| (a, true));
        for (agent, is_ended) in live.chain(ended) {
            if agent.parent.is_none() {
                continue;
            }
            let id = format!("subagent-{}", agent.id);
            let progress = agent
                .progress
                .as_ref()
                .map(|p| lembas_rules::progress::line(p, now));
            let state = agent.state.as_str().to_string();
            let said = format!("{state} {}", progress.clone().unwrap_or_default());
            // A card is closed while its subagent has reported (finished) or has ended; a
            // message that wakes it opens it again.
            let closes = is_ended || agent.state == lembas_rules::team::AgentState::Finished;
            match self.said.get(&agent.id) {
                None => {
                    let task = agent
                        .task
                        .as_deref()
                        .and_then(|t| t.lines().next())
                        .unwrap_or("");
                    out.push(acp::SessionUpdate::ToolCall(
                        acp::ToolCall::new(id.clone(), format!("Subagent {}: {task}", agent.name))
                            .kind(acp::ToolKind::Think)
                            .status(acp::ToolCallStatus::InProgress),
                    ));
                }
                Some((before, _)) if *before == said => continue,
                Some(_) => {}
            }
            let (status, text) = if closes {
                let text = report(&agent.name).unwrap_or_else(|| format!("It ended: {state}."));
                (acp::ToolCallStatus::Completed, text)
            } else {
                (
                    acp::ToolCallStatus::InProgress,
                    progress.unwrap_or_else(|| state.clone()),
                )
            };
            out.push(acp::SessionUpdate::ToolCallUpdate(
                acp::ToolCallUpdate::new(
                    id,
                    acp::ToolCallUpdateFields::new()
                        .status(status)
                        .content(vec![acp::ToolCallContent::from(text)]),
                ),
            ));
            self.said.insert(agent.id.clone(), (said, closes));
        }
        out
    }
}

/// Counts an event as forwarded when it is done with, however its handling ends.
struct Counted<'a>(&'a std::sync::atomic::AtomicU64);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Sends a session's events to the client as `session/update`: the main agent's reply as
/// `agent_message_chunk`, every call (a subagent's titled with its name) as a `tool_call` when
/// the model makes it, `in_progress` when it runs and `completed` or `failed` when it ends, with
/// its output and the diff of a change; the plan as `plan`; a mode the session changed to as
/// `current_mode_update`.
async fn send_updates(
    mut rx: mpsc::UnboundedReceiver<SessionEvent>,
    client: ConnectionTo<Client>,
    session: acp::SessionId,
    lembas: bool,
    calls: Arc<CallsSent>,
    forwarded: Arc<std::sync::atomic::AtomicU64>,
    crew: Weak<Crew>,
) {
    let mut cards = SubagentCards::default();
    // Each running command's output so far, by call (its card shows it as it comes).
    let mut running: BTreeMap<String, String> = BTreeMap::new();
    while let Some(event) = rx.recv().await {
        // Counted when taken: what is not sent on (another agent's text) is done with too.
        let _counted = Counted(&forwarded);
        // Each subagent's life, as a card of its own, for every client.
        if let SessionEvent::Team { tree } = &event {
            let report = |name: &str| {
                crew.upgrade().and_then(|c| {
                    c.room(0)
                        .into_iter()
                        .rfind(|m| m.kind == RoomKind::Report && m.from == name)
                        .map(|m| m.text)
                })
            };
            for update in cards.updates(tree, &report) {
                if client
                    .send_notification(acp::SessionNotification::new(session.clone(), update))
                    .is_err()
                {
                    return;
                }
            }
        }
        // The spec's events, to a client that opted in: `phase` (paced by the engine) and `team`
        // (paced by the crew), in the shapes the `--events` file writes.
        if lembas
            && matches!(
                event,
                SessionEvent::Phase { .. } | SessionEvent::Team { .. }
            )
        {
            let Ok(mut value) = serde_json::to_value(&event) else {
                continue;
            };
            if let Value::Object(m) = &mut value {
                if m.get("progress").is_some_and(Value::is_null) {
                    m.insert("progress".into(), Value::Null);
                }
            }
            let note = LembasEvent {
                session_id: session.to_string(),
                event: value,
            };
            if client.send_notification(note).is_err() {
                return;
            }
            continue;
        }
        let mut started = None;
        let update = match event {
            SessionEvent::Text { agent, text } if agent.is_main() => {
                acp::SessionUpdate::AgentMessageChunk(acp::ContentChunk::new(
                    acp::ContentBlock::Text(acp::TextContent::new(text)),
                ))
            }
            SessionEvent::ToolStart { agent, call } => {
                started = Some(call.id.clone());
                acp::SessionUpdate::ToolCall(
                    acp::ToolCall::new(call.id.clone(), call_title(&agent, &call))
                        .kind(tool_kind(&call))
                        .status(acp::ToolCallStatus::Pending)
                        .locations(locations(&call))
                        .raw_input(call.input.clone()),
                )
            }
            SessionEvent::ToolOutput { id, text, .. } => {
                let so_far = running.entry(id.clone()).or_default();
                so_far.push_str(&text);
                acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new(
                    id,
                    acp::ToolCallUpdateFields::new()
                        .content(vec![acp::ToolCallContent::from(so_far.clone())]),
                ))
            }
            SessionEvent::ToolRunning { id, .. } => {
                acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new(
                    id,
                    acp::ToolCallUpdateFields::new().status(acp::ToolCallStatus::InProgress),
                ))
            }
            SessionEvent::ToolEnd {
                id,
                status,
                output,
                diff,
                ..
            } => {
                running.remove(&id);
                // Its output, and for a write or an edit the change as a diff.
                let mut content = vec![acp::ToolCallContent::from(output)];
                if let Some(d) = diff {
                    content.push(acp::ToolCallContent::Diff(
                        acp::Diff::new(d.path, d.new).old_text(d.old),
                    ));
                }
                let status = match status {
                    CallStatus::Completed => acp::ToolCallStatus::Completed,
                    CallStatus::Failed => acp::ToolCallStatus::Failed,
                };
                acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new(
                    id,
                    acp::ToolCallUpdateFields::new()
                        .status(status)
                        .content(content),
                ))
            }
            SessionEvent::Reasoning { agent, text } if agent.is_main() => {
                acp::SessionUpdate::AgentThoughtChunk(acp::ContentChunk::new(
                    acp::ContentBlock::Text(acp::TextContent::new(text)),
                ))
            }
            SessionEvent::Plan { plan } => acp::SessionUpdate::Plan(plan_update(&plan)),
            // The main agent's context, for the editor's meter (its window must be known).
            SessionEvent::Usage {
                agent,
                used,
                window: Some(window),
            } if agent.is_main() => {
                acp::SessionUpdate::UsageUpdate(acp::UsageUpdate::new(used, window))
            }
            SessionEvent::Mode { mode } => {
                acp::SessionUpdate::CurrentModeUpdate(acp::CurrentModeUpdate::new(mode.as_str()))
            }
            _ => continue,
        };
        if client
            .send_notification(acp::SessionNotification::new(session.clone(), update))
            .is_err()
        {
            return;
        }
        if let Some(id) = started {
            calls.sent(&id);
        }
    }
}

/// A stored conversation as the updates a client draws it from (session/load): the person's
/// prompts, the main agent's replies, each call with its output, ended.
fn replay(messages: &[Message]) -> Vec<acp::SessionUpdate> {
    let text = |t: &str| acp::ContentChunk::new(acp::ContentBlock::Text(acp::TextContent::new(t)));
    let earlier = |id: &str| format!("earlier-{id}");
    let mut out = Vec::new();
    for message in messages {
        match message {
            Message::System { .. } => {}
            Message::User { content } => {
                out.push(acp::SessionUpdate::UserMessageChunk(text(content)))
            }
            Message::Assistant {
                content,
                tool_calls,
            } => {
                if !content.is_empty() {
                    out.push(acp::SessionUpdate::AgentMessageChunk(text(content)));
                }
                for call in tool_calls {
                    let input: Value = serde_json::from_str(&call.function.arguments)
                        .unwrap_or_else(|_| Value::String(call.function.arguments.clone()));
                    let shown = CallShown {
                        id: earlier(&call.id),
                        tool: call.function.name.clone(),
                        what: String::new(),
                        title: crate::call::title(&call.function.name, &input),
                        kind: Block::of(&call.function.name),
                        input: input.clone(),
                        locations: Vec::new(),
                    };
                    out.push(acp::SessionUpdate::ToolCall(
                        acp::ToolCall::new(shown.id.clone(), shown.title.clone())
                            .kind(tool_kind(&shown))
                            .status(acp::ToolCallStatus::InProgress)
                            .raw_input(input),
                    ));
                }
            }
            Message::Tool {
                tool_call_id,
                content,
            } => out.push(acp::SessionUpdate::ToolCallUpdate(
                acp::ToolCallUpdate::new(
                    earlier(tool_call_id),
                    acp::ToolCallUpdateFields::new()
                        .status(acp::ToolCallStatus::Completed)
                        .content(vec![acp::ToolCallContent::from(content.clone())]),
                ),
            )),
        }
    }
    out
}

/// A session's tree as the extension gives it: `null` for a session with no subagents.
fn tree_or_null(crew: &Crew) -> Value {
    let tree = crew.tree();
    if tree.agents.len() <= 1 && tree.ended.is_empty() {
        Value::Null
    } else {
        tree.to_json()
    }
}

/// What an extension method answers for a session, or `-32602` when there is no such session.
fn answer_for(
    sessions: &Sessions,
    session_id: &str,
    answer: impl FnOnce(&LinkSession) -> std::result::Result<Value, Error>,
) -> std::result::Result<ExtAnswer, Error> {
    let session = sessions
        .get(&acp::SessionId::new(session_id))
        .ok_or_else(|| invalid("sessionId", "no such session"))?;
    answer(&session).map(ExtAnswer)
}

/// `_lembas/team`: the tree and the room's messages above `since`, every one.
fn team_view(session: &LinkSession, since: u64) -> Value {
    let room: Vec<Value> = session
        .crew
        .room(since)
        .iter()
        .map(|m| {
            let kind = match m.kind {
                RoomKind::Message => "message",
                RoomKind::Report => "report",
                RoomKind::Assignment => "assignment",
                RoomKind::Request => "request",
                RoomKind::Decision => "decision",
            };
            json!({"n": m.n, "from": m.from, "to": m.to, "recipients": m.recipients,
                "text": m.text, "time": m.time, "report": m.kind == RoomKind::Report, "kind": kind})
        })
        .collect();
    json!({"tree": tree_or_null(&session.crew), "room": room})
}

/// Serves the link until the client closes it; the exit code.
pub async fn serve(o: SessionOptions) -> Result<i32> {
    let store = match Store::open(&|k| std::env::var(k).ok()) {
        Ok(store) => Some(store),
        Err(e) => {
            eprintln!("lembas: sessions are not kept: {e}");
            None
        }
    };
    let sessions = Arc::new(Sessions {
        options: o,
        store,
        open: Mutex::new(BTreeMap::new()),
        lembas: AtomicBool::new(false),
        reads_files: AtomicBool::new(false),
        writes_files: AtomicBool::new(false),
    });
    let each = || Arc::clone(&sessions);
    let (for_init, for_new, for_prompt, for_cancel, for_mode) =
        (each(), each(), each(), each(), each());
    let (for_load, for_list) = (each(), each());
    let (for_status, for_team, for_transcript, for_findings, for_stop, for_configure) =
        (each(), each(), each(), each(), each(), each());
    let served = Agent
        .v1()
        .name("lembas")
        .on_receive_request(
            async move |request: acp::InitializeRequest, responder, _client| {
                // A client opts in to the extension with `clientCapabilities._meta.lembas`.
                let lembas = lembas_meta(request.client_capabilities.meta.as_ref()).is_some();
                for_init.lembas.store(lembas, Ordering::SeqCst);
                let fs = &request.client_capabilities.fs;
                for_init
                    .reads_files
                    .store(fs.read_text_file, Ordering::SeqCst);
                for_init
                    .writes_files
                    .store(fs.write_text_file, Ordering::SeqCst);
                let meta = lembas.then(|| {
                    let mut m = acp::Meta::new();
                    m.insert("lembas".into(), json!({"capabilities": CAPABILITIES}));
                    m
                });
                // lembas speaks version 1: the one it answers with whatever the client asked
                // (ACP: the agent answers with the client's version when it has it, else its
                // latest).
                responder.respond(
                    acp::InitializeResponse::new(ProtocolVersion::V1)
                        .agent_capabilities(
                            acp::AgentCapabilities::new()
                                .load_session(for_init.store.is_some())
                                .session_capabilities(
                                    acp::SessionCapabilities::new().list(
                                        for_init
                                            .store
                                            .is_some()
                                            .then(acp::SessionListCapabilities::new),
                                    ),
                                )
                                .prompt_capabilities(
                                    acp::PromptCapabilities::new().embedded_context(true),
                                ),
                        )
                        .agent_info(acp::Implementation::new(
                            "lembas",
                            env!("CARGO_PKG_VERSION"),
                        ))
                        .meta(meta),
                )
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::NewSessionRequest, responder, client| {
                if !request.cwd.is_absolute() {
                    return responder.respond_with_error(
                        agent_client_protocol::Error::invalid_params()
                            .data(serde_json::json!({"cwd": "not an absolute path"})),
                    );
                }
                let setting = if for_new.lembas() {
                    match agents_of(lembas_meta(request.meta.as_ref())) {
                        Ok(s) => s,
                        Err(e) => return responder.respond_with_error(e),
                    }
                } else {
                    SettingFromClient::default()
                };
                match for_new.create(request.cwd, setting, client.clone(), None) {
                    Ok((id, mode)) => {
                        responder
                            .respond(acp::NewSessionResponse::new(id.clone()).modes(modes(mode)))?;
                        // The chat's commands, for the editor's `/` menu.
                        client.send_notification(acp::SessionNotification::new(
                            id,
                            acp::SessionUpdate::AvailableCommandsUpdate(commands()),
                        ))
                    }
                    Err(e) => responder.respond_with_internal_error(format!("{e:#}")),
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::LoadSessionRequest, responder, client| {
                let Some(store) = &for_load.store else {
                    return responder
                        .respond_with_error(invalid("sessionId", "sessions are not kept here"));
                };
                // A stored session that cannot be read is said, never started anew.
                let loaded = match store.load(&request.session_id.to_string()) {
                    Ok(loaded) => loaded,
                    Err(e) => {
                        return responder.respond_with_error(invalid("sessionId", &e.to_string()))
                    }
                };
                let cwd = std::fs::canonicalize(&request.cwd).unwrap_or(request.cwd.clone());
                if loaded.info.cwd != cwd {
                    return responder.respond_with_error(invalid(
                        "cwd",
                        &format!("the session works in {}", loaded.info.cwd.display()),
                    ));
                }
                let updates = replay(&loaded.messages);
                let plan = loaded.info.plan.clone();
                match for_load.create(
                    cwd,
                    SettingFromClient::default(),
                    client.clone(),
                    Some(loaded),
                ) {
                    Ok((id, mode)) => {
                        for update in updates {
                            client.send_notification(acp::SessionNotification::new(
                                id.clone(),
                                update,
                            ))?;
                        }
                        if let Some(plan) = plan {
                            client.send_notification(acp::SessionNotification::new(
                                id.clone(),
                                acp::SessionUpdate::Plan(plan_update(&plan)),
                            ))?;
                        }
                        client.send_notification(acp::SessionNotification::new(
                            id,
                            acp::SessionUpdate::AvailableCommandsUpdate(commands()),
                        ))?;
                        responder.respond(acp::LoadSessionResponse::new().modes(modes(mode)))
                    }
                    Err(e) => responder.respond_with_internal_error(format!("{e:#}")),
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::ListSessionsRequest, responder, _client| {
                let Some(store) = &for_list.store else {
                    return responder.respond(acp::ListSessionsResponse::new(Vec::new()));
                };
                let cwd = request
                    .cwd
                    .as_ref()
                    .map(|c| std::fs::canonicalize(c).unwrap_or(c.clone()));
                match store.list(cwd.as_deref()) {
                    Ok(kept) => {
                        for e in &kept.unreadable {
                            eprintln!("lembas: a kept session cannot be read: {e}");
                        }
                        responder.respond(acp::ListSessionsResponse::new(
                            kept.sessions
                                .into_iter()
                                .map(|s| {
                                    acp::SessionInfo::new(s.id, s.cwd)
                                        .title((!s.title.is_empty()).then_some(s.title))
                                        .updated_at(rfc3339(s.updated))
                                })
                                .collect(),
                        ))
                    }
                    Err(e) => responder.respond_with_internal_error(e.to_string()),
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::PromptRequest, responder, client| {
                let Some(session) = for_prompt.get(&request.session_id) else {
                    return responder.respond_with_error(
                        agent_client_protocol::Error::invalid_params()
                            .data(serde_json::json!({"sessionId": "no such session"})),
                    );
                };
                // The setting comes down with every turn (capability `agents`).
                if for_prompt.lembas() {
                    match agents_of(lembas_meta(request.meta.as_ref())) {
                        Ok(SettingFromClient {
                            agents: Some(a), ..
                        }) => session.crew.set_agents(a.min, a.max),
                        Ok(_) => {}
                        Err(e) => return responder.respond_with_error(e),
                    }
                }
                // A command of the chat's, typed in the editor: done, and said.
                if let [acp::ContentBlock::Text(t)] = request.prompt.as_slice() {
                    let said = read_line(&t.text);
                    if !matches!(said, Said::Prompt(_) | Said::Nothing) {
                        let (answer, mode) = run_command(&session, said);
                        let id = request.session_id.clone();
                        if let Some(mode) = mode {
                            client.send_notification(acp::SessionNotification::new(
                                id.clone(),
                                acp::SessionUpdate::CurrentModeUpdate(acp::CurrentModeUpdate::new(
                                    mode.as_str(),
                                )),
                            ))?;
                        }
                        client.send_notification(acp::SessionNotification::new(
                            id,
                            acp::SessionUpdate::AgentMessageChunk(acp::ContentChunk::new(
                                acp::ContentBlock::Text(acp::TextContent::new(answer)),
                            )),
                        ))?;
                        return responder
                            .respond(acp::PromptResponse::new(acp::StopReason::EndTurn));
                    }
                }
                // The text, and what the person attached, read as the rules allow.
                let text = prompt_text(&request.prompt, &|path| session.crew.read_attached(path));
                // The turn runs apart from the loop: its permission questions are requests too.
                client.spawn(async move {
                    session.crew.prompt(&text);
                    let end = session.crew.finished().await;
                    session.caught_up().await;
                    let stopped = session.crew.was_stopped();
                    match end {
                        SessionEnd::Finished if stopped => {
                            responder.respond(acp::PromptResponse::new(acp::StopReason::Cancelled))
                        }
                        // Its steps ran out (the `max_steps` of a turn).
                        SessionEnd::Finished if session.crew.lead_out_of_steps() => responder
                            .respond(acp::PromptResponse::new(acp::StopReason::MaxTurnRequests)),
                        SessionEnd::Finished => {
                            responder.respond(acp::PromptResponse::new(acp::StopReason::EndTurn))
                        }
                        // The server refused the key: the editor asks the person to set it.
                        SessionEnd::Failed(e) if session.crew.failed_for_key() => {
                            responder.respond_with_error(Error::auth_required().data(e))
                        }
                        SessionEnd::Failed(e) => responder.respond_with_internal_error(e),
                    }
                })
            },
            on_receive_request!(),
        )
        .on_receive_notification(
            async move |cancel: acp::CancelNotification, _client| {
                if let Some(session) = for_cancel.get(&cancel.session_id) {
                    session.crew.stop_turn();
                }
                Ok(())
            },
            on_receive_notification!(),
        )
        .on_receive_request(
            async move |request: acp::SetSessionModeRequest, responder, _client| {
                let mode = Mode::parse(&request.mode_id.to_string());
                match (for_mode.get(&request.session_id), mode) {
                    (Some(session), Some(mode)) => match session.crew.set_mode(mode) {
                        Ok(()) => responder.respond(acp::SetSessionModeResponse::new()),
                        Err(why) => responder.respond_with_error(
                            agent_client_protocol::Error::invalid_params()
                                .data(serde_json::json!({ "modeId": why })),
                        ),
                    },
                    _ => responder.respond_with_error(
                        agent_client_protocol::Error::invalid_params()
                            .data(serde_json::json!({"modeId": "not a mode of this session"})),
                    ),
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: StatusRequest, responder, _client| {
                let id = request.session_id.clone();
                responder.respond_with_result(answer_for(&for_status, &id, |s| {
                    Ok(json!({"sessionId": id, "exists": true, "held": "here",
                        "busy": s.crew.busy(), "title": "", "queued": [],
                        "progress": s.crew.lead_progress().to_json(),
                        "tree": tree_or_null(&s.crew)}))
                }))
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: TeamRequest, responder, _client| {
                let since = request.since.unwrap_or(0);
                responder.respond_with_result(answer_for(&for_team, &request.session_id, |s| {
                    Ok(team_view(s, since))
                }))
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: TranscriptRequest, responder, _client| {
                let transcript = for_transcript
                    .get(&acp::SessionId::new(request.session_id.as_str()))
                    .map(|s| (s.crew.transcript(&request.id), s.crew.tree()));
                let answer = match transcript {
                    None => Err(invalid("sessionId", "no such session")),
                    Some((None, _)) => Err(invalid("id", "no such subagent in this session")),
                    Some((Some(turns), tree)) => {
                        // Its conversation as it went, without the system prompt.
                        let turns: Vec<_> = turns
                            .read()
                            .await
                            .iter()
                            .filter(|m| !matches!(m, crate::provider::chat::Message::System { .. }))
                            .cloned()
                            .collect();
                        let state = tree
                            .agents
                            .iter()
                            .chain(&tree.ended)
                            .find(|a| a.id == request.id)
                            .map(|a| a.state.as_str());
                        serde_json::to_value(&turns)
                            .map(|turns| {
                                ExtAnswer(json!({"id": request.id, "state": state, "turns": turns}))
                            })
                            .map_err(|e| Error::internal_error().data(e.to_string()))
                    }
                };
                responder.respond_with_result(answer)
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: FindingsRequest, responder, _client| {
                let id = request.id.clone();
                responder.respond_with_result(answer_for(&for_findings, &request.session_id, |s| {
                    let findings = s
                        .crew
                        .findings(&id)
                        .ok_or_else(|| invalid("id", "no such subagent in this session"))?;
                    let list: Vec<Value> = findings
                        .iter()
                        .map(|f| json!({"n": f.n, "text": f.text, "time": f.time}))
                        .collect();
                    Ok(json!({"id": id, "findings": list}))
                }))
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: StopRequest, responder, _client| {
                let id = request.id.clone();
                responder.respond_with_result(answer_for(&for_stop, &request.session_id, |s| {
                    let stopped = s
                        .crew
                        .stop_by_id(&id)
                        .ok_or_else(|| invalid("id", "not a live subagent"))?;
                    Ok(json!({"stopped": stopped}))
                }))
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: ConfigureRequest, responder, _client| {
                let agents = request.agents;
                responder.respond_with_result(answer_for(
                    &for_configure,
                    &request.session_id,
                    |s| {
                        if let Some(a) = agents {
                            let range = a.range()?;
                            s.crew.set_agents(range.min, range.max);
                        }
                        Ok(json!({"model": s.crew.model(), "effort": null}))
                    },
                ))
            },
            on_receive_request!(),
        )
        .connect_to(Stdio::new())
        .await;
    for session in sessions
        .open
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .values()
    {
        session.crew.close();
    }
    match served {
        Ok(()) => Ok(0),
        // The client closed the link while an event was still on its way to it (a tree's last
        // state, a paced phase): the link is over, as the client meant.
        Err(e) if e.to_string().contains("Broken pipe") => Ok(0),
        Err(e) => Err(anyhow::anyhow!("the ACP link: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_turns_the_network_off_never_on() {
        let off = agents_of(Some(&serde_json::json!({"network": false}))).unwrap();
        assert!(off.no_network);
        let on = agents_of(Some(&serde_json::json!({"network": true}))).unwrap();
        assert!(!on.no_network);
        assert!(!agents_of(None).unwrap().no_network);
        assert!(agents_of(Some(&serde_json::json!({"network": "off"}))).is_err());
    }
}
