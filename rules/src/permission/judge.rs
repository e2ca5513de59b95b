//! Judging a call: [`prepare`] reads it once (every part: each command of a line, each path it
//! writes or reads, what the hardline refuses, what cannot be read exactly) and [`decide`] judges
//! the parts in a mode — the hardline, then the last matching rule, then the mode by the risk
//! class, then the place outside the root; the strictest part wins.

use super::hardline;
use super::path::{inside, resolve, Place, OUTSIDE_ROOT};
use super::plain;
use super::request::{default_rules, Context, Request, Rule, Target};
use super::shell;
use super::wildcard;
use super::words::{Action, DecidedBy, Decision, Mode, RiskClass};
use crate::spec::spec;
use crate::text::fill;

fn reasons() -> &'static crate::spec::types::ModeReasons {
    &spec().modes_file.reasons
}

/// A call read once — its line split, its paths resolved, the hardline checked — so that it can
/// be judged in several modes (who decides a subagent's call judges it twice).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    /// The call's permission key.
    pub permission: String,
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
    /// A command of a line, as rules see it.
    Command(String),
    /// A path (absolute), judged under this permission key and class.
    Path {
        abs: String,
        permission: String,
        class: RiskClass,
    },
    /// A call with nothing to match but its tool.
    Tool,
}

/// Reads a call once (see [`Prepared`]).
pub fn prepare(req: &Request, ctx: &Context) -> Prepared {
    let mut parts = Vec::new();
    let place = Place {
        root: &ctx.root,
        home: ctx.home.as_deref(),
    };
    let path = |parts: &mut Vec<Part>, abs: String, permission: &str, class: RiskClass| {
        match hardline::check_path(&abs, class, ctx.home.as_deref()) {
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
            let defaults: &[ReadGuard<'static>] = if ctx.defaults {
                default_read_guards()
            } else {
                &[]
            };
            let own: Vec<ReadGuard<'_>> = ctx
                .rules
                .iter()
                .chain(&ctx.approvals)
                .chain(&ctx.grants)
                .filter(|r| r.action != Action::Allow && r.permission == read_key)
                .map(ReadGuard::new)
                .collect();
            let guarded = |word: &str| {
                let guards = || defaults.iter().chain(own.iter());
                // Most words hold no guard's piece, and are not resolved.
                guards().any(|g| g.may_match(word)) && {
                    let abs = resolve(place, &ctx.root, word);
                    let subject = inside(&ctx.root, &abs).unwrap_or(abs);
                    let lower = subject.to_lowercase();
                    guards().any(|g| {
                        wildcard::matches(&g.rule.pattern, &subject)
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
            for text in read.commands {
                parts.push(Part::Command(text));
            }
            let edit = write_key();
            for (abs, _) in read.writes {
                path(&mut parts, abs, edit, RiskClass::Write);
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
    let mut parts = parts.into_iter();
    Prepared {
        permission: req.permission.clone(),
        class: req.class,
        // A line with nothing to run is the command "", judged as one.
        first: parts.next().unwrap_or(Part::Command(String::new())),
        rest: parts.collect(),
    }
}

/// The permission key of the read tool (found once).
fn read_key() -> &'static str {
    static KEY: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();
    KEY.get_or_init(|| spec().tool("read").map_or("read", |t| t.permission))
}

/// The permission key of the write tool (found once).
fn write_key() -> &'static str {
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

/// The default rules that keep a file from being read without asking (`*.env`), found once.
fn default_read_guards() -> &'static [ReadGuard<'static>] {
    static GUARDS: std::sync::OnceLock<Vec<ReadGuard<'static>>> = std::sync::OnceLock::new();
    GUARDS.get_or_init(|| {
        default_rules()
            .iter()
            .filter(|r| r.action != Action::Allow && r.permission == read_key())
            .map(ReadGuard::new)
            .collect()
    })
}

/// Judging in one mode, with the context's rules and `extra` grants after them.
pub(super) struct Judge<'a> {
    pub(super) ctx: &'a Context,
    pub(super) mode: Mode,
    pub(super) extra: &'a [Rule],
}

impl Judge<'_> {
    /// The last rule for `permission` whose pattern matches `subject`, as a decision.
    pub(super) fn by_rule(&self, permission: &str, subject: &str) -> Option<Decision> {
        let rule = self.ctx.all_rules().chain(self.extra).rev().find(|r| {
            (r.permission == permission
                || (r.permission.contains('*') && wildcard::matches(&r.permission, permission)))
                && wildcard::matches(&r.pattern, subject)
        })?;
        Some(Decision {
            action: rule.action,
            reason: fill(
                &reasons().rule,
                &[
                    ("action", rule.action.as_str()),
                    ("permission", &rule.permission),
                    ("pattern", &rule.pattern),
                ],
            ),
            decided_by: DecidedBy::Rule {
                source: rule.source,
                permission: rule.permission.clone(),
                pattern: rule.pattern.clone(),
                action: rule.action,
            },
        })
    }

    /// A path judged as written and in lower case, the stricter kept: a protected name
    /// (`*.env`) holds whatever its letter case, and folding case never loosens a decision.
    pub(super) fn path_rule_or_mode(
        &self,
        permission: &str,
        path: &str,
        class: RiskClass,
    ) -> Decision {
        let own = self.rule_or_mode(permission, path, class);
        let lower = path.to_lowercase();
        if lower == path {
            return own;
        }
        strictest(own, [self.rule_or_mode(permission, &lower, class)])
    }

    pub(super) fn rule_or_mode(
        &self,
        permission: &str,
        subject: &str,
        class: RiskClass,
    ) -> Decision {
        self.by_rule(permission, subject)
            .unwrap_or_else(|| by_mode(self.mode, class))
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
            reason,
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
                Decision {
                    action: own.action.max(Action::Ask),
                    reason: hit.reason.clone(),
                    decided_by: DecidedBy::Hardline {
                        entry: hit.entry.clone(),
                        part: hit.part.clone(),
                    },
                }
            }
            Part::Command(text) => self.rule_or_mode(&prepared.permission, text, prepared.class),
            Part::Tool => self.rule_or_mode(&prepared.permission, "*", prepared.class),
            Part::Path {
                abs,
                permission,
                class,
            } => match inside(&self.ctx.root, abs) {
                Some(rel) => self.path_rule_or_mode(permission, &rel, *class),
                None => {
                    let own = self.path_rule_or_mode(permission, abs, *class);
                    let outside = self.by_rule(OUTSIDE_ROOT, abs).unwrap_or_else(|| Decision {
                        action: Action::Ask,
                        reason: fill(&reasons().outside_root, &[("path", abs)]),
                        decided_by: DecidedBy::OutsideRoot { path: abs.clone() },
                    });
                    strictest(own, [outside])
                }
            },
        }
    }

    /// The strictest part; then auto turns an ask into allow, and unattended refuses it.
    pub(super) fn decide(&self, prepared: &Prepared, unattended: bool) -> Decision {
        let d = strictest(
            self.part(prepared, &prepared.first),
            prepared.rest.iter().map(|p| self.part(prepared, p)),
        );
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
                reason: reasons().auto.to_string(),
                decided_by: DecidedBy::Mode {
                    mode: self.mode,
                    class: prepared.class,
                },
            };
        }
        if unattended {
            return Decision {
                action: Action::Deny,
                reason: reasons().unattended.to_string(),
                decided_by: DecidedBy::Unattended,
            };
        }
        d
    }
}

/// The mode's answer for a class.
fn by_mode(mode: Mode, class: RiskClass) -> Decision {
    let action = spec().mode(mode).for_class(class);
    let r = reasons();
    let reason = match (mode, action) {
        (Mode::Plan, Action::Deny) => r.plan.to_string(),
        (_, a) => fill(
            match a {
                Action::Allow => &r.allow,
                Action::Ask => &r.ask,
                Action::Deny => &r.deny,
            },
            &[("mode", mode.as_str()), ("class", class.as_str())],
        ),
    };
    Decision {
        action,
        reason,
        decided_by: DecidedBy::Mode { mode, class },
    }
}

fn hard(hit: hardline::Hit) -> Decision {
    Decision {
        action: Action::Deny,
        reason: hit.reason,
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
    }
    .decide(prepared, unattended)
}
