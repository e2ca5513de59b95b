//! What a person sees of a run, and the `--events` file. On a terminal: the main agent's
//! progress line drawn in place and ticking each second, and, while it has subagents, the tree as
//! team_read writes it with each working agent's line under it. Not on a terminal: plain lines,
//! a line each time an agent's phase changes or the tree's states change. Every line is the
//! rules' (`progress::line`, `Team::tree_lines`).

use crate::crew::Crew;
use crate::engine::now_ms;
use crate::events::SessionEvent;
use lembas_rules::progress::{line, Progress};
use lembas_rules::team::lead;
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

    /// Hears the tree until `rx` ends, redrawing each second on a terminal.
    pub async fn run(mut self, mut rx: mpsc::UnboundedReceiver<SessionEvent>) -> Screen {
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
                    if let Some(p) = &progress {
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
                        eprintln!("{}", lines.join("\n"));
                    }
                }
                self.draw();
            }
            SessionEvent::Reply { text } => {
                self.clear();
                if !text.trim().is_empty() {
                    println!("{}", text.trim_end());
                }
            }
            SessionEvent::Notice { agent, text } => {
                // In plain lines the main agent's failure is its `failed` line already; on a
                // terminal that line is drawn over, so the failure is said once here.
                if self.terminal || !agent.is_main() {
                    self.clear();
                    eprintln!("lembas: {}: {text}", agent.name);
                }
            }
            SessionEvent::ToolStart { .. }
            | SessionEvent::ToolEnd { .. }
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
            eprintln!("{name}: {text}");
        } else {
            eprintln!("{text}");
        }
    }

    /// Erases what was drawn (terminal).
    fn clear(&mut self) {
        if !self.terminal || self.drawn == 0 {
            return;
        }
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K");
        for _ in 1..self.drawn {
            let _ = write!(err, "\x1b[1A\x1b[2K");
        }
        let _ = err.flush();
        self.drawn = 0;
    }

    /// Draws the block again (terminal): the tree while there are subagents, each working
    /// agent's line, the main agent's last.
    fn draw(&mut self) {
        if !self.terminal {
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
            lines.push(line(p, now));
        }
        self.clear();
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "{}", lines.join("\n"));
        let _ = err.flush();
        self.drawn = lines.len();
    }
}
