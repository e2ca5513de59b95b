//! The hardline's entries that name programs (hardline.json `commands` and `writes`, and its lists
//! of programs, `program_lists.rs`) found by the program they name: one search of a sorted list
//! of names instead of a test of every entry's programs for every command of a line. An entry
//! naming its program by a wildcard (`mkfs.*`) is tested as before.

use super::walk::names;
use crate::spec::spec;
use crate::spec::types::{cmp_names, HardCommand, HiddenWrite, Str, TreeRead};
use std::sync::OnceLock;

/// The entries of a list by each program name, in the order of the spec data.
pub(super) struct ProgramIndex {
    /// Each name an entry spells plainly, sorted, with the entries naming it (their places in
    /// the list, in order).
    by_name: Vec<(&'static str, Vec<usize>)>,
    /// The entries naming a program by a wildcard, with the wildcards.
    by_wildcard: Vec<(usize, Vec<&'static str>)>,
}

impl ProgramIndex {
    /// The index of a list whose entries name programs, from each entry's names in order.
    pub(super) fn of(programs: Vec<Vec<&'static str>>) -> ProgramIndex {
        let mut by_name: Vec<(&'static str, Vec<usize>)> = Vec::new();
        let mut by_wildcard = Vec::new();
        for (at, names) in programs.into_iter().enumerate() {
            let mut wildcards = Vec::new();
            for name in names {
                if name.contains(['*', '?']) {
                    wildcards.push(name);
                    continue;
                }
                match by_name.binary_search_by(|(known, _)| (*known).cmp(name)) {
                    Ok(found) => {
                        if let Some((_, entries)) = by_name.get_mut(found) {
                            if entries.last() != Some(&at) {
                                entries.push(at);
                            }
                        }
                    }
                    Err(place) => by_name.insert(place, (name, vec![at])),
                }
            }
            if !wildcards.is_empty() {
                by_wildcard.push((at, wildcards));
            }
        }
        ProgramIndex {
            by_name,
            by_wildcard,
        }
    }

    /// The places of the entries that name `program` (plainly or by a wildcard), in order.
    pub(super) fn naming<'p>(&'static self, program: &'p str) -> impl Iterator<Item = usize> + 'p {
        // Both lists are in the spec data's order: merged, an entry in both given once.
        let mut plainly = self.naming_plainly(program).iter().copied().peekable();
        let mut by_wildcard = self.naming_by_wildcard(program).peekable();
        std::iter::from_fn(move || match (plainly.peek(), by_wildcard.peek()) {
            (Some(a), Some(b)) if a == b => {
                by_wildcard.next();
                plainly.next()
            }
            (Some(a), Some(b)) if a < b => plainly.next(),
            (Some(_), Some(_)) | (None, _) => by_wildcard.next(),
            (Some(_), None) => plainly.next(),
        })
    }

    /// The places of the entries that spell `program` plainly, in order.
    pub(super) fn naming_plainly(&self, program: &str) -> &[usize] {
        self.by_name
            .binary_search_by(|(known, _)| cmp_names(known, program))
            .ok()
            .and_then(|found| self.by_name.get(found))
            .map_or(&[][..], |(_, entries)| entries.as_slice())
    }

    /// The places of the entries whose wildcard names `program`, in order.
    pub(super) fn naming_by_wildcard<'p>(
        &'static self,
        program: &'p str,
    ) -> impl Iterator<Item = usize> + 'p {
        self.by_wildcard
            .iter()
            .filter(move |(_, wildcards)| wildcards.iter().any(|w| names(w, program)))
            .map(|(at, _)| *at)
    }
}

/// The hardline's command entries that name `program` (plainly or by a wildcard), in the order
/// of the spec data.
pub(super) fn entries_naming(program: &str) -> impl Iterator<Item = &'static HardCommand> + '_ {
    static INDEX: OnceLock<ProgramIndex> = OnceLock::new();
    naming_in(&INDEX, &spec().hardline.commands, |e| &e.programs, program)
}

/// The hardline's `writes` entries that name `program` (plainly or by a wildcard), in the order
/// of the spec data.
pub(super) fn writes_naming(program: &str) -> impl Iterator<Item = &'static HiddenWrite> + '_ {
    static INDEX: OnceLock<ProgramIndex> = OnceLock::new();
    naming_in(&INDEX, &spec().hardline.writes, |e| &e.programs, program)
}

/// The hardline's `tree_reads` entries that name `program`, in the order of the spec data.
pub(super) fn tree_reads_naming(program: &str) -> impl Iterator<Item = &'static TreeRead> + '_ {
    static INDEX: OnceLock<ProgramIndex> = OnceLock::new();
    naming_in(
        &INDEX,
        &spec().hardline.tree_reads,
        |e| &e.programs,
        program,
    )
}

/// The entries of `entries` naming `program`, by `index` (made on first use from each entry's
/// `programs`).
fn naming_in<'p, E>(
    index: &'static OnceLock<ProgramIndex>,
    entries: &'static [E],
    programs: fn(&'static E) -> &'static [Str],
    program: &'p str,
) -> impl Iterator<Item = &'static E> + 'p {
    index
        .get_or_init(|| {
            ProgramIndex::of(
                entries
                    .iter()
                    .map(|e| programs(e).iter().map(|p| &**p).collect())
                    .collect(),
            )
        })
        .naming(program)
        .filter_map(move |at| entries.get(at))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every program named by some entry, and names no entry spells, find exactly the entries a
    /// test of every entry's programs finds, in the same order: of `commands` and of `writes`.
    #[test]
    fn the_index_finds_what_a_test_of_every_entry_finds() {
        let commands = &spec().hardline.commands;
        let mut programs: Vec<String> = commands
            .iter()
            .flat_map(|e| e.programs.iter().map(|p| p.replace(['*', '?'], "x")))
            .collect();
        programs.extend(
            [
                "git",
                "ls",
                "mkfs.ext4",
                "newfs_hfs",
                "",
                "x",
                "rm",
                "RM",
                "mkfs",
            ]
            .map(String::from),
        );
        for program in &programs {
            let every: Vec<&str> = commands
                .iter()
                .filter(|e| {
                    e.programs
                        .iter()
                        .any(|p| super::super::walk::names(p, program))
                })
                .map(|e| &*e.id)
                .collect();
            let found: Vec<&str> = entries_naming(program).map(|e| &*e.id).collect();
            assert_eq!(found, every, "{program}");
        }
        assert!(entries_naming("rm").next().is_some());
        assert!(entries_naming("mkfs.ext4").next().is_some());
        let writes = &spec().hardline.writes;
        for program in programs.iter().chain(
            writes
                .iter()
                .flat_map(|w| w.programs.iter())
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .iter(),
        ) {
            let every: Vec<*const HiddenWrite> = writes
                .iter()
                .filter(|w| {
                    w.programs
                        .iter()
                        .any(|p| super::super::walk::names(p, program))
                })
                .map(std::ptr::from_ref)
                .collect();
            let found: Vec<*const HiddenWrite> =
                writes_naming(program).map(std::ptr::from_ref).collect();
            assert_eq!(found, every, "{program}");
        }
        assert!(writes_naming("git").next().is_some());
    }
}
