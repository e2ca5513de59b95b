//! Folders a command reads whole by copying or packing them (hardline.json `tree_reads`:
//! `cp -r ~ x`, `rsync -a ~/ host:`, `tar -c ~`, `zip -r out.zip ~`): refused where a path no
//! tool may read — the home's keys, a process's environment — is under one, as the read tool
//! would refuse that path.

use super::super::shell::Word;
use super::values::Scope;
use super::walk::{next_word_values, option_values, Options, Walker};
use crate::spec::types::TreeRead;

impl Walker<'_> {
    /// The folders `program`'s words (`args`, read as `opts`) read whole by the `tree_reads`
    /// entries naming it (`entries`), each judged for the secrets under it.
    pub(super) fn tree_reads(
        &mut self,
        program: &str,
        entries: impl Iterator<Item = &'static TreeRead>,
        args: &[Word],
        scope: &Scope<'_>,
        opts: &Options<'_>,
    ) {
        for entry in entries {
            // Old-style letters: `tar czf x ~` creates as `tar -czf x ~` does.
            let old_style = entry.first_letters.as_deref().is_some_and(|letters| {
                args.first().is_some_and(|w| {
                    !w.dynamic()
                        && !w.text.starts_with('-')
                        && w.text.contains(|c| letters.contains(c))
                })
            });
            if !entry.when.is_empty() && !old_style && !entry.when.iter().any(|f| opts.has(f)) {
                continue;
            }
            // The place a destination option names is written, not read (`cp -r -t DIR x`), and
            // a folder option's value is where the operands are read from (`tar -C DIR x`).
            let destinations = next_word_values(args, &entry.destination_options);
            let folders: Vec<Word> = option_values(args, &entry.folder_options)
                .into_iter()
                .map(|(value, _)| value)
                .collect();
            let folder_words = next_word_values(args, &entry.folder_options);
            // Words that are no operand: option values, and a searcher's pattern.
            let mut not_operands = next_word_values(args, &entry.values);
            // A searcher's pattern is text, not a folder: neither it nor its own options'
            // values (programs.json `reads`) are read as folders.
            let files_only = entry.operands.as_ref() == "files";
            if files_only {
                not_operands.extend(super::forms::pattern_words(program, args));
                if let Some(reads) = crate::permission::programs::reads_of(program) {
                    not_operands.extend(next_word_values(args, &reads.values));
                }
            }
            let operands: Vec<&Word> = opts
                .operands
                .iter()
                .copied()
                .filter(|w| !destinations.iter().any(|d| std::ptr::eq(*d, *w)))
                .filter(|w| !folder_words.iter().any(|f| std::ptr::eq(*f, *w)))
                .filter(|w| !not_operands.iter().any(|v| std::ptr::eq(*v, *w)))
                .collect();
            let read = match entry.operands.as_ref() {
                "all_but_last" if destinations.is_empty() => {
                    operands.split_last().map_or(&[][..], |(_, rest)| rest)
                }
                "all_but_first" => operands.split_first().map_or(&[][..], |(_, rest)| rest),
                _ => &operands[..],
            };
            // With no operand it reads the folder it runs in (`cd ~ && grep -r KEY`).
            let mut unnamed: Vec<Word> = match (read.is_empty(), entry.without_operands.as_deref())
            {
                (true, Some(folder)) => vec![Word::literal(folder)],
                _ => Vec::new(),
            };
            // Or whatever its operands are (`git -C / grep --no-index KEY`).
            unnamed.extend(entry.also_reads.as_deref().map(Word::literal));
            for word in read.iter().copied().chain(unnamed.iter()) {
                for path in self.read_from(word, &folders, scope) {
                    self.secret_tree(&path);
                }
                // A folder a variable naming an account folder names (`cp -r $GNUPGHOME x`).
                for spelled in super::variable_paths::spellings(word, scope, &self.too_many_values)
                {
                    for path in self.resolve_all(&spelled).unwrap_or_default() {
                        self.secret_tree(&path);
                    }
                }
            }
        }
    }

    /// The paths an operand names, read from each of `folders` where it is relative (any of
    /// them: which one it follows is not kept), else from where the line is. A path not known
    /// is none: its files are judged as they are named.
    fn read_from(&self, word: &Word, folders: &[Word], scope: &Scope<'_>) -> Vec<String> {
        let relative = !word.dynamic() && !word.text.starts_with(['/', '~']);
        if folders.is_empty() || !relative {
            let mut out = self.targets(word, scope).unwrap_or_default();
            // Relative to a folder a `cd` to a variable naming an account folder may have gone
            // to (`cd $DOCKER_CONFIG && tar czf /tmp/d.tgz .`).
            if relative && self.in_a_variable_folder(word) {
                for folder in &self.variable_folders {
                    let joined = format!("{}/{}", folder.trim_end_matches('/'), word.text);
                    out.extend(self.resolve_all(&joined).unwrap_or_default());
                }
            }
            return out;
        }
        let mut out = Vec::new();
        for folder in folders {
            for base in self.targets(folder, scope).unwrap_or_default() {
                let joined = format!("{}/{}", base.trim_end_matches('/'), word.text);
                out.extend(self.resolve_all(&joined).unwrap_or_default());
            }
        }
        out
    }
}
