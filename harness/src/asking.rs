//! Asking the person at a terminal (`lembas chat`, and `lembas run` on a terminal): a question
//! about one call names whose it is, says what the call would do — the change of a write, the
//! command, the plan — and reads y, a or n; Ctrl-C cancels it.

use crate::engine::{Approval, Asker, Question};
use crate::events::FileDiff;
use crate::lines::{Lines, Read};
use crate::text::visible;
use lembas_rules::text::fill;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// A change as the terminal shows it in a question: the lines removed and added, at most
/// `max` of them, then how many more.
pub fn folded_change(change: &FileDiff, max: usize) -> Vec<String> {
    let old: Vec<&str> = change.old.as_deref().unwrap_or("").lines().collect();
    let new: Vec<&str> = change.new.lines().collect();
    // The lines both share at the start and the end are not shown.
    let same_start = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let same_end = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take_while(|(a, b)| a == b)
        .count()
        .min(old.len().min(new.len()) - same_start);
    let removed = old
        .get(same_start..old.len() - same_end)
        .unwrap_or_default();
    let added = new
        .get(same_start..new.len() - same_end)
        .unwrap_or_default();
    let lines: Vec<String> = removed
        .iter()
        .map(|l| format!("- {l}"))
        .chain(added.iter().map(|l| format!("+ {l}")))
        .collect();
    let more = lines.len().saturating_sub(max);
    let mut shown: Vec<String> = lines.into_iter().take(max).collect();
    if more > 0 {
        shown.push(format!("  … {more} more lines"));
    }
    shown
}

/// Asks the person at the terminal: y (once), a (always), anything else no; a plan: y approves
/// it. One question at a time, naming the agent whose call it is ("the main agent" for the main
/// one), with the change a write would make, the command a call would run, or the plan; the
/// screen does not draw while it waits, and the other agents' tasks go on. Ctrl-C cancels the
/// question: the call is refused, and said so.
pub struct Terminal {
    one: Mutex<()>,
    asking: Arc<AtomicBool>,
    lines: Lines,
    /// Approvals can be kept for the project (its sessions are kept).
    project: bool,
}

impl Terminal {
    /// Asks at the terminal, reading the answers from `lines`; `asking` is set while a question
    /// waits (the screen does not draw then).
    /// `project`: approvals can be kept for the project (`p`).
    pub fn new(asking: Arc<AtomicBool>, lines: Lines, project: bool) -> Terminal {
        Terminal {
            one: Mutex::new(()),
            asking,
            lines,
            project,
        }
    }
}

impl Asker for Terminal {
    fn ask(&self, question: &Question<'_>) -> Approval {
        let _one = self.one.lock().unwrap_or_else(PoisonError::into_inner);
        self.asking.store(true, Ordering::SeqCst);
        let texts = &*crate::call::TEXTS;
        let who = if question.agent.is_main() {
            texts.main_agent.clone()
        } else {
            question.agent.name.clone()
        };
        let mut said = vec![String::new()];
        let answers = match question.plan {
            Some(plan) => {
                said.push(format!("{who} submits the plan:"));
                said.extend(plan.markdown().lines().map(|l| format!("  {l}")));
                "approve the plan? [y]es, [n]o: ".to_string()
            }
            None => {
                said.push(fill(
                    &texts.question,
                    &[("agent", &who), ("title", &question.call.title)],
                ));
                if let Some(command) = question.call.input.get("command").and_then(|c| c.as_str()) {
                    said.extend(command.lines().map(|l| format!("  $ {l}")));
                }
                if let Some(change) = question.change {
                    said.extend(
                        folded_change(change, 20)
                            .into_iter()
                            .map(|l| format!("  {l}")),
                    );
                }
                match question.kept_in_project.as_ref().filter(|_| self.project) {
                    Some(kept) => {
                        said.push(fill(&texts.kept_in_project, &[("kept", kept)]));
                        texts.answers_project.clone()
                    }
                    None => texts.answers.clone(),
                }
            }
        };
        eprintln!("{}", visible(&said.join("\n")));
        let _ = std::io::stderr().flush();
        let answer = self.lines.answer(&answers);
        self.asking.store(false, Ordering::SeqCst);
        let Read::Line(answer) = answer else {
            eprintln!("{}", texts.cancelled);
            return Approval::Deny;
        };
        match (answer.trim(), question.plan.is_some()) {
            ("y" | "yes", _) => Approval::Once,
            ("a" | "always", false) => Approval::Always,
            ("p" | "project", false) if self.project && question.kept_in_project.is_some() => {
                Approval::AlwaysInProject
            }
            _ => Approval::Deny,
        }
    }
}
