//! `lembas acp`: lembas as an agent of the Agent Client Protocol on standard input and output, for
//! editors (Zed and others). stdout carries ACP frames only; what lembas says otherwise goes to
//! stderr. Plain ACP, so any client works: `initialize`; `session/new`, its `cwd` the project
//! root; `session/prompt`, each a turn on the session's conversation, streaming `session/update`
//! (the reply's chunks, each call as a `tool_call` and its `tool_call_update`) and answering its
//! stop reason; `session/cancel` (the turn and every subagent stop); `session/set_mode` (manual,
//! edit, auto, plan); a call the rules ask the person about is a `session/request_permission`
//! (allow once, allow always — the rules' approval — or reject).
//!
//! Each session is a [`Crew`] in the project; its events reach the client through one task per
//! session. A turn runs in a task of its own: a handler that waited for it (or for a permission
//! answer) would hold the connection's loop.

use crate::config::SessionOptions;
use crate::crew::{Crew, SessionEnd};
use crate::engine::{Approval, Asker};
use crate::events::SessionEvent;
use crate::session::crew_in;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{on_receive_notification, on_receive_request, Agent, Client, Stdio};
use anyhow::Result;
use lembas_rules::permission::Mode;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::mpsc;

/// The permission options lembas offers, by id.
const ALLOW_ONCE: &str = "allow_once";
const ALLOW_ALWAYS: &str = "allow_always";
const REJECT: &str = "reject_once";

/// A session of the link: its tree.
struct LinkSession {
    crew: Arc<Crew>,
}

/// Every session of the link, and how new ones are made.
struct Sessions {
    options: SessionOptions,
    open: Mutex<BTreeMap<String, Arc<LinkSession>>>,
}

impl Sessions {
    fn get(&self, id: &acp::SessionId) -> Option<Arc<LinkSession>> {
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&id.to_string())
            .cloned()
    }

    /// A session in `cwd`: its tree, its events sent to the client, its approvals asked of it.
    fn create(
        &self,
        cwd: std::path::PathBuf,
        client: ConnectionTo<Client>,
    ) -> Result<(acp::SessionId, Mode)> {
        let id = {
            let open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
            acp::SessionId::new(format!("lembas-{}", open.len() + 1))
        };
        let (tx, rx) = mpsc::unbounded_channel();
        let asker = Arc::new(ClientAsker {
            client: client.clone(),
            session: id.clone(),
            runtime: tokio::runtime::Handle::current(),
        });
        let crew = crew_in(&self.options, cwd, asker, self.options.unattended, tx)?;
        let mode = crew.mode();
        tokio::spawn(send_updates(rx, client, id.clone()));
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.to_string(), Arc::new(LinkSession { crew }));
        Ok((id, mode))
    }
}

/// Asks the client, as ACP's `session/request_permission`: allow once, allow always, reject. No
/// answer (a cancelled request, a closed link) is a refusal.
struct ClientAsker {
    client: ConnectionTo<Client>,
    session: acp::SessionId,
    runtime: tokio::runtime::Handle,
}

impl Asker for ClientAsker {
    fn ask(&self, agent: &str, tool: &str, what: &str) -> Approval {
        let title = if what.is_empty() {
            format!("{agent}: {tool}")
        } else {
            format!("{agent}: {tool} {what}")
        };
        let call = acp::ToolCallUpdate::new(
            format!("ask-{tool}-{}", crate::engine::now_ms()),
            acp::ToolCallUpdateFields::new().title(title),
        );
        let options = vec![
            acp::PermissionOption::new(
                ALLOW_ONCE,
                "Allow once",
                acp::PermissionOptionKind::AllowOnce,
            ),
            acp::PermissionOption::new(
                ALLOW_ALWAYS,
                "Allow always",
                acp::PermissionOptionKind::AllowAlways,
            ),
            acp::PermissionOption::new(REJECT, "Reject", acp::PermissionOptionKind::RejectOnce),
        ];
        let request = acp::RequestPermissionRequest::new(self.session.clone(), call, options);
        let sent = self.client.send_request(request);
        let answer = tokio::task::block_in_place(|| self.runtime.block_on(sent.block_task()));
        match answer.map(|a| a.outcome) {
            Ok(acp::RequestPermissionOutcome::Selected(chosen)) => {
                match chosen.option_id.to_string().as_str() {
                    ALLOW_ONCE => Approval::Once,
                    ALLOW_ALWAYS => Approval::Always,
                    _ => Approval::Deny,
                }
            }
            _ => Approval::Deny,
        }
    }
}

/// The modes a client may pick, the rules' four.
fn modes(current: Mode) -> acp::SessionModeState {
    acp::SessionModeState::new(
        current.as_str(),
        Mode::ALL
            .iter()
            .map(|m| acp::SessionMode::new(m.as_str(), m.as_str()))
            .collect::<Vec<_>>(),
    )
}

/// A prompt's text: its text blocks, in order.
fn prompt_text(blocks: &[acp::ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            acp::ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// What a tool is, as ACP's `kind` says it.
fn tool_kind(tool: &str) -> acp::ToolKind {
    match tool {
        "read" | "list" => acp::ToolKind::Read,
        "write" | "edit" => acp::ToolKind::Edit,
        "glob" | "grep" => acp::ToolKind::Search,
        "bash" => acp::ToolKind::Execute,
        _ => acp::ToolKind::Other,
    }
}

/// Sends a session's events to the client as `session/update`: the main agent's reply as
/// `agent_message_chunk`, each of its calls as a `tool_call` and, when it ends, a
/// `tool_call_update` with its output.
async fn send_updates(
    mut rx: mpsc::UnboundedReceiver<SessionEvent>,
    client: ConnectionTo<Client>,
    session: acp::SessionId,
) {
    let mut calls = 0u64;
    // Calls started and not ended, oldest first, by tool.
    let mut running: VecDeque<(String, String)> = VecDeque::new();
    while let Some(event) = rx.recv().await {
        let update = match event {
            SessionEvent::Text { agent, text } if agent.is_main() => {
                acp::SessionUpdate::AgentMessageChunk(acp::ContentChunk::new(
                    acp::ContentBlock::Text(acp::TextContent::new(text)),
                ))
            }
            SessionEvent::ToolStart { agent, tool, what } if agent.is_main() => {
                calls += 1;
                let id = format!("call-{calls}");
                running.push_back((tool.clone(), id.clone()));
                let title = if what.is_empty() {
                    tool.clone()
                } else {
                    format!("{tool} {what}")
                };
                acp::SessionUpdate::ToolCall(
                    acp::ToolCall::new(id, title)
                        .kind(tool_kind(&tool))
                        .status(acp::ToolCallStatus::InProgress),
                )
            }
            SessionEvent::ToolEnd {
                agent,
                tool,
                output,
            } if agent.is_main() => {
                let Some(at) = running.iter().position(|(t, _)| *t == tool) else {
                    continue;
                };
                let Some((_, id)) = running.remove(at) else {
                    continue;
                };
                acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new(
                    id,
                    acp::ToolCallUpdateFields::new()
                        .status(acp::ToolCallStatus::Completed)
                        .content(vec![acp::ToolCallContent::from(output)]),
                ))
            }
            _ => continue,
        };
        if client
            .send_notification(acp::SessionNotification::new(session.clone(), update))
            .is_err()
        {
            return;
        }
    }
}

/// Serves the link until the client closes it; the exit code.
pub async fn serve(o: SessionOptions) -> Result<i32> {
    let sessions = Arc::new(Sessions {
        options: o,
        open: Mutex::new(BTreeMap::new()),
    });
    let (for_new, for_prompt, for_cancel, for_mode) = (
        Arc::clone(&sessions),
        Arc::clone(&sessions),
        Arc::clone(&sessions),
        Arc::clone(&sessions),
    );
    let served =
        Agent
            .v1()
            .name("lembas")
            .on_receive_request(
                async move |request: acp::InitializeRequest, responder, _client| {
                    responder.respond(
                        acp::InitializeResponse::new(request.protocol_version)
                            .agent_capabilities(acp::AgentCapabilities::new())
                            .agent_info(acp::Implementation::new(
                                "lembas",
                                env!("CARGO_PKG_VERSION"),
                            )),
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
                    match for_new.create(request.cwd, client) {
                        Ok((id, mode)) => {
                            responder.respond(acp::NewSessionResponse::new(id).modes(modes(mode)))
                        }
                        Err(e) => responder.respond_with_internal_error(format!("{e:#}")),
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
                    let text = prompt_text(&request.prompt);
                    // The turn runs apart from the loop: its permission questions are requests too.
                    client.spawn(async move {
                        session.crew.prompt(&text);
                        let end = session.crew.finished().await;
                        let stopped = session.crew.was_stopped();
                        match end {
                            SessionEnd::Finished if stopped => responder
                                .respond(acp::PromptResponse::new(acp::StopReason::Cancelled)),
                            SessionEnd::Finished => responder
                                .respond(acp::PromptResponse::new(acp::StopReason::EndTurn)),
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
                        (Some(session), Some(mode)) => {
                            session.crew.set_mode(mode);
                            responder.respond(acp::SetSessionModeResponse::new())
                        }
                        _ => responder.respond_with_error(
                            agent_client_protocol::Error::invalid_params()
                                .data(serde_json::json!({"modeId": "not a mode of this session"})),
                        ),
                    }
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
        Err(e) => Err(anyhow::anyhow!("the ACP link: {e}")),
    }
}
