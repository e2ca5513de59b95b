//! A session: the main agent's conversation and its tree of subagents, kept across prompts in the
//! current directory (the project root), on an OpenAI-compatible server. Each prompt is a turn on
//! the same conversation; the tree and its room live on; the mode and the Subagents setting may
//! change between turns. `lembas run` is a session of one turn, `lembas chat` one of many.

use crate::asking::Terminal;
use crate::config::{AgentRange, SessionOptions, Settings};
use crate::crew::{Crew, Keeping, SessionEnd, Setup};
use crate::engine::{now_ms, Asker, PlanDesk, Unattended};
use crate::events::{DoneReason, SessionEvent};
use crate::lines::{history_file, Lines};
use crate::provider::client::Provider;
use crate::sandbox::Sandbox;
use crate::screen::{Control, Screen};
use crate::store::{Loaded, Resume, SessionInfo, Store};
use crate::tools::{EditorFiles, Workspace};
use anyhow::{bail, Context as _, Result};
use lembas_rules::permission::{Context, Mode};
use lembas_rules::subagents::Capacity;
use lembas_rules::team::TeamOptions;
use lembas_rules::text::fill;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// This project's own system prompt, before the spec's blocks.
const SYSTEM: &str = include_str!("../prompts/system.md");

/// How a turn of the session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnOutcome {
    /// The main agent's turn ended and the tree is quiet.
    Finished,
    /// The main agent's turn failed (the session goes on).
    Failed(String),
    /// The person stopped it (Ctrl-C).
    Stopped,
}

/// What a client says of a session's Subagents setting over its own (acp.md: `_meta.lembas`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SettingFromClient {
    /// The setting `{ min, max }`, when the client says one.
    pub agents: Option<AgentRange>,
    /// The client's instance has subagents switched off: none is offered.
    pub no_subagents: bool,
    /// The client turns the network off for every command of the session (never on).
    pub no_network: bool,
}

/// A new session's id: when it started (Unix ms) and which process started it, with a count for
/// sessions of one process started in the same millisecond.
pub fn new_session_id() -> String {
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNT.fetch_add(1, Ordering::SeqCst);
    format!("{}-{}-{n}", now_ms(), std::process::id())
}

/// Where a session is kept and what it goes on from.
#[derive(Default)]
pub struct Record {
    /// The store, when sessions are kept (none: this session is not).
    pub store: Option<Store>,
    /// The stored session it goes on from.
    pub restored: Option<Loaded>,
}

impl Record {
    /// The store, and the stored session `resume` names: the newest in `root`, or one by id
    /// (which must work in `root`). A session that cannot be read is an error, never a new
    /// session; a store that cannot be opened keeps nothing (and says so) unless a stored
    /// session was asked for.
    pub fn open(resume: &Resume, root: &Path) -> Result<Record> {
        let store = Store::open(&|k| std::env::var(k).ok());
        let restored = match (resume, &store) {
            (Resume::New, _) => None,
            (_, Err(e)) => bail!("{e}"),
            (Resume::Newest, Ok(store)) => Some(store.newest_in(root)?),
            (Resume::Id(id), Ok(store)) => {
                let loaded = store.load(id)?;
                if loaded.info.cwd != root {
                    bail!(
                        "the session {id} works in {}: run lembas there to go on with it",
                        loaded.info.cwd.display()
                    );
                }
                Some(loaded)
            }
        };
        let store = match store {
            Ok(store) => Some(store),
            Err(e) => {
                eprintln!("lembas: the session is not kept: {e}");
                None
            }
        };
        Ok(Record { store, restored })
    }
}

/// The tree of a session in `root` with these options (and what a client says of the setting):
/// its engines on the server the settings name, the person answered by `asker` (nobody when
/// `unattended`), what it says sent to `out`; kept in `record`'s store, going on from its stored
/// session when it has one (whose id `session_id` then is).
#[allow(clippy::too_many_arguments)]
pub fn crew_in(
    session_id: &str,
    record: Record,
    options: &SessionOptions,
    root: PathBuf,
    asker: Arc<dyn Asker>,
    unattended: bool,
    client: SettingFromClient,
    editor: Option<Arc<dyn EditorFiles>>,
    out: mpsc::UnboundedSender<SessionEvent>,
) -> Result<Arc<Crew>> {
    // The rules and the tools read the same root (the workspace's, a real path) and home.
    let home = std::env::var("HOME")
        .ok()
        .filter(|h| h.starts_with('/'))
        .map(|h| {
            std::fs::canonicalize(&h)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or(h)
        });
    let mut s = Settings::resolve(options, &root, &|k| std::env::var(k).ok())?;
    for note in &s.notes {
        eprintln!("lembas: {note}");
    }
    // A resumed session goes on in the mode it was left in — unless the person's flag says
    // another, and never looser than the settings' mode now.
    if let Some(stored) = record.restored.as_ref().and_then(|r| r.info.mode()) {
        if options.mode.is_some() {
            if stored != s.mode {
                eprintln!(
                    "lembas: the session was in {stored} mode; --mode {} holds",
                    s.mode
                );
            }
        } else {
            let kept = stored.max(s.mode);
            if kept != stored {
                eprintln!(
                    "lembas: the session was in {stored} mode; it goes on in {kept} mode, as your \
                     settings say (/mode changes it)"
                );
            }
            s.mode = kept;
        }
    }
    let sandbox = Sandbox::new(
        s.no_sandbox,
        s.network && !client.no_network,
        options.session_temp.clone(),
    )
    .context("the session's temporary folder")?;
    eprintln!("lembas: {}", sandbox.start_line(s.mode));
    if let Some(why) = sandbox.refuses(s.mode) {
        bail!("{why}");
    }
    let mut workspace = Workspace::new(root)
        .with_home(home.clone())
        .with_secret(s.api_key.as_deref())
        .with_sandbox(Arc::new(sandbox));
    if let Some(store) = &record.store {
        workspace = workspace.with_private(store.state().to_path_buf());
    }
    if let Some(editor) = editor {
        workspace = workspace.with_editor(editor);
    }
    let root = workspace.root.to_string_lossy().into_owned();
    let mut permissions = Context::new(s.mode);
    permissions.root = root.clone();
    permissions.home = home;
    permissions.unattended = unattended;
    permissions.rules = s.rules.clone();
    // The approvals given always in this project, then the resumed session's own.
    if let Some(store) = &record.store {
        permissions.approvals = store.project_approvals(&workspace.root)?;
    }
    if let Some(restored) = &record.restored {
        let kept = restored.info.approvals().map_err(|e| anyhow::anyhow!(e))?;
        permissions.approvals.extend(kept);
    }
    let permissions = Arc::new(Mutex::new(permissions));
    let kept = match (&record.store, &record.restored) {
        (None, _) => None,
        // Going on with a kept session that cannot be kept (open in another lembas) is refused.
        (Some(store), Some(restored)) => Some(Ok(store.keep(restored)?)),
        (Some(store), None) => Some(store.create(SessionInfo {
            id: session_id.to_string(),
            cwd: workspace.root.clone(),
            title: String::new(),
            created: now_ms(),
            updated: now_ms(),
            mode: s.mode.as_str().to_string(),
            approvals: Vec::new(),
            plan: None,
            before_plan: None,
            tree: None,
        })),
    };
    let kept = match kept.transpose() {
        Ok(kept) => kept,
        Err(e) => {
            eprintln!("lembas: the session is not kept: {e}");
            None
        }
    };
    let (history, plan, before_plan) = match record.restored {
        Some(restored) => (
            restored.messages,
            restored.info.plan,
            restored.info.before_plan.as_deref().and_then(Mode::parse),
        ),
        None => (Vec::new(), None, None),
    };
    let mut provider = Provider::new(&s.base_url, s.api_key.clone());
    provider.return_progress = s.return_progress;
    provider.idle = s.idle_timeout;
    let setup = Setup {
        provider,
        workspace: workspace.with_permissions(Arc::clone(&permissions)),
        permissions,
        asker: if unattended {
            Arc::new(Unattended)
        } else {
            asker
        },
        window: s.context,
        system: fill(SYSTEM.trim(), &[("root", &root)]),
        plan: PlanDesk {
            plan: Arc::new(Mutex::new(plan)),
            file: format!(".lembas/plans/{session_id}.md"),
        },
        remember: record.store.clone().map(|store| {
            let root = PathBuf::from(&root);
            Arc::new(move |rules: &[lembas_rules::permission::Rule]| {
                if let Err(e) = store.remember(&root, rules) {
                    eprintln!("lembas: the approval is not kept for this project: {e}");
                }
            }) as Arc<dyn Fn(&[lembas_rules::permission::Rule]) + Send + Sync>
        }),
        keeping: Keeping {
            history: Mutex::new(history),
            kept: Mutex::new(kept),
            failed: Default::default(),
        },
    };
    let agents = client.agents.unwrap_or(s.agents);
    let team_options = TeamOptions {
        min: agents.min,
        max: agents.max,
        subagents: !client.no_subagents,
        capacity: Capacity {
            group: None,
            parallel: s.parallel,
        },
        model: s.model.clone(),
        mode: s.mode,
        now: now_ms(),
        ..TeamOptions::default()
    };
    let crew = Crew::new(setup, &team_options, out);
    crew.set_before_plan(before_plan);
    Ok(crew)
}

/// A session at work: the tree, the screen that shows it, the person's lines.
pub struct Session {
    crew: Arc<Crew>,
    screen: Option<JoinHandle<Screen>>,
    /// Tells the screen when a turn runs.
    control: mpsc::UnboundedSender<Control>,
    /// Events the screen has shown.
    shown: Arc<std::sync::atomic::AtomicU64>,
    lines: Lines,
    /// Whether a person answers at a terminal.
    terminal: bool,
}

impl Session {
    /// Starts a session in the current directory with these options; `reads_input`: the person's
    /// prompts come from standard input (a chat).
    pub fn start(options: &SessionOptions, reads_input: bool, resume: &Resume) -> Result<Session> {
        let root = std::env::current_dir().context("the current directory")?;
        let root = std::fs::canonicalize(&root).unwrap_or(root);
        let record = Record::open(resume, &root)?;
        let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
        let unattended = options.unattended || !terminal;
        let asking = Arc::new(AtomicBool::new(false));
        // The prompts typed in this project are kept beside its sessions.
        let history = record
            .store
            .as_ref()
            .and_then(|s| s.folder().parent())
            .map(|state| history_file(state, &root));
        let lines = if reads_input || !unattended {
            Lines::from_stdin(history)
        } else {
            Lines::none()
        };
        let asker: Arc<dyn Asker> = if unattended {
            Arc::new(Unattended)
        } else {
            Arc::new(Terminal::new(
                Arc::clone(&asking),
                lines.clone(),
                record.store.is_some(),
            ))
        };
        let events = match &options.events {
            Some(path) => Some(
                std::fs::File::create(path)
                    .with_context(|| format!("--events {}", path.display()))?,
            ),
            None => None,
        };
        let (tx, rx) = mpsc::unbounded_channel();
        let id = match &record.restored {
            Some(restored) => restored.info.id.clone(),
            None => new_session_id(),
        };
        let resumed = record.restored.as_ref().map(|r| r.info.title.clone());
        let crew = crew_in(
            &id,
            record,
            options,
            root,
            asker,
            unattended,
            SettingFromClient::default(),
            None,
            tx,
        )?;
        if let Some(title) = resumed {
            eprintln!("lembas: going on with the session {id}: {title}");
        }
        let screen = Screen::new(terminal, events, Arc::downgrade(&crew), asking);
        let shown = screen.shown();
        let (control, controls) = mpsc::unbounded_channel();
        let screen = tokio::spawn(screen.run(rx, controls));
        Ok(Session {
            crew,
            screen: Some(screen),
            control,
            shown,
            lines,
            terminal,
        })
    }

    /// The person's lines.
    pub fn lines(&self) -> &Lines {
        &self.lines
    }

    /// Whether a person answers at a terminal.
    pub fn terminal(&self) -> bool {
        self.terminal
    }

    /// The tree.
    pub fn crew(&self) -> &Arc<Crew> {
        &self.crew
    }

    /// One turn: the prompt to the main agent, then until the tree is quiet — or until the
    /// person's Ctrl-C, which stops the turn and every subagent and keeps the conversation.
    pub async fn turn(&self, prompt: &str) -> TurnOutcome {
        let _ = self.control.send(Control::Busy);
        let outcome = self.run_turn(prompt).await;
        self.caught_up().await;
        // The live area is erased before the prompt comes back, and stays so until the next turn.
        let (done, erased) = tokio::sync::oneshot::channel();
        if self.control.send(Control::Idle(done)).is_ok() {
            let _ = tokio::time::timeout(Duration::from_secs(1), erased).await;
        }
        outcome
    }

    /// Waits (a little, at most) until the screen has shown every event of the turn: its reply
    /// comes before the next prompt.
    async fn caught_up(&self) {
        let sent = self.crew.events_sent();
        for _ in 0..200 {
            if self.shown.load(std::sync::atomic::Ordering::SeqCst) >= sent {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    async fn run_turn(&self, prompt: &str) -> TurnOutcome {
        // Listened for before the turn starts: a Ctrl-C that comes before this task next runs
        // (a busy machine) is not lost.
        let interrupted = interrupt_from_now();
        self.crew.prompt(prompt);
        let end = tokio::select! {
            end = self.crew.finished() => Some(end),
            _ = interrupted => None,
        };
        match end {
            Some(SessionEnd::Finished) => TurnOutcome::Finished,
            Some(SessionEnd::Failed(e)) => TurnOutcome::Failed(e),
            None => {
                let again = interrupt_from_now();
                self.crew.stop_turn();
                // The main agent's turn ends at its next await; a second Ctrl-C does not wait.
                tokio::select! {
                    _ = self.crew.finished() => {}
                    _ = again => {}
                    _ = tokio::time::sleep(Duration::from_secs(5)) => {}
                }
                TurnOutcome::Stopped
            }
        }
    }

    /// The main agent's mode, from the next call on (a stricter one tightens the tree); refused,
    /// with why, where the mode needs a sandbox this machine does not have.
    pub fn set_mode(&self, mode: Mode) -> Result<(), String> {
        self.crew.set_mode(mode)
    }

    /// Ends the session: every task stops, the screen says the last state, the `--events` file
    /// gets `done`.
    pub async fn close(mut self, last: Option<&TurnOutcome>) {
        self.crew.send_tree();
        self.crew.close();
        let crew = self.crew;
        drop(crew);
        let Some(screen) = self.screen.take() else {
            return;
        };
        // The screen ends when the last agent's task has let go of the tree.
        if let Ok(Ok(mut screen)) = tokio::time::timeout(Duration::from_secs(5), screen).await {
            let (reason, error) = match last {
                Some(TurnOutcome::Failed(e)) => (DoneReason::Error, Some(e.clone())),
                Some(TurnOutcome::Stopped) => (DoneReason::Person, None),
                Some(TurnOutcome::Finished) | None => (DoneReason::Stop, None),
            };
            screen.event(&SessionEvent::Done { reason, error });
        }
    }
}

/// Ctrl-C from now on: the listener is made here, not at the first wait on it, so a signal that
/// comes between the two is not lost.
fn interrupt_from_now() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
    #[cfg(unix)]
    if let Ok(mut signal) =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
    {
        return Box::pin(async move {
            signal.recv().await;
        });
    }
    Box::pin(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}
