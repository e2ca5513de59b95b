//! Every command a line runs, read plainly (hardline.json `plain`), and what the hardline and the
//! hidden writes make of it.
//!
//! A line is read by [`shell::read`]; then each command is unwrapped: wrappers with their own
//! option grammars (`sudo -Eu root`, `timeout 5`, `env -S '…'`, `flock -c '…' f`, `xargs`,
//! `find -exec`, `busybox`, …), a shell's `-c` line read again with its `$0`, `$1`, … (in any
//! option order), `eval`, `source`, `trap`, a shell reading its input and the other constructs of
//! `plain.opaque` called opaque. Each operand is read as the path it names: quotes removed, `~`,
//! `~user`, `$HOME`, `$PWD`, the line's own variables and `for` words, the folder a `cd` moved
//! to, a symbolic link the line made, `..` resolved. A glob is every path it can match.
//!
//! A hardline entry matches a command when all its conditions hold; when one can be decided only
//! when the line runs (an operand or an option from an expansion), the command is an
//! [`Analysis::unknown`]: auto refuses it and the other modes ask.

mod secrets;
mod values;
mod walk;
mod wrappers;

pub use super::glob::path_meets;
pub use super::path::{resolve, Place};
pub(crate) use wrappers::{scan_wrapper, WrapperPart};

use super::hardline::Hit;
use super::shell::{self, Construct};
use crate::spec::spec;
use values::Scope;
use walk::Walker;

/// What a line runs, read plainly.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Analysis {
    /// The first construct that could not be read exactly.
    pub opaque: Option<Construct>,
    /// Hardline entries that refuse a command.
    pub hits: Vec<Hit>,
    /// Hardline entries that would refuse a command if its target or option were what it may be
    /// when it runs, and writes whose file is not known.
    pub unknown: Vec<Hit>,
    /// Every command of the line as rules see it (quotes removed).
    pub commands: Vec<String>,
    /// Files the line writes (redirections and writing programs), absolute, with the part of the
    /// line that writes each.
    pub writes: Vec<(String, String)>,
    /// The words of the commands' arguments (or the values inside them, after `=`, `:` or `@`)
    /// that the caller's `guarded` test picked: paths a command may read that a rule guards.
    pub guarded: Vec<String>,
}

/// Reads a line and everything it runs.
pub fn analyse(line: &str, place: Place<'_>) -> Analysis {
    analyse_guarded(line, place, &|_| false)
}

/// [`analyse`], keeping in [`Analysis::guarded`] the argument words (and values inside them)
/// for which `guarded` says yes.
pub fn analyse_guarded(line: &str, place: Place<'_>, guarded: &dyn Fn(&str) -> bool) -> Analysis {
    let reading = shell::read(line);
    let mut walker = Walker {
        guarded,
        h: spec().hardline,
        place,
        out: Analysis::default(),
        cwds: Some(vec![place.root.to_string()]),
        links: Vec::new(),
        links_lost: false,
    };
    walker.out.commands = reading
        .commands
        .iter()
        .filter(|c| !c.words.is_empty())
        .map(shell::Command::text)
        .collect();
    let scope = Scope::new(&reading, Some(vec![Some("bash".to_string())]));
    walker.reading(&reading, &scope, 0);
    walker.out
}

#[cfg(test)]
mod tests;
