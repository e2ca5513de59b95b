//! `lembas chat` (and `lembas` alone): a conversation of many turns at a terminal. Each line the
//! person types is a prompt on the same session; Ctrl-C stops the running turn and every
//! subagent (the conversation stays), Ctrl-C at the prompt or Ctrl-D leaves. Between turns, a
//! few commands change what the person decides: `/mode MODE`, `/agents MIN..MAX`, `/tree`,
//! `/stop NAME`, `/help`, `/quit`.

use crate::config::{AgentRange, ChatOptions};
use crate::lines::Read;
use crate::session::{Session, TurnOutcome};
use crate::text::visible;
use anyhow::Result;
use lembas_rules::permission::Mode;

/// What a line the person typed asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said {
    /// A prompt for the main agent.
    Prompt(String),
    /// `/mode MODE`.
    Mode(Mode),
    /// `/agents MIN..MAX`.
    Agents(AgentRange),
    /// `/tree`.
    Tree,
    /// `/stop NAME`.
    Stop(String),
    /// `/help`.
    Help,
    /// `/quit`.
    Quit,
    /// Nothing (an empty line).
    Nothing,
    /// A command that is not one, or not written as one: what is wrong.
    Wrong(String),
}

/// A command the person may type (at the terminal, or in an editor's `/` menu).
pub struct Command {
    /// Its name, after the `/`.
    pub name: &'static str,
    /// What it takes, as a hint (`MODE`); none when it takes nothing.
    pub argument: Option<&'static str>,
    /// What it does.
    pub description: &'static str,
    /// Whether an editor offers it (leaving is the editor's own).
    pub in_editor: bool,
}

/// The commands, in the order `/help` lists them.
pub const COMMANDS: &[Command] = &[
    Command {
        name: "mode",
        argument: Some("MODE"),
        description: "the main agent's mode from the next call on (auto, edit, manual, plan)",
        in_editor: true,
    },
    Command {
        name: "agents",
        argument: Some("MIN..MAX"),
        description: "the Subagents setting, told to the main agent with the next prompt",
        in_editor: true,
    },
    Command {
        name: "tree",
        argument: None,
        description: "the tree as team_read writes it",
        in_editor: true,
    },
    Command {
        name: "stop",
        argument: Some("NAME"),
        description: "stop a subagent and the subagents under it",
        in_editor: true,
    },
    Command {
        name: "help",
        argument: None,
        description: "these commands",
        in_editor: true,
    },
    Command {
        name: "quit",
        argument: None,
        description: "leave (so do Ctrl-D, and Ctrl-C at the prompt)",
        in_editor: false,
    },
];

/// The commands as `/help` lists them, then what anything else is.
pub fn help() -> String {
    let mut lines: Vec<String> = COMMANDS
        .iter()
        .map(|c| {
            let call = match c.argument {
                Some(a) => format!("/{} {a}", c.name),
                None => format!("/{}", c.name),
            };
            format!("{call:<18}{}", c.description)
        })
        .collect();
    lines.push(
        "Anything else is a prompt. Ctrl-C during a turn stops it and every subagent.".into(),
    );
    lines.join("\n")
}

/// Reads a line the person typed.
pub fn read_line(line: &str) -> Said {
    let line = line.trim();
    let Some(command) = line.strip_prefix('/') else {
        return if line.is_empty() {
            Said::Nothing
        } else {
            Said::Prompt(line.to_string())
        };
    };
    let (name, arg) = match command.split_once(char::is_whitespace) {
        Some((n, a)) => (n, a.trim()),
        None => (command, ""),
    };
    let modes = Mode::ALL.map(Mode::as_str).join(", ");
    match name {
        "mode" => Mode::parse(arg).map_or_else(
            || Said::Wrong(format!("/mode: \"{arg}\" is not a mode ({modes})")),
            Said::Mode,
        ),
        "agents" => arg
            .parse::<AgentRange>()
            .map_or_else(|e| Said::Wrong(format!("/agents: {e}")), Said::Agents),
        "tree" if arg.is_empty() => Said::Tree,
        "stop" if !arg.is_empty() => Said::Stop(arg.to_string()),
        "stop" => Said::Wrong("/stop: which subagent? (/stop NAME)".into()),
        "help" => Said::Help,
        "quit" | "exit" => Said::Quit,
        _ => Said::Wrong(format!("/{name}: not a command (/help lists them)")),
    }
}

/// Holds the conversation; its exit code (0 when the person leaves).
pub async fn chat(chat: ChatOptions) -> Result<i32> {
    let session = Session::start(&chat.session, true, &chat.resume())?;
    let mut last = None;
    if session.terminal() {
        eprintln!(
            "lembas — a conversation in this folder. /help lists the commands; Ctrl-D leaves."
        );
    }
    loop {
        // Ctrl-C or Ctrl-D at the prompt leaves (Ctrl-C is a key while the line is edited, and
        // a signal where the input is not a terminal).
        let read = tokio::select! {
            read = session.lines().prompt("> ") => read,
            _ = tokio::signal::ctrl_c() => Read::Interrupted,
        };
        let Read::Line(line) = read else {
            eprintln!();
            break;
        };
        match read_line(&line) {
            Said::Prompt(prompt) => {
                let outcome = session.turn(&prompt).await;
                match &outcome {
                    TurnOutcome::Stopped => eprintln!("Stopped. The conversation goes on."),
                    TurnOutcome::Failed(_) | TurnOutcome::Finished => {}
                }
                last = Some(outcome);
            }
            Said::Mode(mode) => match session.set_mode(mode) {
                Ok(()) => eprintln!("The main agent's mode is {mode}."),
                Err(why) => eprintln!("The mode stays: {why}."),
            },
            Said::Agents(range) => {
                session.crew().set_agents(range.min, range.max);
                eprintln!(
                    "The team may have {} to {} agents; the main agent is told with the next prompt.",
                    range.min, range.max
                );
            }
            Said::Tree => eprintln!("{}", visible(&session.crew().tree_lines().join("\n"))),
            Said::Stop(name) => {
                let stopped = session.crew().stop_agent(&name);
                if stopped.is_empty() {
                    eprintln!("/stop: no subagent \"{name}\" works in the tree");
                } else {
                    eprintln!("Stopped {name} ({}).", stopped.join(", "));
                }
            }
            Said::Help => eprintln!("{}", help()),
            Said::Quit => break,
            Said::Nothing => {}
            Said::Wrong(what) => eprintln!("{what}"),
        }
    }
    session.close(last.as_ref()).await;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_a_prompt_or_a_command() {
        assert_eq!(
            read_line("  Fix the tests. \n"),
            Said::Prompt("Fix the tests.".into())
        );
        assert_eq!(read_line(""), Said::Nothing);
        assert_eq!(read_line("/mode plan"), Said::Mode(Mode::Plan));
        assert_eq!(
            read_line("/agents 2..5"),
            Said::Agents(AgentRange { min: 2, max: 5 })
        );
        assert_eq!(read_line("/tree"), Said::Tree);
        assert_eq!(read_line("/stop api"), Said::Stop("api".into()));
        assert_eq!(read_line("/quit"), Said::Quit);
        assert_eq!(
            read_line("/mode yolo"),
            Said::Wrong("/mode: \"yolo\" is not a mode (auto, edit, manual, plan)".into())
        );
        assert!(
            matches!(read_line("/agents 5..2"), Said::Wrong(w) if w.starts_with("/agents: \"5..2\""))
        );
        assert!(matches!(read_line("/stop"), Said::Wrong(_)));
        assert!(matches!(read_line("/fly"), Said::Wrong(w) if w.contains("/help")));
    }
}
