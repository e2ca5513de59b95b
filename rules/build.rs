//! Checks at build time that every file under `spec/` fits the types in `src/spec/types.rs`, so
//! the data the crate embeds always parses at run time.

#[allow(dead_code)]
#[path = "src/spec/types.rs"]
mod types;

use std::error::Error;
use std::fs;
use std::path::Path;

fn check<T: serde::de::DeserializeOwned>(path: &Path) -> Result<(), Box<dyn Error>> {
    println!("cargo:rerun-if-changed={}", path.display());
    let text = fs::read_to_string(path)?;
    serde_json::from_str::<T>(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let spec = Path::new("spec");
    println!("cargo:rerun-if-changed=src/spec/types.rs");
    check::<types::Loop>(&spec.join("loop.json"))?;
    check::<types::ModesFile>(&spec.join("permission/modes.json"))?;
    check::<types::DefaultsFile>(&spec.join("permission/defaults.json"))?;
    check::<types::ArityFile>(&spec.join("permission/arity.json"))?;
    check::<types::HardlineFile>(&spec.join("permission/hardline.json"))?;
    // Every tool file must be embedded by `spec::TOOL_FILES` too: the list is checked here.
    let listed = fs::read_to_string("src/spec/mod.rs")?;
    let mut names = Vec::new();
    for entry in fs::read_dir(spec.join("tools"))? {
        let path = entry?.path();
        check::<types::ToolFile>(&path)?;
        if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
            names.push(name.to_string());
        }
    }
    println!("cargo:rerun-if-changed=spec/tools");
    for name in names {
        if !listed.contains(&format!("\"../../spec/tools/{name}\"")) {
            return Err(
                format!("spec/tools/{name} is not embedded in src/spec/mod.rs TOOL_FILES").into(),
            );
        }
    }
    Ok(())
}
