//! A program lembas knows nothing of (no read-only grammar, no hardline entry, on no list of
//! hardline.json `plain`) may be a wrapper it does not list — `uv run`, `npx`, `valgrind`,
//! `faketime D`, an interpreter or a build tool — and run what follows it: its later words are
//! read for the commands they may start and the lines they may hold, so what the hardline refuses
//! is refused however it is wrapped (hardline.json `plain`: `text_programs`, `line_options`).

use super::program_lists::{program_lists, List, Lists};
use super::values::{Scope, SH};
use super::walk::{command_text, gnu_name, Holds, Walker, UNKNOWN_WRITE};
use crate::permission::shell::{self, Construct, Word};
use crate::spec::spec;
use std::borrow::Cow;

impl Walker<'_> {
    /// The later words of a command whose program may run them (see [`may_run_its_words`]),
    /// at most [`MAX_WORD_COMMANDS`] commands of them (past that the line is opaque):
    /// - a word naming a program the hardline judges starts a command (`valgrind rm -rf ~` is
    ///   `rm -rf ~`), also through a variable the line sets (`R=rm; uv run $R -rf ~`);
    /// - a word whose name is known only when it runs (`"$(echo rm)"`, `/bin/r[m]`) may be any
    ///   program: an entry whose target its later words name (`-rf ~`) is not known to hold;
    /// - a word holding a line, where it stands as an operand or after a `line_options` option
    ///   (`hyperfine "rm -rf ~"`, `npx -c "…"`), is read for what the hardline refuses in it —
    ///   not a text program's (`printf`), nor an option's value such as a title (`--title "…"`).
    pub(super) fn words_as_commands(
        &mut self,
        words: &[Word],
        scope: &Scope<'_>,
        stdin_fed: bool,
        depth: usize,
    ) {
        let plain = &self.hardline.plain;
        // Where a command may start, and the program's name when a variable gives it.
        let mut starts: Vec<(usize, Option<String>)> = Vec::new();
        let mut unknown_names: Vec<usize> = Vec::new();
        for (at, w) in words.iter().enumerate().skip(1) {
            let place = WordPlace {
                next: words.get(at + 1),
                after_option: follows_option(words, at),
                last_fed: stdin_fed && at + 1 == words.len(),
            };
            if !w.dynamic() && !w.glob() {
                if self.runs_as_program(&w.text, &place) {
                    starts.push((at, None));
                } else if let Some(name) = package_program(&w.text) {
                    // `npx rimraf@5`: the package's program at a version (a repository's name
                    // in any letter case: `isaacs/RimRaf`).
                    let name = name.to_ascii_lowercase();
                    if self.runs_as_program(&name, &place) {
                        starts.push((at, Some(name)));
                    }
                } else if package_source(&w.text) {
                    // A package whose program its spelling does not name (a tarball, an
                    // address): any program.
                    unknown_names.push(at);
                }
                continue;
            }
            match self.values(w, scope) {
                Some(values) if !w.glob() => {
                    for value in values {
                        if self.runs_as_program(&value, &place) {
                            starts.push((at, Some(value)));
                        }
                    }
                }
                _ => unknown_names.push(at),
            }
        }
        for at in unknown_names {
            let args = words.get(at + 1..).unwrap_or(&[]);
            if args.is_empty() {
                continue;
            }
            let met =
                self.hardline.commands.iter().find(|e| {
                    e.targets.is_some() && self.entry(e, args, scope, None) == Holds::Yes
                });
            if let Some(e) = met {
                let part = command_text(words.get(at..).unwrap_or(&[]));
                self.hit(e, part, Holds::Maybe);
            }
        }
        if starts.len() > MAX_WORD_COMMANDS {
            self.opaque(Construct::WrapperLine);
            return;
        }
        let program = words.first().map_or("", |w| shell::program_name(&w.text));
        if !plain.text_programs.iter().any(|p| *p == program) {
            for (at, w) in words.iter().enumerate().skip(1) {
                // After an option it may be that option's value: read unless the option is one
                // whose value is text (`--title "…"`, `-m "…"`), or a line option's.
                let stands_for_a_line = !follows_option(words, at)
                    || words.get(at - 1).is_some_and(|option| {
                        plain.line_options.iter().any(|o| *o == option.text)
                            || !plain.text_options.iter().any(|o| *o == option.text)
                    });
                // `--call='LINE'`, `-p'LINE'`: a line option's value joined to it.
                let joined = w
                    .text
                    .split_once('=')
                    .and_then(|(option, value)| {
                        plain
                            .line_options
                            .iter()
                            .any(|o| *o == option)
                            .then_some(value)
                    })
                    .or_else(|| {
                        plain.line_options.iter().find_map(|o| {
                            let short = o.len() == 2 && o.starts_with('-') && !o.starts_with("--");
                            w.text
                                .strip_prefix(o.as_ref())
                                .filter(|value| short && !value.is_empty())
                        })
                    });
                let (text, stands_for_a_line) = match joined {
                    Some(value) => (value, true),
                    None => (w.text.as_str(), stands_for_a_line),
                };
                if stands_for_a_line && holds_a_line(text) {
                    self.hardline_of_line(text, Some(scope), depth);
                }
            }
        }
        for (at, given) in starts {
            let Some(command) = words.get(at..) else {
                continue;
            };
            match given {
                None => self.unwrap_wrappers(command, scope, stdin_fed, depth),
                Some(name) => {
                    let mut named: Vec<Word> = command.to_vec();
                    if let Some(first) = named.first_mut() {
                        *first = Word::literal(&name);
                    }
                    self.unwrap_wrappers(&named, scope, stdin_fed, depth);
                }
            }
        }
    }

    /// Whether a later word of such a command names a program it may run, the hardline judges:
    /// a name, an absolute path, or a relative one that leads out of the root (`../../bin/rm`;
    /// `tests/sh` is the project's file), not a shell's builtin (`.`, `eval`: no program runs
    /// one); a shell only where it is no option's value (`pytest -k bash`) and is given words or
    /// fed its input (`npx bash x.sh`, `… | uv run sh`).
    fn runs_as_program(&self, text: &str, place: &WordPlace<'_>) -> bool {
        // An option, or text no program is named by.
        if text.is_empty() || text.starts_with(['-', '+']) || text.contains(['=', ' ']) {
            return false;
        }
        let plain = &self.hardline.plain;
        if text.contains('/') && !text.starts_with('/') {
            let leaves_root = self.resolve_all(text).is_none_or(|paths| {
                paths
                    .iter()
                    .any(|p| !super::super::path::is_inside(self.place.root, p))
            });
            if !leaves_root {
                return false;
            }
        }
        let name = gnu_name(shell::program_name(text));
        let lists = program_lists().of(name);
        if lists.has(List::Shells) || lists.has(List::OtherShells) || lists.has(List::InputShells) {
            return !place.after_option && (place.next.is_some() || place.last_fed);
        }
        plain.opaque.get(name).is_none()
            && (super::index::entries_naming(name).next().is_some()
                || super::index::wrapper_named(name).is_some())
    }

    /// What the hardline refuses in a text read as a line, and nothing else of it: its other
    /// findings (what it reads or writes, its opaque constructs) are dropped. `$IFS` and every
    /// `${IFS…}` are read as the space they split at (`rm${IFS}-rf${IFS}/`, `${IFS%?}`), as the
    /// line would run with bash's own IFS.
    pub(super) fn hardline_of_line(&mut self, text: &str, scope: Option<&Scope<'_>>, depth: usize) {
        let spaced;
        let text = if text.contains("IFS") {
            spaced = ifs_as_space(text);
            spaced.as_str()
        } else {
            text
        };
        let opaque = self.out.opaque;
        let kept = (
            self.out.writes.len(),
            self.out.reads.len(),
            self.out.unknown_reads.len(),
            self.out.network.len(),
            self.out.guarded.len(),
        );
        let unknown = self.out.unknown.len();
        let text_as_a_line = std::mem::replace(&mut self.text_as_a_line, true);
        self.line(text, Some(Cow::Borrowed(SH)), scope, depth);
        self.text_as_a_line = text_as_a_line;
        self.out.opaque = opaque;
        // A write it makes of a path the hardline refuses or asks before writing (`hyperfine
        // 'echo x >> ~/.bashrc'`) is judged as that path's entry says.
        let made: Vec<String> = self
            .out
            .writes
            .drain(kept.0..)
            .map(|(path, _)| path)
            .collect();
        for path in made {
            let found = crate::permission::hardline::check_path(
                &path,
                super::super::RiskClass::Write,
                self.place.home,
                self.place.root,
            );
            match found {
                Some(found) if found.ask => self.out.guarded_trees.push(found.hit),
                Some(found) => self.out.hits.push(found.hit),
                None => {}
            }
        }
        self.out.reads.truncate(kept.1);
        self.out.unknown_reads.truncate(kept.2);
        self.out.network.truncate(kept.3);
        self.out.guarded.truncate(kept.4);
        // Of what may hold, only the hardline's entries: a write whose file is not known is
        // the line's own reading.
        let mut at = unknown;
        while let Some(hit) = self.out.unknown.get(at) {
            if hit.entry == UNKNOWN_WRITE {
                self.out.unknown.remove(at);
            } else {
                at += 1;
            }
        }
    }
}

impl Walker<'_> {
    /// A value a program puts into the lines it runs (`make CC=VALUE`, an environment variable
    /// make reads): read for what the hardline refuses, as the start of a line (`rm -rf ~;`) and,
    /// when it starts with a separator after any quote, as the rest of one (`; rm -rf ~ #`
    /// after `cc`).
    pub(super) fn hardline_of_value(
        &mut self,
        text: &str,
        scope: Option<&Scope<'_>>,
        depth: usize,
    ) {
        self.hardline_of_line(text, scope, depth);
        let rest = text.trim_start_matches(['"', '\'', ' ', '\t']);
        if rest.starts_with([';', '&', '|', '\n']) {
            self.hardline_of_line(&format!("x {rest}"), scope, depth);
        }
    }
}

/// Where a later word of a command stands ([`Walker::runs_as_program`]).
struct WordPlace<'w> {
    /// The word after it.
    next: Option<&'w Word>,
    /// It follows an option (it may be that option's value).
    after_option: bool,
    /// It is the last word, and the command's input is fed to it.
    last_fed: bool,
}

/// Whether the word at `at` follows an option of its command (not its program) that may take
/// it as its value: not one with its value joined (`--shell=none`).
fn follows_option(words: &[Word], at: usize) -> bool {
    at > 1
        && words.get(at - 1).is_some_and(|before| {
            before.text.starts_with('-')
                && !(before.text.starts_with("--") && before.text.contains('='))
        })
}

/// Whether a word's text may be a shell line: it holds a blank, a separator, or `IFS`
/// (`rm${IFS}-rf${IFS}/` splits where it runs).
pub(super) fn holds_a_line(text: &str) -> bool {
    text.contains([' ', '\t', '\n', ';', '&', '|']) || text.contains("IFS")
}

/// `$IFS` and each `${IFS…}` (`${IFS}`, `${IFS%?}`, `${IFS::1}`) as a space.
fn ifs_as_space(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let length = if from.starts_with("${IFS") {
            from.find('}').map_or(from.len(), |end| end + 1)
        } else if from.starts_with("$IFS") {
            "$IFS".len()
        } else {
            0
        };
        if length == 0 {
            out.push('$');
            rest = from.get(1..).unwrap_or("");
        } else {
            out.push(' ');
            rest = from.get(length..).unwrap_or("");
        }
    }
    out.push_str(rest);
    out
}

/// The program a package word names at a version or by npm's alias (`rimraf@5`,
/// `del-cli@latest`, `npm:rimraf`, `rimraf@npm:rimraf`), as npx, pnpm dlx and bunx take it, or by
/// where it comes from — a repository (`github:isaacs/rimraf`, `isaacs/rimraf#v5`,
/// `git+https://github.com/isaacs/rimraf.git`) or the project's installed packages
/// (`./node_modules/.bin/rimraf`): its last name; not a scoped package (`@scope/x`) nor an
/// address (`git@host:x/y`).
fn package_program(word: &str) -> Option<&str> {
    if let Some(name) = repository_package(word) {
        return Some(name);
    }
    let (word, aliased) = match word.strip_prefix("npm:") {
        Some(rest) => (rest, true),
        None => (word, false),
    };
    let name = match word.split_once('@') {
        // `x@npm:rimraf@5`: an alias of the package after `npm:`.
        Some((_, version)) if version.starts_with("npm:") => {
            return package_program(version);
        }
        Some((name, version)) if !version.is_empty() && !version.contains('/') => name,
        Some(_) => return None,
        None if aliased => word,
        None => return None,
    };
    let plain_name = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    plain_name.then_some(name)
}

/// Whether a word gives a package by where it comes from, in a spelling that does not name its
/// program: a tarball (`./rimraf-5.0.9.tgz`, `https://…/-/rimraf-5.0.9.tgz`), an address
/// (`git@github.com:x/y.git`, `ssh://…`, `file:../x`).
fn package_source(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    let spelled = &spec().hardline.plain.package_words;
    spelled.archives.iter().any(|s| lower.ends_with(s.as_ref()))
        || spelled
            .addresses
            .iter()
            .any(|s| lower.starts_with(s.as_ref()))
}

/// The last name of a package given by where it comes from (see [`package_program`]).
fn repository_package(word: &str) -> Option<&str> {
    let spelled = &spec().hardline.plain.package_words;
    let from_source = spelled
        .repositories
        .iter()
        .any(|s| word.starts_with(s.as_ref()));
    let installed = word.contains("node_modules/");
    // `owner/name`: npx's short form of a GitHub repository.
    let short = !word.starts_with(['.', '/', '~', '@'])
        && word.matches('/').count() == 1
        && !word.contains(':');
    if !from_source && !installed && !short {
        return None;
    }
    let path = word.split('#').next().unwrap_or(word).trim_end_matches('/');
    let last = crate::permission::path::last_name(path);
    let name = last.strip_suffix(".git").unwrap_or(last);
    // A tarball's file name is not its program's (see [`package_source`]).
    if spelled.archives.iter().any(|a| name.contains(a.as_ref())) {
        return None;
    }
    let plain_name = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    plain_name.then_some(name)
}

/// The most later words of one command read as commands of their own ([`Walker::words_as_commands`]).
const MAX_WORD_COMMANDS: usize = 8;

/// Whether a program may run its later words as a command, for all lembas knows: it is on no
/// list of the hardline, named by none of its entries (but `narrow` ones, for the subcommands
/// they do not name), with no read-only grammar and no files
/// its operands name (hardline.json, programs.json) — a wrapper lembas does not list (`uv run`,
/// `npx`, `valgrind`, `faketime D`), an interpreter or a build tool may run what follows it.
pub(super) fn may_run_its_words(program: &str, lists: Lists, words: &[Word]) -> bool {
    // Its first word that is no option: the subcommand a narrow entry may name.
    let first = words
        .iter()
        .skip(1)
        .find(|w| w.dynamic() || !w.text.starts_with('-'));
    lists == Lists::default()
        && super::index::entries_naming(program).all(|e| {
            e.narrow
                && !first.is_some_and(|w| w.dynamic() || e.subcommands.iter().any(|s| *s == w.text))
        })
        && super::super::programs::read_only(program).is_none()
        && super::super::programs::reads_of(program).is_none()
}

#[cfg(test)]
mod tests {
    use super::{ifs_as_space, package_program};

    #[test]
    fn every_spelling_of_ifs_is_the_space_it_splits_at() {
        assert_eq!(ifs_as_space("rm${IFS}-rf${IFS}/"), "rm -rf /");
        assert_eq!(ifs_as_space("rm$IFS-rf$IFS~"), "rm -rf ~");
        assert_eq!(ifs_as_space("rm${IFS%?}-rf${IFS::1}$HOME"), "rm -rf $HOME");
        assert_eq!(ifs_as_space("echo $A ${B}"), "echo $A ${B}");
        assert_eq!(ifs_as_space("${IFS"), " ");
    }

    #[test]
    fn a_package_at_a_version_names_its_program() {
        assert_eq!(package_program("rimraf@5"), Some("rimraf"));
        assert_eq!(package_program("del-cli@latest"), Some("del-cli"));
        assert_eq!(package_program("@scope/x@1"), None);
        assert_eq!(package_program("git@github.com:x/y"), None);
        assert_eq!(package_program("rimraf"), None);
        assert_eq!(package_program("x@"), None);
        assert_eq!(package_program("npm:rimraf"), Some("rimraf"));
        assert_eq!(package_program("rimraf@npm:rimraf"), Some("rimraf"));
        assert_eq!(package_program("github:isaacs/rimraf"), Some("rimraf"));
        assert_eq!(package_program("isaacs/rimraf#v5"), Some("rimraf"));
        assert_eq!(
            package_program("git+https://github.com/isaacs/rimraf.git"),
            Some("rimraf")
        );
        assert_eq!(
            package_program("./node_modules/.bin/rimraf"),
            Some("rimraf")
        );
        assert_eq!(package_program("git@github.com:isaacs/rimraf"), None);
        assert_eq!(package_program("./node_modules/rimraf"), Some("rimraf"));
        assert_eq!(package_program("x@npm:rimraf"), Some("rimraf"));
        assert_eq!(package_program("y@npm:del-cli@6"), Some("del-cli"));
    }
}
