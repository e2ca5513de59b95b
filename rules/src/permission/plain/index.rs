//! The hardline's entries that name programs (hardline.json `commands` and `writes`, and its lists
//! of programs, `program_lists.rs`) found by the program they name: one search of a sorted list
//! of names instead of a test of every entry's programs for every command of a line. An entry
//! naming its program by a wildcard (`mkfs.*`) is tested as before.

use super::walk::names;
use crate::spec::hashed::{HashedMap, NamePlaces};
use crate::spec::spec;
use crate::spec::types::{HardCommand, HiddenWrite, TreeRead, Wrapper};
use std::sync::OnceLock;

/// The entries of a list by each program name, in the order of the spec data.
pub(super) struct ProgramIndex {
    /// Each name an entry spells plainly, sorted, with the entries naming it (their places in
    /// the list, in order).
    by_name: Vec<(&'static str, Vec<usize>)>,
    /// The entries naming a program by a wildcard, with the wildcards.
    by_wildcard: Vec<(usize, Vec<&'static str>)>,
    /// The place of each name in `by_name`, hashed.
    places: NamePlaces,
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
        let places = NamePlaces::of(by_name.iter().map(|(name, _)| *name));
        ProgramIndex {
            by_name,
            by_wildcard,
            places,
        }
    }

    /// The places of the entries that name `program` (plainly or by a wildcard), in order;
    /// `place` is `program`'s place among the names spelled plainly.
    pub(super) fn naming_at<'p>(
        &'static self,
        program: &'p str,
        place: Option<usize>,
    ) -> impl Iterator<Item = usize> + 'p {
        // Both lists are in the spec data's order: merged, an entry in both given once.
        let mut plainly = self.plainly_at(place).iter().copied().peekable();
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

    /// The entries of `entries` (the list this index was made of) that name `program`, in
    /// order; `place` as for [`Self::naming_at`].
    pub(super) fn entries_at<'p, E>(
        &'static self,
        entries: &'static [E],
        program: &'p str,
        place: Option<usize>,
    ) -> impl Iterator<Item = &'static E> + 'p {
        self.naming_at(program, place)
            .filter_map(move |at| entries.get(at))
    }

    /// The places of the entries that spell `program` plainly, in order.
    pub(super) fn naming_plainly(&self, program: &str) -> &[usize] {
        self.plainly_at(self.places.place(program))
    }

    /// The places of the entries spelling the name at `place` plainly, in order.
    fn plainly_at(&self, place: Option<usize>) -> &[usize] {
        place
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
    commands_naming(program).map(|named| named.entry)
}

/// A hardline command entry, with whether it holds only for one of its subcommands
/// ([`needs_a_subcommand`], found once).
pub(super) struct CommandEntry {
    pub(super) entry: &'static HardCommand,
    pub(super) needs_a_subcommand: bool,
}

/// The hardline's command entries that name `program` (plainly or by a wildcard), in the order
/// of the spec data, each with whether it needs a subcommand.
pub(super) fn commands_naming(program: &str) -> impl Iterator<Item = CommandEntry> + '_ {
    commands_naming_at(program, commands_place(program))
}

/// `program`'s place among the names the command entries spell plainly.
pub(super) fn commands_place(program: &str) -> Option<usize> {
    commands_index().programs.places.place(program)
}

/// [`commands_naming`], `place` being [`commands_place`].
pub(super) fn commands_naming_at(
    program: &str,
    place: Option<usize>,
) -> impl Iterator<Item = CommandEntry> + '_ {
    let entries = &spec().hardline.commands;
    let index = commands_index();
    index
        .programs
        .naming_at(program, place)
        .filter_map(move |at| {
            Some(CommandEntry {
                entry: entries.get(at)?,
                needs_a_subcommand: index.needs_a_subcommand.get(at).copied().unwrap_or(true),
            })
        })
}

/// The index of the hardline's command entries: by program, and their subcommands.
struct CommandsIndex {
    programs: ProgramIndex,
    subcommands: SubcommandsNamed,
    /// Whether each entry, in the spec data's order, needs a subcommand.
    needs_a_subcommand: Vec<bool>,
}

/// The index of the hardline's command entries, made on first use.
fn commands_index() -> &'static CommandsIndex {
    static INDEX: OnceLock<CommandsIndex> = OnceLock::new();
    INDEX.get_or_init(|| {
        let entries = &spec().hardline.commands;
        let programs = ProgramIndex::of(
            entries
                .iter()
                .map(|e| e.programs.iter().map(|p| &**p).collect())
                .collect(),
        );
        let subcommands = SubcommandsNamed::of(&programs, entries);
        CommandsIndex {
            programs,
            subcommands,
            needs_a_subcommand: entries.iter().map(needs_a_subcommand).collect(),
        }
    })
}

/// Whether an entry holds only for one of its subcommands, spelled as a word: it lists some,
/// and none of them is an option (`git push`'s entries, not `tar`'s `--delete`).
pub(super) fn needs_a_subcommand(e: &HardCommand) -> bool {
    !e.subcommands.is_empty() && !e.subcommands.iter().any(|s| s.starts_with('-'))
}

/// The subcommands of the hardline's command entries that name `program` and need one
/// ([`needs_a_subcommand`]), for telling at once that no word of a command spells any: then none
/// of those entries holds (`git push origin main` and git's twelve entries, each of which names
/// subcommands other than `push`).
pub(super) struct SubcommandsNamed {
    /// The subcommands of the entries naming a program plainly, hashed, by the program's place
    /// in the index's names.
    by_name: Vec<NamePlaces>,
    /// Whether every entry naming a program plainly needs a subcommand, by its place.
    every_plain_needs_one: Vec<bool>,
    /// The entries naming a program by a wildcard that need a subcommand, with the wildcards.
    by_wildcard: Vec<(Vec<&'static str>, &'static HardCommand)>,
}

impl SubcommandsNamed {
    fn of(index: &ProgramIndex, entries: &'static [HardCommand]) -> SubcommandsNamed {
        let by_name = index
            .by_name
            .iter()
            .map(|(_, places)| {
                let mut words: Vec<&'static str> = places
                    .iter()
                    .filter_map(|at| entries.get(*at))
                    .filter(|e| needs_a_subcommand(e))
                    .flat_map(|e| e.subcommands.iter().map(|s| &**s))
                    .collect();
                words.sort_unstable();
                words.dedup();
                NamePlaces::of(words.into_iter())
            })
            .collect();
        let every_plain_needs_one = index
            .by_name
            .iter()
            .map(|(_, places)| {
                places
                    .iter()
                    .filter_map(|at| entries.get(*at))
                    .all(needs_a_subcommand)
            })
            .collect();
        let by_wildcard = index
            .by_wildcard
            .iter()
            .filter_map(|(at, wildcards)| {
                let e = entries.get(*at)?;
                needs_a_subcommand(e).then(|| (wildcards.clone(), e))
            })
            .collect();
        SubcommandsNamed {
            by_name,
            every_plain_needs_one,
            by_wildcard,
        }
    }
}

/// The subcommands of the hardline's command entries naming a program that need one, found
/// once for a command ([`subcommands_of`]).
pub(super) struct SubcommandsFor<'p> {
    program: &'p str,
    plainly: Option<&'static NamePlaces>,
    /// Every entry naming the program needs a subcommand (or none names it).
    pub(super) every_entry_needs_one: bool,
}

impl SubcommandsFor<'_> {
    /// Whether one of `words` spells a subcommand of an entry naming the program that needs one
    /// ([`needs_a_subcommand`]): when none does, none of those entries holds for them.
    pub(super) fn spelled<'w>(&self, mut words: impl Iterator<Item = &'w str> + Clone) -> bool {
        let named = &commands_index().subcommands;
        let program = self.program;
        let by_wildcard = || {
            named
                .by_wildcard
                .iter()
                .filter(|(wildcards, _)| wildcards.iter().any(|w| names(w, program)))
        };
        words
            .clone()
            .any(|w| self.plainly.is_some_and(|set| set.place(w).is_some()))
            || by_wildcard().any(|(_, e)| words.any(|w| e.subcommands.iter().any(|s| *s == w)))
    }
}

/// The subcommands of the command entries naming `program`, looked up once.
#[cfg(test)]
pub(super) fn subcommands_of(program: &str) -> SubcommandsFor<'_> {
    subcommands_at(program, commands_place(program))
}

/// [`subcommands_of`], `place` being [`commands_place`].
pub(super) fn subcommands_at(program: &str, place: Option<usize>) -> SubcommandsFor<'_> {
    let index = commands_index();
    let plain_needs = place.is_none_or(|at| {
        index
            .subcommands
            .every_plain_needs_one
            .get(at)
            .copied()
            .unwrap_or(false)
    });
    let every_entry_needs_one = plain_needs
        && index
            .programs
            .naming_by_wildcard(program)
            .all(|at| index.needs_a_subcommand.get(at).copied().unwrap_or(false));
    SubcommandsFor {
        program,
        plainly: place.and_then(|at| index.subcommands.by_name.get(at)),
        every_entry_needs_one,
    }
}

/// Whether one of `words` spells a subcommand of an entry naming `program` that needs one
/// ([`SubcommandsFor::spelled`]).
#[cfg(test)]
pub(super) fn spells_a_subcommand<'w>(
    program: &str,
    words: impl Iterator<Item = &'w str> + Clone,
) -> bool {
    subcommands_of(program).spelled(words)
}

/// The wrapper the hardline's `plain.wrappers` names `program`, when it is one (its table hashed
/// once).
pub(crate) fn wrapper_named(program: &str) -> Option<&'static Wrapper> {
    static WRAPPERS: OnceLock<HashedMap<Wrapper>> = OnceLock::new();
    WRAPPERS
        .get_or_init(|| HashedMap::of(&spec().hardline.plain.wrappers))
        .get(program)
}

/// The hardline's `writes` entries by the programs they name, with the subcommands of each
/// program's entries: for telling at once that none of them holds for a command.
struct WritesIndex {
    programs: ProgramIndex,
    /// By a name's place in `programs`: whether every entry naming it plainly lists
    /// subcommands, and all of theirs.
    subcommands: Vec<(bool, NamePlaces)>,
}

/// The index of the hardline's `writes` entries, made on first use.
fn writes_index() -> &'static WritesIndex {
    static INDEX: OnceLock<WritesIndex> = OnceLock::new();
    INDEX.get_or_init(|| {
        let entries = &spec().hardline.writes;
        let programs = ProgramIndex::of(
            entries
                .iter()
                .map(|e| e.programs.iter().map(|p| &**p).collect())
                .collect(),
        );
        let subcommands = programs
            .by_name
            .iter()
            .map(|(_, places)| {
                let named: Vec<&'static HiddenWrite> =
                    places.iter().filter_map(|at| entries.get(*at)).collect();
                let every = named.iter().all(|e| !e.subcommands.is_empty());
                let words = named
                    .iter()
                    .flat_map(|e| e.subcommands.iter().map(|s| &**s));
                (every, NamePlaces::of(words))
            })
            .collect();
        WritesIndex {
            programs,
            subcommands,
        }
    })
}

/// The hardline's `writes` entries that name `program` (plainly or by a wildcard), in the order
/// of the spec data.
#[cfg(test)]
pub(super) fn writes_naming(program: &str) -> impl Iterator<Item = &'static HiddenWrite> + '_ {
    writes_naming_at(program, writes_place(program))
}

/// `program`'s place among the names the `writes` entries spell plainly.
pub(super) fn writes_place(program: &str) -> Option<usize> {
    writes_index().programs.places.place(program)
}

/// [`writes_naming`], `place` being [`writes_place`].
pub(super) fn writes_naming_at(
    program: &str,
    place: Option<usize>,
) -> impl Iterator<Item = &'static HiddenWrite> + '_ {
    writes_index()
        .programs
        .entries_at(&spec().hardline.writes, program, place)
}

/// Whether a `writes` entry naming `program` may hold for a command whose first operand is
/// `first`: not when each of them holds only for its subcommands and none is `first` (git's nine
/// entries for `git push origin main`; `hidden_writes` tests each entry so before anything else).
#[cfg(test)]
pub(super) fn writes_may_hold(program: &str, first: Option<&str>) -> bool {
    writes_may_hold_at(program, writes_place(program), first)
}

/// [`writes_may_hold`], `place` being [`writes_place`].
pub(super) fn writes_may_hold_at(program: &str, place: Option<usize>, first: Option<&str>) -> bool {
    let index = writes_index();
    if index.programs.naming_by_wildcard(program).next().is_some() {
        return true;
    }
    match place.and_then(|at| index.subcommands.get(at)) {
        None => false,
        Some((false, _)) => true,
        Some((true, words)) => first.is_some_and(|word| words.place(word).is_some()),
    }
}

/// The index of the hardline's `tree_reads` entries by program, made on first use.
fn tree_reads_index() -> &'static ProgramIndex {
    static INDEX: OnceLock<ProgramIndex> = OnceLock::new();
    INDEX.get_or_init(|| {
        ProgramIndex::of(
            spec()
                .hardline
                .tree_reads
                .iter()
                .map(|e| e.programs.iter().map(|p| &**p).collect())
                .collect(),
        )
    })
}

/// `program`'s place among the names the `tree_reads` entries spell plainly.
pub(super) fn tree_reads_place(program: &str) -> Option<usize> {
    tree_reads_index().places.place(program)
}

/// The hardline's `tree_reads` entries that name `program` (plainly or by a wildcard), in the
/// order of the spec data; `place` is [`tree_reads_place`].
pub(super) fn tree_reads_naming_at(
    program: &str,
    place: Option<usize>,
) -> impl Iterator<Item = &'static TreeRead> + '_ {
    tree_reads_index().entries_at(&spec().hardline.tree_reads, program, place)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every program a command entry names, a wildcard's `*` and `?` spelled `x`.
    fn programs_named() -> Vec<String> {
        spec()
            .hardline
            .commands
            .iter()
            .flat_map(|e| e.programs.iter().map(|p| p.replace(['*', '?'], "x")))
            .collect()
    }

    /// Every program named by some entry, and names no entry spells, find exactly the entries a
    /// test of every entry's programs finds, in the same order: of `commands` and of `writes`.
    #[test]
    fn the_index_finds_what_a_test_of_every_entry_finds() {
        let commands = &spec().hardline.commands;
        let mut programs = programs_named();
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

    /// A program's `writes` entries may hold for a first operand exactly when one of them lists
    /// no subcommands or lists it: for every program an entry names, every subcommand one lists,
    /// and names and words none does.
    #[test]
    fn writes_may_hold_when_an_entry_lists_no_subcommand_or_the_word() {
        let writes = &spec().hardline.writes;
        let mut programs: Vec<&str> = writes
            .iter()
            .flat_map(|e| e.programs.iter().map(|p| &**p))
            .collect();
        programs.extend(["gitx", "", "x"]);
        let mut words: Vec<Option<&str>> = writes
            .iter()
            .flat_map(|e| e.subcommands.iter().map(|s| Some(&**s)))
            .collect();
        words.extend([None, Some("push"), Some(""), Some("-o")]);
        let (mut held, mut passed) = (0, 0);
        for program in &programs {
            for first in &words {
                let each = writes_naming(program).any(|e| {
                    e.subcommands.is_empty()
                        || first.is_some_and(|w| e.subcommands.iter().any(|s| *s == w))
                });
                assert_eq!(
                    writes_may_hold(program, *first),
                    each,
                    "{program} {first:?}"
                );
                if each {
                    held += 1;
                } else {
                    passed += 1;
                }
            }
        }
        assert!(held > 100 && passed > 100, "{held} {passed}");
    }

    /// Every entry naming a program needs a subcommand exactly when each of the entries
    /// `commands_naming` gives does: for every program an entry names, and names none does.
    #[test]
    fn every_entry_needs_one_when_each_named_does() {
        let mut programs = programs_named();
        programs.extend(["gitx", "", "mkfs.ext4", "newfs_x", "x"].map(String::from));
        let (mut some, mut none) = (0, 0);
        for program in &programs {
            let each = commands_naming(program).all(|named| named.needs_a_subcommand);
            let found = subcommands_of(program).every_entry_needs_one;
            assert_eq!(found, each, "{program}");
            if found {
                some += 1;
            } else {
                none += 1;
            }
        }
        assert!(some > 5 && none > 5, "{some} {none}");
        assert!(subcommands_of("git").every_entry_needs_one);
    }

    /// A word spells a subcommand of the entries naming a program (that need one) exactly when
    /// one of them lists it: for every program an entry names, every subcommand an entry lists,
    /// and words none lists.
    #[test]
    fn a_subcommand_is_spelled_when_an_entry_naming_the_program_lists_it() {
        let commands = &spec().hardline.commands;
        let mut programs = programs_named();
        programs.extend(["gitx", "", "mkfs.ext4"].map(String::from));
        let mut words: Vec<&str> = commands
            .iter()
            .flat_map(|e| e.subcommands.iter().map(|s| &**s))
            .collect();
        words.extend(["push", "", "x", "--delete"]);
        let mut spelled = 0;
        for program in &programs {
            for word in &words {
                let listed = commands.iter().any(|e| {
                    needs_a_subcommand(e)
                        && e.programs
                            .iter()
                            .any(|p| super::super::walk::names(p, program))
                        && e.subcommands.iter().any(|s| s == word)
                });
                let found = spells_a_subcommand(program, [*word].into_iter());
                assert_eq!(found, listed, "{program} {word}");
                spelled += usize::from(found);
            }
            // Two words: found when either is.
            let two = spells_a_subcommand(program, ["push", "diff"].into_iter());
            assert_eq!(
                two,
                spells_a_subcommand(program, ["diff"].into_iter()),
                "{program}"
            );
        }
        assert!(spelled > 50, "{spelled}");
        assert!(spells_a_subcommand("git", ["origin", "clean"].into_iter()));
        assert!(!spells_a_subcommand(
            "git",
            ["push", "origin", "main"].into_iter()
        ));
    }
}
