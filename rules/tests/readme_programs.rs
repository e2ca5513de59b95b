#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The README's tables of what programs do are written from `permission/programs.json`, never
//! by hand: this test writes them from the data and fails when the README's copy differs. Run
//! with `LEMBAS_WRITE_README=1` to write them into the README.

use lembas_rules::spec::spec;
use lembas_rules::spec::types::{Grammar, OperandKind, ValueKind};
use std::path::Path;

const BEGIN: &str =
    "<!-- programs: written by rules/tests/readme_programs.rs from permission/programs.json -->";
const END: &str = "<!-- programs: end -->";

fn code(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn operands(kind: OperandKind) -> &'static str {
    match kind {
        OperandKind::None => "none",
        OperandKind::Text => "text",
        OperandKind::List => "names it lists (not read)",
        OperandKind::Path => "files it reads",
        OperandKind::Tree => "files or folders it reads whole",
        OperandKind::Revision => "revisions or paths, read; after `:` a path, read",
    }
}

/// One row of the grammars' table: the form, how many options it takes, those that name a file
/// it reads, and its operands.
fn grammar_row(form: &str, g: &Grammar) -> String {
    let sets = &spec().programs.sets;
    let mut options: Vec<(&str, ValueKind)> = g.options.iter().map(|(o, k)| (o, *k)).collect();
    for set in g.use_sets.iter() {
        if let Some(s) = sets.get(set) {
            options.extend(s.iter().map(|(o, k)| (o, *k)));
        }
    }
    options.sort_by(|a, b| a.0.cmp(b.0));
    options.dedup_by(|a, b| a.0 == b.0);
    let files: Vec<&str> = options
        .iter()
        .filter(|(_, k)| matches!(k, ValueKind::Path | ValueKind::Tree))
        .map(|(o, _)| *o)
        .collect();
    let mut what = operands(g.operands).to_string();
    if let Some(max) = g.max_operands {
        what.push_str(&format!(", at most {max}"));
    }
    if !g.operand_patterns.is_empty() {
        let p: Vec<&str> = g.operand_patterns.iter().map(|p| p.as_ref()).collect();
        what.push_str(&format!(" matching {}", code(&p)));
    }
    for (switch, kind) in g.switches.iter() {
        what.push_str(&format!("; with `{switch}`: {}", operands(*kind)));
    }
    if !g.subcommands.0.is_empty() {
        let subs: Vec<&str> = g.subcommands.keys().collect();
        what = format!("a subcommand: {}", code(&subs));
    }
    format!(
        "| `{form}` | {} | {} | {what} |",
        options.len(),
        if files.is_empty() {
            "—".to_string()
        } else {
            code(&files)
        }
    )
}

fn tables() -> String {
    let programs = &spec().programs.programs;
    let mut out = vec![
        BEGIN.to_string(),
        String::new(),
        "| read-only form | options (spelled exactly) | options that name a file it reads | operands |"
            .into(),
        "|---|---|---|---|".into(),
    ];
    for (name, entry) in programs.iter() {
        let Some(g) = &entry.read_only else { continue };
        out.push(grammar_row(name, g));
        for (sub, sub_g) in g.subcommands.iter() {
            out.push(grammar_row(&format!("{name} {sub}"), sub_g));
        }
    }
    out.push(String::new());
    out.push("| program | never covered by an approval (asked every time) |".into());
    out.push("|---|---|".into());
    for (name, entry) in programs.iter() {
        let Some(e) = &entry.effects else { continue };
        let mut parts = Vec::new();
        let runs: Vec<&str> = e.runs.iter().map(|s| s.as_ref()).collect();
        let writes: Vec<&str> = e.writes.iter().map(|s| s.as_ref()).collect();
        let operands: Vec<&str> = e.runs_operands.iter().map(|s| s.as_ref()).collect();
        if !runs.is_empty() {
            parts.push(format!("runs: {}", code(&runs)));
        }
        if !writes.is_empty() {
            parts.push(format!("writes or reads: {}", code(&writes)));
        }
        if !operands.is_empty() {
            parts.push(format!("operands: {}", code(&operands)));
        }
        if let Some(script) = &e.script {
            parts.push(format!("its {script} program's commands that run or write"));
        }
        for (sub, s) in e.subcommands.iter() {
            let mut words: Vec<&str> = s.runs.iter().map(|x| x.as_ref()).collect();
            words.extend(s.writes.iter().map(|x| x.as_ref()));
            words.extend(s.runs_operands.iter().map(|x| x.as_ref()));
            parts.push(format!("{sub}: {}", code(&words)));
        }
        out.push(format!("| `{name}` | {} |", parts.join("; ")));
    }
    out.push(String::new());
    let reads: Vec<&str> = programs
        .iter()
        .filter(|(_, e)| e.reads.is_some())
        .map(|(n, _)| n)
        .collect();
    out.push(format!(
        "Programs whose operands are files they read, each judged as the read tool judges it \
         whatever rule allows the command: {}.",
        code(&reads)
    ));
    out.push(String::new());
    out.push(END.to_string());
    out.join("\n")
}

#[test]
fn the_readme_lists_what_the_data_says_programs_do() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let (Some(start), Some(end)) = (readme.find(BEGIN), readme.find(END)) else {
        panic!("the README has no {BEGIN} … {END} section");
    };
    let written = &readme[start..end + END.len()];
    let wanted = tables();
    if written != wanted {
        if std::env::var_os("LEMBAS_WRITE_README").is_some() {
            let new = format!("{}{wanted}{}", &readme[..start], &readme[end + END.len()..]);
            std::fs::write(&path, new).unwrap();
            return;
        }
        panic!(
            "the README's tables of programs differ from permission/programs.json; run \
             LEMBAS_WRITE_README=1 cargo test -p lembas-rules --test readme_programs\n\n{wanted}"
        );
    }
}
