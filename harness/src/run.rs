//! `lembas run PROMPT`: the main agent's turn in the current directory, on an OpenAI-compatible
//! server. Settings from the flags, else `LEMBAS_BASE_URL`, `LEMBAS_MODEL`, `LEMBAS_API_KEY`;
//! a clear message for anything missing. On a terminal the progress line is drawn in place and
//! approvals are asked; otherwise plain lines, and unattended unless a person can answer.
//! `--events FILE` writes every event as one JSON object a line. Exit 0 when the turn finished,
//! 1 when it failed.

use crate::engine::{Answer, Asker, Engine, Event, Unattended};
use crate::provider::client::Provider;
use crate::tools::Workspace;
use anyhow::{anyhow, Context as _, Result};
use lembas_rules::permission::{Context, Mode};
use lembas_rules::progress::line;
use serde_json::json;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

/// The settings of a run (`lembas run --help`).
#[derive(Debug, Clone, clap::Args)]
pub struct RunOptions {
    /// The server's base URL (…/v1); else LEMBAS_BASE_URL.
    #[arg(long)]
    pub base_url: Option<String>,
    /// The model's id; else LEMBAS_MODEL.
    #[arg(long)]
    pub model: Option<String>,
    /// The environment variable holding the API key (default LEMBAS_API_KEY).
    #[arg(long)]
    pub api_key_env: Option<String>,
    /// The permission mode: auto, edit, manual or plan.
    #[arg(long, default_value = "edit")]
    pub mode: String,
    /// Nobody answers approvals: what would ask is refused.
    #[arg(long)]
    pub unattended: bool,
    /// Write every event as one JSON object a line to FILE.
    #[arg(long)]
    pub events: Option<PathBuf>,
    /// What to do.
    pub prompt: String,
}

/// Asks the person at the terminal: y (once), a (always), anything else no.
struct Terminal;

impl Asker for Terminal {
    fn ask(&self, agent: &str, tool: &str, what: &str) -> Answer {
        eprint!("\n{agent} wants to run {tool}: {what}\nallow? [y]es once, [a]lways, [n]o: ");
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        let _ = std::io::stdin().lock().read_line(&mut answer);
        match answer.trim() {
            "y" | "yes" => Answer::Once,
            "a" | "always" => Answer::Always,
            _ => Answer::Deny,
        }
    }
}

fn setting(flag: Option<String>, env: &str, what: &str, flag_name: &str) -> Result<String> {
    flag.or_else(|| std::env::var(env).ok().filter(|v| !v.is_empty()))
        .ok_or_else(|| anyhow!("no {what}: give {flag_name} or set {env}"))
}

pub async fn run(o: RunOptions) -> Result<i32> {
    let base = setting(
        o.base_url.clone(),
        "LEMBAS_BASE_URL",
        "server",
        "--base-url URL",
    )?;
    let model = setting(o.model.clone(), "LEMBAS_MODEL", "model", "--model ID")?;
    let key_env = o
        .api_key_env
        .clone()
        .unwrap_or_else(|| "LEMBAS_API_KEY".into());
    let api_key = std::env::var(&key_env).ok().filter(|v| !v.is_empty());
    let mode = Mode::parse(&o.mode).ok_or_else(|| {
        anyhow!(
            "--mode: \"{}\" is not a mode (auto, edit, manual or plan)",
            o.mode
        )
    })?;
    let root = std::env::current_dir().context("the current directory")?;
    let mut permissions = Context::new(mode);
    permissions.root = root.to_string_lossy().into_owned();
    let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let asker: Box<dyn Asker> = if o.unattended || !terminal {
        Box::new(Unattended)
    } else {
        Box::new(Terminal)
    };
    permissions.unattended = o.unattended || !terminal;
    let mut events = match &o.events {
        Some(path) => Some(
            std::fs::File::create(path).with_context(|| format!("--events {}", path.display()))?,
        ),
        None => None,
    };
    let mut engine = Engine::new(
        Provider::new(&base, api_key),
        &model,
        Workspace::new(root),
        permissions,
        asker,
    );
    let mut write_event = |value: serde_json::Value| {
        if let Some(f) = events.as_mut() {
            let _ = writeln!(f, "{value}");
        }
    };
    let mut on = |e: Event| match e {
        Event::Phase(p) => {
            if let Some(p) = &p {
                let now = p.since;
                if terminal {
                    eprint!("\r\x1b[2K{}", line(p, now));
                } else {
                    eprintln!("{}", line(p, now));
                }
            } else if terminal {
                eprint!("\r\x1b[2K");
            }
            write_event(json!({"type": "phase", "agent": "lead", "progress": p}));
        }
        Event::ToolStart { tool, what } => {
            write_event(json!({"type": "tool_start", "agent": "lead", "tool": tool, "what": what}))
        }
        Event::ToolEnd { tool, output } => write_event(
            json!({"type": "tool_end", "agent": "lead", "tool": tool, "output": output}),
        ),
        Event::Text(t) => write_event(json!({"type": "text", "agent": "lead", "text": t})),
    };
    match engine.turn(&o.prompt, &mut on).await {
        Ok(end) => {
            println!("{}", end.reply);
            write_event(
                json!({"type": "done", "reason": if end.stopped_at_limit { "steps" } else { "stop" }}),
            );
            Ok(0)
        }
        Err(e) => {
            eprintln!("lembas: {e}");
            write_event(json!({"type": "done", "reason": "error", "error": e.to_string()}));
            Ok(1)
        }
    }
}
