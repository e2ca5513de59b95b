//! Judging a call: [`prepare`] reads it once (every part: each command of a line, each path it
//! writes or reads, what the hardline refuses, what cannot be read exactly) and [`decide`] judges
//! the parts in a mode — the hardline, then the last matching rule, then the mode by the risk
//! class, then the place outside the root; the strictest part wins.

use super::first_then_rest::FirstThenRest;
use super::glob::{may_match_under, GlobPath};
use super::hardline;
use super::path::{inside, resolve, Place, OUTSIDE_ROOT};
use super::plain;
use super::request::{default_rules, Context, Request, Rule, Target};
use super::rule_match::{default_rules_for, ReadRule};
use super::shell;
use super::wildcard;
use super::words::{Action, DecidedBy, Decision, Mode, RiskClass, RuleSource};
use crate::spec::spec;
use crate::text::fill;
use std::borrow::Cow;

fn reasons() -> &'static crate::spec::types::ModeReasons {
    &spec().modes_file.reasons
}

/// A call read once — its line split, its paths resolved, the hardline checked — so that it can
/// be judged in several modes (who decides a subagent's call judges it twice).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared<'call> {
    /// The call's permission key (the request's: a call is judged while its request is at hand).
    pub permission: &'call str,
    /// The call's risk class.
    pub class: RiskClass,
    /// Every part of the call: there is at least one (an empty line is the command "").
    pub(super) first: Part,
    pub(super) rest: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Part {
    Hard(hardline::Hit),
    /// A guarded path (`.git/…`): asked where it would be allowed, refused where nobody asks.
    Guarded(hardline::Hit, RiskClass),
    /// A line read inexactly.
    Opaque(shell::Construct),
    /// A refused program whose target is not known.
    Unknown(hardline::Hit),
    /// A command of a line, as rules see it, and what a rule may cover of it.
    Command(CommandPart),
    /// A path (absolute), judged under this permission key and class.
    Path {
        abs: String,
        permission: String,
        class: RiskClass,
    },
    /// Everything inside a folder a command reads whole (absolute), judged by the read rules
    /// that guard a file (ask or deny) and may match one there.
    Contents {
        abs: String,
    },
    /// A redirection that opens a network connection, as written.
    Network(String),
    /// A part of the line that reads a file known only when it runs: asked, as a read outside
    /// the root is.
    UnknownRead(String),
    /// A call with nothing to match but its tool.
    Tool,
}

/// A command of a line as rules judge it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CommandPart {
    /// Its words joined by one space: what rules match.
    pub(super) text: String,
    /// Its words stay inside its program's read-only grammar: a default rule may cover it.
    pub(super) read_only: bool,
    /// It asks for something an approval or a grant never covers (code run from an option, a
    /// file written or read that the line does not name).
    pub(super) effects: bool,
}

impl CommandPart {
    /// A command with no grammar and no effect (`curl`, as network redirections are judged).
    fn plain(text: &str) -> CommandPart {
        CommandPart {
            text: text.to_string(),
            read_only: false,
            effects: false,
        }
    }
}

/// Reads a call once (see [`Prepared`]).
pub fn prepare<'call>(req: &'call Request, ctx: &Context) -> Prepared<'call> {
    // A call's parts as they are found (most calls have one).
    let mut parts: FirstThenRest<Part> = FirstThenRest::default();
    let place = Place {
        root: &ctx.root,
        home: ctx.home.as_deref(),
    };
    let path =
        |parts: &mut FirstThenRest<Part>, abs: String, permission: &str, class: RiskClass| {
            match hardline::check_path(&abs, class, ctx.home.as_deref(), &ctx.root) {
                Some(h) if !h.ask => parts.push(Part::Hard(h.hit)),
                Some(h) => parts.push(Part::Guarded(h.hit, class)),
                None => parts.push(Part::Path {
                    abs,
                    permission: permission.to_string(),
                    class,
                }),
            }
        };
    match &req.target {
        Target::Line(line) => {
            // A file a read rule guards (`*.env` asks) named by a command is read as the read
            // tool would read it: `git show HEAD:.env` asks as `read .env` does.
            let read_key = read_key();
            let (defaults, mut starts): (&[ReadGuard<'static>], PieceStarts) = if ctx.defaults {
                let defaults = default_read_guards();
                (&defaults.0, defaults.1)
            } else {
                (&[], PieceStarts::default())
            };
            let own: Vec<ReadGuard<'_>> = ctx
                .rules
                .iter()
                .chain(&ctx.approvals)
                .chain(&ctx.grants)
                .filter(|r| r.action != Action::Allow && r.permission == read_key)
                .map(ReadGuard::new)
                .collect();
            for guard in &own {
                starts.add(guard.piece);
            }
            let guarded = |word: &str| {
                let guards = || defaults.iter().chain(own.iter());
                // Most words hold no guard's piece, and are not resolved; most hold no byte a
                // piece starts with, and are not searched.
                starts.any_in(word) && guards().any(|g| g.may_match(word)) && {
                    let abs = resolve(place, &ctx.root, word);
                    let subject = inside(&ctx.root, &abs).unwrap_or(&abs);
                    let lower = subject.to_lowercase();
                    guards().any(|g| {
                        wildcard::matches(&g.rule.pattern, subject)
                            || wildcard::matches(&g.rule.pattern, &lower)
                    })
                }
            };
            let read = plain::analyse_guarded(line, place, &guarded);
            if let Some(c) = read.opaque {
                parts.push(Part::Opaque(c));
            }
            parts.extend(read.hits.into_iter().map(Part::Hard));
            parts.extend(read.unknown.into_iter().map(Part::Unknown));
            parts.extend(
                read.guarded_trees
                    .into_iter()
                    .map(|hit| Part::Guarded(hit, RiskClass::Write)),
            );
            for command in read.commands {
                parts.push(Part::Command(CommandPart {
                    text: command.text,
                    read_only: command.read_only == plain::ReadOnly::Inside,
                    effects: !command.effects.is_empty(),
                }));
            }
            parts.extend(read.network.into_iter().map(Part::Network));
            parts.extend(read.unknown_reads.into_iter().map(Part::UnknownRead));
            let edit = write_key();
            for (abs, _) in read.writes {
                path(&mut parts, abs, edit, RiskClass::Write);
            }
            for file in read.reads {
                if file.whole && may_be_folder(&file.path) {
                    parts.push(Part::Contents {
                        abs: file.path.clone(),
                    });
                }
                path(&mut parts, file.path, read_key, RiskClass::Read);
            }
            for word in &read.guarded {
                let abs = resolve(place, &ctx.root, word);
                path(&mut parts, abs, read_key, RiskClass::Read);
            }
        }
        Target::Path(p) => {
            let abs = resolve(place, &ctx.root, p);
            path(&mut parts, abs, &req.permission, req.class)
        }
        Target::Tool => parts.push(Part::Tool),
    }
    let (first, rest) = parts.into_first_and_rest();
    Prepared {
        permission: &req.permission,
        class: req.class,
        // A line with nothing to run is the command "", judged as one.
        first: first.unwrap_or_else(|| Part::Command(CommandPart::plain(""))),
        rest,
    }
}

/// The permission key of the read tool (found once).
fn read_key() -> &'static str {
    static KEY: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();
    KEY.get_or_init(|| spec().tool("read").map_or("read", |t| t.permission))
}

/// The permission key of the write tool (found once).
pub(super) fn write_key() -> &'static str {
    static KEY: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();
    KEY.get_or_init(|| spec().tool("write").map_or("edit", |t| t.permission))
}

/// A rule that keeps a file from being read without asking, and the longest literal piece of its
/// pattern (a word without it cannot match).
struct ReadGuard<'a> {
    rule: &'a Rule,
    piece: &'a str,
}

impl<'a> ReadGuard<'a> {
    fn new(rule: &'a Rule) -> ReadGuard<'a> {
        let piece = rule
            .pattern
            .split(['*', '?'])
            .max_by_key(|p| p.len())
            .unwrap_or("");
        ReadGuard { rule, piece }
    }

    /// Whether the piece is in `word`, letter case ignored.
    fn may_match(&self, word: &str) -> bool {
        word.as_bytes()
            .windows(self.piece.len().max(1))
            .any(|w| w.eq_ignore_ascii_case(self.piece.as_bytes()))
    }
}

/// The bytes the pieces of some guards start with, in either letter case: a word holding none of
/// them holds none of their pieces ([`ReadGuard::may_match`] is false for each).
#[derive(Debug, Clone, Copy, Default)]
struct PieceStarts([u64; 4]);

impl PieceStarts {
    /// A guard's piece added (an empty piece is in no word: it adds nothing).
    fn add(&mut self, piece: &str) {
        if let Some(&first) = piece.as_bytes().first() {
            for byte in [first.to_ascii_lowercase(), first.to_ascii_uppercase()] {
                if let Some(bits) = self.0.get_mut(usize::from(byte >> 6)) {
                    *bits |= 1 << (byte & 63);
                }
            }
        }
    }

    /// Whether `word` holds a byte some piece starts with.
    fn any_in(&self, word: &str) -> bool {
        word.bytes().any(|byte| {
            self.0
                .get(usize::from(byte >> 6))
                .is_some_and(|bits| bits & (1 << (byte & 63)) != 0)
        })
    }
}

/// The default rules that keep a file from being read without asking (`*.env`), found once, and
/// the bytes their pieces start with.
fn default_read_guards() -> &'static (Vec<ReadGuard<'static>>, PieceStarts) {
    static GUARDS: std::sync::OnceLock<(Vec<ReadGuard<'static>>, PieceStarts)> =
        std::sync::OnceLock::new();
    GUARDS.get_or_init(|| {
        let guards: Vec<ReadGuard<'static>> = default_rules()
            .iter()
            .filter(|r| r.action != Action::Allow && r.permission == read_key())
            .map(ReadGuard::new)
            .collect();
        let mut starts = PieceStarts::default();
        for guard in &guards {
            starts.add(guard.piece);
        }
        (guards, starts)
    })
}

/// Whether a path read whole may be a folder: its last name has no extension (`src`, `.github`,
/// `~`, `.`), or it is a glob. `a.txt` is read as a file, and so is a name spelled as a git
/// revision (`HEAD`, `HEAD~1`, `main^`, `@{u}`, `a..b`, an abbreviated hash), which
/// `git diff A B` compares as commits.
fn may_be_folder(path: &str) -> bool {
    let last = super::path::last_name(path.trim_end_matches('/'));
    let revision = last.contains(['~', '^'])
        || last.contains("@{")
        || last.contains("..")
        || last.ends_with("HEAD") && last.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        || (7..=40).contains(&last.len()) && last.chars().all(|c| c.is_ascii_hexdigit());
    if revision && last != ".." {
        return false;
    }
    path.ends_with('/')
        || last.contains(['*', '?', '['])
        || !last.chars().skip(1).any(|c| c == '.')
        || last == ".."
}

/// What a rule is asked to cover: a command (with what its program's grammar and effects make
/// of it), or a path or a tool of this class.
#[derive(Debug, Clone, Copy)]
pub(super) struct Subject<'a> {
    /// What the rule's pattern is matched against.
    pub(super) text: &'a str,
    /// The part's risk class.
    pub(super) class: RiskClass,
    /// The command, when the part is one.
    pub(super) command: Option<&'a CommandPart>,
}

impl<'a> Subject<'a> {
    pub(super) fn of(text: &'a str, class: RiskClass) -> Subject<'a> {
        Subject {
            text,
            class,
            command: None,
        }
    }
}

/// Judging in one mode, with the context's rules and `extra` grants after them.
pub(super) struct Judge<'a> {
    pub(super) ctx: &'a Context,
    pub(super) mode: Mode,
    pub(super) extra: &'a [Rule],
    /// Nobody can answer: approvals do not hold.
    pub(super) unattended: bool,
}

impl Judge<'_> {
    /// Whether a rule that matches a subject covers it. A deny or an ask always does. An allow
    /// of the defaults covers a command only inside its program's read-only grammar; an
    /// approval's or a grant's never covers a command with an effect; an approval holds only in
    /// the mode it was given in and looser ones, and never when nobody can answer; and in plan
    /// mode only the defaults let a write or a command through.
    pub(super) fn covers(&self, rule: &Rule, subject: Subject<'_>) -> bool {
        let plan_final = self.mode == Mode::Plan
            && matches!(subject.class, RiskClass::Write | RiskClass::Execute);
        // Plan mode's refusal of a write or a command is final: a rule of a config may deny it,
        // never turn it into a question.
        if rule.action == Action::Ask && plan_final && rule.source != RuleSource::Defaults {
            return false;
        }
        if rule.action != Action::Allow {
            return true;
        }
        let read_only = subject.command.is_none_or(|c| c.read_only);
        let effects = subject.command.is_some_and(|c| c.effects);
        match rule.source {
            RuleSource::Defaults => read_only,
            RuleSource::Session => !plan_final,
            RuleSource::Grant => !plan_final && !effects,
            // An approval never holds in plan mode, a read's neither (one `.env` read approved
            // there is every file of its folder).
            RuleSource::Approval => {
                self.mode != Mode::Plan && !effects && !self.unattended && rule.holds_in(self.mode)
            }
        }
    }

    /// Whether a rule is for `permission` (its key, or a wildcard that matches it).
    pub(super) fn is_for(rule: &Rule, permission: &str) -> bool {
        ReadRule::new(rule).is_for(permission)
    }

    /// The last rule for `permission` that matches and covers `subject`, as a decision: the
    /// extra grants, the context's grants, approvals and rules, then the defaults (read once),
    /// each last first.
    pub(super) fn by_rule(&self, permission: &str, subject: Subject<'_>) -> Option<Decision> {
        let found = |rule: &ReadRule<'_>| {
            rule.matches(permission, subject.text) && self.covers(rule.rule(), subject)
        };
        let own = self
            .ctx
            .own_rules()
            .chain(self.extra)
            .rev()
            .map(ReadRule::new)
            .find(found);
        let rule = match own {
            Some(rule) => rule,
            None if self.ctx.defaults => {
                let defaults = default_rules_for(permission);
                let found = |rule: &&ReadRule<'static>| {
                    (defaults.all_for_key || rule.is_for(permission))
                        && rule.pattern_matches(subject.text)
                        && self.covers(rule.rule(), subject)
                };
                *defaults.rules.iter().rev().find(found)?
            }
            None => return None,
        };
        Some(rule_decision(rule.rule()))
    }

    /// The strictest read rule that guards a file (ask or deny) and may match one inside a
    /// folder read whole (`None`: none may).
    fn contents(&self, folder: &str) -> Option<Decision> {
        let key = read_key();
        let lower = folder.to_lowercase();
        let guards = self.ctx.all_rules().chain(self.extra).filter(|r| {
            r.action != Action::Allow
                && Judge::is_for(r, key)
                && (may_match_under(&r.pattern, folder) || may_match_under(&r.pattern, &lower))
        });
        let mut out: Option<Decision> = None;
        for rule in guards {
            if out.as_ref().is_none_or(|d| rule.action > d.action) {
                out = Some(rule_decision(rule));
            }
        }
        out
    }
}

/// A rule's decision.
fn rule_decision(rule: &Rule) -> Decision {
    {
        Decision {
            action: rule.action,
            reason: fill(
                &reasons().rule,
                &[
                    ("action", rule.action.as_str()),
                    ("permission", &rule.permission),
                    ("pattern", &rule.pattern),
                ],
            )
            .into(),
            decided_by: DecidedBy::Rule {
                source: rule.source,
                permission: rule.permission.clone(),
                pattern: rule.pattern.clone(),
                action: rule.action,
            },
        }
    }
}

impl Judge<'_> {
    /// A path judged as written and in lower case, the stricter kept: a protected name
    /// (`*.env`) holds whatever its letter case, and folding case never loosens a decision.
    pub(super) fn path_rule_or_mode(
        &self,
        permission: &str,
        path: &str,
        class: RiskClass,
    ) -> Decision {
        let own = self.rule_or_mode(permission, Subject::of(path, class));
        let lower = super::hardline::lower(path);
        let own = if lower == path {
            own
        } else {
            strictest(
                own,
                [self.rule_or_mode(permission, Subject::of(&lower, class))],
            )
        };
        if !path.contains(['*', '?', '[']) {
            return own;
        }
        // A glob (`.en?`) is every path it can name: a rule that asks or refuses one of them
        // holds for it.
        let as_written = GlobPath::new(path);
        let lowered = (lower != path).then(|| GlobPath::new(&lower));
        let guards = self.ctx.all_rules().chain(self.extra).filter(|r| {
            r.action != Action::Allow
                && Judge::is_for(r, permission)
                && (as_written.may_match(&r.pattern)
                    || lowered.as_ref().is_some_and(|l| l.may_match(&r.pattern)))
        });
        strictest(own, guards.map(rule_decision))
    }

    pub(super) fn rule_or_mode(&self, permission: &str, subject: Subject<'_>) -> Decision {
        self.by_rule(permission, subject)
            .unwrap_or_else(|| by_mode(self.mode, subject.class))
    }

    /// A part no rule may allow: auto refuses it, the other modes ask where they would allow.
    pub(super) fn unread(
        &self,
        class: RiskClass,
        reason: String,
        decided_by: DecidedBy,
    ) -> Decision {
        let auto = spec().mode(self.mode).ask_becomes == Some(Action::Allow);
        let action = if auto {
            Action::Deny
        } else {
            by_mode(self.mode, class).action.max(Action::Ask)
        };
        Decision {
            action,
            reason: reason.into(),
            decided_by,
        }
    }

    pub(super) fn part(&self, prepared: &Prepared, part: &Part) -> Decision {
        match part {
            Part::Hard(hit) => hard(hit.clone()),
            Part::Opaque(construct) => self.unread(
                RiskClass::Execute,
                fill(&reasons().opaque, &[("construct", construct.as_str())]),
                DecidedBy::Opaque {
                    construct: *construct,
                },
            ),
            Part::Unknown(hit) => self.unread(
                RiskClass::Execute,
                fill(&reasons().unknown_target, &[("part", &hit.part)]),
                DecidedBy::UnknownTarget {
                    entry: hit.entry.clone(),
                    part: hit.part.clone(),
                },
            ),
            Part::Guarded(hit, class) => {
                let own = by_mode(self.mode, *class);
                // Where nobody is asked (auto mode allows what would be asked), a guard of files
                // that run code later, outside any sandbox (`refused_in_auto`: git's config and
                // hooks, a shell's startup files), refuses: the part is refused, not asked, so
                // that no other part's ask hides it.
                let nobody_asks = spec()
                    .mode(self.mode)
                    .ask_becomes
                    .is_some_and(|to| to != Action::Ask);
                let refused_in_auto = spec()
                    .hardline
                    .paths
                    .iter()
                    .any(|e| e.id == hit.entry.as_str() && e.refused_in_auto);
                Decision {
                    action: if nobody_asks && refused_in_auto {
                        Action::Deny
                    } else {
                        own.action.max(Action::Ask)
                    },
                    reason: hit.reason.clone().into(),
                    decided_by: DecidedBy::Hardline {
                        entry: hit.entry.clone(),
                        part: hit.part.clone(),
                    },
                }
            }
            Part::Command(command) => self.rule_or_mode(
                prepared.permission,
                Subject {
                    text: &command.text,
                    class: prepared.class,
                    command: Some(command),
                },
            ),
            Part::Tool => self.rule_or_mode(prepared.permission, Subject::of("*", prepared.class)),
            Part::Contents { abs } => {
                let folder = inside(&self.ctx.root, abs).unwrap_or(abs);
                self.contents(folder)
                    .unwrap_or_else(|| by_mode(self.mode, RiskClass::Read))
            }
            Part::Network(part) => self.network(prepared, part),
            Part::UnknownRead(part) => Decision {
                action: Action::Ask,
                reason: fill(&reasons().unknown_target, &[("part", part)]).into(),
                decided_by: DecidedBy::UnknownTarget {
                    entry: "read".into(),
                    part: part.clone(),
                },
            },
            Part::Path {
                abs,
                permission,
                class,
            } => match inside(&self.ctx.root, abs) {
                Some(rel) => self.path_rule_or_mode(permission, rel, *class),
                None => {
                    let own = self.path_rule_or_mode(permission, abs, *class);
                    let outside = self
                        .by_rule(OUTSIDE_ROOT, Subject::of(abs, *class))
                        .unwrap_or_else(|| Decision {
                            action: Action::Ask,
                            reason: fill(&reasons().outside_root, &[("path", abs)]).into(),
                            decided_by: DecidedBy::OutsideRoot { path: abs.clone() },
                        });
                    strictest(own, [outside])
                }
            },
        }
    }

    /// A network connection a redirection opens: no rule or approval allows it. Plan refuses
    /// it, manual and edit ask, and auto allows it where it would allow the command `curl` (a
    /// rule that refuses `curl` refuses it too).
    fn network(&self, prepared: &Prepared, part: &str) -> Decision {
        let auto = spec().mode(self.mode).ask_becomes == Some(Action::Allow);
        let reason: Cow<'static, str> = fill(&reasons().network, &[("part", part)]).into();
        let decided_by = DecidedBy::Network {
            part: part.to_string(),
        };
        if auto {
            let curl = CommandPart::plain(spec().hardline.plain.network_like.as_ref());
            let by_curl = self.rule_or_mode(
                prepared.permission,
                Subject {
                    text: &curl.text,
                    class: RiskClass::Execute,
                    command: Some(&curl),
                },
            );
            if by_curl.action == Action::Deny {
                return by_curl;
            }
            return Decision {
                action: Action::Allow,
                reason,
                decided_by,
            };
        }
        Decision {
            action: by_mode(self.mode, RiskClass::Execute)
                .action
                .max(Action::Ask),
            reason,
            decided_by,
        }
    }

    /// The strictest part; then auto turns an ask into allow, and unattended refuses it.
    /// Every part's decision, in order. A rule that allows each command of a line (the
    /// session's, an approval, a grant — not the defaults) allows what the line writes inside
    /// the project where only the mode would ask (manual mode's writes): an approved `touch
    /// made.txt` runs. A write the hardline guards, one outside the root, and one a rule asks or
    /// refuses are judged as before.
    pub(super) fn decisions(&self, prepared: &Prepared) -> Vec<Decision> {
        let parts = || std::iter::once(&prepared.first).chain(&prepared.rest);
        let mut decisions: Vec<Decision> = parts().map(|p| self.part(prepared, p)).collect();
        let mut commands = parts()
            .zip(&decisions)
            .filter(|(p, _)| matches!(p, Part::Command(_)))
            .peekable();
        let has_commands = commands.peek().is_some();
        let by_own_rules = commands.all(|(_, d)| {
            d.action == Action::Allow
                && matches!(
                    d.decided_by,
                    DecidedBy::Rule {
                        source: RuleSource::Session | RuleSource::Approval | RuleSource::Grant,
                        ..
                    }
                )
        });
        // The first command's decision, copied only when it is used.
        let allowing = (has_commands && by_own_rules)
            .then(|| {
                parts()
                    .zip(&decisions)
                    .find(|(p, _)| matches!(p, Part::Command(_)))
                    .map(|(_, d)| d.clone())
            })
            .flatten();
        if let Some(allowing) = allowing {
            for (part, d) in parts().zip(decisions.iter_mut()) {
                let inside_root = matches!(
                    part,
                    Part::Path { abs, class: RiskClass::Write, .. }
                        if inside(&self.ctx.root, abs).is_some()
                );
                if inside_root && matches!(d.decided_by, DecidedBy::Mode { .. }) {
                    *d = allowing.clone();
                }
            }
        }
        decisions
    }

    pub(super) fn decide(&self, prepared: &Prepared) -> Decision {
        // One part is its own decision (what [`Judge::decisions`] changes needs a command and a
        // path): judged without a list of one.
        let d = if prepared.rest.is_empty() {
            self.part(prepared, &prepared.first)
        } else {
            let mut decisions = self.decisions(prepared).into_iter();
            let first = decisions
                .next()
                .unwrap_or_else(|| by_mode(self.mode, prepared.class));
            strictest(first, decisions)
        };
        if d.action != Action::Ask {
            return d;
        }
        if let Some(to) = spec()
            .mode(self.mode)
            .ask_becomes
            .filter(|a| *a != Action::Ask)
        {
            return Decision {
                action: to,
                reason: Cow::Borrowed(&reasons().auto),
                decided_by: DecidedBy::Mode {
                    mode: self.mode,
                    class: prepared.class,
                },
            };
        }
        if self.unattended {
            return Decision {
                action: Action::Deny,
                reason: Cow::Borrowed(&reasons().unattended),
                decided_by: DecidedBy::Unattended,
            };
        }
        d
    }
}

/// The mode's answer for a class.
fn by_mode(mode: Mode, class: RiskClass) -> Decision {
    let reason = mode_reasons()
        .iter()
        .find(|(m, c, _)| *m == mode && *c == class)
        .map_or_else(
            || Cow::Owned(mode_reason(mode, class)),
            |(_, _, reason)| Cow::Borrowed(reason.as_str()),
        );
    Decision {
        action: spec().mode(mode).for_class(class),
        reason,
        decided_by: DecidedBy::Mode { mode, class },
    }
}

/// Why a mode does what it does with a risk class, in the spec's words (modes.json's reasons).
fn mode_reason(mode: Mode, class: RiskClass) -> String {
    let r = reasons();
    match (mode, spec().mode(mode).for_class(class)) {
        (Mode::Plan, Action::Deny) => r.plan.to_string(),
        (_, a) => fill(
            match a {
                Action::Allow => &r.allow,
                Action::Ask => &r.ask,
                Action::Deny => &r.deny,
            },
            &[("mode", mode.as_str()), ("class", class.as_str())],
        ),
    }
}

/// Every mode's reason for every risk class, filled once: asked of nearly every call, a reason
/// was a template filled again each time.
fn mode_reasons() -> &'static [(Mode, RiskClass, String)] {
    static REASONS: std::sync::OnceLock<Vec<(Mode, RiskClass, String)>> =
        std::sync::OnceLock::new();
    REASONS.get_or_init(|| {
        Mode::ALL
            .iter()
            .flat_map(|&m| {
                RiskClass::ALL
                    .iter()
                    .map(move |&c| (m, c, mode_reason(m, c)))
            })
            .collect()
    })
}

fn hard(hit: hardline::Hit) -> Decision {
    Decision {
        action: Action::Deny,
        reason: hit.reason.into(),
        decided_by: DecidedBy::Hardline {
            entry: hit.entry,
            part: hit.part,
        },
    }
}

/// The strictest of `first` and `rest` (the first of equals).
pub fn strictest(first: Decision, rest: impl IntoIterator<Item = Decision>) -> Decision {
    let mut best = first;
    for d in rest {
        if d.action > best.action {
            best = d;
        }
    }
    best
}

/// Judges a prepared call in `mode`, with `grants` after the context's rules.
pub fn decide(
    prepared: &Prepared,
    ctx: &Context,
    mode: Mode,
    grants: &[Rule],
    unattended: bool,
) -> Decision {
    Judge {
        ctx,
        mode,
        extra: grants,
        unattended,
    }
    .decide(prepared)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A word holding none of the bytes the guards' pieces start with holds none of their
        /// pieces: the bytes pass over only words no guard may match (any word, any pieces, in
        /// any letter case, bytes beyond ASCII too).
        #[test]
        fn a_word_passed_over_by_its_bytes_matches_no_guard(
            word in "[a-fA-F./é*]{0,12}",
            patterns in proptest::collection::vec("[a-fA-F./é*?]{0,6}", 0..4),
        ) {
            let rules: Vec<Rule> = patterns
                .iter()
                .map(|p| Rule::new("read", p, Action::Ask, crate::permission::RuleSource::Session))
                .collect();
            let guards: Vec<ReadGuard<'_>> = rules.iter().map(ReadGuard::new).collect();
            let mut starts = PieceStarts::default();
            for guard in &guards {
                starts.add(guard.piece);
            }
            let matched = guards.iter().any(|g| g.may_match(&word));
            proptest::prop_assert!(starts.any_in(&word) || !matched);
        }
    }

    /// The default guards' bytes are what lets `.env` through and passes `main` over.
    #[test]
    fn the_default_guards_starts_pass_over_plain_words() {
        let (guards, starts) = default_read_guards();
        assert!(!guards.is_empty());
        assert!(starts.any_in("HEAD:.env"));
        assert!(starts.any_in("CONFIG/master.key"));
        assert!(!starts.any_in("main"));
        assert!(!starts.any_in("push"));
    }
}
