//! A tool call's arguments as the tools read them — the file tools by name, each one's arguments
//! as a typed struct (`rules/spec/tools/<name>.json`'s parameters) — and which tools only read.

use super::*;
use serde::de::DeserializeOwned;
use serde::Deserialize;

/// The project's file tools (every tool of [`crate::engine::TOOLS`] but `bash`), by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileTool {
    Read,
    Write,
    Edit,
    List,
    Glob,
    Grep,
}

impl FileTool {
    /// The tool of this name; none for another.
    pub fn parse(name: &str) -> Option<FileTool> {
        Some(match name {
            "read" => FileTool::Read,
            "write" => FileTool::Write,
            "edit" => FileTool::Edit,
            "list" => FileTool::List,
            "glob" => FileTool::Glob,
            "grep" => FileTool::Grep,
            _ => return None,
        })
    }

    /// Its name, as a model calls it.
    pub fn name(self) -> &'static str {
        match self {
            FileTool::Read => "read",
            FileTool::Write => "write",
            FileTool::Edit => "edit",
            FileTool::List => "list",
            FileTool::Glob => "glob",
            FileTool::Grep => "grep",
        }
    }
}

/// `read`'s arguments: a file, and the lines from `offset` (1-based), `limit` of them.
#[derive(Debug, Deserialize)]
pub struct ReadArgs {
    pub path: String,
    #[serde(default)]
    pub offset: Option<usize>,
    #[serde(default)]
    pub limit: Option<usize>,
}

/// `write`'s arguments: a file and its whole text.
#[derive(Debug, Deserialize)]
pub struct WriteArgs {
    pub path: String,
    pub content: String,
}

/// `edit`'s arguments: a file, the text in it once, and what replaces it.
#[derive(Debug, Deserialize)]
pub struct EditArgs {
    pub path: String,
    pub old: String,
    pub new: String,
}

/// `list`'s arguments: a folder (the root when none).
#[derive(Debug, Deserialize)]
pub struct ListArgs {
    #[serde(default)]
    pub path: Option<String>,
}

/// `glob`'s arguments: a pattern, and the folder it is matched in.
#[derive(Debug, Deserialize)]
pub struct GlobArgs {
    pub pattern: String,
    #[serde(default)]
    pub path: Option<String>,
}

/// `grep`'s arguments: a pattern, the folder it searches, and the files it searches by name.
#[derive(Debug, Deserialize)]
pub struct GrepArgs {
    pub pattern: String,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub glob: Option<String>,
}

/// `bash`'s arguments: a command line, and its timeout in seconds.
#[derive(Debug, Deserialize)]
pub struct BashArgs {
    pub command: String,
    #[serde(default)]
    pub timeout: Option<u64>,
}

/// A tool call's arguments as the tools read them: a missing or mistyped field reads as empty
/// (the tool then says what is wrong with the empty value).
#[derive(Debug, Clone, PartialEq)]
pub struct Args(pub Value);

impl Args {
    /// The arguments' JSON text as a model sent it (empty: none).
    pub fn parse(text: &str) -> Result<Args, String> {
        let text = if text.trim().is_empty() { "{}" } else { text };
        serde_json::from_str(text)
            .map(Args)
            .map_err(|e| format!("the arguments are not JSON: {e}"))
    }

    /// The arguments as `tool` takes them; what is missing or of the wrong kind named.
    pub fn read_as<T: DeserializeOwned>(&self, tool: &str) -> Result<T, ToolError> {
        serde_json::from_value(self.0.clone()).map_err(|e| ToolError::Arguments {
            tool: tool.to_string(),
            reason: e.to_string(),
        })
    }

    /// A string argument the tool cannot do without.
    pub fn required(&self, key: &'static str) -> Result<&str, ToolError> {
        self.opt(key).ok_or(ToolError::Missing(key))
    }

    pub fn opt(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    pub fn count(&self, key: &str) -> Option<usize> {
        self.0
            .get(key)
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
    }

    /// What the permission rules judge: the command line of `bash`, else the path it touches
    /// (the root when none is given).
    pub fn target(&self, tool: &str) -> Target {
        match tool {
            "bash" => Target::Line(self.opt("command").unwrap_or("").to_string()),
            _ => Target::Path(self.opt("path").unwrap_or(".").to_string()),
        }
    }
}

/// Whether a tool only reads (its risk class in the spec data is `read`), so calls of it may run
/// at once.
pub fn reads_only(tool: &str) -> bool {
    spec()
        .tool(tool)
        .is_some_and(|t| t.risk == RiskClass::Read && !t.name.starts_with("team_"))
}
