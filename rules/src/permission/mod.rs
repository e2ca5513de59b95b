//! Permission evaluation (permission/modes.json, defaults.json, hardline.json, arity.json; the
//! rules the delegation cases fix): `evaluate(request, context) → Decision`.
//!
//! The order of a decision, for every part of a call (every command of a line, the path, the
//! place outside the root):
//! 1. the hardline refuses, in every mode ([`hardline`]);
//! 2. the last rule that matches decides — defaults, then the session's rules, then approvals,
//!    then grants; a later rule overrides an earlier one, and a rule's `allow` holds in every mode;
//! 3. with no rule, the mode decides by the call's risk class (plan refuses every change but the
//!    plan);
//! 4. a path outside the project root asks, unless a rule for `external_directory` says otherwise.
//!
//! The strictest part wins (deny > ask > allow). Then auto turns an ask into allow (the hardline
//! and deny rules still refuse), and unattended, what would ask is refused.
//!
//! Fail closed: a line the reader cannot read exactly ([`shell`], an *opaque* line) and a refused
//! program whose target is known only when it runs are never allowed by a rule, an approval or a
//! grant: auto refuses them, plan and unattended refuse them, manual and edit ask.

pub mod approval;
pub mod hardline;
pub mod plain;
pub mod shell;
pub mod wildcard;

use crate::input::{self, InputError, Obj};
use crate::json::{Object, ToJson};
use crate::spec::{spec, types::Setting, types::SettingValue};
use crate::text::fill;
use serde_json::Value;
use std::fmt;

/// A permission mode (modes.json `order`: loosest first). `Ord` follows that order, so the
/// stricter of two modes is their `max()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mode {
    /// Allows what would be asked; the hardline and deny rules still refuse.
    Auto,
    /// Allows reading and writing, asks before running commands.
    Edit,
    /// Allows reading, asks before writing and running.
    Manual,
    /// Changes nothing but the plan.
    Plan,
}

words!(Mode { Auto => "auto", Edit => "edit", Manual => "manual", Plan => "plan" });

impl Mode {
    /// Every mode, loosest first.
    pub const ALL: [Mode; 4] = [Mode::Auto, Mode::Edit, Mode::Manual, Mode::Plan];

    /// Its place in [`Mode::ALL`] (loosest first).
    pub fn index(self) -> usize {
        match self {
            Mode::Auto => 0,
            Mode::Edit => 1,
            Mode::Manual => 2,
            Mode::Plan => 3,
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tool's risk class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RiskClass {
    /// Reads files (read, list, glob, grep).
    Read,
    /// Changes files (write, edit).
    Write,
    /// Runs commands (bash).
    Execute,
    /// Talks with the person or the team.
    Interact,
}

words!(RiskClass { Read => "read", Write => "write", Execute => "execute", Interact => "interact" });

impl fmt::Display for RiskClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What is done with a call. Ordered loosest first: the strictest of several is their `max()`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// The call runs.
    #[default]
    Allow,
    /// The person is asked first.
    Ask,
    /// The call is refused.
    Deny,
}

words!(Action { Allow => "allow", Ask => "ask", Deny => "deny" });

/// Where a rule comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleSource {
    /// `permission/defaults.json`.
    Defaults,
    /// The session's own rules.
    Session,
    /// An "always allow" answer of the person.
    Approval,
    /// A grant of the main agent to a subagent (subagents.md §7).
    Grant,
}

words!(RuleSource { Defaults => "defaults", Session => "session", Approval => "approval", Grant => "grant" });

/// `{ permission, pattern, action }`: for calls of this permission key whose subject (a command
/// line's part, a path) matches the pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The permission key it is for (`bash`, `edit`, `read`, a wildcard).
    pub permission: String,
    /// The command or path pattern it matches (see [`wildcard`]).
    pub pattern: String,
    /// What it does with a call it matches.
    pub action: Action,
    /// Not written (`{ permission, pattern, action }`).
    pub source: RuleSource,
}

impl ToJson for Rule {
    fn to_json(&self) -> Value {
        Object::new()
            .with("permission", &self.permission)
            .with("pattern", &self.pattern)
            .with("action", self.action)
            .done()
    }
}

impl Rule {
    /// A rule from its parts.
    pub fn new(permission: &str, pattern: &str, action: Action, source: RuleSource) -> Rule {
        Rule {
            permission: permission.to_string(),
            pattern: pattern.to_string(),
            action,
            source,
        }
    }

    /// Reads `[{ permission, pattern, action }]`.
    pub fn list_from_json(
        path: &str,
        value: &Value,
        source: RuleSource,
    ) -> Result<Vec<Rule>, InputError> {
        let Value::Array(items) = value else {
            return Err(InputError::Type {
                path: path.to_string(),
                expected: "an array of rules",
            });
        };
        items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let p = input::index(path, i);
                let o = Obj::new(&p, v)?;
                o.only(&["permission", "pattern", "action"])?;
                Ok(Rule::new(
                    o.str("permission")?,
                    o.opt_str("pattern")?.unwrap_or("*"),
                    o.word("action", "action", Action::parse)?,
                    source,
                ))
            })
            .collect()
    }
}

/// The rules of a setting in defaults.json's shape, in order.
pub fn rules_from_setting(setting: &Setting, source: RuleSource) -> Result<Vec<Rule>, InputError> {
    let mut out = Vec::new();
    for (key, value) in setting.0.iter() {
        let bad = |path: String, value: &str| InputError::Unknown {
            path,
            what: "action",
            value: value.to_string(),
        };
        match value {
            SettingValue::Action(a) => {
                let action = Action::parse(a).ok_or_else(|| bad(key.to_string(), a))?;
                out.push(Rule::new(key, "*", action, source));
            }
            SettingValue::Patterns(list) => {
                for (pattern, a) in list.iter() {
                    let action =
                        Action::parse(a).ok_or_else(|| bad(format!("{key}.{pattern}"), a))?;
                    out.push(Rule::new(key, pattern, action, source));
                }
            }
        }
    }
    Ok(out)
}

/// What a call touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A command line (bash).
    Line(String),
    /// A path, relative to the project root or absolute.
    Path(String),
    /// Nothing but the tool (a team tool): its rules' pattern is matched against `*`.
    Tool,
}

/// A call to be judged: the tool, its permission key and risk class (from `tools/<name>.json`, or
/// given for a tool the spec does not have), and what it touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The tool's name.
    pub tool: String,
    /// Its permission key (edit and write share `edit`).
    pub permission: String,
    /// Its risk class.
    pub class: RiskClass,
    /// What it touches.
    pub target: Target,
}

impl Request {
    /// A call to a tool the spec has (`tools/<name>.json`).
    pub fn tool(tool: &str, target: Target) -> Option<Request> {
        let info = spec().tool(tool)?;
        Some(Request {
            tool: tool.to_string(),
            permission: info.permission.to_string(),
            class: info.risk,
            target,
        })
    }

    /// A `bash` call running `line`.
    pub fn bash(line: &str) -> Request {
        Request {
            tool: "bash".into(),
            permission: spec()
                .tool("bash")
                .map_or_else(|| "bash".into(), |t| t.permission.into()),
            class: RiskClass::Execute,
            target: Target::Line(line.to_string()),
        }
    }

    /// Reads `{ tool, line? | path?, class?, permission? }`. `class` and `permission` are needed
    /// only for a tool the spec does not have; for one it has they must agree with its file.
    pub fn from_json(path: &str, value: &Value) -> Result<Request, InputError> {
        let o = Obj::new(path, value)?;
        o.only(&["tool", "line", "path", "class", "permission"])?;
        let tool = o.str("tool")?;
        let class = o.opt_word("class", "risk class", RiskClass::parse)?;
        let permission = o.opt_str("permission")?;
        let target = match (o.opt_str("line")?, o.opt_str("path")?) {
            (Some(_), Some(_)) => {
                return Err(InputError::Invalid {
                    path: o.at("path"),
                    message: "a call has a line or a path, not both".into(),
                })
            }
            (Some(line), None) => Target::Line(line.to_string()),
            (None, Some(p)) => Target::Path(p.to_string()),
            (None, None) => Target::Tool,
        };
        let (class, permission) = match spec().tool(tool) {
            Some(info) => {
                if let Some(c) = class.filter(|c| *c != info.risk) {
                    return Err(InputError::Invalid {
                        path: o.at("class"),
                        message: format!("{tool} is {}, not {c}", info.risk),
                    });
                }
                (info.risk, permission.unwrap_or(info.permission).to_string())
            }
            None => {
                let class = class.ok_or_else(|| InputError::Unknown {
                    path: o.at("tool"),
                    what: "tool (give its class)",
                    value: tool.to_string(),
                })?;
                (class, permission.unwrap_or(tool).to_string())
            }
        };
        if tool == "bash" && !matches!(target, Target::Line(_)) {
            return Err(InputError::Missing { path: o.at("line") });
        }
        Ok(Request {
            tool: tool.to_string(),
            permission,
            class,
            target,
        })
    }
}

/// The context a call is judged in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    /// The permission mode.
    pub mode: Mode,
    /// The project root, absolute.
    pub root: String,
    /// The person's home folder, when known (for `~/…` protected paths).
    pub home: Option<String>,
    /// Whether the rules of defaults.json apply (they do unless said otherwise).
    pub defaults: bool,
    /// The session's rules, after the defaults.
    pub rules: Vec<Rule>,
    /// "Always allow" answers of this session, after the rules.
    pub approvals: Vec<Rule>,
    /// A subagent's grants from the main agent, last.
    pub grants: Vec<Rule>,
    /// Nobody can answer: what would ask is refused.
    pub unattended: bool,
}

/// The project root the delegation cases use.
pub const CASE_ROOT: &str = "/project";

impl Context {
    /// A context in `mode` with the defaults, the case root and nothing else.
    pub fn new(mode: Mode) -> Context {
        Context {
            mode,
            root: CASE_ROOT.into(),
            home: None,
            defaults: true,
            rules: Vec::new(),
            approvals: Vec::new(),
            grants: Vec::new(),
            unattended: false,
        }
    }

    /// Reads `{ mode, root?, home?, defaults?, rules?, approvals?, unattended? }`.
    pub fn from_json(path: &str, value: &Value) -> Result<Context, InputError> {
        let o = Obj::new(path, value)?;
        o.only(&[
            "mode",
            "root",
            "home",
            "defaults",
            "rules",
            "approvals",
            "unattended",
        ])?;
        Context::with_fields(o.word("mode", "mode", Mode::parse)?, &o)
    }

    /// A context in `mode` with the optional fields `o` gives (`root`, `home`, `defaults`,
    /// `rules`, `approvals`, `unattended`); `o`'s other fields are its caller's.
    pub fn with_fields(mode: Mode, o: &Obj<'_>) -> Result<Context, InputError> {
        let mut ctx = Context::new(mode);
        if let Some(root) = o.opt_str("root")? {
            if !root.starts_with('/') {
                return Err(InputError::Invalid {
                    path: o.at("root"),
                    message: format!("\"{root}\" is not an absolute path"),
                });
            }
            ctx.root = normalize(root);
        }
        ctx.home = o.opt_str("home")?.map(normalize);
        ctx.defaults = o.bool_or("defaults", true)?;
        if let Some(v) = o.get("rules") {
            ctx.rules = Rule::list_from_json(&o.at("rules"), v, RuleSource::Session)?;
        }
        if let Some(v) = o.get("approvals") {
            ctx.approvals = approvals_from_json(&o.at("approvals"), v)?;
        }
        ctx.unattended = o.bool_or("unattended", false)?;
        Ok(ctx)
    }

    /// Every rule in force, earliest first.
    fn all_rules(&self) -> impl DoubleEndedIterator<Item = &Rule> {
        let defaults: &[Rule] = if self.defaults { &spec().defaults } else { &[] };
        defaults
            .iter()
            .chain(&self.rules)
            .chain(&self.approvals)
            .chain(&self.grants)
    }
}

/// `[{ permission, pattern }]`: approvals allow.
fn approvals_from_json(path: &str, value: &Value) -> Result<Vec<Rule>, InputError> {
    let Value::Array(items) = value else {
        return Err(InputError::Type {
            path: path.to_string(),
            expected: "an array of approvals",
        });
    };
    items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let p = input::index(path, i);
            let o = Obj::new(&p, v)?;
            o.only(&["permission", "pattern", "action"])?;
            if let Some(a) = o.opt_str("action")?.filter(|a| *a != "allow") {
                return Err(InputError::Invalid {
                    path: o.at("action"),
                    message: format!("an approval allows; \"{a}\" is not one"),
                });
            }
            Ok(Rule::new(
                o.str("permission")?,
                o.str("pattern")?,
                Action::Allow,
                RuleSource::Approval,
            ))
        })
        .collect()
}

/// What decided a call: the rule, the mode or the hardline entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecidedBy {
    /// A hardline entry (or a guarding path entry).
    Hardline {
        /// The entry's id.
        entry: String,
        /// The part of the call it found, spelled plainly (or the path).
        part: String,
    },
    /// A rule.
    Rule {
        /// Where the rule comes from.
        source: RuleSource,
        /// Its permission key.
        permission: String,
        /// Its pattern.
        pattern: String,
        /// What it does.
        action: Action,
    },
    /// The mode, by the call's risk class.
    Mode {
        /// The mode.
        mode: Mode,
        /// The call's risk class.
        class: RiskClass,
    },
    /// A path outside the project root.
    OutsideRoot {
        /// The path, absolute.
        path: String,
    },
    /// Nobody can answer: what would ask is refused.
    Unattended,
    /// The line holds a construct the reader does not read exactly.
    Opaque {
        /// The first construct outside the reader's subset.
        construct: shell::Construct,
    },
    /// A refused program (or a write) whose target is known only when it runs.
    UnknownTarget {
        /// The hardline entry that would refuse it (or `write`).
        entry: String,
        /// The part of the line.
        part: String,
    },
}

impl ToJson for DecidedBy {
    /// Tagged by `by`: `{ by: "rule", source, permission, pattern, action }`, …
    fn to_json(&self) -> Value {
        match self {
            DecidedBy::Hardline { entry, part } => Object::new()
                .with("by", "hardline")
                .with("entry", entry)
                .with("part", part),
            DecidedBy::Rule {
                source,
                permission,
                pattern,
                action,
            } => Object::new()
                .with("by", "rule")
                .with("source", *source)
                .with("permission", permission)
                .with("pattern", pattern)
                .with("action", *action),
            DecidedBy::Mode { mode, class } => Object::new()
                .with("by", "mode")
                .with("mode", *mode)
                .with("class", *class),
            DecidedBy::OutsideRoot { path } => {
                Object::new().with("by", "outside_root").with("path", path)
            }
            DecidedBy::Unattended => Object::new().with("by", "unattended"),
            DecidedBy::Opaque { construct } => Object::new()
                .with("by", "opaque")
                .with("construct", *construct),
            DecidedBy::UnknownTarget { entry, part } => Object::new()
                .with("by", "unknown_target")
                .with("entry", entry)
                .with("part", part),
        }
        .done()
    }
}

/// The answer to a call: what is done, why, and what decided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// What is done with the call.
    pub action: Action,
    /// Why, in the spec's words.
    pub reason: String,
    /// What decided it.
    pub decided_by: DecidedBy,
}

impl ToJson for Decision {
    fn to_json(&self) -> Value {
        Object::new()
            .with("action", self.action)
            .with("reason", &self.reason)
            .with("decided_by", &self.decided_by)
            .done()
    }
}

serialize_as_json!(Rule, DecidedBy, Decision);

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
    first: Part,
    rest: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
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

#[cfg(feature = "trace")]
/// A part of a call as a trace names it: what the rules judged, one part at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TracedPart {
    /// A command of a line, as rules see it.
    Command(String),
    /// A path (relative to the project root when inside it), judged under a permission key and
    /// a risk class.
    Path {
        /// The path.
        path: String,
        /// The permission key it is judged under.
        permission: String,
        /// Its risk class.
        class: RiskClass,
    },
    /// A part the hardline refuses whatever the mode.
    Hardline {
        /// The hardline entry.
        entry: String,
        /// The part it found.
        part: String,
    },
    /// A guarded path: asked where it would be allowed, refused where nobody asks.
    Guarded {
        /// The hardline entry that guards it.
        entry: String,
        /// The path.
        part: String,
    },
    /// A construct the command reader does not read exactly: the line fails closed.
    Opaque(shell::Construct),
    /// A refused program whose target is known only when it runs.
    UnknownTarget {
        /// The hardline entry that would refuse it.
        entry: String,
        /// The part of the line.
        part: String,
    },
    /// A call with nothing to match but its tool.
    Tool,
}

#[cfg(feature = "trace")]
/// One part of a call judged: the part, every rule that matched it in order (the last one
/// decides), and its decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartTrace {
    /// The part.
    pub part: TracedPart,
    /// The rules whose permission and pattern match it, in the order they are kept.
    pub matched: Vec<Rule>,
    /// Its decision in the mode.
    pub decision: Decision,
}

#[cfg(feature = "trace")]
/// How a call was judged in one mode: each part in order, the strictest of them, and the call's
/// decision (the strictest part's, unless the mode turns an ask into another answer or nobody is
/// there to ask).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    /// The mode.
    pub mode: Mode,
    /// Each part judged.
    pub parts: Vec<PartTrace>,
    /// The index of the strictest part (the first of equals).
    pub strictest: usize,
    /// The call's decision.
    pub decision: Decision,
}

/// Reads a call once (see [`Prepared`]).
pub fn prepare(req: &Request, ctx: &Context) -> Prepared {
    let mut parts = Vec::new();
    let place = plain::Place {
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
                    let abs = plain::resolve(place, &ctx.root, word);
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
                let abs = plain::resolve(place, &ctx.root, word);
                path(&mut parts, abs, read_key, RiskClass::Read);
            }
        }
        Target::Path(p) => {
            let abs = plain::resolve(place, &ctx.root, p);
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
        spec()
            .defaults
            .iter()
            .filter(|r| r.action != Action::Allow && r.permission == read_key())
            .map(ReadGuard::new)
            .collect()
    })
}

/// Judging in one mode, with the context's rules and `extra` grants after them.
struct Judge<'a> {
    ctx: &'a Context,
    mode: Mode,
    extra: &'a [Rule],
}

impl Judge<'_> {
    /// The last rule for `permission` whose pattern matches `subject`, as a decision.
    fn by_rule(&self, permission: &str, subject: &str) -> Option<Decision> {
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
    fn path_rule_or_mode(&self, permission: &str, path: &str, class: RiskClass) -> Decision {
        let own = self.rule_or_mode(permission, path, class);
        let lower = path.to_lowercase();
        if lower == path {
            return own;
        }
        strictest(own, [self.rule_or_mode(permission, &lower, class)])
    }

    #[cfg(feature = "trace")]
    /// Every rule for `permission` whose pattern matches `subject`, in order.
    fn matching(&self, permission: &str, subject: &str) -> Vec<Rule> {
        self.ctx
            .all_rules()
            .chain(self.extra)
            .filter(|r| {
                (r.permission == permission
                    || (r.permission.contains('*') && wildcard::matches(&r.permission, permission)))
                    && wildcard::matches(&r.pattern, subject)
            })
            .cloned()
            .collect()
    }

    #[cfg(feature = "trace")]
    /// A part as a trace names it, with the rules that matched it.
    fn traced(&self, prepared: &Prepared, part: &Part) -> (TracedPart, Vec<Rule>) {
        match part {
            Part::Hard(hit) => (
                TracedPart::Hardline {
                    entry: hit.entry.clone(),
                    part: hit.part.clone(),
                },
                Vec::new(),
            ),
            Part::Guarded(hit, _) => (
                TracedPart::Guarded {
                    entry: hit.entry.clone(),
                    part: hit.part.clone(),
                },
                Vec::new(),
            ),
            Part::Opaque(c) => (TracedPart::Opaque(*c), Vec::new()),
            Part::Unknown(hit) => (
                TracedPart::UnknownTarget {
                    entry: hit.entry.clone(),
                    part: hit.part.clone(),
                },
                Vec::new(),
            ),
            Part::Command(text) => (
                TracedPart::Command(text.clone()),
                self.matching(&prepared.permission, text),
            ),
            Part::Tool => (TracedPart::Tool, self.matching(&prepared.permission, "*")),
            Part::Path {
                abs,
                permission,
                class,
            } => {
                let path = inside(&self.ctx.root, abs).unwrap_or_else(|| abs.clone());
                let matched = self.matching(permission, &path);
                (
                    TracedPart::Path {
                        path,
                        permission: permission.clone(),
                        class: *class,
                    },
                    matched,
                )
            }
        }
    }

    #[cfg(feature = "trace")]
    /// The call judged part by part, as [`Judge::decide`] judges it.
    fn trace(&self, prepared: &Prepared, unattended: bool) -> Trace {
        let parts: Vec<PartTrace> = std::iter::once(&prepared.first)
            .chain(&prepared.rest)
            .map(|p| {
                let (part, matched) = self.traced(prepared, p);
                PartTrace {
                    part,
                    matched,
                    decision: self.part(prepared, p),
                }
            })
            .collect();
        let mut strictest = 0;
        let mut strictest_action = None;
        for (i, p) in parts.iter().enumerate() {
            if strictest_action.is_none_or(|a| p.decision.action > a) {
                strictest = i;
                strictest_action = Some(p.decision.action);
            }
        }
        Trace {
            mode: self.mode,
            parts,
            strictest,
            decision: self.decide(prepared, unattended),
        }
    }

    fn rule_or_mode(&self, permission: &str, subject: &str, class: RiskClass) -> Decision {
        self.by_rule(permission, subject)
            .unwrap_or_else(|| by_mode(self.mode, class))
    }

    /// A part no rule may allow: auto refuses it, the other modes ask where they would allow.
    fn unread(&self, class: RiskClass, reason: String, decided_by: DecidedBy) -> Decision {
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

    fn part(&self, prepared: &Prepared, part: &Part) -> Decision {
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
    fn decide(&self, prepared: &Prepared, unattended: bool) -> Decision {
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

/// `.`, `..` and doubled slashes folded, lexically.
pub fn normalize(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != ".." && *p != "~") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// `abs` relative to `root` when it is inside it.
pub fn inside(root: &str, abs: &str) -> Option<String> {
    let root = root.trim_end_matches('/');
    if abs == root || root.is_empty() {
        return Some(if abs == root {
            ".".into()
        } else {
            abs.trim_start_matches('/').into()
        });
    }
    abs.strip_prefix(root)
        .and_then(|r| r.strip_prefix('/'))
        .map(str::to_string)
}

/// The permission key that a path outside the project root is checked under.
pub const OUTSIDE_ROOT: &str = "external_directory";

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

#[cfg(feature = "trace")]
/// How a call is judged in its context's mode: [`evaluate`]'s steps, traced.
pub fn explain(req: &Request, ctx: &Context) -> Trace {
    trace(&prepare(req, ctx), ctx, ctx.mode, &[], ctx.unattended)
}

/// Judges a call (see the module's docs for the order).
pub fn evaluate(req: &Request, ctx: &Context) -> Decision {
    decide(&prepare(req, ctx), ctx, ctx.mode, &[], ctx.unattended)
}

#[cfg(feature = "trace")]
/// How a prepared call is judged in `mode`, with `grants` after the context's rules: each part,
/// the rules that matched it, and the decision [`decide`] gives.
pub fn trace(
    prepared: &Prepared,
    ctx: &Context,
    mode: Mode,
    grants: &[Rule],
    unattended: bool,
) -> Trace {
    Judge {
        ctx,
        mode,
        extra: grants,
    }
    .trace(prepared, unattended)
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

#[cfg(test)]
mod tests;
