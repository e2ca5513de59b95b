//! The hardline's command entries (hardline.json `commands`) found by the program they name:
//! one search of a sorted list of names instead of a test of every entry's programs for every
//! command of a line. An entry naming its program by a wildcard (`mkfs.*`) is tested as before.

use super::walk::names;
use crate::spec::spec;
use crate::spec::types::HardCommand;
use std::sync::OnceLock;

/// The entries of each program name, in the order of the spec data.
struct CommandIndex {
    /// Each name an entry spells plainly, sorted, with the entries naming it (their places in
    /// `commands`, in order).
    by_name: Vec<(&'static str, Vec<usize>)>,
    /// The entries naming a program by a wildcard, with the wildcards.
    by_wildcard: Vec<(usize, Vec<&'static str>)>,
}

fn index() -> &'static CommandIndex {
    static INDEX: OnceLock<CommandIndex> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut by_name: Vec<(&'static str, Vec<usize>)> = Vec::new();
        let mut by_wildcard = Vec::new();
        for (at, entry) in spec().hardline.commands.iter().enumerate() {
            let mut wildcards = Vec::new();
            for name in entry.programs.iter() {
                let name: &'static str = name;
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
        CommandIndex {
            by_name,
            by_wildcard,
        }
    })
}

/// The hardline's command entries that name `program` (plainly or by a wildcard), in the order
/// of the spec data.
pub(super) fn entries_naming(program: &str) -> impl Iterator<Item = &'static HardCommand> + '_ {
    let index = index();
    let commands = &spec().hardline.commands;
    let plainly = index
        .by_name
        .binary_search_by(|(known, _)| (*known).cmp(program))
        .ok()
        .and_then(|found| index.by_name.get(found))
        .map_or(&[][..], |(_, entries)| entries.as_slice());
    let by_wildcard = index
        .by_wildcard
        .iter()
        .filter(move |(_, wildcards)| wildcards.iter().any(|w| names(w, program)))
        .map(|(at, _)| *at);
    // Both lists are in the spec data's order: merged, an entry in both given once.
    let mut plainly = plainly.iter().copied().peekable();
    let mut by_wildcard = by_wildcard.peekable();
    std::iter::from_fn(move || match (plainly.peek(), by_wildcard.peek()) {
        (Some(a), Some(b)) if a == b => {
            by_wildcard.next();
            plainly.next()
        }
        (Some(a), Some(b)) if a < b => plainly.next(),
        (Some(_), Some(_)) | (None, _) => by_wildcard.next(),
        (Some(_), None) => plainly.next(),
    })
    .filter_map(|at| commands.get(at))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every program named by some entry, and names no entry spells, find exactly the entries a
    /// test of every entry's programs finds, in the same order.
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
    }
}
