//! `lembas`: the native CLI (see `lembas --help`).

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "lembas",
    version,
    about = "The rules of harness spec 3.4.0, natively: with no command, a conversation (lembas chat)",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The conversation's settings, when no command is given.
    #[command(flatten)]
    chat: lembas_harness::config::ChatOptions,
}

#[derive(Subcommand)]
enum Command {
    /// Run conformance case files (default: every conformance/*.json) and say N passed, N failed.
    Conformance {
        /// Case files, or folders of them.
        paths: Vec<PathBuf>,
        /// One JSON object per case on stdout (the summary goes to stderr).
        #[arg(long)]
        json: bool,
        /// Print the JSON Schema of a case file of AREA (progress, delegation, subagents,
        /// permission, team), or of any case file (`file`), and run nothing.
        #[arg(long, value_name = "AREA", conflicts_with_all = ["paths", "json"])]
        schema: Option<String>,
    },
    /// Run the main agent's turn on PROMPT in the current directory, on an OpenAI-compatible server.
    Run(Box<lembas_harness::run::RunOptions>),
    /// Hold a conversation in the current directory: each line a prompt on the same session.
    Chat(Box<lembas_harness::config::ChatOptions>),
    /// List the sessions kept for this folder (`lembas chat --resume ID` goes on with one).
    Sessions {
        /// Every folder's sessions, not only this one's.
        #[arg(long)]
        all: bool,
    },
    /// Serve editors over the Agent Client Protocol on stdin and stdout (each session's cwd its
    /// project root).
    Acp(Box<lembas_harness::config::SessionOptions>),
    /// The kernel's sandbox under the rules: what this machine enforces, and each mode's policy.
    Sandbox {
        #[command(subcommand)]
        what: SandboxCommand,
    },
}

#[derive(Subcommand)]
enum SandboxCommand {
    /// Say what this kernel gives the sandbox and what each mode's commands may reach.
    Status,
}

fn main() -> ExitCode {
    // A command's waiter or its namespace's init (`pid_namespace`): nothing else of lembas.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(code) = lembas_harness::pid_namespace::run_as_helper(&args) {
        return code;
    }
    if let Ok(lembas) = std::env::current_exe() {
        lembas_harness::pid_namespace::use_program(lembas);
    }
    let cli = Cli::parse();
    let command = cli
        .command
        .unwrap_or_else(|| Command::Chat(Box::new(cli.chat)));
    match command {
        Command::Conformance {
            schema: Some(area), ..
        } => {
            let code = lembas_harness::conformance::print_schema(
                &area,
                &mut std::io::stdout(),
                &mut std::io::stderr(),
            );
            exit(code.map_err(anyhow::Error::from), "lembas conformance")
        }
        Command::Conformance { paths, json, .. } => {
            let code = lembas_harness::conformance::run(
                &paths,
                json,
                &mut std::io::stdout(),
                &mut std::io::stderr(),
            );
            exit(code.map_err(anyhow::Error::from), "lembas conformance")
        }
        Command::Run(mut options) => match confined(&mut options.session) {
            Ok(()) => in_runtime(lembas_harness::run::run(*options)),
            Err(e) => exit(Err(e), "lembas"),
        },
        Command::Sessions { all } => exit(sessions(all), "lembas sessions"),
        Command::Chat(mut options) => match confined(&mut options.session) {
            Ok(()) => in_runtime(lembas_harness::chat::chat(*options)),
            Err(e) => exit(Err(e), "lembas"),
        },
        Command::Acp(options) => in_runtime(lembas_harness::acp::serve(*options)),
        Command::Sandbox {
            what: SandboxCommand::Status,
        } => {
            print!("{}", lembas_harness::sandbox::status());
            ExitCode::SUCCESS
        }
    }
}

/// `lembas sessions`: the sessions kept for this folder (or every folder's), newest first.
fn sessions(all: bool) -> anyhow::Result<i32> {
    use anyhow::Context as _;
    let store = lembas_harness::store::Store::open(&|k| std::env::var(k).ok())?;
    let root = std::env::current_dir().context("the current directory")?;
    let root = std::fs::canonicalize(&root).unwrap_or(root);
    let kept = store.list((!all).then_some(root.as_path()))?;
    for e in &kept.unreadable {
        eprintln!("lembas: a kept session cannot be read: {e}");
    }
    if kept.sessions.is_empty() {
        eprintln!("No session is kept for {}.", root.display());
    }
    print!("{}", lembas_harness::store::listing(&kept.sessions, all));
    Ok(0)
}

/// A session with one root (`lembas run`, `lembas chat`) confines lembas itself before any
/// thread starts, where the kernel can (`sandbox::confine_harness`): its temporary folder made
/// first, and its `--events` file.
fn confined(options: &mut lembas_harness::config::SessionOptions) -> anyhow::Result<()> {
    use anyhow::Context as _;
    if options.no_sandbox
        || !matches!(
            lembas_harness::sandbox::probe(),
            lembas_harness::sandbox::Support::Full { .. }
        )
    {
        return Ok(());
    }
    let root = std::env::current_dir().context("the current directory")?;
    let root = std::fs::canonicalize(&root).unwrap_or(root);
    let temp =
        lembas_harness::sandbox::make_session_temp().context("the session's temporary folder")?;
    // The kept sessions' folder, made now: lembas writes it after it is confined.
    let sessions = lembas_harness::store::Store::open(&|k| std::env::var(k).ok())
        .ok()
        .map(|s| s.state().to_path_buf());
    lembas_harness::sandbox::confine_harness(
        &root,
        &temp,
        options.events.as_deref(),
        sessions.as_deref(),
    )?;
    options.session_temp = Some(temp);
    Ok(())
}

/// Runs a session on a runtime of its own; its exit. The runtime does not wait for the thread
/// that reads the person's lines, which may be waiting for one.
fn in_runtime(session: impl std::future::Future<Output = anyhow::Result<i32>>) -> ExitCode {
    // Before any thread: no command lembas runs reads its environment or memory.
    if let Err(e) = lembas_harness::sandbox::undumpable() {
        return exit(Err(e.into()), "lembas");
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => return exit(Err(e.into()), "lembas"),
    };
    let code = runtime.block_on(async {
        tokio::select! {
            code = session => code,
            code = ended_by_signal() => Ok(code),
        }
    });
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    exit(code, "lembas")
}

/// Waits for `SIGTERM` or `SIGHUP` (an editor or the system ending lembas, the terminal closed):
/// the session is then dropped as if it had ended — the processes its commands left running are
/// ended and git's runners put back (`survivors.rs`) — and lembas exits with 128 and the signal's
/// number. Without a way to wait for them it waits for ever.
async fn ended_by_signal() -> i32 {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut hangup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => 128 + libc::SIGTERM,
        _ = hangup.recv() => 128 + libc::SIGHUP,
    }
}

/// The process's exit: the code a command gave, or 2 and its error said in one line.
fn exit(code: anyhow::Result<i32>, who: &str) -> ExitCode {
    match code {
        Ok(c) => ExitCode::from(u8::try_from(c).unwrap_or(2)),
        Err(e) => {
            eprintln!("{who}: {e:#}");
            ExitCode::from(2)
        }
    }
}
