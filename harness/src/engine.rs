//! One agent's turn (the main agent's, for now): the conversation sent to the provider with the
//! tools the spec data defines; each tool call judged by `lembas_rules::permission` — run, ask
//! the person through an [`Asker`], or answer the refusal as the tool's result — and the results
//! sent back, until a final reply or the step limit. Its progress is derived from what happens and
//! said through the rules' pacer (progress.md §4).

use crate::provider::chat::ChatEvent;
use crate::provider::client::{Provider, StreamEvent};
use crate::tools::{bash, Workspace};
use lembas_rules::permission::approval::approve;
use lembas_rules::permission::{evaluate, Action, Context, Request, Target};
use lembas_rules::progress::{
    advance, short_what, Paced, Pacer, PersonWait, Phase, Progress, StopReason,
};
use lembas_rules::spec::spec;
use serde_json::{json, Value};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use thiserror::Error;

/// The person's answer to an approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Once,
    Always,
    Deny,
}

/// Who answers approvals: the terminal, a script in tests, or nobody (unattended).
pub trait Asker: Send + Sync {
    fn ask(&self, agent: &str, tool: &str, what: &str) -> Answer;
}

/// Nobody can answer: every approval is refused.
pub struct Unattended;

impl Asker for Unattended {
    fn ask(&self, _agent: &str, _tool: &str, _what: &str) -> Answer {
        Answer::Deny
    }
}

/// What an engine says as it works.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The agent's progress (None: nothing runs), paced.
    Phase(Option<Progress>),
    ToolStart {
        tool: String,
        what: String,
    },
    ToolEnd {
        tool: String,
        output: String,
    },
    Text(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EngineError {
    #[error("{0}")]
    Provider(#[from] crate::provider::client::ProviderError),
}

/// The tools the spec data defines that this engine runs, as a model is sent them.
pub const TOOLS: &[&str] = &["read", "write", "edit", "list", "glob", "grep", "bash"];

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The tool definitions sent to the model, from `rules/spec/tools/*.json`.
pub fn tool_definitions() -> Vec<Value> {
    TOOLS
        .iter()
        .filter_map(|name| spec().tool(name))
        .map(|t| {
            json!({"type": "function", "function": {
                "name": t.name,
                "description": t.file.get("description").cloned().unwrap_or(Value::Null),
                "parameters": t.file.get("parameters").cloned().unwrap_or(json!({"type": "object"})),
            }})
        })
        .collect()
}

pub struct Engine {
    pub provider: Provider,
    pub model: String,
    pub workspace: Workspace,
    pub permissions: Context,
    pub messages: Vec<Value>,
    pub max_steps: u32,
    pub asker: Box<dyn Asker>,
    pub name: String,
    progress: Option<Progress>,
    pacer: Pacer,
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnEnd {
    pub reply: String,
    pub steps: u32,
    pub stopped_at_limit: bool,
}

impl Engine {
    pub fn new(
        provider: Provider,
        model: &str,
        workspace: Workspace,
        permissions: Context,
        asker: Box<dyn Asker>,
    ) -> Engine {
        Engine {
            provider,
            model: model.to_string(),
            workspace,
            permissions,
            messages: Vec::new(),
            max_steps: 200,
            asker,
            name: "lead".into(),
            progress: None,
            pacer: Pacer::new(),
        }
    }

    fn phase(&mut self, next: Option<Phase>, on: &mut dyn FnMut(Event)) {
        let now = now_ms();
        self.progress = next.map(|p| advance(self.progress.as_ref(), p, now));
        if let Paced::Send { progress } = self.pacer.push(self.progress.clone(), now) {
            on(Event::Phase(progress));
        }
    }

    fn flush(&mut self, on: &mut dyn FnMut(Event)) {
        if let Some(Paced::Send { progress }) = self.pacer.flush(now_ms()) {
            on(Event::Phase(progress));
        }
    }

    /// Runs one turn for `prompt`.
    pub async fn turn(
        &mut self,
        prompt: &str,
        on: &mut dyn FnMut(Event),
    ) -> Result<TurnEnd, EngineError> {
        self.messages
            .push(json!({"role": "user", "content": prompt}));
        let tools = tool_definitions();
        let mut steps = 0;
        loop {
            steps += 1;
            if steps > self.max_steps {
                self.phase(
                    Some(Phase::Stopped {
                        reason: Some(StopReason::Steps),
                    }),
                    on,
                );
                self.flush(on);
                return Ok(TurnEnd {
                    reply: String::new(),
                    steps: steps - 1,
                    stopped_at_limit: true,
                });
            }
            self.phase(
                Some(Phase::ReadingPrompt {
                    done: None,
                    total: None,
                }),
                on,
            );
            let body = json!({"model": self.model, "messages": self.messages, "tools": tools, "stream_options": {"include_usage": true}});
            let mut pending: Vec<Event> = Vec::new();
            let mut phases: Vec<Option<Phase>> = Vec::new();
            let result =
                self.provider
                    .stream(&body, |e| match e {
                        StreamEvent::Chat(ChatEvent::Reasoning(_)) => {
                            phases.push(Some(Phase::Thinking))
                        }
                        StreamEvent::Chat(ChatEvent::Content(c)) => {
                            phases.push(Some(Phase::Writing { rate: None }));
                            pending.push(Event::Text(c));
                        }
                        StreamEvent::Chat(ChatEvent::ToolCall { .. }) => {
                            phases.push(Some(Phase::Writing { rate: None }))
                        }
                        StreamEvent::Chat(ChatEvent::PromptProgress { done, total }) => phases
                            .push(Some(Phase::ReadingPrompt {
                                done: Some(done),
                                total: Some(total),
                            })),
                        StreamEvent::Retrying {
                            reason,
                            in_secs,
                            attempt,
                        } => phases.push(Some(Phase::Retrying {
                            reason,
                            in_secs,
                            attempt: Some(attempt),
                        })),
                        StreamEvent::Chat(_) => {}
                    })
                    .await;
            for p in phases {
                self.phase(p, on);
            }
            for e in pending {
                on(e);
            }
            let reply = match result {
                Ok(r) => r,
                Err(e) => {
                    let reason = short_what(&e.to_string()).unwrap_or_default();
                    self.phase(Some(Phase::Failed { reason }), on);
                    self.flush(on);
                    return Err(e.into());
                }
            };
            let calls = reply.tool_calls.clone();
            let mut assistant = serde_json::Map::new();
            assistant.insert("role".into(), json!("assistant"));
            assistant.insert("content".into(), json!(reply.content));
            if !calls.is_empty() {
                let list = calls
                    .iter()
                    .map(|(_, c)| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
                    .collect();
                assistant.insert("tool_calls".into(), Value::Array(list));
            }
            let assistant = Value::Object(assistant);
            self.messages.push(assistant);
            if calls.is_empty() {
                self.phase(None, on);
                self.flush(on);
                return Ok(TurnEnd {
                    reply: reply.content,
                    steps,
                    stopped_at_limit: false,
                });
            }
            for (_, call) in calls {
                let output = self.call(&call.name, &call.arguments, on).await;
                self.messages
                    .push(json!({"role": "tool", "tool_call_id": call.id, "content": output}));
            }
        }
    }

    /// One tool call: judged, perhaps asked, run; its output (or its refusal) for the model.
    async fn call(&mut self, tool: &str, arguments: &str, on: &mut dyn FnMut(Event)) -> String {
        let args: Value = match serde_json::from_str(if arguments.trim().is_empty() {
            "{}"
        } else {
            arguments
        }) {
            Ok(v) => v,
            Err(e) => return format!("the arguments are not JSON: {e}"),
        };
        let text = |k: &str| {
            args.get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let target = match tool {
            "bash" => Target::Line(text("command")),
            "list" => Target::Path(
                args.get("path")
                    .and_then(Value::as_str)
                    .unwrap_or(".")
                    .to_string(),
            ),
            _ => Target::Path(text("path")),
        };
        let Some(request) = Request::tool(tool, target.clone()) else {
            return format!("there is no tool \"{tool}\"");
        };
        let what = match &target {
            Target::Line(l) | Target::Path(l) => short_what(l).unwrap_or_default(),
            Target::Tool => String::new(),
        };
        let decision = evaluate(&request, &self.permissions);
        match decision.action {
            Action::Deny => return format!("Refused: {}", decision.reason),
            Action::Ask => {
                self.phase(
                    Some(Phase::WaitingForPerson {
                        what: PersonWait::Approval,
                        tool: Some(tool.to_string()),
                    }),
                    on,
                );
                match self.asker.ask(&self.name, tool, &what) {
                    Answer::Deny => return format!("Refused by the person: {}", decision.reason),
                    Answer::Once => {}
                    Answer::Always => {
                        if let Ok(rules) = approve(&request, &self.permissions) {
                            self.permissions.approvals.extend(rules);
                        }
                    }
                }
            }
            Action::Allow => {}
        }
        self.phase(
            Some(Phase::RunningTool {
                tool: tool.to_string(),
                what: (!what.is_empty()).then(|| what.clone()),
            }),
            on,
        );
        on(Event::ToolStart {
            tool: tool.to_string(),
            what,
        });
        let num = |k: &str| {
            args.get(k)
                .and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
        };
        let output = match tool {
            "read" => self
                .workspace
                .read(&text("path"), num("offset"), num("limit"))
                .unwrap_or_else(|e| e.to_string()),
            "write" => self
                .workspace
                .write(&text("path"), &text("content"))
                .unwrap_or_else(|e| e.to_string()),
            "edit" => self
                .workspace
                .edit(&text("path"), &text("old"), &text("new"))
                .unwrap_or_else(|e| e.to_string()),
            "list" => self
                .workspace
                .list(args.get("path").and_then(Value::as_str))
                .unwrap_or_else(|e| e.to_string()),
            "bash" => {
                let secs = args
                    .get("timeout")
                    .and_then(Value::as_u64)
                    .unwrap_or(120)
                    .clamp(1, 600);
                match bash(
                    &self.workspace.root,
                    &text("command"),
                    Duration::from_secs(secs),
                )
                .await
                {
                    Ok(ran) => match ran.code {
                        Some(0) => ran.output,
                        Some(c) => format!("{}\n(exit {c})", ran.output),
                        None => ran.output,
                    },
                    Err(e) => e.to_string(),
                }
            }
            other => format!("there is no tool \"{other}\""),
        };
        on(Event::ToolEnd {
            tool: tool.to_string(),
            output: output.clone(),
        });
        output
    }
}
