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

mod addresses;
mod code_files;
mod code_text;
mod entries;
mod find;
mod find_expression;
mod folders;
mod forms;
mod hidden_writes;
mod index;
mod known;
mod old_style;
mod program_lists;
mod secrets;
mod splitting;
mod tree_reads;
mod unlisted;
mod unlisted_paths;
mod values;
mod variable_paths;
mod walk;
mod wrappers;

pub use super::glob::path_meets;
pub use super::path::{resolve, Place};
pub(crate) use index::wrapper_named;
pub(crate) use wrappers::{scan_wrapper, WrapperPart};

use super::hardline::Hit;
use super::programs::effects::Effect;
use super::programs::grammar::Outside;
use super::shell::{self, Construct};
use crate::spec::spec;
use folders::Folders;
use std::borrow::Cow;
use values::{Scope, BASH};
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
    /// Every command of the line as rules see it, with what its program's grammar and effects
    /// make of its words.
    pub commands: Vec<CommandRead>,
    /// Files the line writes (redirections and writing programs), absolute, with the part of the
    /// line that writes each.
    pub writes: Vec<(String, String)>,
    /// Files the line reads by name: `< file`, `$(< file)`, a path a grammar reads (`date -f`,
    /// `git diff --no-index`).
    pub reads: Vec<FileRead>,
    /// Parts of the line that read a file known only when the line runs (`cat "$(…)"`): asked.
    pub unknown_reads: Vec<String>,
    /// Redirections that open a network connection (`/dev/tcp/…`, `/dev/udp/…`), as written.
    pub network: Vec<String>,
    /// Folders written whole under which a path the hardline asks before writing lies (`cp -r
    /// h/. .githooks/`): each asked as a write of that path is.
    pub guarded_trees: Vec<Hit>,
    /// The words of the commands' arguments (or the values inside them, after `=`, `:` or `@`)
    /// that the caller's `guarded` test picked: paths a command may read that a rule guards.
    pub guarded: Vec<String>,
}

/// A command of the line, as rules see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandRead {
    /// Its words joined by one space, quotes removed: what rules match.
    pub text: String,
    /// Whether its words stay inside its program's read-only grammar (a default rule covers it
    /// only then).
    pub read_only: ReadOnly,
    /// What it and every command it runs ask for that an approval never covers.
    pub effects: Vec<Effect>,
}

/// What a program's read-only grammar makes of a command's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadOnly {
    /// Its program has no grammar.
    NoGrammar,
    /// Inside the grammar.
    Inside,
    /// Outside it, and why.
    Outside(Outside),
}

/// A file a line reads by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRead {
    /// The path, absolute (a glob when the word is one).
    pub path: String,
    /// Whether a folder there is read whole.
    pub whole: bool,
}

/// Whether the spec's tables say what the program `name` does with its words (see
/// `Known::described`): an approval may cover its every form only then.
pub(crate) fn described(name: &str) -> bool {
    known::known(name).described()
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
        hardline: spec().hardline,
        place,
        out: Analysis::default(),
        cwds: Some(Folders::one(Cow::Borrowed(place.root))),
        links: Vec::new(),
        links_lost: false,
        current: None,
        built: Vec::new(),
        changed_folder: false,
        variable_folders: Vec::new(),
        too_many_values: std::cell::Cell::new(false),
        text_as_a_line: false,
    };
    walker.out.commands = reading
        .commands
        .iter()
        .filter(|c| !c.words.is_empty())
        .map(|c| CommandRead {
            text: c.text(),
            read_only: ReadOnly::NoGrammar,
            effects: Vec::new(),
        })
        .collect();
    let scope = Scope::new(&reading, Some(Cow::Borrowed(BASH)));
    walker.reading(&reading, &scope, 0);
    if walker.too_many_values.get() {
        walker.opaque(shell::Construct::TooManyValues);
    }
    walker.out
}

#[cfg(test)]
mod tests;
