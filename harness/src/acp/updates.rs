//! What the client sees of a session: its modes and commands, each call as one card from start to
//! end, a running command's output, the plan, the context used, each subagent's life as a card,
//! and a kept conversation replayed (`session/update`).

use super::*;

/// A mode as a client's picker shows it (`harness/texts/modes.json`).
#[derive(Deserialize)]
pub(super) struct ModeText {
    pub(super) name: String,
    pub(super) description: String,
}

/// `harness/texts/modes.json`.
#[derive(Deserialize)]
pub(super) struct ModeTexts {
    pub(super) modes: BTreeMap<String, ModeText>,
}

/// The modes' names and descriptions, read once (a test shows they are read).
pub(super) static MODE_TEXTS: std::sync::LazyLock<Option<ModeTexts>> =
    std::sync::LazyLock::new(|| serde_json::from_str(include_str!("../../texts/modes.json")).ok());

/// The modes a client may pick, the rules' four, each named and described.
pub(super) fn modes(current: Mode) -> acp::SessionModeState {
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

/// The model picker: the model the main agent runs on, of those the server serves.
pub(super) fn model_options(current: &str, served: &[String]) -> Vec<acp::SessionConfigOption> {
    let mut ids: Vec<String> = served.to_vec();
    if !ids.iter().any(|m| m == current) {
        ids.insert(0, current.to_string());
    }
    let choices: Vec<acp::SessionConfigSelectOption> = ids
        .iter()
        .map(|m| acp::SessionConfigSelectOption::new(m.clone(), m.clone()))
        .collect();
    vec![
        acp::SessionConfigOption::select(MODEL_OPTION, "Model", current.to_string(), choices)
            .category(acp::SessionConfigOptionCategory::Model)
            .description(
                "The model the main agent runs on from its next step; a subagent named no model \
                 runs on it too."
                    .to_string(),
            ),
    ]
}

/// How often a running command's card is shown its output again.
const LIVE_EVERY: std::time::Duration = std::time::Duration::from_millis(200);

/// The model picker's id.
pub(super) const MODEL_OPTION: &str = "model";

/// The chat's commands an editor offers in its `/` menu.
pub(super) fn commands() -> acp::AvailableCommandsUpdate {
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

/// What a call is, as ACP's `kind` says it: from its tool's block; submitting the plan switches
/// the mode.
pub(super) fn tool_kind(call: &CallShown) -> acp::ToolKind {
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
pub(super) fn call_title(agent: &AgentRef, call: &CallShown) -> String {
    if agent.is_main() {
        call.title.clone()
    } else {
        format!("{}: {}", agent.name, call.title)
    }
}

/// The files a call touches, as ACP's locations.
pub(super) fn locations(call: &CallShown) -> Vec<acp::ToolCallLocation> {
    call.locations
        .iter()
        .map(|l| acp::ToolCallLocation::new(l.path.clone()).line(l.line))
        .collect()
}

/// The plan as ACP's `plan` update.
pub(super) fn plan_update(plan: &Plan) -> acp::Plan {
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
pub(super) struct CallsSent {
    pub(super) ids: Mutex<std::collections::HashSet<String>>,
}

impl CallsSent {
    pub(super) fn sent(&self, id: &str) {
        self.ids
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.to_string());
    }

    pub(super) fn has(&self, id: &str) -> bool {
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
pub(super) struct SubagentCards {
    /// By subagent id: the state and progress last said, and whether its card was closed.
    pub(super) said: BTreeMap<String, (String, bool)>,
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
pub(super) struct Counted<'a>(&'a std::sync::atomic::AtomicU64);

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
pub(super) async fn send_updates(
    mut rx: mpsc::UnboundedReceiver<SessionEvent>,
    client: ConnectionTo<Client>,
    session: acp::SessionId,
    lembas: bool,
    calls: Arc<CallsSent>,
    forwarded: Arc<std::sync::atomic::AtomicU64>,
    crew: Weak<Crew>,
) {
    let mut cards = SubagentCards::default();
    // Each running command's output so far, by call, and when its card was last shown it (its
    // card shows it as it comes, at most every LIVE_EVERY: the end carries it whole).
    let mut running: BTreeMap<String, (String, Option<std::time::Instant>)> = BTreeMap::new();
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
                let (so_far, shown) = running.entry(id.clone()).or_default();
                so_far.push_str(&text);
                if shown.is_some_and(|at| at.elapsed() < LIVE_EVERY) {
                    continue;
                }
                *shown = Some(std::time::Instant::now());
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
                found,
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
                let mut fields = acp::ToolCallUpdateFields::new()
                    .status(status)
                    .content(content);
                // Where grep found what it looked for, for the editor to follow.
                if !found.is_empty() {
                    fields = fields.locations(
                        found
                            .iter()
                            .map(|l| acp::ToolCallLocation::new(l.path.clone()).line(l.line))
                            .collect::<Vec<_>>(),
                    );
                }
                acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new(id, fields))
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
pub(super) fn replay(messages: &[Message]) -> Vec<acp::SessionUpdate> {
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
