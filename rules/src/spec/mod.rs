//! The spec data, from `rules/spec/`: `build.rs` reads every file into [`types`] (data that does not
//! fit fails the build) and writes it back as Rust — a `static` per file, which `data` holds. A
//! mode's answers and a tool are read from that data when asked; only the default rules are made
//! once. [`check`] (a test runs it) shows the data says nothing the code does not know.

#[macro_use]
pub mod rust;
pub mod hashed;
pub mod types;

use crate::permission::words::{Action, Mode, RiskClass};
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
    /// The file does not fit its type.
    #[error("spec data {file}: {message}")]
    Parse {
        /// The file.
        file: &'static str,
        /// What does not fit.
        message: String,
    },
    /// A word the rules do not know.
    #[error("spec data {file}: {field}: unknown value \"{value}\"")]
    Value {
        /// The file.
        file: &'static str,
        /// The field.
        field: String,
        /// The word.
        value: String,
    },
}

/// What a tool is to the rules: its risk class, its permission key and to whom it is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolInfo {
    /// Its name (`read`, `bash`, `team_add`).
    pub name: &'static str,
    /// Its risk class.
    pub risk: RiskClass,
    /// Its permission key (edit and write share `edit`).
    pub permission: &'static str,
    /// `main`: the main agent only; `subagent`: subagents only; none: both.
    pub offered: Option<&'static str>,
}

/// One mode's answers, by risk class (`permission/modes.json`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ModeAnswers {
    /// For a call that reads.
    pub read: Action,
    /// For a call that writes.
    pub write: Action,
    /// For a call that runs a command.
    pub execute: Action,
    /// For a call that asks the person.
    pub interact: Action,
    /// What an ask becomes in this mode (auto: allow).
    pub ask_becomes: Option<Action>,
}

impl ModeAnswers {
    /// The action for a risk class.
    pub fn for_class(&self, class: RiskClass) -> Action {
        match class {
            RiskClass::Read => self.read,
            RiskClass::Write => self.write,
            RiskClass::Execute => self.execute,
            RiskClass::Interact => self.interact,
        }
    }
}

/// All the spec data, typed, as the files are.
#[derive(Debug)]
pub struct Spec {
    /// `loop.json`: progress, the team, subagents, the session notes.
    pub loop_spec: &'static types::Loop,
    /// `permission/modes.json`: each mode's actions and reasons.
    pub modes_file: &'static types::ModesFile,
    /// `permission/defaults.json`: the rules every session starts from (read into rules by
    /// `permission::request::default_rules`).
    pub defaults_file: &'static types::DefaultsFile,
    /// `permission/arity.json`: how many words of a command an approval keeps.
    pub arity: &'static types::ArityFile,
    /// `permission/hardline.json`: what no mode or rule allows.
    pub hardline: &'static types::HardlineFile,
    /// `permission/programs.json`: the read-only forms of the programs the default rules allow,
    /// and what makes an approval not cover a command.
    pub programs: &'static types::ProgramsFile,
    /// Each mode's answers, in the order of [`Mode::ALL`].
    mode_answers: [ModeAnswers; 4],
}

fn parse(file: &'static str, text: &str) -> Result<serde_json::Value, SpecError> {
    serde_json::from_str(text).map_err(|e| SpecError::Parse {
        file,
        message: e.to_string(),
    })
}

/// A word of the data the code does not know: it answers `deny`, the strictest ([`check`] finds
/// none in the data).
fn action(word: &str) -> Action {
    Action::parse(word).unwrap_or(Action::Deny)
}

impl Spec {
    fn load() -> Spec {
        Spec {
            loop_spec: &data::LOOP,
            modes_file: &data::MODES,
            defaults_file: &data::DEFAULTS,
            arity: &data::ARITY,
            hardline: &data::HARDLINE,
            programs: &data::PROGRAMS,
            mode_answers: Mode::ALL.map(|mode| read_mode(&data::MODES, mode)),
        }
    }

    /// A mode's answers (`permission/modes.json`), read once for every mode: every call asks
    /// them.
    pub fn mode(&self, mode: Mode) -> ModeAnswers {
        self.mode_answers
            .get(mode.index())
            .copied()
            .unwrap_or_else(|| read_mode(self.modes_file, mode))
    }

    /// A tool of `tools/*.json` by name (they are sorted by name).
    pub fn tool(&self, name: &str) -> Option<ToolInfo> {
        let i = data::TOOLS
            .binary_search_by(|t| types::cmp_names(&t.name, name))
            .ok()?;
        data::TOOLS.get(i).and_then(tool_info)
    }

    /// Every tool, sorted by name.
    pub fn tools(&self) -> impl Iterator<Item = ToolInfo> {
        data::TOOLS.iter().filter_map(tool_info)
    }
}

fn tool_info(file: &'static types::ToolFile) -> Option<ToolInfo> {
    Some(ToolInfo {
        name: file.name.as_ref(),
        risk: RiskClass::parse(&file.risk)?,
        permission: file.permission.as_ref(),
        offered: file.offered.as_deref(),
    })
}

/// Whether the data says what the rules need — every word of the modes and the tools known, the
/// modes in the code's order, the tools sorted by name, the default rules readable — or what it
/// does not (a test runs it; the rules then never meet a word they do not know).
pub fn check() -> Result<(), SpecError> {
    let value = |file: &'static str, field: String, value: &str| SpecError::Value {
        file,
        field,
        value: value.to_string(),
    };
    let f = "permission/modes.json";
    for mode in Mode::ALL {
        let table = data::MODES
            .modes
            .get(mode.as_str())
            .ok_or_else(|| value(f, "modes".into(), mode.as_str()))?;
        let words = [
            ("read", Some(&table.read)),
            ("write", Some(&table.write)),
            ("execute", Some(&table.execute)),
            ("interact", Some(&table.interact)),
            ("ask_becomes", table.ask_becomes.as_ref()),
        ];
        for (class, word) in words {
            if let Some(word) = word.filter(|w| Action::parse(w).is_none()) {
                return Err(value(f, format!("modes.{mode}.{class}"), word));
            }
        }
    }
    if !data::MODES
        .order
        .iter()
        .eq(Mode::ALL.iter().map(|m| m.as_str()))
    {
        return Err(value(f, "order".into(), &data::MODES.order.join(", ")));
    }
    for (i, file) in data::TOOLS.iter().enumerate() {
        if RiskClass::parse(&file.risk).is_none() {
            return Err(value(
                "tools/*.json",
                format!("{}.risk", file.name),
                &file.risk,
            ));
        }
        if i > 0
            && data::TOOLS
                .get(i - 1)
                .is_some_and(|before| before.name >= file.name)
        {
            return Err(value("tools/*.json", "name".into(), &file.name));
        }
    }
    // The sandbox confines every mode, and hides the files of hardline entries that refuse reads.
    let f = "permission/sandbox.json";
    for mode in Mode::ALL {
        if data::SANDBOX.modes.get(mode.as_str()).is_none() {
            return Err(value(f, "modes".into(), mode.as_str()));
        }
    }
    for id in data::SANDBOX.hidden.iter() {
        let refuses_reads = data::HARDLINE
            .paths
            .iter()
            .any(|p| p.id == *id && p.classes.iter().any(|c| c == "read"));
        if !refuses_reads {
            return Err(value(f, "hidden".into(), id));
        }
    }
    // Every action of the default rules is a word the rules know (build.rs checks it too).
    for (key, setting) in data::DEFAULTS.permission.0.iter() {
        let words: Vec<(String, &str)> = match setting {
            types::SettingValue::Action(a) => vec![(key.to_string(), a.as_ref())],
            types::SettingValue::Patterns(list) => list
                .iter()
                .map(|(p, a)| (format!("{key}.{p}"), a.as_ref()))
                .collect(),
        };
        for (at, word) in words {
            if Action::parse(word).is_none() {
                return Err(value("permission/defaults.json", at, word));
            }
        }
    }
    Ok(())
}

/// A tool's whole file (`tools/<name>.json`), as a model is sent it. Read when asked: the rules
/// never need it, so a build that never asks (the npm package) holds none of these texts.
pub fn tool_file(name: &str) -> Option<serde_json::Value> {
    let (_, text) = data::TOOL_TEXTS.iter().find(|(n, _)| *n == name)?;
    parse("tools/*.json", text).ok()
}

/// A mode's answers as `permission/modes.json` writes them (a handful of words); a mode it does
/// not give refuses everything.
fn read_mode(modes_file: &types::ModesFile, mode: Mode) -> ModeAnswers {
    let Some(table) = modes_file.modes.get(mode.as_str()) else {
        return ModeAnswers {
            read: Action::Deny,
            write: Action::Deny,
            execute: Action::Deny,
            interact: Action::Deny,
            ask_becomes: None,
        };
    };
    ModeAnswers {
        read: action(&table.read),
        write: action(&table.write),
        execute: action(&table.execute),
        interact: action(&table.interact),
        ask_becomes: table.ask_becomes.as_deref().map(action),
    }
}

static SPEC: LazyLock<Spec> = LazyLock::new(Spec::load);

/// The spec data. Built once; never fails ([`check`] shows the data is what the rules need).
pub fn spec() -> &'static Spec {
    &SPEC
}

/// `loop.json`, typed (a `static`: reading it builds nothing).
pub fn loop_spec() -> &'static types::Loop {
    &data::LOOP
}

/// `blocks.json`, typed: the prompt blocks of the tree.
pub fn blocks() -> &'static types::Blocks {
    &data::BLOCKS
}

/// `permission/sandbox.json`, typed: what a command may reach in each mode (a `static` of its
/// own, so a build that runs no command — the npm package — holds none of it).
pub fn sandbox_spec() -> &'static types::SandboxFile {
    &data::SANDBOX
}

/// The spec's version (`loop.json` `version`): 3.4.0.
pub fn version() -> &'static str {
    &loop_spec().version
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names compare as `str`'s order compares them: every program name of the data, cut and
    /// lengthened, and names that differ only after their first byte or by their length.
    #[test]
    fn names_compare_as_text_does() {
        let mut names: Vec<String> = ["", "a", "ab", "b", "é", "\u{0}", "a\u{0}", "zz", "Z"]
            .map(String::from)
            .to_vec();
        for (name, _) in spec().programs.programs.iter() {
            names.push(name.to_string());
            names.push(format!("{name}x"));
            names.push(name.chars().skip(1).collect());
        }
        for known in &names {
            for wanted in &names {
                assert_eq!(
                    types::cmp_names(known, wanted),
                    known.cmp(wanted),
                    "{known:?} {wanted:?}"
                );
            }
        }
        assert!(names.len() > 50);
    }

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
        same(
            include_str!("../../spec/permission/programs.json"),
            &data::PROGRAMS,
        );
        same(
            include_str!("../../spec/permission/sandbox.json"),
            &data::SANDBOX,
        );
        for (tool, (name, text)) in data::TOOLS.iter().zip(data::TOOL_TEXTS) {
            same(text, tool);
            assert_eq!(tool.name, *name);
            assert_eq!(tool_file(name).unwrap()["name"], *name);
        }
        let mut out = String::new();
        data::LOOP.rust(&mut out);
        assert!(out.contains("Str(\"3.4.0\")"));
        let file: serde_json::Value =
            serde_json::from_str(include_str!("../../spec/loop.json")).unwrap();
        let about = file["team"]["about"].as_str().unwrap();
        assert!(
            about.len() > 100 && !out.contains(about),
            "notes for people are left out"
        );
        assert!(loop_spec().team.about.is_empty());
        // The grammars' example lines are checked by build.rs and left out; every other field
        // of the programs is kept.
        let file: serde_json::Value =
            serde_json::from_str(include_str!("../../spec/permission/programs.json")).unwrap();
        let git = &file["programs"]["git"];
        assert!(!git["match"].as_array().unwrap().is_empty());
        let built = data::PROGRAMS.programs.get("git").unwrap();
        assert!(built.matches.is_empty() && built.not_match.is_empty());
        assert!(built.read_only.is_some() && built.effects.is_some());
    }

    #[test]
    fn every_file_says_what_the_rules_need() {
        check().unwrap();
        let spec = spec();
        assert_eq!(spec.loop_spec.version, "3.4.0");
        assert_eq!(spec.tools().count(), data::TOOLS.len());
        assert_eq!(spec.tools().count(), 21);
        assert!(crate::permission::request::default_rules().len() > 10);
        assert_eq!(spec.mode(Mode::Auto).ask_becomes, Some(Action::Allow));
        assert_eq!(spec.mode(Mode::Plan).write, Action::Deny);
        assert_eq!(spec.tool("bash").map(|t| t.risk), Some(RiskClass::Execute));
        assert_eq!(spec.tool("nope"), None);
    }

    #[test]
    fn the_main_only_tools_are_the_team_tools_offered_to_the_main_agent() {
        let spec = spec();
        let main: Vec<&str> = spec
            .tools()
            .filter(|t| t.offered == Some("main") && t.name.starts_with("team_"))
            .map(|t| t.name)
            .collect();
        assert!(main.iter().eq(spec.loop_spec.team.main_only.tools.iter()));
    }
}
