//! Reads every file under `spec/` into the types in `src/spec/types.rs` — data that does not fit
//! fails the build — and writes it back as Rust into `$OUT_DIR/spec_data.rs` (`rust::Rust`): the
//! crate builds its spec values with plain code, and compiles no deserializer for them (in wasm
//! they were a third of the code). The tool files' whole JSON (sent to models as it is) is kept as
//! text.

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

/// `pub(super) fn NAME() -> TYPE { … }` for the file at `path`.
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
    write!(out, "pub(super) fn {name}() -> {ty} {{ ")?;
    value.rust(out);
    out.push_str(" }\n");
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let spec = Path::new("spec");
    println!("cargo:rerun-if-changed=src/spec/types.rs");
    println!("cargo:rerun-if-changed=src/spec/rust.rs");
    let mut out = String::from("// Written by build.rs from rules/spec/: do not edit.\n");
    emit::<types::Loop>(&mut out, "looping", &spec.join("loop.json"))?;
    emit::<types::ModesFile>(&mut out, "modes", &spec.join("permission/modes.json"))?;
    emit::<types::DefaultsFile>(&mut out, "defaults", &spec.join("permission/defaults.json"))?;
    emit::<types::ArityFile>(&mut out, "arity", &spec.join("permission/arity.json"))?;
    emit::<types::HardlineFile>(&mut out, "hardline", &spec.join("permission/hardline.json"))?;
    println!("cargo:rerun-if-changed=spec/tools");
    let mut paths: Vec<_> = fs::read_dir(spec.join("tools"))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    paths.sort();
    out.push_str("pub(super) fn tools() -> Vec<(ToolFile, &'static str)> { vec![");
    for path in paths {
        let (tool, text) = read::<types::ToolFile>(&path)?;
        out.push('(');
        tool.rust(&mut out);
        write!(out, ", {text:?}), ")?;
    }
    out.push_str("] }\n");
    let dest = Path::new(&std::env::var("OUT_DIR")?).join("spec_data.rs");
    fs::write(dest, out)?;
    Ok(())
}
