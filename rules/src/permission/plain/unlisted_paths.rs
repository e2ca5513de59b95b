//! What a program lembas knows nothing of, or a line of code, may do with the paths it names
//! (hardline.json `paths`; `plain`: `unlisted_writes`, `code`). Such a program — an
//! interpreter given a line of code (`python3 -c`, `node -e`, `perl -e`, a here-document fed to
//! one), a script, a tool of the project — does with the paths its words name whatever it
//! does: a path the hardline guards from writes, named whole or as a piece of its text
//! (`python3 x.py ~/.bashrc`, `--out=~/.zshrc`, `open('.git/hooks/pre-commit','w')`), is judged
//! as a write of it (for a line of code, where it shows a sign of writing outside its strings —
//! `unlink`, `write` — or opens a file with a writing mode, `'w'`; prose, a string with blanks,
//! is no path it writes); a path no tool may read, as a read of it. A text that reaches the home
//! by a name of its own (`os.path.expanduser('~')`, `process.env.HOME`) may put under the home
//! any hidden name it holds (`joinpath('.bashrc')`, `os.path.join(h, '.local', 'bin', 'ls')`),
//! and any piece may hold the home's path before its first hidden name (`'%s/.local/bin/ls' %
//! home`). The lines a call that runs a command is given (`os.system('rm -rf ~')`, backquotes)
//! are read for what the hardline refuses, and each argument of a call that deletes or moves
//! folders (`shutil.rmtree`, `rename`) is deleted as `rm -rf` would. How the text is cut:
//! `code_text.rs`.

use super::code_text::{
    from_first_hidden, hidden_name, looks_like_code, names_a_path, names_any, path_pieces,
    reaches_home, read_as_glob, Code,
};
use super::program_lists::program_lists;
use super::values::Scope;
use super::walk::{gnu_name, Walker};
use crate::permission::hardline::check_path;
use crate::permission::programs;
use crate::permission::shell::{self, Reading, RedirectOp, Word};
use crate::permission::RiskClass;

/// Where a text a program takes as its own comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TextSource {
    /// A word of a program lembas knows nothing of: it may do anything with what it names.
    Word,
    /// A line of code: it writes what it names only where it shows a sign of writing.
    Code,
}

impl Walker<'_> {
    /// What the words after a program lembas knows nothing of may write or read of what the
    /// hardline protects (see the module's docs). A word whose value is known only when it
    /// runs is not read here (its commands are walked, its secret reads judged as any
    /// program's).
    pub(super) fn unlisted_paths(&mut self, words: &[Word], scope: &Scope<'_>, depth: usize) {
        // A program that only writes its words out (`echo`, `basename`), reads only the names
        // of the files they name (`test -d`), or only reads them (`shellcheck`), writes none.
        let program = words.first().map_or("", |w| shell::program_name(&w.text));
        let plain = &self.hardline.plain;
        if [&plain.text_programs, &plain.names_only, &plain.readers]
            .iter()
            .any(|list| list.iter().any(|p| *p == program))
        {
            return;
        }
        // Its code (`python3 -c CODE`) is read as code; its other words as words.
        let code: Vec<usize> = code_places(words)
            .into_iter()
            .map(|place| match place {
                CodePlace::Joined { at, .. } | CodePlace::Word(at) => at,
            })
            .collect();
        self.code_it_is_given(words, scope, depth);
        let mut texts: Vec<String> = Vec::new();
        for (at, w) in words.iter().enumerate().skip(1) {
            if code.contains(&at) {
                continue;
            }
            if w.dynamic() {
                texts.extend(self.values(w, scope).unwrap_or_default());
            } else {
                texts.push(w.text.clone());
            }
        }
        for text in &texts {
            self.code_text(text, TextSource::Word, scope, depth);
        }
    }

    /// The code a command's options give its program to run (programs.json `effects`, `runs`
    /// of a program with no subcommands, not its `lines`, which are read as lines: `perl -e
    /// CODE`, `php -r CODE`, `-neCODE`, `--eval=CODE`), read as the module's docs say.
    pub(super) fn code_it_is_given(&mut self, words: &[Word], scope: &Scope<'_>, depth: usize) {
        let mut code: Vec<String> = Vec::new();
        for place in code_places(words) {
            match place {
                CodePlace::Joined { text, .. } => code.push(text.to_string()),
                CodePlace::Word(at) => match words.get(at) {
                    Some(next) if next.dynamic() => match self.values(next, scope) {
                        Some(values) => code.extend(values),
                        None => code.push(next.text.clone()),
                    },
                    Some(next) => code.push(next.text.clone()),
                    None => {}
                },
            }
        }
        for text in &code {
            self.code_text(text, TextSource::Code, scope, depth);
        }
    }

    /// Whether the command walked runs code its words give it (programs.json `effects`,
    /// `runs`: `perl -e`), as its effects say: most do not, and are looked at no further.
    pub(super) fn runs_code(&self) -> bool {
        self.current
            .and_then(|at| self.out.commands.get(at))
            .is_some_and(|command| {
                command
                    .effects
                    .iter()
                    .any(|e| matches!(e, programs::effects::Effect::Runs(_)))
            })
    }

    /// The code a line feeds a program that runs what it is fed (an interpreter, or a program
    /// lembas knows nothing of, given a here-document, a here-string, a pipe or a word known
    /// only when it runs): every here-document and here-string of the line, and the words of
    /// its text programs (`echo CODE | python3`), read as code.
    pub(super) fn code_fed(&mut self, reading: &Reading, scope: &Scope<'_>, depth: usize) {
        if self.text_as_a_line {
            return;
        }
        let mut fed = Fed::Nothing;
        for cmd in &reading.commands {
            let words = cmd.argv();
            let input = cmd.piped || cmd.redirects.iter().any(|r| r.feeds_input());
            // Most commands are fed nothing: nothing more to look at.
            if !input && !words.iter().any(Word::dynamic) {
                continue;
            }
            match self.runs_what_it_is_fed(words) {
                Fed::Code if input || words.iter().any(Word::dynamic) => {
                    fed = Fed::Code;
                    break;
                }
                Fed::Input if input => fed = Fed::Input,
                _ => {}
            }
        }
        // Code is read as code; what a program lembas does not know is fed, as its words are.
        let source = match fed {
            Fed::Code => TextSource::Code,
            Fed::Input => TextSource::Word,
            Fed::Nothing => return,
        };
        let mut texts: Vec<String> = reading.here_documents.clone();
        let text_programs = &self.hardline.plain.text_programs;
        for cmd in &reading.commands {
            texts.extend(
                cmd.redirects
                    .iter()
                    .filter(|r| r.op == RedirectOp::HereString)
                    .map(|r| r.target.text.clone()),
            );
            let words = cmd.argv();
            let program = words.first().map_or("", |w| shell::program_name(&w.text));
            if text_programs.iter().any(|p| *p == program) {
                texts.extend(words.iter().skip(1).map(|w| w.text.clone()));
            }
        }
        for text in &texts {
            self.code_text(text, source, scope, depth);
        }
    }

    /// The values a line gives variables (`F=~/.bashrc python3 -c …`, `export F=…; node -e
    /// …process.env.F`), where a command of it runs code or is a program lembas knows nothing
    /// of: such a program may take a path from its environment as from its words, and each is
    /// read as one of its words.
    pub(super) fn values_given_to_code(
        &mut self,
        reading: &Reading,
        scope: &Scope<'_>,
        depth: usize,
    ) {
        if self.text_as_a_line {
            return;
        }
        // Most lines give no variable a value: nothing more to look at.
        let mut texts: Vec<String> = Vec::new();
        let plainly = &self.hardline.plain.setting_commands.plainly;
        for cmd in &reading.commands {
            let words = cmd.argv();
            // `export F=…`: its `NAME=value` words, as the assignments before a command.
            let exported = words
                .first()
                .is_some_and(|w| !w.dynamic() && plainly.iter().any(|p| *p == w.text));
            let given = if exported {
                words.get(1..).unwrap_or(&[])
            } else {
                &[]
            };
            texts.extend(
                cmd.assignments()
                    .map(|(_, word)| word)
                    .chain(
                        given
                            .iter()
                            .filter(|w| shell::assignment_name(&w.text).is_some()),
                    )
                    .filter_map(shell::value_of_assignment)
                    .filter(|value| !value.dynamic())
                    .map(|value| value.text),
            );
        }
        for binding in &reading.bindings {
            texts.extend(
                binding
                    .values
                    .iter()
                    .flatten()
                    .filter(|value| !value.dynamic())
                    .map(|value| value.text.clone()),
            );
        }
        if texts.is_empty() {
            return;
        }
        let fed = reading
            .commands
            .iter()
            .any(|cmd| !matches!(self.runs_what_it_is_fed(cmd.argv()), Fed::Nothing));
        if !fed {
            return;
        }
        texts.sort();
        texts.dedup();
        for text in &texts {
            self.code_text(text, TextSource::Word, scope, depth);
        }
    }

    /// What a command runs of what it is fed: code, where one of its words names an
    /// interpreter (programs.json `effects`, `runs`, with no subcommands: `xargs python3 -c`,
    /// `uv run node`); its input, where its program is one lembas knows nothing of.
    fn runs_what_it_is_fed(&self, words: &[Word]) -> Fed {
        let interpreter = |w: &Word| {
            !w.dynamic()
                && programs::effects_of(gnu_name(shell::program_name(&w.text)))
                    .is_some_and(|e| !e.runs.is_empty() && e.subcommands.0.is_empty())
        };
        let Some(first) = words.first() else {
            return Fed::Nothing;
        };
        let program = gnu_name(shell::program_name(&first.text));
        if words.iter().any(interpreter) {
            Fed::Code
        } else if !first.dynamic()
            && super::unlisted::may_run_its_words(program, program_lists().of(program), words)
        {
            Fed::Input
        } else {
            Fed::Nothing
        }
    }

    /// What a text a program takes as its own may do with the paths it names and the lines
    /// it holds, judged as the module's docs say.
    pub(super) fn code_text(
        &mut self,
        text: &str,
        source: TextSource,
        scope: &Scope<'_>,
        depth: usize,
    ) {
        let spelled = &self.hardline.plain.code;
        let read = Code::read(text, &spelled.home_words);
        let pieces = path_pieces(text);
        let home = reaches_home(text, &pieces, &spelled.home_words);
        // A word with blanks given to a program lembas does not know is text (`llm "explain
        // ~/.bashrc"`) unless it reads as code, and prose in a line of code is no path it
        // opens (`write('Add to ~/.bashrc')`): what they name is judged as read, not written.
        // Blanks only around it (`"/home/u/.bashrc "`) make no prose: a program may trim them.
        let words_in_it = text.trim().contains(char::is_whitespace);
        let code = source == TextSource::Code || (words_in_it && looks_like_code(text));
        let writes = if code {
            read.holds_outside_strings(&spelled.writes) || read.opens_to_write()
        } else {
            !words_in_it
        };
        let opened = if code && writes {
            read.without_prose()
        } else {
            text.to_string()
        };
        let named = self.named_in(&read, &pieces, home);
        let written: Vec<String> = if !writes {
            Vec::new()
        } else if code {
            let opened_pieces = path_pieces(&opened);
            let opened_home = reaches_home(&opened, &opened_pieces, &spelled.home_words);
            let opened_read = Code::read(&opened, &spelled.home_words);
            self.named_in(&opened_read, &opened_pieces, opened_home)
        } else {
            named.clone()
        };
        for piece in &named {
            let writes = written.contains(piece);
            for path in self.resolve_all(piece).unwrap_or_default() {
                self.protected_by_name(&path, writes, code || piece.ends_with('/'));
            }
        }
        let written_pieces = path_pieces(&opened);
        // `shutil.rmtree(PATH)`, `fs.rmSync(os.homedir(), …)`, `shutil.move(PATH, …)`: each
        // argument of a call that deletes or moves folders, deleted whole as `rm -rf` would.
        if writes {
            let targets = read.call_arguments(&spelled.deletes, &spelled.folder_words);
            for path in targets.iter().filter(|p| plain_shell_word(p)) {
                self.hardline_of_line(&format!("rm -rf {path}"), Some(scope), depth);
            }
        }
        // `tarfile.open(x).extractall('/home/u')`: each path a folder an archive unpacks into.
        if writes && names_any(text, &spelled.unpacks) {
            let folders: Vec<&String> = written_pieces
                .iter()
                .filter(|p| names_a_path(p) && plain_shell_word(p))
                .collect();
            for folder in folders {
                self.hardline_of_line(
                    &format!("tar -xf archive.tar -C {folder}"),
                    Some(scope),
                    depth,
                );
            }
        }
        // The lines its strings hold, for the hardline's commands and what they write: what a
        // path a string names is read as was judged above, and a pattern in one is no glob
        // (`re.match('ERROR .*', l)`).
        if source == TextSource::Code || super::unlisted::holds_a_line(text) {
            let paths = &self.hardline.paths;
            let read_class = RiskClass::Read.as_str();
            for line in read.lines(&spelled.runs) {
                let before = self.out.hits.len();
                self.hardline_of_line(&line, Some(scope), depth);
                let mut at = before;
                while let Some(hit) = self.out.hits.get(at) {
                    let read = paths.iter().any(|e| {
                        e.id == hit.entry.as_str() && e.classes.iter().any(|c| *c == read_class)
                    });
                    if read {
                        self.out.hits.remove(at);
                    } else {
                        at += 1;
                    }
                }
            }
        }
    }

    /// The paths a text names (see the module's docs): its path-like pieces, in the folders
    /// it moves into too; the end of each from its first hidden name on, under the home; and
    /// where it reaches the home, its hidden names and the paths its strings join there.
    fn named_in(&self, read: &Code<'_>, pieces: &[String], home: bool) -> Vec<String> {
        let entered = read.folders_entered();
        let mut named: Vec<String> = Vec::new();
        for piece in pieces.iter().filter(|p| read_as_glob(p)) {
            if names_a_path(piece) {
                named.push(piece.clone());
                // `os.chdir('.git'); open('hooks/pre-commit', 'w')`.
                if !piece.starts_with(['/', '~']) {
                    named.extend(entered.iter().map(|folder| format!("{folder}/{piece}")));
                }
            }
            if let Some(rest) = from_first_hidden(piece) {
                named.push(format!("~{rest}"));
            }
            if home && hidden_name(piece) {
                named.push(format!("~/{piece}"));
            }
        }
        for path in read.joined_paths().into_iter().filter(|p| read_as_glob(p)) {
            if home {
                named.push(format!("~/{path}"));
            }
            named.push(path);
        }
        named.sort();
        named.dedup();
        named
    }

    /// A path a text names, judged as a write where it shows a sign of writing and the
    /// path's entry is one of `unlisted_writes` (git's internals only inside a `.git` folder:
    /// `origin/HEAD`, a project's `config` and a bare `.git` are no writes of them; where it
    /// may be a `folder` — in code, or spelled with a `/` last — one whose files an entry
    /// guards, as a write into it: `~/.local/bin`), and as a read where no tool may read it.
    fn protected_by_name(&mut self, path: &str, writes: bool, folder: bool) {
        let (home, root) = (self.place.home, self.place.root);
        let guarded = |path: &str, inside: bool| {
            check_path(path, RiskClass::Write, home, root).filter(|found| {
                self.hardline
                    .plain
                    .unlisted_writes
                    .get(found.hit.entry.as_str())
                    .is_some_and(|within| {
                        within.is_empty() || (!inside && path.contains(within.as_ref()))
                    })
            })
        };
        let written = writes
            .then(|| {
                guarded(path, false).or_else(|| {
                    folder
                        .then(|| guarded(&format!("{path}/x"), true))
                        .flatten()
                })
            })
            .flatten();
        match written {
            Some(found) if found.ask => self.out.guarded_trees.push(found.hit),
            Some(found) => self.out.hits.push(found.hit),
            None => {
                if let Some(found) =
                    check_path(path, RiskClass::Read, home, root).filter(|f| !f.ask)
                {
                    self.out.hits.push(found.hit);
                }
            }
        }
    }
}

/// Where a command's words give its program code to run ([`Walker::code_it_is_given`]).
enum CodePlace<'w> {
    /// Joined to the option at `at` (`--eval=CODE`, `-eCODE`).
    Joined { at: usize, text: &'w str },
    /// The word at this place (`-e CODE`: the one after the option).
    Word(usize),
}

/// The places of a command's code (programs.json `effects`, `runs` of a program with no
/// subcommands, not its `lines`, which are read as lines: `perl -e CODE`, `php -r CODE`,
/// `-neCODE`, `--eval=CODE`).
fn code_places(words: &[Word]) -> Vec<CodePlace<'_>> {
    let program = words.first().map_or("", |w| shell::program_name(&w.text));
    let Some(entry) = programs::effects_of(gnu_name(program)) else {
        return Vec::new();
    };
    if entry.runs.is_empty() || !entry.subcommands.0.is_empty() {
        return Vec::new();
    }
    let code_options = || {
        entry
            .runs
            .iter()
            .filter(|o| !entry.lines.iter().any(|(line, _)| line == o.as_ref()))
    };
    let mut out = Vec::new();
    for (at, w) in words.iter().enumerate().skip(1) {
        if w.dynamic() || !w.text.starts_with('-') {
            continue;
        }
        match code_options().find_map(|o| code_value(o, &w.text)) {
            Some(CodeValue::Joined(text)) => out.push(CodePlace::Joined { at, text }),
            Some(CodeValue::Next) => out.push(CodePlace::Word(at + 1)),
            None => {}
        }
    }
    out
}

/// What a command runs of what a line feeds it ([`Walker::runs_what_it_is_fed`]).
enum Fed {
    /// Code in its words or its input: an interpreter's (`python3 -c "$(cat <<EOF …)"`).
    Code,
    /// Its input: a program lembas knows nothing of.
    Input,
    /// Nothing.
    Nothing,
}

/// Whether a piece reads as one word in a shell line as it is: no quote, blank, expansion or
/// separator.
fn plain_shell_word(piece: &str) -> bool {
    !piece.contains([
        '$', '`', '\\', '\'', '"', ';', '&', '|', '<', '>', '(', ')', ' ', '\t', '\n',
    ])
}

/// Where the code an option gives is.
enum CodeValue<'w> {
    /// Joined to the option (`--eval=CODE`, `-eCODE`, `-neCODE`).
    Joined(&'w str),
    /// The next word (`-e CODE`, `-ne CODE`).
    Next,
}

/// The code a word gives by an option that takes it (`-e`, `--eval`), in any spelling: whole,
/// `=`-joined, or a short option's letter in a cluster with the code after it or in the next
/// word. `None` when the word is not that option.
fn code_value<'w>(option: &str, word: &'w str) -> Option<CodeValue<'w>> {
    if word == option {
        return Some(CodeValue::Next);
    }
    if let Some(rest) = word.strip_prefix(option) {
        if let Some(joined) = rest.strip_prefix('=') {
            return Some(CodeValue::Joined(joined));
        }
    }
    let letter = option.strip_prefix('-').filter(|l| l.len() == 1)?;
    let cluster = word.strip_prefix('-').filter(|c| !c.starts_with('-'))?;
    let (_, after) = cluster.split_once(letter)?;
    Some(if after.is_empty() {
        CodeValue::Next
    } else {
        CodeValue::Joined(after)
    })
}

#[cfg(test)]
mod tests {
    use super::{code_value, CodeValue};
    use crate::spec::spec;

    #[test]
    fn code_is_found_in_every_spelling_of_its_option() {
        assert!(matches!(code_value("-e", "-e"), Some(CodeValue::Next)));
        assert!(matches!(code_value("-e", "-ne"), Some(CodeValue::Next)));
        assert!(matches!(
            code_value("-e", "-eprint"),
            Some(CodeValue::Joined("print"))
        ));
        assert!(matches!(
            code_value("--eval", "--eval=x()"),
            Some(CodeValue::Joined("x()"))
        ));
        assert!(code_value("-e", "--exclude").is_none());
        assert!(code_value("-e", "-p").is_none());
        assert!(code_value("--eval", "--evaluate").is_none());
    }

    #[test]
    fn every_entry_unlisted_programs_write_is_a_path_entry() {
        let hardline = &spec().hardline;
        for (id, _) in hardline.plain.unlisted_writes.iter() {
            assert!(
                hardline.paths.iter().any(|e| e.id == id),
                "plain.unlisted_writes names {id}, which is no paths entry"
            );
        }
    }
}
