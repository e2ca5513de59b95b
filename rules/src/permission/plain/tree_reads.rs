//! Folders a command reads whole by copying or packing them (hardline.json `tree_reads`:
//! `cp -r ~ x`, `rsync -a ~/ host:`, `tar -c ~`, `zip -r out.zip ~`): refused where a path no
//! tool may read — the home's keys, a process's environment — is under one, as the read tool
//! would refuse that path.

use super::super::shell::Word;
use super::values::Scope;
use super::walk::{option_values, Options, Walker};

impl Walker<'_> {
    /// The folders `program`'s words (`args`, read as `opts`) read whole, each judged for the
    /// secrets under it.
    pub(super) fn tree_reads(
        &mut self,
        program: &str,
        args: &[Word],
        scope: &Scope<'_>,
        opts: &Options<'_>,
    ) {
        for entry in super::index::tree_reads_naming(program) {
            if !entry.when.is_empty() && !entry.when.iter().any(|f| opts.has(f)) {
                continue;
            }
            // The place a destination option names is written, not read (`cp -r -t DIR x`).
            let destinations: Vec<String> = option_values(args, &entry.destination_options)
                .into_iter()
                .map(|(value, _)| value.text)
                .collect();
            let operands: Vec<&Word> = opts
                .operands
                .iter()
                .copied()
                .filter(|w| !destinations.contains(&w.text))
                .collect();
            let read = match entry.operands.as_ref() {
                "all_but_last" if destinations.is_empty() => {
                    operands.split_last().map_or(&[][..], |(_, rest)| rest)
                }
                "all_but_first" => operands.split_first().map_or(&[][..], |(_, rest)| rest),
                _ => &operands[..],
            };
            for word in read {
                // A folder not known is not read as one: its files are judged as they are named.
                if let Some(paths) = self.targets(word, scope) {
                    for path in paths {
                        self.secret_tree(&path);
                    }
                }
            }
        }
    }
}
