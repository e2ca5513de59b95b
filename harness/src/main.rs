//! `lembas`: the native CLI (see `lembas --help`).

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "lembas",
    version,
    about = "The rules of harness spec 3.4.0, natively"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
    },
    /// Run the main agent's turn on PROMPT in the current directory, on an OpenAI-compatible server.
    Run(Box<lembas_harness::run::RunOptions>),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Conformance { paths, json } => {
            let code = lembas_harness::conformance::run(
                &paths,
                json,
                &mut std::io::stdout(),
                &mut std::io::stderr(),
            );
            exit(code.map_err(anyhow::Error::from), "lembas conformance")
        }
        Command::Run(options) => {
            let runtime = match tokio::runtime::Runtime::new() {
                Ok(r) => r,
                Err(e) => return exit(Err(e.into()), "lembas"),
            };

            exit(
                runtime.block_on(lembas_harness::run::run(*options)),
                "lembas",
            )
        }
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
