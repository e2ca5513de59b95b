//! The hardline's lists of programs (hardline.json `plain`: the shells, the programs that only
//! read metadata, change the directory or make links, GNU tools' `g` names, and the programs of
//! its `writes`), read once into one sorted list of names, each with the lists it is on, and the
//! wildcards (`mkfs.*`): asked of every command of a line, a list was a scan of every name in it,
//! and then a search of its own.

use super::walk::names;
use crate::spec::spec;
use crate::spec::types::{cmp_names, Str};
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

/// Every name of every list, read once: the names spelled plainly sorted with the lists they are
/// on, and the wildcards (`mkfs.*`) with theirs. A command's program is looked up once for all
/// the lists, where each list was a search of its own.
#[derive(Debug, Default)]
pub(super) struct ProgramLists {
    /// The names spelled plainly, sorted, each once.
    plain: Vec<(&'static str, Lists)>,
    /// The names with a wildcard, in the lists' order.
    wildcards: Vec<(&'static str, Lists)>,
}

impl ProgramLists {
    fn read() -> ProgramLists {
        let mut lists = ProgramLists::default();
        for list in List::ALL {
            for name in list.names() {
                let name: &'static str = name;
                if name.contains(['*', '?']) {
                    lists.wildcards.push((name, Lists(list.bit())));
                    continue;
                }
                match lists
                    .plain
                    .binary_search_by(|(known, _)| (*known).cmp(name))
                {
                    Ok(at) => {
                        if let Some((_, on)) = lists.plain.get_mut(at) {
                            on.0 |= list.bit();
                        }
                    }
                    Err(at) => lists.plain.insert(at, (name, Lists(list.bit()))),
                }
            }
        }
        lists
    }

    /// The lists that name `program` (as [`names`] reads a name of it).
    pub(super) fn of(&self, program: &str) -> Lists {
        let mut on = self
            .plain
            .binary_search_by(|(known, _)| cmp_names(known, program))
            .ok()
            .and_then(|at| self.plain.get(at))
            .map_or(Lists::default(), |(_, on)| *on);
        for (wildcard, lists) in &self.wildcards {
            if names(wildcard, program) {
                on.0 |= lists.0;
            }
        }
        on
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
