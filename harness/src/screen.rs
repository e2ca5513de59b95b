//! What a person sees of a run, and the `--events` file. On a terminal: the main agent's
//! progress line drawn in place and ticking each second, and, while it has subagents, the tree as
//! team_read writes it with each working agent's line under it. Not on a terminal: plain lines,
//! a line each time an agent's phase changes or the tree's states change. Every line is the
//! rules' (`progress::line`, `Team::tree_lines`).

use crate::call::{CallShown, CallStatus, TEXTS};
use crate::crew::Crew;
use crate::engine::now_ms;
use crate::events::{FileDiff, SessionEvent};
use crate::text::visible;
use lembas_rules::progress::{line, Phase, Progress};
use lembas_rules::team::lead;
use lembas_rules::text::fill;
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::mpsc;

pub struct Screen {
    terminal: bool,
    events: Option<std::fs::File>,
    crew: Weak<Crew>,
    /// Each agent's progress, in the order first heard.
    progress: Vec<(String, Option<Progress>)>,
    /// Lines drawn last (terminal), to be drawn over.
    drawn: usize,
    /// The tree's states as last said (plain).
    said_tree: String,
    has_subagents: bool,
    /// The person is being asked: nothing is drawn over the question.
    asking: Arc<AtomicBool>,
    /// Events shown so far.
    shown: Arc<AtomicU64>,
    /// Calls made and not yet ended, by id.
    calls: HashMap<String, CallShown>,
    /// No turn runs: the person has the prompt, and nothing is drawn over it.
    idle: bool,
    /// The main agent's context used by its last step, and its window when known.
    usage: Option<(u64, Option<u64>)>,
    /// The main agent's reply is being written on the terminal as it comes: the live area
    /// waits until its line ends.
    streaming: bool,
    /// What of the step's reply has been written so far.
    streamed: String,
}

/// Tokens in a few characters: `950`, `12.3k`, `128k`.
fn tokens(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=99_999 => format!("{:.1}k", n as f64 / 1000.0),
        _ => format!("{}k", n / 1000),
    }
}

/// The context as the status line says it: `12.3k tokens of 32k (38%)`, or `12.3k tokens`.
pub fn context_words(used: u64, window: Option<u64>) -> String {
    match window.filter(|w| *w > 0) {
        Some(w) => format!(
            "{} tokens of {} ({}%)",
            tokens(used),
            tokens(w),
            used.saturating_mul(100) / w
        ),
        None => format!("{} tokens", tokens(used)),
    }
}

/// What the session tells the screen between turns.
pub enum Control {
    /// A turn starts: the live area is drawn again.
    Busy,
    /// The turn is over: the live area is erased before the prompt is drawn, and stays so; the
    /// sender hears when it is.
    Idle(tokio::sync::oneshot::Sender<()>),
}

/// The last lines of a command's output the terminal keeps under its line.
const LAST_LINES: usize = 3;

/// The lines the terminal keeps after a call ends: what it did in words (`Read src/main.rs`,
/// `Edited src/lib.rs (+3 −1)`, `Ran cargo test — exit 0, 42 lines` with its last lines), or
/// why it did not run.
pub fn kept_line(
    call: &CallShown,
    status: CallStatus,
    output: &str,
    diff: Option<&FileDiff>,
) -> Vec<String> {
    let kept = &TEXTS.kept;
    if status == CallStatus::Failed {
        let reason = output.lines().next().unwrap_or("").trim();
        return vec![fill(
            &kept.refused,
            &[("title", &call.title), ("reason", reason)],
        )];
    }
    match (call.tool.as_str(), diff) {
        ("bash", _) => {
            let (body, code) = match output.trim_end().rsplit_once("\n(exit ") {
                Some((body, tail)) => (body, tail.trim_end_matches(')').to_string()),
                None => match output.trim_end().strip_prefix("(exit ") {
                    Some(tail) => ("", tail.trim_end_matches(')').to_string()),
                    None => (output, "0".to_string()),
                },
            };
            let lines: Vec<&str> = body.lines().collect();
            let command = call.title.strip_prefix("Run ").unwrap_or(&call.title);
            let mut out = vec![fill(
                &kept.ran,
                &[
                    ("command", command),
                    ("code", &code),
                    ("lines", &lines.len().to_string()),
                ],
            )];
            let from = lines.len().saturating_sub(LAST_LINES);
            out.extend(lines.iter().skip(from).map(|l| format!("│ {l}")));
            out
        }
        ("write" | "edit", Some(change)) => {
            let (added, removed) = counted_change(change);
            let verb = if call.tool == "write" && change.old.is_none() {
                "Wrote"
            } else {
                "Edited"
            };
            let path = call
                .input
                .get("path")
                .and_then(|p| p.as_str())
                .unwrap_or("");
            vec![fill(
                &kept.edited,
                &[
                    ("verb", verb),
                    ("path", path),
                    ("added", &added.to_string()),
                    ("removed", &removed.to_string()),
                ],
            )]
        }
        _ => vec![fill(&kept.done, &[("title", &call.title)])],
    }
}

/// The lines a change adds and removes (what the question's fold shows).
fn counted_change(change: &FileDiff) -> (usize, usize) {
    let shown = crate::asking::folded_change(change, usize::MAX);
    let added = shown.iter().filter(|l| l.starts_with("+ ")).count();
    let removed = shown.iter().filter(|l| l.starts_with("- ")).count();
    (added, removed)
}

impl Screen {
    pub fn new(
        terminal: bool,
        events: Option<std::fs::File>,
        crew: Weak<Crew>,
        asking: Arc<AtomicBool>,
    ) -> Screen {
        Screen {
            terminal,
            events,
            crew,
            progress: Vec::new(),
            drawn: 0,
            said_tree: String::new(),
            has_subagents: false,
            asking,
            shown: Arc::new(AtomicU64::new(0)),
            calls: HashMap::new(),
            idle: false,
            usage: None,
            streaming: false,
            streamed: String::new(),
        }
    }

    /// The count of events it has shown, which a session reads to know it has caught up.
    pub fn shown(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.shown)
    }

    /// Writes one event line to the `--events` file.
    pub fn event(&mut self, event: &SessionEvent) {
        if let Some(f) = self.events.as_mut() {
            let _ = writeln!(f, "{}", event.to_file_line(now_ms()));
        }
    }

    /// Hears the tree until `rx` ends, redrawing each second on a terminal while a turn runs;
    /// `control` says when one does.
    pub async fn run(
        mut self,
        mut rx: mpsc::UnboundedReceiver<SessionEvent>,
        mut control: mpsc::UnboundedReceiver<Control>,
    ) -> Screen {
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        loop {
            tokio::select! {
                out = rx.recv() => match out {
                    Some(out) => {
                        self.hear(out);
                        self.shown.fetch_add(1, Ordering::SeqCst);
                    }
                    None => break,
                },
                said = control.recv() => match said {
                    Some(Control::Busy) => self.idle = false,
                    Some(Control::Idle(done)) => {
                        self.end_stream();
                        self.clear();
                        self.idle = true;
                        let _ = done.send(());
                    }
                    None => {}
                },
                _ = tick.tick() => if self.terminal { self.draw() },
            }
        }
        self.clear();
        self
    }

    fn hear(&mut self, event: SessionEvent) {
        self.event(&event);
        match event {
            SessionEvent::Phase { agent, progress } => {
                if !self.terminal {
                    // The main agent's failure is said whole by its notice, not cut in a line.
                    let main_failed = agent.is_main()
                        && progress
                            .as_ref()
                            .is_some_and(|p| matches!(p.phase, Phase::Failed { .. }));
                    if let Some(p) = progress.as_ref().filter(|_| !main_failed) {
                        self.plain(&agent.name, &line(p, p.since));
                    }
                }
                match self.progress.iter_mut().find(|(n, _)| *n == agent.name) {
                    Some(slot) => slot.1 = progress,
                    None => self.progress.push((agent.name, progress)),
                }
                self.draw();
            }
            SessionEvent::Team { tree } => {
                self.has_subagents = tree.agents.len() > 1 || !tree.ended.is_empty();
                if !self.terminal && self.has_subagents {
                    let states: String = tree
                        .agents
                        .iter()
                        .chain(&tree.ended)
                        .map(|a| format!("{}:{} ", a.name, a.state.word()))
                        .collect();
                    if states != self.said_tree {
                        self.said_tree = states;
                        let lines = self.tree_lines();
                        eprintln!("{}", visible(&lines.join("\n")));
                    }
                }
                self.draw();
            }
            SessionEvent::Reply { text } => {
                self.clear();
                // On a terminal the reply was written as it came: only its line is ended.
                let streamed = std::mem::take(&mut self.streamed);
                self.end_stream();
                if !text.trim().is_empty() && streamed.trim() != text.trim() {
                    if self.terminal {
                        println!("{}", visible(text.trim_end()));
                    } else {
                        println!("{}", text.trim_end());
                    }
                }
            }
            SessionEvent::Text { agent, text } if self.terminal && agent.is_main() => {
                // The main agent's reply as it comes, where the live area was.
                if !self.streaming {
                    self.clear();
                    self.streaming = true;
                }
                self.streamed.push_str(&text);
                print!("{}", visible(&text));
                let _ = std::io::stdout().flush();
            }
            SessionEvent::Notice { agent, text } => {
                // Said whole, once: the main agent's as its failure, a subagent's by its name.
                self.end_stream();
                self.clear();
                if agent.is_main() {
                    eprintln!("Failed: {}", visible(&text));
                } else {
                    eprintln!("lembas: {}: {}", visible(&agent.name), visible(&text));
                }
                self.draw();
            }
            SessionEvent::ToolStart { call, .. } => {
                // A step's text before its calls stays as written.
                self.streamed.clear();
                self.end_stream();
                self.calls.insert(call.id.clone(), call);
            }
            SessionEvent::ToolEnd {
                agent,
                id,
                status,
                output,
                diff,
                ..
            } => {
                if let Some(call) = self.calls.remove(&id) {
                    let kept = kept_line(&call, status, &output, diff.as_ref());
                    self.clear();
                    let who = if agent.is_main() {
                        String::new()
                    } else {
                        format!("{}: ", agent.name)
                    };
                    for (n, line) in kept.iter().enumerate() {
                        let lead = if n == 0 { who.as_str() } else { "    " };
                        eprintln!("{lead}{}", visible(line));
                    }
                    self.draw();
                }
            }
            SessionEvent::Plan { plan } => {
                self.end_stream();
                self.clear();
                eprintln!("{}", visible(plan.markdown().trim_end()));
                self.draw();
            }
            SessionEvent::Mode { mode } => {
                self.end_stream();
                self.clear();
                eprintln!("The main agent's mode is {mode} now.");
                self.draw();
            }
            SessionEvent::Usage {
                agent,
                used,
                window,
            } => {
                if agent.is_main() {
                    self.usage = Some((used, window));
                }
            }
            SessionEvent::ToolOutput { .. }
            | SessionEvent::ToolRunning { .. }
            | SessionEvent::Reasoning { .. }
            | SessionEvent::Text { .. }
            | SessionEvent::Done { .. } => {}
        }
    }

    fn tree_lines(&self) -> Vec<String> {
        self.crew
            .upgrade()
            .map(|c| c.tree_lines())
            .unwrap_or_default()
    }

    fn plain(&self, name: &str, text: &str) {
        if self.has_subagents || name != lead() {
            eprintln!("{}: {}", visible(name), visible(text));
        } else {
            eprintln!("{}", visible(text));
        }
    }

    /// Ends the line a streamed reply was written on (the live area may draw again below it).
    fn end_stream(&mut self) {
        if self.streaming {
            println!();
            self.streaming = false;
        }
    }

    /// Erases what was drawn (terminal).
    fn clear(&mut self) {
        if !self.terminal || self.drawn == 0 {
            return;
        }
        use crossterm::cursor::{MoveToColumn, MoveUp};
        use crossterm::terminal::{Clear, ClearType};
        use crossterm::QueueableCommand;
        let mut err = std::io::stderr().lock();
        let _ = err
            .queue(MoveToColumn(0))
            .and_then(|e| e.queue(Clear(ClearType::CurrentLine)));
        for _ in 1..self.drawn {
            let _ = err
                .queue(MoveUp(1))
                .and_then(|e| e.queue(Clear(ClearType::CurrentLine)));
        }
        let _ = err.flush();
        self.drawn = 0;
    }

    /// Draws the block again (terminal): the tree while there are subagents, each working
    /// agent's line, the main agent's last.
    fn draw(&mut self) {
        if !self.terminal || self.idle || self.streaming {
            return;
        }
        if self.asking.load(Ordering::SeqCst) {
            // The block stays above the question; the next one is drawn below the answer.
            self.drawn = 0;
            return;
        }
        let now = now_ms();
        let mut lines: Vec<String> = Vec::new();
        if self.has_subagents {
            lines.extend(self.tree_lines());
            for (name, p) in &self.progress {
                if let Some(p) = p.as_ref().filter(|_| name != lead()) {
                    lines.push(format!("  {name}: {}", line(p, now)));
                }
            }
        }
        if let Some((_, Some(p))) = self.progress.iter().find(|(n, _)| n == lead()) {
            // The main agent's line, with the context it has used.
            match self.usage {
                Some((used, window)) => lines.push(format!(
                    "{} · {}",
                    line(p, now),
                    context_words(used, window)
                )),
                None => lines.push(line(p, now)),
            }
        }
        self.clear();
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "{}", visible(&lines.join("\n")));
        let _ = err.flush();
        self.drawn = lines.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_is_said_in_a_few_characters() {
        assert_eq!(
            context_words(12_345, Some(32_768)),
            "12.3k tokens of 32.8k (37%)"
        );
        assert_eq!(context_words(950, None), "950 tokens");
        assert_eq!(context_words(200_000, Some(0)), "200k tokens");
    }
}
