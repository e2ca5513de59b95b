//! The spec's extension (acp.md, spec 3.4.0), for a client that opts in: its capabilities, the
//! `_lembas/*` requests and event, `_meta.lembas` read, and the answers the extension's methods
//! give.

use super::*;

/// The capabilities of the spec's extension lembas has (acp.md's table).
pub(super) const CAPABILITIES: [&str; 3] = ["progress", "tree", "agents"];

/// `_lembas/event`: an engine event of a session, to a client that opted in.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcNotification)]
#[notification(method = "_lembas/event")]
#[serde(rename_all = "camelCase")]
pub(super) struct LembasEvent {
    pub(super) session_id: String,
    pub(super) event: Value,
}

/// What an extension method answers: its result object as the spec writes it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcResponse)]
#[serde(transparent)]
pub(super) struct ExtAnswer(pub(super) Value);

/// `_lembas/session/status`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_lembas/session/status", response = ExtAnswer)]
#[serde(rename_all = "camelCase")]
pub(super) struct StatusRequest {
    pub(super) session_id: String,
}

/// `_lembas/team`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_lembas/team", response = ExtAnswer)]
#[serde(rename_all = "camelCase")]
pub(super) struct TeamRequest {
    pub(super) session_id: String,
    #[serde(default)]
    pub(super) since: Option<u64>,
}

/// `_lembas/team/transcript`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_lembas/team/transcript", response = ExtAnswer)]
#[serde(rename_all = "camelCase")]
pub(super) struct TranscriptRequest {
    pub(super) session_id: String,
    pub(super) id: String,
}

/// `_lembas/team/findings`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_lembas/team/findings", response = ExtAnswer)]
#[serde(rename_all = "camelCase")]
pub(super) struct FindingsRequest {
    pub(super) session_id: String,
    pub(super) id: String,
}

/// `_lembas/team/stop`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_lembas/team/stop", response = ExtAnswer)]
#[serde(rename_all = "camelCase")]
pub(super) struct StopRequest {
    pub(super) session_id: String,
    pub(super) id: String,
}

/// `_lembas/configure`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_lembas/configure", response = ExtAnswer)]
#[serde(rename_all = "camelCase")]
pub(super) struct ConfigureRequest {
    pub(super) session_id: String,
    #[serde(default)]
    pub(super) agents: Option<AgentsParam>,
}

/// `{ min, max }` as a client sends the Subagents setting.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(super) struct AgentsParam {
    pub(super) min: u32,
    pub(super) max: u32,
}

impl AgentsParam {
    /// The setting, if a team can have it; `-32602` with the rules' reason otherwise.
    pub(super) fn range(self) -> std::result::Result<AgentRange, Error> {
        AgentRange::new(self.min, self.max)
            .map_err(|why| invalid("agents", &format!("expected 1 ≤ min ≤ max ({why})")))
    }
}

/// `-32602` with what is wrong.
pub(super) fn invalid(field: &str, what: &str) -> Error {
    Error::invalid_params().data(json!({ field: what }))
}

/// `_meta.lembas` of a message's `_meta`.
pub(super) fn lembas_meta(meta: Option<&acp::Meta>) -> Option<&Value> {
    meta.and_then(|m| m.get("lembas"))
}

/// The Subagents setting a `_meta.lembas` says, read as team.md §2 says; an error names what is
/// wrong.
pub(super) fn agents_of(lembas: Option<&Value>) -> std::result::Result<SettingFromClient, Error> {
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

/// A session's tree as the extension gives it: `null` for a session with no subagents.
pub(super) fn tree_or_null(crew: &Crew) -> Value {
    let tree = crew.tree();
    if tree.agents.len() <= 1 && tree.ended.is_empty() {
        Value::Null
    } else {
        tree.to_json()
    }
}

/// What an extension method answers for a session, or `-32602` when there is no such session.
pub(super) fn answer_for(
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
pub(super) fn team_view(session: &LinkSession, since: u64) -> Value {
    let room: Vec<Value> = session
        .crew
        .room(since)
        .iter()
        .map(ToJson::to_json)
        .collect();
    json!({"tree": tree_or_null(&session.crew), "room": room})
}
