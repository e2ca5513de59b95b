//! Writes the case format's JSON Schemas into a folder: `<area>.json` for each area and
//! `case-file.json` for any case file, as `lembas conformance --schema` prints them (the npm
//! package and the playground's editor ship them). `cargo run -p lembas-rules --example schemas -- DIR`.

use lembas_rules::conformance::Area;
use lembas_rules::schema::{area_schema, case_file_schema};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: schemas DIR");
        return ExitCode::from(2);
    };
    let mut files: Vec<(String, serde_json::Value)> = Area::ALL
        .iter()
        .map(|area| (format!("{}.json", area.as_str()), area_schema(*area)))
        .collect();
    files.push(("case-file.json".into(), case_file_schema()));
    for (name, schema) in files {
        let written = serde_json::to_string_pretty(&schema)
            .map_err(std::io::Error::other)
            .and_then(|text| {
                std::fs::create_dir_all(&dir)?;
                std::fs::write(dir.join(&name), text + "\n")
            });
        if let Err(e) = written {
            eprintln!("schemas: {}: {e}", dir.join(&name).display());
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
