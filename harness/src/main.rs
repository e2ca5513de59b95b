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
            match code {
                Ok(c) => ExitCode::from(u8::try_from(c).unwrap_or(2)),
                Err(e) => {
                    eprintln!("lembas conformance: {e}");
                    ExitCode::from(2)
                }
            }
        }
    }
}
