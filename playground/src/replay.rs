//! A run replayed from its `--events` file (`lembas run --events FILE`): one JSON event a line,
//! each with `at`, when it was said (Unix ms). At any moment of the run, or after any number of
//! its events (events of the same millisecond one at a time): the tree as its last `team` event
//! drew it, every agent's progress line as the rules write it at that moment (progress.md §3),
//! and what was said last. The lines are read with the rules' own readers; a line that cannot be
//! read (a run killed while writing its last one) is skipped and said, the others played.

use lembas_rules::progress::{line, Progress};
use lembas_rules::team::view::TreeInfo;
use serde_json::Value;

/// How the log and the lines name the main agent.
const MAIN: &str = "main agent";

/// One event of the file, read.
#[derive(Debug, Clone, PartialEq)]
enum Said {
    /// An agent's progress; none: nothing runs for it.
    Phase {
        agent: Option<String>,
        progress: Option<Progress>,
    },
    /// The tree.
    Team(TreeInfo),
    /// Anything else worth a line of the log: a tool, a reply, a notice, the end; whose
    /// (a subagent's id; none for the main agent or the run) and what.
    Note(Option<String>, String),
    /// An event the log does not show (a piece of a reply or of reasoning).
    Unshown,
}

/// A run's events in time order.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    events: Vec<(i64, Said)>,
    /// Whether the file gave no times (each event is then a second after the one before).
    untimed: bool,
    /// Each subagent's name by its id, from every `team` event of the file (a subagent is named
    /// by its name from its first line on, before the tree that names it is said).
    names: Vec<(String, String)>,
    /// The lines that could not be read, each said with its number.
    skipped: Vec<String>,
}

/// The run at one moment.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Moment {
    /// The tree, once a `team` event said it.
    pub tree: Option<TreeInfo>,
    /// Each agent that has said its progress, in the order they first did: its name (the main
    /// agent's is `main agent`) and its progress line now; none when nothing runs for it.
    pub lines: Vec<(String, Option<String>)>,
    /// The last few things said, newest last.
    pub log: Vec<String>,
    /// How many events have been said by now.
    pub said: usize,
}

/// An event of the file as a line of the log, after the name of whose it is; none for one the
/// log does not show.
fn note(event: &Value) -> Option<String> {
    let text = |k: &str| event.get(k).and_then(Value::as_str).unwrap_or("");
    let short = |s: &str| {
        let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
        if one.chars().count() > 120 {
            format!("{}…", one.chars().take(119).collect::<String>())
        } else {
            one
        }
    };
    Some(match text("type") {
        "tool_start" => format!("{} {}", text("tool"), short(text("what"))),
        "tool_end" => format!("{} done", text("tool")),
        "reply" => format!("reply: {}", short(text("text"))),
        "notice" => short(text("text")),
        "done" => match event.get("error").and_then(Value::as_str) {
            Some(e) => format!("the run ended ({}): {}", text("reason"), short(e)),
            None => format!("the run ended ({})", text("reason")),
        },
        _ => return None,
    })
}

/// The `n`th line of a file, the `index`th event read: when it was said, what, and whether the
/// line gave its time (an untimed event is a second after the one before).
fn read_event(n: usize, raw: &str, index: usize) -> Result<(i64, Said, bool), String> {
    let event: Value = serde_json::from_str(raw).map_err(|e| {
        // The file's line, and the column in it.
        let said = crate::json_problem::json_problem(raw, &e);
        format!("line {n}, column {}: {}", said.column, said.message)
    })?;
    let Some(kind) = event.get("type").and_then(Value::as_str) else {
        return Err(format!("line {n}: not an event (it has no `type`)"));
    };
    let (at, timed) = match event.get("at").and_then(Value::as_i64) {
        Some(at) => (at, true),
        None => (
            i64::try_from(index)
                .unwrap_or(i64::MAX)
                .saturating_mul(1000),
            false,
        ),
    };
    let agent = event
        .get("agent")
        .and_then(Value::as_str)
        .map(str::to_string);
    let said = match kind {
        "phase" => Said::Phase {
            agent,
            progress: match event.get("progress") {
                None | Some(Value::Null) => None,
                Some(p) => {
                    Some(Progress::from_json("progress", p).map_err(|e| format!("line {n}: {e}"))?)
                }
            },
        },
        "team" => Said::Team(
            TreeInfo::from_json("tree", event.get("tree").unwrap_or(&Value::Null))
                .map_err(|e| format!("line {n}: {e}"))?,
        ),
        kind => match note(&event) {
            // A reply and the run's end are the run's; the others an agent's.
            Some(text) if matches!(kind, "reply" | "done") => Said::Note(None, text),
            Some(text) => Said::Note(Some(agent.unwrap_or_else(|| MAIN.to_string())), text),
            None => Said::Unshown,
        },
    };
    Ok((at, said, timed))
}

impl Replay {
    /// Reads an `--events` file. A line that is not an event is skipped and said
    /// ([`Replay::skipped`]); a file with no event at all is an error naming its first bad line.
    pub fn read(text: &str) -> Result<Replay, String> {
        let mut events = Vec::new();
        let mut skipped = Vec::new();
        let mut untimed = false;
        for (i, raw) in text.lines().enumerate() {
            if raw.trim().is_empty() {
                continue;
            }
            match read_event(i + 1, raw, events.len()) {
                Ok((at, said, timed)) => {
                    untimed |= !timed;
                    events.push((at, said));
                }
                Err(e) => skipped.push(e),
            }
        }
        if events.is_empty() {
            return Err(skipped.into_iter().next().unwrap_or_else(|| {
                "no events: a file of `lembas run --events FILE`, one event a line".into()
            }));
        }
        // Said in order; a clock that went back is kept in file order.
        let mut last = i64::MIN;
        for (at, _) in &mut events {
            last = last.max(*at);
            *at = last;
        }
        let mut names: Vec<(String, String)> = Vec::new();
        for (_, said) in &events {
            if let Said::Team(tree) = said {
                for agent in tree.agents.iter().chain(&tree.ended) {
                    if !names.iter().any(|(id, _)| *id == agent.id) {
                        names.push((agent.id.clone(), agent.name.clone()));
                    }
                }
            }
        }
        Ok(Replay {
            events,
            untimed,
            names,
            skipped,
        })
    }

    /// The lines of the file that could not be read, each with its number and why.
    pub fn skipped(&self) -> &[String] {
        &self.skipped
    }

    /// When the run began and ended (Unix ms).
    pub fn span(&self) -> (i64, i64) {
        let first = self.events.first().map_or(0, |e| e.0);
        let last = self.events.last().map_or(first, |e| e.0);
        (first, last)
    }

    /// How many events the file has.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether it has none (never: a file without events is not read).
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Whether the file gave no times.
    pub fn untimed(&self) -> bool {
        self.untimed
    }

    /// How many events had been said by `now` (Unix ms).
    pub fn said_by(&self, now: i64) -> usize {
        self.events.iter().take_while(|e| e.0 <= now).count()
    }

    /// When the `n`th event (from 1) was said; the run's start for none.
    pub fn time_of(&self, n: usize) -> i64 {
        match n.checked_sub(1).and_then(|i| self.events.get(i)) {
            Some(e) => e.0,
            None => self.span().0,
        }
    }

    /// The run at `now` (Unix ms): everything said up to then.
    pub fn at(&self, now: i64) -> Moment {
        self.after(self.said_by(now), now)
    }

    /// The run after its first `count` events, its clock at `now` (Unix ms): stepping event by
    /// event shows events of the same millisecond one at a time.
    pub fn after(&self, count: usize, now: i64) -> Moment {
        let mut moment = Moment::default();
        let mut progress: Vec<(Option<String>, Option<Progress>)> = Vec::new();
        let mut notes: Vec<(Option<String>, String)> = Vec::new();
        for (_, said) in self.events.iter().take(count) {
            moment.said += 1;
            match said {
                Said::Phase { agent, progress: p } => {
                    match progress.iter_mut().find(|(a, _)| a == agent) {
                        Some(slot) => slot.1 = p.clone(),
                        None => progress.push((agent.clone(), p.clone())),
                    }
                }
                Said::Team(tree) => moment.tree = Some(tree.clone()),
                Said::Note(who, text) => notes.push((who.clone(), text.clone())),
                Said::Unshown => {}
            }
        }
        let name_of = |id: &str| {
            self.names
                .iter()
                .find(|(known, _)| known == id)
                .map_or_else(|| id.to_string(), |(_, name)| name.clone())
        };
        let keep = notes.len().saturating_sub(8);
        moment.log = notes
            .into_iter()
            .skip(keep)
            .map(|(who, text)| match who {
                Some(w) if w == MAIN => format!("{MAIN}: {text}"),
                Some(id) => format!("{}: {text}", name_of(&id)),
                None => text,
            })
            .collect();
        moment.lines = progress
            .iter()
            .map(|(agent, p)| {
                let who = agent.as_deref().map_or(MAIN.to_string(), name_of);
                (who, p.as_ref().map(|p| line(p, now)))
            })
            .collect();
        moment
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUN: &str = r#"{"at":1000,"type":"phase","progress":{"phase":"thinking","since":1000}}
{"at":1500,"type":"tool_start","tool":"team_add","what":"writer"}
{"at":1600,"type":"team","tree":{"min":0,"max":4,"size":2,"open_slots":2,"agents":[{"id":"lead","name":"lead","position":"main agent","parent":null,"state":"working","model":"m","mode":"edit","request":[],"manager":true,"progress":null,"findings":0,"messages":0},{"id":"s1","name":"writer","position":"writes","parent":"lead","state":"working","model":"m","mode":"edit","request":[],"manager":false,"progress":null,"findings":0,"messages":0}],"ended":[]}}
{"at":1700,"type":"phase","agent":"s1","progress":{"phase":"thinking","since":1700}}
{"at":1800,"type":"tool_start","agent":"s1","tool":"write","what":"notes.txt"}

{"at":9000,"type":"phase","agent":"s1","progress":null}
{"at":9100,"type":"done","reason":"stop"}
"#;

    #[test]
    fn a_run_at_each_moment() {
        let replay = Replay::read(RUN).unwrap();
        assert_eq!(replay.span(), (1000, 9100));
        assert_eq!(replay.len(), 7);
        assert!(!replay.untimed());
        let early = replay.at(1200);
        assert_eq!(early.tree, None);
        assert_eq!(early.lines.len(), 1);
        assert_eq!(early.lines[0].0, "main agent");
        assert!(early.lines[0].1.as_deref().unwrap().starts_with("Thinking"));
        let mid = replay.at(4700);
        assert_eq!(mid.tree.as_ref().map(|t| t.agents.len()), Some(2));
        // The subagent by its name, its line as the rules write it three seconds in.
        assert_eq!(mid.lines[1].0, "writer");
        assert!(
            mid.lines[1].1.as_deref().unwrap().contains("3s"),
            "{:?}",
            mid.lines
        );
        // Whose, by name once the tree names it.
        assert_eq!(
            mid.log,
            ["main agent: team_add writer", "writer: write notes.txt"]
        );
        let end = replay.at(9100);
        assert_eq!(end.lines[1].1, None);
        assert_eq!(
            end.log.last().map(String::as_str),
            Some("the run ended (stop)")
        );
        assert_eq!(end.said, 7);
    }

    #[test]
    fn a_subagent_is_named_from_its_first_line_and_events_of_one_millisecond_step_one_at_a_time() {
        let early = format!("{}\n{{\"at\":1100,\"type\":\"tool_start\",\"agent\":\"s1\",\"tool\":\"read\",\"what\":\"a\"}}\n{{\"at\":1100,\"type\":\"tool_end\",\"agent\":\"s1\",\"tool\":\"read\"}}", RUN.lines().next().unwrap());
        let rest: Vec<&str> = RUN.lines().skip(1).collect();
        let replay = Replay::read(&format!("{early}\n{}", rest.join("\n"))).unwrap();
        // Before the tree is said, s1 is already "writer".
        assert_eq!(replay.at(1100).log, ["writer: read a", "writer: read done"]);
        assert_eq!(replay.said_by(1100), 3);
        assert_eq!(replay.after(2, replay.time_of(2)).log, ["writer: read a"]);
        assert_eq!(replay.time_of(0), 1000);
    }

    #[test]
    fn a_line_that_is_not_an_event_is_skipped_and_named() {
        let cut = Replay::read(
            "{\"at\":1,\"type\":\"phase\",\"progress\":null}\n{\"at\": 2}\n{\"at\":3,\"type\":\"do",
        )
        .unwrap();
        assert_eq!(cut.len(), 1);
        assert_eq!(cut.skipped().len(), 2);
        assert_eq!(cut.skipped()[0], "line 2: not an event (it has no `type`)");
        assert!(
            cut.skipped()[1].starts_with("line 3, column "),
            "{:?}",
            cut.skipped()
        );
        assert!(
            cut.skipped()[1].contains("ends inside a string"),
            "{:?}",
            cut.skipped()
        );
        assert!(Replay::read("nope")
            .unwrap_err()
            .starts_with("line 1, column "));
        assert!(
            Replay::read("{\"type\":\"phase\",\"progress\":{\"phase\":\"bogus\"}}")
                .unwrap_err()
                .starts_with("line 1: progress")
        );
        assert!(Replay::read("\n").unwrap_err().starts_with("no events"));
        let untimed = Replay::read(
            "{\"type\":\"reply\",\"text\":\"a\"}\n{\"type\":\"done\",\"reason\":\"stop\"}",
        )
        .unwrap();
        assert!(untimed.untimed());
        assert_eq!(untimed.span(), (0, 1000));
    }
}
