#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! `lembas acp` driven by a real client of the protocol — the `agent-client-protocol` crate's
//! client side, spawning the binary and speaking ACP over its stdio — against the scripted
//! server on 127.0.0.1: a session, two prompts on one conversation, streamed chunks, a tool call
//! with its update, a permission asked once and then remembered, a cancel, a bad request.

mod common;
use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{on_receive_notification, on_receive_request, AcpAgent, Agent, Client};
use common::scripted::{call, content, last, rule, serve, usage, Reply};
use serde_json::json;
use std::str::FromStr;
use std::sync::{Arc, Mutex};

/// An empty project folder of this test run.
fn project(name: &str) -> std::path::PathBuf {
    common::fresh_dir(name)
}

/// `lembas acp` on the server at `url`, as the crate's client spawns an agent.
fn lembas_acp(url: &str) -> AcpAgent {
    lembas_acp_with(url, "")
}

/// `lembas acp` on the server at `url` with more arguments.
fn lembas_acp_with(url: &str, more: &str) -> AcpAgent {
    // Its sessions kept in this test run's state folder, never the person's.
    let command = format!(
        "env XDG_STATE_HOME={} {} acp --base-url {url} --model m {more}",
        common::state_home().display(),
        env!("CARGO_BIN_EXE_lembas")
    );
    AcpAgent::from_str(&command).unwrap()
}

fn text(blocks: &str) -> Vec<acp::ContentBlock> {
    vec![acp::ContentBlock::Text(acp::TextContent::new(blocks))]
}

#[tokio::test(flavor = "multi_thread")]
async fn an_editor_holds_a_session_over_acp() {
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let server = serve(
        vec![
            rule(
                "",
                "First.",
                Reply::Sse(vec![content("One."), "[DONE]".into()]),
            ),
            rule(
                "",
                "Second.",
                Reply::Sse(vec![content("Two."), "[DONE]".into()]),
            ),
            rule(
                "",
                "Write it.",
                Reply::Sse(vec![
                    call(
                        "w1",
                        "write",
                        json!({"path": "notes.txt", "content": "one\n"}),
                    ),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "",
                "wrote notes.txt",
                Reply::Sse(vec![content("Written."), "[DONE]".into()]),
            ),
            rule(
                "",
                "Again.",
                Reply::Sse(vec![
                    call(
                        "w2",
                        "write",
                        json!({"path": "more.txt", "content": "two\n"}),
                    ),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "",
                "wrote more.txt",
                Reply::Sse(vec![content("Again written."), "[DONE]".into()]),
            ),
            rule(
                "",
                "Hold on.",
                Reply::Hold(vec![content("Thinking")], Arc::clone(&gate), vec![]),
            ),
        ],
        0,
    )
    .await;
    let dir = project("lembas-acp");
    let agent = lembas_acp(&server.url);
    let updates: Arc<Mutex<Vec<acp::SessionUpdate>>> = Arc::default();
    let asked: Arc<Mutex<Vec<acp::RequestPermissionRequest>>> = Arc::default();
    let (seen, questions) = (Arc::clone(&updates), Arc::clone(&asked));
    let project = dir.clone();
    Client
        .v1()
        .on_receive_notification(
            async move |n: acp::SessionNotification, _agent| {
                seen.lock().unwrap().push(n.update);
                Ok(())
            },
            on_receive_notification!(),
        )
        .on_receive_request(
            async move |request: acp::RequestPermissionRequest, responder, _agent| {
                let always = request
                    .options
                    .iter()
                    .find(|o| o.kind == acp::PermissionOptionKind::AllowAlways)
                    .map(|o| o.option_id.clone())
                    .unwrap();
                questions.lock().unwrap().push(request);
                responder.respond(acp::RequestPermissionResponse::new(
                    acp::RequestPermissionOutcome::Selected(acp::SelectedPermissionOutcome::new(
                        always,
                    )),
                ))
            },
            on_receive_request!(),
        )
        .connect_with(agent, async move |lembas: ConnectionTo<Agent>| {
            let init = lembas
                .send_request(acp::InitializeRequest::new(ProtocolVersion::V1))
                .block_task()
                .await?;
            assert_eq!(init.agent_info.unwrap().name, "lembas");
            let session = lembas
                .send_request(acp::NewSessionRequest::new(project.clone()))
                .block_task()
                .await?;
            let id = session.session_id;
            let modes = session.modes.unwrap();
            assert_eq!(modes.current_mode_id.to_string(), "edit");
            assert_eq!(modes.available_modes.len(), 4);
            let prompt = |t: &str| acp::PromptRequest::new(id.clone(), text(t));
            let first = lembas.send_request(prompt("First.")).block_task().await?;
            assert_eq!(first.stop_reason, acp::StopReason::EndTurn);
            lembas.send_request(prompt("Second.")).block_task().await?;
            // Manual mode asks before a write: the client allows it always.
            lembas
                .send_request(acp::SetSessionModeRequest::new(id.clone(), "manual"))
                .block_task()
                .await?;
            lembas
                .send_request(prompt("Write it."))
                .block_task()
                .await?;
            lembas.send_request(prompt("Again.")).block_task().await?;
            // A held turn, cancelled.
            let held = lembas.send_request(prompt("Hold on."));
            tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            lembas.send_notification(acp::CancelNotification::new(id.clone()))?;
            let cancelled = held.block_task().await?;
            assert_eq!(cancelled.stop_reason, acp::StopReason::Cancelled);
            // A session that is not one.
            let bad = lembas
                .send_request(acp::PromptRequest::new(
                    acp::SessionId::new("nobody"),
                    text("Hello?"),
                ))
                .block_task()
                .await
                .unwrap_err();
            assert_eq!(i32::from(bad.code), -32602, "{bad:?}");
            Ok(())
        })
        .await
        .unwrap();
    // The second prompt is on the first one's conversation.
    let bodies = server.bodies("");
    let second =
        bodies.iter().find(|b| last(b).contains("Second.")).unwrap()["messages"].to_string();
    assert!(
        second.contains("First.") && second.contains("One."),
        "{second}"
    );
    // The chunks streamed, the calls with their updates.
    let updates = updates.lock().unwrap();
    let chunks: String = updates
        .iter()
        .filter_map(|u| match u {
            acp::SessionUpdate::AgentMessageChunk(c) => match &c.content {
                acp::ContentBlock::Text(t) => Some(t.text.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert!(
        chunks.contains("One.") && chunks.contains("Two.") && chunks.contains("Written."),
        "{chunks}"
    );
    let calls = updates
        .iter()
        .filter(|u| matches!(u, acp::SessionUpdate::ToolCall(c) if c.kind == acp::ToolKind::Edit))
        .count();
    let completed = updates
        .iter()
        .filter(|u| {
            matches!(u, acp::SessionUpdate::ToolCallUpdate(c)
                if c.fields.status == Some(acp::ToolCallStatus::Completed))
        })
        .count();
    assert_eq!((calls, completed), (2, 2), "{updates:?}");
    // Asked once: allowed always, the second write in the folder ran without a question.
    assert_eq!(asked.lock().unwrap().len(), 1);
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "one\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("more.txt")).unwrap(),
        "two\n"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_turn_that_runs_out_of_steps_answers_max_turn_requests() {
    // The main agent lists the folder at every step and never replies: its 200 steps run out.
    let rules = (0..201)
        .map(|i| {
            rule(
                "",
                "",
                Reply::Sse(vec![
                    call(&format!("l{i}"), "list", json!({})),
                    "[DONE]".into(),
                ]),
            )
        })
        .collect();
    let server = serve(rules, 0).await;
    let dir = project("lembas-acp-steps");
    let agent = lembas_acp(&server.url);
    let project = dir.clone();
    Client
        .v1()
        .connect_with(agent, async move |lembas: ConnectionTo<Agent>| {
            lembas
                .send_request(acp::InitializeRequest::new(ProtocolVersion::V1))
                .block_task()
                .await?;
            let id = lembas
                .send_request(acp::NewSessionRequest::new(project))
                .block_task()
                .await?
                .session_id;
            let end = lembas
                .send_request(acp::PromptRequest::new(id, text("Look around.")))
                .block_task()
                .await?;
            assert_eq!(end.stop_reason, acp::StopReason::MaxTurnRequests);
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(
        server.bodies("").len(),
        200,
        "one request a step, 200 steps"
    );
}

/// What the client heard, in the order it heard it: each update and each question.
#[derive(Debug, Clone)]
enum Heard {
    Update(acp::SessionUpdate),
    Asked(acp::RequestPermissionRequest),
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_is_one_card_from_start_to_end_and_a_plan_is_approved_in_the_editor() {
    let server = serve(
        vec![
            rule(
                "",
                "Write it.",
                Reply::Sse(vec![
                    call(
                        "w1",
                        "write",
                        json!({"path": "notes.txt", "content": "new\n"}),
                    ),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "",
                "wrote notes.txt",
                Reply::Sse(vec![content("Written."), "[DONE]".into()]),
            ),
            rule(
                "",
                "Change it in plan mode.",
                Reply::Sse(vec![
                    call(
                        "w2",
                        "write",
                        json!({"path": "notes.txt", "content": "x\n"}),
                    ),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "",
                "Plan mode changes nothing",
                Reply::Sse(vec![
                    call(
                        "p1",
                        "plan_write",
                        json!({"title": "Change the notes", "steps": ["Write x", "Read it back"]}),
                    ),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "",
                "The plan has 2 steps",
                Reply::Sse(vec![call("p2", "plan_submit", json!({})), "[DONE]".into()]),
            ),
            rule(
                "",
                "approved the plan",
                Reply::Sse(vec![content("Carrying it out."), "[DONE]".into()]),
            ),
        ],
        0,
    )
    .await;
    let dir = project("lembas-acp-cards");
    std::fs::write(dir.join("notes.txt"), "old\n").unwrap();
    let agent = lembas_acp(&server.url);
    let heard: Arc<Mutex<Vec<Heard>>> = Arc::default();
    let (seen, questions) = (Arc::clone(&heard), Arc::clone(&heard));
    let project = dir.clone();
    let mut descriptions = Vec::new();
    Client
        .v1()
        .on_receive_notification(
            async move |n: acp::SessionNotification, _agent| {
                seen.lock().unwrap().push(Heard::Update(n.update));
                Ok(())
            },
            on_receive_notification!(),
        )
        .on_receive_request(
            async move |request: acp::RequestPermissionRequest, responder, _agent| {
                let once = request
                    .options
                    .iter()
                    .find(|o| o.kind == acp::PermissionOptionKind::AllowOnce)
                    .map(|o| o.option_id.clone())
                    .unwrap();
                questions.lock().unwrap().push(Heard::Asked(request));
                responder.respond(acp::RequestPermissionResponse::new(
                    acp::RequestPermissionOutcome::Selected(acp::SelectedPermissionOutcome::new(
                        once,
                    )),
                ))
            },
            on_receive_request!(),
        )
        .connect_with(agent, async |lembas: ConnectionTo<Agent>| {
            lembas
                .send_request(acp::InitializeRequest::new(ProtocolVersion::V1))
                .block_task()
                .await?;
            let session = lembas
                .send_request(acp::NewSessionRequest::new(project.clone()))
                .block_task()
                .await?;
            let id = session.session_id;
            descriptions = session
                .modes
                .unwrap()
                .available_modes
                .iter()
                .map(|m| m.description.clone().unwrap_or_default())
                .collect();
            let prompt = |t: &str| acp::PromptRequest::new(id.clone(), text(t));
            lembas
                .send_request(acp::SetSessionModeRequest::new(id.clone(), "manual"))
                .block_task()
                .await?;
            lembas
                .send_request(prompt("Write it."))
                .block_task()
                .await?;
            lembas
                .send_request(acp::SetSessionModeRequest::new(id.clone(), "plan"))
                .block_task()
                .await?;
            lembas
                .send_request(prompt("Change it in plan mode."))
                .block_task()
                .await?;
            Ok(())
        })
        .await
        .unwrap();
    assert!(
        descriptions.iter().all(|d| !d.is_empty()),
        "{descriptions:?}"
    );
    let heard = heard.lock().unwrap().clone();
    let card = |id: &str| {
        heard.iter().position(
            |h| matches!(h, Heard::Update(acp::SessionUpdate::ToolCall(c)) if c.tool_call_id.to_string() == id),
        )
    };
    let asked: Vec<(usize, &acp::RequestPermissionRequest)> = heard
        .iter()
        .enumerate()
        .filter_map(|(at, h)| match h {
            Heard::Asked(r) => Some((at, r)),
            Heard::Update(_) => None,
        })
        .collect();
    // Two questions: the write in manual mode, and the plan.
    assert_eq!(asked.len(), 2, "{heard:?}");
    let (at, write) = asked[0];
    let write_id = write.tool_call.tool_call_id.to_string();
    // The question is about the call's own card, which came first, with the change to review.
    assert!(card(&write_id).is_some_and(|c| c < at), "{heard:?}");
    assert_eq!(
        write.tool_call.fields.title.as_deref(),
        Some("Write notes.txt")
    );
    assert_eq!(write.tool_call.fields.kind, Some(acp::ToolKind::Edit));
    let diff = write
        .tool_call
        .fields
        .content
        .iter()
        .flatten()
        .find_map(|c| match c {
            acp::ToolCallContent::Diff(d) => Some(d.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        (diff.old_text.as_deref(), diff.new_text.as_str()),
        (Some("old\n"), "new\n")
    );
    let ends = |status: acp::ToolCallStatus| -> Vec<String> {
        heard
            .iter()
            .filter_map(|h| match h {
                Heard::Update(acp::SessionUpdate::ToolCallUpdate(u))
                    if u.fields.status == Some(status) =>
                {
                    Some(u.tool_call_id.to_string())
                }
                _ => None,
            })
            .collect()
    };
    assert!(ends(acp::ToolCallStatus::Completed).contains(&write_id));
    // The write in plan mode is refused: its card ends failed, with the plan mode's text.
    let failed = ends(acp::ToolCallStatus::Failed);
    assert_eq!(failed.len(), 1, "{heard:?}");
    assert!(card(&failed[0]).is_some());
    let refusal = heard.iter().find_map(|h| match h {
        Heard::Update(acp::SessionUpdate::ToolCallUpdate(u))
            if u.tool_call_id.to_string() == failed[0] =>
        {
            u.fields.content.as_ref().map(|c| format!("{c:?}"))
        }
        _ => None,
    });
    assert!(refusal.unwrap().contains("Plan mode changes nothing"));
    // The plan reaches the editor as a plan; submitting it asks about its own card, showing it.
    let plan = heard
        .iter()
        .find_map(|h| match h {
            Heard::Update(acp::SessionUpdate::Plan(p)) => Some(p.clone()),
            _ => None,
        })
        .unwrap();
    let steps: Vec<&str> = plan.entries.iter().map(|e| e.content.as_str()).collect();
    assert_eq!(steps, ["Write x", "Read it back"]);
    let (at, submitted) = asked[1];
    let submit_id = submitted.tool_call.tool_call_id.to_string();
    assert!(card(&submit_id).is_some_and(|c| c < at));
    assert_eq!(
        submitted.tool_call.fields.kind,
        Some(acp::ToolKind::SwitchMode)
    );
    assert!(format!("{:?}", submitted.tool_call.fields.content).contains("Read it back"));
    assert!(submitted
        .options
        .iter()
        .all(|o| o.kind != acp::PermissionOptionKind::AllowAlways));
    // Approved: the session is back in the mode it had before plan, and the editor is told.
    let mode = heard.iter().find_map(|h| match h {
        Heard::Update(acp::SessionUpdate::CurrentModeUpdate(m)) => {
            Some(m.current_mode_id.to_string())
        }
        _ => None,
    });
    assert_eq!(mode.as_deref(), Some("manual"));
    let bodies = server.bodies("");
    assert!(bodies
        .iter()
        .any(|b| last(b).contains("The person approved the plan: the session is in manual mode")));
    let plans: Vec<_> = std::fs::read_dir(dir.join(".lembas/plans"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(
        plans,
        ["# Change the notes\n\n1. [ ] Write x\n2. [ ] Read it back\n"]
    );
    // The file is what the refused write left it.
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "new\n"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn what_the_person_attaches_reaches_the_model_and_commands_and_a_refused_key_are_said() {
    let server = serve(
        vec![
            rule(
                "",
                "Look at these.",
                Reply::Sse(vec![content("Seen."), usage(100, 20), "[DONE]".into()]),
            ),
            rule(
                "",
                "Who am I?",
                Reply::Status(
                    401,
                    r#"{"error": {"message": "Incorrect API key provided"}}"#.into(),
                ),
            ),
        ],
        0,
    )
    .await;
    let dir = project("lembas-acp-attached");
    std::fs::write(
        dir.join("main.rs"),
        "fn main() { println!(\"on disk\"); }\n",
    )
    .unwrap();
    std::fs::write(dir.join(".env"), "TOKEN=secret-value\n").unwrap();
    let agent = lembas_acp_with(&server.url, "--context 32768");
    let updates: Arc<Mutex<Vec<acp::SessionUpdate>>> = Arc::default();
    let seen = Arc::clone(&updates);
    let project = dir.clone();
    let mut init_said = None;
    let mut refused_key = None;
    Client
        .v1()
        .on_receive_notification(
            async move |n: acp::SessionNotification, _agent| {
                seen.lock().unwrap().push(n.update);
                Ok(())
            },
            on_receive_notification!(),
        )
        .connect_with(agent, async |lembas: ConnectionTo<Agent>| {
            let init = lembas
                .send_request(acp::InitializeRequest::new(ProtocolVersion::V1))
                .block_task()
                .await?;
            init_said = Some((
                init.protocol_version,
                init.agent_capabilities.prompt_capabilities.embedded_context,
            ));
            let session = lembas
                .send_request(acp::NewSessionRequest::new(project.clone()))
                .block_task()
                .await?;
            let id = session.session_id;
            let uri = |name: &str| format!("file://{}", project.join(name).display());
            let blocks = vec![
                acp::ContentBlock::Text(acp::TextContent::new("Look at these.")),
                acp::ContentBlock::ResourceLink(acp::ResourceLink::new("main.rs", uri("main.rs"))),
                acp::ContentBlock::ResourceLink(acp::ResourceLink::new(".env", uri(".env"))),
                acp::ContentBlock::Resource(acp::EmbeddedResource::new(
                    acp::EmbeddedResourceResource::TextResourceContents(
                        acp::TextResourceContents::new("let unsaved = 1;", uri("lib.rs")),
                    ),
                )),
            ];
            lembas
                .send_request(acp::PromptRequest::new(id.clone(), blocks))
                .block_task()
                .await?;
            lembas
                .send_request(acp::PromptRequest::new(id.clone(), text("/mode plan")))
                .block_task()
                .await?;
            refused_key = lembas
                .send_request(acp::PromptRequest::new(id.clone(), text("Who am I?")))
                .block_task()
                .await
                .err();
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(init_said, Some((ProtocolVersion::V1, true)));
    let bodies = server.bodies("");
    let looked = last(
        bodies
            .iter()
            .find(|b| last(b).contains("Look at these."))
            .unwrap(),
    );
    assert!(looked.contains("println!(\"on disk\")"), "{looked}");
    assert!(looked.contains("let unsaved = 1;"), "{looked}");
    // The .env file asks before it is read: it is not sent, and the model is told why.
    assert!(!looked.contains("secret-value"), "{looked}");
    assert!(
        looked.contains("(not included: a rule says ask for read *.env"),
        "{looked}"
    );
    let updates = updates.lock().unwrap();
    let menu: Vec<String> = updates
        .iter()
        .find_map(|u| match u {
            acp::SessionUpdate::AvailableCommandsUpdate(c) => Some(
                c.available_commands
                    .iter()
                    .map(|c| c.name.clone())
                    .collect(),
            ),
            _ => None,
        })
        .unwrap();
    assert_eq!(menu, ["mode", "agents", "tree", "stop", "help"]);
    // The context used, as the server counted it, for the editor's meter.
    assert!(
        updates.iter().any(|u| matches!(u,
        acp::SessionUpdate::UsageUpdate(use_) if use_.used == 120 && use_.size == 32768)),
        "{updates:?}"
    );
    // A command typed in the editor is done: the mode changed, and the editor told.
    assert!(updates.iter().any(|u| matches!(u,
        acp::SessionUpdate::CurrentModeUpdate(m) if m.current_mode_id.to_string() == "plan")));
    assert!(!bodies.iter().any(|b| last(b).contains("/mode")));
    // A 401 is an auth error, with the server's reason and what to do.
    let refused = refused_key.unwrap();
    assert_eq!(i32::from(refused.code), -32000, "{refused:?}");
    let said = format!("{:?}", refused.data);
    assert!(
        said.contains("Incorrect API key provided") && said.contains("LEMBAS_API_KEY"),
        "{said}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_lasts_past_its_process_listed_and_loaded_again() {
    let server = serve(
        vec![
            rule(
                "",
                "Remember 7.",
                Reply::Sse(vec![content("Noted: 7."), "[DONE]".into()]),
            ),
            rule(
                "",
                "What was it?",
                Reply::Sse(vec![content("It was 7."), "[DONE]".into()]),
            ),
        ],
        0,
    )
    .await;
    let dir = project("lembas-acp-lasting");
    let project = dir.clone();
    // The first process: a session and a turn.
    let first_id = Client
        .v1()
        .connect_with(
            lembas_acp(&server.url),
            async |lembas: ConnectionTo<Agent>| {
                lembas
                    .send_request(acp::InitializeRequest::new(ProtocolVersion::V1))
                    .block_task()
                    .await?;
                let session = lembas
                    .send_request(acp::NewSessionRequest::new(project.clone()))
                    .block_task()
                    .await?;
                lembas
                    .send_request(acp::PromptRequest::new(
                        session.session_id.clone(),
                        text("Remember 7."),
                    ))
                    .block_task()
                    .await?;
                Ok(session.session_id)
            },
        )
        .await
        .unwrap();
    // A second process: the session is listed, loaded with its conversation, and goes on.
    let updates: Arc<Mutex<Vec<acp::SessionUpdate>>> = Arc::default();
    let seen = Arc::clone(&updates);
    let project = dir.clone();
    let (capable, listed, loaded_modes) = Client
        .v1()
        .on_receive_notification(
            async move |n: acp::SessionNotification, _agent| {
                seen.lock().unwrap().push(n.update);
                Ok(())
            },
            on_receive_notification!(),
        )
        .connect_with(
            lembas_acp(&server.url),
            async |lembas: ConnectionTo<Agent>| {
                let init = lembas
                    .send_request(acp::InitializeRequest::new(ProtocolVersion::V1))
                    .block_task()
                    .await?;
                let capable = (
                    init.agent_capabilities.load_session,
                    init.agent_capabilities.session_capabilities.list.is_some(),
                );
                let listed = lembas
                    .send_request(acp::ListSessionsRequest::new().cwd(project.clone()))
                    .block_task()
                    .await?;
                let loaded = lembas
                    .send_request(acp::LoadSessionRequest::new(
                        first_id.clone(),
                        project.clone(),
                    ))
                    .block_task()
                    .await?;
                lembas
                    .send_request(acp::PromptRequest::new(
                        first_id.clone(),
                        text("What was it?"),
                    ))
                    .block_task()
                    .await?;
                // A session that is not kept is an error, not a new session.
                let missing = lembas
                    .send_request(acp::LoadSessionRequest::new(
                        acp::SessionId::new("123-456-0"),
                        project.clone(),
                    ))
                    .block_task()
                    .await
                    .unwrap_err();
                assert_eq!(i32::from(missing.code), -32602, "{missing:?}");
                Ok((capable, listed, loaded.modes))
            },
        )
        .await
        .unwrap();
    assert_eq!(capable, (true, true));
    let sessions: Vec<(String, Option<String>)> = listed
        .sessions
        .iter()
        .map(|s| (s.session_id.to_string(), s.title.clone()))
        .collect();
    assert_eq!(
        sessions,
        [(first_id.to_string(), Some("Remember 7.".to_string()))]
    );
    assert!(listed.sessions[0]
        .updated_at
        .as_deref()
        .is_some_and(|t| t.ends_with('Z')));
    assert_eq!(loaded_modes.unwrap().current_mode_id.to_string(), "edit");
    // The conversation came back as updates: the person's prompt, then the reply.
    let updates = updates.lock().unwrap();
    let said: Vec<String> = updates
        .iter()
        .filter_map(|u| match u {
            acp::SessionUpdate::UserMessageChunk(c) | acp::SessionUpdate::AgentMessageChunk(c) => {
                match &c.content {
                    acp::ContentBlock::Text(t) => Some(t.text.clone()),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect();
    assert_eq!(said[..2], ["Remember 7.", "Noted: 7."], "{said:?}");
    // The turn after the restart is on the stored conversation.
    let bodies = server.bodies("");
    let after = bodies
        .iter()
        .find(|b| last(b).contains("What was it?"))
        .unwrap();
    assert!(
        after["messages"].to_string().contains("Noted: 7."),
        "{after}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_tools_read_and_write_through_the_editors_files_when_it_offers_them() {
    let server = serve(
        vec![
            rule(
                "",
                "Read it.",
                Reply::Sse(vec![
                    call("r1", "read", json!({"path": "notes.txt"})),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "",
                "unsaved buffer",
                Reply::Sse(vec![
                    call(
                        "w1",
                        "write",
                        json!({"path": "notes.txt", "content": "new\n"}),
                    ),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "",
                "wrote notes.txt",
                Reply::Sse(vec![
                    call(
                        "w2",
                        "write",
                        json!({"path": "fresh.txt", "content": "x\n"}),
                    ),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "",
                "wrote fresh.txt",
                Reply::Sse(vec![content("Done."), "[DONE]".into()]),
            ),
            rule(
                "",
                "on disk",
                Reply::Sse(vec![content("READ THE DISK"), "[DONE]".into()]),
            ),
        ],
        0,
    )
    .await;
    let dir = project("lembas-acp-editor-files");
    std::fs::write(dir.join("notes.txt"), "on disk\n").unwrap();
    let written: Arc<Mutex<Vec<(std::path::PathBuf, String)>>> = Arc::default();
    let (writes, project) = (Arc::clone(&written), dir.clone());
    Client
        .v1()
        .on_receive_request(
            async move |request: acp::ReadTextFileRequest, responder, _agent| {
                // The editor's buffer of notes.txt holds unsaved changes; another file is as on disk.
                let text = if request.path.ends_with("notes.txt") {
                    "the unsaved buffer\n".to_string()
                } else {
                    std::fs::read_to_string(&request.path).unwrap_or_default()
                };
                responder.respond(acp::ReadTextFileResponse::new(text))
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::WriteTextFileRequest, responder, _agent| {
                writes.lock().unwrap().push((request.path, request.content));
                responder.respond(acp::WriteTextFileResponse::new())
            },
            on_receive_request!(),
        )
        .connect_with(
            lembas_acp(&server.url),
            async |lembas: ConnectionTo<Agent>| {
                let fs = acp::FileSystemCapabilities::new()
                    .read_text_file(true)
                    .write_text_file(true);
                lembas
                    .send_request(
                        acp::InitializeRequest::new(ProtocolVersion::V1)
                            .client_capabilities(acp::ClientCapabilities::new().fs(fs)),
                    )
                    .block_task()
                    .await?;
                let session = lembas
                    .send_request(acp::NewSessionRequest::new(project.clone()))
                    .block_task()
                    .await?;
                lembas
                    .send_request(acp::PromptRequest::new(
                        session.session_id,
                        text("Read it."),
                    ))
                    .block_task()
                    .await?;
                Ok(())
            },
        )
        .await
        .unwrap();
    let bodies = server.bodies("");
    assert!(bodies
        .iter()
        .any(|b| last(b).contains("the unsaved buffer")));
    assert!(!bodies.iter().any(|b| last(b).contains("on disk")));
    // The existing file went to the editor (its review and undo), the disk untouched; the new
    // one was made on disk.
    let written = written.lock().unwrap().clone();
    assert_eq!(written, [(dir.join("notes.txt"), "new\n".to_string())]);
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "on disk\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("fresh.txt")).unwrap(),
        "x\n"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plain_client_sees_a_subagents_life_as_a_card_of_its_own() {
    let server = serve(
        vec![
            rule(
                "You are the main agent",
                "Add one.",
                Reply::Sse(vec![
                    call(
                        "a1",
                        "team_add",
                        json!({"name": "api", "role": "the API", "task": "Write the API.", "goal": "a service"}),
                    ),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "You are the main agent",
                "Added api",
                Reply::Sse(vec![content("Waiting for api."), "[DONE]".into()]),
            ),
            rule(
                "You are \"api\"",
                "",
                Reply::Sse(vec![content("Done: the API."), "[DONE]".into()]),
            ),
            rule(
                "You are the main agent",
                "Done: the API.",
                Reply::Sse(vec![content("api reported."), "[DONE]".into()]),
            ),
        ],
        0,
    )
    .await;
    let dir = project("lembas-acp-subagent-card");
    let updates: Arc<Mutex<Vec<acp::SessionUpdate>>> = Arc::default();
    let seen = Arc::clone(&updates);
    let project = dir.clone();
    Client
        .v1()
        .on_receive_notification(
            async move |n: acp::SessionNotification, _agent| {
                seen.lock().unwrap().push(n.update);
                Ok(())
            },
            on_receive_notification!(),
        )
        .connect_with(
            lembas_acp(&server.url),
            async |lembas: ConnectionTo<Agent>| {
                lembas
                    .send_request(acp::InitializeRequest::new(ProtocolVersion::V1))
                    .block_task()
                    .await?;
                let session = lembas
                    .send_request(acp::NewSessionRequest::new(project.clone()))
                    .block_task()
                    .await?;
                lembas
                    .send_request(acp::PromptRequest::new(
                        session.session_id,
                        text("Add one."),
                    ))
                    .block_task()
                    .await?;
                Ok(())
            },
        )
        .await
        .unwrap();
    let updates = updates.lock().unwrap();
    let card = updates
        .iter()
        .find_map(|u| match u {
            acp::SessionUpdate::ToolCall(c) if c.title.starts_with("Subagent api") => {
                Some(c.clone())
            }
            _ => None,
        })
        .unwrap();
    assert_eq!(card.title, "Subagent api: Write the API.");
    let closed = updates
        .iter()
        .find_map(|u| match u {
            acp::SessionUpdate::ToolCallUpdate(c)
                if c.tool_call_id == card.tool_call_id
                    && c.fields.status == Some(acp::ToolCallStatus::Completed) =>
            {
                Some(format!("{:?}", c.fields.content))
            }
            _ => None,
        })
        .unwrap();
    assert!(closed.contains("Done: the API."), "{closed}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_commands_output_reaches_its_card_as_it_comes() {
    let server = serve(
        vec![
            rule(
                "",
                "Say it.",
                Reply::Sse(vec![
                    call("b1", "bash", json!({"command": "echo one && echo two"})),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "",
                "two",
                Reply::Sse(vec![content("Said."), "[DONE]".into()]),
            ),
        ],
        0,
    )
    .await;
    let dir = project("lembas-acp-live-output");
    let updates: Arc<Mutex<Vec<acp::SessionUpdate>>> = Arc::default();
    let seen = Arc::clone(&updates);
    let project = dir.clone();
    Client
        .v1()
        .on_receive_notification(
            async move |n: acp::SessionNotification, _agent| {
                seen.lock().unwrap().push(n.update);
                Ok(())
            },
            on_receive_notification!(),
        )
        .connect_with(
            lembas_acp(&server.url),
            async |lembas: ConnectionTo<Agent>| {
                lembas
                    .send_request(acp::InitializeRequest::new(ProtocolVersion::V1))
                    .block_task()
                    .await?;
                let session = lembas
                    .send_request(acp::NewSessionRequest::new(project.clone()))
                    .block_task()
                    .await?;
                lembas
                    .send_request(acp::PromptRequest::new(session.session_id, text("Say it.")))
                    .block_task()
                    .await?;
                Ok(())
            },
        )
        .await
        .unwrap();
    let updates = updates.lock().unwrap();
    let card = |u: &acp::SessionUpdate| match u {
        acp::SessionUpdate::ToolCallUpdate(c) if c.tool_call_id.to_string() == "lead-1" => {
            Some(c.fields.clone())
        }
        _ => None,
    };
    let fields: Vec<_> = updates.iter().filter_map(card).collect();
    // Its output while it runs (no status yet), then its end.
    let live = fields
        .iter()
        .position(|f| f.status.is_none() && format!("{:?}", f.content).contains("one"))
        .unwrap_or_else(|| panic!("{fields:?}"));
    let ended = fields
        .iter()
        .position(|f| f.status == Some(acp::ToolCallStatus::Completed))
        .unwrap();
    assert!(live < ended, "{fields:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_approval_kept_in_the_project_holds_in_its_next_session() {
    let server = serve(
        vec![
            rule(
                "",
                "Note one.",
                Reply::Sse(vec![
                    call("w1", "write", json!({"path": "one.txt", "content": "1\n"})),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "",
                "wrote one.txt",
                Reply::Sse(vec![content("One."), "[DONE]".into()]),
            ),
            rule(
                "",
                "Note one again.",
                Reply::Sse(vec![
                    call("w3", "write", json!({"path": "one.txt", "content": "1b\n"})),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "",
                "wrote one.txt",
                Reply::Sse(vec![content("Again."), "[DONE]".into()]),
            ),
            rule(
                "",
                "Note two.",
                Reply::Sse(vec![
                    call("w2", "write", json!({"path": "two.txt", "content": "2\n"})),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "",
                "wrote two.txt",
                Reply::Sse(vec![content("Two."), "[DONE]".into()]),
            ),
        ],
        0,
    )
    .await;
    let dir = project("lembas-acp-project-approval");
    let asked: Arc<Mutex<Vec<Vec<String>>>> = Arc::default();
    // Each prompt in a process of its own.
    for prompt in ["Note one.", "Note one again.", "Note two."] {
        let questions = Arc::clone(&asked);
        let project = dir.clone();
        Client
            .v1()
            .on_receive_request(
                async move |request: acp::RequestPermissionRequest, responder, _agent| {
                    let ids: Vec<String> = request
                        .options
                        .iter()
                        .map(|o| format!("{} {}", o.option_id, o.name))
                        .collect();
                    questions.lock().unwrap().push(ids);
                    responder.respond(acp::RequestPermissionResponse::new(
                        acp::RequestPermissionOutcome::Selected(
                            acp::SelectedPermissionOutcome::new("project"),
                        ),
                    ))
                },
                on_receive_request!(),
            )
            .connect_with(
                lembas_acp_with(&server.url, "--mode manual"),
                async |lembas: ConnectionTo<Agent>| {
                    lembas
                        .send_request(acp::InitializeRequest::new(ProtocolVersion::V1))
                        .block_task()
                        .await?;
                    let session = lembas
                        .send_request(acp::NewSessionRequest::new(project.clone()))
                        .block_task()
                        .await?;
                    lembas
                        .send_request(acp::PromptRequest::new(session.session_id, text(prompt)))
                        .block_task()
                        .await?;
                    Ok(())
                },
            )
            .await
            .unwrap();
    }
    // Kept is the exact call: the same file again in a new process is not asked; another file
    // is, with its own option naming it.
    let asked = asked.lock().unwrap().clone();
    let options = |file: &str| {
        vec![
            "once Allow once".to_string(),
            "session Allow always, for this session".into(),
            format!("project Allow {file} always, in this project"),
            "deny Reject".into(),
        ]
    };
    assert_eq!(asked, [options("one.txt"), options("two.txt")]);
    assert_eq!(
        std::fs::read_to_string(dir.join("one.txt")).unwrap(),
        "1b\n"
    );
    assert_eq!(std::fs::read_to_string(dir.join("two.txt")).unwrap(), "2\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_model_picker_lists_the_servers_models_and_the_next_turn_runs_on_the_one_picked() {
    let server = serve(
        vec![rule(
            "",
            "Which model?",
            Reply::Sse(vec![content("This one."), "[DONE]".into()]),
        )],
        0,
    )
    .await;
    let dir = project("lembas-acp-model-picker");
    let project = dir.clone();
    let (offered, picked, refused) = Client
        .v1()
        .connect_with(
            lembas_acp(&server.url),
            async |lembas: ConnectionTo<Agent>| {
                lembas
                    .send_request(acp::InitializeRequest::new(ProtocolVersion::V1))
                    .block_task()
                    .await?;
                let session = lembas
                    .send_request(acp::NewSessionRequest::new(project.clone()))
                    .block_task()
                    .await?;
                let id = session.session_id.clone();
                let offered = serde_json::to_value(&session.config_options).unwrap();
                let picked = lembas
                    .send_request(acp::SetSessionConfigOptionRequest::new(
                        id.clone(),
                        "model",
                        acp::SessionConfigOptionValue::value_id("m-large"),
                    ))
                    .block_task()
                    .await?;
                let refused = lembas
                    .send_request(acp::SetSessionConfigOptionRequest::new(
                        id.clone(),
                        "model",
                        acp::SessionConfigOptionValue::value_id("not-served"),
                    ))
                    .block_task()
                    .await
                    .unwrap_err();
                lembas
                    .send_request(acp::PromptRequest::new(id, text("Which model?")))
                    .block_task()
                    .await?;
                Ok((offered, serde_json::to_value(&picked).unwrap(), refused))
            },
        )
        .await
        .unwrap();
    let option = &offered[0];
    assert_eq!(option["id"], "model", "{offered}");
    assert_eq!(option["category"], "model", "{offered}");
    assert_eq!(option["currentValue"], "m", "{offered}");
    let choices: Vec<&str> = option["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["value"].as_str().unwrap())
        .collect();
    assert_eq!(choices, ["m", "m-large"]);
    assert_eq!(
        picked["configOptions"][0]["currentValue"], "m-large",
        "{picked}"
    );
    assert_eq!(i32::from(refused.code), -32602);
    let bodies = server.bodies("");
    let asked = bodies
        .iter()
        .find(|b| last(b).contains("Which model?"))
        .unwrap();
    assert_eq!(asked["model"], "m-large");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_loud_commands_card_is_shown_its_output_a_few_times_not_once_a_piece() {
    let server = serve(
        vec![
            rule(
                "",
                "Count.",
                Reply::Sse(vec![
                    call(
                        "b1",
                        "bash",
                        json!({"command": "for i in $(seq 1 3000); do echo line $i; done"}),
                    ),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "",
                "line 3000",
                Reply::Sse(vec![content("Counted."), "[DONE]".into()]),
            ),
        ],
        0,
    )
    .await;
    let dir = project("lembas-acp-loud-output");
    let updates: Arc<Mutex<Vec<acp::SessionUpdate>>> = Arc::default();
    let seen = Arc::clone(&updates);
    let project = dir.clone();
    Client
        .v1()
        .on_receive_notification(
            async move |n: acp::SessionNotification, _agent| {
                seen.lock().unwrap().push(n.update);
                Ok(())
            },
            on_receive_notification!(),
        )
        .connect_with(
            lembas_acp_with(&server.url, "--mode auto"),
            async |lembas: ConnectionTo<Agent>| {
                lembas
                    .send_request(acp::InitializeRequest::new(ProtocolVersion::V1))
                    .block_task()
                    .await?;
                let session = lembas
                    .send_request(acp::NewSessionRequest::new(project.clone()))
                    .block_task()
                    .await?;
                lembas
                    .send_request(acp::PromptRequest::new(session.session_id, text("Count.")))
                    .block_task()
                    .await?;
                Ok(())
            },
        )
        .await
        .unwrap();
    let updates = updates.lock().unwrap();
    let live = updates
        .iter()
        .filter(|u| {
            matches!(u, acp::SessionUpdate::ToolCallUpdate(c)
            if c.tool_call_id.to_string() == "lead-1" && c.fields.status.is_none())
        })
        .count();
    // 3,000 lines come in many pieces; the card is shown them a few times a second at most.
    assert!((1..=25).contains(&live), "{live} live updates");
    let ended = updates.iter().find_map(|u| match u {
        acp::SessionUpdate::ToolCallUpdate(c)
            if c.fields.status == Some(acp::ToolCallStatus::Completed) =>
        {
            Some(format!("{:?}", c.fields.content))
        }
        _ => None,
    });
    assert!(ended.unwrap().contains("line 3000"));
}
