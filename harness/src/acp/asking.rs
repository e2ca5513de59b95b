//! What lembas asks of the client: the person's answer to a call's question
//! (`session/request_permission`, on the call's own card), and the editor's files
//! (`fs/read_text_file`, `fs/write_text_file`) for the file tools.

use super::*;

/// The permission options lembas offers, by the ids acp.md gives them: `once` (allow_once),
/// `session` (allow_always: the rules' approval, for the session) and `deny` (reject_once).
pub(super) const ALLOW_ONCE: &str = "once";
pub(super) const ALLOW_ALWAYS: &str = "session";
pub(super) const REJECT: &str = "deny";
/// Allow always, kept for the project's later sessions too (where sessions are kept).
pub(super) const ALLOW_IN_PROJECT: &str = "project";

/// The client's files (`fs/read_text_file`, `fs/write_text_file`), for the file tools of one
/// session: what it offers, asked and waited for off the runtime's workers.
pub(super) struct ClientFiles {
    pub(super) client: ConnectionTo<Client>,
    pub(super) session: acp::SessionId,
    pub(super) runtime: tokio::runtime::Handle,
    pub(super) reads: bool,
    pub(super) writes: bool,
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
pub(super) struct ClientAsker {
    pub(super) client: ConnectionTo<Client>,
    pub(super) session: acp::SessionId,
    pub(super) runtime: tokio::runtime::Handle,
    /// The session's tree, to name a subagent whose call it is.
    pub(super) crew: OnceLock<Weak<Crew>>,
    /// The client opted in to the spec's extension.
    pub(super) lembas: bool,
    /// The calls whose card the client has.
    pub(super) calls: Arc<CallsSent>,
    /// Approvals can be kept for the project (its sessions are kept).
    pub(super) project: bool,
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
            let mut options = vec![
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
            ];
            // What is kept is the exact call, and the option says which.
            if let Some(kept) = question.kept_in_project.as_ref().filter(|_| self.project) {
                options.push(acp::PermissionOption::new(
                    ALLOW_IN_PROJECT,
                    format!("Allow {kept} always, in this project"),
                    acp::PermissionOptionKind::AllowAlways,
                ));
            }
            options.push(acp::PermissionOption::new(
                REJECT,
                "Reject",
                acp::PermissionOptionKind::RejectOnce,
            ));
            options
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
                    ALLOW_IN_PROJECT
                        if question.plan.is_none()
                            && self.project
                            && question.kept_in_project.is_some() =>
                    {
                        Approval::AlwaysInProject
                    }
                    _ => Approval::Deny,
                }
            }
            _ => Approval::Deny,
        }
    }
}
