//! Sessions that last: each session's conversation, mode, approvals, plan and tree kept under the
//! person's state folder (`$XDG_STATE_HOME/lembas/sessions/`, else
//! `~/.local/state/lembas/sessions/`), never in the project. A session is a folder named by its
//! id: `session.json` (what it is — its folder, title, times, mode, approvals, plan, last tree),
//! written whole and renamed into place at each change, and `conversation.jsonl`, the main
//! agent's messages, one a line, appended as they are made — so a crash loses at most the call in
//! flight. A stored session that cannot be read is an error naming its file and line, never a
//! session silently started anew. The file tools do not read or write this folder, and no
//! command sees it (the sandbox hides it).

use crate::plan::Plan;
use crate::provider::chat::Message;
use lembas_rules::json::ToJson;
use lembas_rules::permission::{approvals_from_json, Mode, Rule};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// What went wrong with the store, naming the file.
#[derive(Debug, Error)]
pub enum StoreError {
    #[error("the sessions folder is not known: HOME and XDG_STATE_HOME are not set")]
    NoFolder,
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
    #[error("{path}, line {line}: {reason}")]
    Line {
        path: String,
        line: usize,
        reason: String,
    },
    #[error("no stored session {0}")]
    NoSuchSession(String),
    #[error("no stored session in {0}")]
    NoneHere(String),
    #[error("the session {0} is open in another lembas: close it there first")]
    Busy(String),
}

/// The stored sessions: those read, and each that could not be (said, never skipped silently).
#[derive(Debug, Default)]
pub struct Listing {
    pub sessions: Vec<SessionInfo>,
    pub unreadable: Vec<StoreError>,
}

fn file_error(path: &Path, e: impl std::fmt::Display) -> StoreError {
    StoreError::File {
        path: path.display().to_string(),
        reason: e.to_string(),
    }
}

/// The person's state folder for lembas (`$XDG_STATE_HOME/lembas`, else
/// `~/.local/state/lembas`), from the environment `env`.
pub fn state_folder(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let base = env("XDG_STATE_HOME")
        .filter(|v| v.starts_with('/'))
        .map(PathBuf::from)
        .or_else(|| {
            env("HOME")
                .filter(|h| h.starts_with('/'))
                .map(|h| PathBuf::from(h).join(".local/state"))
        })?;
    Some(base.join("lembas"))
}

/// Which session a chat is: a new one, the newest stored for its folder, or one by id.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Resume {
    /// A new session.
    #[default]
    New,
    /// The newest stored for the folder (`--continue`).
    Newest,
    /// The stored session of this id (`--resume ID`).
    Id(String),
}

/// What a stored session is: `session.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionInfo {
    /// Its id (its folder's name).
    pub id: String,
    /// The project root it works in.
    pub cwd: PathBuf,
    /// Its first prompt's first line; empty before one.
    pub title: String,
    /// When it started and was last changed, in Unix ms.
    pub created: i64,
    pub updated: i64,
    /// The main agent's mode.
    pub mode: String,
    /// The approvals given (`{ permission, pattern, mode }`), as the rules read them.
    #[serde(default)]
    pub approvals: Vec<Value>,
    /// The plan, once written.
    #[serde(default)]
    pub plan: Option<Plan>,
    /// The mode it had before plan mode, to go back to when the plan is approved.
    #[serde(default)]
    pub before_plan: Option<String>,
    /// The tree as it last was, for a client to draw (its subagents do not go on after a
    /// restart).
    #[serde(default)]
    pub tree: Option<Value>,
}

impl SessionInfo {
    /// The mode it was in.
    pub fn mode(&self) -> Option<Mode> {
        Mode::parse(&self.mode)
    }

    /// The approvals, read as the rules read them.
    pub fn approvals(&self) -> Result<Vec<Rule>, String> {
        approvals_from_json(
            "approvals",
            &Value::Array(self.approvals.clone()),
            Mode::Plan,
        )
        .map_err(|e| e.to_string())
    }
}

/// The approvals given "always in this project": the project's folder, and each approval as the
/// rules write it (`{ permission, pattern, action, mode }`).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectApprovals {
    cwd: PathBuf,
    approvals: Vec<Value>,
}

/// A project's name in lembas's state: its folder's name and a hash of its whole path (FNV-1a:
/// stable across releases, unlike std's hasher).
pub fn project_name(root: &Path) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in root.as_os_str().as_encoded_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let name: String = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(40)
        .collect();
    format!("{name}-{hash:016x}")
}

/// A stored session read back: what it is and its main agent's conversation.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub info: SessionInfo,
    pub messages: Vec<Message>,
}

/// The sessions folder.
#[derive(Debug, Clone)]
pub struct Store {
    folder: PathBuf,
}

/// The title of a session from its first prompt: its first line, at most 80 characters.
pub fn title_of(prompt: &str) -> String {
    let first = prompt
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if first.chars().count() <= 80 {
        first.to_string()
    } else {
        let mut cut: String = first.chars().take(79).collect();
        cut.push('…');
        cut
    }
}

impl Store {
    /// The store under the person's state folder, made (only the person may enter it).
    pub fn open(env: &dyn Fn(&str) -> Option<String>) -> Result<Store, StoreError> {
        let folder = state_folder(env)
            .ok_or(StoreError::NoFolder)?
            .join("sessions");
        Store::at(folder)
    }

    /// The store in `folder`, made.
    pub fn at(folder: PathBuf) -> Result<Store, StoreError> {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&folder)
            .map_err(|e| file_error(&folder, e))?;
        Ok(Store { folder })
    }

    /// Its folder.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// lembas's whole state folder (the sessions', the history's and the projects' approvals'
    /// parent): the harness writes it, and no tool or command reads it.
    pub fn state(&self) -> &Path {
        self.folder.parent().unwrap_or(&self.folder)
    }

    /// The file of the approvals given "always in this project" for `root`.
    fn project_file(&self, root: &Path) -> PathBuf {
        self.state()
            .join("projects")
            .join(format!("{}.json", project_name(root)))
    }

    /// The approvals the person gave "always in this project" for `root`, as the rules read them;
    /// none when there are none yet. A file that cannot be read is an error naming it.
    pub fn project_approvals(&self, root: &Path) -> Result<Vec<Rule>, StoreError> {
        let path = self.project_file(root);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(file_error(&path, e)),
        };
        let kept: ProjectApprovals =
            serde_json::from_str(&text).map_err(|e| file_error(&path, e))?;
        if kept.cwd != root {
            return Err(file_error(
                &path,
                format!("it is {}'s, not {}'s", kept.cwd.display(), root.display()),
            ));
        }
        approvals_from_json("approvals", &Value::Array(kept.approvals), Mode::Plan)
            .map_err(|e| file_error(&path, e))
    }

    /// Keeps `rules` (approvals) for `root`, after those kept before; written whole, then renamed
    /// into place.
    pub fn remember(&self, root: &Path, rules: &[Rule]) -> Result<(), StoreError> {
        let path = self.project_file(root);
        let mut all: Vec<Value> = self
            .project_approvals(root)?
            .iter()
            .map(ToJson::to_json)
            .collect();
        for rule in rules {
            let value = rule.to_json();
            if !all.contains(&value) {
                all.push(value);
            }
        }
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(|e| file_error(folder, e))?;
        }
        let kept = ProjectApprovals {
            cwd: root.to_path_buf(),
            approvals: all,
        };
        let text = serde_json::to_string_pretty(&kept).map_err(|e| file_error(&path, e))?;
        let partial = path.with_extension("json.partial");
        std::fs::write(&partial, text).map_err(|e| file_error(&partial, e))?;
        std::fs::rename(&partial, &path).map_err(|e| file_error(&path, e))
    }

    /// A session's folder; none for an id that is not one (a name of digits, letters and `-`).
    fn session_folder(&self, id: &str) -> Option<PathBuf> {
        let plain = !id.is_empty()
            && id.len() <= 64
            && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        plain.then(|| self.folder.join(id))
    }

    /// Starts keeping a new session.
    pub fn create(&self, info: SessionInfo) -> Result<Kept, StoreError> {
        let folder = self
            .session_folder(&info.id)
            .ok_or_else(|| StoreError::NoSuchSession(info.id.clone()))?;
        std::fs::create_dir_all(&folder).map_err(|e| file_error(&folder, e))?;
        let lock = lock(&folder, &info.id)?;
        let kept = Kept {
            folder,
            written: 0,
            info,
            _lock: lock,
        };
        kept.save()?;
        Ok(kept)
    }

    /// Every stored session, in `cwd` when given, the newest first; each whose `session.json`
    /// cannot be read is said in `unreadable` (it may be any folder's).
    pub fn list(&self, cwd: Option<&Path>) -> Result<Listing, StoreError> {
        let entries = std::fs::read_dir(&self.folder).map_err(|e| file_error(&self.folder, e))?;
        let mut out = Listing::default();
        for entry in entries.flatten() {
            let path = entry.path().join("session.json");
            if !path.is_file() {
                continue;
            }
            match read_info(&path) {
                Ok(info) if cwd.is_none_or(|c| c == info.cwd) => out.sessions.push(info),
                Ok(_) => {}
                Err(e) => out.unreadable.push(e),
            }
        }
        out.sessions
            .sort_by(|a, b| b.updated.cmp(&a.updated).then(b.id.cmp(&a.id)));
        Ok(out)
    }

    /// A stored session, whole; an error names the file and line that cannot be read.
    pub fn load(&self, id: &str) -> Result<Loaded, StoreError> {
        let folder = self
            .session_folder(id)
            .filter(|f| f.join("session.json").is_file())
            .ok_or_else(|| StoreError::NoSuchSession(id.to_string()))?;
        let info = read_info(&folder.join("session.json"))?;
        if info.id != id {
            return Err(file_error(
                &folder.join("session.json"),
                format!("its id is {}, not {id}", info.id),
            ));
        }
        if let Err(why) = info.approvals() {
            return Err(file_error(&folder.join("session.json"), why));
        }
        let path = folder.join("conversation.jsonl");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(file_error(&path, e)),
        };
        let mut messages = Vec::new();
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        for (n, raw) in lines.iter().enumerate() {
            // The last line, cut off by a crash while it was written, is the call in flight.
            if n + 1 == lines.len() && !raw.ends_with('\n') {
                break;
            }
            if raw.trim().is_empty() {
                continue;
            }
            let message: Message = serde_json::from_str(raw).map_err(|e| StoreError::Line {
                path: path.display().to_string(),
                line: n + 1,
                reason: e.to_string(),
            })?;
            messages.push(message);
        }
        Ok(Loaded {
            info,
            messages: answered(messages),
        })
    }

    /// The newest session stored for `cwd`.
    pub fn newest_in(&self, cwd: &Path) -> Result<Loaded, StoreError> {
        let listing = self.list(Some(cwd))?;
        for e in &listing.unreadable {
            eprintln!("lembas: a kept session cannot be read: {e}");
        }
        let newest = listing
            .sessions
            .into_iter()
            .next()
            .ok_or_else(|| StoreError::NoneHere(cwd.display().to_string()))?;
        self.load(&newest.id)
    }

    /// Goes on keeping a stored session: what is appended goes after what it has.
    pub fn keep(&self, loaded: &Loaded) -> Result<Kept, StoreError> {
        let folder = self
            .session_folder(&loaded.info.id)
            .ok_or_else(|| StoreError::NoSuchSession(loaded.info.id.clone()))?;
        let lock = lock(&folder, &loaded.info.id)?;
        Ok(Kept {
            folder,
            written: loaded.messages.len(),
            info: loaded.info.clone(),
            _lock: lock,
        })
    }
}

/// The text every call left without an output by a crash gets as its output.
pub const NOT_KEPT: &str = "The session ended before this call's output was kept.";

/// The conversation with every call answered: one whose output was never written (the session
/// ended while it ran) gets [`NOT_KEPT`], so a server reads the conversation again.
fn answered(messages: Vec<Message>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    let mut open: Vec<String> = Vec::new();
    let close = |open: &mut Vec<String>, out: &mut Vec<Message>| {
        for tool_call_id in open.drain(..) {
            out.push(Message::Tool {
                tool_call_id,
                content: NOT_KEPT.to_string(),
            });
        }
    };
    for message in messages {
        match &message {
            Message::Tool { tool_call_id, .. } => open.retain(|id| id != tool_call_id),
            Message::Assistant { tool_calls, .. } => {
                close(&mut open, &mut out);
                open = tool_calls.iter().map(|c| c.id.clone()).collect();
            }
            Message::User { .. } | Message::System { .. } => close(&mut open, &mut out),
        }
        out.push(message);
    }
    close(&mut open, &mut out);
    out
}

fn read_info(path: &Path) -> Result<SessionInfo, StoreError> {
    let text = std::fs::read_to_string(path).map_err(|e| file_error(path, e))?;
    serde_json::from_str(&text).map_err(|e| file_error(path, e))
}

/// A session being kept: its folder, what it is, how many messages are written, and the lock
/// that keeps a second lembas from writing it too.
#[derive(Debug)]
pub struct Kept {
    folder: PathBuf,
    written: usize,
    info: SessionInfo,
    /// Held while it is kept (`flock` on its `lock` file; let go when the process ends).
    _lock: std::fs::File,
}

/// How many times a lock held elsewhere is tried, [`LOCK_PAUSE`] apart, before it is said busy.
const LOCK_TRIES: u32 = 20;
/// The pause between two tries of a lock held elsewhere.
const LOCK_PAUSE: std::time::Duration = std::time::Duration::from_millis(10);

/// Takes the session's lock: one lembas at a time keeps a session.
///
/// A lock held elsewhere is tried again for a moment ([`LOCK_TRIES`] × [`LOCK_PAUSE`]) before it
/// is said busy: a command this lembas starts (a tool's process, git) holds a copy of every open
/// file from its fork until its exec closes it, so a lock just let go can still be held by such a
/// child for that moment — a session closed and opened again at once (over ACP, while another
/// session's command starts) would otherwise be refused. Another lembas's lock is held far
/// longer, and is still said busy.
fn lock(folder: &Path, id: &str) -> Result<std::fs::File, StoreError> {
    let path = folder.join("lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| file_error(&path, e))?;
    let mut tries = 1;
    loop {
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(file),
            Err(rustix::io::Errno::WOULDBLOCK) if tries < LOCK_TRIES => {
                tries += 1;
                std::thread::sleep(LOCK_PAUSE);
            }
            Err(rustix::io::Errno::WOULDBLOCK) => return Err(StoreError::Busy(id.to_string())),
            Err(e) => return Err(file_error(&path, e)),
        }
    }
}

impl Kept {
    /// What it is.
    pub fn info(&self) -> &SessionInfo {
        &self.info
    }

    /// Writes `session.json` whole, then renames it into place.
    fn save(&self) -> Result<(), StoreError> {
        let path = self.folder.join("session.json");
        let partial = self.folder.join("session.json.partial");
        let text = serde_json::to_string_pretty(&self.info).map_err(|e| file_error(&path, e))?;
        std::fs::write(&partial, text).map_err(|e| file_error(&partial, e))?;
        std::fs::rename(&partial, &path).map_err(|e| file_error(&path, e))
    }

    /// Keeps what changed: the messages of `conversation` beyond those written, appended, then
    /// the session's mode, approvals, plan and tree.
    pub fn record(
        &mut self,
        now: i64,
        conversation: &[Message],
        state: &State,
    ) -> Result<(), StoreError> {
        let fresh: Vec<&Message> = conversation
            .iter()
            .filter(|m| !matches!(m, Message::System { .. }))
            .skip(self.written)
            .collect();
        if !fresh.is_empty() {
            let path = self.folder.join("conversation.jsonl");
            let mut lines = String::new();
            for m in &fresh {
                let line = serde_json::to_string(m).map_err(|e| file_error(&path, e))?;
                lines.push_str(&line);
                lines.push('\n');
            }
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| file_error(&path, e))?;
            file.write_all(lines.as_bytes())
                .map_err(|e| file_error(&path, e))?;
            self.written += fresh.len();
            if self.info.title.is_empty() {
                if let Some(Message::User { content }) =
                    fresh.iter().find(|m| matches!(m, Message::User { .. }))
                {
                    self.info.title = title_of(content);
                }
            }
        }
        self.info.updated = now;
        self.info.mode = state.mode.as_str().to_string();
        self.info.approvals = state.approvals.iter().map(ToJson::to_json).collect();
        self.info.plan = state.plan.clone();
        self.info.before_plan = state.before_plan.map(|m| m.as_str().to_string());
        self.info.tree = state.tree.clone();
        self.save()
    }
}

/// A session's state as it is kept besides its conversation.
#[derive(Debug, Clone)]
pub struct State {
    pub mode: Mode,
    pub approvals: Vec<Rule>,
    pub plan: Option<Plan>,
    /// The mode before plan mode.
    pub before_plan: Option<Mode>,
    pub tree: Option<Value>,
}

/// The stored sessions as `lembas sessions` lists them: a line each, the newest first — its id,
/// when it was last changed, its mode, its title (and its folder, when every folder's are
/// listed).
pub fn listing(sessions: &[SessionInfo], with_folder: bool) -> String {
    let mut out = String::new();
    for s in sessions {
        let title = if s.title.is_empty() {
            "(no prompt yet)"
        } else {
            &s.title
        };
        out.push_str(&format!(
            "{}  {}  {:<6}  {title}",
            s.id,
            rfc3339(s.updated),
            s.mode
        ));
        if with_folder {
            out.push_str(&format!("  ({})", s.cwd.display()));
        }
        out.push('\n');
    }
    out
}

/// A time in Unix ms as RFC 3339 (ACP's `updatedAt`).
pub fn rfc3339(ms: i64) -> String {
    let secs = u64::try_from(ms / 1000).unwrap_or(0);
    humantime::format_rfc3339_seconds(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::chat::{AssistantCall, FunctionCall};

    /// A store of this test run: a state folder of its own, its sessions in it.
    fn store(name: &str) -> Store {
        let state =
            std::env::temp_dir().join(format!("lembas-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&state);
        Store::at(state.join("sessions")).unwrap()
    }

    fn info(id: &str, cwd: &str) -> SessionInfo {
        SessionInfo {
            id: id.into(),
            cwd: cwd.into(),
            title: String::new(),
            created: 1,
            updated: 1,
            mode: "edit".into(),
            approvals: Vec::new(),
            plan: None,
            before_plan: None,
            tree: None,
        }
    }

    fn state() -> State {
        State {
            mode: Mode::Manual,
            approvals: vec![Rule::new(
                "bash",
                "cargo test *",
                lembas_rules::permission::Action::Allow,
                lembas_rules::permission::RuleSource::Approval,
            )
            .given_in(Mode::Manual)],
            plan: None,
            before_plan: Some(Mode::Manual),
            tree: None,
        }
    }

    #[test]
    fn a_session_is_kept_as_it_goes_and_read_back_whole() {
        let store = store("kept");
        let mut kept = store.create(info("1-2-0", "/p")).unwrap();
        let mut conversation = vec![
            Message::System {
                content: "sys".into(),
            },
            Message::User {
                content: "Fix the tests.\nAll of them.".into(),
            },
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![AssistantCall {
                    id: "c1".into(),
                    kind: crate::provider::chat::CallKind::Function,
                    function: FunctionCall {
                        name: "bash".into(),
                        arguments: "{}".into(),
                    },
                }],
            },
        ];
        kept.record(5, &conversation, &state()).unwrap();
        // The call's output never came: the session ended while it ran.
        let loaded = store.load("1-2-0").unwrap();
        assert_eq!(loaded.info.title, "Fix the tests.");
        assert_eq!(loaded.info.mode(), Some(Mode::Manual));
        assert_eq!(loaded.info.approvals().unwrap().len(), 1);
        assert_eq!(loaded.info.before_plan.as_deref(), Some("manual"));
        assert_eq!(loaded.messages.len(), 3);
        assert!(
            matches!(&loaded.messages[2], Message::Tool { content, .. } if content == NOT_KEPT)
        );
        // It goes on from where it was.
        conversation.push(Message::Tool {
            tool_call_id: "c1".into(),
            content: "ok".into(),
        });
        kept.record(6, &conversation, &state()).unwrap();
        let again = store.load("1-2-0").unwrap();
        assert_eq!(again.messages.len(), 3);
        assert!(matches!(&again.messages[2], Message::Tool { content, .. } if content == "ok"));
        assert_eq!(store.newest_in(Path::new("/p")).unwrap().info.id, "1-2-0");
        // One lembas at a time keeps it.
        let loaded = store.load("1-2-0").unwrap();
        assert!(matches!(store.keep(&loaded), Err(StoreError::Busy(_))));
        drop(kept);
        assert!(store.keep(&loaded).is_ok());
        assert!(matches!(
            store.newest_in(Path::new("/q")),
            Err(StoreError::NoneHere(_))
        ));
    }

    #[test]
    fn a_lock_held_for_a_moment_by_a_copy_is_waited_for_and_a_lasting_one_is_busy() {
        let store = store("copy");
        let kept = store.create(info("3-3-0", "/p")).unwrap();
        let loaded = store.load("3-3-0").unwrap();
        // A copy of the lock's file, as a command started between its fork and its exec holds.
        let copy = kept._lock.try_clone().unwrap();
        drop(kept);
        let let_go = std::thread::spawn(move || {
            std::thread::sleep(LOCK_PAUSE * 3);
            drop(copy);
        });
        assert!(store.keep(&loaded).is_ok());
        let_go.join().unwrap();
        // Held for longer than the tries last: busy.
        let kept = store.keep(&loaded).unwrap();
        let copy = kept._lock.try_clone().unwrap();
        drop(kept);
        assert!(matches!(store.keep(&loaded), Err(StoreError::Busy(_))));
        drop(copy);
        assert!(store.keep(&loaded).is_ok());
    }

    #[test]
    fn what_cannot_be_read_is_said_never_started_anew() {
        let store = store("bad");
        store.create(info("7-7-0", "/p")).unwrap();
        let path = store.folder().join("7-7-0/conversation.jsonl");
        std::fs::write(&path, "{\"role\":\"user\",\"content\":\"hi\"}\nnot json\n").unwrap();
        let e = store.load("7-7-0").unwrap_err().to_string();
        assert!(
            e.ends_with("conversation.jsonl, line 2: expected ident at line 1 column 2"),
            "{e}"
        );
        // A line cut off by a crash is the call in flight: dropped.
        std::fs::write(
            &path,
            "{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"assis",
        )
        .unwrap();
        assert_eq!(store.load("7-7-0").unwrap().messages.len(), 1);
        assert!(matches!(
            store.load("../etc"),
            Err(StoreError::NoSuchSession(_))
        ));
        assert!(matches!(
            store.load("nope"),
            Err(StoreError::NoSuchSession(_))
        ));
        std::fs::write(store.folder().join("7-7-0/session.json"), "{\"id\": 3}").unwrap();
        let listing = store.list(None).unwrap();
        assert!(listing.sessions.is_empty());
        let e = listing.unreadable[0].to_string();
        assert!(e.contains("7-7-0/session.json"), "{e}");
    }

    #[test]
    fn approvals_always_in_a_project_are_kept_for_it_alone() {
        let store = store("project");
        let rule = |pattern: &str| {
            Rule::new(
                "bash",
                pattern,
                lembas_rules::permission::Action::Allow,
                lembas_rules::permission::RuleSource::Approval,
            )
            .given_in(Mode::Manual)
        };
        let here = Path::new("/p/web");
        assert!(store.project_approvals(here).unwrap().is_empty());
        store.remember(here, &[rule("cargo test *")]).unwrap();
        store
            .remember(here, &[rule("cargo test *"), rule("make *")])
            .unwrap();
        let kept = store.project_approvals(here).unwrap();
        let patterns: Vec<&str> = kept.iter().map(|r| r.pattern.as_str()).collect();
        assert_eq!(patterns, ["cargo test *", "make *"]);
        assert_eq!(kept[0].given_in, Some(Mode::Manual));
        assert!(store
            .project_approvals(Path::new("/srv/web"))
            .unwrap()
            .is_empty());
        assert_ne!(project_name(here), project_name(Path::new("/srv/web")));
        assert!(project_name(here).starts_with("web-"));
    }

    #[test]
    fn the_folder_follows_xdg_and_times_are_rfc3339() {
        let env = |k: &str| match k {
            "XDG_STATE_HOME" => Some("/s".to_string()),
            "HOME" => Some("/h".to_string()),
            _ => None,
        };
        assert_eq!(state_folder(&env), Some(PathBuf::from("/s/lembas")));
        let home = |k: &str| (k == "HOME").then(|| "/h".to_string());
        assert_eq!(
            state_folder(&home),
            Some(PathBuf::from("/h/.local/state/lembas"))
        );
        assert_eq!(rfc3339(1_796_133_882_517), "2026-12-01T14:04:42Z");
    }
}
