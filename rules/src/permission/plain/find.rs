//! `find` (hardline.json `plain.find`): what `-delete` deletes, and the commands of `-exec`,
//! `-execdir`, `-ok` and `-okdir` with what their `{}` stands for.

use super::super::shell::{self, Word};
use super::super::wildcard;
use super::find_expression::{self, Excluded, Names, Token};
use super::folders::Folders;
use super::program_lists::{program_lists, List};
use super::values::{found_word, is_found, joins_found, unknown_word, Scope, FOUND, MAX_VALUES};
use super::walk::{command_text, gnu_name, Walker};
use crate::permission::RiskClass;
use crate::spec::types::FindWords;
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
        let starts_read = found.clone();
        if found.as_ref().is_some_and(|f| f.len() > MAX_VALUES) {
            self.too_many_values.set(true);
        }
        let find = &self.hardline.plain.find;
        let tokens = find_expression::tokens(args, i, find);
        for (at, token) in tokens.iter().enumerate() {
            match token {
                Token::Delete => self.find_deletes(args, &tokens, at, found.as_deref()),
                Token::Runs { at: option } => {
                    let action = FindAction {
                        option: *option,
                        token: at,
                        starts_read: starts_read.as_deref(),
                        found: found.as_deref(),
                    };
                    self.find_runs(args, &tokens, &action, scope, stdin_fed, depth);
                }
                _ => {}
            }
        }
    }

    /// `-delete` at `at` among `tokens`: each start point with everything under it is deleted,
    /// the start point itself too with nothing tested before it (`find . -delete`); with no
    /// test of names narrowing it to names the project's guarded files have none of, the
    /// project's `.git` and the other guarded files with it (`find . -type f -delete`).
    fn find_deletes(
        &mut self,
        args: &[Word],
        tokens: &[Token<'_>],
        at: usize,
        found: Option<&[String]>,
    ) {
        let find = &self.hardline.plain.find;
        let before = tokens.get(..at).unwrap_or(&[]);
        let tested = find_expression::tested(before, find);
        let context = find_expression::context(tokens, at);
        let names = find_expression::names(context.own, &|p| self.guarded_path(p));
        let all_names = guarded_names(find);
        let guarded = find_expression::guarded_among(&names, &all_names);
        let any = names == Names::Any
            || find
                .hidden_folders
                .iter()
                .any(|(folder, _)| guarded.contains(&folder));
        let excluded = find_expression::excluded(&context);
        let part = command_text(args);
        for start in found.unwrap_or(&[]) {
            self.protected_tree(start, RiskClass::Write);
            // Each start point is deleted (`find .git/objects -delete`), or what is under it.
            if !tested || any {
                self.repository_goes_with(start);
            }
            let mut deleted = vec![if tested {
                format!("{}/*", start.trim_end_matches('/'))
            } else {
                start.clone()
            }];
            if !guarded.is_empty() && !any {
                deleted.extend(self.under(start, &Hidden::Named(guarded.clone()), &excluded));
            }
            for path in deleted {
                self.out.writes.push((path, format!("find {part}")));
            }
        }
    }

    /// An action that runs a command (`-exec`, `-execdir`, `-ok`, `-okdir`): its command, with
    /// `{}` standing for the start points (unless a test comes first, which they may not pass:
    /// `find . -name x -exec rm -rf {} +`) and what is under them — the project's hidden
    /// folders the hardline guards too (find passes over no hidden name: `.git`), unless the
    /// tests of its branch narrow what it acts on to names none of their files has (`-name
    /// '*.py'`; `-name config` may be `.git/config`), or `{}` is a folder more is put into
    /// (`{}/pre-commit`: the found folder's name is not the file's). `-execdir`'s command runs
    /// in any folder under the start points, those hidden folders too.
    fn find_runs(
        &mut self,
        args: &[Word],
        tokens: &[Token<'_>],
        action: &FindAction<'_>,
        scope: &Scope<'_>,
        stdin_fed: bool,
        depth: usize,
    ) {
        let find = &self.hardline.plain.find;
        let before = tokens.get(..action.token).unwrap_or(&[]);
        let tested = find_expression::tested(before, find);
        let context = find_expression::context(tokens, action.token);
        let names = find_expression::names(context.own, &|p| self.guarded_path(p));
        let excluded = find_expression::excluded(&context);
        let option = args.get(action.option).map_or("", |w| w.text.as_str());
        let mut i = action.option + 1;
        let mut cmd = Vec::new();
        // `{}` as an option's value (`file -f {}`, `wc --files0-from={}`): a file the option
        // reads, even for a program that reads only names.
        let mut found_as_value = false;
        let mut put_into = false;
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
            put_into |= a.text.contains("{}/");
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
        let all_names = guarded_names(find);
        let hidden = match names {
            _ if put_into => Hidden::All,
            Names::Any if find_expression::files_only(context.own) => Hidden::Files,
            Names::Any => Hidden::All,
            Names::Narrowed(_) => {
                let guarded = find_expression::guarded_among(&names, &all_names);
                if guarded.is_empty() {
                    Hidden::None
                } else {
                    Hidden::Named(guarded)
                }
            }
        };
        let found = action.found.filter(|f| f.len() <= MAX_VALUES).map(|f| {
            f.iter()
                .flat_map(|p| {
                    let start = (!tested).then(|| p.clone());
                    start.into_iter().chain(self.under(p, &hidden, &excluded))
                })
                .collect::<Vec<_>>()
        });
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
            for start in action.starts_read.unwrap_or(&[]) {
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
        // `-execdir`: the command runs in each folder a found file is in, any under the start
        // points (not known where they are not).
        let cwds = if matches!(option, "-execdir" | "-okdir") {
            let folders: Vec<String> = action
                .found
                .unwrap_or(&[])
                .iter()
                .flat_map(|p| {
                    std::iter::once(p.clone()).chain(self.under(p, &Hidden::All, &excluded))
                })
                .collect();
            let folders = folders
                .split_first()
                .filter(|_| folders.len() <= MAX_VALUES)
                .map(|(first, rest)| {
                    let mut all = Folders::one(Cow::Owned(first.clone()));
                    for folder in rest {
                        all.add(Cow::Owned(folder.clone()));
                    }
                    all
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

    /// Whether a find test of paths' pattern may match a path the hardline guards in the
    /// project (`./.gi*config`: `./.git/config`), spelled from `.` or the root, its `*` crossing
    /// `/` as find's does, in either letter case.
    fn guarded_path(&self, pattern: &str) -> bool {
        let find = &self.hardline.plain.find;
        let root = self.place.root.trim_end_matches('/');
        let pattern = crate::permission::hardline::lower(pattern);
        let prefixes = ["./".to_string(), format!("{root}/")];
        prefixes.iter().any(|prefix| {
            let at = |path: &str| {
                wildcard::matches(
                    &pattern,
                    &format!("{prefix}{}", crate::permission::hardline::lower(path)),
                )
            };
            find.root_names.iter().any(|name| at(name))
                || find.hidden_folders.iter().any(|(folder, names)| {
                    at(folder)
                        || at(&format!("{folder}/x"))
                        || names.iter().any(|name| at(&format!("{folder}/{name}")))
                })
        })
    }

    /// What is under a start point of `find`, as globs two levels deep (a folder's files and
    /// its folders'); outside the project, names found (`-name .bashrc`) there and one level
    /// down; where the start point holds the project, the project's guarded files at its root
    /// and in its hidden folders (hardline.json `plain.find.hidden_folders`: `.git`,
    /// `.git/hooks`), as `hidden` says, but what a test keeps out.
    fn under(&self, start: &str, hidden: &Hidden<'_>, excluded: &[Excluded<'_>]) -> Vec<String> {
        let base = start.trim_end_matches('/');
        let mut out = vec![format!("{base}/*"), format!("{base}/*/*")];
        let root = self.place.root.trim_end_matches('/');
        if !crate::permission::path::is_inside(start, root) {
            // Outside the project (`find ~ -name .bashrc`): the names there and a level down;
            // inside it, below its root, none of its guarded files.
            if let Hidden::Named(names) = hidden {
                if !crate::permission::path::is_inside(root, start) {
                    for name in names {
                        out.push(format!("{base}/{name}"));
                        out.push(format!("{base}/*/{name}"));
                    }
                }
            }
            return out;
        }
        let find = &self.hardline.plain.find;
        if let Hidden::Named(names) = hidden {
            for name in names
                .iter()
                .filter(|n| find.root_names.iter().any(|r| r == **n))
            {
                out.push(format!("{root}/{name}"));
            }
        }
        // Kept out by a test, as find spells it from the start point or whole: a pruned folder
        // with everything under it.
        let kept_out = |path: &str| {
            let ancestors =
                std::iter::successors(Some(path), |p| p.rsplit_once('/').map(|(parent, _)| parent));
            excluded.iter().any(|test| {
                let mut paths =
                    std::iter::once(path).chain(ancestors.clone().skip(1).filter(|_| test.pruned));
                paths.any(|p| {
                    if test.by_name {
                        let name = crate::permission::path::last_name(p);
                        return wildcard::matches(test.pattern, name);
                    }
                    [format!("{base}/{p}"), format!("./{p}"), p.to_string()]
                        .iter()
                        .any(|spelled| wildcard::matches(test.pattern, spelled))
                })
            })
        };
        for (folder, guarded) in find.hidden_folders.iter() {
            let inside = format!("{folder}/x");
            match hidden {
                Hidden::All | Hidden::Files => {
                    if *hidden == Hidden::All && !kept_out(folder) {
                        out.push(format!("{root}/{folder}"));
                    }
                    if !kept_out(&inside) {
                        out.push(format!("{root}/{folder}/*"));
                    }
                }
                Hidden::Named(names) => {
                    for name in names.iter().filter(|n| guarded.iter().any(|g| g == **n)) {
                        let path = format!("{folder}/{name}");
                        if !kept_out(&path) {
                            out.push(format!("{root}/{path}"));
                        }
                    }
                }
                Hidden::None => {}
            }
        }
        out
    }
}

/// An action of find's that runs a command.
struct FindAction<'f> {
    /// Where its option stands among find's words.
    option: usize,
    /// Where its token stands among the expression's.
    token: usize,
    /// The start points, read whole by a command that reads what it is given.
    starts_read: Option<&'f [String]>,
    /// The start points (`None`: not known).
    found: Option<&'f [String]>,
}

/// Which files of the hidden folders the hardline guards `{}` stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Hidden<'g> {
    /// None: the tests narrow what is found to names none of theirs has.
    None,
    /// Those of these names (`-name config`: `.git/config`).
    Named(Vec<&'g str>),
    /// Every file in them, not the folders themselves (`-type f`).
    Files,
    /// Every one: nothing narrows the names found.
    All,
}

/// Every name the hardline guards in a project (hardline.json `plain.find`: `root_names` and
/// each hidden folder's names).
fn guarded_names(find: &FindWords) -> Vec<&str> {
    let mut names: Vec<&str> = find.root_names.iter().map(|n| n.as_ref()).collect();
    for (_, guarded) in find.hidden_folders.iter() {
        names.extend(guarded.iter().map(|n| n.as_ref()));
    }
    names.sort_unstable();
    names.dedup();
    names
}
