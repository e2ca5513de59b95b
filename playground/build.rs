//! Builds in every case file of `conformance/`, compressed (`src/lzw.rs`, the links' own
//! compression): `cases.rs` lists them, so a new file there is in the playground at the next
//! build. Compressed, the quarter megabyte of case text is a few dozen kilobytes of the `.wasm`.

#[allow(dead_code)]
#[path = "src/lzw.rs"]
mod lzw;

use std::error::Error;
use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn Error>> {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?).join("../conformance");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    println!("cargo:rerun-if-changed={}", dir.display());
    println!("cargo:rerun-if-changed=src/lzw.rs");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut out = String::from(
        "/// The case files of conformance/, built in: (name, its text LZW-compressed).\npub const FILES: &[(&str, &[u8])] = &[\n",
    );
    for f in &files {
        let name = f
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or("a case file without a name")?;
        println!("cargo:rerun-if-changed={}", fs::canonicalize(f)?.display());
        let packed = out_dir.join(format!("{name}.json.lzw"));
        fs::write(&packed, lzw::compress(&fs::read(f)?))?;
        writeln!(
            out,
            "    ({name:?}, include_bytes!({:?})),",
            packed.display().to_string()
        )?;
    }
    out.push_str("];\n");
    fs::write(out_dir.join("cases.rs"), out)?;
    Ok(())
}
