//! `find` (hardline.json `plain.find`): what `-delete` deletes, and the commands of `-exec`,
//! `-execdir`, `-ok` and `-okdir` with what their `{}` stands for.

use super::super::shell::{self, Word};
use super::program_lists::{program_lists, List};
use super::values::{found_word, is_found, unknown_word, Scope, FOUND, MAX_VALUES};
use super::walk::{command_text, gnu_name, Walker};
use crate::permission::RiskClass;

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
            let starts: Vec<String> = found.iter().flatten().cloned().collect();
            let part = command_text(args);
            for start in &starts {
                self.protected_tree(start, RiskClass::Write);
                // Each start point is deleted (`find .git/objects -delete`), or what is under it.
                let deleted = if tested {
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
        // not pass: `find . -name x -exec rm -rf {} +`) and what is under them.
        let tested_before_exec = args
            .iter()
            .take_while(|w| !matches!(w.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"))
            .any(|w| w.text.starts_with('-') && !self.chooses_no_file(&w.text));
        let found = found.filter(|f| f.len() <= MAX_VALUES).map(|f| {
            f.iter()
                .flat_map(|p| {
                    let base = p.trim_end_matches('/').to_string();
                    let start = (!tested_before_exec).then(|| p.clone());
                    start
                        .into_iter()
                        .chain([format!("{base}/*"), format!("{base}/*/*")])
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
                cmd.push(if a.text.contains(FOUND) {
                    found_word()
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
            let reads_them = cmd.iter().any(is_found)
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
                    .map(|w| if is_found(&w) { unknown_word() } else { w })
                    .collect()
            } else {
                cmd
            };
            self.unwrap_wrappers(&cmd, &inner, stdin_fed, depth);
        }
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
