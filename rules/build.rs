//! Reads every file under `spec/` into the types in `src/spec/types.rs` — data that does not fit
//! fails the build — and writes it back as Rust into `$OUT_DIR/spec_data.rs` (`rust::Rust`): a
//! `static` per file, so the crate holds the spec data as constant data, made by no code and read
//! by no deserializer (in wasm a deserializer was once a third of the code, and code that builds
//! the values a tenth). The tool files' whole JSON (sent to models as it is) is kept as text.

#[allow(dead_code)]
#[macro_use]
#[path = "src/spec/rust.rs"]
mod rust;

#[allow(dead_code)]
#[path = "src/spec/types.rs"]
mod types;

#[allow(dead_code)]
#[path = "src/permission/wildcard.rs"]
mod wildcard;

/// The grammar reader of the crate, to check each grammar's examples.
#[allow(dead_code)]
#[path = "src/permission/programs/grammar.rs"]
mod grammar;

use rust::Rust;
use std::error::Error;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

fn read<T: serde::de::DeserializeOwned>(path: &Path) -> Result<(T, String), Box<dyn Error>> {
    println!("cargo:rerun-if-changed={}", path.display());
    let text = fs::read_to_string(path)?;
    let value = serde_json::from_str::<T>(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((value, text))
}

/// `pub(super) static NAME: TYPE = …;` for the file at `path`.
fn emit<T: serde::de::DeserializeOwned + Rust>(
    out: &mut String,
    name: &str,
    path: &Path,
) -> Result<(), Box<dyn Error>> {
    let (value, _) = read::<T>(path)?;
    let ty = std::any::type_name::<T>()
        .rsplit("::")
        .next()
        .unwrap_or_default();
    write!(out, "pub(super) static {name}: {ty} = ")?;
    value.rust(out);
    out.push_str(";\n");
    Ok(())
}

/// Every action of the default rules is a word the rules know: a file that says otherwise fails
/// the build (the rules never run with fewer defaults than the file gives).
fn check_defaults(path: &Path) -> Result<(), Box<dyn Error>> {
    let (file, _) = read::<types::DefaultsFile>(path)?;
    let known = |w: &str| matches!(w, "allow" | "ask" | "deny");
    for (key, value) in file.permission.0.iter() {
        let words: Vec<(String, &str)> = match value {
            types::SettingValue::Action(a) => vec![(key.to_string(), a.as_ref())],
            types::SettingValue::Patterns(list) => list
                .iter()
                .map(|(p, a)| (format!("{key}.{p}"), a.as_ref()))
                .collect(),
        };
        for (at, word) in words {
            if !known(word) {
                return Err(
                    format!("{}: {at}: \"{word}\" is not an action", path.display()).into(),
                );
            }
        }
    }
    Ok(())
}

/// Every word of the grammars is one the reader knows, every set a grammar uses exists, every
/// `match` line is inside its grammar and every `not_match` line outside it, and every program a
/// default `bash` rule allows has a grammar with the subcommand the rule names: a file that says
/// otherwise fails the build.
fn check_programs(path: &Path, defaults: &Path) -> Result<(), Box<dyn Error>> {
    let (file, _) = read::<types::ProgramsFile>(path)?;
    let at = |what: String| format!("{}: {what}", path.display());
    fn words(name: &str, g: &types::Grammar, file: &types::ProgramsFile, errors: &mut Vec<String>) {
        for set in g.use_sets.iter().filter(|s| file.sets.get(s).is_none()) {
            errors.push(format!("{name}: no set \"{set}\""));
        }
        let options = g.options.iter().chain(
            g.use_sets
                .iter()
                .filter_map(|s| file.sets.get(s))
                .flat_map(|s| s.iter()),
        );
        let mut seen: Vec<(&str, &types::ValueKind)> = Vec::new();
        for (option, kind) in options {
            if !option.starts_with('-') {
                errors.push(format!("{name}: \"{option}\" is not an option"));
            }
            if let Some((_, other)) = seen.iter().find(|(o, k)| *o == option && *k != kind) {
                errors.push(format!("{name}: {option} is both {other:?} and {kind:?}"));
            }
            seen.push((option, kind));
        }
        for (sub, grammar) in g.subcommands.iter() {
            words(&format!("{name} {sub}"), grammar, file, errors);
        }
    }
    let mut errors = Vec::new();
    for (program, entry) in file.programs.iter() {
        if let Some(effects) = &entry.effects {
            if let Some(script) = effects
                .script
                .as_deref()
                .filter(|s| !matches!(*s, "sed" | "awk"))
            {
                errors.push(format!("{program}: no script reader for \"{script}\""));
            }
        }
        let Some(g) = &entry.read_only else {
            if !entry.matches.is_empty() || !entry.not_match.is_empty() {
                errors.push(format!("{program}: examples without a grammar"));
            }
            continue;
        };
        words(program, g, &file, &mut errors);
        let examples = entry
            .matches
            .iter()
            .map(|l| (l, true))
            .chain(entry.not_match.iter().map(|l| (l, false)));
        for (line, inside) in examples {
            let mut split = line.split_whitespace();
            if split.next() != Some(program) {
                errors.push(format!("{program}: \"{line}\" is not a line of {program}"));
                continue;
            }
            let args: Vec<grammar::Arg<'_>> = split.map(grammar::Arg::plain).collect();
            match (grammar::read(g, &file.sets, &args), inside) {
                (Ok(_), false) => {
                    errors.push(format!("{program}: \"{line}\" is inside its grammar"))
                }
                (Err(why), true) => errors.push(format!(
                    "{program}: \"{line}\" is outside its grammar ({why:?})"
                )),
                _ => {}
            }
        }
    }
    let (defaults, _) = read::<types::DefaultsFile>(defaults)?;
    for (key, value) in defaults.permission.0.iter() {
        let types::SettingValue::Patterns(list) = value else {
            continue;
        };
        if key.as_ref() != "bash" {
            continue;
        }
        for (pattern, action) in list.iter().filter(|(_, a)| a.as_ref() == "allow") {
            let _ = action;
            let mut words = pattern.split(' ').filter(|w| *w != "*");
            let program = words.next().unwrap_or_default();
            let Some(g) = file
                .programs
                .get(program)
                .and_then(|p| p.read_only.as_ref())
            else {
                errors.push(format!(
                    "the default rule \"{pattern}\" names {program}, which has no grammar"
                ));
                continue;
            };
            if let Some(sub) = words.next().filter(|w| !w.starts_with('-')) {
                if g.subcommands.get(sub).is_none() {
                    errors.push(format!("the default rule \"{pattern}\" names {program} {sub}, which its grammar does not have"));
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(at(errors.join("\n")).into())
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let spec = Path::new("spec");
    println!("cargo:rerun-if-changed=src/spec/types.rs");
    println!("cargo:rerun-if-changed=src/spec/rust.rs");
    println!("cargo:rerun-if-changed=src/permission/wildcard.rs");
    println!("cargo:rerun-if-changed=src/permission/programs/grammar.rs");
    let mut out = String::from("// Written by build.rs from rules/spec/: do not edit.\n");
    emit::<types::Loop>(&mut out, "LOOP", &spec.join("loop.json"))?;
    emit::<types::Blocks>(&mut out, "BLOCKS", &spec.join("blocks.json"))?;
    emit::<types::ModesFile>(&mut out, "MODES", &spec.join("permission/modes.json"))?;
    emit::<types::DefaultsFile>(&mut out, "DEFAULTS", &spec.join("permission/defaults.json"))?;
    check_defaults(&spec.join("permission/defaults.json"))?;
    emit::<types::ArityFile>(&mut out, "ARITY", &spec.join("permission/arity.json"))?;
    emit::<types::HardlineFile>(&mut out, "HARDLINE", &spec.join("permission/hardline.json"))?;
    emit::<types::ProgramsFile>(&mut out, "PROGRAMS", &spec.join("permission/programs.json"))?;
    emit::<types::SandboxFile>(&mut out, "SANDBOX", &spec.join("permission/sandbox.json"))?;
    check_programs(
        &spec.join("permission/programs.json"),
        &spec.join("permission/defaults.json"),
    )?;
    println!("cargo:rerun-if-changed=spec/tools");
    let mut paths: Vec<_> = fs::read_dir(spec.join("tools"))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    paths.sort();
    // What the rules read of each tool, and apart from it each file's whole text (only a build
    // that sends tools to a model keeps those).
    let (mut tools, mut texts) = (String::new(), String::new());
    for path in paths {
        let (tool, text) = read::<types::ToolFile>(&path)?;
        tool.rust(&mut tools);
        tools.push_str(", ");
        write!(texts, "({:?}, {text:?}), ", tool.name.as_ref())?;
    }
    writeln!(out, "pub(super) static TOOLS: &[ToolFile] = &[{tools}];")?;
    writeln!(
        out,
        "pub(super) static TOOL_TEXTS: &[(&str, &str)] = &[{texts}];"
    )?;
    let dest = Path::new(&std::env::var("OUT_DIR")?).join("spec_data.rs");
    fs::write(dest, out)?;
    Ok(())
}
