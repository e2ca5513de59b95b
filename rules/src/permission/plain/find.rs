//! `find` (hardline.json `plain.find`): what `-delete` deletes, and the commands of `-exec`,
//! `-execdir`, `-ok` and `-okdir` with what their `{}` stands for.

use super::super::shell::{self, Word};
use super::super::wildcard;
use super::folders::Folders;
use super::program_lists::{program_lists, List};
use super::values::{found_word, is_found, joins_found, unknown_word, Scope, FOUND, MAX_VALUES};
use super::walk::{command_text, gnu_name, Walker};
use crate::permission::RiskClass;
use std::borrow::Cow;

impl Walker<'_> {
    /// `find`: the commands of `-exec`, `-execdir`, `-ok` and `-okdir`, their `{}` standing for
    /// the start points and everything under them.
    pub(super) fn find(&mut self, args: &[Word], scope: &Scope<'_>, stdin_fed: bool, depth: usize) {
        let mut starts: Vec<&Word> = Vec::new();
        let mut i = 0;
        while let Some(w) = args.get(i) {
            if matches!(w.text.as_str(), "-H" | "-L" | "-P") || w.text.starts_with("-O") {
                i += 1;
                continue;
            }
            if w.text == "-D" {
                i += 2;
                continue;
            }
            // `--` ends find's own options: the start points follow (`find -- ~ …`).
            if w.text == "--" {
                i += 1;
            }
            break;
        }
        while let Some(w) = args.get(i) {
            if w.text.starts_with('-') || w.text == "(" || w.text == "!" {
                break;
            }
            starts.push(w);
            i += 1;
        }
        let mut found: Option<Vec<String>> = Some(Vec::new());
        if starts.is_empty() {
            found = self.resolve_all(".");
        }
        for s in starts {
            match (self.targets(s, scope), found.as_mut()) {
                (Some(paths), Some(f)) => f.extend(paths),
                _ => found = None,
            }
        }
        // `-delete` deletes each start point with everything under it; with no test before it
        // (`find . -delete`), the start point itself too, the project's `.git` with it.
        if let Some(at) = args.iter().position(|w| w.text == "-delete") {
            let tested = args
                .get(..at)
                .unwrap_or(&[])
                .iter()
                .any(|w| w.text.starts_with('-') && !self.chooses_no_file(&w.text));
            // Unless a test of names narrows it, what is under them hidden names too: the
            // project's `.git` (`find . -type f -delete`).
            let names_narrowed = self.names_narrowed(args.get(..at).unwrap_or(&[]).iter());
            let starts: Vec<String> = found.iter().flatten().cloned().collect();
            let part = command_text(args);
            for start in &starts {
                self.protected_tree(start, RiskClass::Write);
                // Each start point is deleted (`find .git/objects -delete`), or what is under it.
                let deleted = if tested {
                    if !names_narrowed {
                        self.repository_goes_with(start);
                    }
                    format!("{}/*", start.trim_end_matches('/'))
                } else {
                    self.repository_goes_with(start);
                    start.clone()
                };
                self.out.writes.push((deleted, format!("find {part}")));
            }
        }
        let starts_read = found.clone();
        if found.as_ref().is_some_and(|f| f.len() > MAX_VALUES) {
            self.too_many_values.set(true);
        }
        // What `{}` stands for: the start points (unless a test comes first, which they may
        // not pass: `find . -name x -exec rm -rf {} +`) and what is under them — the project's
        // hidden folders the hardline guards too (find passes over no hidden name: `.git`),
        // unless a test of names narrows what it finds to names none of theirs may have
        // (`-name '*.py'`; `-name config` may be `.git/config`), or `{}` is a folder more is
        // put into (`{}/pre-commit`: the found folder's name is not the file's).
        let before_exec = args
            .iter()
            .take_while(|w| !matches!(w.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"));
        let tested_before_exec = before_exec
            .clone()
            .any(|w| w.text.starts_with('-') && !self.chooses_no_file(&w.text));
        let runs_in_found = args
            .iter()
            .any(|w| matches!(w.text.as_str(), "-execdir" | "-okdir"));
        let put_into = args.iter().any(|w| w.text.contains("{}/"));
        let hidden = match self.name_tested(before_exec.clone()) {
            _ if put_into => Hidden::All,
            Names::Any if files_only(before_exec) => Hidden::Files,
            Names::Any => Hidden::All,
            Names::Named(name) => Hidden::Named(name),
            Names::Narrowed => Hidden::None,
        };
        // Paths a negated or pruned test keeps out (`-not -path './.git/*'`).
        let excluded =
            excluded_paths(args.iter().take_while(|w| {
                !matches!(w.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
            }));
        // `-execdir`: any folder a found file may be in.
        let found_folders: Vec<String> = found
            .iter()
            .flatten()
            .flat_map(|p| std::iter::once(p.clone()).chain(self.under(p, Hidden::All, &excluded)))
            .collect();
        let found = found.filter(|f| f.len() <= MAX_VALUES).map(|f| {
            f.iter()
                .flat_map(|p| {
                    let start = (!tested_before_exec).then(|| p.clone());
                    start.into_iter().chain(self.under(p, hidden, &excluded))
                })
                .collect::<Vec<_>>()
        });
        while let Some(w) = args.get(i) {
            i += 1;
            if !matches!(w.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                continue;
            }
            let mut cmd = Vec::new();
            // `{}` as an option's value (`file -f {}`, `wc --files0-from={}`): a file the option
            // reads, even for a program that reads only names.
            let mut found_as_value = false;
            while let Some(a) = args.get(i) {
                i += 1;
                if a.text == ";" || (a.text == "+" && cmd.last().is_some_and(is_found)) {
                    break;
                }
                found_as_value |= a.text.contains(FOUND)
                    && (a.text.starts_with('-')
                        || cmd.last().is_some_and(|option: &Word| {
                            let program = cmd.first().map_or("", |w: &Word| w.text.as_str());
                            crate::permission::programs::reads_of(shell::program_name(program))
                                .is_some_and(|reads| {
                                    reads.file_options.iter().any(|o| *o == option.text)
                                })
                        }));
                cmd.push(if a.text == FOUND {
                    found_word()
                } else if a.text.contains(FOUND) {
                    // `{}/pre-commit`, `--out={}.txt`: the text around it kept.
                    let parts: Vec<&str> = a.text.split(FOUND).collect();
                    Word::with_parameter(&parts, FOUND)
                } else {
                    a.clone()
                });
            }
            // The command gets every file under each start point, hidden ones too: one that
            // may read them reads each start point whole (`find ~ -exec cat {} +`) — not one that
            // only writes its words out (`echo`), changes a file's owner or mode, or reads only
            // names (`ls`, `du`).
            let program = gnu_name(cmd.first().map_or("", |w| shell::program_name(&w.text)));
            let plain = &self.hardline.plain;
            let reads_them = cmd.iter().any(|w| is_found(w) || joins_found(w))
                && !plain.text_programs.iter().any(|p| *p == program)
                && (found_as_value || !plain.names_only.iter().any(|p| *p == program))
                && !program_lists().of(program).has(List::Metadata);
            if reads_them {
                for start in starts_read.iter().flatten() {
                    self.secret_tree(start);
                }
            }
            let inner = scope.finding(found.clone().unwrap_or_default());
            // Start points not known: neither is `{}`.
            let cmd: Vec<Word> = if found.is_none() {
                cmd.into_iter()
                    .map(|w| {
                        if w.text.contains(FOUND) {
                            unknown_word()
                        } else {
                            w
                        }
                    })
                    .collect()
            } else {
                cmd
            };
            // `-execdir`: the command runs in each folder a found file is in, any under the
            // start points (not known where they are not).
            let in_found = runs_in_found && matches!(w.text.as_str(), "-execdir" | "-okdir");
            let cwds = if in_found {
                let folders = found_folders
                    .split_first()
                    .filter(|_| found_folders.len() <= MAX_VALUES)
                    .map(|(first, rest)| {
                        let mut folders = Folders::one(Cow::Owned(first.clone()));
                        for folder in rest {
                            folders.add(Cow::Owned(folder.clone()));
                        }
                        folders
                    });
                Some(std::mem::replace(&mut self.cwds, folders))
            } else {
                None
            };
            self.unwrap_wrappers(&cmd, &inner, stdin_fed, depth);
            if let Some(cwds) = cwds {
                self.cwds = cwds;
            }
        }
    }

    /// Whether the tests before an action narrow the names find finds (hardline.json
    /// `plain.find.name_tests`: `-name '*.py'`), with no test negated or given an alternative
    /// (`!`, `-not`, `-o`), which may let any name through.
    fn names_narrowed<'w>(&self, before: impl Iterator<Item = &'w Word>) -> bool {
        let plain = &self.hardline.plain.find;
        let mut narrowed = false;
        for w in expression(before) {
            if w.dynamic() || plain.any_name.iter().any(|o| *o == w.text) {
                return false;
            }
            narrowed |= plain.name_tests.iter().any(|o| *o == w.text);
        }
        narrowed
    }

    /// How the tests before an action narrow the names find finds (see
    /// [`Walker::names_narrowed`]): to a name (`-name config`, `-name 'pre-*'`) a file of the
    /// hidden folders the hardline guards may have (hardline.json `plain.find.guarded_names`),
    /// or to names none of them has (`-name '*.py'`).
    fn name_tested<'w>(&self, before: impl Iterator<Item = &'w Word> + Clone) -> Names<'w> {
        if !self.names_narrowed(before.clone()) {
            return Names::Any;
        }
        let plain = &self.hardline.plain.find;
        let mut words = before;
        while let Some(w) = words.next() {
            if !plain.name_tests.iter().any(|t| *t == w.text) {
                continue;
            }
            let Some(pattern) = words.next() else {
                return Names::Any;
            };
            // `-path`, `-regex`: a folder's name may match too; read as any.
            if !matches!(w.text.as_str(), "-name" | "-iname") {
                return Names::Any;
            }
            // `?`, `[…]` and `\\` are read as any name (the wildcards here are `*` only).
            let lower = pattern.text.to_lowercase();
            let guarded = pattern.dynamic()
                || lower.contains(['?', '[', '\\'])
                || plain
                    .guarded_names
                    .iter()
                    .any(|name| wildcard::matches(&lower, &name.to_lowercase()));
            if guarded {
                return Names::Named(pattern.text.as_str());
            }
        }
        Names::Narrowed
    }

    /// What is under a start point of `find`, as globs two levels deep (a folder's files and
    /// its folders'): a name found (`-name .bashrc`) there and one level down; and where the
    /// start point holds the project, the project's hidden folders the hardline guards from
    /// writes (hardline.json `plain.find.hidden_folders`: `.git`, `.git/hooks`), as `hidden`
    /// says.
    fn under(&self, start: &str, hidden: Hidden<'_>, excluded: &[Excluded<'_>]) -> Vec<String> {
        let base = start.trim_end_matches('/');
        let mut out = vec![format!("{base}/*"), format!("{base}/*/*")];
        if let Hidden::Named(name) = hidden {
            out.push(format!("{base}/{name}"));
            out.push(format!("{base}/*/{name}"));
        }
        let root = self.place.root.trim_end_matches('/');
        if !crate::permission::path::is_inside(start, root) {
            return out;
        }
        for folder in self.hardline.plain.find.hidden_folders.iter() {
            // Kept out by a test, as find spells it from the start point or whole: a pruned
            // folder with everything under it.
            let kept_out = |path: &str| {
                let spellings = |path: &str| {
                    [
                        format!("{base}/{path}"),
                        format!("./{path}"),
                        path.to_string(),
                    ]
                };
                let ancestors = std::iter::successors(Some(path), |p| {
                    p.rsplit_once('/').map(|(parent, _)| parent)
                });
                excluded.iter().any(|test| {
                    let mut paths = std::iter::once(path)
                        .chain(ancestors.clone().skip(1).filter(|_| test.pruned));
                    paths.any(|p| {
                        spellings(p)
                            .iter()
                            .any(|spelled| wildcard::matches(test.pattern, spelled))
                    })
                })
            };
            let inside = format!("{folder}/x");
            match hidden {
                Hidden::All | Hidden::Files => {
                    if hidden == Hidden::All && !kept_out(folder) {
                        out.push(format!("{root}/{folder}"));
                    }
                    if !kept_out(&inside) {
                        out.push(format!("{root}/{folder}/*"));
                    }
                }
                Hidden::Named(name) if !kept_out(&inside) => {
                    out.push(format!("{root}/{folder}/{name}"));
                }
                Hidden::Named(_) | Hidden::None => {}
            }
        }
        out
    }

    /// Whether a word of `find` is an option that chooses no file (hardline.json
    /// `plain.find.chooses_no_file`: `-depth`, `-xdev`).
    fn chooses_no_file(&self, word: &str) -> bool {
        self.hardline
            .plain
            .find
            .chooses_no_file
            .iter()
            .any(|o| *o == word)
    }
}

/// How a test of names narrows what find finds.
#[derive(Debug, Clone, Copy)]
enum Names<'w> {
    /// Not at all: any name.
    Any,
    /// To names spelled by this pattern, which one of the guarded names matches.
    Named(&'w str),
    /// To names none of the guarded ones is.
    Narrowed,
}

/// Which files of the hidden folders the hardline guards `{}` stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hidden<'w> {
    /// None: a test of names narrows what is found to names none of theirs has.
    None,
    /// Those this pattern names (`-name config`: `.git/config`).
    Named(&'w str),
    /// Every file in them, not the folders themselves (`-type f`).
    Files,
    /// Every one: nothing narrows the names found.
    All,
}

/// A path test of find's that keeps paths out.
#[derive(Debug, Clone, Copy)]
struct Excluded<'w> {
    /// Its pattern (`./.git/*`).
    pattern: &'w str,
    /// It prunes what it matches (`-path ./.git -prune`): everything under it is kept out too.
    pruned: bool,
}

/// The path tests of find's that keep paths out: negated (`! -path P`, `-not -path P`) or
/// pruned (`-path P -prune`). A word known only when it runs keeps nothing out.
fn excluded_paths<'w>(words: impl Iterator<Item = &'w Word>) -> Vec<Excluded<'w>> {
    let words: Vec<&Word> = words.collect();
    let mut out = Vec::new();
    for (at, w) in words.iter().enumerate() {
        if !matches!(
            w.text.as_str(),
            "-path" | "-wholename" | "-ipath" | "-iwholename"
        ) {
            continue;
        }
        let Some(pattern) = words.get(at + 1).filter(|p| !p.dynamic()) else {
            continue;
        };
        let negated = at
            .checked_sub(1)
            .and_then(|before| words.get(before))
            .is_some_and(|before| matches!(before.text.as_str(), "!" | "-not"));
        let pruned = words
            .get(at + 2)
            .is_some_and(|after| after.text == "-prune");
        if negated || pruned {
            out.push(Excluded {
                pattern: pattern.text.as_str(),
                pruned,
            });
        }
    }
    out
}

/// Whether find's tests let only files through (`-type f`, not negated, with no alternative).
fn files_only<'w>(words: impl Iterator<Item = &'w Word>) -> bool {
    let words: Vec<&Word> = expression(words).collect();
    let alternative = words
        .iter()
        .any(|w| w.dynamic() || matches!(w.text.as_str(), "-o" | "-or" | ","));
    let files = words.windows(2).enumerate().any(|(at, pair)| {
        let negated = at
            .checked_sub(1)
            .and_then(|before| words.get(before))
            .is_some_and(|before| matches!(before.text.as_str(), "!" | "-not"));
        matches!(pair, [test, kind] if test.text == "-type" && kind.text == "f") && !negated
    });
    files && !alternative
}

/// find's expression (its tests and actions), after its own options and start points (`-L`,
/// `$HOME/proj`).
fn expression<'w>(words: impl Iterator<Item = &'w Word>) -> impl Iterator<Item = &'w Word> {
    words.skip_while(|w| {
        let option = matches!(w.text.as_str(), "-H" | "-L" | "-P")
            || w.text.starts_with("-O")
            || w.text.starts_with("-D");
        option || !(w.text.starts_with('-') || w.text == "(" || w.text == "!")
    })
}
