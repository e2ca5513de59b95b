//! A command of the line read by its program's read-only grammar (permission/programs.json) —
//! whether a default rule may cover it — and the files that grammar says its words read; and what
//! each command it runs asks for that an approval never covers.

use super::super::programs::{self, effects, grammar};
use super::super::shell::{Command, Construct, PieceView, Word, MAX_DEPTH};
use super::addresses::revision_path;
use super::values::{strip_word_prefix, Scope, SH};
use super::walk::Walker;
use super::ReadOnly;
use crate::permission::hardline;
use crate::permission::RiskClass;
use crate::spec::types::{Effects, Reads};
use smallvec::SmallVec;
use std::borrow::Cow;

impl Walker<'_> {
    /// Reads a command of the line (not one a shell inside it runs) by its program's grammar.
    pub(super) fn form(&mut self, cmd: &Command, scope: &Scope<'_>) {
        let Some(index) = self.current else { return };
        let argv = cmd.argv();
        let Some(first) = argv.first() else { return };
        if first.dynamic() || first.glob() || cmd.assigns > 0 {
            return;
        }
        let Some(grammar) = programs::read_only(&first.text) else {
            return;
        };
        let rest = argv.get(1..).unwrap_or(&[]);
        let args: SmallVec<[grammar::Arg<'_>; 8]> = rest
            .iter()
            .map(|w| grammar::Arg {
                text: &w.text,
                known: !w.dynamic(),
                may_be_option: self.may_be_option(w, scope),
            })
            .collect();
        // The folder it runs in: a program may read it without naming it (git reads the
        // repository there, ls lists it), so a grammar covers it only in the project.
        let read_only = match programs::read(grammar, &args) {
            Ok(named) => {
                let part = cmd.text();
                for read in named {
                    let Some(word) = rest.get(read.arg) else {
                        continue;
                    };
                    let word = skipped(word, read.skip);
                    match read.kind {
                        grammar::ReadKind::File => self.read_target(&word, scope, false, &part),
                        grammar::ReadKind::Tree => self.read_target(&word, scope, true, &part),
                        grammar::ReadKind::Revision => {
                            self.read_target(&word, scope, false, &part);
                            // `HEAD:path`: a file of the repository.
                            if let Some(path) = revision_path(&word.text) {
                                let before = word.text.len() - path.len();
                                let inner = skipped(
                                    &word,
                                    word.text.get(..before).unwrap_or("").chars().count(),
                                );
                                if !inner.text.is_empty() {
                                    self.read_target(&inner, scope, false, &part);
                                    self.secret_at_repository_top(&inner, scope);
                                }
                            }
                        }
                    }
                }
                match self.folder_outside_root() {
                    Some(folder) if reads_where_it_runs(grammar) => {
                        ReadOnly::Outside(grammar::Outside::Folder(folder))
                    }
                    _ => ReadOnly::Inside,
                }
            }
            Err(why) => ReadOnly::Outside(why),
        };
        if let Some(command) = self.out.commands.get_mut(index) {
            command.read_only = read_only;
        }
    }

    /// `REV:path` names a file from the repository's top, which may be any folder above the
    /// one git runs in, or the home (a repository of the home's dotfiles, found there or named
    /// by `--git-dir`): the path is refused when, from any of them, it names a file no tool may
    /// read (`HEAD:.ssh/id_ed25519`). `./` and `../` start from the folder git runs in, as read
    /// already.
    pub(super) fn secret_at_repository_top(&mut self, path: &Word, scope: &Scope<'_>) {
        let text = path.text.as_str();
        if path.dynamic()
            || text.starts_with('/')
            || text.starts_with("./")
            || text.starts_with("../")
        {
            return;
        }
        let Some(mut folders) = self.targets(&Word::literal("."), scope) else {
            return;
        };
        // A repository of the home's dotfiles may be named by `--git-dir` from anywhere.
        let place = self.place;
        if let Some(home) = place.home {
            folders.push(home.to_string());
        }
        for folder in folders {
            let mut top = folder.trim_end_matches('/');
            loop {
                let candidate = format!("{top}/{text}");
                let found =
                    hardline::check_path(&candidate, RiskClass::Read, place.home, place.root)
                        .filter(|f| !f.ask);
                if let Some(found) = found {
                    self.out.hits.push(found.hit);
                    return;
                }
                match top.rsplit_once('/') {
                    Some((above, _)) => top = above,
                    None => break,
                }
            }
        }
    }

    /// Whether a word may start with `-` when the line runs: an expansion leads it and not all
    /// of its values are known to start otherwise.
    pub(super) fn may_be_option(&self, w: &Word, scope: &Scope<'_>) -> bool {
        if !leads_with_expansion(w) {
            return false;
        }
        self.values(w, scope).is_none_or(|values| {
            values
                .iter()
                .any(|v| v.is_empty() || v.starts_with(['-', '+']))
        })
    }

    /// The effects of a command a line runs (its program, then its arguments), added to the
    /// line's command it is part of.
    pub(super) fn effects(
        &mut self,
        entry: &'static Effects,
        args: &[Word],
        scope: &Scope<'_>,
        depth: usize,
    ) {
        let words: SmallVec<[effects::EffectWord<'_>; 8]> = args
            .iter()
            .map(|w| effects::EffectWord {
                text: &w.text,
                dynamic: self.may_be_option(w, scope),
                expanded: w.dynamic(),
            })
            .collect();
        let found = effects::effects(entry, &words);
        if let Some(command) = self.current.and_then(|i| self.out.commands.get_mut(i)) {
            command.effects.extend(found);
        }
        // A subcommand it does not have may be an alias of the person's, which may run anything
        // after it: read as a program lembas does not know.
        if let Some(at) = effects::alias_at(entry, &words) {
            self.words_as_commands(args.get(at..).unwrap_or(&[]), scope, false, depth);
        }
        // Code its options give it to run: read as lines, or the line is opaque.
        for code in effects::code_of(entry, &words) {
            match code {
                effects::Code::Line(line) => {
                    self.line(&line, Some(Cow::Borrowed(SH)), Some(scope), depth)
                }
                effects::Code::Text(text) => self.hardline_of_value(&text, Some(scope), depth),
                effects::Code::Unreadable(_) => self.opaque(Construct::WrapperLine),
                effects::Code::Command { count } => {
                    let command = args.get(args.len().saturating_sub(count)..).unwrap_or(&[]);
                    self.run_through_shell(command, scope, depth);
                }
            }
        }
    }

    /// Words run as git runs a command it is given (`run_command`'s `use_shell`): a first word
    /// with no character special to the shell is the program, run with the rest; else
    /// `sh -c 'FIRST "$@"' FIRST REST…` — the first word a line, the rest its arguments — or
    /// `sh -c FIRST FIRST` when it is alone.
    fn run_through_shell(&mut self, command: &[Word], scope: &Scope<'_>, depth: usize) {
        let Some(first) = command.first() else {
            return;
        };
        if first.dynamic() {
            self.opaque(Construct::WrapperLine);
            return;
        }
        // git's `prepare_shell_cmd`: these characters make it a shell's line.
        if !first
            .text
            .contains(|c: char| "|&;<>()$`\\\"' \t\n*?[#~=%".contains(c))
        {
            // Read one level down, as a line would be: a command that runs one that runs one…
            // ends at the reader's depth.
            if depth + 1 > MAX_DEPTH {
                self.opaque(Construct::TooDeep);
            } else {
                self.unwrap_wrappers(command, scope, false, depth + 1);
            }
            return;
        }
        // With no words after it, the line alone (git adds `"$@"` only before arguments).
        let line = if command.len() == 1 {
            first.text.clone()
        } else {
            format!("{} \"$@\"", first.text)
        };
        let mut words = vec![Word::literal("-c"), Word::literal(&line)];
        words.extend_from_slice(command);
        self.shell(&words, scope, depth);
    }
}

impl Walker<'_> {
    /// The files a program that reads its operands names (permission/programs.json `reads`):
    /// each is judged as the read tool would judge it, whatever rule allows the command.
    pub(super) fn operand_reads(
        &mut self,
        program: &str,
        reads: &'static Reads,
        args: &[Word],
        scope: &Scope<'_>,
    ) {
        let part = || {
            std::iter::once(program)
                .chain(args.iter().map(|w| w.text.as_str()))
                .collect::<Vec<_>>()
                .join(" ")
        };
        for file in read_operands(reads, args) {
            self.read_target(file, scope, false, &part());
        }
        // Files and folders its options name (`grep -f FILE`, `jq -L DIR`), in any spelling.
        for (options, whole) in [(&reads.file_options, false), (&reads.tree_options, true)] {
            for (file, _) in super::walk::option_values(args, options) {
                self.read_target(&file, scope, whole, &part());
            }
        }
    }
}

/// Whether a program names files of a repository by revision (`git show HEAD:path`): its
/// read-only grammar, or one of its subcommands', takes revisions.
pub(super) fn names_revisions(program: &str) -> bool {
    fn takes_revisions(grammar: &crate::spec::types::Grammar) -> bool {
        matches!(grammar.operands, crate::spec::types::OperandKind::Revision)
            || grammar
                .subcommands
                .iter()
                .any(|(_, subcommand)| takes_revisions(subcommand))
    }
    programs::read_only(program).is_some_and(takes_revisions)
}

/// Whether a grammar's program may read the folder it runs in without naming it: its operands
/// (or a subcommand's) name files or folders, so with none it reads that folder (`ls`, `git
/// log`, `grep -r x`); `echo`, `pwd` or `date` read none.
fn reads_where_it_runs(grammar: &crate::spec::types::Grammar) -> bool {
    use crate::spec::types::OperandKind;
    matches!(
        grammar.operands,
        OperandKind::List | OperandKind::Path | OperandKind::Tree | OperandKind::Revision
    ) || grammar
        .subcommands
        .iter()
        .any(|(_, subcommand)| reads_where_it_runs(subcommand))
}

/// The words a program that reads its operands takes as its pattern — its first operand, unless
/// a pattern option is given anywhere, and the values of its pattern options but a file's
/// (`-f`, `--file`, gawk's `-E`): text (`grep -rn '.ssh/id_rsa' src`), not paths it reads.
pub(super) fn pattern_words<'w>(program: &str, args: &'w [Word]) -> Vec<&'w Word> {
    let Some(reads) = programs::reads_of(program).filter(|r| r.pattern_first) else {
        return Vec::new();
    };
    // A pattern option whose value is a file the program reads (grep's and awk's `-f`, gawk's
    // `-E` and `-i`), not text.
    let names_a_file = |o: &str| reads.file_options.iter().any(|f| f.as_ref() == o);
    // Whether a pattern option may be given anywhere, in any spelling: whole, joined, a GNU
    // prefix (`--reg=`), a letter in a cluster (`-ie`), or a word known only when it runs.
    let option_given = args.iter().any(|w| {
        let t = w.text.as_str();
        w.dynamic()
            || reads.pattern_options.iter().any(|o| {
                let o = o.as_ref();
                if let (Some(long), Some(given)) = (o.strip_prefix("--"), t.strip_prefix("--")) {
                    let name = given.split('=').next().unwrap_or(given);
                    !name.is_empty() && long.starts_with(name)
                } else if let (Some(letter), false) = (o.strip_prefix('-'), t.starts_with("--")) {
                    letter.chars().count() == 1
                        && t.starts_with('-')
                        && t.get(1..).is_some_and(|cluster| cluster.contains(letter))
                } else {
                    false
                }
            })
    });
    let mut out = Vec::new();
    let mut first_taken = option_given;
    // Words still to pass over as an option's values (`--arg NAME VALUE`: two).
    let mut values_left = 0usize;
    let mut pattern_next = false;
    let mut ended = false;
    for w in args {
        if std::mem::take(&mut pattern_next) {
            out.push(w);
            continue;
        }
        if values_left > 0 {
            values_left -= 1;
            continue;
        }
        let t = w.text.as_str();
        if w.dynamic() {
            continue;
        }
        if !ended && t == "--" {
            ended = true;
            continue;
        }
        if !ended && t.len() > 1 && t.starts_with('-') {
            if let Some(option) = reads.pattern_options.iter().find(|o| t == o.as_ref()) {
                pattern_next = !names_a_file(option);
                values_left = usize::from(names_a_file(option));
            } else if reads
                .pattern_options
                .iter()
                .any(|o| !names_a_file(o) && t.starts_with(o.as_ref()))
            {
                out.push(w);
            } else if reads.pairs.iter().any(|v| v == t) {
                values_left = 2;
            } else if reads
                .values
                .iter()
                .chain(reads.file_options.iter())
                .chain(reads.tree_options.iter())
                .any(|v| v == t)
            {
                // A value, or a file or folder it reads (`jq -L DIR`): not the pattern.
                values_left = 1;
            }
            continue;
        }
        if !first_taken {
            first_taken = true;
            out.push(w);
        }
    }
    out
}

/// The operands that name files: after the options and their values, the pattern left out when
/// it comes first (unless an option gives it); `-` (the input) names none.
fn read_operands<'w>(reads: &Reads, args: &'w [Word]) -> Vec<&'w Word> {
    let mut operands = Vec::new();
    let mut pattern_given = false;
    let mut ended = false;
    let mut value_next = false;
    for w in args {
        if std::mem::take(&mut value_next) {
            continue;
        }
        let t = w.text.as_str();
        let fixed = !w.dynamic();
        if !ended && fixed && t == "--" {
            ended = true;
            continue;
        }
        if !ended && fixed && t.len() > 1 && t.starts_with('-') {
            let name = t.split('=').next().unwrap_or(t);
            let cluster = t.strip_prefix('-').filter(|c| !c.starts_with('-'));
            pattern_given |= reads.pattern_options.iter().any(|o| {
                o == name
                    || o.strip_prefix('-').is_some_and(|letter| {
                        letter.chars().count() == 1 && cluster.is_some_and(|c| c.contains(letter))
                    })
            });
            value_next = !t.contains('=')
                && [&reads.values, &reads.file_options, &reads.tree_options]
                    .iter()
                    .any(|options| options.iter().any(|v| v == t));
            continue;
        }
        operands.push(w);
    }
    if reads.pattern_first && !pattern_given && !operands.is_empty() {
        operands.remove(0);
    }
    operands.retain(|w| w.text != "-");
    operands
}

/// Whether an expansion stands first in a word.
fn leads_with_expansion(w: &Word) -> bool {
    !matches!(w.first_piece(), Some(PieceView::Text { text, .. }) if !text.is_empty())
}

/// The word after its first `skip` characters.
fn skipped(w: &Word, skip: usize) -> Word {
    if skip == 0 {
        return w.clone();
    }
    let rest: String = w.text.chars().skip(skip).collect();
    strip_word_prefix(w, skip, &rest)
}
