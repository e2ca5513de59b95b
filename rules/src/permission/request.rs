//! A call to be judged and the context it is judged in: its tool, permission key, risk class and
//! target; the mode, the project root, the rules in force (defaults, the session's, approvals,
//! grants) and whether anybody can answer. One reader of rule lists for every source.

use super::path::normalize;
use super::words::{Action, Mode, RiskClass, RuleSource};
use crate::input::{self, InputError, Obj};
use crate::json::{Fields, Json, Keys, ToJson};
use crate::schema::{Field, Shape};
use crate::spec::{spec, types::Setting, types::SettingValue};
use serde_json::Value;
use std::borrow::Cow;

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
    /// For an approval, the mode it was given in: it holds in that mode and looser ones, never
    /// in plan mode (written as `mode`).
    pub given_in: Option<Mode>,
}

impl ToJson for Rule {
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        Fields::of(out, keys)
            .with("permission", &self.permission)
            .with("pattern", &self.pattern)
            .with("action", self.action)
            .with_some("mode", &self.given_in)
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
            given_in: None,
        }
    }

    /// The rule, given in `mode` (an approval).
    pub fn given_in(self, mode: Mode) -> Rule {
        Rule {
            given_in: Some(mode),
            ..self
        }
    }

    /// Whether it holds in `mode`: a rule given in a mode holds in that mode and looser ones
    /// (an approval given in manual mode holds in edit, not in plan).
    pub fn holds_in(&self, mode: Mode) -> bool {
        self.given_in.is_none_or(|given| mode <= given)
    }

    /// The shape of a rule [`Rule::list_from_json`] reads.
    pub fn shape() -> Shape {
        Shape::Object(vec![
            Field::required("permission", Shape::Text, "The permission key it is for."),
            Field::optional("pattern", Shape::Text, "The pattern it covers (default *)."),
            Field::required(
                "action",
                Shape::word("action", Action::WORDS),
                "What it says of a call it covers.",
            ),
        ])
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

/// The permission key a setting's key stands for: the plan tools' former key `todo` is `plan`
/// (spec 3.4.0's CHANGELOG: a rule written for `todo` still reaches them).
pub fn setting_key(key: &str) -> &str {
    match key {
        "todo" => "plan",
        other => other,
    }
}

/// The rules of a setting in defaults.json's shape, in order.
pub fn rules_from_setting(setting: &Setting, source: RuleSource) -> Result<Vec<Rule>, InputError> {
    let mut out = Vec::new();
    for (written, value) in setting.0.iter() {
        let key = setting_key(written);
        let bad = |path: String, value: &str| InputError::Unknown {
            path,
            what: "action",
            value: value.to_string(),
        };
        match value {
            SettingValue::Action(a) => {
                let action = Action::parse(a).ok_or_else(|| bad(written.to_string(), a))?;
                out.push(Rule::new(key, "*", action, source));
            }
            SettingValue::Patterns(list) => {
                for (pattern, a) in list.iter() {
                    let action =
                        Action::parse(a).ok_or_else(|| bad(format!("{written}.{pattern}"), a))?;
                    out.push(Rule::new(key, pattern, action, source));
                }
            }
        }
    }
    Ok(out)
}

/// The rules of `permission/defaults.json`, read once. build.rs checked every action of the file,
/// so this reads; were it ever not to, every call would be refused rather than judged with fewer
/// rules.
pub fn default_rules() -> &'static [Rule] {
    static RULES: std::sync::OnceLock<Vec<Rule>> = std::sync::OnceLock::new();
    RULES.get_or_init(|| {
        rules_from_setting(&spec().defaults_file.permission, RuleSource::Defaults)
            .unwrap_or_else(|_| vec![Rule::new("*", "*", Action::Deny, RuleSource::Defaults)])
    })
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
    /// The tool's name: borrowed from the spec data for a tool it has.
    pub tool: Cow<'static, str>,
    /// Its permission key (edit and write share `edit`): borrowed from the spec data for a tool
    /// it has.
    pub permission: Cow<'static, str>,
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
            tool: Cow::Borrowed(info.name),
            permission: Cow::Borrowed(info.permission),
            class: info.risk,
            target,
        })
    }

    /// A `bash` call running `line`.
    pub fn bash(line: &str) -> Request {
        Request {
            tool: Cow::Borrowed("bash"),
            permission: Cow::Borrowed(spec().tool("bash").map_or("bash", |t| t.permission)),
            class: RiskClass::Execute,
            target: Target::Line(line.to_string()),
        }
    }

    /// The shape [`Request::from_json`] reads: `bash` needs its `line`.
    pub fn shape() -> Shape {
        Shape::Object(vec![
            Field::required(
                "tool",
                Shape::Suggested {
                    what: "tool",
                    words: spec().tools().map(|t| t.name.to_string()).collect(),
                },
                "The tool called: one of rules/spec/tools/, or another tool with its `class`.",
            ),
            Field::optional("line", Shape::Text, "A bash call's command line.")
                .required_when("tool", "bash"),
            Field::optional(
                "path",
                Shape::Text,
                "A file tool's path: relative to the root, or absolute.",
            ),
            Field::optional(
                "class",
                Shape::word("risk class", RiskClass::WORDS),
                "Its risk class: only for a tool rules/spec/tools/ does not have.",
            ),
            Field::optional(
                "permission",
                Shape::Text,
                "Its permission key: only for a tool rules/spec/tools/ does not have.",
            ),
        ])
    }

    /// Reads `{ tool, line? | path?, class?, permission? }`. `class` and `permission` are needed
    /// only for a tool the spec does not have; for one it has they must agree with its file.
    pub fn from_json(path: &str, value: &Value) -> Result<Request, InputError> {
        Request::read(path, value, None)
    }

    /// Reads a delegation case's call as [`Request::from_json`] does, but a file tool the spec
    /// does not have, called with a `path` and no `class`, is an edit (the write tool's key,
    /// class `write`): the
    /// call `{ tool, path }` of subagents.md §7's cases is a read when its tool is `read` and an
    /// edit otherwise (the reference runner's reading of a call, `AREAS.delegation`).
    pub fn file_call_from_json(path: &str, value: &Value) -> Result<Request, InputError> {
        Request::read(
            path,
            value,
            Some((RiskClass::Write, super::judge::write_key())),
        )
    }

    /// The reader of both: `unknown_file_tool` is the class and permission key of a file tool
    /// the spec does not have, when its call gives none.
    fn read(
        path: &str,
        value: &Value,
        unknown_file_tool: Option<(RiskClass, &'static str)>,
    ) -> Result<Request, InputError> {
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
        let (class, permission, name) = match spec().tool(tool) {
            Some(info) => {
                if let Some(c) = class.filter(|c| *c != info.risk) {
                    return Err(InputError::Invalid {
                        path: o.at("class"),
                        message: format!("{tool} is {}, not {c}", info.risk),
                    });
                }
                // A call never picks its own key: `{ tool: "write", permission: "plan" }` would
                // be judged by the plan tools' rules.
                if let Some(key) = permission.filter(|key| *key != info.permission) {
                    return Err(InputError::Invalid {
                        path: o.at("permission"),
                        message: format!(
                            "{tool}'s permission key is {}, not {key}",
                            info.permission
                        ),
                    });
                }
                (
                    info.risk,
                    Cow::Borrowed(info.permission),
                    Cow::Borrowed(info.name),
                )
            }
            None => match (class, unknown_file_tool, &target) {
                (Some(class), _, _) => (
                    class,
                    Cow::Owned(permission.unwrap_or(tool).to_string()),
                    Cow::Owned(tool.to_string()),
                ),
                (None, Some((class, key)), Target::Path(_)) => (
                    class,
                    Cow::Owned(permission.unwrap_or(key).to_string()),
                    Cow::Owned(tool.to_string()),
                ),
                (None, _, _) => {
                    return Err(InputError::Unknown {
                        path: o.at("tool"),
                        what: "tool (give its class)",
                        value: tool.to_string(),
                    })
                }
            },
        };
        if tool == "bash" && !matches!(target, Target::Line(_)) {
            return Err(InputError::Missing { path: o.at("line") });
        }
        Ok(Request {
            tool: name,
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

    /// The shape [`Context::from_json`] reads.
    pub fn shape() -> Shape {
        let mut fields = vec![Field::required(
            "mode",
            Shape::word("mode", Mode::WORDS),
            "The permission mode the call is judged in.",
        )];
        fields.extend(Context::optional_fields());
        Shape::Object(fields)
    }

    /// The optional fields [`Context::with_fields`] reads.
    pub fn optional_fields() -> Vec<Field> {
        vec![
            Field::optional(
                "root",
                Shape::Text,
                "The project root, an absolute path (default /project).",
            ),
            Field::optional(
                "home",
                Shape::Text,
                "The person's home folder, for protected paths under ~/.",
            ),
            Field::optional(
                "defaults",
                Shape::Bool,
                "false: without permission/defaults.json's rules.",
            ),
            Field::optional(
                "rules",
                Shape::list(Rule::shape()),
                "The session's rules, after the defaults; a later one overrides an earlier one.",
            ),
            Field::optional(
                "approvals",
                Shape::list(approval_shape()),
                "\"Always allow\" answers, after the rules.",
            ),
            Field::optional(
                "unattended",
                Shape::Bool,
                "Nobody can answer: what would ask is refused.",
            ),
        ]
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
            ctx.approvals = approvals_from_json(&o.at("approvals"), v, mode)?;
        }
        ctx.unattended = o.bool_or("unattended", false)?;
        Ok(ctx)
    }

    /// Every rule in force, earliest first.
    pub(crate) fn all_rules(&self) -> impl DoubleEndedIterator<Item = &Rule> {
        let defaults: &[Rule] = if self.defaults { default_rules() } else { &[] };
        defaults.iter().chain(self.own_rules())
    }

    /// The rules after the defaults: the session's, its approvals, its grants.
    pub(crate) fn own_rules(&self) -> impl DoubleEndedIterator<Item = &Rule> {
        self.rules.iter().chain(&self.approvals).chain(&self.grants)
    }
}

/// The shape of an approval [`approvals_from_json`] reads.
pub fn approval_shape() -> Shape {
    Shape::Object(vec![
        Field::required("permission", Shape::Text, "The permission key it allows."),
        Field::required("pattern", Shape::Text, "The pattern it allows."),
        Field::optional(
            "action",
            Shape::word("action", &["allow"]),
            "An approval allows.",
        ),
        Field::optional(
            "mode",
            Shape::word("mode", Mode::WORDS),
            "The mode it was given in (the context's when absent): it holds there and in looser ones.",
        ),
    ])
}

/// `[{ permission, pattern }]`: approvals allow.
/// `[{ permission, pattern, mode? }]`: approvals allow, given in `mode` (the context's mode when
/// they do not say).
/// Reads `[{ permission, pattern, action?: "allow", mode? }]`: approvals, each given in its
/// `mode` (`mode` when it names none).
pub fn approvals_from_json(path: &str, value: &Value, mode: Mode) -> Result<Vec<Rule>, InputError> {
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
            o.only(&["permission", "pattern", "action", "mode"])?;
            if let Some(a) = o.opt_str("action")?.filter(|a| *a != "allow") {
                return Err(InputError::Invalid {
                    path: o.at("action"),
                    message: format!("an approval allows; \"{a}\" is not one"),
                });
            }
            let given = o.opt_word("mode", "mode", Mode::parse)?.unwrap_or(mode);
            Ok(Rule::new(
                o.str("permission")?,
                o.str("pattern")?,
                Action::Allow,
                RuleSource::Approval,
            )
            .given_in(given))
        })
        .collect()
}

serialize_as_json!(Rule);
