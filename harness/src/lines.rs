//! The person's lines at a terminal, read by one thread for the whole session with rustyline: the
//! chat's prompts (edited in place — arrows, Home/End, Ctrl-W — and kept in a history of this
//! project, searched with Ctrl-R) and the answers to questions, in the order typed. Ctrl-C while a
//! line is read is said as such (at the prompt it leaves; at a question it cancels it); Ctrl-D, or
//! the end of the input, ends it. Not on a terminal, rustyline reads plain lines.

use rustyline::error::ReadlineError;
use rustyline::history::{FileHistory, History};
use rustyline::{Config, Editor};
use std::path::PathBuf;
use std::sync::mpsc as std_mpsc;
use tokio::sync::oneshot;

/// What reading a line came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Read {
    /// The line typed, without its line end.
    Line(String),
    /// The person pressed Ctrl-C.
    Interrupted,
    /// The input ended (Ctrl-D, or no more input).
    Ended,
}

/// A line asked of the reader: its prompt, whether it goes into the history, where the answer
/// goes.
struct Asked {
    prompt: String,
    kept: bool,
    reply: oneshot::Sender<Read>,
}

/// The reader of the person's lines.
#[derive(Clone)]
pub struct Lines {
    asks: Option<std_mpsc::Sender<Asked>>,
}

/// The file a project's history is kept in: the state folder's `history/`, named after the
/// project ([`crate::store::project_name`]).
pub fn history_file(state: &std::path::Path, root: &std::path::Path) -> PathBuf {
    state.join("history").join(crate::store::project_name(root))
}

impl Lines {
    /// No lines: the input is not read (a session of one prompt that asks nobody).
    pub fn none() -> Lines {
        Lines { asks: None }
    }

    /// Starts the reader; `history`: the file the prompts are kept in (none: not kept).
    pub fn from_stdin(history: Option<PathBuf>) -> Lines {
        let (tx, rx) = std_mpsc::channel::<Asked>();
        std::thread::spawn(move || {
            let config = Config::builder().auto_add_history(false).build();
            let Ok(mut editor) = Editor::<(), FileHistory>::with_config(config) else {
                for asked in rx {
                    let _ = asked.reply.send(Read::Ended);
                }
                return;
            };
            if let Some(file) = &history {
                if let Some(folder) = file.parent() {
                    let _ = std::fs::create_dir_all(folder);
                }
                let _ = editor.load_history(file);
            }
            while let Ok(asked) = rx.recv() {
                let read = match editor.readline(&asked.prompt) {
                    Ok(line) => {
                        let line = line.trim_end_matches(['\n', '\r']).to_string();
                        if asked.kept && !line.trim().is_empty() {
                            let _ = editor.history_mut().add(&line);
                            if let Some(file) = &history {
                                let _ = editor.append_history(file);
                            }
                        }
                        Read::Line(line)
                    }
                    Err(ReadlineError::Interrupted) => Read::Interrupted,
                    Err(_) => Read::Ended,
                };
                let ended = read == Read::Ended;
                let _ = asked.reply.send(read);
                if ended {
                    // Every later ask hears the end too.
                    for asked in rx.iter() {
                        let _ = asked.reply.send(Read::Ended);
                    }
                    return;
                }
            }
        });
        Lines { asks: Some(tx) }
    }

    fn ask(&self, prompt: &str, kept: bool) -> Option<oneshot::Receiver<Read>> {
        let (reply, answer) = oneshot::channel();
        self.asks
            .as_ref()?
            .send(Asked {
                prompt: prompt.to_string(),
                kept,
                reply,
            })
            .ok()?;
        Some(answer)
    }

    /// The person's next prompt, after `prompt`; kept in the history.
    pub async fn prompt(&self, prompt: &str) -> Read {
        match self.ask(prompt, true) {
            Some(answer) => answer.await.unwrap_or(Read::Ended),
            None => Read::Ended,
        }
    }

    /// An answer to a question, after `prompt`, waited for off the runtime's workers (a question
    /// is asked from inside a turn); not kept in the history.
    pub fn answer(&self, prompt: &str) -> Read {
        match self.ask(prompt, false) {
            Some(answer) => {
                tokio::task::block_in_place(|| answer.blocking_recv()).unwrap_or(Read::Ended)
            }
            None => Read::Ended,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_projects_history_has_a_file_of_its_own() {
        let state = std::path::Path::new("/s");
        let a = history_file(state, std::path::Path::new("/home/me/web app"));
        let b = history_file(state, std::path::Path::new("/srv/web app"));
        assert_ne!(a, b);
        assert!(a.starts_with("/s/history"));
        assert!(a
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("webapp-"));
        assert_eq!(
            a,
            history_file(state, std::path::Path::new("/home/me/web app"))
        );
    }
}
