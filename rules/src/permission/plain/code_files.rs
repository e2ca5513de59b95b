//! Files of code a program runs, named by an option, found by name or loaded by a directive of
//! its program (hardline.json `plain.code_files`: `make -f FILE`, else `Makefile`; jq's
//! `import`). From its input (`-`, `/dev/stdin`), or a file the line wrote before it, that code is
//! the line's but not written as a line the reader reads: the command is opaque, as a shell
//! reading its input or a file the line wrote is.

use super::super::shell::{Construct, Word};
use super::super::wildcard;
use super::known::Known;
use super::walk::{option_values, Walker};
use crate::spec::spec;

impl Walker<'_> {
    /// `program`'s code files (`args`, its words after its name), each judged: opaque when it
    /// is the input or a file the line wrote.
    pub(super) fn code_files(&mut self, program: &str, known: &Known, args: &[Word]) {
        let Some(code) = known.code_files else {
            return;
        };
        let named = option_values(args, &code.options);
        for (file, _) in &named {
            let input = &spec().hardline.plain.input_names;
            if !file.dynamic() && input.iter().any(|name| *name == file.text) {
                self.opaque(Construct::ShellInput);
            } else if file.dynamic() || self.wrote(file) {
                self.opaque(Construct::Source);
            }
        }
        // Its program loads files by a directive (`jq 'import "m" as $m {search: "~/.docker"}'`).
        let loads = super::forms::pattern_words(program, args)
            .iter()
            .any(|word| {
                let text = word.text.trim_start();
                code.directives
                    .iter()
                    .any(|directive| wildcard::matches(directive, text))
            });
        if loads {
            self.opaque(Construct::Source);
        }
        // None named: the one it finds where it runs (`Makefile`) — a file of that name the
        // line wrote anywhere may be it (`-C DIR` moves where it looks).
        if named.is_empty() && self.wrote_a_file_named(&code.defaults) {
            self.opaque(Construct::Source);
        }
    }
}
