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

fn main() -> Result<(), Box<dyn Error>> {
    let spec = Path::new("spec");
    println!("cargo:rerun-if-changed=src/spec/types.rs");
    println!("cargo:rerun-if-changed=src/spec/rust.rs");
    let mut out = String::from("// Written by build.rs from rules/spec/: do not edit.\n");
    emit::<types::Loop>(&mut out, "LOOP", &spec.join("loop.json"))?;
    emit::<types::Blocks>(&mut out, "BLOCKS", &spec.join("blocks.json"))?;
    emit::<types::ModesFile>(&mut out, "MODES", &spec.join("permission/modes.json"))?;
    emit::<types::DefaultsFile>(&mut out, "DEFAULTS", &spec.join("permission/defaults.json"))?;
    check_defaults(&spec.join("permission/defaults.json"))?;
    emit::<types::ArityFile>(&mut out, "ARITY", &spec.join("permission/arity.json"))?;
    emit::<types::HardlineFile>(&mut out, "HARDLINE", &spec.join("permission/hardline.json"))?;
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
