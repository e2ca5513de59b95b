//! What a session says as it works, as one typed event that every front reads: the terminal draws
//! it, the `--events` file writes it as a JSON line (the spec's shapes: `phase` with `agent` = a
//! subagent's id, absent for the main agent's own; `team` with `tree`), and an editor's link
//! sends it on.

use crate::call::{CallShown, CallStatus, Location};
use crate::plan::Plan;
use lembas_rules::permission::Mode;
use lembas_rules::progress::Progress;
use lembas_rules::team::lead;
use lembas_rules::team::view::TreeInfo;
use serde::{Serialize, Serializer};

/// The agent an event is about: its id in the tree and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentRef {
    /// `lead`, or a subagent's `s1`, `s2`, ….
    pub id: String,
    /// Its name in the tree.
    pub name: String,
}

impl AgentRef {
    /// The main agent.
    pub fn main() -> AgentRef {
        AgentRef {
            id: lead().to_string(),
            name: lead().to_string(),
        }
    }

    /// Whether it is the main agent (whose events carry no `agent`).
    pub fn is_main(&self) -> bool {
        self.id == lead()
    }
}

/// An agent is written as its id (subagents.md §12, acp.md's `phase` event).
fn agent_id<S: Serializer>(agent: &AgentRef, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&agent.id)
}

/// A mode is written as its word.
fn mode_word<S: Serializer>(mode: &Mode, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(mode.as_str())
}

/// A file a call changed: its real path, its text before (none: it did not exist) and after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileDiff {
    /// The file, absolute.
    pub path: String,
    /// Its text before the call; none when the call made it.
    pub old: Option<String>,
    /// Its text after.
    pub new: String,
}

/// How a session's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DoneReason {
    /// The main agent's turn ended and the tree is quiet.
    Stop,
    /// The main agent's turn failed.
    Error,
    /// The person stopped it.
    Person,
}

/// Something a session says.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SessionEvent {
    /// An agent's progress, paced (progress.md §5); none: nothing runs.
    Phase {
        /// Whose; absent for the main agent.
        #[serde(serialize_with = "agent_id", skip_serializing_if = "AgentRef::is_main")]
        agent: AgentRef,
        /// The progress.
        progress: Option<Progress>,
    },
    /// A call is made: said before it is judged, so that a question about it, its run and its end
    /// all follow it (`status` pending).
    ToolStart {
        /// Whose call; absent for the main agent.
        #[serde(serialize_with = "agent_id", skip_serializing_if = "AgentRef::is_main")]
        agent: AgentRef,
        /// The call.
        #[serde(flatten)]
        call: CallShown,
    },
    /// An allowed call starts to run.
    ToolRunning {
        /// Whose call; absent for the main agent.
        #[serde(serialize_with = "agent_id", skip_serializing_if = "AgentRef::is_main")]
        agent: AgentRef,
        /// The call's id.
        id: String,
    },
    /// A piece of a running command's output, as it comes.
    ToolOutput {
        /// Whose call; absent for the main agent.
        #[serde(serialize_with = "agent_id", skip_serializing_if = "AgentRef::is_main")]
        agent: AgentRef,
        /// The call's id.
        id: String,
        /// The piece.
        text: String,
    },
    /// A call ended: it ran, or it did not (refused, its arguments not read).
    ToolEnd {
        /// Whose call; absent for the main agent.
        #[serde(serialize_with = "agent_id", skip_serializing_if = "AgentRef::is_main")]
        agent: AgentRef,
        /// The call's id.
        id: String,
        /// The tool.
        tool: String,
        /// Whether it ran.
        status: CallStatus,
        /// Its output, as the model reads it (a refusal's text when it did not run).
        output: String,
        /// For a write or an edit, the file before and after.
        #[serde(skip_serializing_if = "Option::is_none")]
        diff: Option<FileDiff>,
        /// The places it found (grep's hits), for a client to follow.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        found: Vec<Location>,
    },
    /// A piece of an agent's reasoning (a model that thinks aloud before it replies).
    Reasoning {
        /// Whose; absent for the main agent.
        #[serde(serialize_with = "agent_id", skip_serializing_if = "AgentRef::is_main")]
        agent: AgentRef,
        /// The piece.
        text: String,
    },
    /// A piece of an agent's reply.
    Text {
        /// Whose; absent for the main agent.
        #[serde(serialize_with = "agent_id", skip_serializing_if = "AgentRef::is_main")]
        agent: AgentRef,
        /// The piece.
        text: String,
    },
    /// The session's plan was written or changed.
    Plan {
        /// The plan.
        plan: Plan,
    },
    /// The main agent's mode changed from inside a turn (a plan approved).
    Mode {
        /// The mode now.
        #[serde(serialize_with = "mode_word")]
        mode: Mode,
    },
    /// How much of an agent's context its last step used, as the server counted it.
    Usage {
        /// Whose; absent for the main agent.
        #[serde(serialize_with = "agent_id", skip_serializing_if = "AgentRef::is_main")]
        agent: AgentRef,
        /// The tokens of the prompt and the reply.
        used: u64,
        /// Its model's context window, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        window: Option<u64>,
    },
    /// The tree's state (subagents.md §12).
    Team {
        /// The tree.
        tree: TreeInfo,
    },
    /// The main agent's final reply of a turn.
    Reply {
        /// The reply.
        text: String,
    },
    /// An agent's turn failed.
    Notice {
        /// Whose; absent for the main agent.
        #[serde(serialize_with = "agent_id", skip_serializing_if = "AgentRef::is_main")]
        agent: AgentRef,
        /// What went wrong, in one line.
        text: String,
    },
    /// The run is over.
    Done {
        /// How it ended.
        reason: DoneReason,
        /// The error, when it failed.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
}

impl SessionEvent {
    /// The event as one JSON line of the `--events` file.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The event as one line of the `--events` file: its JSON with `at`, when it was said (Unix
    /// ms, the clock of a progress's `since`), first — what a replay of the run places it by.
    pub fn to_file_line(&self, at: i64) -> String {
        /// A line of the file: the time, then the event's own fields.
        #[derive(Serialize)]
        struct FileLine<'a> {
            at: i64,
            #[serde(flatten)]
            event: &'a SessionEvent,
        }
        serde_json::to_string(&FileLine { at, event: self }).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lembas_rules::progress::{advance, Phase};
    use serde_json::{json, Value};

    #[test]
    fn a_phase_names_a_subagent_by_id_and_the_main_agent_not_at_all() {
        let progress = advance(None, Phase::Thinking, 5);
        let sub = SessionEvent::Phase {
            agent: AgentRef {
                id: "s1".into(),
                name: "api".into(),
            },
            progress: Some(progress.clone()),
        };
        let line: Value = serde_json::from_str(&sub.to_line()).unwrap();
        assert_eq!(
            line,
            json!({"type": "phase", "agent": "s1", "progress": {"phase": "thinking", "since": 5}})
        );
        let main = SessionEvent::Phase {
            agent: AgentRef::main(),
            progress: None,
        };
        assert_eq!(main.to_line(), r#"{"type":"phase","progress":null}"#);
        assert_eq!(
            main.to_file_line(7),
            r#"{"at":7,"type":"phase","progress":null}"#
        );
        let done = SessionEvent::Done {
            reason: DoneReason::Error,
            error: Some("x".into()),
        };
        assert_eq!(
            done.to_line(),
            r#"{"type":"done","reason":"error","error":"x"}"#
        );
    }
}
