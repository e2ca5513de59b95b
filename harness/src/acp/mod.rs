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

mod asking;
mod ext;
mod handlers;
mod updates;

use asking::*;
use ext::*;
use updates::*;

/// A session of the link: its tree.
struct LinkSession {
    crew: Arc<Crew>,
    /// The session's events its update task has sent on to the client.
    forwarded: Arc<std::sync::atomic::AtomicU64>,
    /// The models the server serves, for the model picker (none: it did not say).
    models: Mutex<Option<Vec<String>>>,
}

impl LinkSession {
    /// The session's options for the client's pickers: the model, where the server says which
    /// it serves.
    async fn config_options(&self) -> Option<Vec<acp::SessionConfigOption>> {
        let models = self.crew.served_models().await;
        *self.models.lock().unwrap_or_else(PoisonError::into_inner) = models.clone();
        models.map(|m| model_options(&self.crew.model(), &m))
    }

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
            project: self.store.is_some(),
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
            .insert(
                id.to_string(),
                Arc::new(LinkSession {
                    crew,
                    forwarded,
                    models: Mutex::new(None),
                }),
            );
        Ok((id, mode))
    }
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

/// Serves the link until the client closes it; the exit code.
pub async fn serve(options: SessionOptions) -> Result<i32> {
    let store = match Store::open(&|k| std::env::var(k).ok()) {
        Ok(store) => Some(store),
        Err(e) => {
            eprintln!("lembas: sessions are not kept: {e}");
            None
        }
    };
    let sessions = Arc::new(Sessions {
        options,
        store,
        open: Mutex::new(BTreeMap::new()),
        lembas: AtomicBool::new(false),
        reads_files: AtomicBool::new(false),
        writes_files: AtomicBool::new(false),
    });
    let each = || Arc::clone(&sessions);
    let (for_init, for_new, for_prompt, for_cancel, for_mode) =
        (each(), each(), each(), each(), each());
    let (for_load, for_list, for_config) = (each(), each(), each());
    let (for_status, for_team, for_transcript, for_findings, for_stop, for_configure) =
        (each(), each(), each(), each(), each(), each());
    let served = Agent
        .v1()
        .name("lembas")
        .on_receive_request(
            async move |request: acp::InitializeRequest, responder, client| {
                handlers::initialize(Arc::clone(&for_init), request, responder, client).await
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::NewSessionRequest, responder, client| {
                handlers::new_session(Arc::clone(&for_new), request, responder, client).await
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::LoadSessionRequest, responder, client| {
                handlers::load_session(Arc::clone(&for_load), request, responder, client).await
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::ListSessionsRequest, responder, client| {
                handlers::list_sessions(Arc::clone(&for_list), request, responder, client).await
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::PromptRequest, responder, client| {
                handlers::prompt(Arc::clone(&for_prompt), request, responder, client).await
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
            async move |request: acp::SetSessionConfigOptionRequest, responder, client| {
                handlers::set_config_option(Arc::clone(&for_config), request, responder, client)
                    .await
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::SetSessionModeRequest, responder, client| {
                handlers::set_mode(Arc::clone(&for_mode), request, responder, client).await
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: StatusRequest, responder, client| {
                handlers::status(Arc::clone(&for_status), request, responder, client).await
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: TeamRequest, responder, client| {
                handlers::team(Arc::clone(&for_team), request, responder, client).await
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: TranscriptRequest, responder, client| {
                handlers::transcript(Arc::clone(&for_transcript), request, responder, client).await
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: FindingsRequest, responder, client| {
                handlers::findings(Arc::clone(&for_findings), request, responder, client).await
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: StopRequest, responder, client| {
                handlers::stop(Arc::clone(&for_stop), request, responder, client).await
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: ConfigureRequest, responder, client| {
                handlers::configure(Arc::clone(&for_configure), request, responder, client).await
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
