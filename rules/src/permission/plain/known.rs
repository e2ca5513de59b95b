//! What the spec's tables know of a command's program, found by one hash of its name: a
//! command of a line was looked up by name in each table in turn (its GNU `g` name, the
//! hardline's lists, wrappers, opaque constructs, code files and old-style clusters,
//! programs.json's entry, the hardline's `commands`, `writes` and `tree_reads`), ten searches
//! or more for every command. Every name a table spells has its answers found once, by those
//! tables' own lookups ([`Known::computed`]); any other name is looked up as before.

use super::index;
use super::program_lists::{program_lists, List, Lists};
use crate::spec::hashed::NamePlaces;
use crate::spec::spec;
use crate::spec::types::{CodeFiles, Map, Program, Str, Wrapper};
use std::sync::OnceLock;

/// What the tables say of one program name, as a command spells it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Known {
    /// The name is a GNU tool's under its `g` name (`grm`): the tool is the name without its `g`
    /// (hardline.json `plain.gnu_names`).
    gnu: bool,
    /// The hardline's lists of programs that name the tool.
    pub(super) lists: Lists,
    /// The wrapper it is (`plain.wrappers`).
    pub(super) wrapper: Option<&'static Wrapper>,
    /// The construct it is read as, when it is one of `plain.opaque`.
    pub(super) opaque: Option<&'static Str>,
    /// The files whose code it runs (`plain.code_files`).
    pub(super) code_files: Option<&'static CodeFiles>,
    /// The option letters that take a value in its old-style first word (`plain.old_style`).
    pub(super) old_style: Option<&'static Str>,
    /// The files its options make it read (`plain.option_reads`).
    pub(super) option_reads: Option<&'static Map<Str>>,
    /// programs.json's entry of it.
    pub(super) program: Option<&'static Program>,
    /// Its place among the names the hardline's `commands` spell plainly.
    pub(super) commands: Option<usize>,
    /// Its place among the names the hardline's `writes` spell plainly.
    pub(super) writes: Option<usize>,
    /// Its place among the names the hardline's `tree_reads` spell plainly.
    pub(super) tree_reads: Option<usize>,
}

impl Known {
    /// What each table's own lookup finds of `name`.
    pub(super) fn computed(name: &str) -> Known {
        let tool = super::walk::gnu_name(name);
        let plain = &spec().hardline.plain;
        Known {
            gnu: tool.len() != name.len(),
            lists: program_lists().of(tool),
            wrapper: index::wrapper_named(tool),
            opaque: plain.opaque.get(tool),
            code_files: plain.code_files.get(tool),
            old_style: plain.old_style.get(tool),
            option_reads: plain.option_reads.get(tool),
            program: crate::permission::programs::program_entry(tool),
            commands: index::commands_place(tool),
            writes: index::writes_place(tool),
            tree_reads: index::tree_reads_place(tool),
        }
    }

    /// Whether programs.json says what the program does with its words (its read-only forms,
    /// the options that run code or touch files the line does not name, the files it reads),
    /// so that a rule covering its every form still has each call's words judged. The
    /// hardline's `writes` of a program name the files it writes, never what its other options
    /// run (`gcc -o` writes; `gcc -wrapper` runs).
    pub(super) fn described(&self) -> bool {
        self.program.is_some()
    }

    /// The program these answers are of: `name` (the name they were found by), or the GNU tool
    /// it names.
    pub(super) fn tool<'n>(&self, name: &'n str) -> &'n str {
        if self.gnu {
            name.get(1..).unwrap_or(name)
        } else {
            name
        }
    }
}

/// Every name the tables spell, with what they say of it, made on first use.
struct KnownNames {
    places: NamePlaces,
    known: Vec<Known>,
}

fn known_names() -> &'static KnownNames {
    static NAMES: OnceLock<KnownNames> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut names = table_names();
        names.sort_unstable();
        names.dedup();
        let known = names.iter().map(|name| Known::computed(name)).collect();
        KnownNames {
            places: NamePlaces::of(names.into_iter()),
            known,
        }
    })
}

/// Every name a table spells plainly (some twice).
fn table_names() -> Vec<&'static str> {
    let hardline = spec().hardline;
    let plain = &hardline.plain;
    let mut names: Vec<&'static str> = Vec::new();
    let keys = [
        plain.wrappers.keys().collect::<Vec<_>>(),
        plain.opaque.keys().collect(),
        plain.code_files.keys().collect(),
        plain.old_style.keys().collect(),
        plain.option_reads.keys().collect(),
        spec().programs.programs.keys().collect(),
    ];
    names.extend(keys.into_iter().flatten());
    names.extend(List::all_names());
    names.extend(
        hardline
            .commands
            .iter()
            .flat_map(|e| e.programs.iter().map(|p| &**p)),
    );
    names.extend(
        hardline
            .writes
            .iter()
            .flat_map(|e| e.programs.iter().map(|p| &**p)),
    );
    names.extend(
        hardline
            .tree_reads
            .iter()
            .flat_map(|e| e.programs.iter().map(|p| &**p)),
    );
    names.retain(|name| !name.contains(['*', '?']));
    names
}

/// What the tables say of `name` (a command's program as it spells it): one hash for a name a
/// table spells, each table's own lookup for another.
pub(super) fn known(name: &str) -> Known {
    let names = known_names();
    match names.places.place(name).and_then(|at| names.known.get(at)) {
        Some(known) => *known,
        None => Known::computed(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same<T>(a: Option<&T>, b: Option<&T>) -> bool {
        a.map(std::ptr::from_ref) == b.map(std::ptr::from_ref)
    }

    /// For every name a table spells, and names near them (cut, lengthened, in capitals, with
    /// a `g` before them: a GNU tool's name), what is found by one hash is what each table's
    /// lookup finds.
    #[test]
    fn a_name_is_known_as_each_table_finds_it() {
        let mut names: Vec<String> = ["", "x", "g", "grm", "gdd", "git", "mkfs.ext4", "é"]
            .map(String::from)
            .to_vec();
        for name in table_names() {
            names.push(format!("g{name}"));
            names.push(format!("{name}x"));
            names.push(name.to_uppercase());
            names.push(name.chars().skip(1).collect());
            names.push(name.to_string());
        }
        let mut hashed = 0;
        for name in &names {
            let found = known(name);
            let each = Known::computed(name);
            assert_eq!(found.tool(name), each.tool(name), "{name:?}");
            assert_eq!(found.lists, each.lists, "{name:?}");
            assert!(same(found.wrapper, each.wrapper), "{name:?}");
            assert!(same(found.opaque, each.opaque), "{name:?}");
            assert!(same(found.code_files, each.code_files), "{name:?}");
            assert!(same(found.old_style, each.old_style), "{name:?}");
            assert!(same(found.option_reads, each.option_reads), "{name:?}");
            assert!(same(found.program, each.program), "{name:?}");
            assert_eq!(found.commands, each.commands, "{name:?}");
            assert_eq!(found.writes, each.writes, "{name:?}");
            assert_eq!(found.tree_reads, each.tree_reads, "{name:?}");
            hashed += usize::from(known_names().places.place(name).is_some());
        }
        // Every name a table spells is found by the hash (and some of the names near them).
        assert!(table_names()
            .iter()
            .all(|name| known_names().places.place(name).is_some()));
        assert!(hashed > table_names().len(), "{hashed}");
        assert_eq!(known("grm").tool("grm"), "rm");
        assert_eq!(known("git").tool("git"), "git");
    }
}
