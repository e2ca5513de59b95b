#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The tables of what programs do (`rules/README.md`) and of the sandbox's policy
//! (`harness/README.md`) are written from `permission/programs.json` and `permission/sandbox.json`,
//! never by hand: these tests write them from the data and fail when a README's copy differs. Run
//! with `LEMBAS_WRITE_README=1` to write them into the READMEs.

use lembas_rules::permission::sandbox::{
    devices, hidden_in_home, hidden_system, metadata_syscalls, refused_syscalls, Policy,
};
use lembas_rules::permission::Mode;
use lembas_rules::spec::spec;
use lembas_rules::spec::types::{Grammar, NetworkPolicy, OperandKind, ValueKind, WritableTree};
use std::path::Path;

const BEGIN: &str =
    "<!-- programs: written by rules/tests/readme_tables.rs from permission/programs.json -->";
const END: &str = "<!-- programs: end -->";
const SANDBOX_BEGIN: &str =
    "<!-- sandbox: written by rules/tests/readme_tables.rs from permission/sandbox.json -->";
const SANDBOX_END: &str = "<!-- sandbox: end -->";

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

/// What a program's or a subcommand's effects are, by kind: what runs code, what writes or reads
/// a file the line does not name, operands that run code.
fn effect_parts(
    runs: &[lembas_rules::spec::types::Str],
    writes: &[lembas_rules::spec::types::Str],
    operands: &[lembas_rules::spec::types::Str],
) -> Vec<String> {
    let words = |list: &[lembas_rules::spec::types::Str]| -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    };
    let mut parts = Vec::new();
    for (label, list) in [
        ("runs", words(runs)),
        ("writes or reads", words(writes)),
        ("operands", words(operands)),
    ] {
        if !list.is_empty() {
            let list: Vec<&str> = list.iter().map(String::as_str).collect();
            parts.push(format!("{label}: {}", code(&list)));
        }
    }
    parts
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
        let mut parts = effect_parts(&e.runs, &e.writes, &e.runs_operands);
        if let Some(script) = &e.script {
            parts.push(format!("its {script} program's commands that run or write"));
        }
        if !parts.is_empty() {
            out.push(format!("| `{name}` | {} |", parts.join("; ")));
        }
        // A subcommand's effects are a row of their own, so that no row runs on.
        for (sub, s) in e.subcommands.iter() {
            let parts = effect_parts(&s.runs, &s.writes, &s.runs_operands);
            let row = format!("| `{name} {sub}` | {} |", parts.join("; "));
            if row.len() <= 200 {
                out.push(row);
            } else {
                // A long list of effects: a row for each kind.
                out.extend(parts.iter().map(|p| format!("| `{name} {sub}` | {p} |")));
            }
        }
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

/// The sandbox's table: each mode's writable trees and network, strictest first; then what holds
/// in every mode.
fn sandbox_table() -> String {
    let file = lembas_rules::spec::sandbox_spec();
    let mut out = vec![
        SANDBOX_BEGIN.to_string(),
        String::new(),
        "| mode | a command may write | network | modes, owners, times of files |".to_string(),
        "|---|---|---|---|".to_string(),
    ];
    for mode in Mode::ALL.iter().rev() {
        let Some(entry) = file.modes.get(mode.as_str()) else {
            continue;
        };
        let writes: Vec<&str> = entry
            .writes
            .iter()
            .map(|w| match w {
                WritableTree::Root => "the project",
                WritableTree::SessionTemp => "the session's temporary folder (its `TMPDIR`)",
            })
            .collect();
        let writes = if writes.is_empty() {
            "nothing".to_string()
        } else {
            writes.join(", ")
        };
        let network = match entry.network {
            NetworkPolicy::Off => "none",
            NetworkPolicy::Setting => "open, unless `--no-network` or `\"network\": false`",
        };
        let metadata = if entry.metadata {
            "those its user owns (never a setuid or setgid bit)"
        } else {
            "none"
        };
        out.push(format!("| {mode} | {writes} | {network} | {metadata} |"));
        // The words the harness says come from the same policy.
        assert!(!Policy::of(*mode, true).describe().is_empty());
    }
    out.push(String::new());
    let hidden: Vec<String> = hidden_in_home().iter().map(|h| format!("~/{h}")).collect();
    let hidden: Vec<&str> = hidden.iter().map(String::as_str).collect();
    out.push(format!(
        "In every mode: writable {}; never read or written, in every home: {}; nor {}; \
         refused: {}, `TIOCSTI`, every Unix socket, and without a network every socket; \
         without metadata changes, also {}.",
        code(&devices().collect::<Vec<_>>()),
        code(&hidden),
        code(&hidden_system().collect::<Vec<_>>()),
        code(&refused_syscalls().collect::<Vec<_>>()),
        code(&metadata_syscalls().collect::<Vec<_>>()),
    ));
    out.push(String::new());
    out.push(SANDBOX_END.to_string());
    out.join("\n")
}

/// Checks the section between `begin` and `end` of the README at `readme` (from the workspace's
/// root) against `wanted` (writes it with `LEMBAS_WRITE_README=1`).
fn section(readme: &str, begin: &str, end: &str, wanted: &str) {
    // The tests run at once: one reads and writes the README at a time.
    static README: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = README
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(readme);
    let name = readme;
    let readme = std::fs::read_to_string(&path).unwrap();
    let (Some(start), Some(stop)) = (readme.find(begin), readme.find(end)) else {
        panic!("{name} has no {begin} … {end} section");
    };
    let written = &readme[start..stop + end.len()];
    if written != wanted {
        if std::env::var_os("LEMBAS_WRITE_README").is_some() {
            let new = format!(
                "{}{wanted}{}",
                &readme[..start],
                &readme[stop + end.len()..]
            );
            std::fs::write(&path, new).unwrap();
            return;
        }
        panic!(
            "{name}'s section differs from the data; run \
             LEMBAS_WRITE_README=1 cargo test -p lembas-rules --test readme_tables\n\n{wanted}"
        );
    }
}

#[test]
fn the_readme_lists_what_the_data_says_programs_do() {
    section("rules/README.md", BEGIN, END, &tables());
}

#[test]
fn the_readme_shows_the_sandbox_policy_of_the_data() {
    section(
        "harness/README.md",
        SANDBOX_BEGIN,
        SANDBOX_END,
        &sandbox_table(),
    );
}
