//! The hardline's lists of programs (hardline.json `plain`: the shells, the programs that only
//! read metadata, change the directory or make links, GNU tools' `g` names, and the programs of
//! its `writes`), read once into one index of the lists by name (`index.rs`'s, as for the
//! hardline's entries): asked of every command of a line, a list was a scan of every name in it,
//! and then a search of its own.

use super::index::ProgramIndex;
#[cfg(test)]
use super::walk::names;
use crate::spec::spec;
use crate::spec::types::Str;
use std::sync::OnceLock;

/// One of the hardline's lists of programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum List {
    /// `plain.shells`: POSIX shells, whose `-c` line is read again.
    Shells,
    /// `plain.other_shells`: shells whose language is not read.
    OtherShells,
    /// `plain.input_shells`: programs that run their input as shell code.
    InputShells,
    /// `plain.metadata`: programs that read only a file's metadata.
    Metadata,
    /// `plain.changes_directory`.
    ChangesDirectory,
    /// `plain.links`: programs that make links.
    Links,
    /// Every program a `writes` entry names.
    Writers,
    /// `plain.gnu_names`: GNU tools macOS installs under a `g` name.
    GnuNames,
}

impl List {
    /// Every list, in the order of their bits.
    const ALL: [List; 8] = [
        List::Shells,
        List::OtherShells,
        List::InputShells,
        List::Metadata,
        List::ChangesDirectory,
        List::Links,
        List::Writers,
        List::GnuNames,
    ];

    /// The list's bit in a [`Lists`].
    fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// Every name of every list (some twice).
    pub(super) fn all_names() -> impl Iterator<Item = &'static str> {
        List::ALL
            .into_iter()
            .flat_map(List::names)
            .map(|name| &**name)
    }

    /// The names the hardline data gives the list.
    fn names(self) -> Vec<&'static Str> {
        let hardline = spec().hardline;
        let plain = &hardline.plain;
        match self {
            List::Shells => plain.shells.iter().collect(),
            List::OtherShells => plain.other_shells.iter().collect(),
            List::InputShells => plain.input_shells.iter().collect(),
            List::Metadata => plain.metadata.iter().collect(),
            List::ChangesDirectory => plain.changes_directory.iter().collect(),
            List::Links => plain.links.iter().collect(),
            List::Writers => hardline
                .writes
                .iter()
                .flat_map(|w| w.programs.iter())
                .collect(),
            List::GnuNames => plain.gnu_names.iter().collect(),
        }
    }
}

/// The lists a program is on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Lists(u8);

impl Lists {
    /// Whether the program is on `list`.
    pub(super) fn has(self, list: List) -> bool {
        self.0 & list.bit() != 0
    }
}

/// Every name of every list, read once into an index of the lists by name (as the hardline's
/// entries are, `index.rs`): a command's program is looked up once for all the lists, where each
/// list was a search of its own.
pub(super) struct ProgramLists(ProgramIndex);

impl ProgramLists {
    fn read() -> ProgramLists {
        ProgramLists(ProgramIndex::of(
            List::ALL
                .iter()
                .map(|list| list.names().into_iter().map(|name| &**name).collect())
                .collect(),
        ))
    }

    /// The lists that name `program` (as [`names`](super::walk::names) reads a name of it).
    pub(super) fn of(&'static self, program: &str) -> Lists {
        // The index's entries are the lists, in the order of [`List::ALL`]: each one's bit (in
        // any order, and once or twice alike).
        let places = self.0.naming_plainly(program).iter().copied();
        Lists(
            places
                .chain(self.0.naming_by_wildcard(program))
                .filter_map(|at| List::ALL.get(at))
                .fold(0, |bits, list| bits | list.bit()),
        )
    }
}

/// The lists, read once.
pub(super) fn program_lists() -> &'static ProgramLists {
    static LISTS: OnceLock<ProgramLists> = OnceLock::new();
    LISTS.get_or_init(ProgramLists::read)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A program is on exactly the lists whose data names it, for every name of every list (and
    /// names near them: cut, lengthened, in capitals, with a `g` before them).
    #[test]
    fn a_program_is_on_the_lists_that_name_it() {
        let mut programs: Vec<String> = ["", "x", "mkfs.ext4", "bash", "sh", "zsh", "ln", "cd"]
            .map(String::from)
            .to_vec();
        for list in List::ALL {
            assert!(!list.names().is_empty(), "{list:?}");
            for name in list.names() {
                let name = name.replace(['*', '?'], "x");
                programs.push(format!("g{name}"));
                programs.push(format!("{name}x"));
                programs.push(name.to_uppercase());
                programs.push(name.chars().skip(1).collect());
                programs.push(name);
            }
        }
        let mut named = 0;
        for list in List::ALL {
            for program in &programs {
                let scanned = list.names().iter().any(|n| names(n, program));
                assert_eq!(
                    program_lists().of(program).has(list),
                    scanned,
                    "{program:?} in {list:?}"
                );
                named += usize::from(scanned);
            }
        }
        assert!(named > programs.len() / 4);
    }
}
