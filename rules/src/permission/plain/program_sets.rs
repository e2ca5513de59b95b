//! The hardline's lists of programs (hardline.json `plain`: the shells, the programs that only
//! read metadata, change the directory or make links, GNU tools' `g` names, and the programs of
//! its `writes`), each read once into a sorted list of names and its wildcards (`mkfs.*`): asked
//! of every command of a line, a list was a scan of every name in it.

use super::walk::names;
use crate::spec::spec;
use crate::spec::types::Str;
use std::sync::OnceLock;

/// A list of program names, read.
#[derive(Debug, Default)]
pub(super) struct ProgramSet {
    /// The names spelled plainly, sorted.
    plain: Vec<&'static str>,
    /// The names with a wildcard, in the list's order.
    wildcards: Vec<&'static str>,
}

impl ProgramSet {
    fn of(lists: impl IntoIterator<Item = &'static Str>) -> ProgramSet {
        let mut set = ProgramSet::default();
        for name in lists {
            let name: &'static str = name;
            if name.contains(['*', '?']) {
                set.wildcards.push(name);
            } else {
                set.plain.push(name);
            }
        }
        set.plain.sort_unstable();
        set.plain.dedup();
        set
    }

    /// Whether the list names `program` (as [`names`] reads a name of it).
    pub(super) fn names(&self, program: &str) -> bool {
        self.plain.binary_search(&program).is_ok()
            || self.wildcards.iter().any(|w| names(w, program))
    }
}

/// Each list of programs the walk asks about.
#[derive(Debug)]
pub(super) struct ProgramSets {
    /// `plain.shells`: POSIX shells, whose `-c` line is read again.
    pub(super) shells: ProgramSet,
    /// `plain.other_shells`: shells whose language is not read.
    pub(super) other_shells: ProgramSet,
    /// `plain.input_shells`: programs that run their input as shell code.
    pub(super) input_shells: ProgramSet,
    /// `plain.metadata`: programs that read only a file's metadata.
    pub(super) metadata: ProgramSet,
    /// `plain.changes_directory`.
    pub(super) changes_directory: ProgramSet,
    /// `plain.links`: programs that make links.
    pub(super) links: ProgramSet,
    /// Every program a `writes` entry names.
    pub(super) writers: ProgramSet,
    /// `plain.gnu_names`: GNU tools macOS installs under a `g` name.
    pub(super) gnu_names: ProgramSet,
}

/// The lists, read once.
pub(super) fn program_sets() -> &'static ProgramSets {
    static SETS: OnceLock<ProgramSets> = OnceLock::new();
    SETS.get_or_init(|| {
        let hardline = spec().hardline;
        let plain = &hardline.plain;
        ProgramSets {
            shells: ProgramSet::of(plain.shells.iter()),
            other_shells: ProgramSet::of(plain.other_shells.iter()),
            input_shells: ProgramSet::of(plain.input_shells.iter()),
            metadata: ProgramSet::of(plain.metadata.iter()),
            changes_directory: ProgramSet::of(plain.changes_directory.iter()),
            links: ProgramSet::of(plain.links.iter()),
            writers: ProgramSet::of(hardline.writes.iter().flat_map(|w| w.programs.iter())),
            gnu_names: ProgramSet::of(plain.gnu_names.iter()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each set names exactly the programs its list names, for every name of every list (and
    /// names near them: cut, lengthened, in capitals, with a `g` before them).
    #[test]
    fn a_set_names_what_its_list_names() {
        let hardline = spec().hardline;
        let plain = &hardline.plain;
        let writers: Vec<Str> = hardline
            .writes
            .iter()
            .flat_map(|w| w.programs.iter().cloned())
            .collect();
        let sets = program_sets();
        let lists: [(&ProgramSet, &[Str]); 8] = [
            (&sets.shells, &plain.shells),
            (&sets.other_shells, &plain.other_shells),
            (&sets.input_shells, &plain.input_shells),
            (&sets.metadata, &plain.metadata),
            (&sets.changes_directory, &plain.changes_directory),
            (&sets.links, &plain.links),
            (&sets.writers, &writers),
            (&sets.gnu_names, &plain.gnu_names),
        ];
        let mut programs: Vec<String> = ["", "x", "mkfs.ext4", "bash", "sh", "zsh", "ln", "cd"]
            .map(String::from)
            .to_vec();
        for (_, list) in &lists {
            for name in list.iter() {
                let name = name.replace(['*', '?'], "x");
                programs.push(format!("g{name}"));
                programs.push(format!("{name}x"));
                programs.push(name.to_uppercase());
                programs.push(name.chars().skip(1).collect());
                programs.push(name);
            }
        }
        let mut named = 0;
        for (set, list) in &lists {
            assert!(!list.is_empty());
            for program in &programs {
                let scanned = list.iter().any(|n| names(n, program));
                assert_eq!(set.names(program), scanned, "{program:?} in {list:?}");
                named += usize::from(scanned);
            }
        }
        assert!(named > programs.len() / 4);
    }
}
