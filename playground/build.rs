//! Builds in every case file of `conformance/`: `cases.rs` lists them with `include_str!`, so a
//! new file there is in the playground at the next build.

use std::error::Error;
use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn Error>> {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?).join("../conformance");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut out = String::from("/// The case files of conformance/, built in: (name, text).\npub const FILES: &[(&str, &str)] = &[\n");
    for f in &files {
        let name = f
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or("a case file without a name")?;
        let path = fs::canonicalize(f)?;
        println!("cargo:rerun-if-changed={}", path.display());
        writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            path.display().to_string()
        )?;
    }
    out.push_str("];\n");
    fs::write(
        PathBuf::from(std::env::var("OUT_DIR")?).join("cases.rs"),
        out,
    )?;
    Ok(())
}
