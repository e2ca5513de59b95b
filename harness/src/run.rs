//! `lembas run PROMPT`: a session of one turn — the main agent's turn in the current directory
//! (the project root), on an OpenAI-compatible server, with its tree of subagents. Settings:
//! [`crate::config`]. It returns when the main agent's turn has ended, no subagent works and no
//! report waits to wake it. Exit 0 when the turn finished, 1 when it failed, 130 on Ctrl-C (which
//! stops every subagent).

use crate::session::{Session, TurnOutcome};
use crate::store::Resume;
use anyhow::Result;

pub use crate::config::{RunOptions, SessionOptions, Settings};

/// Runs the session of one prompt; its exit code.
pub async fn run(options: RunOptions) -> Result<i32> {
    let session = Session::start(&options.session, false, &Resume::New)?;
    let outcome = session.turn(&options.prompt).await;
    let code = exit_code(&outcome);
    session.close(Some(&outcome)).await;
    Ok(code)
}

fn exit_code(outcome: &TurnOutcome) -> i32 {
    match outcome {
        TurnOutcome::Finished => 0,
        TurnOutcome::Failed(_) => 1,
        TurnOutcome::Stopped => 130,
    }
}
