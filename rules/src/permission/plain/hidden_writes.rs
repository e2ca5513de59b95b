//! The files a writing program names (hardline.json `writes`): its operands and option
//! values, the folder its sources go into (`cp a b DIR`), the names a download takes from its
//! address (`curl -O`), and the backups it leaves (`sed -i.bak`).

use super::super::hardline::Hit;
use super::known::Known;
use super::values::{strip_word_prefix, Scope};
use super::walk::{device, next_word_values, option_values, Options, Walker, UNKNOWN_WRITE};
use crate::permission::shell::Word;
use crate::permission::RiskClass;
use std::borrow::Cow;

impl Walker<'_> {
    /// The files a writing program names (hardline.json `writes`); `shared` as for
    /// [`Walker::entries`], and `part` the command as a write names it.
    pub(super) fn hidden_writes<'w>(
        &mut self,
        program: &str,
        known: &Known,
        args: &'w [Word],
        scope: &Scope<'_>,
        opts: &Options<'w>,
        part: &dyn Fn() -> String,
    ) {
        let first = opts.operands.first().map(|w| w.text.as_str());
        if !super::index::writes_may_hold_at(program, known.writes, first) {
            return;
        }
        for wr in super::index::writes_naming_at(program, known.writes) {
            if !wr.subcommands.is_empty()
                && !opts
                    .operands
                    .first()
                    .is_some_and(|w| wr.subcommands.iter().any(|s| *s == w.text))
            {
                continue;
            }
            if !wr.when.is_empty() && !wr.when.iter().any(|f| opts.has(f)) {
                continue;
            }
            if wr.unless.iter().any(|f| opts.has(f)) {
                continue;
            }
            let part = &part();
            if wr
                .names_from_addresses
                .iter()
                .any(|o| *o == "*" || opts.has(o))
            {
                for name in opts
                    .operands
                    .iter()
                    .flat_map(|w| super::addresses::address_file_names(&w.text))
                {
                    self.write_paths(&Word::unquoted(&name), scope, part, false);
                }
            }
            let whole = wr.trees.iter().any(|t| *t == "*" || opts.has(t));
            // Option values in any spelling (`-o f`, `-of`, `-so f`, `--output=f`, `--out f`).
            for (value, _) in option_values(args, &wr.options) {
                let before = self.out.writes.len();
                self.write_paths(&value, scope, part, whole);
                if wr.builds && !wr.builds_unless.iter().any(|o| opts.has(o)) {
                    let written = self.out.writes.get(before..).unwrap_or(&[]);
                    self.built
                        .extend(written.iter().map(|(path, _)| path.clone()));
                }
            }
            if !wr.when.is_empty() {
                self.backup_writes(args, opts, scope, part);
            }
            // The place a destination option names (`mv -t DIR x`) is where they go: not one of
            // the operands written whole.
            let destinations = next_word_values(args, &wr.destination_options);
            let values = next_word_values(args, &wr.values);
            // A script given as the first operand (`sed -i 's/.*/x/' f`) is no file.
            let patterns = super::forms::pattern_words(program, args);
            let operands: Vec<&Word> = opts
                .operands
                .iter()
                .skip(usize::from(!wr.subcommands.is_empty()))
                .copied()
                .filter(|w| !destinations.iter().any(|d| std::ptr::eq(*d, *w)))
                .filter(|w| !values.iter().any(|v| std::ptr::eq(*v, *w)))
                .filter(|w| !patterns.iter().any(|p| std::ptr::eq(*p, *w)))
                .collect();
            let chosen: Vec<&Word> = match wr.operands.as_deref() {
                Some("all") => operands.clone(),
                Some("last") if operands.len() > 1 => {
                    operands.last().copied().into_iter().collect()
                }
                // The file it changes, before the one it reads (`patch FILE PATCH`).
                Some("first") => operands.first().copied().into_iter().collect(),
                // The file after its subcommand's verb (`git bundle create FILE`).
                Some("second") => operands.get(1).copied().into_iter().collect(),
                _ => Vec::new(),
            };
            // `mv a b dir`: the last goes unreplaced (unless `-t dir` names the place).
            let destination = (wr.destination_last
                && chosen.len() > 1
                && !wr.destination_options.iter().any(|o| opts.has(o)))
            .then(|| chosen.len() - 1);
            for (at, w) in chosen.into_iter().enumerate() {
                let whole = whole && Some(at) != destination;
                let word: Cow<'_, Word> = match &wr.prefix {
                    Some(p) => match w.text.strip_prefix(p.as_ref()) {
                        Some(rest) => Cow::Owned(strip_word_prefix(w, p.len(), rest)),
                        None if w.dynamic() => Cow::Borrowed(w),
                        None => continue,
                    },
                    None => Cow::Borrowed(w),
                };
                let before = self.out.writes.len();
                self.write_paths(&word, scope, part, whole);
                if whole && wr.deletes {
                    let gone: Vec<String> = self
                        .out
                        .writes
                        .get(before..)
                        .unwrap_or(&[])
                        .iter()
                        .map(|(path, _)| path.clone())
                        .collect();
                    for path in &gone {
                        self.repository_goes_with(path);
                    }
                }
            }
            if wr.sources_into_last {
                // The folder they go into: a destination option's (`-t DIR`), else the last.
                let named: Vec<Word> = option_values(args, &wr.destination_options)
                    .into_iter()
                    .map(|(value, _)| value)
                    .collect();
                let mut into: Vec<&Word> = operands.clone();
                into.extend(named.iter());
                if named.len() <= 1 {
                    self.sources_into_last(wr, &into, opts, scope, part);
                } else {
                    for folder in &named {
                        self.write_paths(folder, scope, part, true);
                    }
                }
            }
        }
    }

    /// The paths a copy or a move writes inside its last operand, a folder: each source by its
    /// name (whole with one of `source_trees`), or the folder itself whole when a source is its
    /// folder's contents (`x/.`, rsync's `x/`, `cp -T`).
    fn sources_into_last(
        &mut self,
        wr: &crate::spec::types::HiddenWrite,
        operands: &[&Word],
        opts: &Options<'_>,
        scope: &Scope<'_>,
        part: &str,
    ) {
        let Some((destination, sources)) = operands.split_last() else {
            return;
        };
        if sources.is_empty() {
            return;
        }
        let whole = wr.source_trees.iter().any(|t| *t == "*" || opts.has(t));
        let contents = wr.contents_options.iter().any(|o| opts.has(o));
        let keeps_path = wr.path_options.iter().any(|o| opts.has(o));
        let folders = self.targets(destination, scope);
        // A folder copied or moved whole may become the last operand itself (`mv /tmp/s .git`
        // when there is no `.git`).
        if whole {
            for folder in folders.iter().flatten() {
                if !self.home_folder_on_the_way(folder) {
                    self.planted_tree(folder);
                }
            }
        }
        for source in sources {
            let text = source.text.as_str();
            // `x/.`, `.`, `./`, `x/.//`: the folder's contents, however many slashes end it.
            let bare = text.trim_end_matches('/');
            let its_contents = contents
                || bare.ends_with("/.")
                || bare == "."
                || (wr.contents_slash && text.ends_with('/'));
            if its_contents {
                self.write_paths(destination, scope, part, true);
                continue;
            }
            // A source whose name is known only when it runs may be any name there: the
            // folder is written whole (`cp -r "$d" ~/.config/`).
            if source.dynamic() {
                self.write_paths(destination, scope, part, true);
                continue;
            }
            let name = if keeps_path {
                // `cp --parents a/b DIR` writes `DIR/a/b`; rsync -R keeps what follows `/./`.
                let kept = text
                    .rsplit_once("/./")
                    .map_or(text, |(_, after)| after)
                    .trim_start_matches('/')
                    .trim_end_matches('/');
                // A path the line does not spell plainly (`~`, `..`) may lead anywhere under it.
                if text.starts_with('~') || kept.split('/').any(|segment| segment == "..") {
                    self.write_paths(destination, scope, part, true);
                    continue;
                }
                kept
            } else {
                crate::permission::path::last_name(text.trim_end_matches('/'))
            };
            if name.is_empty() || name == ".." {
                continue;
            }
            let Some(folders) = &folders else {
                continue;
            };
            let hardline = self.hardline;
            for folder in folders {
                let path = format!("{}/{name}", folder.trim_end_matches('/'));
                if device(hardline, &path) {
                    continue;
                }
                if whole {
                    self.protected_tree(&path, RiskClass::Write);
                    self.planted_tree(&path);
                }
                self.out.writes.push((path, part.to_string()));
            }
        }
    }

    /// A backup that `sed -i SUFFIX` or `perl -i SUFFIX` writes: GNU sed puts it at the suffix
    /// when it holds a `/` (its `*` standing for the file's name: `-i'.git/hooks/*'`), else beside
    /// the file (`a.txt~`, judged with it).
    pub(super) fn backup_writes(
        &mut self,
        args: &[Word],
        opts: &Options<'_>,
        scope: &Scope<'_>,
        part: &str,
    ) {
        let suffix = args.iter().find_map(|w| {
            let t = w.text.as_str();
            t.strip_prefix("--in-place=")
                .or_else(|| {
                    t.strip_prefix("-i")
                        .filter(|s| !s.is_empty() && !t.starts_with("--"))
                })
                .map(|s| (s, w.dynamic()))
        });
        let Some((suffix, dynamic)) = suffix else {
            return;
        };
        if dynamic {
            self.out.unknown.push(Hit {
                entry: UNKNOWN_WRITE.into(),
                reason: String::new(),
                part: part.to_string(),
            });
            return;
        }
        if !suffix.contains('/') {
            return;
        }
        for file in &opts.operands {
            let name = crate::permission::path::last_name(&file.text);
            let backup = if suffix.contains('*') {
                suffix.replace('*', name)
            } else {
                format!("{}{suffix}", file.text)
            };
            self.write_target(&Word::literal(&backup), scope, part);
        }
    }
}
