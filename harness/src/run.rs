//! `lembas run PROMPT`: the main agent's turn in the current directory (the project root), on an
//! OpenAI-compatible server, with its tree of subagents. Settings: [`crate::config`]. It returns
//! when the main agent's turn has ended, no subagent works and no report waits to wake it. Exit
//! 0 when the turn finished, 1 when it failed, 130 on Ctrl-C (which stops every subagent).

use crate::crew::{Crew, SessionEnd, Setup};
use crate::engine::{now_ms, Approval, Asker, Unattended};
use crate::events::{DoneReason, SessionEvent};
use crate::provider::client::Provider;
use crate::screen::Screen;
use crate::tools::Workspace;
use anyhow::{Context as _, Result};
use lembas_rules::permission::Context;
use lembas_rules::subagents::Capacity;
use lembas_rules::team::TeamOptions;
use lembas_rules::text::fill;
use std::io::{BufRead, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

pub use crate::config::{RunOptions, Settings};

/// This project's own system prompt, before the spec's blocks.
const SYSTEM: &str = include_str!("../prompts/system.md");

/// Asks the person at the terminal: y (once), a (always), anything else no. One question at a
/// time, naming the agent whose call it is; the screen does not draw while it waits, and the
/// other agents' tasks go on (the wait is off the runtime's workers).
struct Terminal {
    one: Mutex<()>,
    asking: Arc<AtomicBool>,
}

impl Asker for Terminal {
    fn ask(&self, agent: &str, tool: &str, what: &str) -> Approval {
        tokio::task::block_in_place(|| {
            let _one = self.one.lock();
            self.asking.store(true, Ordering::SeqCst);
            eprint!("\n{agent} wants to run {tool}: {what}\nallow? [y]es once, [a]lways, [n]o: ");
            let _ = std::io::stderr().flush();
            let mut answer = String::new();
            let _ = std::io::stdin().lock().read_line(&mut answer);
            self.asking.store(false, Ordering::SeqCst);
            match answer.trim() {
                "y" | "yes" => Approval::Once,
                "a" | "always" => Approval::Always,
                _ => Approval::Deny,
            }
        })
    }
}

pub async fn run(o: RunOptions) -> Result<i32> {
    let root = std::env::current_dir().context("the current directory")?;
    // The rules and the tools read the same root (the workspace's, a real path) and home.
    let home = std::env::var("HOME")
        .ok()
        .filter(|h| h.starts_with('/'))
        .map(|h| {
            std::fs::canonicalize(&h)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or(h)
        });
    let s = Settings::resolve(&o, &root, &|k| std::env::var(k).ok())?;
    let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let unattended = o.unattended || !terminal;
    let workspace = Workspace::new(root)
        .with_home(home.clone())
        .with_secret(s.api_key.as_deref());
    let root = workspace.root.to_string_lossy().into_owned();
    let mut permissions = Context::new(s.mode);
    permissions.root = root.clone();
    permissions.home = home;
    permissions.unattended = unattended;
    let permissions = Arc::new(Mutex::new(permissions));
    let asking = Arc::new(AtomicBool::new(false));
    let asker: Arc<dyn Asker> = if unattended {
        Arc::new(Unattended)
    } else {
        Arc::new(Terminal {
            one: Mutex::new(()),
            asking: Arc::clone(&asking),
        })
    };
    let events = match &o.events {
        Some(path) => Some(
            std::fs::File::create(path).with_context(|| format!("--events {}", path.display()))?,
        ),
        None => None,
    };
    let mut provider = Provider::new(&s.base_url, s.api_key.clone());
    provider.return_progress = s.return_progress;
    let setup = Setup {
        provider,
        workspace: workspace.with_permissions(Arc::clone(&permissions)),
        permissions,
        asker,
        window: s.context,
        system: fill(SYSTEM.trim(), &[("root", &root)]),
    };
    let options = TeamOptions {
        min: s.agents.min,
        max: s.agents.max,
        capacity: Capacity {
            group: None,
            parallel: s.parallel,
        },
        model: s.model.clone(),
        mode: s.mode,
        now: now_ms(),
        ..TeamOptions::default()
    };
    let (tx, rx) = mpsc::unbounded_channel();
    let crew = Crew::new(setup, &options, tx);
    let screen = tokio::spawn(Screen::new(terminal, events, Arc::downgrade(&crew), asking).run(rx));
    crew.begin(&o.prompt);
    let outcome = tokio::select! {
        o = crew.finished() => Some(o),
        _ = tokio::signal::ctrl_c() => None,
    };
    if outcome.is_none() {
        crew.stop_all();
    }
    crew.send_tree();
    crew.close();
    drop(crew);
    // The screen ends when the last agent's task has let go of the tree.
    let mut screen = match tokio::time::timeout(Duration::from_secs(5), screen).await {
        Ok(Ok(s)) => s,
        _ => return Ok(exit_code(outcome.as_ref())),
    };
    let (reason, error) = match &outcome {
        Some(SessionEnd::Finished) => (DoneReason::Stop, None),
        Some(SessionEnd::Failed(e)) => (DoneReason::Error, Some(e.clone())),
        None => (DoneReason::Person, None),
    };
    screen.event(&SessionEvent::Done { reason, error });
    Ok(exit_code(outcome.as_ref()))
}

fn exit_code(outcome: Option<&SessionEnd>) -> i32 {
    match outcome {
        Some(SessionEnd::Finished) => 0,
        Some(SessionEnd::Failed(_)) => 1,
        None => 130,
    }
}
