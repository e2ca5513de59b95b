//! The walk over a line's commands: each command unwrapped down to the program it runs, and
//! that program judged — the hardline's entries (`entries.rs`), the files it writes
//! (`hidden_writes.rs`), `find`'s actions (`find.rs`), what a program lembas does not know or
//! a line of code may touch (`unlisted_paths.rs`) — with the folders it moves to and the links
//! it makes.

use super::super::hardline::{self, Hit};
use super::super::shell::{self, Construct, PieceView, Reading, Word, MAX_DEPTH};
use super::super::wildcard;
use super::folders::Folders;
use super::known::Known;
use super::program_lists::{program_lists, List};
use super::splitting::Split;
use super::values::{
    is_found, strip_word_prefix, values_inside, Positional, Scope, MAX_VALUES, SH,
};
use super::{Analysis, FileRead, Place};
use crate::permission::RiskClass;
use crate::spec::types::{HardCommand, HardlineFile};
use smallvec::SmallVec;
use std::borrow::Cow;

pub(super) struct Walker<'a> {
    /// Which argument words the caller wants kept (see [`analyse_guarded`]).
    pub(super) guarded: &'a dyn Fn(&str) -> bool,
    pub(super) hardline: &'static HardlineFile,
    pub(super) place: Place<'a>,
    pub(super) out: Analysis,
    /// The folders relative paths may mean (`None`: unknown); the root borrowed.
    pub(super) cwds: Option<Folders<'a>>,
    /// Symbolic links the line makes: (link, target), both absolute.
    pub(super) links: Vec<(String, String)>,
    /// The line makes links that are not followed: no path is known.
    pub(super) links_lost: bool,
    /// The command of the line being walked (its index in [`Analysis::commands`]), which every
    /// command it runs is part of.
    pub(super) current: Option<usize>,
    /// Programs the line builds (`gcc -o app`): written from files it names, not text it
    /// gives, so running one after is not running what the line wrote.
    pub(super) built: Vec<String>,
    /// The line changed its folder already (`cd`, `pushd`): `cd -` then goes back to a folder
    /// this reading does not follow. Before that it fails, as every command runs with `OLDPWD`
    /// empty (programs.json `environment`), and the line stays where it is.
    pub(super) changed_folder: bool,
    /// Folders a `cd` to a variable naming an account folder may have gone to (`cd
    /// $DOCKER_CONFIG`: `~/.docker`), from which a relative path is judged as a read too while
    /// the folder is not known.
    pub(super) variable_folders: Vec<String>,
    /// Some word, variable or list of folders had more values than are followed
    /// ([`MAX_VALUES`]): the line is not read exactly.
    pub(super) too_many_values: std::cell::Cell<bool>,
    /// The words walked are text read as a line in case it is one ([`Walker::hardline_of_line`]:
    /// a variable's value, a string of code): what an unlisted program's words name is not read
    /// in it, as the text may be no command at all (`E="--exclude .git"`).
    pub(super) text_as_a_line: bool,
}

/// Whether a path is a device that holds no file (`/dev/null`, the standard streams).
pub(super) fn device(hardline: &HardlineFile, path: &str) -> bool {
    hardline.plain.devices.iter().any(|d| d == path)
}

/// A three-valued answer: a condition holds, may hold when the line runs, or does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Holds {
    Yes,
    Maybe,
    No,
}

impl Holds {
    /// At least may hold.
    pub(super) fn max_maybe(self) -> Holds {
        match self {
            Holds::Yes => Holds::Yes,
            _ => Holds::Maybe,
        }
    }
}

impl Walker<'_> {
    pub(super) fn opaque(&mut self, c: Construct) {
        if self.out.opaque.is_none() {
            self.out.opaque = Some(c);
        }
    }

    pub(super) fn hit(&mut self, e: &HardCommand, part: String, holds: Holds) {
        let hit = Hit {
            entry: e.id.to_string(),
            reason: e.reason.to_string(),
            part,
        };
        match holds {
            Holds::Yes => self.out.hits.push(hit),
            Holds::Maybe => self.out.unknown.push(hit),
            Holds::No => {}
        }
    }

    pub(super) fn unsafe_variable(&self, name: &str) -> bool {
        let plain = &self.hardline.plain;
        plain
            .unsafe_variables
            .iter()
            .any(|p| wildcard::matches(p, name))
            && !plain.safe_variables.iter().any(|v| *v == name)
    }

    /// A variable assigned before a command (`GIT_PAGER=cat git log`): a line variable's value
    /// is read as the line it is, a safe value passes, and any other unsafe variable makes the
    /// line opaque; any other value holding a line is read for what the hardline refuses.
    pub(super) fn assignment(&mut self, name: &str, word: &Word, scope: &Scope<'_>, depth: usize) {
        let plain = &self.hardline.plain;
        // Its value after `=`; none when a substitution gives it (known only when it runs).
        let Some(value) = shell::value_of_assignment(word) else {
            if self.unsafe_variable(name) {
                self.opaque(Construct::UnsafeVariable);
            }
            return;
        };
        if plain.line_variables.iter().any(|v| *v == name) {
            if value.dynamic() {
                self.opaque(Construct::UnsafeVariable);
            } else {
                self.line(&value.text, Some(Cow::Borrowed(SH)), Some(scope), depth);
            }
            return;
        }
        let safe = !value.dynamic()
            && !value.text.trim().is_empty()
            && plain.safe_values.get(name).is_some_and(|patterns| {
                value
                    .text
                    .split_whitespace()
                    .all(|word| patterns.iter().any(|p| wildcard::matches(p, word)))
            });
        if !safe && self.unsafe_variable(name) {
            self.opaque(Construct::UnsafeVariable);
        }
        // A program may put any variable of its environment into the lines it runs (make's
        // `$(CC)`): a value holding a line is read for what the hardline refuses in it.
        if !value.dynamic() && super::unlisted::holds_a_line(&value.text) {
            self.hardline_of_value(&value.text, Some(scope), depth);
        }
    }

    pub(super) fn reading(&mut self, reading: &Reading, scope: &Scope<'_>, depth: usize) {
        if let Some(c) = reading.opaque {
            self.opaque(c);
        }
        if let Some(name) = &reading.self_calling {
            for e in self.hardline.commands.iter().filter(|e| e.self_calling) {
                self.hit(e, format!("{name}() {{ … {name} … }}"), Holds::Yes);
            }
        }
        if reading
            .bindings
            .iter()
            .any(|b| self.unsafe_variable(&b.name))
        {
            self.opaque(Construct::UnsafeVariable);
        }
        // A variable the line sets may be exported to a program that runs it (`CC='…'; export
        // CC; make`): a value holding a line is read as one before a command is.
        for binding in &reading.bindings {
            for value in binding.values.iter().flatten() {
                if !value.dynamic() && super::unlisted::holds_a_line(&value.text) {
                    self.hardline_of_value(&value.text, Some(scope), depth);
                }
            }
        }
        let mut line_commands = 0;
        for cmd in &reading.commands {
            if depth == 0 && !cmd.words.is_empty() {
                self.current = Some(line_commands);
                line_commands += 1;
            }
            for (name, value) in cmd.assignments() {
                self.assignment(name, value, scope, depth);
            }
            // A program may join them into one line (make's `$(CC) $(CFLAGS)`).
            if cmd.assignments().nth(1).is_some() {
                let joined: Vec<String> = cmd
                    .assignments()
                    .filter_map(|(_, value)| shell::value_of_assignment(value))
                    .filter(|value| !value.dynamic())
                    .map(|value| value.text)
                    .collect();
                self.hardline_of_value(&joined.join(" "), Some(scope), depth);
            }
            // Its standard input comes from a pipe or a redirection (a shell could read it).
            let stdin_fed = cmd.piped || cmd.redirects.iter().any(|r| r.feeds_input());
            for r in &cmd.redirects {
                self.redirect(r, scope);
            }
            if depth == 0 {
                self.form(cmd, scope);
            }
            // Judged as the words it runs with: an unquoted value's blanks cut it into more.
            match self.split(cmd.argv(), scope) {
                Split::None => self.unwrap_wrappers(cmd.argv(), scope, stdin_fed, depth),
                Split::Ways(ways) => {
                    for words in &ways {
                        self.unwrap_wrappers(words, scope, stdin_fed, depth);
                    }
                }
                Split::TooMany => self.opaque(Construct::WordSplitting),
            }
        }
        if super::secrets::turns_text_into_values(reading) {
            self.spelled_secret_reads(reading, scope);
        }
        self.code_fed(reading, scope, depth);
        self.values_given_to_code(reading, scope, depth);
    }

    /// A redirection: a connection to the network, a file it reads, a file it writes.
    fn redirect(&mut self, r: &shell::Redirect, scope: &Scope<'_>) {
        let part = format!("{} {}", r.op.as_str(), r.target.text);
        if !r.reads_file() && !r.writes_file() {
            return;
        }
        let network = self.targets(&r.target, scope).is_some_and(|paths| {
            paths.iter().any(|p| {
                self.hardline
                    .plain
                    .network
                    .iter()
                    .any(|n| wildcard::matches(n, p))
            })
        });
        if network {
            self.out.network.push(part);
            return;
        }
        if r.reads_file() {
            self.secret_read(&r.target, scope);
            self.read_target(&r.target, scope, false, &part);
        }
        if r.writes_file() {
            self.write_target(&r.target, scope, &part);
            self.disk_redirect(&r.target, scope, &part);
        }
    }

    /// A redirection into a disk.
    pub(super) fn disk_redirect(&mut self, target: &Word, scope: &Scope<'_>, part: &str) {
        for e in self.hardline.redirects.iter() {
            let Some(set) = hardline::path_set(&e.targets) else {
                continue;
            };
            // An unknown target is a write whose file is not known (see `write_target`).
            let on_disk = self
                .targets(target, scope)
                .is_some_and(|paths| paths.iter().any(|p| self.in_set(set, p)));
            if on_disk {
                self.out.hits.push(Hit {
                    entry: e.id.to_string(),
                    reason: e.reason.to_string(),
                    part: part.to_string(),
                });
            }
        }
    }

    pub(super) fn write_target(&mut self, target: &Word, scope: &Scope<'_>, part: &str) {
        self.write_paths(target, scope, part, false);
    }

    /// [`Walker::write_target`], each path written whole (`whole`: a folder with everything in
    /// it, refused where a path no tool may write is under it) or not.
    pub(super) fn write_paths(
        &mut self,
        target: &Word,
        scope: &Scope<'_>,
        part: &str,
        whole: bool,
    ) {
        match self.targets(target, scope) {
            Some(paths) => {
                let hardline = self.hardline;
                for p in paths.into_iter().filter(|p| !device(hardline, p)) {
                    if whole {
                        self.protected_tree(&p, RiskClass::Write);
                    }
                    self.out.writes.push((p, part.to_string()));
                }
            }
            None => self.out.unknown.push(Hit {
                entry: UNKNOWN_WRITE.into(),
                reason: String::new(),
                part: part.to_string(),
            }),
        }
    }

    /// A file the line reads by name (`whole`: a folder there is read with everything in it).
    pub(super) fn read_target(
        &mut self,
        target: &Word,
        scope: &Scope<'_>,
        whole: bool,
        part: &str,
    ) {
        match self.targets(target, scope) {
            Some(paths) => {
                let hardline = self.hardline;
                for path in paths.into_iter().filter(|p| !device(hardline, p)) {
                    if whole {
                        self.secret_tree(&path);
                    }
                    self.out.reads.push(FileRead { path, whole });
                }
            }
            None => self.out.unknown_reads.push(part.to_string()),
        }
    }

    /// The commands `words` runs, wrappers unwrapped; `stdin_fed`: its standard input comes from
    /// a pipe or a redirection.
    pub(super) fn unwrap_wrappers(
        &mut self,
        words: &[Word],
        scope: &Scope<'_>,
        stdin_fed: bool,
        depth: usize,
    ) {
        let Some(first) = words.first() else { return };
        // A command name from an expansion or a glob (`/bin/r?`) is known only when it runs.
        if first.dynamic() || first.glob() {
            self.opaque(Construct::CommandNameExpansion);
            return;
        }
        if self.runs_what_the_line_wrote(first) {
            self.opaque(Construct::Source);
            return;
        }
        let name = shell::program_name(&first.text);
        let known = super::known::known(name);
        let program = known.tool(name);
        let args = words.get(1..).unwrap_or(&[]);
        for name in assigned_names(program, args) {
            match name {
                Some(n) if self.unsafe_variable(n) => self.opaque(Construct::UnsafeVariable),
                Some(_) => {}
                None => self.opaque(Construct::ShellState),
            }
        }
        match program {
            "set" => {
                if set_changes_parameters(args) {
                    self.opaque(Construct::ShellState);
                }
                return;
            }
            "export" => {
                if args.iter().any(|a| a.text.starts_with('-') || a.dynamic()) {
                    self.opaque(Construct::ShellState);
                } else if args
                    .iter()
                    .filter_map(|a| shell::assignment_name(&a.text))
                    .any(|n| self.unsafe_variable(n))
                {
                    self.opaque(Construct::UnsafeVariable);
                }
                // What the commands after it get in their environment (`export CC='…'; make`).
                for a in args {
                    if let Some(name) = shell::assignment_name(&a.text) {
                        self.assignment(name, a, scope, depth);
                    }
                }
                return;
            }
            _ => {}
        }
        if let Some(construct) = known.opaque {
            self.opaque(Construct::parse(construct).unwrap_or(Construct::ShellState));
            return;
        }
        let lists = known.lists;
        if lists.has(List::Shells) {
            self.shell(args, scope, depth);
            return;
        }
        if lists.has(List::OtherShells) {
            self.opaque(Construct::OtherShell);
            return;
        }
        // Asked only what it is (`sqlite3 --version`), it runs nothing.
        let only_asked_what_it_is = matches!(
            args,
            [w] if !w.dynamic() && matches!(w.text.as_str(), "--version" | "-version" | "--help" | "-help")
        );
        if lists.has(List::InputShells) && !only_asked_what_it_is {
            self.opaque(Construct::ShellInput);
            return;
        }
        if program == "find" {
            self.find(args, scope, stdin_fed, depth);
        }
        if let Some(w) = known.wrapper {
            // A wrapper is a program too (`strace -p 1`).
            self.entries(program, &known, words, scope, None);
            self.wrapper(w, args, scope, stdin_fed, depth);
            return;
        }
        self.judge(program, &known, words, scope, depth);
        if super::unlisted::may_run_its_words(program, lists, words) {
            self.words_as_commands(words, scope, stdin_fed, depth);
            if !self.text_as_a_line {
                self.unlisted_paths(words, scope, depth);
            }
        } else if !self.text_as_a_line && self.runs_code() {
            // `perl -e CODE`: what its code names, as a program lembas does not know.
            self.code_it_is_given(words, scope, depth);
        }
    }

    /// A POSIX shell: its `-c` line read again, with `$0 $1 …` after it; without `-c` it reads a
    /// file or its input.
    pub(super) fn shell(&mut self, args: &[Word], scope: &Scope<'_>, depth: usize) {
        let values = &self.hardline.plain.shell_values;
        let mut i = 0;
        let mut has_c = false;
        while let Some(w) = args.get(i) {
            let t = w.text.as_str();
            if w.dynamic() {
                self.opaque(Construct::WrapperLine);
                return;
            }
            if t == "--" || t == "-" {
                i += 1;
                break;
            }
            if values.iter().any(|v| v == t) {
                i += 2;
                continue;
            }
            if t.starts_with("--") {
                i += 1;
                continue;
            }
            if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 {
                let cluster = t.get(1..).unwrap_or("");
                if cluster.contains('c') && t.starts_with('-') {
                    has_c = true;
                }
                // `-o name` inside a cluster (`-eo pipefail`) takes the next word.
                if cluster.ends_with('o') || cluster.ends_with('O') {
                    i += 1;
                }
                i += 1;
                continue;
            }
            break;
        }
        if !has_c {
            self.opaque(Construct::ShellInput);
            return;
        }
        let Some(line) = args.get(i) else {
            self.opaque(Construct::Syntax);
            return;
        };
        if line.dynamic() {
            self.opaque(Construct::WrapperLine);
            return;
        }
        let rest = args.get(i + 1..).unwrap_or(&[]);
        if rest.is_empty() {
            self.line(&line.text, Some(Cow::Borrowed(SH)), Some(scope), depth);
            return;
        }
        // Each parameter's values; a word of several (`for a in x y; do sh -c 'cat "$1"' _
        // "$a"; done`) runs the line once with each, up to `MAX_RUNS` runs; more make the line
        // opaque. A value not known is run as unknown, and with each guess of it
        // ([`super::variable_paths::spellings`]: a variable handed through many others).
        let choices: Vec<Vec<Option<String>>> = rest
            .iter()
            .map(|w| match self.values(w, scope) {
                Some(values) if values.is_empty() => vec![Some(String::new())],
                Some(values) => values.into_iter().map(Some).collect(),
                None => std::iter::once(None)
                    .chain(
                        super::variable_paths::spellings(w, scope, &self.too_many_values)
                            .into_iter()
                            .map(Some),
                    )
                    .collect(),
            })
            .collect();
        let runs = choices
            .iter()
            .map(Vec::len)
            .try_fold(1usize, |product, n| product.checked_mul(n.max(1)))
            .unwrap_or(usize::MAX);
        if runs > MAX_RUNS {
            self.too_many_values.set(true);
        }
        let mut chosen = vec![0usize; choices.len()];
        for _ in 0..runs.min(MAX_RUNS) {
            let positional: Vec<Option<Cow<'static, str>>> = choices
                .iter()
                .zip(&chosen)
                .map(|(values, &at)| values.get(at).cloned().flatten().map(Cow::Owned))
                .collect();
            self.line(&line.text, Some(Cow::Owned(positional)), Some(scope), depth);
            // The next combination, the last parameter turning fastest.
            for (at, values) in chosen.iter_mut().zip(&choices).rev() {
                *at += 1;
                if *at < values.len() {
                    break;
                }
                *at = 0;
            }
        }
    }

    /// A line run by a shell inside the line.
    /// `outer` is the scope of the line that runs it, whose variables it may see; none when
    /// the text comes from a value a program reads (make's `$(CC)`).
    pub(super) fn line(
        &mut self,
        text: &str,
        positional: Option<Positional>,
        outer: Option<&Scope<'_>>,
        depth: usize,
    ) {
        if depth + 1 > MAX_DEPTH {
            self.opaque(Construct::TooDeep);
            return;
        }
        let reading = shell::read_nested(text, depth + 1);
        let inner = Scope::nested(&reading, positional, outer);
        self.reading(&reading, &inner, depth + 1);
    }

    /// Words joined by spaces and run as a line (`watch`, `sudo -s`).
    pub(super) fn joined(&mut self, words: &[Word], scope: &Scope<'_>, depth: usize) {
        if words.is_empty() {
            return;
        }
        if words.iter().any(Word::dynamic) {
            self.opaque(Construct::WrapperLine);
            return;
        }
        let text = words
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        self.line(&text, Some(Cow::Borrowed(SH)), Some(scope), depth);
    }

    /// A plain command (program first; `known`, what the spec's tables say of the program): the
    /// hardline entries, the folder it moves to, the links and files it makes.
    pub(super) fn judge(
        &mut self,
        program: &str,
        known: &Known,
        words: &[Word],
        scope: &Scope<'_>,
        depth: usize,
    ) {
        let lists = known.lists;
        // `tar cgf SNAP OUT` read as `tar -c -g SNAP -f OUT`.
        let expanded = known
            .old_style
            .and_then(|with_values| super::old_style::expand(with_values, words));
        let words = expanded.as_deref().unwrap_or(words);
        let args = words.get(1..).unwrap_or(&[]);
        // The command as the refusal names it, written only when something is found.
        let part = || command_text(words);
        // Arguments with no option and no expansion read alike whatever an entry's option
        // lists: read once for every entry of the program instead of once an entry.
        let plain = args
            .iter()
            .all(|w| !w.dynamic() && !w.text.starts_with('-'));
        let shared = plain.then(|| Options::read(args, |_| None, &[], &[]));
        self.entries(program, known, words, scope, shared.as_ref());
        self.code_files(program, known, args);
        if let Some(effects) = known.program.and_then(|p| p.effects.as_ref()) {
            self.effects(effects, args, scope, depth);
        }
        if let Some(reads) = known.program.and_then(|p| p.reads.as_ref()) {
            self.operand_reads(program, reads, args, scope);
        }
        if !lists.has(List::Metadata) {
            self.secret_reads(program, known, args, scope);
        }
        for w in args.iter().filter(|w| !w.dynamic()) {
            let t = w.text.as_str();
            for v in std::iter::once(t).chain(values_inside(t)) {
                if (self.guarded)(v) {
                    self.out.guarded.push(v.to_string());
                }
            }
        }
        let mut tree_entries =
            super::index::tree_reads_naming_at(program, known.tree_reads).peekable();
        let tree_reads = tree_entries.peek().is_some();
        if lists.has(List::Writers) || tree_reads {
            // Read once for both, with the values the line gives its expansions.
            let own;
            let opts = match shared.as_ref() {
                Some(o) => o,
                None => {
                    own = Options::read(args, |w| self.values(w, scope), &[], &[]);
                    &own
                }
            };
            if lists.has(List::Writers) {
                self.hidden_writes(program, known, args, scope, opts, &part);
            }
            if tree_reads {
                self.tree_reads(program, tree_entries, args, scope, opts);
            }
        }
        if lists.has(List::ChangesDirectory) {
            self.cd(args, scope);
        }
        if lists.has(List::Links) {
            self.link(args, scope);
        }
    }

    /// `cd`: later relative paths may mean the folder it moves to.
    pub(super) fn cd(&mut self, args: &[Word], scope: &Scope<'_>) {
        let operand = args
            .iter()
            .find(|w| !w.text.starts_with('-') || w.text == "-");
        // A folder a command substitution makes that spells a secret's (`cd $(echo ~/.aws)`):
        // what is read there next may be any file in it, so it is judged as read whole.
        if let Some(w) = operand.filter(|w| w.dynamic()) {
            for piece in super::secrets::spelled_in_substitution(&w.text) {
                for path in self.resolve_all(&piece).unwrap_or_default() {
                    self.secret_tree(&path);
                }
            }
        }
        if let Some(w) = operand.filter(|w| w.dynamic()) {
            for spelled in super::variable_paths::spellings(w, scope, &self.too_many_values)
                .iter()
                .map(String::as_str)
                .chain(super::variable_paths::named_in_substitution(w))
            {
                let folders = self.resolve_all(spelled).unwrap_or_default();
                self.variable_folders.extend(folders);
            }
        }
        let to = match operand {
            None => self.resolve_all("~"),
            // The folder before: none before any `cd` (`OLDPWD` is empty: it fails and the line
            // stays), else one of those the line may be in already (each `cd` adds its own).
            Some(w) if w.text == "-" => return,
            Some(w) => self.targets(w, scope),
        };
        self.changed_folder = true;
        match (to, self.cwds.as_mut()) {
            (Some(paths), Some(cwds)) => {
                for p in paths {
                    cwds.add(Cow::Owned(p));
                }
                if cwds.len() > MAX_VALUES {
                    self.too_many_values.set(true);
                    self.cwds = None;
                }
            }
            _ => self.cwds = None,
        }
    }

    /// A folder the line may be in that is outside the project root, or `?` when the folder
    /// is not known (`cd "$X"`, `cd -`); none while every folder it may be in is the root's.
    pub(super) fn folder_outside_root(&self) -> Option<String> {
        let Some(cwds) = &self.cwds else {
            return Some("?".into());
        };
        cwds.iter()
            .find(|folder| !super::super::path::is_inside(self.place.root, folder))
            .map(|folder| folder.to_string())
    }

    /// Whether a command's program is a file the line wrote before it (`echo … > x.sh && chmod
    /// +x x.sh && ./x.sh`, `cp /bin/rm r && ./r -rf ~`): code the line gives, but not as a line
    /// the reader reads, so it is read as a file run as code (`source`).
    fn runs_what_the_line_wrote(&self, program: &Word) -> bool {
        program.text.contains('/') && self.wrote(program)
    }

    /// Whether the line wrote a file with one of these names, in any folder.
    pub(super) fn wrote_a_file_named(&self, names: &[crate::spec::types::Str]) -> bool {
        self.out.writes.iter().any(|(written, _)| {
            let name = crate::permission::path::last_name(written);
            names.iter().any(|n| n.as_ref() == name)
        })
    }

    /// Whether `file` is a file the line wrote before (not a program it built): a file whose
    /// path is not known may be one.
    pub(super) fn wrote(&self, file: &Word) -> bool {
        if self.out.writes.is_empty() {
            return false;
        }
        self.resolve_all(&file.text).is_none_or(|paths| {
            paths.iter().any(|path| {
                self.out.writes.iter().any(|(written, _)| written == path)
                    && !self.built.iter().any(|built| built == path)
            })
        })
    }

    /// `ln -s TARGET LINK`: a later path through the link reaches the target.
    pub(super) fn link(&mut self, args: &[Word], scope: &Scope<'_>) {
        let opts = Options::read(args, |w| self.values(w, scope), &[], &[]);
        if !(opts.has("-s") || opts.has("--symbolic")) {
            return;
        }
        let [target, link] = opts.operands.as_slice() else {
            return;
        };
        match (self.targets(target, scope), self.targets(link, scope)) {
            (Some(ts), Some(ls)) if self.links.len() + ts.len() * ls.len() <= MAX_VALUES => {
                for l in &ls {
                    for t in &ts {
                        self.links.push((l.clone(), t.clone()));
                    }
                }
            }
            (Some(_), Some(_)) => {
                self.too_many_values.set(true);
                self.links_lost = true;
            }
            // Links that cannot be followed: where any path leads is not known.
            _ => self.links_lost = true,
        }
    }
}

/// The entry of an [`Analysis::unknown`] that is a write whose file is known only when the line
/// runs (`> "$X"`), not a hardline entry.
pub(super) const UNKNOWN_WRITE: &str = "write";

/// A shell's line is read once for each combination of its parameters' values up to this many
/// times; more make the line opaque (`Construct::TooManyValues`).
const MAX_RUNS: usize = 8;

/// A command's words joined by one space: the command as a refusal or a write names it.
pub(super) fn command_text(words: &[Word]) -> String {
    let mut out = String::with_capacity(words.iter().map(|w| w.text.len() + 1).sum());
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&w.text);
    }
    out
}

/// The options and operands of a command's arguments.
pub(super) struct Options<'w> {
    /// Each option given, one letter of a cluster at a time (`-rf`: `-r`, `-f`), a long one
    /// without its `=value`.
    pub(super) flags: Vec<Cow<'w, str>>,
    /// The one-dash words as written (`-delete`, `-rf`).
    pub(super) words: Vec<&'w str>,
    /// The other words (kept on the stack: most commands have a few, and most of them are
    /// operands).
    pub(super) operands: SmallVec<[&'w Word; 8]>,
    /// An argument is an expansion: it may be an option.
    pub(super) dynamic: bool,
}

impl<'w> Options<'w> {
    /// Reads the arguments; `known` gives a dynamic word's values when the line fixes them, and
    /// the next word after one of `values` (spelled whole) is that option's value, not an
    /// operand.
    pub(super) fn read(
        args: &'w [Word],
        known: impl Fn(&Word) -> Option<Vec<String>>,
        values: &[crate::spec::types::Str],
        attached: &[crate::spec::types::Str],
    ) -> Options<'w> {
        let mut o = Options {
            flags: Vec::new(),
            words: Vec::new(),
            operands: SmallVec::new(),
            dynamic: false,
        };
        let mut ended = false;
        let mut value_next = false;
        for w in args {
            let t = w.text.as_str();
            if std::mem::take(&mut value_next) {
                continue;
            }
            if !ended && !w.dynamic() && values.iter().any(|v| v == t) {
                value_next = true;
            }
            if w.dynamic() {
                // `find`'s `{}` is a path under a start point, never an option; nor is a
                // variable whose every value the line gives and none starts with `-`.
                let plain_values = known(w)
                    .is_some_and(|v| v.iter().all(|x| !x.is_empty() && !x.starts_with('-')));
                // Known text first, not a dash (`~/b/x-$(date).tgz`): it starts so when it runs.
                let led_by_text = matches!(
                    w.first_piece(),
                    Some(PieceView::Text { text, .. }) if !text.is_empty() && !text.starts_with(['-', '+'])
                );
                if !ended && !is_found(w) && !plain_values && !led_by_text {
                    o.dynamic = true;
                }
                o.operands.push(w);
            } else if ended {
                o.operands.push(w);
            } else if t == "--" {
                ended = true;
            } else if t.starts_with("--") {
                // `--name=value` is `--name`: the word up to its `=`.
                o.flags
                    .push(Cow::Borrowed(t.split('=').next().unwrap_or(t)));
            } else if t.len() > 1
                && t.starts_with('-')
                // A number (`kill -9`, `head -5`) is no option; a cluster may hold digits
                // (`zip -9r`).
                && !t
                    .get(1..)
                    .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit() || c == '.'))
            {
                o.words.push(t);
                // A letter whose value may be joined (`date -Iseconds`) ends the cluster.
                let one_letter = t.chars().count() == 2;
                for c in t.chars().skip(1) {
                    let flag = if one_letter {
                        Cow::Borrowed(t)
                    } else {
                        Cow::Owned(crate::permission::programs::short_option(c))
                    };
                    let ends = attached.iter().any(|a| *a == *flag);
                    o.flags.push(flag);
                    if ends {
                        break;
                    }
                }
            } else {
                o.operands.push(w);
            }
        }
        o
    }

    /// Whether an option is given: a short one in any cluster, a one-dash word (`-delete`)
    /// whole, a long one by any prefix GNU accepts (`--recur`).
    pub(super) fn has(&self, f: &str) -> bool {
        // Every flag and one-dash word read starts with `-`: nothing else is one of them.
        if !f.starts_with('-') {
            return false;
        }
        if f.starts_with("--") {
            return self.flags.iter().any(|g| {
                g == f || (g.len() >= 3 && g.starts_with("--") && f.starts_with(g.as_ref()))
            });
        }
        if f.chars().count() == 2 {
            return self.flags.iter().any(|g| g == f);
        }
        self.words.contains(&f)
    }

    /// Whether an option is given spelled whole (a short one in any cluster).
    pub(super) fn has_exactly(&self, f: &str) -> bool {
        if !f.starts_with('-') {
            return false;
        }
        if f.starts_with("--") || f.chars().count() == 2 {
            return self.flags.iter().any(|g| g == f);
        }
        self.words.contains(&f)
    }
}

/// A GNU tool under its `g` name (`grm`, `gdd`, as macOS installs them) read as the tool.
pub(super) fn gnu_name(program: &str) -> &str {
    match program.strip_prefix('g') {
        Some(tool) if program_lists().of(tool).has(List::GnuNames) => tool,
        _ => program,
    }
}

/// The names a builtin assigns (`printf -v NAME`, `read NAME…`, `read -a NAME`, `getopts OPTS
/// NAME`); `None` for a name known only when the line runs.
fn assigned_names<'w>(program: &str, args: &'w [Word]) -> Vec<Option<&'w str>> {
    let name = |w: &'w Word| (!w.dynamic()).then_some(w.text.as_str());
    let mut out = Vec::new();
    match program {
        "printf" => {
            let mut i = 0;
            while let Some(w) = args.get(i) {
                i += 1;
                match w.text.as_str() {
                    "-v" => out.push(args.get(i).and_then(name)),
                    "--" => break,
                    t if t.starts_with("-v") && !w.dynamic() => out.push(t.get(2..)),
                    t if t.starts_with('-') || w.dynamic() => {}
                    _ => break,
                }
            }
        }
        "read" => {
            let mut i = 0;
            let mut options = true;
            while let Some(w) = args.get(i) {
                i += 1;
                let t = w.text.as_str();
                if options && t == "--" {
                    options = false;
                } else if options && t.starts_with('-') && t.len() > 1 && !w.dynamic() {
                    // The last letter of a cluster may take the next word: `-a NAME` names.
                    let last = t.chars().last().unwrap_or('-');
                    if "adinNptu".contains(last) {
                        let value = args.get(i);
                        i += 1;
                        if last == 'a' {
                            out.push(value.and_then(name));
                        }
                    }
                } else {
                    options = false;
                    out.push(name(w));
                }
            }
        }
        "getopts" => {
            if let Some(w) = args.get(1) {
                out.push(name(w));
            }
        }
        _ => {}
    }
    out
}

/// The values of these options in `args`, in any spelling: after the option spelled whole
/// (a long one also by a GNU prefix), joined after `=` (`--output=f`) or to a short one
/// (`-of`), and a short one at the end of a cluster of flags (`-so f`, `-sof`). Each value comes
/// with the option it was given to. Read generously: a value found that is none is only judged
/// too.
/// The words that are the next word's value of an option spelled whole (`-t DIR`, `--directory
/// DIR`): a reading with no option lists takes them for operands.
pub(super) fn next_word_values<'w>(
    args: &'w [Word],
    options: &[crate::spec::types::Str],
) -> Vec<&'w Word> {
    args.windows(2)
        .filter(|pair| {
            pair.first().is_some_and(|option| {
                !option.dynamic() && options.iter().any(|o| *o == option.text)
            })
        })
        .filter_map(|pair| pair.get(1))
        .collect()
}

pub(super) fn option_values<'o>(
    args: &[Word],
    options: &'o [crate::spec::types::Str],
) -> Vec<(Word, &'o str)> {
    let mut out = Vec::new();
    let mut i = 0;
    'words: while let Some(w) = args.get(i) {
        i += 1;
        let t = w.text.as_str();
        if t == "--" {
            break;
        }
        for o in options.iter().map(|o| o.as_ref()) {
            let next = |i: &mut usize, out: &mut Vec<(Word, &'o str)>| {
                if let Some(v) = args.get(*i) {
                    out.push((v.clone(), o));
                }
                *i += 1;
            };
            if let Some(long) = o.strip_prefix("--") {
                let Some(given) = t.strip_prefix("--") else {
                    continue;
                };
                let (name, value) = match given.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (given, None),
                };
                if name.is_empty() || !long.starts_with(name) {
                    continue;
                }
                match value {
                    Some(v) => out.push((strip_word_prefix(w, name.chars().count() + 3, v), o)),
                    None => next(&mut i, &mut out),
                }
                continue 'words;
            }
            if o.chars().count() > 2 {
                // A one-dash long option (`-fprint`), spelled whole.
                if t == o {
                    next(&mut i, &mut out);
                    continue 'words;
                }
                continue;
            }
            let Some(letter) = o.chars().nth(1) else {
                continue;
            };
            let Some(letters) = t
                .strip_prefix('-')
                .filter(|l| !l.is_empty() && !l.starts_with('-'))
            else {
                continue;
            };
            let chars: Vec<char> = letters.chars().collect();
            let Some(k) = chars.iter().position(|c| *c == letter) else {
                continue;
            };
            // Only flags (letters) before it: `-rt DIR`, `-so FILE`.
            if !chars.iter().take(k).all(char::is_ascii_alphabetic) {
                continue;
            }
            if k + 1 == chars.len() {
                next(&mut i, &mut out);
            } else {
                let rest: String = chars.iter().skip(k + 1).collect();
                out.push((strip_word_prefix(w, k + 2, &rest), o));
            }
            continue 'words;
        }
    }
    out
}

/// `set` with operands or `--` changes `$1 $2 …`.
pub(super) fn set_changes_parameters(args: &[Word]) -> bool {
    let mut skip = false;
    for a in args {
        if skip {
            skip = false;
            continue;
        }
        let t = a.text.as_str();
        if a.dynamic() || t == "--" || t == "-" {
            return true;
        }
        if t.starts_with('-') || t.starts_with('+') {
            skip = t.ends_with('o');
            continue;
        }
        return true;
    }
    false
}

/// Whether an entry's program (a name, or a wildcard such as `mkfs.*`) names `program`.
pub(super) fn names(pattern: &str, program: &str) -> bool {
    match pattern.as_bytes().first() {
        Some(b'*' | b'?') => wildcard::matches(pattern, program),
        // Most entries name other programs: their first letters differ.
        first if first != program.as_bytes().first() => false,
        _ => {
            pattern == program
                || (pattern.contains(['*', '?']) && wildcard::matches(pattern, program))
        }
    }
}
