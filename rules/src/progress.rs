//! Progress (progress.md, spec 3.4.0): the thirteen phases every client shows the same way.
//!
//! - §1 the object: [`Progress`] — `phase`, `since` (Unix ms) and the phase's data, read from JSON
//!   by [`Progress::from_json`] with every field checked;
//! - §2 its text: [`text`], from `loop.json` `progress.texts`;
//! - §3 the line: [`line()`] — the text and the time since it began (`5s`, `1m 05s`, `1h 02m`), or
//!   the text alone for `stopped` and `failed`; `retrying`'s `in` counted down, never below 0;
//! - "the same phase for the same thing" ([`same_phase`], [`advance`]) keeps `since`;
//! - §5 the pacing: [`Pacer`] — a new phase at once, a change of its data at most
//!   `pace_per_second` times a second, the last state always sent at the end of the window.
//!
//! Time is always an argument: nothing here reads a clock.

use crate::input::{InputError, Obj};
use crate::json::{Fields, Json, Keys, ToJson};
use crate::schema::{Field, Shape, Variant, Variants};
use crate::spec::loop_spec;
use crate::text::{fill, fill_args, fill_with, Arg};
use serde_json::Value;
use std::fmt;

/// Why a model cannot take the turn yet (`waiting_for_model.reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitReason {
    /// The server is busy with other requests.
    Busy,
    /// Every slot of the model is taken (a subagent waits for one).
    Slots,
    /// Another model of its one-model server group is loaded.
    Group,
}

words!(WaitReason { Busy => "busy", Slots => "slots", Group => "group" });

/// What the person is asked for (`waiting_for_person.what`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PersonWait {
    /// An approval of a call.
    Approval,
    /// An answer to a question.
    Question,
    /// A plan to accept.
    Plan,
}

words!(PersonWait { Approval => "approval", Question => "question", Plan => "plan" });

/// Why a turn stopped (`stopped.reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The person stopped it.
    Person,
    /// Its steps ran out.
    Steps,
    /// Its budget ran out.
    Budget,
}

words!(StopReason { Person => "person", Steps => "steps", Budget => "budget" });

/// A phase with its data (progress.md §2). A field that is not known is `None`, never a guess.
#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    /// The request waits in the server's queue.
    Queued {
        /// Requests ahead of it.
        ahead: Option<u64>,
    },
    /// The model cannot take the turn yet.
    WaitingForModel {
        /// The model.
        model: String,
        /// Why it waits.
        reason: WaitReason,
    },
    /// The server loads the model.
    LoadingModel {
        /// The model.
        model: String,
    },
    /// The model reads the prompt.
    ReadingPrompt {
        /// Tokens read so far.
        done: Option<u64>,
        /// Tokens in the prompt.
        total: Option<u64>,
    },
    /// The model reasons before it writes.
    Thinking,
    /// The model writes its reply.
    Writing {
        /// Tokens a second.
        rate: Option<f64>,
    },
    /// A tool runs.
    RunningTool {
        /// The tool.
        tool: String,
        /// What it is about, in a few words.
        what: Option<String>,
    },
    /// The person is asked.
    WaitingForPerson {
        /// What for.
        what: PersonWait,
        /// The tool whose call it is, for an approval.
        tool: Option<String>,
    },
    /// The main agent waits for its subagents.
    WaitingForSubagents {
        /// Subagents at work.
        running: u64,
    },
    /// The conversation is made shorter.
    Compacting,
    /// A request failed and is sent again.
    Retrying {
        /// Why it failed, in one line.
        reason: String,
        /// Seconds until it is sent again.
        in_secs: u64,
        /// Which retry it is.
        attempt: Option<u64>,
    },
    /// The turn stopped before its final reply.
    Stopped {
        /// Why.
        reason: Option<StopReason>,
    },
    /// The turn failed.
    Failed {
        /// Why, in one line.
        reason: String,
    },
}

/// A phase without its data: the thirteen names of progress.md §2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhaseKind {
    /// `queued`.
    Queued,
    /// `waiting_for_model`.
    WaitingForModel,
    /// `loading_model`.
    LoadingModel,
    /// `reading_prompt`.
    ReadingPrompt,
    /// `thinking`.
    Thinking,
    /// `writing`.
    Writing,
    /// `running_tool`.
    RunningTool,
    /// `waiting_for_person`.
    WaitingForPerson,
    /// `waiting_for_subagents`.
    WaitingForSubagents,
    /// `compacting`.
    Compacting,
    /// `retrying`.
    Retrying,
    /// `stopped`.
    Stopped,
    /// `failed`.
    Failed,
}

words!(PhaseKind {
    Queued => "queued",
    WaitingForModel => "waiting_for_model",
    LoadingModel => "loading_model",
    ReadingPrompt => "reading_prompt",
    Thinking => "thinking",
    Writing => "writing",
    RunningTool => "running_tool",
    WaitingForPerson => "waiting_for_person",
    WaitingForSubagents => "waiting_for_subagents",
    Compacting => "compacting",
    Retrying => "retrying",
    Stopped => "stopped",
    Failed => "failed",
});

impl PhaseKind {
    /// The thirteen, in the order a turn usually meets them (`loop.json` `progress.phases`).
    pub const ALL: [PhaseKind; 13] = [
        PhaseKind::Queued,
        PhaseKind::WaitingForModel,
        PhaseKind::LoadingModel,
        PhaseKind::ReadingPrompt,
        PhaseKind::Thinking,
        PhaseKind::Writing,
        PhaseKind::RunningTool,
        PhaseKind::WaitingForPerson,
        PhaseKind::WaitingForSubagents,
        PhaseKind::Compacting,
        PhaseKind::Retrying,
        PhaseKind::Stopped,
        PhaseKind::Failed,
    ];

    /// The data fields a phase of this kind may carry (progress.md §2).
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            PhaseKind::Queued => &["ahead"],
            PhaseKind::WaitingForModel => &["model", "reason"],
            PhaseKind::LoadingModel => &["model"],
            PhaseKind::ReadingPrompt => &["done", "total"],
            PhaseKind::Thinking | PhaseKind::Compacting => &[],
            PhaseKind::Writing => &["rate"],
            PhaseKind::RunningTool => &["tool", "what"],
            PhaseKind::WaitingForPerson => &["what", "tool"],
            PhaseKind::WaitingForSubagents => &["running"],
            PhaseKind::Retrying => &["reason", "in", "attempt"],
            PhaseKind::Stopped | PhaseKind::Failed => &["reason"],
        }
    }
}

impl Phase {
    /// The phase's kind.
    pub fn kind(&self) -> PhaseKind {
        match self {
            Phase::Queued { .. } => PhaseKind::Queued,
            Phase::WaitingForModel { .. } => PhaseKind::WaitingForModel,
            Phase::LoadingModel { .. } => PhaseKind::LoadingModel,
            Phase::ReadingPrompt { .. } => PhaseKind::ReadingPrompt,
            Phase::Thinking => PhaseKind::Thinking,
            Phase::Writing { .. } => PhaseKind::Writing,
            Phase::RunningTool { .. } => PhaseKind::RunningTool,
            Phase::WaitingForPerson { .. } => PhaseKind::WaitingForPerson,
            Phase::WaitingForSubagents { .. } => PhaseKind::WaitingForSubagents,
            Phase::Compacting => PhaseKind::Compacting,
            Phase::Retrying { .. } => PhaseKind::Retrying,
            Phase::Stopped { .. } => PhaseKind::Stopped,
            Phase::Failed { .. } => PhaseKind::Failed,
        }
    }

    /// The phase's name (`running_tool`).
    pub fn name(&self) -> &'static str {
        self.kind().as_str()
    }

    /// Reads the phase's data from `o` (its `phase` field names it).
    fn from_obj(o: &Obj<'_>) -> Result<Phase, InputError> {
        let name = o.str("phase")?;
        let kind = PhaseKind::parse(name).ok_or_else(|| InputError::Unknown {
            path: o.at("phase"),
            what: "phase",
            value: name.to_string(),
        })?;
        let mut allowed: Vec<&str> = vec!["phase", "since"];
        allowed.extend_from_slice(kind.fields());
        o.only(&allowed)?;
        Ok(match kind {
            PhaseKind::Queued => Phase::Queued {
                ahead: o.opt_count("ahead")?,
            },
            PhaseKind::WaitingForModel => Phase::WaitingForModel {
                model: o.str("model")?.to_string(),
                reason: o.word("reason", "reason", WaitReason::parse)?,
            },
            PhaseKind::LoadingModel => Phase::LoadingModel {
                model: o.str("model")?.to_string(),
            },
            PhaseKind::ReadingPrompt => Phase::ReadingPrompt {
                done: o.opt_count("done")?,
                total: o.opt_count("total")?,
            },
            PhaseKind::Thinking => Phase::Thinking,
            PhaseKind::Writing => Phase::Writing {
                rate: o.opt_number("rate")?,
            },
            PhaseKind::RunningTool => Phase::RunningTool {
                tool: o.str("tool")?.to_string(),
                what: o.opt_str("what")?.map(str::to_string),
            },
            PhaseKind::WaitingForPerson => Phase::WaitingForPerson {
                what: o.word("what", "request", PersonWait::parse)?,
                tool: o.opt_str("tool")?.map(str::to_string),
            },
            PhaseKind::WaitingForSubagents => Phase::WaitingForSubagents {
                running: o.count("running")?,
            },
            PhaseKind::Compacting => Phase::Compacting,
            PhaseKind::Retrying => Phase::Retrying {
                reason: o.str("reason")?.to_string(),
                in_secs: o.count("in")?,
                attempt: o.opt_count("attempt")?,
            },
            PhaseKind::Stopped => Phase::Stopped {
                reason: o.opt_word("reason", "reason", StopReason::parse)?,
            },
            PhaseKind::Failed => Phase::Failed {
                reason: o.str("reason")?.to_string(),
            },
        })
    }
}

/// The progress object (progress.md §1): a phase, when it began, and its data.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Written flat: `{ phase, since, …its data }`.
    pub phase: Phase,
    /// When this phase began, Unix time in milliseconds.
    pub since: i64,
}

impl Progress {
    /// A phase begun at `since` (Unix ms).
    pub fn new(phase: Phase, since: i64) -> Progress {
        Progress { phase, since }
    }

    /// Reads a progress object, naming the field that is wrong (`progress.since: expected an
    /// integer`, `progress.phase: unknown phase "sleeping"`). `path` is the object's own name.
    pub fn from_json(path: &str, value: &Value) -> Result<Progress, InputError> {
        let o = Obj::new(path, value)?;
        let phase = Phase::from_obj(&o)?;
        Ok(Progress {
            phase,
            since: o.int("since")?,
        })
    }
}

impl Progress {
    /// The progress object's shape (progress.md §1–§2): `phase` picks the fields, each of the type
    /// `loop.json` `progress.fields` gives it (`int` a count, `number`, `string`, `a|b` one of
    /// the words; `?` optional), and `since`.
    pub fn shape() -> Shape {
        let spec = &loop_spec().progress;
        let variants = PhaseKind::ALL
            .into_iter()
            .map(|kind| {
                let types = spec.fields.get(kind.as_str());
                let fields = kind
                    .fields()
                    .iter()
                    .map(|name| {
                        let written = types.and_then(|t| t.get(name)).map_or("", |t| t.as_ref());
                        phase_field(name, written)
                    })
                    .collect();
                Variant {
                    word: kind.as_str().to_string(),
                    doc: format!("Shown as “{}”.", phase_text(kind)),
                    fields,
                }
            })
            .collect();
        Shape::Variants(Variants {
            key: "phase".into(),
            key_doc: "The phase (progress.md §2): one of the thirteen.".into(),
            default: None,
            common: vec![Field::required(
                "since",
                Shape::Integer,
                "When the phase began, Unix time in milliseconds.",
            )],
            variants,
        })
    }
}

/// A phase's field as `loop.json` types it (`int?`, `busy|slots|group`).
fn phase_field(name: &str, written: &str) -> Field {
    let (kind, optional) = match written.strip_suffix('?') {
        Some(kind) => (kind, true),
        None => (written, false),
    };
    let shape = match kind {
        "int" => Shape::Count,
        "number" => Shape::Number,
        "string" => Shape::Text,
        words => Shape::Word {
            what: "word",
            words: words.split('|').map(str::to_string).collect(),
        },
    };
    let doc = format!("progress.md §2: `{name}`, {written}.");
    if optional {
        Field::optional(name, shape, &doc)
    } else {
        Field::required(name, shape, &doc)
    }
}

/// A phase's text in the spec's words, its fields as `{{placeholders}}`.
fn phase_text(kind: PhaseKind) -> &'static str {
    let texts = &loop_spec().progress.texts;
    match kind {
        PhaseKind::Queued => &texts.queued,
        PhaseKind::WaitingForModel => &texts.waiting_for_model,
        PhaseKind::LoadingModel => &texts.loading_model,
        PhaseKind::ReadingPrompt => &texts.reading_prompt,
        PhaseKind::Thinking => &texts.thinking,
        PhaseKind::Writing => &texts.writing,
        PhaseKind::RunningTool => &texts.running_tool,
        PhaseKind::WaitingForPerson => &texts.waiting_for_person,
        PhaseKind::WaitingForSubagents => &texts.waiting_for_subagents,
        PhaseKind::Compacting => &texts.compacting,
        PhaseKind::Retrying => &texts.retrying,
        PhaseKind::Stopped => &texts.stopped,
        PhaseKind::Failed => &texts.failed,
    }
}

impl Phase {
    /// `phase: name, …its data` added to an object, data that is not there left out
    /// (`retrying`'s `in_secs` is `in`): the phase's object, and a progress object's.
    fn members<'a, J: Json>(&self, o: Fields<'a, J>) -> Fields<'a, J> {
        let o = o.with("phase", self.name());
        match self {
            Phase::Queued { ahead } => o.with_some("ahead", ahead),
            Phase::WaitingForModel { model, reason } => {
                o.with("model", model).with("reason", *reason)
            }
            Phase::LoadingModel { model } => o.with("model", model),
            Phase::ReadingPrompt { done, total } => {
                o.with_some("done", done).with_some("total", total)
            }
            Phase::Thinking | Phase::Compacting => o,
            Phase::Writing { rate } => o.with_some("rate", rate),
            Phase::RunningTool { tool, what } => o.with("tool", tool).with_some("what", what),
            Phase::WaitingForPerson { what, tool } => o.with("what", *what).with_some("tool", tool),
            Phase::WaitingForSubagents { running } => o.with("running", *running),
            Phase::Retrying {
                reason,
                in_secs,
                attempt,
            } => o
                .with("reason", reason)
                .with("in", *in_secs)
                .with_some("attempt", attempt),
            Phase::Stopped { reason } => o.with_some("reason", reason),
            Phase::Failed { reason } => o.with("reason", reason),
        }
    }
}

impl ToJson for Phase {
    /// `{ phase: name, …its data }`.
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        self.members(Fields::of(out, keys)).done();
    }
}

impl ToJson for Progress {
    /// The phase's object with `since`.
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        self.phase
            .members(Fields::of(out, keys))
            .with("since", self.since)
            .done();
    }
}

/// A rate with one decimal, as JavaScript's `toFixed(1)` writes it (a tie rounds away from zero;
/// from 10^21 up, the number's shortest digits with an exponent, `1e+21`).
pub fn one_decimal(x: f64) -> String {
    OneDecimal(x).to_string()
}

struct OneDecimal(f64);

impl fmt::Display for OneDecimal {
    /// `n / 10` for the integer `n` nearest to ten times the exact value of `x`, the larger on a
    /// tie: `toFixed(1)`. Worked out in integers from the float's bits, so no float formatting
    /// (about 12 KB of the `.wasm`) is compiled in.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        if x.is_nan() {
            return f.write_str("NaN");
        }
        // `-0` is not below 0, so toFixed writes it `0.0`.
        let sign = if x < 0.0 { "-" } else { "" };
        if x.is_infinite() {
            return write!(f, "{sign}inf");
        }
        if x.abs() >= 1e21 {
            // toFixed gives such a number as its ToString: ryu's shortest digits, with the
            // exponent's sign written (`1.5e21` → `1.5e+21`).
            let mut digits = ryu::Buffer::new();
            return match digits.format_finite(x).split_once('e') {
                Some((mantissa, exponent)) => write!(f, "{mantissa}e+{exponent}"),
                None => f.write_str(digits.format_finite(x)),
            };
        }
        // |x| = m · 2^e exactly.
        let bits = x.to_bits();
        let (exp, frac) = (((bits >> 52) & 0x7ff) as i32, bits & ((1u64 << 52) - 1));
        let (m, e) = match exp {
            0 => (frac, -1074),
            _ => (frac | (1 << 52), exp - 1075),
        };
        if e >= 0 {
            // A whole number: its digits, and no tenths.
            return write!(f, "{sign}{}.0", Whole(m, e.unsigned_abs()));
        }
        // n = floor(10|x| + 1/2) = (20m + 2^s) >> (s + 1), s = -e; below 2^-60 · 2^53, n is 0.
        let s = e.unsigned_abs();
        let n = if s >= 60 {
            0
        } else {
            ((m * 20) + (1u64 << s)) >> (s + 1)
        };
        write!(f, "{sign}{}.{}", n / 10, n % 10)
    }
}

/// The whole number `m · 2^e` (m < 2^53), in decimal.
struct Whole(u64, u32);

impl fmt::Display for Whole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Whole(m, e) = *self;
        // Base 10^9 digits, least significant first, doubled e times.
        const BASE: u64 = 1_000_000_000;
        let mut limbs = vec![m % BASE, (m / BASE) % BASE, m / BASE / BASE];
        for _ in 0..e {
            let mut carry = 0;
            for limb in limbs.iter_mut() {
                let v = *limb * 2 + carry;
                *limb = v % BASE;
                carry = v / BASE;
            }
            if carry > 0 {
                limbs.push(carry);
            }
        }
        while limbs.len() > 1 && limbs.last() == Some(&0) {
            limbs.pop();
        }
        let mut rest = limbs.iter().rev();
        if let Some(first) = rest.next() {
            write!(f, "{first}")?;
        }
        rest.try_for_each(|limb| write!(f, "{limb:09}"))
    }
}

struct Pad2(i64);

impl fmt::Display for Pad2 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}", self.0)
    }
}

/// A duration in whole seconds, as a ticking clock writes it (`5s`, `1m 05s`, `1h 02m`).
struct Clock(i64);

impl fmt::Display for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_clock(f, self.0)
    }
}

fn write_clock<W: fmt::Write>(f: &mut W, secs: i64) -> fmt::Result {
    let e = &loop_spec().progress.elapsed;
    let secs = secs.max(0);
    if secs < 60 {
        fill_args(f, &e.seconds, &[("s", Arg::Int(secs))]);
    } else if secs < 3600 {
        let ss = Pad2(secs % 60);
        fill_args(
            f,
            &e.minutes,
            &[("m", Arg::Int(secs / 60)), ("ss", Arg::Show(&ss))],
        );
    } else {
        let mm = Pad2((secs % 3600) / 60);
        fill_args(
            f,
            &e.hours,
            &[("h", Arg::Int(secs / 3600)), ("mm", Arg::Show(&mm))],
        );
    }
    Ok(())
}

/// The elapsed time between `since` and `now` as progress.md §3 writes it: `5s`, `1m 05s`,
/// `1h 02m` (whole seconds; a clock behind `since` reads 0s).
pub fn elapsed(since: i64, now: i64) -> String {
    Clock(now.saturating_sub(since).max(0) / 1000).to_string()
}

/// A duration in whole seconds, written as a ticking clock writes it.
pub fn duration(secs: i64) -> String {
    Clock(secs).to_string()
}

/// Writes the phase's text into `f`.
fn write_text<W: fmt::Write>(f: &mut W, p: &Progress, now: i64) -> fmt::Result {
    let spec = &loop_spec().progress;
    let t = &spec.texts;
    match &p.phase {
        Phase::Queued { ahead: None } => f.write_str(&t.queued)?,
        Phase::Queued { ahead: Some(n) } => {
            fill_args(f, &t.queued_ahead, &[("ahead", Arg::Count(*n))])
        }
        Phase::WaitingForModel { model, reason } => {
            let words = match reason {
                WaitReason::Busy => &spec.reason.busy,
                WaitReason::Slots => &spec.reason.slots,
                WaitReason::Group => &spec.reason.group,
            };
            fill_args(
                f,
                &t.waiting_for_model,
                &[("model", Arg::Str(model)), ("reason", Arg::Str(words))],
            );
        }
        Phase::LoadingModel { model } => {
            fill_args(f, &t.loading_model, &[("model", Arg::Str(model))])
        }
        Phase::ReadingPrompt {
            done: Some(done),
            total: Some(total),
        } if *total > 0 => {
            let percent = crate::text::whole_percent(*done, *total);
            fill_args(
                f,
                &t.reading_prompt,
                &[
                    ("done", Arg::Count(*done)),
                    ("total", Arg::Count(*total)),
                    ("percent", Arg::Count(percent)),
                ],
            );
        }
        Phase::ReadingPrompt { .. } => f.write_str(&t.reading_prompt_bare)?,
        Phase::Thinking => f.write_str(&t.thinking)?,
        Phase::Writing { rate: Some(rate) } if rate.is_finite() => {
            fill_args(f, &t.writing, &[("rate", Arg::Show(&OneDecimal(*rate)))]);
        }
        Phase::Writing { .. } => f.write_str(&t.writing_bare)?,
        Phase::RunningTool {
            tool,
            what: Some(what),
        } if !what.is_empty() => {
            fill_args(
                f,
                &t.running_tool,
                &[("tool", Arg::Str(tool)), ("what", Arg::Str(what))],
            );
        }
        Phase::RunningTool { tool, .. } => {
            fill_args(f, &t.running_tool_bare, &[("tool", Arg::Str(tool))])
        }
        Phase::WaitingForPerson { what, tool } => {
            let w = &spec.what;
            match (what, tool.as_deref()) {
                (PersonWait::Approval, Some(tool)) if !tool.is_empty() => {
                    let words = fill(&w.approval, &[("tool", tool)]);
                    fill_args(f, &t.waiting_for_person, &[("what", Arg::Str(&words))]);
                }
                (what, _) => {
                    let words = match what {
                        PersonWait::Approval => &w.approval_bare,
                        PersonWait::Question => &w.question,
                        PersonWait::Plan => &w.plan,
                    };
                    fill_args(f, &t.waiting_for_person, &[("what", Arg::Str(words))]);
                }
            }
        }
        Phase::WaitingForSubagents { running } => {
            fill_args(
                f,
                &t.waiting_for_subagents,
                &[("running", Arg::Count(*running))],
            );
        }
        Phase::Compacting => f.write_str(&t.compacting)?,
        Phase::Retrying {
            reason, in_secs, ..
        } => {
            let left = seconds_left(*in_secs, p.since, now);
            fill_args(
                f,
                &t.retrying,
                &[("in", Arg::Count(left)), ("reason", Arg::Str(reason))],
            );
        }
        Phase::Stopped { reason: None } => f.write_str(&t.stopped)?,
        Phase::Stopped { reason: Some(r) } => {
            let s = &spec.stopped_reason;
            let words = match r {
                StopReason::Person => &s.person,
                StopReason::Steps => &s.steps,
                StopReason::Budget => &s.budget,
            };
            fill_args(f, &t.stopped_reason, &[("reason", Arg::Str(words))]);
        }
        Phase::Failed { reason } => fill_args(f, &t.failed, &[("reason", Arg::Str(reason))]),
    }
    Ok(())
}

/// What is left of retrying's `in` at `now`: `in − floor((now − since) / 1000)`, never below 0
/// (progress.md §3; the progress cases' `about`). A clock behind `since` counts up, as the formula
/// says: `in` 5 at 1.5 s before `since` is 7.
fn seconds_left(in_secs: u64, since: i64, now: i64) -> u64 {
    let gone = now.saturating_sub(since).div_euclid(1000);
    if gone < 0 {
        in_secs.saturating_add(gone.unsigned_abs())
    } else {
        in_secs.saturating_sub(gone.unsigned_abs())
    }
}

/// The phase's text (progress.md §2), its fields filled; `now` counts retrying's `in` down.
pub fn text(p: &Progress, now: i64) -> String {
    let mut out = String::with_capacity(48);
    let _ = write_text(&mut out, p, now);
    out
}

/// The line every client draws (progress.md §3): `{{text}} · {{elapsed}}`, or the text alone for
/// the phases of `no_elapsed` (stopped and failed).
pub fn line(p: &Progress, now: i64) -> String {
    let spec = &loop_spec().progress;
    let mut out = String::with_capacity(64);
    if spec.no_elapsed.iter().any(|n| n == p.phase.name()) {
        let _ = write_text(&mut out, p, now);
        return out;
    }
    let secs = now.saturating_sub(p.since).max(0) / 1000;
    fill_with(&mut out, &spec.line, |key, out| match key {
        "text" => write_text(out, p, now).is_ok(),
        "elapsed" => write_clock(out, secs).is_ok(),
        _ => false,
    });
    out
}

/// A call's short title as `what`: its first line, trimmed, at most `what_max` characters (a
/// longer one is cut and ends with …). None when nothing is left.
pub fn short_what(s: &str) -> Option<String> {
    let max = loop_spec().progress.what_max;
    let first = s.lines().next().unwrap_or("").trim();
    if first.is_empty() {
        return None;
    }
    if first.chars().count() <= max {
        return Some(first.to_string());
    }
    let mut cut: String = first.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    Some(cut)
}

/// Whether `next` is the same phase as `prev` for the same thing (progress.md §1): the same tool
/// call, the same model, the same question — so `since` is kept. A change of data only (tokens
/// read, the rate, subagents running) is the same phase.
pub fn same_phase(prev: &Phase, next: &Phase) -> bool {
    match (prev, next) {
        (Phase::RunningTool { tool: a, what: wa }, Phase::RunningTool { tool: b, what: wb }) => {
            a == b && wa == wb
        }
        (
            Phase::WaitingForModel {
                model: a,
                reason: ra,
            },
            Phase::WaitingForModel {
                model: b,
                reason: rb,
            },
        ) => a == b && ra == rb,
        (Phase::LoadingModel { model: a }, Phase::LoadingModel { model: b }) => a == b,
        (
            Phase::WaitingForPerson { what: a, tool: ta },
            Phase::WaitingForPerson { what: b, tool: tb },
        ) => a == b && ta == tb,
        (
            Phase::Retrying {
                reason: a,
                attempt: xa,
                ..
            },
            Phase::Retrying {
                reason: b,
                attempt: xb,
                ..
            },
        ) => a == b && xa == xb,
        (Phase::Stopped { reason: a }, Phase::Stopped { reason: b }) => a == b,
        (Phase::Failed { reason: a }, Phase::Failed { reason: b }) => a == b,
        (a, b) => a.name() == b.name(),
    }
}

/// The progress after `prev` when the agent is now in `next`: `since` kept for the same phase for
/// the same thing, `now` otherwise.
pub fn advance(prev: Option<&Progress>, next: Phase, now: i64) -> Progress {
    match prev {
        Some(p) if same_phase(&p.phase, &next) => Progress::new(next, p.since),
        _ => Progress::new(next, now),
    }
}

/// What a [`Pacer`] says to do with a progress state.
#[derive(Debug, Clone, PartialEq)]
pub enum Paced {
    /// Send this now (None: nothing runs — the `null` progress).
    Send {
        /// What to send.
        progress: Option<Progress>,
    },
    /// Held: it goes out at `due` (call [`Pacer::poll`] then), unless something newer replaces it.
    Later {
        /// When it goes out (Unix ms).
        due: i64,
    },
    /// Nothing to send: it is what was sent last.
    Unchanged,
}

impl ToJson for Paced {
    /// Tagged by `do`: `{ do: "send", progress }`, `{ do: "later", due }`, `{ do: "unchanged" }`.
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        match self {
            Paced::Send { progress } => Fields::of(out, keys)
                .with("do", "send")
                .with("progress", progress),
            Paced::Later { due } => Fields::of(out, keys).with("do", "later").with("due", *due),
            Paced::Unchanged => Fields::of(out, keys).with("do", "unchanged"),
        }
        .done()
    }
}

serialize_as_json!(Phase, Progress, Paced);

/// Paces progress as progress.md §5 says: a new phase at once; a change of its data at most
/// `pace_per_second` times a second; the last state always sent at the end of the window.
#[derive(Debug, Clone, PartialEq)]
pub struct Pacer {
    gap_ms: i64,
    /// When the last send was, and what it sent.
    sent: Option<(i64, Option<Progress>)>,
    /// What waits for the end of the window.
    pending: Pending,
}

/// What a pacer holds back until its window ends.
#[derive(Debug, Clone, PartialEq)]
enum Pending {
    /// Nothing: the last state pushed was sent, or was the same as the one sent.
    Nothing,
    /// A state to send when the window ends (`None`: no progress line).
    Held(Option<Progress>),
}

impl Pending {
    /// The held state, leaving nothing held.
    fn take(&mut self) -> Option<Option<Progress>> {
        match std::mem::replace(self, Pending::Nothing) {
            Pending::Nothing => None,
            Pending::Held(progress) => Some(progress),
        }
    }
}

impl Default for Pacer {
    fn default() -> Self {
        Pacer::new()
    }
}

impl Pacer {
    /// A pacer that has sent nothing yet.
    pub fn new() -> Pacer {
        let per_second = i64::from(loop_spec().progress.pace_per_second.max(1));
        Pacer {
            gap_ms: 1000 / per_second,
            sent: None,
            pending: Pending::Nothing,
        }
    }

    /// The shortest time between two sends of the same phase, in ms (250).
    pub fn gap_ms(&self) -> i64 {
        self.gap_ms
    }

    /// When the held state is due, if one is held.
    pub fn due(&self) -> Option<i64> {
        match (&self.pending, &self.sent) {
            (Pending::Held(_), Some((at, _))) => Some(at.saturating_add(self.gap_ms)),
            _ => None,
        }
    }

    fn send(&mut self, progress: Option<Progress>, now: i64) -> Paced {
        self.pending = Pending::Nothing;
        self.sent = Some((now, progress.clone()));
        Paced::Send { progress }
    }

    /// A new state at `now`: what to do with it.
    pub fn push(&mut self, progress: Option<Progress>, now: i64) -> Paced {
        let Some((at, last)) = &self.sent else {
            return self.send(progress, now);
        };
        if *last == progress {
            self.pending = Pending::Nothing;
            return Paced::Unchanged;
        }
        let same = match (last, &progress) {
            (Some(a), Some(b)) => same_phase(&a.phase, &b.phase) && a.since == b.since,
            _ => false,
        };
        let due = at.saturating_add(self.gap_ms);
        if !same || now >= due {
            return self.send(progress, now);
        }
        self.pending = Pending::Held(progress);
        Paced::Later { due }
    }

    /// The held state, once its window has ended.
    pub fn poll(&mut self, now: i64) -> Option<Paced> {
        match self.due() {
            Some(due) if now >= due => self.pending.take().map(|p| self.send(p, now)),
            _ => None,
        }
    }

    /// The held state now, whatever the window (the end of a turn).
    pub fn flush(&mut self, now: i64) -> Option<Paced> {
        self.pending.take().map(|p| self.send(p, now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn p(v: Value) -> Progress {
        Progress::from_json("progress", &v).unwrap()
    }

    #[test]
    fn the_phases_and_their_fields_are_the_spec_data() {
        let spec = &loop_spec().progress;
        assert!(spec
            .phases
            .iter()
            .map(|p| p.as_ref())
            .eq(PhaseKind::ALL.map(PhaseKind::as_str)));
        for kind in PhaseKind::ALL {
            let name = kind.as_str();
            let mut ours: Vec<&str> = kind.fields().to_vec();
            let mut theirs: Vec<&str> = spec.fields.get(name).unwrap().keys().collect();
            ours.sort_unstable();
            theirs.sort_unstable();
            assert_eq!(ours, theirs, "{name}");
        }
    }

    #[test]
    fn texts_fill_their_fields() {
        let now = 1_762_790_400_000;
        let cases = [
            (
                json!({"phase":"queued","since":now,"ahead":2}),
                "Queued: 2 ahead",
            ),
            (
                json!({"phase":"reading_prompt","since":now,"done":90000,"total":140000}),
                "Reading the prompt: 90000 / 140000 tokens (64%)",
            ),
            (
                json!({"phase":"reading_prompt","since":now,"total":140000}),
                "Reading the prompt",
            ),
            (
                json!({"phase":"reading_prompt","since":now,"done":0,"total":0}),
                "Reading the prompt",
            ),
            (
                json!({"phase":"writing","since":now,"rate":12.25}),
                "Writing: 12.3 tok/s",
            ),
            (
                json!({"phase":"writing","since":now,"rate":12}),
                "Writing: 12.0 tok/s",
            ),
            (
                json!({"phase":"waiting_for_model","since":now,"model":"m","reason":"group"}),
                "Waiting for m: its server holds another model now",
            ),
            (
                json!({"phase":"stopped","since":now,"reason":"steps"}),
                "Stopped: step limit",
            ),
            (
                json!({"phase":"stopped","since":now,"reason":"budget"}),
                "Stopped: budget",
            ),
            (
                json!({"phase":"running_tool","since":now,"tool":"read","what":""}),
                "Running read",
            ),
        ];
        for (v, want) in cases {
            assert_eq!(text(&p(v), now), want);
        }
    }

    #[test]
    fn retrying_counts_down_never_below_zero() {
        let pr = p(json!({"phase":"retrying","since":0,"reason":"502","in":2}));
        assert_eq!(text(&pr, 1999), "Retrying in 1 s: 502");
        assert_eq!(text(&pr, 60_000), "Retrying in 0 s: 502");
        // A clock behind `since`: in − floor((now − since) / 1000) counts up.
        assert_eq!(text(&pr, -5000), "Retrying in 7 s: 502");
        assert_eq!(text(&pr, -1), "Retrying in 3 s: 502");
        assert_eq!(text(&pr, 1000), "Retrying in 1 s: 502");
    }

    #[test]
    fn one_decimal_rounds_ties_away_from_zero() {
        assert_eq!(one_decimal(0.25), "0.3");
        assert_eq!(one_decimal(0.75), "0.8");
        assert_eq!(one_decimal(-0.25), "-0.3");
        assert_eq!(one_decimal(0.05), "0.1");
        assert_eq!(one_decimal(33.333), "33.3");
        assert_eq!(one_decimal(0.0), "0.0");
        assert_eq!(one_decimal(0.35), "0.3", "0.35 is 0.34999… in binary");
        // From 10^21 up, toFixed writes the number's ToString (node's answers).
        assert_eq!(one_decimal(1e300), "1e+300");
        assert_eq!(one_decimal(1e21), "1e+21");
        assert_eq!(one_decimal(-1.5e21), "-1.5e+21");
        assert_eq!(one_decimal(f64::MAX), "1.7976931348623157e+308");
        assert_eq!(
            one_decimal(999_999_999_999_999_900_000.0),
            "999999999999999868928.0"
        );
        assert_eq!(one_decimal(-0.0), "0.0");
        assert_eq!(
            one_decimal(-0.01),
            "-0.0",
            "below zero, toFixed keeps the sign"
        );
        assert_eq!(one_decimal(f64::MIN_POSITIVE), "0.0");
        assert_eq!(one_decimal(f64::NAN), "NaN");
        assert_eq!(one_decimal(f64::NEG_INFINITY), "-inf");
    }

    proptest::proptest! {
        /// Off exact ties (where `toFixed` rounds up and Rust to even), the same as Rust's own
        /// exact formatting, for any float below 10^21 but -0 (which toFixed writes `0.0`).
        #[test]
        fn one_decimal_is_the_exact_rounding(bits in proptest::prelude::any::<u64>(), small in -1e7f64..1e7) {
            for x in [f64::from_bits(bits), small, (small * 10.0).round() / 10.0 + 0.05] {
                let plain = x.abs() < 1e21 && !(x == 0.0 && x.is_sign_negative());
                if plain && ((x * 4.0).fract() != 0.0 || (x * 4.0) as i64 % 2 == 0) {
                    proptest::prop_assert_eq!(one_decimal(x), format!("{x:.1}"));
                }
            }
        }
    }

    #[test]
    fn every_phase_written_reads_back_the_same() {
        use crate::json::ToJson;
        let phases = [
            Phase::Queued { ahead: Some(2) },
            Phase::Queued { ahead: None },
            Phase::WaitingForModel {
                model: "m".into(),
                reason: WaitReason::Slots,
            },
            Phase::LoadingModel { model: "m".into() },
            Phase::ReadingPrompt {
                done: Some(1),
                total: Some(9),
            },
            Phase::Thinking,
            Phase::Writing { rate: Some(12.5) },
            Phase::RunningTool {
                tool: "bash".into(),
                what: Some("ls".into()),
            },
            Phase::WaitingForPerson {
                what: PersonWait::Approval,
                tool: None,
            },
            Phase::WaitingForSubagents { running: 3 },
            Phase::Compacting,
            Phase::Retrying {
                reason: "502".into(),
                in_secs: 4,
                attempt: Some(2),
            },
            Phase::Stopped {
                reason: Some(StopReason::Budget),
            },
            Phase::Failed {
                reason: "cut".into(),
            },
        ];
        for phase in phases {
            let p = Progress::new(phase, 7);
            let written = p.to_json();
            assert_eq!(written["phase"], p.phase.name());
            assert_eq!(Progress::from_json("p", &written).unwrap(), p, "{written}");
            assert_eq!(serde_json::to_value(&p).unwrap(), written);
        }
    }

    #[test]
    fn bad_objects_name_the_field() {
        let err = |v: Value| Progress::from_json("progress", &v).unwrap_err().to_string();
        assert_eq!(
            err(json!({"phase":"sleeping","since":0})),
            "progress.phase: unknown phase \"sleeping\""
        );
        assert_eq!(
            err(json!({"phase":"queued","since":"x"})),
            "progress.since: expected an integer"
        );
        assert_eq!(err(json!({"phase":"queued"})), "progress.since: missing");
        assert_eq!(
            err(json!({"phase":"loading_model","since":0})),
            "progress.model: missing"
        );
        assert_eq!(
            err(json!({"phase":"queued","since":0,"ahead":-1})),
            "progress.ahead: -1 is below 0"
        );
        assert_eq!(
            err(json!({"phase":"thinking","since":0,"tool":"x"})),
            "progress.tool: not a field here"
        );
        assert_eq!(
            err(json!({"phase":"waiting_for_model","since":0,"model":"m","reason":"late"})),
            "progress.reason: unknown reason \"late\""
        );
        assert_eq!(err(json!("queued")), "progress: expected an object");
    }

    #[test]
    fn the_object_round_trips() {
        let v = json!({"phase":"retrying","since":5,"reason":"x","in":3,"attempt":2});
        assert_eq!(p(v.clone()).to_json(), v);
        let v = json!({"phase":"thinking","since":5});
        assert_eq!(p(v.clone()).to_json(), v);
    }

    #[test]
    fn short_what_is_one_line_of_at_most_80_characters() {
        assert_eq!(short_what("  bun test\nmore").as_deref(), Some("bun test"));
        assert_eq!(short_what("\n"), None);
        let long = "é".repeat(100);
        let cut = short_what(&long).unwrap();
        assert_eq!(cut.chars().count(), 80);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn advance_keeps_since_for_the_same_thing() {
        let a = Progress::new(
            Phase::RunningTool {
                tool: "bash".into(),
                what: Some("ls".into()),
            },
            10,
        );
        let same = advance(
            Some(&a),
            Phase::RunningTool {
                tool: "bash".into(),
                what: Some("ls".into()),
            },
            99,
        );
        assert_eq!(same.since, 10);
        let other = advance(
            Some(&a),
            Phase::RunningTool {
                tool: "bash".into(),
                what: Some("pwd".into()),
            },
            99,
        );
        assert_eq!(other.since, 99);
        let r = Progress::new(
            Phase::ReadingPrompt {
                done: Some(1),
                total: Some(9),
            },
            10,
        );
        assert_eq!(
            advance(
                Some(&r),
                Phase::ReadingPrompt {
                    done: Some(5),
                    total: Some(9)
                },
                99
            )
            .since,
            10
        );
        assert_eq!(advance(None, Phase::Thinking, 99).since, 99);
    }

    #[test]
    fn the_pacer_sends_a_new_phase_at_once_and_data_at_most_four_times_a_second() {
        let mut pacer = Pacer::new();
        let reading = |done| {
            Some(Progress::new(
                Phase::ReadingPrompt {
                    done: Some(done),
                    total: Some(100),
                },
                0,
            ))
        };
        assert!(matches!(pacer.push(reading(1), 0), Paced::Send { .. }));
        assert_eq!(pacer.push(reading(1), 10), Paced::Unchanged);
        assert_eq!(pacer.push(reading(2), 100), Paced::Later { due: 250 });
        assert_eq!(pacer.push(reading(3), 200), Paced::Later { due: 250 });
        assert_eq!(pacer.poll(249), None);
        assert_eq!(
            pacer.poll(250),
            Some(Paced::Send {
                progress: reading(3)
            })
        );
        assert_eq!(pacer.poll(900), None);
        // A new phase goes at once, whatever the window.
        assert_eq!(pacer.push(reading(4), 300), Paced::Later { due: 500 });
        let thinking = Some(Progress::new(Phase::Thinking, 310));
        assert_eq!(
            pacer.push(thinking.clone(), 310),
            Paced::Send { progress: thinking }
        );
        assert_eq!(pacer.due(), None);
        assert_eq!(pacer.push(None, 320), Paced::Send { progress: None });
        assert_eq!(
            pacer.push(reading(9), 330),
            Paced::Send {
                progress: reading(9)
            }
        );
        assert_eq!(pacer.push(reading(10), 340), Paced::Later { due: 580 });
        assert_eq!(
            pacer.flush(341),
            Some(Paced::Send {
                progress: reading(10)
            })
        );
        assert_eq!(pacer.flush(342), None);
    }

    fn spelled(secs: i64) -> String {
        if secs < 60 {
            format!("{secs}s")
        } else if secs < 3600 {
            format!("{}m {:02}s", secs / 60, secs % 60)
        } else {
            format!("{}h {:02}m", secs / 3600, (secs % 3600) / 60)
        }
    }

    #[test]
    fn elapsed_at_the_edges() {
        assert_eq!(elapsed(0, 999), "0s");
        assert_eq!(elapsed(0, 59_999), "59s");
        assert_eq!(elapsed(0, 60_000), "1m 00s");
        assert_eq!(elapsed(0, 3_599_999), "59m 59s");
        assert_eq!(elapsed(0, 3_600_000), "1h 00m");
        assert_eq!(elapsed(0, 864_000_000), "240h 00m");
        assert_eq!(elapsed(5000, 0), "0s");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn elapsed_formats_every_duration_up_to_ten_days(ms in 0i64..=864_000_000, since in -1_000_000_000_000i64..2_000_000_000_000) {
            let out = elapsed(since, since + ms);
            prop_assert_eq!(&out, &spelled(ms / 1000));
            // The parts read back to the same whole seconds (to the minute from an hour on).
            let secs = ms / 1000;
            let parsed: i64 = if let Some((h, m)) = out.split_once("h ") {
                h.parse::<i64>().unwrap() * 3600 + m.trim_end_matches('m').parse::<i64>().unwrap() * 60
            } else if let Some((m, s)) = out.split_once("m ") {
                m.parse::<i64>().unwrap() * 60 + s.trim_end_matches('s').parse::<i64>().unwrap()
            } else {
                out.trim_end_matches('s').parse::<i64>().unwrap()
            };
            let slack = if secs >= 3600 { 60 } else { 1 };
            prop_assert!(parsed <= secs && secs - parsed < slack);
        }
    }
}
