//! The shapes of the spec data under `rules/spec/`. This file is also compiled into `build.rs`,
//! which reads every file into these types — data that does not fit fails the build — and writes
//! each back as Rust (`rust.rs`), so the crate holds the data as values built by plain code and no
//! deserializer of these types is compiled into it. Only `serde` may be used here.

use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

use super::rust::{Rust, BUILD_ONLY, NOT_KEPT};

/// A text of the spec data, which is built in (a `static`): two words, where a `Cow` took three
/// (6,000 texts: 24 KB of the package's `.wasm`). What a deserializer reads into one is kept for
/// as long as the program runs — `build.rs` reads the spec files so, once; a person's settings
/// are read into [`Setting`], which owns its texts.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Str(pub &'static str);

impl Str {
    /// The text, borrowed for as long as the program runs.
    pub fn as_str(&self) -> &'static str {
        self.0
    }
}

impl Deref for Str {
    type Target = str;
    fn deref(&self) -> &str {
        self.0
    }
}

impl AsRef<str> for Str {
    fn as_ref(&self) -> &str {
        self.0
    }
}

impl std::borrow::Borrow<str> for Str {
    fn borrow(&self) -> &str {
        self.0
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.0, f)
    }
}

impl fmt::Display for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl PartialEq<str> for Str {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for Str {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for Str {
    fn eq(&self, other: &String) -> bool {
        self.0 == other.as_str()
    }
}

impl PartialEq<Str> for str {
    fn eq(&self, other: &Str) -> bool {
        self == other.0
    }
}

impl PartialEq<Str> for &str {
    fn eq(&self, other: &Str) -> bool {
        *self == other.0
    }
}

impl PartialEq<Str> for String {
    fn eq(&self, other: &Str) -> bool {
        self.as_str() == other.0
    }
}

impl From<String> for Str {
    /// The text kept for as long as the program runs.
    fn from(text: String) -> Self {
        Str(Box::leak(text.into_boxed_str()))
    }
}

impl<'de> serde::Deserialize<'de> for Str {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Str::from)
    }
}

/// A list of the spec data, built in like a [`Str`] (and read by a deserializer the same way).
#[derive(PartialEq, Eq)]
pub struct List<T: 'static>(pub &'static [T]);

impl<T> Clone for List<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for List<T> {}

impl<T> Default for List<T> {
    fn default() -> Self {
        List(&[])
    }
}

impl<T> Deref for List<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.0
    }
}

impl<T> AsRef<[T]> for List<T> {
    fn as_ref(&self) -> &[T] {
        self.0
    }
}

impl<T: fmt::Debug> fmt::Debug for List<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.0, f)
    }
}

impl<'a, T> IntoIterator for &'a List<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<T> From<Vec<T>> for List<T> {
    /// The list kept for as long as the program runs (see [`Str`]).
    fn from(items: Vec<T>) -> Self {
        List(Box::leak(items.into_boxed_slice()))
    }
}

impl<'de, T: serde::Deserialize<'de> + 'static> serde::Deserialize<'de> for List<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<T>::deserialize(d).map(List::from)
    }
}

/// A text of a person's permission settings: owned when read from their file, borrowed from the
/// built-in defaults.
pub type SettingText = Cow<'static, str>;

/// A table of the spec by name, sorted by name (the built-in data is a `static`, and a map
/// cannot be one).
#[derive(Debug, Clone, PartialEq)]
pub struct Map<T: Clone + 'static>(pub List<(Str, T)>);

impl<T: Clone + 'static> Default for Map<T> {
    fn default() -> Self {
        Map(List(&[]))
    }
}

/// `known.cmp(wanted)`, byte by byte in place: names are short, and a search of a sorted table of
/// them compares many, each told apart in a byte or two without a call to compare memory. Inlined
/// natively; in the `.wasm` one copy (each search its own copy was a kilobyte more gzipped).
#[cfg_attr(target_arch = "wasm32", inline(never))]
pub fn cmp_names(known: &str, wanted: &str) -> std::cmp::Ordering {
    for (a, b) in known.bytes().zip(wanted.bytes()) {
        if a != b {
            return a.cmp(&b);
        }
    }
    known.len().cmp(&wanted.len())
}

impl<T: Clone + 'static> Map<T> {
    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&T> {
        let i = self.0.binary_search_by(|(k, _)| cmp_names(k, key)).ok()?;
        self.0.get(i).map(|(_, v)| v)
    }

    /// Every key with its value, sorted by key.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &T)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), v))
    }

    /// Every key, sorted.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_ref())
    }
}

impl<T: Rust + Clone + 'static> Rust for Map<T> {
    fn rust(&self, out: &mut String) {
        out.push_str("Map(");
        self.0.rust(out);
        out.push(')');
    }
}

impl<'de, T: serde::Deserialize<'de> + Clone + 'static> serde::Deserialize<'de> for Map<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut pairs = InOrder::<Str, T>::deserialize(d)?.0;
        pairs.sort_by_key(|pair| pair.0);
        Ok(Map(List::from(pairs)))
    }
}

spec_struct! {
    /// `loop.json`: the `progress`, `team`, `subagents` and `context` sections.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Loop {
        pub about: Str,
        pub version: Str,
        pub progress: ProgressSpec,
        pub team: TeamSpec,
        pub subagents: SubagentsSpec,
        pub context: ContextSpec,
    }
}

spec_struct! {
    /// `blocks.json`: what each agent of the tree is told (subagents.md §13) — a file of its own,
    /// so that a build that never writes a system prompt (the npm package) holds none of it.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Blocks {
        pub about: Str,
        pub ours: List<Str>,
        pub team_lead: Str,
        pub team_member: Str,
        pub team_submanager: Str,
        pub read_only: Str,
    }
}

spec_struct! {
    /// `loop.json` `progress`: progress.md's phases, texts, line and pacing.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ProgressSpec {
        pub about: Str,
        pub phases: List<Str>,
        pub fields: Map<Map<Str>>,
        pub texts: ProgressTexts,
        pub reason: WaitReasons,
        pub what: PersonWhat,
        pub stopped_reason: StoppedReasons,
        pub line: Str,
        pub no_elapsed: List<Str>,
        pub what_max: usize,
        pub pace_per_second: u32,
        pub ours: List<Str>,
        pub elapsed: ElapsedTexts,
    }
}

spec_struct! {
    /// Each phase's text (progress.md §3), with its variants for missing data (`.bare`).
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ProgressTexts {
        pub queued: Str,
        #[serde(rename = "queued.ahead")]
        pub queued_ahead: Str,
        pub waiting_for_model: Str,
        pub loading_model: Str,
        pub reading_prompt: Str,
        #[serde(rename = "reading_prompt.bare")]
        pub reading_prompt_bare: Str,
        pub thinking: Str,
        pub writing: Str,
        #[serde(rename = "writing.bare")]
        pub writing_bare: Str,
        pub running_tool: Str,
        #[serde(rename = "running_tool.bare")]
        pub running_tool_bare: Str,
        pub waiting_for_person: Str,
        pub waiting_for_subagents: Str,
        pub compacting: Str,
        pub retrying: Str,
        pub stopped: Str,
        #[serde(rename = "stopped.reason")]
        pub stopped_reason: Str,
        pub failed: Str,
    }
}

spec_struct! {
    /// `waiting_for_model`'s reasons, in words.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct WaitReasons {
        pub busy: Str,
        pub slots: Str,
        pub group: Str,
    }
}

spec_struct! {
    /// `waiting_for_person`'s `what`, in words.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct PersonWhat {
        pub approval: Str,
        #[serde(rename = "approval.bare")]
        pub approval_bare: Str,
        pub question: Str,
        pub plan: Str,
    }
}

spec_struct! {
    /// `stopped`'s reasons, in words.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct StoppedReasons {
        pub person: Str,
        pub steps: Str,
        pub budget: Str,
    }
}

spec_struct! {
    /// How elapsed time is written (seconds, minutes, hours).
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ElapsedTexts {
        pub about: Str,
        pub seconds: Str,
        pub minutes: Str,
        pub hours: Str,
    }
}

spec_struct! {
    /// `loop.json` `team`: the main agent's tree (subagents.md §5–§13).
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct TeamSpec {
        pub about: Str,
        pub ours: List<Str>,
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
    /// The Subagents setting's defaults and its cap (team.md §2).
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct AgentsSetting {
        pub about: Str,
        pub min: u32,
        pub max: u32,
        pub cap: u32,
    }
}

spec_struct! {
    /// The names of the tree: the pattern a name fits, the main agent's, the reserved ones.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Names {
        pub about: Str,
        pub pattern: Str,
        pub lead: Str,
        pub reserved: List<Str>,
        pub all: Str,
        pub parent: Str,
        pub id_prefix: Str,
    }
}

spec_struct! {
    /// The marks a delivered text starts with, by what it is.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Marks {
        pub message: Str,
        pub report: Str,
        pub assignment: Str,
        pub request: Str,
        pub decision: Str,
        pub context_full: Str,
    }
}

spec_struct! {
    /// What a team tool answers while the team cannot be had.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Unavailable {
        pub about: Str,
        pub one_agent: Str,
        pub one_request: Str,
    }
}

spec_struct! {
    /// What a manager leaves to its subagents (team.md §6).
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Work {
        pub about: Str,
        pub classes: List<Str>,
        pub kept: List<Str>,
    }
}

spec_struct! {
    /// The team tools' answers and refusals, word for word.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct TeamTexts {
        pub added: Str,
        pub added_waiting: Str,
        pub sent: Str,
        pub stopped: Str,
        pub manager: Str,
        pub full: Str,
        pub bad_name: Str,
        pub all_name: Str,
        pub taken: Str,
        pub no_goal: Str,
        pub unknown: Str,
        #[serde(rename = "self")]
        pub self_: Str,
        pub nobody: Str,
        pub not_yours: Str,
        pub nobody_to_stop: Str,
        pub no_report: Str,
        pub ended: Str,
        pub only_main: Str,
        pub not_manager: Str,
        pub wider: Str,
        pub request_not_narrower: Str,
        pub request_kind: Str,
        pub requestable: Str,
        pub not_delegated: Str,
        pub not_requestable: Str,
        pub requested: Str,
        pub no_request: Str,
        pub decided: Str,
        pub allowed: Str,
        pub refused: Str,
        pub decision_allowed: Str,
        pub decision_refused: Str,
        pub no_parent: Str,
        pub finished: Str,
        pub has_ended: Str,
        pub cycle: Str,
        pub assigned: Str,
        pub replaced: Str,
        pub replace_brief: Str,
        pub no_findings: Str,
        pub noted: Str,
        pub not_yours_findings: Str,
        pub context_full: Str,
        pub gone: Str,
        pub request_body: Str,
        pub no_kinds: Str,
        pub task_full: Str,
        pub finding_text: Str,
    }
}

spec_struct! {
    /// team_read's texts: the tree's lines, the room, the states.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ReadTexts {
        pub about: Str,
        pub tree: Str,
        pub agent: Str,
        pub lead_role: Str,
        pub states: StateWords,
        pub active: Str,
        pub room: Str,
        pub message: Str,
        pub report: Str,
        pub none: Str,
        pub more: Str,
        pub slots: Str,
        pub ended: Str,
        pub ended_agent: Str,
        pub context: Str,
        pub request: Str,
        pub ago: Str,
        pub unknown: Str,
    }
}

spec_struct! {
    /// Each agent state's word.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct StateWords {
        pub working: Str,
        pub waiting: Str,
        pub finished: Str,
        pub idle: Str,
        pub paused: Str,
        pub done: Str,
        pub out_of_context: Str,
        pub stopped: Str,
    }
}

spec_struct! {
    /// The tools only the main agent may call.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct MainOnly {
        pub about: Str,
        pub tools: List<Str>,
    }
}

spec_struct! {
    /// When a subagent's context is full, and the steps of its final turn (§9).
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct TeamContext {
        pub about: Str,
        pub pause_at: f64,
        pub final_steps: u32,
    }
}

spec_struct! {
    /// team_request's request options and request ids (§7).
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct RequestSpec {
        pub about: Str,
        pub kinds: List<Str>,
        pub id_prefix: Str,
    }
}

spec_struct! {
    /// team_whoami's text.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Whoami {
        pub about: Str,
        pub lines: WhoamiLines,
    }
}

spec_struct! {
    /// team_whoami's lines.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct WhoamiLines {
        pub who: Str,
        pub parent: Str,
        pub task: Str,
        pub mode: Str,
        pub request: Str,
        pub model: Str,
        pub limits: Str,
        pub spawn_yes: Str,
        pub spawn_no: Str,
        pub context: Str,
    }
}

spec_struct! {
    /// team_findings' texts.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct FindingsTexts {
        pub about: Str,
        pub header: Str,
        pub item: Str,
    }
}

spec_struct! {
    /// `loop.json` `subagents`: which model a subagent runs on (subagents.md §2–§4).
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SubagentsSpec {
        pub about: Str,
        pub ours: List<Str>,
        pub texts: SubagentsTexts,
        pub setting: SettingLabels,
    }
}

spec_struct! {
    /// The model choice's refusals, word for word.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SubagentsTexts {
        pub one_request: Str,
        pub not_named: Str,
        pub same_server: Str,
        pub unknown_model: Str,
    }
}

spec_struct! {
    /// The Subagents setting's labels, for a client.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SettingLabels {
        pub label: Str,
        pub min: Str,
        pub max: Str,
        pub short: Str,
    }
}

spec_struct! {
    /// `loop.json` `context`: the notes a session adds to the main agent's context.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ContextSpec {
        pub about: Str,
        pub note: Notes,
    }
}

spec_struct! {
    /// The session notes (team.md §10), word for word.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Notes {
        pub team: Str,
        pub team_lead: Str,
        pub team_one: Str,
        pub team_own: Str,
        pub team_stopped: Str,
        pub empty: Str,
    }
}

spec_struct! {
    /// `permission/modes.json`.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ModesFile {
        pub about: Str,
        pub ours: bool,
        pub order: List<Str>,
        pub modes: Map<ModeTable>,
        pub reasons: ModeReasons,
    }
}

spec_struct! {
    /// A mode's action for each risk class.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ModeTable {
        pub read: Str,
        pub write: Str,
        pub execute: Str,
        pub interact: Str,
        #[serde(default)]
        pub ask_becomes: Option<Str>,
    }
}

spec_struct! {
    /// The reasons a decision gives, word for word.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ModeReasons {
        pub allow: Str,
        pub ask: Str,
        pub deny: Str,
        pub plan: Str,
        pub auto: Str,
        pub rule: Str,
        pub outside_root: Str,
        pub unattended: Str,
        /// The person answered an approval with no (this project's).
        pub person: Str,
        /// A line the reader cannot read exactly.
        pub opaque: Str,
        /// A refused program whose target is known only when it runs.
        pub unknown_target: Str,
        /// A redirection that opens a network connection (this project's).
        pub network: Str,
    }
}

spec_struct! {
    /// `permission/defaults.json`: `permission` maps a permission key to one action, or to patterns
    /// with their actions in document order (kept by the reader in `permission::rules`).
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct DefaultsFile {
        pub about: Str,
        pub ours: List<Str>,
        pub permission: Setting,
    }
}

/// A permission setting: each key's one action, or its patterns with their actions — in the
/// order written, since a later rule overrides an earlier one.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Setting(pub Cow<'static, [(SettingText, SettingValue)]>);

#[derive(Debug, Clone, PartialEq)]
/// A permission setting's value for a key.
pub enum SettingValue {
    /// One action for every pattern.
    Action(SettingText),
    /// Patterns, each with its action, in the order written.
    Patterns(Cow<'static, [(SettingText, SettingText)]>),
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

/// An object's entries in the order written, each key a `K` made from the text read.
struct InOrder<K, T>(Vec<(K, T)>);

impl<'de, K: From<String>, T: serde::Deserialize<'de>> serde::Deserialize<'de> for InOrder<K, T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<K, T>(std::marker::PhantomData<(K, T)>);
        impl<'de, K: From<String>, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for V<K, T> {
            type Value = InOrder<K, T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, T>()? {
                    out.push((K::from(k), v));
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
            Patterns(InOrder<SettingText, SettingText>),
        }
        Ok(match Either::deserialize(d)? {
            Either::Action(a) => SettingValue::Action(Cow::Owned(a)),
            Either::Patterns(p) => SettingValue::Patterns(Cow::Owned(p.0)),
        })
    }
}

impl<'de> serde::Deserialize<'de> for Setting {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Setting(Cow::Owned(
            InOrder::<SettingText, SettingValue>::deserialize(d)?.0,
        )))
    }
}

spec_struct! {
    /// `permission/arity.json`.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ArityFile {
        pub about: Str,
        pub ours: bool,
        pub default: usize,
        pub arity: Map<usize>,
        pub texts: ArityTexts,
    }
}

spec_struct! {
    /// The approval's texts (what "always allow" says it cannot do).
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ArityTexts {
        pub substitution: Str,
        pub denied: Str,
        pub not_asked: Str,
        /// A command with an effect, or a network redirection (this project's).
        pub effect: Str,
        /// A command whose kept words hold `*` or `?` (this project's).
        pub wildcard: Str,
    }
}

spec_struct! {
    /// `permission/hardline.json`.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct HardlineFile {
        pub about: Str,
        pub ours: bool,
        pub sets: Map<TargetSet>,
        pub commands: List<HardCommand>,
        pub redirects: List<HardRedirect>,
        pub paths: List<HardPath>,
        pub writes: List<HiddenWrite>,
        #[serde(default)]
        pub tree_reads: List<TreeRead>,
        pub plain: Plain,
    }
}

spec_struct! {
    /// A program that reads whole the folders its operands name (`cp -r`, `rsync -a`, `tar -c`,
    /// `zip -r`): each is refused where a path no tool may read is under it.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct TreeRead {
        pub programs: List<Str>,
        /// Read so only with one of these options given (always, when empty).
        #[serde(default)]
        pub when: List<Str>,
        /// The operands read: `all`; `all_but_last` (the last is where they go, unless one
        /// of `destination_options` names that place); `all_but_first` (the first is the
        /// archive written: `zip -r out.zip DIR`); `files` (all but the program's pattern, as
        /// programs.json `reads` says where it is: `grep -r KEY ~`, `grep -r -e KEY ~`).
        pub operands: Str,
        /// The folder read when no operand is given (`grep -r KEY` reads `.`, the folder the
        /// line is in when it runs).
        #[serde(default)]
        pub without_operands: Option<Str>,
        /// A folder read whatever the operands (`git grep --no-index` searches where it runs):
        /// read from each folder of `folder_options` too.
        #[serde(default)]
        pub also_reads: Option<Str>,
        #[serde(default)]
        pub destination_options: List<Str>,
        /// Letters of an old-style first word (no dash: `tar czf`) that read so, as `when`'s
        /// options do.
        #[serde(default)]
        pub first_letters: Option<Str>,
        /// Options naming the folder the operands after them are read from (`tar -C DIR`).
        #[serde(default)]
        pub folder_options: List<Str>,
        /// Its other options that take the next word as their value (`scp -i KEY`, `tar -f
        /// FILE`): not operands.
        #[serde(default)]
        pub values: List<Str>,
    }
}

spec_struct! {
    /// Paths a hardline entry protects: `exact` paths, and `patterns` whose `*` and `?` stand
    /// within one path segment (as a shell's globs do) and whose `**` stands for any segments. A target that is a glob is in the set
    /// when it can match one of them.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct TargetSet {
        #[serde(default)]
        pub exact: List<Str>,
        #[serde(default)]
        pub patterns: List<Str>,
    }
}

spec_struct! {
    /// A command the hardline refuses: every condition given must hold.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct HardCommand {
        pub id: Str,
        #[serde(default)]
        pub programs: List<Str>,
        /// One of these options is given.
        #[serde(default)]
        pub flags: List<Str>,
        /// None of these options is given.
        #[serde(default)]
        pub unless: List<Str>,
        /// The first operand is one of these.
        #[serde(default)]
        pub subcommands: List<Str>,
        /// An operand is in this set.
        #[serde(default)]
        pub targets: Option<Str>,
        /// Only operands that start with this are targets, read after it (`of=`).
        #[serde(default)]
        pub target_prefix: Option<Str>,
        /// `last`: only the last operand is a target (a copy's destination); `all`: every
        /// operand is one, with the values of `target_options` (git's paths and its `-C`).
        #[serde(default)]
        pub target_operand: Option<Str>,
        /// Its last operand (of two or more) is the folder the others go into when it is one:
        /// the home there (`cp x ~`, `mv x ~/`) is judged as a path inside it, not as the home.
        #[serde(default)]
        pub into_last: bool,
        /// An operand matches one of these.
        #[serde(default)]
        pub operands: List<Str>,
        /// Any word of its arguments matches one of these.
        #[serde(default)]
        pub words: List<Str>,
        /// An operand is a pattern that matches every name (`.`, `.*`, `^`).
        #[serde(default)]
        pub broad: bool,
        /// It has no operand but signal numbers (`pkill -9 -u me`: every process of the user).
        #[serde(default)]
        pub no_operands: bool,
        /// Options whose next word is their value, not an operand.
        #[serde(default)]
        pub value_options: List<Str>,
        /// Short options whose value may be joined to them in a cluster (`date -Iseconds`): the
        /// letters after one are its value, not options.
        #[serde(default)]
        pub attached_options: List<Str>,
        /// The values of these options are targets (`docker run -v SRC:DST`: the part before
        /// `:`; `--mount`'s `source=`).
        #[serde(default)]
        pub target_options: List<Str>,
        /// A word without a dash that is a cluster of BSD options holds one of these letters
        /// (`ps eww`).
        #[serde(default)]
        pub bsd_letters: Option<Str>,
        /// Its BSD cluster is its first argument only (`tar xf`), not any operand (`ps … eww`).
        #[serde(default)]
        pub bsd_first: bool,
        /// Its first operand is an owner, a group, a mode or a context, not a target
        /// (`chown -R $USER ./x`) — unless one of `owner_options` is given.
        #[serde(default)]
        pub owner_first: bool,
        #[serde(default)]
        pub owner_options: List<Str>,
        /// A function that calls itself (a fork bomb).
        #[serde(default)]
        pub self_calling: bool,
        /// It judges only the subcommands it names: the program's other commands are read as
        /// those of a program lembas does not know (`npm config get …:_authToken` is judged by
        /// it; `npm exec rimraf ~` still runs rimraf).
        #[serde(default)]
        pub narrow: bool,
        pub reason: Str,
    }
}

spec_struct! {
    /// A hardline redirect: where a write may never go, and why.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct HardRedirect {
        pub id: Str,
        pub targets: Str,
        pub reason: Str,
    }
}

spec_struct! {
    /// A protected path for calls of these classes. `ask` entries guard rather than refuse.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct HardPath {
        pub id: Str,
        pub patterns: List<Str>,
        /// Patterns relative to the project root.
        #[serde(default)]
        pub root_patterns: List<Str>,
        /// Paths the entry does not cover.
        #[serde(default, rename = "except")]
        pub except_patterns: List<Str>,
        pub classes: List<Str>,
        #[serde(default)]
        pub ask: bool,
        /// An `ask` entry whose files run code later, outside any sandbox (git's config, a
        /// shell's startup files): auto mode, which asks nothing, refuses a write of them.
        #[serde(default)]
        pub refused_in_auto: bool,
        /// A folder copied or moved whole that becomes one on the way to its `*/` patterns,
        /// wherever it lands (`cp -r /tmp/s/.git .` brings `.git/hooks`), is refused too.
        #[serde(default)]
        pub planted: bool,
        pub reason: Str,
    }
}

spec_struct! {
    /// A program that writes files named by its words: `options` whose value is a written path,
    /// and its operands when `operands` is `all` or `last` (with one of `when` given, if any, and
    /// none of `unless`).
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct HiddenWrite {
        pub programs: List<Str>,
        #[serde(default)]
        pub subcommands: List<Str>,
        #[serde(default)]
        pub options: List<Str>,
        #[serde(default)]
        pub operands: Option<Str>,
        #[serde(default)]
        pub when: List<Str>,
        /// Its options that take the next word as their value (`rsync --exclude .git`): not
        /// operands.
        #[serde(default)]
        pub values: List<Str>,
        /// It writes nothing with one of these options given (`gzip -c`: to its output).
        #[serde(default)]
        pub unless: List<Str>,
        /// What its options write is a program it builds from the files it names (`gcc -o
        /// app`), not text the line gives: running it after is not running what the line wrote.
        #[serde(default)]
        pub builds: bool,
        /// With one of these options given it builds no program but text (`gcc -E`, `-S`).
        #[serde(default)]
        pub builds_unless: List<Str>,
        #[serde(default)]
        pub prefix: Option<Str>,
        /// The options with which it writes each address it is given to a file named by the
        /// last part of the address's path, in the folder it runs in (`curl -O URL`); `*`:
        /// always (`wget URL`), unless one of `unless` is given.
        #[serde(default)]
        pub names_from_addresses: List<Str>,
        /// Whether what it writes whole it deletes or moves away (`rm -r`, `rsync --delete`,
        /// `mv`): the project itself, or a folder above it, takes its repository with it.
        #[serde(default)]
        pub deletes: bool,
        /// The options with which each operand it writes is written whole, a folder with
        /// everything in it (`rm -r`); `*`: always (`mv`).
        #[serde(default)]
        pub trees: List<Str>,
        /// Whether its last operand is the place the others go (`mv a b dir`): not written
        /// whole (what goes into a folder leaves the folder's files), unless an option of
        /// `destination_options` names that place instead (`mv -t dir a b`).
        #[serde(default)]
        pub destination_last: bool,
        /// The options that name the place the operands go (`-t`).
        #[serde(default)]
        pub destination_options: List<Str>,
        /// Whether its other operands go into the last, a folder: each is written there by its
        /// name (`cp -r gh ~/.config` writes `~/.config/gh`).
        #[serde(default)]
        pub sources_into_last: bool,
        /// The options with which each source goes in whole, a folder with everything in it
        /// (`cp -r`); `*`: always (`mv`).
        #[serde(default)]
        pub source_trees: List<Str>,
        /// The options with which a source's contents go into the last operand itself, written
        /// whole (`cp -T x ~`), as a source spelled `x/.` does.
        #[serde(default)]
        pub contents_options: List<Str>,
        /// Whether a source ending in `/` is its folder's contents too (rsync's `x/`).
        #[serde(default)]
        pub contents_slash: bool,
        /// The options with which each source keeps its path under the last operand
        /// (`cp --parents a/b DIR` writes `DIR/a/b`; `rsync -R`).
        #[serde(default)]
        pub path_options: List<Str>,
    }
}

spec_struct! {
    /// How a command is read plainly (see the file's `about`).
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Plain {
        pub about: Str,
        pub wrappers: Map<Wrapper>,
        pub shells: List<Str>,
        pub other_shells: List<Str>,
        /// Programs that run the shell lines of their input (`at`): opaque.
        pub input_shells: List<Str>,
        /// GNU tools that macOS installs under a `g` name (`grm`): read as the tool.
        pub gnu_names: List<Str>,
        pub shell_values: List<Str>,
        pub opaque: Map<Str>,
        pub unsafe_variables: List<Str>,
        /// Variables `unsafe_variables` names that change no program run nor file read: who
        /// wrote a commit and when (`GIT_AUTHOR_EMAIL`).
        #[serde(default)]
        pub safe_variables: List<Str>,
        /// Options whose value is text a program shows or keeps (`--title`, `-m`): a word after
        /// one, in a command of a program lembas does not know, is not read as a line.
        #[serde(default)]
        pub text_options: List<Str>,
        /// Variables whose value is a line a program runs (`GIT_PAGER`, `EDITOR`): assigned
        /// before a command, the value is read as that line instead of making the line opaque.
        #[serde(default)]
        pub line_variables: List<Str>,
        /// Values of `unsafe_variables` that are safe, by variable: each word of the value
        /// matches one of the patterns (`NODE_OPTIONS=--max-old-space-size=4096`).
        #[serde(default)]
        pub safe_values: Map<List<Str>>,
        /// Options whose value is a key the program signs in with and never shows (`scp -i`),
        /// by program: not a read of a secret.
        #[serde(default)]
        pub key_options: Map<List<Str>>,
        /// Options with which a program reads a file its words do not name, by program (`curl
        /// -n` reads `~/.netrc`): that file is judged as a read of it.
        #[serde(default)]
        pub option_reads: Map<Map<Str>>,
        /// Variables of the person's environment that name an account file or a folder of them,
        /// with the path each names when it is not set (`KUBECONFIG`: `~/.kube/config`): a word
        /// reading through one (`cat $KUBECONFIG`), whether or not the line sets it, is judged as
        /// a read of that path too.
        #[serde(default)]
        pub variable_paths: Map<Str>,
        /// Programs that give a variable a value from their input or their words (`read`,
        /// `mapfile`), each with the options that make them do so (none: always; `printf`:
        /// `-v`): in a line with one, every word spelling a path no tool may read is read.
        #[serde(default)]
        pub input_values: Map<List<Str>>,
        /// How a package word says where the package comes from (npm's spellings).
        #[serde(default)]
        pub package_words: PackageWords,
        /// The names a program's input goes by as a file (`-`, `/dev/stdin`): a file of code
        /// of one of them is the input, not a file.
        #[serde(default)]
        pub input_names: List<Str>,
        /// By program, the files of code it runs (`make -f FILE`, else `Makefile`): from its
        /// input or a file the line wrote, the command is opaque.
        #[serde(default)]
        pub code_files: Map<CodeFiles>,
        /// By program, the letters of its old-style first word (no dash: `tar cgf SNAP OUT`)
        /// that take a value: each the next word after the cluster, in turn.
        #[serde(default)]
        pub old_style: Map<Str>,
        pub changes_directory: List<Str>,
        pub links: List<Str>,
        /// Devices that hold no file: reading or writing them reads or writes nothing.
        pub devices: List<Str>,
        /// Programs that change a file's owner or mode and read none of it (`chmod -R 700
        /// ~/.ssh` reads no key).
        pub metadata: List<Str>,
        /// Programs that read no file's contents, only its name, size or kind (`ls`, `du`):
        /// `find -exec` giving them every file under a folder reads nothing of it whole.
        #[serde(default)]
        pub names_only: List<Str>,
        /// Programs lembas has no grammar for that read the files their words name and write
        /// none (linters, viewers: `shellcheck`, `yamllint`, `bat`): their words are not taken
        /// for files they may write (what they read is judged as any program's).
        #[serde(default)]
        pub readers: List<Str>,
        /// Programs that write out the names of the files under a folder they are given
        /// (`find`, `ls`), each with the options it needs to (`rg`: `--files`; none: always).
        #[serde(default)]
        pub listers: Map<List<Str>>,
        /// Builtins that set variables otherwise than by an assignment standing alone.
        #[serde(default)]
        pub setting_commands: SettingCommands,
        /// The spellings of a command substitution that makes the folder the command runs in
        /// (`$(pwd)`, `` `pwd -P` ``): a word whose only substitutions they are reads them as
        /// `$PWD`.
        #[serde(default)]
        pub pwd_substitutions: List<Str>,
        /// Paths a redirection opens a network connection through (wildcards).
        pub network: List<Str>,
        /// The command a network redirection is judged as in auto mode.
        pub network_like: Str,
        /// Programs that only write their words out and never run them (`printf`): a word of
        /// theirs that holds a line is text.
        #[serde(default)]
        pub text_programs: List<Str>,
        /// Options whose value a program lembas does not know may run as a line (`-c`,
        /// `--run`, `--exec`): read for what the hardline refuses in it, where another option's
        /// value (a title, a test's name) is not.
        #[serde(default)]
        pub line_options: List<Str>,
        /// Path entries (`paths` ids) whose paths a program lembas knows nothing of may write
        /// when a word of it names one, whole or as a piece of its text (`python3 x.py
        /// ~/.bashrc`, `node -e "…('.git/hooks/x', …)"`): judged as a write of that path. Each
        /// with the text the path must hold to count (`/.git/`: git's internals only inside a
        /// `.git` folder, not `origin/HEAD`), or nothing.
        #[serde(default)]
        pub unlisted_writes: Map<Str>,
        /// How a line of code (`python3 -c CODE`) or an unlisted program's word is read for
        /// the paths it names and the lines it runs.
        #[serde(default)]
        pub code: CodeWords,
        /// How `find`'s words choose the files it finds.
        #[serde(default)]
        pub find: FindWords,
    }
}

spec_struct! {
    /// Builtins that set variables otherwise than by an assignment standing alone.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SettingCommands {
        /// Those whose `NAME=value` words set the variable as an assignment standing alone
        /// does, their other words changing no value (`export`, `readonly`).
        #[serde(default)]
        pub plainly: List<Str>,
        /// Those that set the variable an option names, joined to it or after it (`printf
        /// -vF`, `read -aF`): by program, the option.
        #[serde(default)]
        pub naming_options: Map<Str>,
    }
}

spec_struct! {
    /// The spellings in a line of code that bear on what it may do with the paths it names.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct CodeWords {
        /// How it reaches the home without spelling its path (`os.path.expanduser`,
        /// `process.env.HOME`): a text holding one may put any hidden name it holds under the
        /// home (`joinpath('.bashrc')`), and in its strings it stands for `~`.
        #[serde(default)]
        pub home_words: List<Str>,
        /// Signs that it writes, deletes or runs something (`write`, `'w'`, `unlink`, `>`,
        /// `system`): a text with none of them only reads the paths it names, and a path the
        /// hardline guards only from writes (`.git/HEAD`) is not judged for it.
        #[serde(default)]
        pub writes: List<Str>,
        /// Signs that it deletes a folder with what it holds, or moves it away (`rmtree`,
        /// `rm_rf`, `rmSync`, `rename`): each path it names is judged as `rm -rf PATH` is.
        #[serde(default)]
        pub deletes: List<Str>,
        /// Signs that it unpacks an archive into a folder (`extractall`, `unpack_archive`):
        /// each path it names is judged as a folder `tar -x -C PATH` unpacks into is.
        #[serde(default)]
        pub unpacks: List<Str>,
        /// How it names the folder it runs in (`os.getcwd()`, `process.cwd()`): deleting, it
        /// may delete that folder (`.`).
        #[serde(default)]
        pub folder_words: List<Str>,
        /// The calls that run a command it gives them (`system`, `run`, `execSync`, `spawn`,
        /// fzf's `execute`): their strings are read as the shell line they run.
        #[serde(default)]
        pub runs: List<Str>,
    }
}

spec_struct! {
    /// `find`'s words that bear on which files it finds.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct FindWords {
        /// Its options that choose no file (`-depth`, `-xdev`): a `-delete` after only these
        /// deletes every file under its start points.
        #[serde(default)]
        pub chooses_no_file: List<Str>,
        /// Its tests of names (`-name`, `-path`): before an action, they narrow the names it
        /// finds, so that `{}` stands for no hidden folder's files unless it says so.
        #[serde(default)]
        pub name_tests: List<Str>,
        /// Its tests, options and actions that take a value (`-mtime N`, `-newer*`: a
        /// wildcard for a family).
        #[serde(default)]
        pub one_value: List<Str>,
        /// Those that take two (`-fprintf FILE FORMAT`).
        #[serde(default)]
        pub two_values: List<Str>,
        /// The project's hidden folders whose files the hardline guards from writes (`.git`,
        /// `.git/hooks`, `.husky`), each with the names of the files and folders it guards in
        /// it (none: a name no test can be read against; the folder counts only where nothing
        /// narrows the names found). find passes over no hidden name, so `{}` stands for their
        /// files too, unless a test of names narrows it to names none of them has.
        #[serde(default)]
        pub hidden_folders: Map<List<Str>>,
        /// The names the hardline guards at the project's root (`.git`, `.husky`,
        /// `lefthook.yml`, `.pre-commit-config.yaml`, a bare repository's `config`).
        #[serde(default)]
        pub root_names: List<Str>,
    }
}

spec_struct! {
    /// The spellings of a package word that say where the package comes from, as npx, pnpm dlx
    /// and bunx read them.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct PackageWords {
        /// Endings of a tarball (`rimraf-5.0.9.tgz`): its file name is not its program's.
        pub archives: List<Str>,
        /// Starts of an address that names no program (`git@host:x/y`, `file:../x`).
        pub addresses: List<Str>,
        /// Starts of a repository whose last name is its program (`github:isaacs/rimraf`).
        pub repositories: List<Str>,
    }
}

spec_struct! {
    /// Where a program finds the file of code it runs (`make`'s makefile).
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct CodeFiles {
        /// Options whose value is the file (`-f`, `--file`), in any spelling.
        #[serde(default)]
        pub options: List<Str>,
        /// The names it looks for in the folder it runs in when no option gives one.
        #[serde(default)]
        pub defaults: List<Str>,
        /// Wildcards of its program given as its pattern (programs.json `reads`), leading
        /// whitespace trimmed, with which it loads files its words do not name (jq's
        /// `import`): the command is opaque.
        #[serde(default)]
        pub directives: List<Str>,
    }
}

spec_struct! {
    /// A program that runs the command after it.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Wrapper {
        /// Options that take a value (the next word, or after `=`, or joined to a short one).
        #[serde(default)]
        pub value: List<Str>,
        /// `NAME=value` words before the command are skipped.
        #[serde(default)]
        pub assignments: bool,
        /// Words before the command that are not options (a duration, a new root, a file).
        #[serde(default)]
        pub positional: usize,
        /// Options whose value is a shell line it runs.
        #[serde(default)]
        pub line: List<Str>,
        /// Options after which the rest of the words are joined and run as a shell line.
        #[serde(default)]
        pub joined: List<Str>,
        /// It runs the rest of its words joined as a shell line (`watch`).
        #[serde(default)]
        pub joins: bool,
        /// It runs no command of its words but through `line` options.
        #[serde(default)]
        pub no_command: bool,
        /// With `no_command`, its operands are files it writes (`script -c LINE FILE`).
        #[serde(default)]
        pub written_operands: bool,
        /// Options whose value is a file it writes (`script -O FILE`), in any spelling.
        #[serde(default)]
        pub written_options: List<Str>,
        /// Its operands are appended to the command from its input (`xargs`): unknown.
        #[serde(default)]
        pub input: bool,
        /// With no command of its own, it runs each line of its input as one (`parallel`).
        #[serde(default)]
        pub input_commands: bool,
        /// Options whose value is the folder the command runs in (`env -C`, `sudo -D`).
        #[serde(default)]
        pub chdir: List<Str>,
        /// Options with which it runs what cannot be read (`screen -X`, `gdb -x FILE`).
        #[serde(default)]
        pub opaque: List<Str>,
        /// Words (wildcards, no letter case) that make it run what cannot be read (`ssh -o
        /// ProxyCommand=…`).
        #[serde(default)]
        pub opaque_values: List<Str>,
        /// Options whose value is one of its own commands (gdb's `-ex`).
        #[serde(default)]
        pub commands: List<Str>,
        /// Prefixes of its own commands after which the rest is a shell line (`!`, `shell `).
        #[serde(default)]
        pub command_lines: List<Str>,
        /// First words of its own commands that run what cannot be read (`python`, `pipe`).
        #[serde(default)]
        pub command_opaque: List<Str>,
        /// The words after its options are a shell's arguments (`capsh -- -c LINE`).
        #[serde(default)]
        pub shell_args: bool,
        /// With nothing to run it runs a shell, which reads its input (`su -`).
        #[serde(default)]
        pub shell_when_empty: bool,
        /// Its first word names a subcommand, read by its own grammar (`tmux new-session`).
        #[serde(default)]
        pub subcommands: Map<Wrapper>,
        /// Options that set the text it replaces with each operand it reads (xargs's `-I X`,
        /// `-IX`, `-i`, `-iX`, `--replace=X`; alone, `{}`): a value after a short one that
        /// takes a value (`value`), joined to a short one, or after a long one's `=`.
        #[serde(default)]
        pub replace: List<Str>,
    }
}

impl Wrapper {
    /// Every option its lists name.
    pub fn all(&self) -> impl Iterator<Item = &str> {
        self.value
            .iter()
            .chain(self.line.iter())
            .chain(self.joined.iter())
            .chain(self.chdir.iter())
            .chain(self.opaque.iter())
            .chain(self.commands.iter())
            .chain(self.replace.iter())
            .map(|o| o.as_ref())
    }
}

spec_struct! {
    /// `tools/<name>.json`: what the rules read of a tool (the rest — its description and
    /// parameters — is sent to a model as the file has it).
    #[derive(Debug, Default, Clone, Deserialize)]
    pub struct ToolFile {
        pub name: Str,
        pub risk: Str,
        pub permission: Str,
        #[serde(default)]
        pub offered: Option<Str>,
    }
}

spec_struct! {
    /// `permission/programs.json`: what the programs a rule may name do, read from their words
    /// (see the file's `about`).
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ProgramsFile {
        pub about: Str,
        pub ours: bool,
        /// What every command runs with (the grammars hold in it).
        pub environment: Map<Str>,
        /// Named sets of options a grammar may `use`.
        pub sets: Map<Map<ValueKind>>,
        pub programs: Map<Program>,
    }
}

spec_struct! {
    /// One program: the grammar of its read-only forms, the options that make an approval not
    /// cover it, and the examples its grammar must accept and refuse.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Program {
        #[serde(default)]
        pub read_only: Option<Grammar>,
        #[serde(default)]
        pub effects: Option<Effects>,
        #[serde(default)]
        pub reads: Option<Reads>,
        /// Lines the grammar accepts (checked by build.rs).
        #[serde(default, rename = "match")]
        pub matches: List<Str>,
        /// Lines the grammar refuses (checked by build.rs).
        #[serde(default)]
        pub not_match: List<Str>,
    }
}

/// How an option of a read-only grammar takes a value (permission/programs.json).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueKind {
    /// No value.
    #[default]
    Flag,
    /// A value that names no file: the next word, after `=`, or joined to a short option.
    Text,
    /// A value only after `=` or joined to a short option; the next word is not its value.
    Optional,
    /// A file it reads, taken as `Text` is.
    Path,
    /// A file or a folder it reads whole, taken as `Text` is.
    Tree,
    /// A value in the next word, unless it is the last word or starts with `-` (git's "last
    /// argument default": `--merged` alone is `--merged HEAD`).
    #[serde(rename = "last_optional")]
    LastOptional,
}

impl Rust for ValueKind {
    fn rust(&self, out: &mut String) {
        out.push_str(match self {
            ValueKind::Flag => "ValueKind::Flag",
            ValueKind::Text => "ValueKind::Text",
            ValueKind::Optional => "ValueKind::Optional",
            ValueKind::Path => "ValueKind::Path",
            ValueKind::Tree => "ValueKind::Tree",
            ValueKind::LastOptional => "ValueKind::LastOptional",
        });
    }
}

/// What a read-only grammar's operands are (permission/programs.json).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OperandKind {
    /// It takes none.
    #[default]
    None,
    /// Words that name no file.
    Text,
    /// Names it lists, never reads (`ls`).
    List,
    /// Files it reads.
    Path,
    /// Files or folders it reads whole (`git diff --no-index`).
    Tree,
    /// A git revision or a path; after its first `:`, a path in the repository.
    Revision,
}

impl Rust for OperandKind {
    fn rust(&self, out: &mut String) {
        out.push_str(match self {
            OperandKind::None => "OperandKind::None",
            OperandKind::Text => "OperandKind::Text",
            OperandKind::List => "OperandKind::List",
            OperandKind::Path => "OperandKind::Path",
            OperandKind::Tree => "OperandKind::Tree",
            OperandKind::Revision => "OperandKind::Revision",
        });
    }
}

spec_struct! {
    /// The read-only forms of a program or of one of its subcommands.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Grammar {
        /// Each option, spelled exactly, with how it takes a value.
        #[serde(default)]
        pub options: Map<ValueKind>,
        /// Sets of options (the file's `sets`) added to `options`.
        #[serde(default, rename = "use")]
        pub use_sets: List<Str>,
        /// Options that change what the operands are, with the kind they make them.
        #[serde(default)]
        pub switches: Map<OperandKind>,
        /// With exactly two operands, before or after `--`, what they are: `git diff A B` (and
        /// `git diff -- A B`) compares two paths whole when either is outside the repository or
        /// there is none.
        #[serde(default)]
        pub pair: Option<OperandKind>,
        /// Values an option may not be given (wildcards): `--format=%G?` runs gpg.
        #[serde(default)]
        pub refused_values: Map<List<Str>>,
        /// Short options may be bundled and take their value joined.
        #[serde(default)]
        pub clusters: bool,
        /// `-5` is an option.
        #[serde(default)]
        pub numbers: bool,
        /// The first operand ends the options.
        #[serde(default)]
        pub options_first: bool,
        /// `--` is an operand like any other.
        #[serde(default)]
        pub no_dashes: bool,
        /// A word that is not an option it knows is text.
        #[serde(default)]
        pub text_options: bool,
        /// What its operands are.
        #[serde(default)]
        pub operands: OperandKind,
        #[serde(default)]
        pub max_operands: Option<usize>,
        /// Each operand matches one of these wildcards.
        #[serde(default)]
        pub operand_patterns: List<Str>,
        /// The first operand names a subcommand, read by its grammar.
        #[serde(default)]
        pub subcommands: Map<Grammar>,
    }
}

spec_struct! {
    /// A program whose operands are files it reads: its options that take a value, and whether
    /// its first operand is a pattern (unless one of `pattern_options` gives it).
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Reads {
        #[serde(default)]
        pub values: List<Str>,
        #[serde(default)]
        pub pattern_first: bool,
        #[serde(default)]
        pub pattern_options: List<Str>,
        /// Options that take the next two words (jq's `--arg NAME VALUE`).
        #[serde(default)]
        pub pairs: List<Str>,
        /// Options whose value is a file it reads (`grep -f FILE`, `diff -X FILE`), judged as
        /// its operands are.
        #[serde(default)]
        pub file_options: List<Str>,
        /// Options whose value is a file or a folder it reads whole (`diff --from-file=DIR`,
        /// `jq -L DIR`).
        #[serde(default)]
        pub tree_options: List<Str>,
    }
}

spec_struct! {
    /// What makes an approval not cover a command of a program: options that run code or that
    /// write or read files the line does not name, operands that do, a script read for them.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Effects {
        #[serde(default)]
        pub runs: List<Str>,
        #[serde(default)]
        pub writes: List<Str>,
        /// Operands (wildcards, no letter case) that run or set code.
        #[serde(default)]
        pub runs_operands: List<Str>,
        /// The program's script is read for commands that run or write (`sed`, `awk`).
        #[serde(default)]
        pub script: Option<Str>,
        /// Its first operand is a cluster of options (`tar xIf`).
        #[serde(default)]
        pub first_operand_options: bool,
        /// Options that take a value: an approval's pattern keeps them whole.
        #[serde(default)]
        pub values: List<Str>,
        /// Options whose value, after the prefix given, is a shell line it runs
        /// (`--checkpoint-action=exec=LINE`): the hardline reads it as a line.
        #[serde(default)]
        pub lines: Map<Str>,
        /// Settings (`-c KEY=VALUE`, `config KEY VALUE`) whose value is a line git runs.
        #[serde(default)]
        pub config_lines: List<Str>,
        /// Settings with which git runs code the line does not give (`include.path` reads
        /// settings from a file, `core.hooksPath` runs a folder's hooks): opaque.
        #[serde(default)]
        pub config_unreadable: List<Str>,
        /// Programs that run no code from their input or their words (`cat`, `less`, `vim`): a
        /// `config_lines` or an editor's (`config_editors`) setting kept with one of them, alone
        /// or with plain flags (`less -FRX`), is read as before; any other value is opaque.
        #[serde(default)]
        pub config_safe_values: List<Str>,
        /// Settings of `config_unreadable` that name an editor: one of `config_safe_values`
        /// names no code.
        #[serde(default)]
        pub config_editors: List<Str>,
        /// Settings whose value names a program only when it is a path (`sendemail.smtpServer`:
        /// else a host name).
        #[serde(default)]
        pub config_path_programs: List<Str>,
        /// Settings whose plain word names a helper git runs as `git credential-WORD`
        /// (`credential.helper store`): a plain word names no code of the line's.
        #[serde(default)]
        pub config_helper_words: List<Str>,
        /// Operands (wildcards, no letter case) whose value after `=` the program puts into the
        /// lines it runs (`make CC=VALUE`): the hardline reads the value as a line.
        #[serde(default)]
        pub line_operands: List<Str>,
        /// Operands after which the rest of the words are a command it runs through the shell,
        /// as `sh -c 'FIRST "$@"' FIRST REST…` (`git bisect run CMD ARGS`): read as that line.
        #[serde(default)]
        pub commands_after: List<Str>,
        /// Every subcommand the program has of its own (git's, by `git --list-cmds=main`): a
        /// first operand not among them may be an alias the person defined, read as a program
        /// lembas does not know.
        #[serde(default)]
        pub subcommand_names: List<Str>,
        /// Options with which it runs code the line does not give (`make --eval`): opaque.
        #[serde(default)]
        pub unreadable: List<Str>,
        /// Its `-c KEY=VALUE` and `--config KEY=VALUE` options are settings, read by its
        /// program's `config_lines` and `config_unreadable` (`git clone -c`).
        #[serde(default)]
        pub config_options: bool,
        /// Its operands are `KEY VALUE` settings, read by its program's `config_lines` (`git
        /// config`).
        #[serde(default)]
        pub settings: bool,
        /// The settings it is given are kept in a file and run later, outside any sandbox
        /// (`git config core.fsmonitor CMD`, `git clone -c`): a `config_lines` one is opaque,
        /// not read as a line, but for its program's `config_safe_values`, a host name of a
        /// `config_path_programs` setting and a helper's plain word.
        #[serde(default)]
        pub persists: bool,
        #[serde(default)]
        pub subcommands: Map<Effects>,
    }
}

spec_struct! {
    /// `permission/sandbox.json` (this project's): what a command may reach in each mode, held by
    /// the kernel.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SandboxFile {
        pub about: Str,
        pub ours: bool,
        pub modes: Map<SandboxMode>,
        pub devices: List<Str>,
        pub hidden: List<Str>,
        pub homes: List<Str>,
        pub hidden_system: List<Str>,
        pub syscalls: List<Str>,
        pub metadata_syscalls: List<Str>,
        pub environment: SandboxEnvironment,
        pub texts: SandboxTexts,
    }
}

spec_struct! {
    /// The variables of lembas's environment no command gets.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SandboxEnvironment {
        pub removed: List<Str>,
        pub removed_matching: List<Str>,
    }
}

spec_struct! {
    /// One mode's confinement: the trees its commands may change, and its network.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SandboxMode {
        pub writes: List<WritableTree>,
        pub network: NetworkPolicy,
        pub metadata: bool,
    }
}

spec_struct! {
    /// The sandbox's sentences.
    #[derive(Debug, Default, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SandboxTexts {
        pub writes_none: Str,
        pub writes_root: Str,
        pub network_off: Str,
        pub network_on: Str,
        pub hidden: Str,
        pub stopped: Str,
        pub stopped_write: Str,
        pub stopped_read: Str,
        pub stopped_network: Str,
        pub stopped_unnamed: Str,
        pub start: Str,
        pub missing: Str,
        pub auto_refused: Str,
        pub no_sandbox: Str,
    }
}

/// A tree a sandboxed command may change (permission/sandbox.json).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WritableTree {
    /// The project root.
    Root,
    /// The session's own temporary folder (the commands' `TMPDIR`).
    SessionTemp,
}

impl Rust for WritableTree {
    fn rust(&self, out: &mut String) {
        out.push_str(match self {
            WritableTree::Root => "WritableTree::Root",
            WritableTree::SessionTemp => "WritableTree::SessionTemp",
        });
    }
}

/// A mode's network in the sandbox (permission/sandbox.json).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkPolicy {
    /// No network, whatever the setting.
    #[default]
    Off,
    /// On, unless the person's setting turns it off.
    Setting,
}

impl Rust for NetworkPolicy {
    fn rust(&self, out: &mut String) {
        out.push_str(match self {
            NetworkPolicy::Off => "NetworkPolicy::Off",
            NetworkPolicy::Setting => "NetworkPolicy::Setting",
        });
    }
}
