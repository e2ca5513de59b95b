//! A chat completion stream's frames read into events (the OpenAI shape, with llama.cpp's
//! additions): deltas of `content`, `reasoning_content` (or `reasoning`), `tool_calls` by
//! `index`; `usage`; `prompt_progress`; `finish_reason`; `[DONE]`; an `error` frame. A frame
//! without choices is classified — progress, usage or error — never dropped silently; a frame
//! that is not JSON is an error event, never a panic.

use crate::text::one_line;
use serde_json::Value;

/// What a frame says.
#[derive(Debug, Clone, PartialEq)]
pub enum ChatEvent {
    Content(String),
    Reasoning(String),
    /// A piece of a tool call: its index in the reply, and what this frame adds.
    ToolCall {
        index: u64,
        id: Option<String>,
        name: Option<String>,
        arguments: String,
    },
    Usage {
        prompt: u64,
        completion: u64,
    },
    /// llama.cpp's prompt processing: tokens done of all.
    PromptProgress {
        done: u64,
        total: u64,
    },
    Finish(String),
    /// The server said something went wrong.
    Error(String),
    /// The server sent a frame lembas cannot read.
    Unreadable(String),
    /// `[DONE]`.
    Done,
    /// A frame with nothing the harness uses (said, not dropped).
    Other(String),
}

/// The most common frame — a piece of the reply's text and nothing else — read without building
/// a JSON tree. Any other key, or a field of another type, is not this shape: `None`, and the
/// frame is read whole.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TextFrame<'a> {
    #[serde(borrow)]
    choices: [TextChoice<'a>; 1],
    #[serde(default, rename = "id")]
    _id: serde::de::IgnoredAny,
    #[serde(default, rename = "object")]
    _object: serde::de::IgnoredAny,
    #[serde(default, rename = "created")]
    _created: serde::de::IgnoredAny,
    #[serde(default, rename = "model")]
    _model: serde::de::IgnoredAny,
    #[serde(default, rename = "system_fingerprint")]
    _fingerprint: serde::de::IgnoredAny,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TextChoice<'a> {
    #[serde(borrow)]
    delta: TextDelta<'a>,
    #[serde(default, rename = "index")]
    _index: serde::de::IgnoredAny,
    /// Present only as null.
    #[serde(default)]
    finish_reason: Option<()>,
    #[serde(default, rename = "logprobs")]
    _logprobs: Option<()>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TextDelta<'a> {
    #[serde(borrow)]
    content: std::borrow::Cow<'a, str>,
    #[serde(default, rename = "role")]
    _role: serde::de::IgnoredAny,
}

fn text_frame(data: &str) -> Option<ChatEvent> {
    let f: TextFrame<'_> = serde_json::from_str(data).ok()?;
    let [choice] = f.choices;
    if choice.finish_reason.is_some() || choice.delta.content.is_empty() {
        return None;
    }
    Some(ChatEvent::Content(choice.delta.content.into_owned()))
}

/// The events of one frame's data.
pub fn read_frame(data: &str) -> Vec<ChatEvent> {
    let data = data.trim();
    if data == "[DONE]" {
        return vec![ChatEvent::Done];
    }
    match text_frame(data) {
        Some(text) => vec![text],
        None => read_whole(data),
    }
}

/// A frame read as a JSON tree: every shape.
fn read_whole(data: &str) -> Vec<ChatEvent> {
    let frame: Value = match serde_json::from_str(data) {
        Ok(v) => v,
        Err(e) => {
            return vec![ChatEvent::Unreadable(format!(
                "a frame that is not JSON ({e}): {}",
                one_line(data)
            ))]
        }
    };
    let mut out = Vec::new();
    if let Some(err) = frame.get("error") {
        let message = err
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| err.to_string());
        out.push(ChatEvent::Error(one_line(&message)));
        return out;
    }
    if let Some(p) = frame.get("prompt_progress") {
        let n = |k: &str| p.get(k).and_then(Value::as_u64);
        if let (Some(total), Some(done)) = (n("total"), n("processed").or(n("done"))) {
            let cache = n("cache").unwrap_or(0);
            out.push(ChatEvent::PromptProgress {
                done: done.saturating_add(cache).min(total),
                total,
            });
        }
    }
    let choices = frame.get("choices").and_then(Value::as_array);
    for choice in choices.into_iter().flatten() {
        let delta = choice.get("delta").or_else(|| choice.get("message"));
        if let Some(d) = delta {
            if let Some(r) = d
                .get("reasoning_content")
                .or_else(|| d.get("reasoning"))
                .and_then(Value::as_str)
            {
                if !r.is_empty() {
                    out.push(ChatEvent::Reasoning(r.to_string()));
                }
            }
            if let Some(c) = d.get("content").and_then(Value::as_str) {
                if !c.is_empty() {
                    out.push(ChatEvent::Content(c.to_string()));
                }
            }
            for (i, call) in d
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                let f = call.get("function");
                out.push(ChatEvent::ToolCall {
                    index: call
                        .get("index")
                        .and_then(Value::as_u64)
                        .unwrap_or(i as u64),
                    id: call.get("id").and_then(Value::as_str).map(str::to_string),
                    name: f
                        .and_then(|f| f.get("name"))
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    arguments: f
                        .and_then(|f| f.get("arguments"))
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                });
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            out.push(ChatEvent::Finish(reason.to_string()));
        }
    }
    if let Some(u) = frame.get("usage").filter(|u| u.is_object()) {
        let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
        out.push(ChatEvent::Usage {
            prompt: n("prompt_tokens"),
            completion: n("completion_tokens"),
        });
    }
    if out.is_empty() {
        out.push(ChatEvent::Other(one_line(data)));
    }
    out
}

/// A message of the conversation, as the chat completions API reads it (and a stored session
/// keeps it).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    /// What the agent is told first.
    System {
        /// The text.
        content: String,
    },
    /// A prompt, or a text that reached the agent.
    User {
        /// The text.
        content: String,
    },
    /// The model's reply: its text and the calls it made.
    Assistant {
        /// The text (empty when it only called tools).
        content: String,
        /// The calls, in the order made.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<AssistantCall>,
    },
    /// A call's output.
    Tool {
        /// The call it answers.
        tool_call_id: String,
        /// The output.
        content: String,
    },
}

/// A call as the assistant message carries it back.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AssistantCall {
    /// The call's id.
    pub id: String,
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: CallKind,
    /// Its name and arguments.
    pub function: FunctionCall,
}

/// What a call is: a function's, the only kind there is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CallKind {
    Function,
}

/// A function call's name and its arguments as the model wrote them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FunctionCall {
    /// The tool's name.
    pub name: String,
    /// Its arguments, a JSON text.
    pub arguments: String,
}

impl From<&ToolCall> for AssistantCall {
    fn from(c: &ToolCall) -> AssistantCall {
        AssistantCall {
            id: c.id.clone(),
            kind: crate::provider::chat::CallKind::Function,
            function: FunctionCall {
                name: c.name.clone(),
                // A call whose arguments were not kept goes back with none.
                arguments: if c.oversize {
                    "{}".to_string()
                } else {
                    c.arguments.clone()
                },
            },
        }
    }
}

/// A request: the model, the conversation and the tools, each by reference.
#[derive(Debug, serde::Serialize)]
pub struct ChatRequest<'a> {
    /// The model's served id.
    pub model: &'a str,
    /// The conversation so far.
    pub messages: &'a [Message],
    /// The tools' definitions (`rules/spec/tools/`).
    pub tools: &'a [Value],
    /// Asks for the tokens used at the end of the stream.
    pub stream_options: StreamOptions,
}

/// `stream_options`.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct StreamOptions {
    /// Whether the last frame carries the usage.
    pub include_usage: bool,
}

/// The most a reply keeps of its text, its reasoning and its calls' arguments together (8 MiB):
/// a stream past it is stopped.
pub const REPLY_MAX: usize = 8 << 20;
/// The most a reply may send, kept or not (64 MiB): a stream past it is stopped.
pub const RECEIVED_MAX: usize = 64 << 20;
/// The most calls one reply may make.
pub const CALLS_MAX: usize = 128;
/// The longest arguments a call may have (1 MiB): a longer call is kept without them, and
/// refused.
pub const ARGUMENTS_MAX: usize = 1 << 20;

/// A tool call put together from its pieces.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
    /// Its arguments passed [`ARGUMENTS_MAX`]: they were not kept, and it is not run.
    pub oversize: bool,
}

/// A reply put together from a stream's events.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reply {
    pub content: String,
    pub reasoning: String,
    /// By index, in the order of their indexes.
    pub tool_calls: Vec<(u64, ToolCall)>,
    pub usage: Option<(u64, u64)>,
    pub finish: Option<String>,
    pub done: bool,
    pub error: Option<String>,
    /// A frame that could not be read.
    pub unreadable: Option<String>,
    /// The bytes it keeps of text, reasoning and arguments.
    kept: usize,
    /// The bytes of text, reasoning and arguments it was sent, kept or not.
    received: usize,
    /// Why the stream must stop: it passed a bound ([`REPLY_MAX`], [`CALLS_MAX`]).
    pub overflow: Option<String>,
}

impl Reply {
    /// Whether `more` bytes may still be kept; if not, the reply overflows.
    fn room(&mut self, more: usize) -> bool {
        if self.overflow.is_some() {
            return false;
        }
        if self.kept + more > REPLY_MAX {
            self.overflow = Some(format!(
                "the reply passed {} MiB of text and arguments: stopped",
                REPLY_MAX >> 20
            ));
            return false;
        }
        self.kept += more;
        true
    }

    /// Counts what an event sends; past [`RECEIVED_MAX`] the reply overflows.
    fn received(&mut self, e: &ChatEvent) -> bool {
        self.received += match e {
            ChatEvent::Content(text) | ChatEvent::Reasoning(text) => text.len(),
            ChatEvent::ToolCall { arguments, .. } => arguments.len(),
            _ => 0,
        };
        if self.received > RECEIVED_MAX && self.overflow.is_none() {
            self.overflow = Some(format!(
                "the reply passed {} MiB: stopped",
                RECEIVED_MAX >> 20
            ));
        }
        self.overflow.is_none()
    }

    pub fn take(&mut self, e: &ChatEvent) {
        if !self.received(e) {
            return;
        }
        match e {
            ChatEvent::Content(c) => {
                if self.room(c.len()) {
                    self.content.push_str(c);
                }
            }
            ChatEvent::Reasoning(r) => {
                if self.room(r.len()) {
                    self.reasoning.push_str(r);
                }
            }
            ChatEvent::ToolCall {
                index,
                id,
                name,
                arguments,
            } => {
                let at = match self.tool_calls.iter().position(|(i, _)| i == index) {
                    Some(at) => at,
                    None if self.tool_calls.len() >= CALLS_MAX => {
                        self.overflow.get_or_insert_with(|| {
                            format!("the reply asked for more than {CALLS_MAX} calls: stopped")
                        });
                        return;
                    }
                    None => {
                        let at = self
                            .tool_calls
                            .iter()
                            .position(|(i, _)| i > index)
                            .unwrap_or(self.tool_calls.len());
                        self.tool_calls.insert(at, (*index, ToolCall::default()));
                        at
                    }
                };
                let Some(oversize) = self.tool_calls.get(at).map(|(_, c)| {
                    c.oversize || c.arguments.len() + arguments.len() > ARGUMENTS_MAX
                }) else {
                    return;
                };
                // What is kept: its id and name, and its arguments while within their bound.
                let kept = id.as_ref().map_or(0, String::len)
                    + name.as_ref().map_or(0, String::len)
                    + if oversize { 0 } else { arguments.len() };
                if !self.room(kept) {
                    return;
                }
                if let Some((_, call)) = self.tool_calls.get_mut(at) {
                    if let Some(id) = id {
                        call.id.clone_from(id);
                    }
                    if let Some(name) = name {
                        call.name.push_str(name);
                    }
                    if oversize {
                        // Nothing past the bound is held.
                        self.kept = self.kept.saturating_sub(call.arguments.len());
                        call.oversize = true;
                        call.arguments = String::new();
                    } else {
                        call.arguments.push_str(arguments);
                    }
                }
            }
            ChatEvent::Usage { prompt, completion } => self.usage = Some((*prompt, *completion)),
            ChatEvent::Finish(r) => self.finish = Some(r.clone()),
            ChatEvent::Error(m) => self.error = Some(m.clone()),
            ChatEvent::Unreadable(m) => self.unreadable = Some(m.clone()),
            ChatEvent::Done => self.done = true,
            ChatEvent::PromptProgress { .. } | ChatEvent::Other(_) => {}
        }
    }

    /// Whether the stream ended as it should: `[DONE]` or a finish reason, and no error.
    pub fn complete(&self) -> bool {
        self.error.is_none()
            && self.unreadable.is_none()
            && self.overflow.is_none()
            && (self.done || self.finish.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_frame_reader_says_what_the_whole_reader_says() {
        let frames = [
            r#"{"choices":[{"delta":{"content":"Hi"}}]}"#,
            r#"{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"a\nb \u00e9"},"finish_reason":null,"logprobs":null}]}"#,
            r#"{"choices":[{"delta":{"content":""}}]}"#,
            r#"{"choices":[{"delta":{"content":null}}]}"#,
            r#"{"choices":[{"delta":{"content":"x"},"finish_reason":"stop"}]}"#,
            r#"{"choices":[{"delta":{"content":"x","reasoning_content":"y"}}]}"#,
            r#"{"choices":[{"delta":{"content":"x"}}],"usage":{"prompt_tokens":1,"completion_tokens":2}}"#,
            r#"{"choices":[{"delta":{"content":"x"}},{"delta":{"content":"y"}}]}"#,
            r#"{"choices":[{"delta":{"content":5}}]}"#,
            r#"{"choices":[]}"#,
            r#"[1]"#,
        ];
        for f in frames {
            assert_eq!(read_frame(f), read_whole(f), "{f}");
        }
        assert!(text_frame(frames[0]).is_some() && text_frame(frames[1]).is_some());
    }
    use crate::provider::sse::SseSplitter;

    fn reply(stream: &str) -> Reply {
        let mut s = SseSplitter::new();
        let mut r = Reply::default();
        let mut frames = s.push(stream.as_bytes());
        frames.extend(s.finish());
        for f in frames {
            for e in read_frame(&f) {
                r.take(&e);
            }
        }
        r
    }

    #[test]
    fn content_reasoning_and_tool_calls_merged_by_index() {
        let r = reply(concat!(
            "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"Hm\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"b\",\"function\":{\"name\":\"list\",\"arguments\":\"{}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"read\",\"arguments\":\"{\\\"pa\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"th\\\": \\\"x\\\"}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":5}}\n\n",
            "data: [DONE]\n\n",
        ));
        assert_eq!((r.reasoning.as_str(), r.content.as_str()), ("Hm", "Hello"));
        assert_eq!(r.tool_calls.len(), 2);
        assert_eq!(
            r.tool_calls[0].1,
            ToolCall {
                id: "a".into(),
                name: "read".into(),
                arguments: "{\"path\": \"x\"}".into(),
                oversize: false,
            }
        );
        assert_eq!(r.tool_calls[1].1.name, "list");
        assert_eq!(r.usage, Some((12, 5)));
        assert!(r.complete());
    }

    #[test]
    fn frames_without_choices_are_classified() {
        assert_eq!(
            read_frame("{\"prompt_progress\":{\"total\":100,\"cache\":10,\"processed\":40}}"),
            [ChatEvent::PromptProgress {
                done: 50,
                total: 100
            }]
        );
        assert_eq!(
            read_frame("{\"error\":{\"message\":\"model not loaded\\nmore\"}}"),
            [ChatEvent::Error("model not loaded".into())]
        );
        assert_eq!(
            read_frame("{\"choices\":[],\"usage\":{\"prompt_tokens\":1}}"),
            [ChatEvent::Usage {
                prompt: 1,
                completion: 0
            }]
        );
        assert!(matches!(
            read_frame("{\"id\":\"x\"}").as_slice(),
            [ChatEvent::Other(_)]
        ));
        assert!(
            matches!(read_frame("{not json").as_slice(), [ChatEvent::Unreadable(m)] if m.starts_with("a frame that is not JSON"))
        );
    }

    #[test]
    fn a_stream_cut_before_its_end_is_not_complete() {
        let r = reply("data: {\"choices\":[{\"delta\":{\"content\":\"Half\"}}]}\n\n");
        assert!(!r.complete());
        assert_eq!(r.content, "Half");
    }

    #[test]
    fn a_reply_keeps_within_its_bounds() {
        let piece = "x".repeat(1 << 16);
        // Endless text: stopped at the bound, nothing past it kept.
        let mut r = Reply::default();
        for _ in 0..((REPLY_MAX >> 16) + 10) {
            r.take(&ChatEvent::Content(piece.clone()));
        }
        assert!(r.overflow.is_some() && r.content.len() <= REPLY_MAX && !r.complete());
        // A call's arguments past their bound: kept without them, marked.
        let mut r = Reply::default();
        let call = |index: u64, arguments: &str| ChatEvent::ToolCall {
            index,
            id: Some(format!("c{index}")),
            name: Some("write".into()),
            arguments: arguments.into(),
        };
        for _ in 0..((ARGUMENTS_MAX >> 16) + 2) {
            r.take(&call(0, &piece));
        }
        r.take(&call(1, "{}"));
        assert!(r.tool_calls[0].1.oversize && r.tool_calls[0].1.arguments.is_empty());
        assert!(
            r.kept < 1024,
            "what was not kept is not counted: {}",
            r.kept
        );
        assert!(!r.tool_calls[1].1.oversize && r.overflow.is_none());
        // Too many calls.
        let mut r = Reply::default();
        for i in 0..10_000 {
            r.take(&call(i, "{}"));
        }
        assert_eq!(r.tool_calls.len(), CALLS_MAX);
        assert!(r
            .overflow
            .as_deref()
            .unwrap()
            .contains("more than 128 calls"));
        // Endless arguments of a call past its bound: stopped when the reply has sent too much.
        let mut r = Reply::default();
        for _ in 0..((RECEIVED_MAX >> 16) + 2) {
            r.take(&call(0, &piece));
        }
        assert!(r.overflow.as_deref().unwrap().contains("passed 64 MiB"));
    }

    #[test]
    fn reasoning_under_its_other_name() {
        assert_eq!(
            read_frame("{\"choices\":[{\"delta\":{\"reasoning\":\"r\"}}]}"),
            [ChatEvent::Reasoning("r".into())]
        );
    }
}
