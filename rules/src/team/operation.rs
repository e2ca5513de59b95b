//! What a shell does to a team, as values: one [`Operation`] per thing a shell can do or ask
//! (subagents.md §5–§13: a tool call, a turn's end, a context's use, the person's stop, …),
//! [`Team::apply`] to do it, and the one codec that reads and writes both the operation and its
//! [`TeamAnswer`].
//!
//! Every shell goes through here: the conformance runner reads a team case's steps with
//! [`TeamStep::read`]; the npm package's `Team` calls an operation by its method name
//! ([`OperationKind::method`]) and saves itself as the steps it took; the playground's Tree tab
//! records its session as steps and exports them as a case; the harness's crew applies typed
//! operations. An operation's name is spelled only in this file.

use super::tools::ToolAnswer;
use super::view::TreeInfo;
pub use super::Delivery;
use super::{AgentState, Team, TeamOptions};
use crate::input::{InputError, Obj};
use crate::json::{Object, ToJson};
use crate::permission::Mode;
use crate::progress::StopReason;
use crate::schema::{Field, Shape, Variant, Variants};
use crate::spec::spec;
use crate::subagents::Capacity;
use serde_json::{Map, Value};

/// The kinds of operation, each with its word in a case file (`op`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperationKind {
    /// An agent calls a tool.
    Call,
    /// The team tools an agent is offered.
    Offered,
    /// The tree's data.
    Tree,
    /// An agent's context use.
    Context,
    /// An agent's context is full.
    ContextFull,
    /// An agent's turn ends.
    EndTurn,
    /// What an agent's latest turn started with.
    Started,
    /// The main agent's mode changes.
    MainMode,
    /// team_read's text.
    Read,
    /// team_whoami's text.
    WhoAmI,
    /// Every live agent's state.
    State,
    /// The person stops a subagent.
    PersonStop,
    /// The session model's capacity changes.
    Capacity,
    /// What reached whom since last asked.
    Delivered,
    /// The person's prompt: the main agent's next turn.
    Prompt,
    /// The person changes the Subagents setting between turns.
    Agents,
    /// The person picks another model for the main agent between turns.
    Model,
}

words!(OperationKind {
    Call => "call",
    Offered => "offered",
    Tree => "tree",
    Context => "context",
    ContextFull => "context_full",
    EndTurn => "end_turn",
    Started => "started",
    MainMode => "main_mode",
    Read => "read",
    WhoAmI => "whoami",
    State => "state",
    PersonStop => "person_stop",
    Capacity => "capacity",
    Delivered => "delivered",
    Prompt => "prompt",
    Agents => "agents",
    Model => "model",
});

impl OperationKind {
    /// Every kind, in the order the case format lists them.
    pub const ALL: [OperationKind; 17] = [
        OperationKind::Call,
        OperationKind::Offered,
        OperationKind::Tree,
        OperationKind::Context,
        OperationKind::ContextFull,
        OperationKind::EndTurn,
        OperationKind::Started,
        OperationKind::MainMode,
        OperationKind::Read,
        OperationKind::WhoAmI,
        OperationKind::State,
        OperationKind::PersonStop,
        OperationKind::Capacity,
        OperationKind::Delivered,
        OperationKind::Prompt,
        OperationKind::Agents,
        OperationKind::Model,
    ];

    /// Its method on the npm package's `Team`.
    pub fn method(self) -> &'static str {
        match self {
            OperationKind::Call => "call",
            OperationKind::Offered => "offered",
            OperationKind::Tree => "tree",
            OperationKind::Context => "setContext",
            OperationKind::ContextFull => "contextFull",
            OperationKind::EndTurn => "endTurn",
            OperationKind::Started => "started",
            OperationKind::MainMode => "setMainMode",
            OperationKind::Read => "read",
            OperationKind::WhoAmI => "whoami",
            OperationKind::State => "state",
            OperationKind::PersonStop => "personStop",
            OperationKind::Capacity => "setCapacity",
            OperationKind::Delivered => "delivered",
            OperationKind::Prompt => "prompt",
            OperationKind::Agents => "setAgents",
            OperationKind::Model => "setModel",
        }
    }

    /// The kind whose package method is `method`.
    pub fn from_method(method: &str) -> Option<OperationKind> {
        OperationKind::ALL
            .into_iter()
            .find(|k| k.method() == method)
    }

    /// Its fields, in the order its package method takes them (`now` last where it has one).
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            OperationKind::Call => &["by", "tool", "args", "now"],
            OperationKind::Offered | OperationKind::Started | OperationKind::WhoAmI => &["by"],
            OperationKind::Tree | OperationKind::State | OperationKind::Delivered => &[],
            OperationKind::Context => &["by", "used", "window"],
            OperationKind::ContextFull => &["by", "now"],
            OperationKind::EndTurn => &["by", "reply", "reason", "now"],
            OperationKind::MainMode => &["mode"],
            OperationKind::Read => &["by", "since"],
            OperationKind::PersonStop => &["name", "now"],
            OperationKind::Capacity => &["capacity"],
            OperationKind::Prompt => &["text", "now"],
            OperationKind::Agents => &["min", "max"],
            OperationKind::Model => &["model"],
        }
    }

    /// Whether it changes the team, so that a saved team keeps it.
    pub fn changes_team(self) -> bool {
        match self {
            OperationKind::Call
            | OperationKind::Context
            | OperationKind::ContextFull
            | OperationKind::EndTurn
            | OperationKind::MainMode
            | OperationKind::PersonStop
            | OperationKind::Capacity
            | OperationKind::Delivered
            | OperationKind::Prompt
            | OperationKind::Agents
            | OperationKind::Model => true,
            OperationKind::Offered
            | OperationKind::Tree
            | OperationKind::Started
            | OperationKind::Read
            | OperationKind::WhoAmI
            | OperationKind::State => false,
        }
    }
}

/// A field of an operation in the case format, by its name (a name means one thing in every
/// operation that has it): its shape, whether it must be there, and its doc.
fn operation_field(name: &str) -> Field {
    let required = |shape: Shape, doc: &str| Field::required(name, shape, doc);
    let optional = |shape: Shape, doc: &str| Field::optional(name, shape, doc);
    match name {
        "by" => required(
            Shape::Text,
            "The agent acting: `lead` (the main agent) or a subagent's name or id.",
        ),
        "tool" => required(
            Shape::Suggested {
                what: "tool",
                words: spec().tools().map(|t| t.name.to_string()).collect(),
            },
            "The tool called.",
        ),
        "args" => optional(
            Shape::Any,
            "The tool's arguments, as the model wrote them: a team tool's as its parameters say.",
        )
        .shaped_by(
            "tool",
            spec()
                .tools()
                .filter(|t| t.name.starts_with("team_"))
                .filter_map(|t| {
                    let file = crate::spec::tool_file(t.name)?;
                    Some((
                        t.name.to_string(),
                        offered_arguments(file.get("parameters")?),
                    ))
                })
                .collect(),
        ),
        "used" => required(Shape::Count, "Tokens in its context."),
        "window" => required(Shape::Count, "Its model's context window, in tokens."),
        "reply" => optional(
            Shape::Text,
            "Its final reply (a subagent's report to its parent).",
        ),
        "reason" => optional(
            Shape::Suggested {
                what: "reason",
                words: std::iter::once("stop")
                    .chain(StopReason::WORDS.iter().copied())
                    .map(str::to_string)
                    .collect(),
            },
            "Why the turn ended (absent or stop: its final reply).",
        ),
        "mode" => required(
            Shape::word("mode", Mode::WORDS),
            "The main agent's new mode.",
        ),
        "since" => optional(
            Shape::Count,
            "The last room message it has seen (default 0).",
        ),
        "name" => required(
            Shape::Text,
            "The subagent the person stops, with its subtree.",
        ),
        "capacity" => required(
            Capacity::shape(),
            "The session model's new capacity ({}: no limit).",
        ),
        "text" => required(Shape::Text, "The person's prompt."),
        "min" => required(
            Shape::Positive,
            "The fewest agents, the main agent included.",
        ),
        "max" => required(Shape::Positive, "The most agents, the main agent included."),
        "model" => required(
            Shape::Text,
            "The main agent's model from now on: a served id.",
        ),
        "now" => optional(Shape::Integer, "The clock, Unix ms: it moves only then."),
        other => optional(Shape::Any, other),
    }
}

/// A team tool's arguments as a case may write them: its parameters' names and descriptions
/// (an editor's completion and hover), none required and none of a type. The arguments are the
/// model's and the tool judges them: a tool that is not offered answers its refusal without
/// reading them, one that is reads them and may refuse the step for one it cannot read
/// (`args.name: missing`) — which only running the case can tell, so the schema refuses none.
fn offered_arguments(parameters: &Value) -> Shape {
    let mut properties = Map::new();
    if let Some(Value::Object(given)) = parameters.get("properties") {
        for (name, parameter) in given {
            let mut offered = Map::new();
            if let Some(description) = parameter.get("description") {
                offered.insert("description".into(), description.clone());
            }
            properties.insert(name.clone(), Value::Object(offered));
        }
    }
    let mut schema = Map::new();
    schema.insert("properties".into(), Value::Object(properties));
    Shape::Written(Value::Object(schema))
}

impl OperationKind {
    /// What it does, in a sentence.
    pub fn doc(self) -> &'static str {
        match self {
            OperationKind::Call => "An agent calls a tool.",
            OperationKind::Offered => "The team tools an agent is offered.",
            OperationKind::Tree => "The tree's data.",
            OperationKind::Context => "An agent's context use.",
            OperationKind::ContextFull => {
                "An agent's context is full: a working subagent is paused."
            }
            OperationKind::EndTurn => "An agent's turn ends with its final reply.",
            OperationKind::Started => "What an agent's latest turn started with.",
            OperationKind::MainMode => "The main agent's mode changes.",
            OperationKind::Read => "team_read's text.",
            OperationKind::WhoAmI => "team_whoami's text.",
            OperationKind::State => "Every live agent's state.",
            OperationKind::PersonStop => "The person stops a subagent and its subtree.",
            OperationKind::Capacity => "The session model's capacity changes.",
            OperationKind::Delivered => {
                "What reached whom since the last step that reported deliveries."
            }
            OperationKind::Prompt => "The person's next prompt.",
            OperationKind::Agents => "The person changes the Subagents setting between turns.",
            OperationKind::Model => {
                "The person picks another model for the main agent between turns."
            }
        }
    }

    /// The keys of its answer in a case (`expect` names some of them), each with its doc.
    fn answer_keys(self) -> Vec<Field> {
        let key = |name: &str, doc: &str| Field::optional(name, Shape::Any, doc);
        let delivered = || key("delivered", "What reached whom: `{ name: [text, …] }`.");
        let started = || {
            key(
                "started",
                "Whose turns started, with what: `{ name: [text] }`.",
            )
        };
        match self {
            OperationKind::Call => vec![
                key(
                    "result",
                    "The tool's answer word for word (null: not the team's, not refused).",
                ),
                key("refused", "Whether it is a refusal."),
                key("room", "team_read's messages shown: `[{ n, from, to }]`."),
                delivered(),
                started(),
            ],
            OperationKind::Offered => vec![
                key("tools", "The team tools it is offered, sorted."),
                key("setting", "Whether the Subagents setting is offered."),
            ],
            OperationKind::Tree => vec![
                key("size", "Agents in the tree, the main agent included."),
                key("open_slots", "Agents that may still be added."),
                key(
                    "agents",
                    "`[{ id, name, parent, state, mode, request }]`, in tree order.",
                ),
                key("ended", "`[{ id, name, state }]`, in the order they ended."),
            ],
            OperationKind::ContextFull => vec![
                key("text", "The final turn's text (null: it cannot be paused)."),
                delivered(),
                started(),
            ],
            OperationKind::EndTurn | OperationKind::Prompt => vec![delivered(), started()],
            OperationKind::Started | OperationKind::Read | OperationKind::WhoAmI => {
                vec![key("text", "The text.")]
            }
            OperationKind::PersonStop => {
                vec![key("stopped", "The ids stopped."), delivered(), started()]
            }
            OperationKind::Context
            | OperationKind::MainMode
            | OperationKind::State
            | OperationKind::Capacity
            | OperationKind::Delivered
            | OperationKind::Agents
            | OperationKind::Model => Vec::new(),
        }
    }
}

impl TeamStep {
    /// A step's shape in a team case: `op` picks its fields, each read as [`TeamStep::read`] reads
    /// it; `now`, `about` and `expect` are every step's.
    pub fn shape() -> Shape {
        let variants = OperationKind::ALL
            .into_iter()
            .map(|kind| {
                let mut fields: Vec<Field> = kind
                    .fields()
                    .iter()
                    .filter(|name| **name != "now")
                    .map(|name| operation_field(name))
                    .collect();
                // A step that answers something must say what it expects (none, or null, never
                // equals an answer); one that answers nothing expects nothing.
                let keys = kind.answer_keys();
                let doc = "What the step answers, compared on the keys it names.";
                fields.push(match (keys.is_empty(), kind) {
                    (_, OperationKind::State | OperationKind::Delivered) => Field::required(
                        "expect",
                        Shape::Map {
                            key: "an agent's name",
                            value: Box::new(Shape::Any),
                        },
                        doc,
                    ),
                    (true, _) => {
                        Field::optional("expect", Shape::Null, "Nothing: the step answers nothing.")
                    }
                    (false, _) => Field::required("expect", Shape::Object(keys), doc),
                });
                Variant {
                    word: kind.as_str().to_string(),
                    doc: kind.doc().to_string(),
                    fields,
                }
            })
            .collect();
        Shape::Variants(Variants {
            key: "op".into(),
            key_doc: "The operation (conformance/README.md, area team).".into(),
            default: None,
            common: vec![
                operation_field("now"),
                Field::optional("about", Shape::Text, "What the step shows."),
            ],
            variants,
        })
    }
}

impl TeamOptions {
    /// The shape of a team case's `start` (`min` and `max` must be there).
    pub fn shape() -> Shape {
        Shape::Object(vec![
            Field::required(
                "min",
                Shape::Positive,
                "The fewest agents, the main agent included (1 ≤ min ≤ max; a max above 32 is read as 32).",
            ),
            Field::required(
                "max",
                Shape::Positive,
                "The most agents, the main agent included.",
            ),
            Field::optional(
                "subagents",
                Shape::Bool,
                "The Subagents setting (default true).",
            ),
            Field::optional(
                "capacity",
                Capacity::shape(),
                "The session model's capacity ({}: no limit).",
            ),
            Field::optional(
                "mode",
                Shape::word("mode", Mode::WORDS),
                "The main agent's mode (default edit).",
            ),
            Field::optional(
                "now",
                Shape::Integer,
                "The clock, Unix ms (default 1762790400000).",
            ),
            Field::optional("model", Shape::Text, "The session's model (default m)."),
        ])
    }
}

/// Why a turn ended, as its engine says it (team.md §7: a subagent's report says an end that is
/// not its own final reply).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnEndReason {
    /// The model gave its final reply.
    Replied,
    /// The turn was stopped (its steps or budget ran out, or the person stopped it).
    Stopped(StopReason),
    /// Anything else its engine says, in its words (an error's text).
    Other(String),
}

impl TurnEndReason {
    /// A reason as a case or an engine writes it: none, empty or `stop` is the final reply.
    pub fn from_word(word: Option<&str>) -> TurnEndReason {
        match word.map(str::trim) {
            None | Some("") | Some("stop") => TurnEndReason::Replied,
            Some(w) => StopReason::parse(w).map_or_else(
                || TurnEndReason::Other(w.to_string()),
                TurnEndReason::Stopped,
            ),
        }
    }

    /// Its word in a report's `[ended: …]`; none for the final reply.
    pub fn word(&self) -> Option<&str> {
        match self {
            TurnEndReason::Replied => None,
            TurnEndReason::Stopped(r) => Some(r.as_str()),
            TurnEndReason::Other(text) => Some(text),
        }
    }
}

/// One thing a shell does to a team, or asks of it.
#[derive(Debug, Clone, PartialEq)]
pub enum Operation {
    /// `by` calls `tool` with `args`.
    Call {
        /// The caller's name.
        by: String,
        /// The tool's name.
        tool: String,
        /// Its arguments, as the model wrote them.
        args: Value,
    },
    /// The team tools `by` is offered.
    Offered {
        /// The agent's name.
        by: String,
    },
    /// The tree's data.
    Tree,
    /// `by`'s context holds `used` tokens of `window`.
    Context {
        /// The agent's name.
        by: String,
        /// Tokens in its context.
        used: u64,
        /// Its model's window.
        window: u64,
    },
    /// `by`'s context is full.
    ContextFull {
        /// The agent's name.
        by: String,
    },
    /// `by`'s turn ended with `reply`.
    EndTurn {
        /// The agent's name.
        by: String,
        /// Its final reply.
        reply: String,
        /// Why the turn ended.
        reason: TurnEndReason,
    },
    /// What `by`'s latest turn started with.
    Started {
        /// The agent's name.
        by: String,
    },
    /// The main agent's mode is now `mode`.
    MainMode {
        /// The new mode.
        mode: Mode,
    },
    /// team_read's text for `by`, the room from message `since` on.
    Read {
        /// The reader's name.
        by: String,
        /// The last message number it has seen.
        since: u64,
    },
    /// team_whoami's text for `by`.
    WhoAmI {
        /// The agent's name.
        by: String,
    },
    /// Every live agent's state.
    State,
    /// The person stops the subagent `name` and its subtree.
    PersonStop {
        /// The subagent's name.
        name: String,
    },
    /// The session model's capacity is now `capacity`.
    Capacity {
        /// The new capacity.
        capacity: Capacity,
    },
    /// What reached whom since last asked.
    Delivered,
    /// The person's prompt: the main agent's next turn starts with it (team.md §10's notes
    /// first when the Subagents setting changed).
    Prompt {
        /// The prompt.
        text: String,
    },
    /// The person changes the Subagents setting between turns (read as team.md §2 says).
    Agents {
        /// The fewest agents, the main agent included.
        min: u32,
        /// The most agents, the main agent included.
        max: u32,
    },
    /// The person picks another model for the main agent between turns (an editor's model
    /// picker): the session's model from then on — what a subagent runs on when none is named.
    Model {
        /// Its served id.
        model: String,
    },
}

/// An operation at a time: the team's clock moves to `now` first when there is one.
#[derive(Debug, Clone, PartialEq)]
pub struct TeamStep {
    /// The time, Unix ms; none leaves the clock where it is.
    pub now: Option<i64>,
    /// What is done.
    pub operation: Operation,
}

impl Operation {
    /// Its kind.
    pub fn kind(&self) -> OperationKind {
        match self {
            Operation::Call { .. } => OperationKind::Call,
            Operation::Offered { .. } => OperationKind::Offered,
            Operation::Tree => OperationKind::Tree,
            Operation::Context { .. } => OperationKind::Context,
            Operation::ContextFull { .. } => OperationKind::ContextFull,
            Operation::EndTurn { .. } => OperationKind::EndTurn,
            Operation::Started { .. } => OperationKind::Started,
            Operation::MainMode { .. } => OperationKind::MainMode,
            Operation::Read { .. } => OperationKind::Read,
            Operation::WhoAmI { .. } => OperationKind::WhoAmI,
            Operation::State => OperationKind::State,
            Operation::PersonStop { .. } => OperationKind::PersonStop,
            Operation::Capacity { .. } => OperationKind::Capacity,
            Operation::Delivered => OperationKind::Delivered,
            Operation::Prompt { .. } => OperationKind::Prompt,
            Operation::Agents { .. } => OperationKind::Agents,
            Operation::Model { .. } => OperationKind::Model,
        }
    }

    /// The operation a kind's fields make (`o` holds them; `op` and `now` are read by the caller).
    fn read(kind: OperationKind, o: &Obj<'_>) -> Result<Operation, InputError> {
        // The agent acting, read once for every kind that names one.
        let by = match kind.fields().first() {
            Some(&"by") => o.str("by")?.to_string(),
            _ => String::new(),
        };
        Ok(match kind {
            OperationKind::Call => Operation::Call {
                by,
                tool: o.str("tool")?.to_string(),
                args: o.get("args").cloned().unwrap_or(Value::Null),
            },
            OperationKind::Offered => Operation::Offered { by },
            OperationKind::Tree => Operation::Tree,
            OperationKind::Context => Operation::Context {
                by,
                used: o.count("used")?,
                window: o.count("window")?,
            },
            OperationKind::ContextFull => Operation::ContextFull { by },
            OperationKind::EndTurn => Operation::EndTurn {
                by,
                reply: o.opt_str("reply")?.unwrap_or("").to_string(),
                reason: TurnEndReason::from_word(o.opt_str("reason")?),
            },
            OperationKind::Started => Operation::Started { by },
            OperationKind::MainMode => Operation::MainMode {
                mode: o.word("mode", "mode", Mode::parse)?,
            },
            OperationKind::Read => Operation::Read {
                by,
                since: o.opt_count("since")?.unwrap_or(0),
            },
            OperationKind::WhoAmI => Operation::WhoAmI { by },
            OperationKind::State => Operation::State,
            OperationKind::PersonStop => Operation::PersonStop {
                name: o.str("name")?.to_string(),
            },
            OperationKind::Capacity => Operation::Capacity {
                capacity: Capacity::from_json(
                    &o.at("capacity"),
                    o.get("capacity")
                        .ok_or_else(|| InputError::missing(o.at("capacity")))?,
                )?,
            },
            OperationKind::Delivered => Operation::Delivered,
            OperationKind::Prompt => Operation::Prompt {
                text: o.str("text")?.to_string(),
            },
            OperationKind::Agents => {
                let count = |k: &str| -> Result<u32, InputError> {
                    u32::try_from(o.count(k)?).map_err(|_| InputError::Invalid {
                        path: o.at(k),
                        message: "too large".into(),
                    })
                };
                let (min, max) = (count("min")?, count("max")?);
                if let Some(message) = Team::impossible_setting(min, max) {
                    return Err(InputError::Invalid {
                        path: o.path.to_string(),
                        message,
                    });
                }
                Operation::Agents { min, max }
            }
            OperationKind::Model => {
                let model = o.str("model")?;
                if model.trim().is_empty() {
                    return Err(InputError::Invalid {
                        path: o.at("model"),
                        message: "a model's served id, not an empty text".into(),
                    });
                }
                Operation::Model {
                    model: model.to_string(),
                }
            }
        })
    }

    /// Its fields as the case format writes them (without `op` and `now`).
    fn write(&self, out: &mut Map<String, Value>) {
        let mut put = |k: &str, v: Value| {
            out.insert(k.to_string(), v);
        };
        match self {
            Operation::Call { by, tool, args } => {
                put("by", by.to_json());
                put("tool", tool.to_json());
                put("args", args.clone());
            }
            Operation::Offered { by }
            | Operation::ContextFull { by }
            | Operation::Started { by }
            | Operation::WhoAmI { by } => put("by", by.to_json()),
            Operation::Context { by, used, window } => {
                put("by", by.to_json());
                put("used", used.to_json());
                put("window", window.to_json());
            }
            Operation::EndTurn { by, reply, reason } => {
                put("by", by.to_json());
                put("reply", reply.to_json());
                if let Some(word) = reason.word() {
                    put("reason", word.to_json());
                }
            }
            Operation::MainMode { mode } => put("mode", mode.to_json()),
            Operation::Read { by, since } => {
                put("by", by.to_json());
                put("since", since.to_json());
            }
            Operation::PersonStop { name } => put("name", name.to_json()),
            Operation::Capacity { capacity } => put("capacity", capacity.to_json()),
            Operation::Prompt { text } => put("text", text.to_json()),
            Operation::Agents { min, max } => {
                put("min", min.to_json());
                put("max", max.to_json());
            }
            Operation::Model { model } => put("model", model.to_json()),
            Operation::Tree | Operation::State | Operation::Delivered => {}
        }
    }
}

impl TeamStep {
    /// An operation with no time.
    pub fn untimed(operation: Operation) -> TeamStep {
        TeamStep {
            now: None,
            operation,
        }
    }

    /// A step as the case format writes it (`{ op, …its fields, now? }`); `also` names the other
    /// keys the object may hold (a case's `expect` and `about`), which are not read here.
    pub fn read(o: &Obj<'_>, also: &[&str]) -> Result<TeamStep, InputError> {
        let word = o.str("op")?;
        let kind = OperationKind::parse(word).ok_or_else(|| InputError::Unknown {
            path: o.at("op"),
            what: "op",
            value: word.to_string(),
        })?;
        let mut allowed: Vec<&str> = vec!["op", "now"];
        allowed.extend_from_slice(kind.fields());
        allowed.extend_from_slice(also);
        o.only(&allowed)?;
        Ok(TeamStep {
            now: o.opt_int("now")?,
            operation: Operation::read(kind, o)?,
        })
    }

    /// The step a package method makes of its arguments (a JSON array, in the order of
    /// [`OperationKind::fields`]; a `null` is an argument left out), read, with the object the
    /// case format writes it as.
    pub fn from_method(
        method: &str,
        args: &Value,
    ) -> Result<Option<(TeamStep, Value)>, InputError> {
        let Some(kind) = OperationKind::from_method(method) else {
            return Ok(None);
        };
        let mut fields = Map::new();
        fields.insert("op".into(), Value::from(kind.as_str()));
        let given = args.as_array().map(Vec::as_slice).unwrap_or_default();
        for (name, value) in kind.fields().iter().zip(given) {
            if !value.is_null() {
                fields.insert((*name).to_string(), value.clone());
            }
        }
        let object = Value::Object(fields);
        let step = TeamStep::read(&Obj::new("", &object)?, &[])?;
        Ok(Some((step, object)))
    }

    /// The step as the case format writes it: `{ op, …its fields, now? }`.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("op".into(), self.operation.kind().to_json());
        self.operation.write(&mut out);
        if let Some(now) = self.now {
            out.insert("now".into(), Value::from(now));
        }
        Value::Object(out)
    }
}

impl TeamOptions {
    /// The options a team case's `start` or the package's `new Team(options)` gives: `{ min?,
    /// max?, subagents?, capacity?, mode?, now?, model? }`, each absent one taken from
    /// `defaults`. A setting no team can have (team.md §2: 1 ≤ min ≤ max) is refused.
    pub fn read(o: &Obj<'_>, defaults: TeamOptions) -> Result<TeamOptions, InputError> {
        o.only(&[
            "min",
            "max",
            "subagents",
            "capacity",
            "mode",
            "now",
            "model",
        ])?;
        let count = |k: &str, default: u32| -> Result<u32, InputError> {
            Ok(o.opt_count(k)?
                .map_or(default, |n| u32::try_from(n).unwrap_or(u32::MAX)))
        };
        let (min, max) = (count("min", defaults.min)?, count("max", defaults.max)?);
        if let Some(message) = Team::impossible_setting(min, max) {
            return Err(InputError::Invalid {
                path: o.path.to_string(),
                message,
            });
        }
        Ok(TeamOptions {
            min,
            max,
            subagents: o.bool_or("subagents", defaults.subagents)?,
            capacity: match o.get("capacity") {
                Some(c) => Capacity::from_json(&o.at("capacity"), c)?,
                None => defaults.capacity,
            },
            model: o.opt_str("model")?.map_or(defaults.model, str::to_string),
            mode: o
                .opt_word("mode", "mode", Mode::parse)?
                .unwrap_or(defaults.mode),
            steps: defaults.steps,
            now: o.opt_int("now")?.unwrap_or(defaults.now),
        })
    }
}

/// Texts that reached agents, in the order they reached them.
pub type Deliveries = Vec<Delivery>;

/// A room message as team_read showed it to a caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoomLine {
    /// Its number.
    pub n: u64,
    /// Who posted it.
    pub from: String,
    /// Whom it was addressed to, joined by `", "`.
    pub to: String,
}

/// What an operation answers.
#[derive(Debug, Clone, PartialEq)]
pub enum TeamAnswer {
    /// A tool call's answer.
    Call {
        /// The tool's answer — done or refused, its text word for word; none for a tool that is
        /// not the team's and is not refused here (it goes on to its own checks).
        result: Option<ToolAnswer>,
        /// For team_read, the room messages it showed.
        room: Option<Vec<RoomLine>>,
        /// What reached whom.
        delivered: Deliveries,
        /// Whose turns started, with what.
        started: Deliveries,
    },
    /// The team tools an agent is offered, and whether the Subagents setting is.
    Offered {
        /// The tools, sorted.
        tools: Vec<&'static str>,
        /// Whether the team tools are offered at all.
        setting: bool,
    },
    /// The tree's data.
    Tree(TreeInfo),
    /// A context's use was noted.
    Context {
        /// Whether a subagent's context has reached `pause_at` of its window (§9).
        reached: bool,
    },
    /// A context filled.
    ContextFull {
        /// The final turn's text; none when the agent cannot be paused.
        text: Option<String>,
        /// What reached whom.
        delivered: Deliveries,
        /// Whose turns started, with what (the paused agent's final turn).
        started: Deliveries,
    },
    /// The person's prompt was taken.
    Prompted {
        /// What reached whom.
        delivered: Deliveries,
        /// Whose turns started, with what (the main agent's, when it rested).
        started: Deliveries,
    },
    /// A turn ended.
    TurnEnded {
        /// What reached whom.
        delivered: Deliveries,
        /// Whose turns started, with what.
        started: Deliveries,
    },
    /// What an agent's latest turn started with.
    Started(Option<String>),
    /// A text the agent reads (team_read's, team_whoami's).
    Text(String),
    /// Every live agent's state, in tree order.
    States(Vec<(String, AgentState)>),
    /// The person stopped a subtree.
    PersonStopped {
        /// The ids stopped.
        stopped: Vec<String>,
        /// What reached whom.
        delivered: Deliveries,
        /// Whose turns started, with what (a waiting agent given the freed slot).
        started: Deliveries,
    },
    /// What reached whom since last asked.
    Delivered(Deliveries),
    /// Nothing to answer.
    Nothing,
}

/// Who reads an answer, which decides its keys' spelling and its shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// A team case (conformance/README.md): snake_case keys, texts as `{ text }`, the tree's
    /// fields the case format names.
    Case,
    /// The npm package (`index.d.ts`): camelCase keys, texts as strings, the whole tree.
    Package,
}

fn deliveries(list: &Deliveries) -> Value {
    let mut m: Map<String, Value> = Map::new();
    for delivery in list {
        if let Value::Array(l) = m
            .entry(delivery.to.clone())
            .or_insert_with(|| Value::Array(Vec::new()))
        {
            l.push(Value::String(delivery.text.clone()));
        }
    }
    Value::Object(m)
}

fn text_of(audience: Audience, text: Option<&str>) -> Value {
    match audience {
        Audience::Case => Object::new().with("text", text).done(),
        Audience::Package => text.to_json(),
    }
}

/// The tree as the case format writes it (conformance/README.md, op `tree`).
fn case_tree(info: &TreeInfo) -> Value {
    let agents: Vec<Value> = info
        .agents
        .iter()
        .map(|a| {
            Object::new()
                .with("id", &a.id)
                .with("name", &a.name)
                .with("parent", &a.parent)
                .with("state", a.state)
                .with("mode", a.mode)
                .with("request", &a.request)
                .done()
        })
        .collect();
    let ended: Vec<Value> = info
        .ended
        .iter()
        .map(|a| {
            Object::new()
                .with("id", &a.id)
                .with("name", &a.name)
                .with("state", a.state)
                .done()
        })
        .collect();
    Object::new()
        .with("size", info.size)
        .with("open_slots", info.open_slots)
        .with_value("agents", Value::Array(agents))
        .with_value("ended", Value::Array(ended))
        .done()
}

impl TeamAnswer {
    /// The answer as `audience` reads it.
    pub fn to_json(&self, audience: Audience) -> Value {
        match self {
            TeamAnswer::Call {
                result,
                room,
                delivered,
                started,
            } => {
                let room = room.as_ref().map(|lines| {
                    lines
                        .iter()
                        .map(|l| {
                            Object::new()
                                .with("n", l.n)
                                .with("from", &l.from)
                                .with("to", &l.to)
                                .done()
                        })
                        .collect::<Vec<Value>>()
                });
                Object::new()
                    .with("result", result.as_ref().map(ToolAnswer::text))
                    .with(
                        "refused",
                        result.as_ref().is_some_and(ToolAnswer::is_refusal),
                    )
                    .with_some("room", &room)
                    .with_value("delivered", deliveries(delivered))
                    .with_value("started", deliveries(started))
                    .done()
            }
            TeamAnswer::Offered { tools, setting } => Object::new()
                .with("tools", tools.as_slice())
                .with("setting", *setting)
                .done(),
            TeamAnswer::Tree(info) => match audience {
                Audience::Case => case_tree(info),
                Audience::Package => info.write_json(crate::json::Keys::Camel),
            },
            TeamAnswer::Context { reached } => match audience {
                Audience::Case => Value::Null,
                Audience::Package => Value::Bool(*reached),
            },
            TeamAnswer::ContextFull {
                text,
                delivered,
                started,
            } => Object::new()
                .with("text", text)
                .with_value("delivered", deliveries(delivered))
                .with_value("started", deliveries(started))
                .done(),
            TeamAnswer::TurnEnded { delivered, started }
            | TeamAnswer::Prompted { delivered, started } => Object::new()
                .with_value("delivered", deliveries(delivered))
                .with_value("started", deliveries(started))
                .done(),
            TeamAnswer::Started(text) => text_of(audience, text.as_deref()),
            TeamAnswer::Text(text) => text_of(audience, Some(text)),
            TeamAnswer::States(states) => crate::json::object_of(
                states
                    .iter()
                    .map(|(name, state)| (name.clone(), state.to_json())),
            ),
            TeamAnswer::PersonStopped {
                stopped,
                delivered,
                started,
            } => Object::new()
                .with("stopped", stopped)
                .with_value("delivered", deliveries(delivered))
                .with_value("started", deliveries(started))
                .done(),
            TeamAnswer::Delivered(list) => deliveries(list),
            TeamAnswer::Nothing => Value::Null,
        }
    }
}

impl Team {
    /// Does one step: the clock moves to its `now`, then the operation is done. An agent named
    /// by `by` must be in the team (live, or ended with that name or id); a call's arguments are
    /// read by its tool, and an argument it cannot read is an error naming it (`args.name`).
    pub fn apply(&mut self, step: &TeamStep) -> Result<TeamAnswer, InputError> {
        if let Some(now) = step.now {
            self.set_now(now);
        }
        let known = |team: &Team, by: &str| -> Result<(), InputError> {
            match team.find(by) {
                Some(_) => Ok(()),
                None => Err(InputError::Unknown {
                    path: "by".into(),
                    what: "agent",
                    value: by.to_string(),
                }),
            }
        };
        Ok(match &step.operation {
            Operation::Call { by, tool, args } => {
                known(self, by)?;
                let result = self.call(by, tool, args)?;
                let room = (tool == "team_read").then(|| {
                    let since = args.get("since").and_then(Value::as_u64).unwrap_or(0);
                    self.read_room(by, since)
                        .0
                        .iter()
                        .map(|m| RoomLine {
                            n: m.n,
                            from: m.from.clone(),
                            to: m.to.join(", "),
                        })
                        .collect()
                });
                TeamAnswer::Call {
                    result,
                    room,
                    delivered: self.take_delivered(),
                    started: self.take_started(),
                }
            }
            Operation::Offered { by } => {
                known(self, by)?;
                TeamAnswer::Offered {
                    tools: self.offered_tools(by),
                    setting: self.offered,
                }
            }
            Operation::Tree => TeamAnswer::Tree(self.info()),
            Operation::Context { by, used, window } => {
                known(self, by)?;
                self.set_context(by, *used, *window);
                TeamAnswer::Context {
                    reached: self.context_reached(by),
                }
            }
            Operation::ContextFull { by } => {
                known(self, by)?;
                let text = self.context_full(by);
                TeamAnswer::ContextFull {
                    text,
                    delivered: self.take_delivered(),
                    started: self.take_started(),
                }
            }
            Operation::EndTurn { by, reply, reason } => {
                known(self, by)?;
                self.end_turn(by, reply, reason);
                TeamAnswer::TurnEnded {
                    delivered: self.take_delivered(),
                    started: self.take_started(),
                }
            }
            Operation::Started { by } => {
                known(self, by)?;
                TeamAnswer::Started(self.started_with(by).map(str::to_string))
            }
            Operation::MainMode { mode } => {
                self.set_main_mode(*mode);
                TeamAnswer::Nothing
            }
            Operation::Read { by, since } => {
                known(self, by)?;
                TeamAnswer::Text(self.read(by, *since))
            }
            Operation::WhoAmI { by } => {
                known(self, by)?;
                TeamAnswer::Text(self.whoami(by))
            }
            Operation::State => TeamAnswer::States(
                self.tree()
                    .into_iter()
                    .map(|a| (a.name.clone(), a.state))
                    .collect(),
            ),
            Operation::PersonStop { name } => {
                let stopped = self.person_stop(name);
                TeamAnswer::PersonStopped {
                    stopped,
                    delivered: self.take_delivered(),
                    started: self.take_started(),
                }
            }
            Operation::Capacity { capacity } => {
                self.capacity = capacity.clone();
                self.fill_slots();
                TeamAnswer::Nothing
            }
            Operation::Delivered => TeamAnswer::Delivered(self.take_delivered()),
            Operation::Prompt { text } => {
                self.prompt(text);
                TeamAnswer::Prompted {
                    delivered: self.take_delivered(),
                    started: self.take_started(),
                }
            }
            Operation::Agents { min, max } => {
                self.change_setting(*min, *max);
                TeamAnswer::Nothing
            }
            Operation::Model { model } => {
                self.set_model(model);
                TeamAnswer::Nothing
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn step(v: Value) -> TeamStep {
        TeamStep::read(&Obj::new("step", &v).unwrap(), &[]).unwrap()
    }

    #[test]
    fn a_step_reads_and_writes_back_as_the_case_format_writes_it() {
        for v in [
            json!({"op": "call", "by": "lead", "tool": "team_add", "args": {"name": "a"}, "now": 5}),
            json!({"op": "end_turn", "by": "a", "reply": "Done.", "reason": "steps"}),
            json!({"op": "end_turn", "by": "a", "reply": "", "reason": "the server hung up"}),
            json!({"op": "context", "by": "a", "used": 9, "window": 10}),
            json!({"op": "main_mode", "mode": "plan"}),
            json!({"op": "person_stop", "name": "a"}),
            json!({"op": "capacity", "capacity": {"parallel": 2}}),
            json!({"op": "tree"}),
        ] {
            assert_eq!(step(v.clone()).to_json(), v);
        }
        // The final reply's reason is no reason.
        assert_eq!(
            step(json!({"op": "end_turn", "by": "a", "reply": "x", "reason": "stop"})).to_json(),
            json!({"op": "end_turn", "by": "a", "reply": "x"})
        );
    }

    #[test]
    fn a_bad_step_is_an_error_naming_its_field() {
        let bad = |v: Value, also: &[&str]| {
            TeamStep::read(&Obj::new("steps[2]", &v).unwrap(), also)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            bad(json!({"op": "jump"}), &[]),
            "steps[2].op: unknown op \"jump\""
        );
        assert_eq!(
            bad(json!({"op": "tree", "by": "a"}), &[]),
            "steps[2].by: not a field here"
        );
        assert_eq!(
            bad(
                json!({"op": "read", "expect": null, "by": "a", "since": "x"}),
                &["expect"]
            ),
            "steps[2].since: expected an integer"
        );
        assert_eq!(
            bad(json!({"op": "main_mode", "mode": "yolo"}), &[]),
            "steps[2].mode: unknown mode \"yolo\""
        );
    }

    #[test]
    fn every_method_takes_its_kind_fields_in_order() {
        let (s, object) = TeamStep::from_method("endTurn", &json!(["a", "Left: tests.", null, 7]))
            .unwrap()
            .unwrap();
        assert_eq!(
            object,
            json!({"op": "end_turn", "by": "a", "reply": "Left: tests.", "now": 7})
        );
        assert_eq!(s.to_json(), object);
        assert_eq!(TeamStep::from_method("fly", &json!([])), Ok(None));
        for kind in OperationKind::ALL {
            assert_eq!(OperationKind::from_method(kind.method()), Some(kind));
            assert_eq!(OperationKind::parse(kind.as_str()), Some(kind));
        }
    }

    #[test]
    fn a_model_picked_between_turns_is_the_sessions_for_the_next_subagent() {
        let mut team = Team::new(&TeamOptions {
            max: 4,
            model: "small".into(),
            ..TeamOptions::default()
        });
        team.apply(&step(json!({"op": "model", "model": "big"})))
            .unwrap();
        assert_eq!(
            team.find(crate::team::lead())
                .map(|a| a.model().to_string()),
            Some("big".into())
        );
        team.apply(&step(json!({"op": "offered", "by": "lead"})))
            .unwrap();
        team.apply(&step(
            json!({"op": "call", "by": "lead", "tool": "team_add",
            "args": {"name": "api", "role": "the API", "task": "Write it.", "goal": "a service"}}),
        ))
        .unwrap();
        assert_eq!(
            team.find("api").map(|a| a.model().to_string()),
            Some("big".into())
        );
        let empty = TeamStep::read(
            &Obj::new("s", &json!({"op": "model", "model": " "})).unwrap(),
            &[],
        )
        .unwrap_err();
        assert!(empty.to_string().contains("not an empty text"), "{empty}");
        assert_eq!(
            step(json!({"op": "model", "model": "big"})).to_json(),
            json!({"op": "model", "model": "big"})
        );
    }

    #[test]
    fn a_prompt_starts_the_main_agents_next_turn_after_the_notes_of_a_changed_setting() {
        let mut team = Team::new(&TeamOptions {
            max: 4,
            ..TeamOptions::default()
        });
        let ended = team
            .apply(&step(
                json!({"op": "end_turn", "by": "lead", "reply": "Done."}),
            ))
            .unwrap();
        assert!(matches!(ended, TeamAnswer::TurnEnded { .. }));
        // The same setting told again is no change.
        team.apply(&step(json!({"op": "agents", "min": 1, "max": 4})))
            .unwrap();
        let first = team
            .apply(&step(json!({"op": "prompt", "text": "Next."})))
            .unwrap();
        assert_eq!(
            first.to_json(Audience::Case),
            json!({"delivered": {}, "started": {"lead": ["Next."]}})
        );
        team.apply(&step(
            json!({"op": "end_turn", "by": "lead", "reply": "ok"}),
        ))
        .unwrap();
        team.apply(&step(json!({"op": "agents", "min": 2, "max": 3})))
            .unwrap();
        let notes = team.notes().join("\n\n");
        assert!(notes.contains('2') && notes.contains('3'), "{notes}");
        let second = team
            .apply(&step(json!({"op": "prompt", "text": "And now?"})))
            .unwrap();
        let TeamAnswer::Prompted { started, .. } = second else {
            panic!("{second:?}")
        };
        assert_eq!(
            started,
            [Delivery::new("lead", format!("{notes}\n\nAnd now?"))]
        );
        // Told once: the next prompt is the prompt alone.
        team.apply(&step(
            json!({"op": "end_turn", "by": "lead", "reply": "ok"}),
        ))
        .unwrap();
        let third = team
            .apply(&step(json!({"op": "prompt", "text": "Last."})))
            .unwrap();
        assert_eq!(
            third.to_json(Audience::Package)["started"],
            json!({"lead": ["Last."]})
        );
        let bad = TeamStep::read(
            &Obj::new("s", &json!({"op": "agents", "min": 3, "max": 2})).unwrap(),
            &[],
        )
        .unwrap_err();
        assert_eq!(bad.to_string(), "s: min: 3 is more than max 2");
    }

    #[test]
    fn the_tree_as_clients_receive_it_reads_back() {
        use crate::team::view::TreeInfo;
        let mut team = Team::new(&TeamOptions {
            max: 4,
            ..TeamOptions::default()
        });
        team.apply(&step(
            json!({"op": "call", "by": "lead", "tool": "team_add",
            "args": {"name": "api", "role": "r", "task": "Write it.", "goal": "g"}}),
        ))
        .unwrap();
        team.apply(&step(
            json!({"op": "context", "by": "api", "used": 10, "window": 100}),
        ))
        .unwrap();
        let info = team.info();
        assert_eq!(info.agents.len(), 2);
        let json = info.to_json();
        assert_eq!(TreeInfo::from_json("tree", &json).unwrap(), info);
        let mut bad = json.clone();
        bad["agents"][1]["state"] = json!("dancing");
        assert_eq!(
            TreeInfo::from_json("tree", &bad).unwrap_err().to_string(),
            "tree.agents[1].state: unknown state \"dancing\""
        );
    }

    #[test]
    fn a_call_answers_with_what_it_delivered_and_started() {
        let mut team = Team::new(&TeamOptions {
            max: 4,
            ..TeamOptions::default()
        });
        let add = step(json!({"op": "call", "by": "lead", "tool": "team_add",
            "args": {"name": "api", "role": "r", "task": "Write it.", "goal": "g"}}));
        let answer = team.apply(&add).unwrap();
        let TeamAnswer::Call {
            result, started, ..
        } = &answer
        else {
            panic!("{answer:?}")
        };
        assert!(
            matches!(result, Some(ToolAnswer::Done(text)) if text.contains("api")),
            "{result:?}"
        );
        assert_eq!(started.first().map(|d| d.to.as_str()), Some("api"));
        // The same name again is refused, and says so.
        let again = team.apply(&add).unwrap();
        assert!(
            matches!(
                &again,
                TeamAnswer::Call {
                    result: Some(ToolAnswer::Refused(_)),
                    ..
                }
            ),
            "{again:?}"
        );
        assert_eq!(again.to_json(Audience::Package)["refused"], true);
        let nobody = step(json!({"op": "whoami", "by": "nobody"}));
        assert_eq!(
            team.apply(&nobody).unwrap_err().to_string(),
            "by: unknown agent \"nobody\""
        );
        let text = team
            .apply(&step(json!({"op": "whoami", "by": "api"})))
            .unwrap();
        assert!(matches!(text.to_json(Audience::Case), Value::Object(_)));
        assert!(matches!(text.to_json(Audience::Package), Value::String(_)));
    }
}
