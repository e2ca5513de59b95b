//! A call as the session shows it, the same for every front: its id, its title in words, how it
//! is drawn (its tool file's `block`), its arguments as the model sent them, the places it
//! touches, and how it ended. An editor shows it as ACP's `tool_call` card, the terminal as the
//! line it keeps, the `--events` file as `tool_start` and `tool_end`. The titles are this
//! project's texts (`harness/texts/calls.json`).

use lembas_rules::spec::tool_file;
use lembas_rules::text::fill;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// How a tool's call is drawn (the spec's `block` of `tools/<name>.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Block {
    /// A command.
    Shell,
    /// A change to a file.
    Edit,
    /// A read of a file.
    Read,
    /// A search or a listing.
    Search,
    /// A fetch from the web.
    Web,
    /// A subagent's work.
    Task,
    /// The plan (not drawn; the plan card refreshes).
    Plan,
    /// Not shown.
    Hidden,
    /// Any other tool.
    Tool,
}

impl Block {
    /// The block of `tool` as its spec file says; `tool` for one the spec does not know.
    pub fn of(tool: &str) -> Block {
        tool_file(tool)
            .and_then(|f| f.get("block").cloned())
            .and_then(|b| serde_json::from_value(b).ok())
            .unwrap_or(Block::Tool)
    }
}

/// A place a call touches: a file, and a line in it when one is known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Location {
    /// The file, absolute.
    pub path: String,
    /// Its line, 1-based.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// It ran (its output may still say the tool could not do it).
    Completed,
    /// It did not run: refused by the rules or the person, or its arguments were not read.
    Failed,
}

/// A call as it is shown, from the moment the model made it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallShown {
    /// Its id in the session: the agent's id and the call's number (`lead-3`, `s1-2`).
    pub id: String,
    /// The tool.
    pub tool: String,
    /// What it is about, in a few words (progress.md `what`).
    pub what: String,
    /// Its title in words (`Write notes.txt`, `Run cargo test`).
    pub title: String,
    /// How it is drawn.
    pub kind: Block,
    /// Its arguments as the model sent them (a string when they are not JSON).
    pub input: Value,
    /// The files it touches.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<Location>,
}

/// One tool's title texts.
#[derive(Debug, Deserialize)]
struct Title {
    with: String,
    without: String,
}

/// The terminal's lines after a call.
#[derive(Debug, Deserialize)]
pub struct Kept {
    /// A command's line.
    pub ran: String,
    /// A write's or an edit's line.
    pub edited: String,
    /// A refused call's line.
    pub refused: String,
    /// Any other call's line.
    pub done: String,
}

/// `harness/texts/calls.json`.
#[derive(Debug, Deserialize)]
pub struct CallTexts {
    titles: BTreeMap<String, Title>,
    other: String,
    /// What the person is told the main agent is.
    pub main_agent: String,
    /// The terminal's lines after a call.
    pub kept: Kept,
    /// A question's first line.
    pub question: String,
    /// The answers a question takes.
    pub answers: String,
    /// The answers, where approvals can be kept for the project too.
    pub answers_project: String,
    /// What `p` would keep.
    pub kept_in_project: String,
    /// Said when the person cancels a question.
    pub cancelled: String,
}

/// The texts, read once (a test shows they are read).
pub static TEXTS: LazyLock<CallTexts> = LazyLock::new(|| {
    serde_json::from_str(include_str!("../texts/calls.json")).unwrap_or_else(|_| CallTexts {
        titles: BTreeMap::new(),
        other: "{{tool}}".into(),
        main_agent: "the main agent".into(),
        kept: Kept {
            ran: "{{command}}".into(),
            edited: "{{path}}".into(),
            refused: "{{title}}: {{reason}}".into(),
            done: "{{title}}".into(),
        },
        question: "{{agent}}: {{title}}".into(),
        answers: "[y/a/n] ".into(),
        answers_project: "[y/a/p/n] ".into(),
        kept_in_project: "{{kept}}".into(),
        cancelled: String::new(),
    })
});

/// An argument as a title shows it: its first line, at most 60 characters; an array's strings
/// joined with commas.
fn short_argument(value: &Value) -> Option<String> {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(", "),
        _ => return None,
    };
    let first = text.lines().next().unwrap_or("").trim();
    if first.is_empty() {
        return None;
    }
    let max = 60;
    if first.chars().count() <= max {
        return Some(first.to_string());
    }
    let mut cut: String = first.chars().take(max - 1).collect();
    cut.push('…');
    Some(cut)
}

/// The title of a call of `tool` with these arguments, in words.
pub fn title(tool: &str, input: &Value) -> String {
    let Some(texts) = TEXTS.titles.get(tool) else {
        return fill(&TEXTS.other, &[("tool", tool)]);
    };
    let mut values: Vec<(String, String)> = Vec::new();
    if let Value::Object(fields) = input {
        for (key, value) in fields {
            if let Some(shown) = short_argument(value) {
                values.push((key.clone(), shown));
            }
        }
    }
    let pairs: Vec<(&str, &str)> = values
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let filled = fill(&texts.with, &pairs);
    if filled.contains("{{") {
        texts.without.clone()
    } else {
        filled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_call_is_titled_in_words_from_its_arguments() {
        assert_eq!(
            title("write", &json!({"path": "out1.txt", "content": "x"})),
            "Write out1.txt"
        );
        assert_eq!(
            title("bash", &json!({"command": "cargo test\nrm -rf x"})),
            "Run cargo test"
        );
        assert_eq!(title("write", &json!({})), "Write a file");
        assert_eq!(
            title("team_send", &json!({"to": ["api", "web"], "text": "hi"})),
            "Message to api, web"
        );
        assert_eq!(title("web_fetch", &json!({})), "Call web_fetch");
        let long = "x".repeat(100);
        assert_eq!(
            title("read", &json!({ "path": long })).chars().count(),
            "Read ".len() + 60
        );
    }

    #[test]
    fn the_texts_are_read_and_every_tool_of_the_harness_has_a_title() {
        assert!(!TEXTS.titles.is_empty());
        for tool in crate::engine::TOOLS {
            assert!(TEXTS.titles.contains_key(*tool), "{tool}");
        }
        assert_eq!(Block::of("bash"), Block::Shell);
        assert_eq!(Block::of("write"), Block::Edit);
        assert_eq!(Block::of("nothing"), Block::Tool);
    }
}
