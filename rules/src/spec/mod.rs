//! The spec data, from `rules/spec/`: `build.rs` reads every file into [`types`] (data that does not
//! fit fails the build) and writes it back as Rust — a `static` per file, which [`data`] holds; the
//! typed tables the rules use (modes, default rules, tools) are made here from that data once, and
//! a test checks that making them succeeds too.

#[macro_use]
pub mod rust;
pub mod types;

use crate::permission::{Action, Mode, RiskClass, Rule, RuleSource};
use std::sync::LazyLock;
use thiserror::Error;

/// The spec data as `build.rs` wrote it from `rules/spec/`: a `static` per file.
mod data {
    #![allow(clippy::all)]
    use super::types::*;
    use std::borrow::Cow;

    include!(concat!(env!("OUT_DIR"), "/spec_data.rs"));
}

/// A file under `rules/spec/` that does not say what the rules need.
#[derive(Debug, Error)]
pub enum SpecError {
    #[error("spec data {file}: {message}")]
    Parse { file: &'static str, message: String },
    #[error("spec data {file}: {field}: unknown value \"{value}\"")]
    Value {
        file: &'static str,
        field: String,
        value: String,
    },
}

/// What a tool is to the rules: its risk class, its permission key and to whom it is offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolInfo {
    pub name: String,
    pub risk: RiskClass,
    pub permission: String,
    /// `main`: the main agent only; `subagent`: subagents only; none: both.
    pub offered: Option<String>,
}

/// One mode's answers, by risk class (`permission/modes.json`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ModeAnswers {
    pub read: Action,
    pub write: Action,
    pub execute: Action,
    pub interact: Action,
    /// What an ask becomes in this mode (auto: allow).
    pub ask_becomes: Option<Action>,
}

impl ModeAnswers {
    pub fn for_class(&self, class: RiskClass) -> Action {
        match class {
            RiskClass::Read => self.read,
            RiskClass::Write => self.write,
            RiskClass::Execute => self.execute,
            RiskClass::Interact => self.interact,
        }
    }
}

/// All the spec data, typed.
#[derive(Debug)]
pub struct Spec {
    pub looping: &'static types::Loop,
    pub modes_file: &'static types::ModesFile,
    /// Indexed by [`Mode::index`].
    pub modes: [ModeAnswers; 4],
    pub defaults: Vec<Rule>,
    pub arity: &'static types::ArityFile,
    pub hardline: &'static types::HardlineFile,
    /// Sorted by name.
    pub tools: Vec<ToolInfo>,
}

impl Default for Spec {
    fn default() -> Self {
        Spec {
            looping: &data::LOOP,
            modes_file: &data::MODES,
            modes: Default::default(),
            defaults: Vec::new(),
            arity: &data::ARITY,
            hardline: &data::HARDLINE,
            tools: Vec::new(),
        }
    }
}

fn parse(file: &'static str, text: &str) -> Result<serde_json::Value, SpecError> {
    serde_json::from_str(text).map_err(|e| SpecError::Parse {
        file,
        message: e.to_string(),
    })
}

/// The modes file's order, as it says it.
fn order_text(order: &[types::Str]) -> String {
    let words: Vec<&str> = order.iter().map(|w| w.as_ref()).collect();
    words.join(", ")
}

fn value<T>(
    file: &'static str,
    field: &str,
    text: &str,
    read: impl Fn(&str) -> Option<T>,
) -> Result<T, SpecError> {
    read(text).ok_or_else(|| SpecError::Value {
        file,
        field: field.to_string(),
        value: text.to_string(),
    })
}

impl Spec {
    /// Reads every embedded file. Fails only if the data and the code disagree (a test checks it).
    pub fn load() -> Result<Spec, SpecError> {
        let looping = &data::LOOP;
        let modes_file = &data::MODES;
        let mut modes = [ModeAnswers::default(); 4];
        for mode in Mode::ALL {
            let f = "permission/modes.json";
            let table = modes_file
                .modes
                .get(mode.as_str())
                .ok_or(SpecError::Value {
                    file: f,
                    field: "modes".into(),
                    value: mode.as_str().into(),
                })?;
            let field = |c: &str| format!("modes.{}.{c}", mode.as_str());
            let answers = ModeAnswers {
                read: value(f, &field("read"), &table.read, Action::parse)?,
                write: value(f, &field("write"), &table.write, Action::parse)?,
                execute: value(f, &field("execute"), &table.execute, Action::parse)?,
                interact: value(f, &field("interact"), &table.interact, Action::parse)?,
                ask_becomes: match &table.ask_becomes {
                    Some(a) => Some(value(f, &field("ask_becomes"), a, Action::parse)?),
                    None => None,
                },
            };
            if let Some(slot) = modes.get_mut(mode.index()) {
                *slot = answers;
            }
        }
        let order: Vec<&str> = Mode::ALL.iter().map(|m| m.as_str()).collect();
        if modes_file.order != order {
            return Err(SpecError::Value {
                file: "permission/modes.json",
                field: "order".into(),
                value: order_text(&modes_file.order),
            });
        }
        let defaults_file = &data::DEFAULTS;
        let defaults =
            crate::permission::rules_from_setting(&defaults_file.permission, RuleSource::Defaults)
                .map_err(|e| SpecError::Parse {
                    file: "permission/defaults.json",
                    message: e.to_string(),
                })?;
        let arity = &data::ARITY;
        let hardline = &data::HARDLINE;
        let mut tools = Vec::new();
        for file in data::TOOLS {
            let risk = value(
                "tools/*.json",
                &format!("{}.risk", file.name),
                &file.risk,
                RiskClass::parse,
            )?;
            tools.push(ToolInfo {
                name: file.name.to_string(),
                risk,
                permission: file.permission.to_string(),
                offered: file.offered.as_deref().map(str::to_string),
            });
        }
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Spec {
            looping,
            modes_file,
            modes,
            defaults,
            arity,
            hardline,
            tools,
        })
    }

    pub fn mode(&self, mode: Mode) -> ModeAnswers {
        self.modes.get(mode.index()).copied().unwrap_or_default()
    }

    pub fn tool(&self, name: &str) -> Option<&ToolInfo> {
        let i = self
            .tools
            .binary_search_by(|t| t.name.as_str().cmp(name))
            .ok()?;
        self.tools.get(i)
    }
}

/// A tool's whole file (`tools/<name>.json`), as a model is sent it. Read when asked: the rules
/// never need it, so a build that never asks (the npm package) holds none of these texts.
pub fn tool_file(name: &str) -> Option<serde_json::Value> {
    let (_, text) = data::TOOL_TEXTS.iter().find(|(n, _)| *n == name)?;
    parse("tools/*.json", text).ok()
}

static SPEC: LazyLock<Spec> = LazyLock::new(|| Spec::load().unwrap_or_default());

/// The spec data. Built once; never fails (see [`Spec::load`]).
pub fn spec() -> &'static Spec {
    &SPEC
}

/// `loop.json`, typed (a `static`: reading it builds nothing).
pub fn looping() -> &'static types::Loop {
    &data::LOOP
}

/// `blocks.json`, typed: the prompt blocks of the tree.
pub fn blocks() -> &'static types::Blocks {
    &data::BLOCKS
}

/// The spec's version (`loop.json` `version`): 3.4.0.
pub fn version() -> &'static str {
    &looping().version
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The data written as Rust by build.rs is the data of the files (what the rules read of it):
    /// each file read here and written again gives the same Rust as the built-in value.
    #[test]
    fn the_built_in_data_is_the_files_data() {
        use rust::Rust;
        fn same<T: serde::de::DeserializeOwned + Rust>(text: &str, built: &T) {
            let read: T = serde_json::from_str(text).unwrap();
            let (mut a, mut b) = (String::new(), String::new());
            read.rust(&mut a);
            built.rust(&mut b);
            assert_eq!(a, b);
        }
        same(include_str!("../../spec/loop.json"), &data::LOOP);
        same(include_str!("../../spec/blocks.json"), &data::BLOCKS);
        same(
            include_str!("../../spec/permission/modes.json"),
            &data::MODES,
        );
        same(
            include_str!("../../spec/permission/defaults.json"),
            &data::DEFAULTS,
        );
        same(
            include_str!("../../spec/permission/arity.json"),
            &data::ARITY,
        );
        same(
            include_str!("../../spec/permission/hardline.json"),
            &data::HARDLINE,
        );
        for (tool, (name, text)) in data::TOOLS.iter().zip(data::TOOL_TEXTS) {
            same(text, tool);
            assert_eq!(tool.name, *name);
            assert_eq!(tool_file(name).unwrap()["name"], *name);
        }
        let mut out = String::new();
        data::LOOP.rust(&mut out);
        assert!(out.contains("Cow::Borrowed(\"3.4.0\")"));
        let file: serde_json::Value =
            serde_json::from_str(include_str!("../../spec/loop.json")).unwrap();
        let about = file["team"]["about"].as_str().unwrap();
        assert!(
            about.len() > 100 && !out.contains(about),
            "notes for people are left out"
        );
        assert!(looping().team.about.is_empty());
    }

    #[test]
    fn every_file_loads_into_the_types_the_rules_use() {
        let spec = Spec::load().unwrap();
        assert_eq!(spec.looping.version, "3.4.0");
        assert_eq!(spec.tools.len(), data::TOOLS.len());
        assert_eq!(spec.tools.len(), 18);
        assert!(spec.defaults.len() > 10);
        assert_eq!(spec.mode(Mode::Auto).ask_becomes, Some(Action::Allow));
    }

    #[test]
    fn the_main_only_tools_are_the_tools_offered_to_the_main_agent() {
        let spec = spec();
        let main: Vec<&str> = spec
            .tools
            .iter()
            .filter(|t| t.offered.as_deref() == Some("main"))
            .map(|t| t.name.as_str())
            .collect();
        assert!(main.iter().eq(spec.looping.team.main_only.tools.iter()));
    }
}
