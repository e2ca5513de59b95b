//! What a program does, read from its words (permission/programs.json): the grammar of its
//! read-only forms ([`grammar`]) — a default rule covers a command only inside it — and the
//! options and operands that make an approval not cover it ([`effects`]).

pub mod effects;
pub mod grammar;
pub mod scripts;

use super::wildcard;
use crate::spec::hashed::HashedMap;
use crate::spec::spec;
use crate::spec::types;
use crate::spec::types::{Effects, Grammar};
use std::sync::OnceLock;

/// The one-letter option `-LETTER` (a cluster `-rf` is `-r` and `-f`), written without the
/// formatting machinery: this is asked for every letter of every cluster.
pub(crate) fn short_option(letter: char) -> String {
    let mut option = String::with_capacity(1 + letter.len_utf8());
    option.push('-');
    option.push(letter);
    option
}

/// What the file says of a program, when it names it (its table hashed once).
pub(crate) fn program_entry(program: &str) -> Option<&'static types::Program> {
    static PROGRAMS: OnceLock<HashedMap<types::Program>> = OnceLock::new();
    PROGRAMS
        .get_or_init(|| HashedMap::of(&spec().programs.programs))
        .get(program)
}

/// The grammar of a program's read-only forms, when it has one.
pub fn read_only(program: &str) -> Option<&'static Grammar> {
    program_entry(program)?.read_only.as_ref()
}

/// What makes an approval not cover a program's commands, when the file says.
pub fn effects_of(program: &str) -> Option<&'static Effects> {
    program_entry(program)?.effects.as_ref()
}

/// The files a program's operands name for reading, when the file says it reads them.
pub fn reads_of(program: &str) -> Option<&'static types::Reads> {
    program_entry(program)?.reads.as_ref()
}

/// Whether a program's read-only grammar says `option` (spelled whole) never takes the next
/// word as its value: a flag, or a value only after `=`. False when the grammar does not say.
pub fn never_takes_next_word(program: &str, option: &str) -> bool {
    read_only(program)
        .and_then(|g| grammar::option_kind(g, &spec().programs.sets, option))
        .is_some_and(|kind| matches!(kind, types::ValueKind::Flag | types::ValueKind::Optional))
}

/// Reads a command's arguments by its program's read-only grammar (see [`grammar::read`]).
pub fn read(
    grammar: &Grammar,
    args: &[grammar::Arg<'_>],
) -> Result<Vec<grammar::NamedRead>, grammar::Outside> {
    grammar::read(grammar, &spec().programs.sets, args)
}

#[cfg(test)]
mod tests;
