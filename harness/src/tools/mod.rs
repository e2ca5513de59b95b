//! The tools an agent calls (the files and the shell), each confined to the project root as
//! the rules decide: the engine asks `lembas_rules::permission` before a call; a tool only does
//! what it was allowed, and answers in text a model reads. Failures are answers too (`ToolError`
//! is said to the model), never a crash.

use crate::files::{Access, OpenError};
use crate::sandbox::{Confinement, Sandbox};
use crate::text::one_line;
use lembas_rules::permission::path::{resolve, Place};
use lembas_rules::permission::sandbox::Policy;
use lembas_rules::permission::{evaluate, inside, Context, DecidedBy, Request, RiskClass, Target};
use lembas_rules::spec::spec;
use serde_json::Value;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
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
    #[error("`{0}` is missing (or not a string): give it")]
    Missing(&'static str),
    #[error("there is no tool \"{0}\"")]
    NoTool(String),
    #[error("{tool}: {reason} — give its arguments as its description says")]
    Arguments { tool: String, reason: String },
}

/// An editor's own files (ACP's `fs/read_text_file` and `fs/write_text_file`): what a client
/// reads and writes for the file tools — its buffers, unsaved changes included, its review and
/// undo — once the rules allowed the call, and only for a file that passes the same checks on
/// disk (beneath the root, through no link, no other hard link). Each answers none when the
/// editor does not offer it.
pub trait EditorFiles: Send + Sync {
    /// The text of the file at `path` (absolute) as the editor has it.
    fn read(&self, path: &Path) -> Option<Result<String, String>>;
    /// Writes the file at `path` whole, through the editor.
    fn write(&self, path: &Path, content: &str) -> Option<Result<(), String>>;
}

/// How a read of a file would be decided.
enum ReadVerdict {
    /// lembas's kept sessions (or a read the spec has no tool for): never.
    Private,
    /// The workspace has no rules (a test's): it may.
    NoRules,
    /// The rules' decision.
    Decided(lembas_rules::permission::Decision),
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

/// The project the tools work in: its root (a real path), the person's home, and the
/// permissions that say what `read` would show (so `grep`, `glob` and `list` pass over the rest).
#[derive(Debug, Clone)]
pub struct Workspace {
    pub root: PathBuf,
    home: Option<String>,
    permissions: Option<Arc<Mutex<Context>>>,
    /// Environment variables the commands it runs do not get (those holding the API key).
    hidden_env: Vec<String>,
    /// The session's sandbox: its temporary folder, and whether commands are confined.
    sandbox: Option<Arc<Sandbox>>,
    /// Folders no tool reads or writes, whatever the rules say (lembas's kept sessions).
    private: Vec<PathBuf>,
    /// The editor's files, when a client offers them.
    editor: Option<Arc<dyn EditorFiles>>,
    /// A call's path as the rules judged it: used as it is, not resolved again (a link swapped
    /// in since is refused when the file is opened, rather than followed).
    pinned: Option<(String, PathBuf)>,
    /// The files no tool reads wherever a hard link to them is (the hidden secrets), by device
    /// and inode: found the first time a file with other hard links is read.
    hidden_files: Arc<std::sync::OnceLock<std::collections::HashSet<(u64, u64)>>>,
    /// Commands' background processes, watched while they go on and ended with the session.
    survivors: Arc<crate::survivors::Survivors>,
}

impl std::fmt::Debug for dyn EditorFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EditorFiles")
    }
}

impl Workspace {
    /// A workspace at `root` (made a real path when it exists), with no home and no permissions.
    pub fn new(root: impl Into<PathBuf>) -> Workspace {
        let root = root.into();
        Workspace {
            root: std::fs::canonicalize(&root).unwrap_or(root),
            home: None,
            permissions: None,
            hidden_env: vec![crate::config::API_KEY_ENV.into()],
            sandbox: None,
            private: Vec::new(),
            editor: None,
            pinned: None,
            hidden_files: Arc::default(),
            survivors: Arc::default(),
        }
    }

    /// This workspace with `path` standing for `judged`, the real path the rules judged: what
    /// the call's tool opens, never resolved again.
    pub fn pinned_to(&self, path: &str, judged: PathBuf) -> Workspace {
        let mut pinned = self.clone();
        pinned.pinned = Some((path.to_string(), judged));
        pinned
    }

    /// The editor's files: the file tools read and write through them where it offers them.
    pub fn with_editor(mut self, editor: Arc<dyn EditorFiles>) -> Workspace {
        self.editor = Some(editor);
        self
    }

    /// The text of the file at `abs`: opened on disk as the rules judged it first (so a link, a
    /// folder or a file outside what was judged fails as it would), then read through the editor
    /// where it offers it, else from the disk.
    fn text_of(&self, abs: &Path, access: Access) -> Result<String, ToolError> {
        let mut file = self.open(abs, access)?;
        if let Some(read) = self.editor.as_ref().and_then(|e| e.read(abs)) {
            return read.map_err(|reason| ToolError::File {
                path: self.shown(abs),
                reason: format!("the editor could not read it: {reason}"),
            });
        }
        let mut text = String::new();
        file.read_to_string(&mut text)
            .map_err(|e| self.err(abs, e))?;
        Ok(text)
    }

    /// Writes an existing file through the editor where it offers it: whether it did.
    fn editor_wrote(&self, abs: &Path, content: &str) -> Result<bool, ToolError> {
        match self.editor.as_ref().and_then(|e| e.write(abs, content)) {
            Some(Ok(())) => Ok(true),
            Some(Err(reason)) => Err(ToolError::File {
                path: self.shown(abs),
                reason: format!("the editor could not write it: {reason}"),
            }),
            None => Ok(false),
        }
    }

    /// A folder no tool of this workspace reads or writes (lembas's kept sessions): a path in it
    /// is refused before the rules judge it.
    pub fn with_private(mut self, folder: PathBuf) -> Workspace {
        let real = std::fs::canonicalize(&folder).unwrap_or(folder);
        self.private.push(real);
        self
    }

    /// The session's sandbox: every command runs confined by its agent's policy (when the kernel
    /// can confine it), with the sandbox's temporary folder as its `TMPDIR`.
    pub fn with_sandbox(mut self, sandbox: Arc<Sandbox>) -> Workspace {
        self.sandbox = Some(sandbox);
        self
    }

    /// Why `mode` may not run here, when it may not (auto mode without the sandbox).
    pub fn sandbox_refuses(&self, mode: lembas_rules::permission::Mode) -> Option<String> {
        self.sandbox.as_ref().and_then(|s| s.refuses(mode))
    }

    /// The person's network setting (on when there is no sandbox to say otherwise).
    pub fn network(&self) -> bool {
        self.sandbox.as_ref().is_none_or(|s| s.network())
    }

    /// Where a command of an agent with this policy runs: its `TMPDIR`, and its confinement
    /// when the sandbox is enforced.
    pub fn command_place(&self, policy: Policy) -> CommandPlace {
        let git_ceiling =
            process::home_repository_ceiling(&self.root, self.home.as_deref().map(Path::new));
        let Some(sandbox) = &self.sandbox else {
            return CommandPlace {
                git_ceiling,
                ..CommandPlace::default()
            };
        };
        let temp = Some(sandbox.session_temp().to_path_buf());
        let removed_env = std::env::vars_os()
            .filter_map(|(name, _)| name.into_string().ok())
            .filter(|name| lembas_rules::permission::sandbox::removes_variable(name))
            .collect();
        let confinement = sandbox.enforced().then(|| Confinement {
            policy,
            root: self.root.clone(),
            session_temp: sandbox.session_temp().to_path_buf(),
            home: self.home.as_ref().map(PathBuf::from),
            private: self.private.clone(),
        });
        CommandPlace {
            temp,
            confinement,
            removed_env,
            live: None,
            git_ceiling,
        }
    }

    /// The API key the session uses: no variable of the environment that holds it reaches a
    /// command the agent runs (a model could print it otherwise).
    pub fn with_secret(mut self, secret: Option<&str>) -> Workspace {
        if let Some(secret) = secret.filter(|s| !s.is_empty()) {
            for (name, value) in std::env::vars_os() {
                if value.to_str() == Some(secret) {
                    if let Some(name) = name.to_str() {
                        self.hidden_env.push(name.to_string());
                    }
                }
            }
        }
        self
    }

    /// The person's home, for `~/…` (the harness passes `$HOME`).
    pub fn with_home(mut self, home: Option<String>) -> Workspace {
        self.home = home;
        self
    }

    /// The session's permissions: `grep`, `glob` and `list` skip what `read` would not show.
    pub fn with_permissions(mut self, permissions: Arc<Mutex<Context>>) -> Workspace {
        self.permissions = Some(permissions);
        self
    }

    fn root_str(&self) -> String {
        self.root.to_string_lossy().into_owned()
    }

    /// A path of a call as it really is: `~` and `~user` expanded, made absolute against the
    /// root, `..` folded, and its deepest existing folder resolved through symbolic links — so a
    /// link inside the root to a folder outside it is outside. The rules judge this path and the
    /// tool uses it.
    pub fn path(&self, path: &str) -> Result<PathBuf, ToolError> {
        if let Some((pinned, judged)) = &self.pinned {
            if pinned == path {
                return Ok(judged.clone());
            }
        }
        let root = self.root_str();
        let place = Place {
            root: &root,
            home: self.home.as_deref(),
        };
        let abs = resolve(place, &root, path);
        if !abs.starts_with('/') {
            return Err(ToolError::File {
                path: path.to_string(),
                reason: "the home folder is not known".into(),
            });
        }
        let abs = real(Path::new(&abs));
        if self.private.iter().any(|p| abs.starts_with(p)) {
            return Err(ToolError::File {
                path: path.to_string(),
                reason: "lembas's kept sessions are the person's: no tool reads or writes them"
                    .into(),
            });
        }
        Ok(abs)
    }

    /// What the rules judge for a call: its path as [`Workspace::path`] reads it.
    pub fn judged(&self, target: Target) -> Result<Target, ToolError> {
        match target {
            Target::Path(p) => Ok(Target::Path(self.path(&p)?.to_string_lossy().into_owned())),
            other => Ok(other),
        }
    }

    /// How a read of `file` would be decided now.
    fn read_verdict(&self, file: &Path) -> ReadVerdict {
        if self.private.iter().any(|p| file.starts_with(p)) {
            return ReadVerdict::Private;
        }
        let Some(permissions) = &self.permissions else {
            return ReadVerdict::NoRules;
        };
        let ctx = permissions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        match Request::tool("read", Target::Path(file.to_string_lossy().into_owned())) {
            Some(req) => ReadVerdict::Decided(evaluate(&req, &ctx)),
            None => ReadVerdict::Private,
        }
    }

    /// Whether `read` would show a file: no hardline entry and no rule keeps it from being read
    /// without asking (`.env`, keys).
    pub fn shows(&self, file: &Path) -> bool {
        match self.read_verdict(file) {
            ReadVerdict::Private => false,
            ReadVerdict::NoRules => true,
            ReadVerdict::Decided(d) => {
                d.action == lembas_rules::permission::Action::Allow
                    || !matches!(
                        d.decided_by,
                        DecidedBy::Hardline { .. } | DecidedBy::Rule { .. }
                    )
            }
        }
    }

    /// Whether the rules let `file` be read without asking (no rules: it may).
    pub fn read_allowed(&self, file: &Path) -> bool {
        match self.read_verdict(file) {
            ReadVerdict::Private => false,
            ReadVerdict::NoRules => true,
            ReadVerdict::Decided(d) => d.action == lembas_rules::permission::Action::Allow,
        }
    }

    /// How a path is shown to the model: relative to the root when inside it.
    pub fn shown(&self, abs: &Path) -> String {
        let a = abs.to_string_lossy();
        inside(&self.root_str(), &a).map_or_else(|| a.to_string(), str::to_string)
    }

    /// The file at `abs` (a path as [`Workspace::path`] reads it) opened for `access` through
    /// no link, beneath the root when it is inside it ([`crate::files`]).
    fn open(&self, abs: &Path, access: Access) -> Result<std::fs::File, ToolError> {
        let file = crate::files::open(abs, &self.root, access).map_err(|e| match e {
            OpenError::Io(io) => self.err(abs, io),
            other => ToolError::File {
                path: self.shown(abs),
                reason: other.to_string(),
            },
        })?;
        // A file with other hard links may be one of the hidden secrets under another name.
        use std::os::unix::fs::MetadataExt;
        let meta = file.metadata().map_err(|e| self.err(abs, e))?;
        if meta.nlink() > 1 {
            let hidden = self.hidden_files.get_or_init(|| {
                let home = self.home.as_deref().map(Path::new);
                crate::sandbox::inodes_of(&crate::sandbox::hidden_paths(home, &self.private))
            });
            if hidden.contains(&(meta.dev(), meta.ino())) {
                return Err(ToolError::File {
                    path: self.shown(abs),
                    reason: "it is a hard link to a file no tool reads (a key or a credential)"
                        .into(),
                });
            }
        }
        Ok(file)
    }

    fn err(&self, abs: &Path, e: std::io::Error) -> ToolError {
        ToolError::File {
            path: self.shown(abs),
            reason: e.to_string().to_lowercase(),
        }
    }

    /// The text of the file at `abs` (a path as [`Workspace::path`] reads it), opened as `read`
    /// opens it: none when it is not there or not text.
    pub fn peek(&self, abs: &Path) -> Option<String> {
        self.text_of(abs, Access::Read).ok()
    }

    /// `read`: the lines `offset..offset+limit` (1-based), numbered.
    pub fn read(
        &self,
        path: &str,
        offset: Option<usize>,
        limit: Option<usize>,
    ) -> Result<String, ToolError> {
        let abs = self.path(path)?;
        let text = self.text_of(&abs, Access::Read)?;
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

    /// `write`: the whole file, with its folders; an existing file through the editor where it
    /// offers it (checked on disk as an edit opens it: no link, no other hard link).
    pub fn write(&self, path: &str, content: &str) -> Result<String, ToolError> {
        let abs = self.path(path)?;
        let through_editor = self.editor.is_some()
            && abs.is_file()
            && self.open(&abs, Access::Edit).is_ok()
            && self.editor_wrote(&abs, content)?;
        if !through_editor {
            self.open(&abs, Access::Write)?
                .write_all(content.as_bytes())
                .map_err(|e| self.err(&abs, e))?;
        }
        let lines = content.lines().count();
        let word = if lines == 1 { "line" } else { "lines" };
        Ok(format!("wrote {} ({lines} {word})", self.shown(&abs)))
    }

    /// `edit`: `old` replaced by `new`, where `old` is in the file exactly once — the file as
    /// the editor has it, written back through it, where it offers them.
    pub fn edit(&self, path: &str, old: &str, new: &str) -> Result<String, ToolError> {
        let abs = self.path(path)?;
        let text = self.text_of(&abs, Access::Edit)?;
        match text.matches(old).count() {
            0 => Err(ToolError::NotFound {
                path: self.shown(&abs),
            }),
            1 => {
                let edited = text.replacen(old, new, 1);
                if !self.editor_wrote(&abs, &edited)? {
                    let mut file = self.open(&abs, Access::Edit)?;
                    file.set_len(0)
                        .and_then(|()| file.seek(std::io::SeekFrom::Start(0)))
                        .and_then(|_| file.write_all(edited.as_bytes()))
                        .map_err(|e| self.err(&abs, e))?;
                }
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
        let abs = self.path(path.unwrap_or("."))?;
        let mut names: Vec<String> = std::fs::read_dir(&abs)
            .map_err(|e| self.err(&abs, e))?
            .filter_map(|e| e.ok())
            .filter(|e| self.shows(&e.path()))
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
            .filter(|p| self.shows(p))
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
        let dir = self.path(path.unwrap_or("."))?;
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
        let start = self.path(path.unwrap_or("."))?;
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
            // Opened as `read` opens it (through no link, no hard link to a hidden file); a file
            // that is not text, or that `read` would refuse, is passed over.
            let Ok(mut opened) = self.open(&file, Access::Read) else {
                continue;
            };
            let mut text = String::new();
            if opened.read_to_string(&mut text).is_err() {
                continue;
            }
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

mod args;
mod process;

pub use args::*;
pub use process::*;

/// `abs` with its deepest existing ancestor resolved through symbolic links, the rest appended.
fn real(abs: &Path) -> PathBuf {
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    let mut at = abs;
    loop {
        if let Ok(found) = std::fs::canonicalize(at) {
            let mut out = found;
            out.extend(rest.iter().rev());
            return out;
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                at = parent;
            }
            _ => return abs.to_path_buf(),
        }
    }
}

impl Workspace {
    /// Runs a file tool (every tool of [`crate::engine::TOOLS`] but `bash`): its answer.
    pub fn run(&self, tool: &str, a: &Args) -> String {
        self.attempt(tool, a).unwrap_or_else(|e| e)
    }

    /// Runs a file tool: its answer, or what kept it from doing what it was asked.
    pub fn attempt(&self, tool: &str, a: &Args) -> Result<String, String> {
        let done = || {
            let Some(file_tool) = FileTool::parse(tool) else {
                return Err(ToolError::NoTool(tool.to_string()));
            };
            let name = file_tool.name();
            match file_tool {
                FileTool::Read => {
                    let r: ReadArgs = a.read_as(name)?;
                    self.read(&r.path, r.offset, r.limit)
                }
                FileTool::Write => {
                    let w: WriteArgs = a.read_as(name)?;
                    self.write(&w.path, &w.content)
                }
                FileTool::Edit => {
                    let e: EditArgs = a.read_as(name)?;
                    self.edit(&e.path, &e.old, &e.new)
                }
                FileTool::List => self.list(a.read_as::<ListArgs>(name)?.path.as_deref()),
                FileTool::Glob => {
                    let g: GlobArgs = a.read_as(name)?;
                    self.glob(&g.pattern, g.path.as_deref())
                }
                FileTool::Grep => {
                    let g: GrepArgs = a.read_as(name)?;
                    self.grep(&g.pattern, g.path.as_deref(), g.glob.as_deref())
                }
            }
        };
        done().map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lembas_rules::permission::{Action, Decision, Mode};

    fn workspace(name: &str) -> Workspace {
        let dir = std::env::temp_dir().join(format!("lembas-tools-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Workspace::new(dir)
    }

    #[test]
    fn a_pinned_path_is_opened_as_judged_and_a_link_swapped_in_since_is_refused() {
        let w = workspace("pinned");
        let outside =
            std::env::temp_dir().join(format!("lembas-pinned-canary-{}", std::process::id()));
        std::fs::write(&outside, "CANARY\n").unwrap();
        std::fs::write(w.root.join("notes.txt"), "mine\n").unwrap();
        // The rules judged the regular file; then a link to outside takes its place.
        let judged = w.path("notes.txt").unwrap();
        std::fs::remove_file(w.root.join("notes.txt")).unwrap();
        std::os::unix::fs::symlink(&outside, w.root.join("notes.txt")).unwrap();
        let pinned = w.pinned_to("notes.txt", judged);
        let args = Args(serde_json::json!({"path": "notes.txt", "content": "x\n"}));
        assert!(pinned.attempt("write", &args).is_err());
        let edit = Args(serde_json::json!({"path": "notes.txt", "old": "CANARY", "new": "gone"}));
        assert!(pinned.attempt("edit", &edit).is_err());
        let read = pinned.attempt("read", &Args(serde_json::json!({"path": "notes.txt"})));
        assert!(read.is_err(), "{read:?}");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "CANARY\n");
        // Resolved again, the path would have been the outside file.
        assert_eq!(
            w.path("notes.txt").unwrap(),
            std::fs::canonicalize(&outside).unwrap()
        );
        let _ = std::fs::remove_file(&outside);
    }

    #[test]
    fn a_hard_link_to_a_hidden_key_is_not_read() {
        let base = std::env::temp_dir().join(format!("lembas-hardlink-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let home = base.join("home");
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/id_ed25519"), "CANARY-KEY\n").unwrap();
        let root = base.join("project");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::hard_link(home.join(".ssh/id_ed25519"), root.join("notes.txt")).unwrap();
        std::fs::write(root.join("a.txt"), "a\n").unwrap();
        std::fs::hard_link(root.join("a.txt"), root.join("b.txt")).unwrap();
        let w = Workspace::new(&root).with_home(Some(home.to_string_lossy().into_owned()));
        let read = w.run("read", &Args(serde_json::json!({"path": "notes.txt"})));
        assert!(
            read.contains("a hard link to a file no tool reads"),
            "{read}"
        );
        assert!(!read.contains("CANARY"));
        // Another file with two names is read as ever.
        let other = w.run("read", &Args(serde_json::json!({"path": "b.txt"})));
        assert!(other.contains('a'), "{other}");
        // grep opens each file as read does: neither the hard link nor a symbolic link to the
        // key prints it, and the ordinary files are searched.
        std::os::unix::fs::symlink(home.join(".ssh/id_ed25519"), root.join("link.txt")).unwrap();
        let found = w.grep("CANARY|a", None, None).unwrap();
        assert!(!found.contains("CANARY"), "{found}");
        assert!(found.contains("a.txt:1: a"), "{found}");
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn no_tool_reads_or_writes_a_private_folder() {
        let root = std::env::temp_dir().join(format!("lembas-private-{}", std::process::id()));
        let kept = root.join("state");
        std::fs::create_dir_all(&kept).unwrap();
        std::fs::write(kept.join("session.json"), "{}").unwrap();
        let w = Workspace::new(&root).with_private(kept.clone());
        let read = w.run(
            "read",
            &Args(serde_json::json!({"path": "state/session.json"})),
        );
        assert!(
            read.contains("lembas's kept sessions are the person's"),
            "{read}"
        );
        let write = w.run(
            "write",
            &Args(serde_json::json!({"path": "state/x", "content": "y"})),
        );
        assert!(write.contains("no tool reads or writes them"), "{write}");
        assert!(!kept.join("x").exists());
        // Nor does a search or a listing from a folder above it.
        std::fs::write(kept.join("conversation.jsonl"), "CANARY-CHAT\n").unwrap();
        let grep = w.run("grep", &Args(serde_json::json!({"pattern": "CANARY"})));
        assert!(
            !grep.contains("CANARY-CHAT") && !grep.contains("state/"),
            "{grep}"
        );
        let glob = w.run("glob", &Args(serde_json::json!({"pattern": "**/*.jsonl"})));
        assert!(!glob.contains("conversation"), "{glob}");
        let list = w.run("list", &Args(serde_json::json!({})));
        assert!(!list.contains("state"), "{list}");
        let _ = std::fs::remove_dir_all(&root);
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

    fn judge(w: &Workspace, tool: &str, path: &str, ctx: &Context) -> Decision {
        let target = w.judged(Target::Path(path.into())).unwrap();
        evaluate(&Request::tool(tool, target).unwrap(), ctx)
    }

    #[test]
    fn a_symlink_out_of_the_root_is_outside_it() {
        let base = workspace("link");
        let root = base.root.join("project");
        let outside = base.root.join("elsewhere");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret.txt"), "s").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
        let w = Workspace::new(&root);
        let mut ctx = Context::new(Mode::Edit);
        ctx.root = w.root.to_string_lossy().into_owned();
        assert_eq!(
            w.path("out/secret.txt").unwrap(),
            std::fs::canonicalize(outside.join("secret.txt")).unwrap()
        );
        for tool in ["read", "write", "edit"] {
            let d = judge(&w, tool, "out/secret.txt", &ctx);
            assert_eq!(d.action, Action::Ask, "{tool}");
            assert!(
                matches!(d.decided_by, DecidedBy::OutsideRoot { .. }),
                "{tool}"
            );
            // A file not yet there, under the link, too.
            let d = judge(&w, tool, "out/new/file.txt", &ctx);
            assert_eq!(d.action, Action::Ask, "{tool} (new file)");
        }
        ctx.unattended = true;
        for tool in ["read", "write", "edit"] {
            assert_eq!(
                judge(&w, tool, "out/secret.txt", &ctx).action,
                Action::Deny,
                "{tool}"
            );
        }
        // Inside the root, a plain file is inside.
        ctx.unattended = false;
        assert_eq!(judge(&w, "write", "src/a.rs", &ctx).action, Action::Allow);
    }

    #[test]
    fn tilde_is_the_home_not_a_folder_of_the_root() {
        let w = workspace("tilde").with_home(Some("/home/me".into()));
        assert_eq!(
            w.path("~/notes.txt").unwrap(),
            PathBuf::from("/home/me/notes.txt")
        );
        assert_eq!(
            w.path("~/../../etc/passwd").unwrap(),
            PathBuf::from("/etc/passwd")
        );
        let mut ctx = Context::new(Mode::Auto);
        ctx.root = w.root.to_string_lossy().into_owned();
        ctx.home = Some("/home/me".into());
        assert_eq!(
            judge(&w, "write", "~/../../etc/passwd", &ctx).action,
            Action::Deny
        );
        let no_home = workspace("tilde-unknown");
        assert!(no_home.path("~/x").is_err());
    }

    #[test]
    fn grep_glob_and_list_skip_what_read_would_not_show() {
        let w = workspace("skip");
        let mut ctx = Context::new(Mode::Edit);
        ctx.root = w.root.to_string_lossy().into_owned();
        let w = w.with_permissions(Arc::new(Mutex::new(ctx)));
        w.write("src/a.txt", "token here\n").unwrap();
        w.write(".env", "TOKEN=secret-token\n").unwrap();
        w.write("config/.ENV.local", "TOKEN=secret-token\n")
            .unwrap();
        std::fs::create_dir_all(w.root.join(".ssh")).unwrap();
        std::fs::write(w.root.join(".ssh/id_rsa"), "token key").unwrap();
        let found = w.grep("token", None, None).unwrap();
        assert_eq!(found, "src/a.txt:1: token here");
        let all = w.glob("**/*", None).unwrap();
        assert!(
            !all.contains(".env") && !all.contains(".ENV") && !all.contains("id_rsa"),
            "{all}"
        );
        let listed = w.list(None).unwrap();
        assert!(!listed.contains(".env"), "{listed}");
        // Named directly, they are still passed over.
        assert_eq!(
            w.grep("token", Some(".env"), None).unwrap(),
            "(nothing found)"
        );
        assert_eq!(
            w.grep("token", Some(".ssh"), None).unwrap(),
            "(nothing found)"
        );
        assert_eq!(w.list(Some(".ssh")).unwrap(), "");
        // Without permissions (a bare workspace) nothing is skipped: the skipping is the rules'.
        let bare = Workspace::new(w.root.clone());
        assert!(bare
            .grep("token", Some(".env"), None)
            .unwrap()
            .contains("secret"));
        assert!(bare
            .grep("token", Some(".ssh"), None)
            .unwrap()
            .contains("id_rsa"));
    }

    #[tokio::test]
    async fn a_command_does_not_get_the_api_key() {
        let w = workspace("secret");
        let ran = bash_without(
            &w.root,
            "echo \"[$HOME]\" \"[${LEMBAS_API_KEY:-none}]\"",
            Duration::from_secs(10),
            &w.hidden_env,
            &CommandPlace::default(),
        )
        .await
        .unwrap();
        assert!(ran.output.ends_with("[none]\n"), "{}", ran.output);
        // Any variable holding the key's value is left out too.
        let home = std::env::var("HOME").unwrap_or_default();
        let w = w.with_secret(Some(&home));
        assert!(w.hidden_env.contains(&"HOME".to_string()));
        let ran = bash_without(
            &w.root,
            "echo \"[${HOME:-gone}]\"",
            Duration::from_secs(10),
            &w.hidden_env,
            &CommandPlace::default(),
        )
        .await
        .unwrap();
        assert_eq!(ran.output, "[gone]\n");
    }

    #[test]
    fn a_missing_argument_is_said_not_read_as_empty() {
        let w = workspace("missing");
        let args = Args::parse(r#"{"path": "a.txt"}"#).unwrap();
        assert_eq!(
            w.run("write", &args),
            "write: missing field `content` — give its arguments as its description says"
        );
        assert!(!w.root.join("a.txt").exists(), "nothing was written");
        let args = Args::parse(r#"{"path": 5}"#).unwrap();
        assert_eq!(
            w.run("read", &args),
            "read: invalid type: integer `5`, expected a string — give its arguments as its \
             description says"
        );
    }

    #[tokio::test]
    async fn bash_without_a_command_says_so() {
        let w = workspace("no-command");
        let out = run_bash(
            &w,
            &Args::parse("{}").unwrap(),
            Policy::of(lembas_rules::permission::Mode::Edit, true),
            None,
        )
        .await;
        assert_eq!(
            out,
            "bash: missing field `command` — give its arguments as its description says"
        );
    }

    #[tokio::test]
    async fn a_commands_output_is_sent_as_it_comes() {
        let w = workspace("live");
        let (live, mut pieces) = tokio::sync::mpsc::unbounded_channel();
        let out = run_bash(
            &w,
            &Args(serde_json::json!({"command": "echo first; sleep 0.3; echo second"})),
            Policy::of(lembas_rules::permission::Mode::Edit, true),
            Some(live),
        )
        .await;
        assert_eq!(out, "first\nsecond\n");
        let mut said = Vec::new();
        while let Ok(piece) = pieces.try_recv() {
            said.push(piece);
        }
        // Two pieces: the first came before the command ended.
        assert_eq!(said, ["first\n", "second\n"]);
    }

    /// Whether a process whose command line holds `marker` is alive (read from /proc).
    fn alive(marker: &str) -> bool {
        std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
            std::fs::read(e.path().join("cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker))
        })
    }

    #[tokio::test]
    async fn a_timeout_kills_the_commands_children_too() {
        let w = workspace("group");
        // A child that would outlive bash: a sleeper forked into the background, then a wait.
        let marker = format!("98{}", std::process::id() % 1000);
        let line = format!("sleep {marker} & sleep {marker}");
        let ran = bash(&w.root, &line, Duration::from_millis(300))
            .await
            .unwrap();
        assert!(ran.timed_out);
        std::thread::sleep(Duration::from_millis(200));
        assert!(!alive(&format!("sleep {marker}")), "a sleeper lives on");
    }

    #[tokio::test]
    async fn a_background_child_does_not_hold_the_call() {
        let w = workspace("background");
        let started = std::time::Instant::now();
        let ran = bash(&w.root, "echo started; sleep 30 &", Duration::from_secs(20))
            .await
            .unwrap();
        assert_eq!(ran.output, "started\n");
        assert!(!ran.timed_out);
        assert!(started.elapsed() < Duration::from_secs(10));
        let _ = std::process::Command::new("pkill")
            .args(["-f", "sleep 30"])
            .status();
    }

    /// The process's peak resident memory, in KB (`VmHWM`).
    fn peak_kb() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    #[tokio::test]
    async fn output_is_kept_bounded_whatever_is_printed() {
        let w = workspace("flood");
        let before = peak_kb();
        // 300 MB through the pipe; what is kept is its first and last bytes.
        let ran = bash(
            &w.root,
            "head -c 300000000 /dev/zero | tr '\\0' x; echo; echo end",
            Duration::from_secs(120),
        )
        .await
        .unwrap();
        assert!(
            ran.output.len() < OUTPUT_MAX + 200,
            "{} bytes",
            ran.output.len()
        );
        assert!(ran.output.contains("more bytes not shown"));
        assert!(ran.output.ends_with("end\n"));
        assert!(ran.output.starts_with("xxxx"));
        // Kept whole, 300 MB would be read into memory at least once.
        let grown = peak_kb().saturating_sub(before);
        assert!(grown < 64 * 1024, "peak memory grew by {grown} KB");
    }
}
