//! The tools an agent calls (the files and the shell), each confined to the project root as
//! the rules decide: the engine asks `lembas_rules::permission` before a call; a tool only does
//! what it was allowed, and answers in text a model reads. Failures are answers too (`ToolError`
//! is said to the model), never a crash.

use crate::provider::client::one_line;
use lembas_rules::permission::{inside, resolve, RiskClass, Target};
use lembas_rules::spec::spec;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;
use thiserror::Error;

/// What a tool says when it cannot do what it was asked.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ToolError {
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
    #[error("{path}: `old` is not in the file")]
    NotFound { path: String },
    #[error(
        "{path}: `old` is in the file {count} times; give more lines around it so it is found once"
    )]
    Ambiguous { path: String, count: usize },
    #[error("the command could not start: {0}")]
    Spawn(String),
    #[error("\"{pattern}\" is not a pattern: {reason}")]
    Pattern { pattern: String, reason: String },
}

/// The most entries glob and grep list before the rest is counted.
pub const MATCHES_MAX: usize = 500;

fn pattern_error(pattern: &str, e: impl std::fmt::Display) -> ToolError {
    ToolError::Pattern {
        pattern: pattern.to_string(),
        reason: one_line(&e.to_string()),
    }
}

/// A listing cut at [`MATCHES_MAX`] entries, the rest counted.
fn listing(lines: Vec<String>) -> String {
    let total = lines.len();
    let mut shown: Vec<String> = lines.into_iter().take(MATCHES_MAX).collect();
    if total > MATCHES_MAX {
        shown.push(format!("… {} more not shown", total - MATCHES_MAX));
    }
    if shown.is_empty() {
        return "(nothing found)".into();
    }
    bounded(&shown.join("\n"), OUTPUT_MAX)
}

/// The most a tool's output may be before the rest is summarised.
pub const OUTPUT_MAX: usize = 30_000;

/// `text` cut to `max` characters, the rest said in one line.
pub fn bounded(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max).collect();
    format!("{kept}\n… {} more characters not shown", count - max)
}

/// The project the tools work in.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub root: PathBuf,
}

impl Workspace {
    pub fn new(root: impl Into<PathBuf>) -> Workspace {
        Workspace { root: root.into() }
    }

    fn root_str(&self) -> String {
        self.root.to_string_lossy().into_owned()
    }

    /// A path of a call, absolute and normalised (the rules decided whether it may be used).
    pub fn path(&self, path: &str) -> PathBuf {
        PathBuf::from(resolve(&self.root_str(), path))
    }

    /// How a path is shown to the model: relative to the root when inside it.
    pub fn shown(&self, abs: &Path) -> String {
        let a = abs.to_string_lossy();
        inside(&self.root_str(), &a).unwrap_or_else(|| a.into_owned())
    }

    fn err(&self, abs: &Path, e: std::io::Error) -> ToolError {
        ToolError::File {
            path: self.shown(abs),
            reason: e.to_string().to_lowercase(),
        }
    }

    /// `read`: the lines `offset..offset+limit` (1-based), numbered.
    pub fn read(
        &self,
        path: &str,
        offset: Option<usize>,
        limit: Option<usize>,
    ) -> Result<String, ToolError> {
        let abs = self.path(path);
        let text = std::fs::read_to_string(&abs).map_err(|e| self.err(&abs, e))?;
        let start = offset.unwrap_or(1).max(1);
        let limit = limit.unwrap_or(2000);
        let lines: Vec<String> = text
            .lines()
            .enumerate()
            .skip(start - 1)
            .take(limit)
            .map(|(i, l)| format!("{:>6}\t{l}", i + 1))
            .collect();
        Ok(bounded(&lines.join("\n"), OUTPUT_MAX))
    }

    /// `write`: the whole file, with its folders.
    pub fn write(&self, path: &str, content: &str) -> Result<String, ToolError> {
        let abs = self.path(path);
        if let Some(dir) = abs.parent() {
            std::fs::create_dir_all(dir).map_err(|e| self.err(dir, e))?;
        }
        std::fs::write(&abs, content).map_err(|e| self.err(&abs, e))?;
        Ok(format!(
            "wrote {} ({} lines)",
            self.shown(&abs),
            content.lines().count()
        ))
    }

    /// `edit`: `old` replaced by `new`, where `old` is in the file exactly once.
    pub fn edit(&self, path: &str, old: &str, new: &str) -> Result<String, ToolError> {
        let abs = self.path(path);
        let text = std::fs::read_to_string(&abs).map_err(|e| self.err(&abs, e))?;
        match text.matches(old).count() {
            0 => Err(ToolError::NotFound {
                path: self.shown(&abs),
            }),
            1 => {
                std::fs::write(&abs, text.replacen(old, new, 1)).map_err(|e| self.err(&abs, e))?;
                Ok(format!("edited {}", self.shown(&abs)))
            }
            count => Err(ToolError::Ambiguous {
                path: self.shown(&abs),
                count,
            }),
        }
    }

    /// `list`: a folder's entries, sorted, folders ending in `/`.
    pub fn list(&self, path: Option<&str>) -> Result<String, ToolError> {
        let abs = self.path(path.unwrap_or("."));
        let mut names: Vec<String> = std::fs::read_dir(&abs)
            .map_err(|e| self.err(&abs, e))?
            .filter_map(|e| e.ok())
            .map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                if e.file_type().is_ok_and(|t| t.is_dir()) {
                    format!("{name}/")
                } else {
                    name
                }
            })
            .collect();
        names.sort();
        Ok(bounded(&names.join("\n"), OUTPUT_MAX))
    }
}

impl Workspace {
    /// Files under `dir` (or `dir` itself), .gitignore and hidden files honoured, sorted.
    fn files(&self, dir: &Path) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = ignore::WalkBuilder::new(dir)
            .require_git(false)
            .build()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .map(|e| e.into_path())
            .collect();
        out.sort();
        out
    }

    /// `glob`: the files under `path` (default: the root) whose path relative to the root matches
    /// `pattern` (`src/**/*.rs`), sorted.
    pub fn glob(&self, pattern: &str, path: Option<&str>) -> Result<String, ToolError> {
        let matcher = globset::Glob::new(pattern)
            .map_err(|e| pattern_error(pattern, e))?
            .compile_matcher();
        let dir = self.path(path.unwrap_or("."));
        if !dir.exists() {
            return Err(ToolError::File {
                path: self.shown(&dir),
                reason: "no such file or directory".into(),
            });
        }
        let found: Vec<String> = self
            .files(&dir)
            .iter()
            .map(|f| self.shown(f))
            .filter(|rel| matcher.is_match(rel))
            .collect();
        Ok(listing(found))
    }

    /// `grep`: `path:line: text` for each line matching the regular expression `pattern`, in the
    /// files under `path` (or that file), only those matching `glob` when given.
    pub fn grep(
        &self,
        pattern: &str,
        path: Option<&str>,
        glob: Option<&str>,
    ) -> Result<String, ToolError> {
        let re = regex::Regex::new(pattern).map_err(|e| pattern_error(pattern, e))?;
        let only = match glob {
            Some(g) => Some(
                globset::Glob::new(g)
                    .map_err(|e| pattern_error(g, e))?
                    .compile_matcher(),
            ),
            None => None,
        };
        let start = self.path(path.unwrap_or("."));
        if !start.exists() {
            return Err(ToolError::File {
                path: self.shown(&start),
                reason: "no such file or directory".into(),
            });
        }
        let mut found = Vec::new();
        for file in self.files(&start) {
            let rel = self.shown(&file);
            if only.as_ref().is_some_and(|m| {
                !m.is_match(&rel) && !m.is_match(file.file_name().unwrap_or_default())
            }) {
                continue;
            }
            // A file that is not text is passed over.
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            for (i, line) in text.lines().enumerate() {
                if re.is_match(line) {
                    let line: String = line.chars().take(300).collect();
                    found.push(format!("{rel}:{}: {line}", i + 1));
                }
            }
        }
        Ok(listing(found))
    }
}

/// What a command did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    /// Its output (stdout then stderr), bounded.
    pub output: String,
    /// Its exit code; none when it was stopped by a signal or by the timeout.
    pub code: Option<i32>,
    pub timed_out: bool,
}

/// `bash`: the line run by bash in the project root, stopped after `timeout`.
pub async fn bash(root: &Path, line: &str, timeout: Duration) -> Result<Ran, ToolError> {
    let child = tokio::process::Command::new("bash")
        .arg("-c")
        .arg(line)
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| ToolError::Spawn(e.to_string()))?;
    match tokio::time::timeout(timeout, child.wait_with_output()).await {
        Ok(Ok(out)) => {
            let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
            let err = String::from_utf8_lossy(&out.stderr);
            if !err.is_empty() {
                if !text.is_empty() && !text.ends_with('\n') {
                    text.push('\n');
                }
                text.push_str(&err);
            }
            Ok(Ran {
                output: bounded(&text, OUTPUT_MAX),
                code: out.status.code(),
                timed_out: false,
            })
        }
        Ok(Err(e)) => Err(ToolError::Spawn(e.to_string())),
        Err(_) => Ok(Ran {
            output: format!("stopped after {}s", timeout.as_secs()),
            code: None,
            timed_out: true,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(name: &str) -> Workspace {
        let dir = std::env::temp_dir().join(format!("lembas-tools-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Workspace::new(dir)
    }

    #[test]
    fn write_read_edit_list() {
        let w = workspace("files");
        assert_eq!(
            w.write("src/a.txt", "one\ntwo\nthree\n").unwrap(),
            "wrote src/a.txt (3 lines)"
        );
        assert_eq!(
            w.read("src/a.txt", Some(2), Some(1)).unwrap(),
            "     2\ttwo"
        );
        assert_eq!(w.edit("src/a.txt", "two", "2").unwrap(), "edited src/a.txt");
        assert_eq!(
            w.edit("src/a.txt", "zzz", "x"),
            Err(ToolError::NotFound {
                path: "src/a.txt".into()
            })
        );
        w.write("b.txt", "x x").unwrap();
        assert_eq!(
            w.edit("b.txt", "x", "y"),
            Err(ToolError::Ambiguous {
                path: "b.txt".into(),
                count: 2
            })
        );
        assert_eq!(w.list(None).unwrap(), "b.txt\nsrc/");
        assert!(w
            .read("nope.txt", None, None)
            .unwrap_err()
            .to_string()
            .starts_with("nope.txt: no such file"));
    }

    #[test]
    fn glob_and_grep_honour_gitignore() {
        let w = workspace("search");
        w.write("src/a.rs", "fn main() {}\n// TODO: more\n")
            .unwrap();
        w.write("src/b.txt", "TODO later\n").unwrap();
        w.write("target/x.rs", "TODO ignored\n").unwrap();
        w.write(".gitignore", "target/\n").unwrap();
        assert_eq!(w.glob("**/*.rs", None).unwrap(), "src/a.rs");
        assert_eq!(
            w.grep("TODO", None, None).unwrap(),
            "src/a.rs:2: // TODO: more\nsrc/b.txt:1: TODO later"
        );
        assert_eq!(
            w.grep("TODO", Some("src"), Some("*.txt")).unwrap(),
            "src/b.txt:1: TODO later"
        );
        assert_eq!(
            w.grep("nothing here", None, None).unwrap(),
            "(nothing found)"
        );
        assert!(w
            .grep("(", None, None)
            .unwrap_err()
            .to_string()
            .starts_with("\"(\" is not a pattern"));
        assert!(w.glob("[", None).is_err());
    }

    #[test]
    fn long_output_is_summarised() {
        let text = "x".repeat(OUTPUT_MAX + 10);
        assert!(bounded(&text, OUTPUT_MAX).ends_with("… 10 more characters not shown"));
    }

    #[tokio::test]
    async fn bash_runs_in_the_root_and_stops_at_its_timeout() {
        let w = workspace("bash");
        w.write("here.txt", "").unwrap();
        let ran = bash(
            &w.root,
            "ls; echo oops >&2; exit 3",
            Duration::from_secs(10),
        )
        .await
        .unwrap();
        assert_eq!(ran.output, "here.txt\noops\n");
        assert_eq!(ran.code, Some(3));
        let ran = bash(&w.root, "sleep 5", Duration::from_millis(200))
            .await
            .unwrap();
        assert!(ran.timed_out);
    }
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

    pub fn text(&self, key: &str) -> String {
        self.opt(key).unwrap_or("").to_string()
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
            "bash" => Target::Line(self.text("command")),
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

impl Workspace {
    /// Runs a file tool (every tool of [`crate::engine::TOOLS`] but `bash`): its answer.
    pub fn run(&self, tool: &str, a: &Args) -> String {
        let done = match tool {
            "read" => self.read(&a.text("path"), a.count("offset"), a.count("limit")),
            "write" => self.write(&a.text("path"), &a.text("content")),
            "edit" => self.edit(&a.text("path"), &a.text("old"), &a.text("new")),
            "list" => self.list(a.opt("path")),
            "glob" => self.glob(&a.text("pattern"), a.opt("path")),
            "grep" => self.grep(&a.text("pattern"), a.opt("path"), a.opt("glob")),
            other => return format!("there is no tool \"{other}\""),
        };
        done.unwrap_or_else(|e| e.to_string())
    }
}

/// Runs `bash` with the call's timeout (seconds, 1 to 600, default 120): its answer, the exit
/// code said when not 0.
pub async fn run_bash(root: &Path, a: &Args) -> String {
    let secs =
        a.0.get("timeout")
            .and_then(Value::as_u64)
            .unwrap_or(120)
            .clamp(1, 600);
    match bash(root, &a.text("command"), Duration::from_secs(secs)).await {
        Ok(ran) => match ran.code {
            Some(0) | None => ran.output,
            Some(c) => format!("{}\n(exit {c})", ran.output),
        },
        Err(e) => e.to_string(),
    }
}
