//! One handler per method of the link: each reads its request, does what it asks of the
//! session, and answers.

use super::*;
use agent_client_protocol::v1::Responder;

/// `initialize`: the extension when the client opts in, the agent's capabilities, version 1.
pub(super) async fn initialize(
    sessions: Arc<Sessions>,
    request: acp::InitializeRequest,
    responder: Responder<acp::InitializeResponse>,
    _client: ConnectionTo<Client>,
) -> std::result::Result<(), Error> {
    // A client opts in to the extension with `clientCapabilities._meta.lembas`.
    let lembas = lembas_meta(request.client_capabilities.meta.as_ref()).is_some();
    sessions.lembas.store(lembas, Ordering::SeqCst);
    let fs = &request.client_capabilities.fs;
    sessions
        .reads_files
        .store(fs.read_text_file, Ordering::SeqCst);
    sessions
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
                    .load_session(sessions.store.is_some())
                    .session_capabilities(
                        acp::SessionCapabilities::new().list(
                            sessions
                                .store
                                .is_some()
                                .then(acp::SessionListCapabilities::new),
                        ),
                    )
                    .prompt_capabilities(acp::PromptCapabilities::new().embedded_context(true)),
            )
            .agent_info(acp::Implementation::new(
                "lembas",
                env!("CARGO_PKG_VERSION"),
            ))
            .meta(meta),
    )
}

/// `session/new`: a session in `cwd`, then its commands for the `/` menu.
pub(super) async fn new_session(
    sessions: Arc<Sessions>,
    request: acp::NewSessionRequest,
    responder: Responder<acp::NewSessionResponse>,
    client: ConnectionTo<Client>,
) -> std::result::Result<(), Error> {
    if !request.cwd.is_absolute() {
        return responder.respond_with_error(
            agent_client_protocol::Error::invalid_params()
                .data(serde_json::json!({"cwd": "not an absolute path"})),
        );
    }
    let setting = if sessions.lembas() {
        match agents_of(lembas_meta(request.meta.as_ref())) {
            Ok(s) => s,
            Err(e) => return responder.respond_with_error(e),
        }
    } else {
        SettingFromClient::default()
    };
    match sessions.create(request.cwd, setting, client.clone(), None) {
        Ok((id, mode)) => {
            // The model picker, where the server says which models it serves.
            let options = match sessions.get(&id) {
                Some(session) => session.config_options().await,
                None => None,
            };
            responder.respond(
                acp::NewSessionResponse::new(id.clone())
                    .modes(modes(mode))
                    .config_options(options),
            )?;
            // The chat's commands, for the editor's `/` menu.
            client.send_notification(acp::SessionNotification::new(
                id,
                acp::SessionUpdate::AvailableCommandsUpdate(commands()),
            ))
        }
        Err(e) => responder.respond_with_internal_error(format!("{e:#}")),
    }
}

/// `session/load`: a kept session, its conversation replayed as updates, then its plan and commands.
pub(super) async fn load_session(
    sessions: Arc<Sessions>,
    request: acp::LoadSessionRequest,
    responder: Responder<acp::LoadSessionResponse>,
    client: ConnectionTo<Client>,
) -> std::result::Result<(), Error> {
    let Some(store) = &sessions.store else {
        return responder.respond_with_error(invalid("sessionId", "sessions are not kept here"));
    };
    // A stored session that cannot be read is said, never started anew.
    let loaded = match store.load(&request.session_id.to_string()) {
        Ok(loaded) => loaded,
        Err(e) => return responder.respond_with_error(invalid("sessionId", &e.to_string())),
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
    match sessions.create(
        cwd,
        SettingFromClient::default(),
        client.clone(),
        Some(loaded),
    ) {
        Ok((id, mode)) => {
            for update in updates {
                client.send_notification(acp::SessionNotification::new(id.clone(), update))?;
            }
            if let Some(plan) = plan {
                client.send_notification(acp::SessionNotification::new(
                    id.clone(),
                    acp::SessionUpdate::Plan(plan_update(&plan)),
                ))?;
            }
            let options = match sessions.get(&id) {
                Some(session) => session.config_options().await,
                None => None,
            };
            client.send_notification(acp::SessionNotification::new(
                id,
                acp::SessionUpdate::AvailableCommandsUpdate(commands()),
            ))?;
            responder.respond(
                acp::LoadSessionResponse::new()
                    .modes(modes(mode))
                    .config_options(options),
            )
        }
        Err(e) => responder.respond_with_internal_error(format!("{e:#}")),
    }
}

/// `session/list`: the kept sessions, in `cwd` when given, the newest first.
pub(super) async fn list_sessions(
    sessions: Arc<Sessions>,
    request: acp::ListSessionsRequest,
    responder: Responder<acp::ListSessionsResponse>,
    _client: ConnectionTo<Client>,
) -> std::result::Result<(), Error> {
    let Some(store) = &sessions.store else {
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
}

/// `session/prompt`: a command of the chat's done, or a turn run apart from the loop (its questions are requests too).
pub(super) async fn prompt(
    sessions: Arc<Sessions>,
    request: acp::PromptRequest,
    responder: Responder<acp::PromptResponse>,
    client: ConnectionTo<Client>,
) -> std::result::Result<(), Error> {
    let Some(session) = sessions.get(&request.session_id) else {
        return responder.respond_with_error(
            agent_client_protocol::Error::invalid_params()
                .data(serde_json::json!({"sessionId": "no such session"})),
        );
    };
    // The setting comes down with every turn (capability `agents`).
    if sessions.lembas() {
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
            return responder.respond(acp::PromptResponse::new(acp::StopReason::EndTurn));
        }
    }
    // The turn runs apart from the loop: its permission questions are requests too, and so are
    // the editor's files an attachment is read from.
    let blocks = request.prompt;
    client.spawn(async move {
        // The text, and what the person attached, read as the rules allow — off the loop.
        let crew = Arc::clone(&session.crew);
        let text = tokio::task::spawn_blocking(move || {
            prompt_text(&blocks, &|path| crew.read_attached(path))
        })
        .await
        .map_err(|e| Error::internal_error().data(e.to_string()))?;
        session.crew.prompt(&text);
        let end = session.crew.finished().await;
        session.caught_up().await;
        let stopped = session.crew.was_stopped();
        match end {
            SessionEnd::Finished if stopped => {
                responder.respond(acp::PromptResponse::new(acp::StopReason::Cancelled))
            }
            // Its steps ran out (the `max_steps` of a turn).
            SessionEnd::Finished if session.crew.lead_out_of_steps() => {
                responder.respond(acp::PromptResponse::new(acp::StopReason::MaxTurnRequests))
            }
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
}

/// `session/set_mode`: the main agent's mode from its next call on.
pub(super) async fn set_mode(
    sessions: Arc<Sessions>,
    request: acp::SetSessionModeRequest,
    responder: Responder<acp::SetSessionModeResponse>,
    _client: ConnectionTo<Client>,
) -> std::result::Result<(), Error> {
    let mode = Mode::parse(&request.mode_id.to_string());
    match (sessions.get(&request.session_id), mode) {
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
}

/// `_lembas/session/status`.
pub(super) async fn status(
    sessions: Arc<Sessions>,
    request: StatusRequest,
    responder: Responder<ExtAnswer>,
    _client: ConnectionTo<Client>,
) -> std::result::Result<(), Error> {
    let id = request.session_id.clone();
    responder.respond_with_result(answer_for(&sessions, &id, |s| {
        Ok(json!({"sessionId": id, "exists": true, "held": "here",
            "busy": s.crew.busy(), "title": "", "queued": [],
            "progress": s.crew.lead_progress().to_json(),
            "tree": tree_or_null(&s.crew)}))
    }))
}

/// `_lembas/team`: the tree and the room above `since`.
pub(super) async fn team(
    sessions: Arc<Sessions>,
    request: TeamRequest,
    responder: Responder<ExtAnswer>,
    _client: ConnectionTo<Client>,
) -> std::result::Result<(), Error> {
    let since = request.since.unwrap_or(0);
    responder.respond_with_result(answer_for(&sessions, &request.session_id, |s| {
        Ok(team_view(s, since))
    }))
}

/// `_lembas/team/transcript`: a subagent's conversation, without its system prompt.
pub(super) async fn transcript(
    sessions: Arc<Sessions>,
    request: TranscriptRequest,
    responder: Responder<ExtAnswer>,
    _client: ConnectionTo<Client>,
) -> std::result::Result<(), Error> {
    let transcript = sessions
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
                .map(|turns| ExtAnswer(json!({"id": request.id, "state": state, "turns": turns})))
                .map_err(|e| Error::internal_error().data(e.to_string()))
        }
    };
    responder.respond_with_result(answer)
}

/// `_lembas/team/findings`.
pub(super) async fn findings(
    sessions: Arc<Sessions>,
    request: FindingsRequest,
    responder: Responder<ExtAnswer>,
    _client: ConnectionTo<Client>,
) -> std::result::Result<(), Error> {
    let id = request.id.clone();
    responder.respond_with_result(answer_for(&sessions, &request.session_id, |s| {
        let findings = s
            .crew
            .findings(&id)
            .ok_or_else(|| invalid("id", "no such subagent in this session"))?;
        let list: Vec<Value> = findings.iter().map(ToJson::to_json).collect();
        Ok(json!({"id": id, "findings": list}))
    }))
}

/// `_lembas/team/stop`.
pub(super) async fn stop(
    sessions: Arc<Sessions>,
    request: StopRequest,
    responder: Responder<ExtAnswer>,
    _client: ConnectionTo<Client>,
) -> std::result::Result<(), Error> {
    let id = request.id.clone();
    responder.respond_with_result(answer_for(&sessions, &request.session_id, |s| {
        let stopped = s
            .crew
            .stop_by_id(&id)
            .ok_or_else(|| invalid("id", "not a live subagent"))?;
        Ok(json!({"stopped": stopped}))
    }))
}

/// `_lembas/configure`: the Subagents setting between prompts.
pub(super) async fn configure(
    sessions: Arc<Sessions>,
    request: ConfigureRequest,
    responder: Responder<ExtAnswer>,
    _client: ConnectionTo<Client>,
) -> std::result::Result<(), Error> {
    let agents = request.agents;
    responder.respond_with_result(answer_for(&sessions, &request.session_id, |s| {
        if let Some(a) = agents {
            let range = a.range()?;
            s.crew.set_agents(range.min, range.max);
        }
        Ok(json!({"model": s.crew.model(), "effort": null}))
    }))
}

/// `session/set_config_option`: the model the main agent runs on, one the server serves.
pub(super) async fn set_config_option(
    sessions: Arc<Sessions>,
    request: acp::SetSessionConfigOptionRequest,
    responder: Responder<acp::SetSessionConfigOptionResponse>,
    _client: ConnectionTo<Client>,
) -> std::result::Result<(), Error> {
    let Some(session) = sessions.get(&request.session_id) else {
        return responder.respond_with_error(invalid("sessionId", "no such session"));
    };
    if request.config_id.to_string() != MODEL_OPTION {
        return responder.respond_with_error(invalid("configId", "not an option of this session"));
    }
    let Some(model) = request.value.as_value_id().map(|v| v.to_string()) else {
        return responder.respond_with_error(invalid("value", "a model's id"));
    };
    let served = session
        .models
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
        .unwrap_or_default();
    if !served.contains(&model) {
        return responder.respond_with_error(invalid("value", "not a model the server serves"));
    }
    session.crew.set_model(&model);
    responder.respond(acp::SetSessionConfigOptionResponse::new(model_options(
        &model, &served,
    )))
}
