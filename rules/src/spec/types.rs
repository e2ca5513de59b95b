//! The shapes of the spec data under `rules/spec/`. This file is also compiled into `build.rs`,
//! which reads every file into these types — data that does not fit fails the build — and writes
//! each back as Rust (`rust.rs`), so the crate holds the data as values built by plain code and no
//! deserializer of these types is compiled into it. Only `serde` may be used here.

use serde::Deserialize;
use std::collections::BTreeMap;

use super::rust::{Rust, NOT_KEPT};

spec_struct! {
    /// `loop.json`: the `progress`, `team`, `subagents` and `context` sections.
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Loop {
        pub about: String,
        pub version: String,
        pub progress: ProgressSpec,
        pub team: TeamSpec,
        pub subagents: SubagentsSpec,
        pub context: ContextSpec,
        pub blocks: Blocks,
    }
}

spec_struct! {
    /// `loop.json` `blocks`: what each agent of the tree is told (subagents.md §13).
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Blocks {
        pub about: String,
        pub ours: Vec<String>,
        pub team_lead: String,
        pub team_member: String,
        pub team_submanager: String,
        pub read_only: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ProgressSpec {
        pub about: String,
        pub phases: Vec<String>,
        pub fields: BTreeMap<String, BTreeMap<String, String>>,
        pub texts: ProgressTexts,
        pub reason: WaitReasons,
        pub what: PersonWhat,
        pub stopped_reason: StoppedReasons,
        pub line: String,
        pub no_elapsed: Vec<String>,
        pub what_max: usize,
        pub pace_per_second: u32,
        pub ours: Vec<String>,
        pub elapsed: ElapsedTexts,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ProgressTexts {
        pub queued: String,
        #[serde(rename = "queued.ahead")]
        pub queued_ahead: String,
        pub waiting_for_model: String,
        pub loading_model: String,
        pub reading_prompt: String,
        #[serde(rename = "reading_prompt.bare")]
        pub reading_prompt_bare: String,
        pub thinking: String,
        pub writing: String,
        #[serde(rename = "writing.bare")]
        pub writing_bare: String,
        pub running_tool: String,
        #[serde(rename = "running_tool.bare")]
        pub running_tool_bare: String,
        pub waiting_for_person: String,
        pub waiting_for_subagents: String,
        pub compacting: String,
        pub retrying: String,
        pub stopped: String,
        #[serde(rename = "stopped.reason")]
        pub stopped_reason: String,
        pub failed: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct WaitReasons {
        pub busy: String,
        pub slots: String,
        pub group: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct PersonWhat {
        pub approval: String,
        #[serde(rename = "approval.bare")]
        pub approval_bare: String,
        pub question: String,
        pub plan: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct StoppedReasons {
        pub person: String,
        pub steps: String,
        pub budget: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ElapsedTexts {
        pub about: String,
        pub seconds: String,
        pub minutes: String,
        pub hours: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct TeamSpec {
        pub about: String,
        pub ours: Vec<String>,
        pub agents: AgentsSetting,
        pub names: Names,
        pub marks: Marks,
        pub unavailable: Unavailable,
        pub work: Work,
        pub read_max: usize,
        pub texts: TeamTexts,
        pub read: ReadTexts,
        pub main_only: MainOnly,
        pub context: TeamContext,
        pub request: RequestSpec,
        pub whoami: Whoami,
        pub findings: FindingsTexts,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct AgentsSetting {
        pub about: String,
        pub min: u32,
        pub max: u32,
        pub cap: u32,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Names {
        pub about: String,
        pub pattern: String,
        pub lead: String,
        pub reserved: Vec<String>,
        pub all: String,
        pub parent: String,
        pub id_prefix: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Marks {
        pub message: String,
        pub report: String,
        pub assignment: String,
        pub request: String,
        pub decision: String,
        pub context_full: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Unavailable {
        pub about: String,
        pub one_agent: String,
        pub one_request: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Work {
        pub about: String,
        pub classes: Vec<String>,
        pub kept: Vec<String>,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct TeamTexts {
        pub added: String,
        pub added_waiting: String,
        pub sent: String,
        pub stopped: String,
        pub manager: String,
        pub full: String,
        pub bad_name: String,
        pub all_name: String,
        pub taken: String,
        pub no_goal: String,
        pub unknown: String,
        #[serde(rename = "self")]
        pub self_: String,
        pub nobody: String,
        pub not_yours: String,
        pub nobody_to_stop: String,
        pub no_report: String,
        pub ended: String,
        pub only_main: String,
        pub not_manager: String,
        pub wider: String,
        pub request_not_narrower: String,
        pub request_kind: String,
        pub requestable: String,
        pub not_delegated: String,
        pub not_requestable: String,
        pub requested: String,
        pub no_request: String,
        pub decided: String,
        pub allowed: String,
        pub refused: String,
        pub decision_allowed: String,
        pub decision_refused: String,
        pub no_parent: String,
        pub finished: String,
        pub has_ended: String,
        pub cycle: String,
        pub assigned: String,
        pub replaced: String,
        pub replace_brief: String,
        pub no_findings: String,
        pub noted: String,
        pub not_yours_findings: String,
        pub context_full: String,
        pub gone: String,
        pub request_body: String,
        pub no_kinds: String,
        pub task_full: String,
        pub finding_text: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ReadTexts {
        pub about: String,
        pub tree: String,
        pub agent: String,
        pub lead_role: String,
        pub states: StateWords,
        pub active: String,
        pub room: String,
        pub message: String,
        pub report: String,
        pub none: String,
        pub more: String,
        pub slots: String,
        pub ended: String,
        pub ended_agent: String,
        pub context: String,
        pub request: String,
        pub ago: String,
        pub unknown: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct StateWords {
        pub working: String,
        pub waiting: String,
        pub finished: String,
        pub idle: String,
        pub paused: String,
        pub done: String,
        pub out_of_context: String,
        pub stopped: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct MainOnly {
        pub about: String,
        pub tools: Vec<String>,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct TeamContext {
        pub about: String,
        pub pause_at: f64,
        pub final_steps: u32,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct RequestSpec {
        pub about: String,
        pub kinds: Vec<String>,
        pub id_prefix: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Whoami {
        pub about: String,
        pub lines: WhoamiLines,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct WhoamiLines {
        pub who: String,
        pub parent: String,
        pub task: String,
        pub mode: String,
        pub request: String,
        pub model: String,
        pub limits: String,
        pub spawn_yes: String,
        pub spawn_no: String,
        pub context: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct FindingsTexts {
        pub about: String,
        pub header: String,
        pub item: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SubagentsSpec {
        pub about: String,
        pub ours: Vec<String>,
        pub texts: SubagentsTexts,
        pub setting: SettingLabels,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SubagentsTexts {
        pub one_request: String,
        pub not_named: String,
        pub same_server: String,
        pub unknown_model: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SettingLabels {
        pub label: String,
        pub min: String,
        pub max: String,
        pub short: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ContextSpec {
        pub about: String,
        pub note: Notes,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Notes {
        pub team: String,
        pub team_lead: String,
        pub team_one: String,
        pub team_own: String,
        pub team_stopped: String,
        pub empty: String,
    }
}

spec_struct! {
    /// `permission/modes.json`.
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ModesFile {
        pub about: String,
        pub ours: bool,
        pub order: Vec<String>,
        pub modes: BTreeMap<String, ModeTable>,
        pub reasons: ModeReasons,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ModeTable {
        pub read: String,
        pub write: String,
        pub execute: String,
        pub interact: String,
        #[serde(default)]
        pub ask_becomes: Option<String>,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ModeReasons {
        pub allow: String,
        pub ask: String,
        pub deny: String,
        pub plan: String,
        pub auto: String,
        pub rule: String,
        pub outside_root: String,
        pub unattended: String,
        /// The person answered an approval with no (this project's).
        pub person: String,
    }
}

spec_struct! {
    /// `permission/defaults.json`: `permission` maps a permission key to one action, or to patterns
    /// with their actions in document order (kept by the reader in `permission::rules`).
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct DefaultsFile {
        pub about: String,
        pub ours: Vec<String>,
        pub permission: Setting,
    }
}

/// A permission setting: each key's one action, or its patterns with their actions — in the
/// order written, since a later rule overrides an earlier one.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Setting(pub Vec<(String, SettingValue)>);

#[derive(Debug, Clone, PartialEq)]
pub enum SettingValue {
    Action(String),
    Patterns(Vec<(String, String)>),
}

impl Rust for Setting {
    fn rust(&self, out: &mut String) {
        out.push_str("Setting(");
        self.0.rust(out);
        out.push(')');
    }
}

impl Rust for SettingValue {
    fn rust(&self, out: &mut String) {
        match self {
            SettingValue::Action(a) => {
                out.push_str("SettingValue::Action(");
                a.rust(out);
            }
            SettingValue::Patterns(p) => {
                out.push_str("SettingValue::Patterns(");
                p.rust(out);
            }
        }
        out.push(')');
    }
}

struct InOrder<T>(Vec<(String, T)>);

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for InOrder<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for V<T> {
            type Value = InOrder<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, T>()? {
                    out.push((k, v));
                }
                Ok(InOrder(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

impl<'de> serde::Deserialize<'de> for SettingValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Either {
            Action(String),
            Patterns(InOrder<String>),
        }
        Ok(match Either::deserialize(d)? {
            Either::Action(a) => SettingValue::Action(a),
            Either::Patterns(p) => SettingValue::Patterns(p.0),
        })
    }
}

impl<'de> serde::Deserialize<'de> for Setting {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Setting(InOrder::<SettingValue>::deserialize(d)?.0))
    }
}

spec_struct! {
    /// `permission/arity.json`.
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ArityFile {
        pub about: String,
        pub ours: bool,
        pub default: usize,
        pub arity: BTreeMap<String, usize>,
        pub texts: ArityTexts,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ArityTexts {
        pub substitution: String,
        pub denied: String,
        pub not_asked: String,
    }
}

spec_struct! {
    /// `permission/hardline.json`.
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct HardlineFile {
        pub about: String,
        pub ours: bool,
        pub sets: BTreeMap<String, TargetSet>,
        pub commands: Vec<HardCommand>,
        pub redirects: Vec<HardRedirect>,
        pub paths: Vec<HardPath>,
        pub plain: Plain,
    }
}

spec_struct! {
    /// Operands a hardline entry refuses: spelled exactly (`/*` is itself), or matching a pattern.
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct TargetSet {
        #[serde(default)]
        pub exact: Vec<String>,
        #[serde(default)]
        pub patterns: Vec<String>,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct HardCommand {
        pub id: String,
        #[serde(default)]
        pub programs: Vec<String>,
        #[serde(default)]
        pub flags: Vec<String>,
        #[serde(default)]
        pub targets: Option<String>,
        #[serde(default)]
        pub operands: Vec<String>,
        #[serde(default)]
        pub line: Vec<String>,
        pub reason: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct HardRedirect {
        pub id: String,
        pub targets: String,
        pub reason: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct HardPath {
        pub id: String,
        pub patterns: Vec<String>,
        pub classes: Vec<String>,
        pub reason: String,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Plain {
        pub about: String,
        pub wrappers: BTreeMap<String, Wrapper>,
        pub shells: Vec<String>,
        pub eval: Vec<String>,
        pub home: Vec<String>,
    }
}

spec_struct! {
    #[derive(Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Wrapper {
        #[serde(default)]
        pub value: Vec<String>,
        #[serde(default)]
        pub assignments: bool,
        #[serde(default)]
        pub positional: usize,
    }
}

spec_struct! {
    /// `tools/<name>.json`: what the rules read of a tool (the rest is sent to a model as it is).
    #[derive(Debug, Default, Deserialize)]
    pub struct ToolFile {
        pub name: String,
        pub risk: String,
        pub permission: String,
        #[serde(default)]
        pub offered: Option<String>,
        pub description: String,
        pub parameters: serde_json::Value,
    }
}
