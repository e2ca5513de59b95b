//! Every command a line runs, read plainly (hardline.json `plain`), and what the hardline and the
//! hidden writes make of it.
//!
//! A line is read by [`shell::read`]; then each command is unwrapped: wrappers with their own
//! option grammars (`sudo -Eu root`, `timeout 5`, `env -S '…'`, `flock -c '…' f`, `xargs`,
//! `find -exec`, `busybox`, …), a shell's `-c` line read again with its `$0`, `$1`, … (in any
//! option order), `eval`, `source`, `trap`, a shell reading its input and the other constructs of
//! `plain.opaque` called opaque. Each operand is read as the path it names: quotes removed, `~`,
//! `~user`, `$HOME`, `$PWD`, the line's own variables and `for` words, the folder a `cd` moved
//! to, a symbolic link the line made, `..` resolved. A glob is every path it can match.
//!
//! A hardline entry matches a command when all its conditions hold; when one can be decided only
//! when the line runs (an operand or an option from an expansion), the command is an
//! [`Analysis::unknown`]: auto refuses it and the other modes ask.

use super::hardline::Hit;
use super::shell::{self, Construct, Piece, Reading, Word, MAX_DEPTH};
use super::wildcard;
use crate::spec::spec;
use crate::spec::types::{HardCommand, HardlineFile, TargetSet, Wrapper};

/// What a line runs, read plainly.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Analysis {
    /// The first construct that could not be read exactly.
    pub opaque: Option<Construct>,
    /// Hardline entries that refuse a command.
    pub hits: Vec<Hit>,
    /// Hardline entries that would refuse a command if its target or option were what it may be
    /// when it runs, and writes whose file is not known.
    pub unknown: Vec<Hit>,
    /// Every command of the line as rules see it (quotes removed).
    pub commands: Vec<String>,
    /// Files the line writes (redirections and writing programs), absolute, with the part of the
    /// line that writes each.
    pub writes: Vec<(String, String)>,
    /// The words of the commands' arguments (or the values inside them, after `=`, `:` or `@`)
    /// that the caller's `guarded` test picked: paths a command may read that a rule guards.
    pub guarded: Vec<String>,
}

/// Where the line runs: the project root and the person's home, when known.
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    /// The project root, absolute.
    pub root: &'a str,
    /// The person's home folder, when known.
    pub home: Option<&'a str>,
}

/// Reads a line and everything it runs.
pub fn analyse(line: &str, place: Place<'_>) -> Analysis {
    analyse_guarded(line, place, &|_| false)
}

/// [`analyse`], keeping in [`Analysis::guarded`] the argument words (and values inside them)
/// for which `guarded` says yes.
pub fn analyse_guarded(line: &str, place: Place<'_>, guarded: &dyn Fn(&str) -> bool) -> Analysis {
    let reading = shell::read(line);
    let mut walker = Walker {
        guarded,
        h: spec().hardline,
        place,
        out: Analysis::default(),
        cwds: Some(vec![place.root.to_string()]),
        links: Vec::new(),
        links_lost: false,
    };
    walker.out.commands = reading
        .commands
        .iter()
        .filter(|c| !c.words.is_empty())
        .map(shell::Command::text)
        .collect();
    let scope = Scope::new(&reading, Some(vec![Some("bash".to_string())]));
    walker.reading(&reading, &scope, 0);
    walker.out
}

/// The values known in one line: its variables, its positional parameters (`None`: unknown).
struct Scope<'a> {
    reading: &'a Reading,
    positional: Option<Vec<Option<String>>>,
    /// `{}` of a `find -exec`: the paths it stands for.
    find: Vec<String>,
    /// Names some command of the reading names as a word (`read X`, `unset X`, `printf -v X`):
    /// their values are not known. Made when a variable is first looked up.
    mentioned: std::cell::OnceCell<std::collections::BTreeSet<String>>,
}

impl<'a> Scope<'a> {
    fn new(reading: &'a Reading, positional: Option<Vec<Option<String>>>) -> Scope<'a> {
        Scope {
            reading,
            positional,
            find: Vec::new(),
            mentioned: std::cell::OnceCell::new(),
        }
    }

    fn mentions(&self, name: &str) -> bool {
        self.mentioned
            .get_or_init(|| {
                let mut mentioned = std::collections::BTreeSet::new();
                for c in &self.reading.commands {
                    for w in c.argv().iter().skip(1) {
                        let t = w.text.as_str();
                        let name = shell::assignment_name(t)
                            .or_else(|| t.split('[').next().filter(|n| shell::is_name(n)));
                        if let Some(n) = name {
                            mentioned.insert(n.to_string());
                        }
                    }
                }
                mentioned
            })
            .contains(name)
    }
}

/// A name `find -exec`'s `{}` is read as (no variable has it).
const FOUND: &str = "{}";

/// At most this many values of one word, folders the line may be in and links it makes are
/// followed; more is unknown.
const MAX_VALUES: usize = 32;

/// A variable whose value names another variable is followed this deep; deeper is unknown.
const MAX_INDIRECTION: usize = 8;

struct Walker<'a> {
    /// Which argument words the caller wants kept (see [`analyse_guarded`]).
    guarded: &'a dyn Fn(&str) -> bool,
    h: &'static HardlineFile,
    place: Place<'a>,
    out: Analysis,
    /// The folders relative paths may mean (`None`: unknown).
    cwds: Option<Vec<String>>,
    /// Symbolic links the line makes: (link, target), both absolute.
    links: Vec<(String, String)>,
    /// The line makes links that are not followed: no path is known.
    links_lost: bool,
}

/// A three-valued answer: a condition holds, may hold when the line runs, or does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holds {
    Yes,
    Maybe,
    No,
}

impl Walker<'_> {
    fn opaque(&mut self, c: Construct) {
        if self.out.opaque.is_none() {
            self.out.opaque = Some(c);
        }
    }

    fn hit(&mut self, e: &HardCommand, part: String, holds: Holds) {
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

    fn unsafe_variable(&self, name: &str) -> bool {
        self.h
            .plain
            .unsafe_variables
            .iter()
            .any(|p| wildcard::matches(p, name))
    }

    fn reading(&mut self, reading: &Reading, scope: &Scope<'_>, depth: usize) {
        if let Some(c) = reading.opaque {
            self.opaque(c);
        }
        if let Some(name) = &reading.self_calling {
            for e in self.h.commands.iter().filter(|e| e.self_calling) {
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
        for cmd in &reading.commands {
            if cmd.assignments().any(|(n, _)| self.unsafe_variable(n)) {
                self.opaque(Construct::UnsafeVariable);
            }
            let fed = cmd.piped || cmd.redirects.iter().any(|r| r.feeds_input());
            for r in cmd.redirects.iter().filter(|r| r.feeds_input()) {
                if matches!(r.op, shell::RedirectOp::Read | shell::RedirectOp::ReadWrite) {
                    self.secret_read(&r.target, scope);
                }
            }
            for r in cmd.redirects.iter().filter(|r| r.writes_file()) {
                let part = format!("{} {}", r.op.as_str(), r.target.text);
                self.write_target(&r.target, scope, &part);
                self.disk_redirect(&r.target, scope, &part);
            }
            self.unwrap(cmd.argv(), scope, fed, depth);
        }
    }

    /// A redirection into a disk.
    fn disk_redirect(&mut self, target: &Word, scope: &Scope<'_>, part: &str) {
        for e in self.h.redirects.iter() {
            let Some(set) = self.h.sets.get(&e.targets) else {
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

    fn write_target(&mut self, target: &Word, scope: &Scope<'_>, part: &str) {
        match self.targets(target, scope) {
            Some(paths) => {
                for p in paths {
                    self.out.writes.push((p, part.to_string()));
                }
            }
            None => self.out.unknown.push(Hit {
                entry: "write".into(),
                reason: String::new(),
                part: part.to_string(),
            }),
        }
    }

    /// The commands `words` runs, wrappers unwrapped.
    fn unwrap(&mut self, words: &[Word], scope: &Scope<'_>, fed: bool, depth: usize) {
        let Some(first) = words.first() else { return };
        // A command name from an expansion or a glob (`/bin/r?`) is known only when it runs.
        if first.dynamic() || first.glob() {
            self.opaque(Construct::CommandNameExpansion);
            return;
        }
        let program = shell::program_name(&first.text);
        let args = words.get(1..).unwrap_or(&[]);
        let plain = &self.h.plain;
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
                return;
            }
            _ => {}
        }
        if let Some(construct) = plain.opaque.get(program) {
            self.opaque(Construct::parse(construct).unwrap_or(Construct::ShellState));
            return;
        }
        if plain.shells.iter().any(|s| names(s, program)) {
            self.shell(args, scope, depth);
            return;
        }
        if plain.other_shells.iter().any(|s| names(s, program)) {
            self.opaque(Construct::OtherShell);
            return;
        }
        if program == "find" {
            self.find(args, scope, fed, depth);
        }
        if let Some(w) = plain.wrappers.get(program) {
            self.wrapper(w, args, scope, fed, depth);
            return;
        }
        self.judge(program, words, scope);
    }

    /// A POSIX shell: its `-c` line read again, with `$0 $1 …` after it; without `-c` it reads a
    /// file or its input.
    fn shell(&mut self, args: &[Word], scope: &Scope<'_>, depth: usize) {
        let values = &self.h.plain.shell_values;
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
        let positional: Vec<Option<String>> = rest
            .iter()
            .map(|w| match self.values(w, scope) {
                Some(v) if v.len() == 1 => v.into_iter().next(),
                _ => None,
            })
            .collect();
        let positional = if positional.is_empty() {
            vec![Some("sh".to_string())]
        } else {
            positional
        };
        self.line(&line.text, Some(positional), depth);
    }

    /// A line run by a shell inside the line.
    fn line(&mut self, text: &str, positional: Option<Vec<Option<String>>>, depth: usize) {
        if depth + 1 > MAX_DEPTH {
            self.opaque(Construct::TooDeep);
            return;
        }
        let reading = shell::read_nested(text, depth + 1);
        let inner = Scope::new(&reading, positional);
        self.reading(&reading, &inner, depth + 1);
    }

    /// Words joined by spaces and run as a line (`watch`, `sudo -s`).
    fn joined(&mut self, words: &[Word], depth: usize) {
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
        self.line(&text, Some(vec![Some("sh".into())]), depth);
    }

    fn wrapper(
        &mut self,
        spec: &Wrapper,
        args: &[Word],
        scope: &Scope<'_>,
        fed: bool,
        depth: usize,
    ) {
        // A `chdir` option moves the wrapped command, not the line: the folders are put back.
        let mut moved: Option<Option<Vec<String>>> = None;
        self.wrapper_body(spec, args, scope, fed, depth, &mut moved);
        if let Some(cwds) = moved {
            self.cwds = cwds;
        }
    }

    /// Sets the folder the wrapped command runs in, keeping the line's in `moved`.
    fn run_in(&mut self, dir: &Word, scope: &Scope<'_>, moved: &mut Option<Option<Vec<String>>>) {
        let to = self.targets(dir, scope);
        let before = std::mem::replace(&mut self.cwds, to);
        moved.get_or_insert(before);
    }

    fn wrapper_body(
        &mut self,
        spec: &Wrapper,
        args: &[Word],
        scope: &Scope<'_>,
        fed: bool,
        depth: usize,
        moved: &mut Option<Option<Vec<String>>>,
    ) {
        let scan = scan_wrapper(spec, args);
        let has_lines = scan.parts.iter().any(|p| matches!(p, WrapperPart::Line(_)));
        let rest = scan.command(args, has_lines);
        let mut lines: Vec<Word> = Vec::new();
        for part in scan.parts {
            match part {
                WrapperPart::Splits => {
                    self.opaque(Construct::WrapperLine);
                    return;
                }
                WrapperPart::Chdir(dir) => self.run_in(&dir, scope, moved),
                WrapperPart::Line(line) => lines.push(line),
                WrapperPart::Assignment(name) => {
                    if self.unsafe_variable(&name) {
                        self.opaque(Construct::UnsafeVariable);
                    }
                }
                WrapperPart::Joined(at) => {
                    self.joined(args.get(at..).unwrap_or(&[]), depth);
                    return;
                }
            }
        }

        for line in &lines {
            if line.dynamic() {
                self.opaque(Construct::WrapperLine);
            } else {
                self.line(&line.text, Some(vec![Some("sh".into())]), depth);
            }
        }
        if spec.no_command {
            if lines.is_empty() && !rest.is_empty() {
                self.opaque(Construct::WrapperLine);
            }
            return;
        }
        if spec.joins {
            self.joined(rest, depth);
            return;
        }
        if spec.input {
            // Operands come from its input: the command gets one more, unknown; `{}` and the
            // words after `:::` are among them.
            let mut cmd: Vec<Word> = rest
                .iter()
                .take_while(|w| !matches!(w.text.as_str(), ":::" | "::::" | ":::+"))
                .map(|w| {
                    if w.text.contains("{}") {
                        unknown_word()
                    } else {
                        w.clone()
                    }
                })
                .collect();
            cmd.push(unknown_word());
            self.unwrap(&cmd, scope, fed, depth);
            return;
        }
        self.unwrap(rest, scope, fed, depth);
    }

    /// `find`: the commands of `-exec`, `-execdir`, `-ok` and `-okdir`, their `{}` standing for
    /// the start points and everything under them.
    fn find(&mut self, args: &[Word], scope: &Scope<'_>, fed: bool, depth: usize) {
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
        let found = found.filter(|f| f.len() <= MAX_VALUES).map(|f| {
            f.iter()
                .flat_map(|p| {
                    let base = p.trim_end_matches('/').to_string();
                    [p.clone(), format!("{base}/*"), format!("{base}/*/*")]
                })
                .collect::<Vec<_>>()
        });
        while let Some(w) = args.get(i) {
            i += 1;
            if !matches!(w.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                continue;
            }
            let mut cmd = Vec::new();
            while let Some(a) = args.get(i) {
                i += 1;
                if a.text == ";" || (a.text == "+" && cmd.last().is_some_and(is_found)) {
                    break;
                }
                cmd.push(if a.text.contains(FOUND) {
                    found_word()
                } else {
                    a.clone()
                });
            }
            let inner = Scope {
                reading: scope.reading,
                positional: scope.positional.clone(),
                find: found.clone().unwrap_or_default(),
                mentioned: scope.mentioned.clone(),
            };
            // Start points not known: neither is `{}`.
            let cmd: Vec<Word> = if found.is_none() {
                cmd.into_iter()
                    .map(|w| if is_found(&w) { unknown_word() } else { w })
                    .collect()
            } else {
                cmd
            };
            self.unwrap(&cmd, &inner, fed, depth);
        }
    }

    /// A plain command (program first): the hardline entries, the folder it moves to, the links
    /// and files it makes.
    fn judge(&mut self, program: &str, words: &[Word], scope: &Scope<'_>) {
        let args = words.get(1..).unwrap_or(&[]);
        // The command as the refusal names it, written only when something is found.
        let part = || {
            words
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let h = self.h;
        let help = args
            .first()
            .is_some_and(|a| matches!(a.text.as_str(), "--help" | "--version"));
        if !help {
            for e in h.commands.iter() {
                if e.programs.iter().any(|p| names(p, program)) {
                    let holds = self.entry(e, args, scope);
                    if holds != Holds::No {
                        self.hit(e, part(), holds);
                    }
                }
            }
        }
        self.secret_reads(args, scope);
        for w in args.iter().filter(|w| !w.dynamic()) {
            let t = w.text.as_str();
            for v in std::iter::once(t).chain(values_inside(t)) {
                if (self.guarded)(v) {
                    self.out.guarded.push(v.to_string());
                }
            }
        }
        if h.writes
            .iter()
            .any(|w| w.programs.iter().any(|p| names(p, program)))
        {
            self.hidden_writes(program, args, scope, &part());
        }
        if h.plain.changes_directory.iter().any(|c| names(c, program)) {
            self.cd(args, scope);
        }
        if h.plain.links.iter().any(|c| names(c, program)) {
            self.link(args, scope);
        }
    }

    /// Operands that name a path no tool may read (keys, a process's environment): a command
    /// reading them is refused as the read tool would be.
    fn secret_reads(&mut self, args: &[Word], scope: &Scope<'_>) {
        for w in args {
            self.secret_read(w, scope);
            if w.dynamic() {
                continue;
            }
            let t = w.text.as_str();
            for value in values_inside(t) {
                if !value.is_empty() && (secret_may(value) || value.contains(['*', '?', '['])) {
                    let skip = t.chars().count() - value.chars().count();
                    self.secret_read(&strip_word_prefix(w, skip, value), scope);
                }
            }
        }
    }

    fn secret_read(&mut self, w: &Word, scope: &Scope<'_>) {
        // Most words name nothing secret: look closer only at those that may. A glob may name
        // one without spelling it (`/proc/self/envi*`).
        if !w.dynamic() && !w.glob() && !secret_may(&w.text) {
            return;
        }
        // A value known only when it runs, between known text (`/proc/$(pgrep x)/environ`),
        // stands for any name there: the word is read as that glob.
        let paths = match self.targets(w, scope) {
            Some(paths) => paths,
            None => match shape(w) {
                Some(glob) => match self.resolve_all(&glob) {
                    Some(paths) => paths,
                    None => return,
                },
                None => return,
            },
        };
        for p in &paths {
            if p.contains(['*', '?', '[']) {
                if let Some(hit) = secret_glob(p, self.place.home) {
                    self.out.hits.push(hit);
                    return;
                }
            }
        }
        for p in paths.iter().filter(|p| secret_may(p)) {
            if let Some(found) =
                super::hardline::check_path(p, super::RiskClass::Read, self.place.home)
                    .filter(|f| !f.ask)
            {
                self.out.hits.push(found.hit);
                return;
            }
        }
    }

    /// Whether an entry's conditions hold for a command's arguments.
    fn entry(&mut self, e: &HardCommand, args: &[Word], scope: &Scope<'_>) -> Holds {
        let opts = Options::read(args, |w| self.values(w, scope));
        if e.unless.iter().any(|f| opts.has(f)) {
            return Holds::No;
        }
        let mut maybe = false;
        let mut need = |h: Holds| -> bool {
            match h {
                Holds::Yes => true,
                Holds::Maybe => {
                    maybe = true;
                    true
                }
                Holds::No => false,
            }
        };
        if !e.flags.is_empty() {
            let h = if e.flags.iter().any(|f| opts.has(f)) {
                Holds::Yes
            } else if opts.dynamic {
                Holds::Maybe
            } else {
                Holds::No
            };
            if !need(h) {
                return Holds::No;
            }
        }
        if !e.subcommands.is_empty() {
            let h = match opts.operands.first() {
                Some(w) if w.dynamic() => Holds::Maybe,
                Some(w) if e.subcommands.iter().any(|s| *s == w.text) => Holds::Yes,
                _ if e.subcommands.iter().any(|s| opts.has(s)) => Holds::Yes,
                _ => Holds::No,
            };
            if !need(h) {
                return Holds::No;
            }
        }
        if !e.operands.is_empty() {
            let h =
                if opts.operands.iter().any(|w| {
                    !w.dynamic() && e.operands.iter().any(|p| wildcard::matches(p, &w.text))
                }) {
                    Holds::Yes
                } else if opts.operands.iter().any(|w| w.dynamic()) {
                    Holds::Maybe
                } else {
                    Holds::No
                };
            if !need(h) {
                return Holds::No;
            }
        }
        if let Some(set_name) = &e.targets {
            let Some(set) = self.h.sets.get(set_name) else {
                return Holds::No;
            };
            let mut h = Holds::No;
            let operands: &[&Word] = match e.target_operand.as_deref() {
                Some("last") if opts.operands.len() > 1 => {
                    opts.operands.get(opts.operands.len() - 1..).unwrap_or(&[])
                }
                Some("last") => &[],
                _ => &opts.operands,
            };
            for w in operands {
                let word = match &e.target_prefix {
                    Some(prefix) if !w.dynamic() => match w.text.strip_prefix(prefix.as_ref()) {
                        Some(rest) => strip_word_prefix(w, prefix.chars().count(), rest),
                        None => continue,
                    },
                    _ => (*w).clone(),
                };
                match self.targets(&word, scope) {
                    Some(paths) if paths.iter().any(|p| self.in_set(set, p)) => {
                        h = Holds::Yes;
                        break;
                    }
                    Some(_) => {}
                    None => h = Holds::Maybe,
                }
            }
            if !need(h) {
                return Holds::No;
            }
        }
        if maybe {
            Holds::Maybe
        } else {
            Holds::Yes
        }
    }

    /// The files a writing program names (hardline.json `writes`).
    fn hidden_writes(&mut self, program: &str, args: &[Word], scope: &Scope<'_>, part: &str) {
        for wr in self.h.writes.iter() {
            if !wr.programs.iter().any(|p| names(p, program)) {
                continue;
            }
            let opts = Options::read(args, |w| self.values(w, scope));
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
            // Option values: `-o f`, `-of`, `--output f`, `--output=f`, an abbreviation too.
            let mut i = 0;
            while let Some(w) = args.get(i) {
                i += 1;
                let t = w.text.as_str();
                for o in wr.options.iter() {
                    let o = o.as_ref();
                    let long = o.starts_with("--");
                    if t == o || (long && t.len() > 3 && o.starts_with(t) && !t.contains('=')) {
                        if let Some(v) = args.get(i) {
                            self.write_target(v, scope, part);
                        }
                        i += 1;
                        break;
                    }
                    if let Some(v) = t.strip_prefix(o) {
                        let v = if long { v.strip_prefix('=') } else { Some(v) };
                        if let Some(v) = v.filter(|v| !v.is_empty()) {
                            let word = strip_word_prefix(w, t.len() - v.len(), v);
                            self.write_target(&word, scope, part);
                            break;
                        }
                    }
                    if long {
                        if let Some((name, v)) = t.split_once('=') {
                            if name.len() > 3 && o.starts_with(name) {
                                let word = strip_word_prefix(w, name.len() + 1, v);
                                self.write_target(&word, scope, part);
                                break;
                            }
                        }
                    }
                }
            }
            let operands: Vec<&Word> = opts
                .operands
                .iter()
                .skip(usize::from(!wr.subcommands.is_empty()))
                .copied()
                .collect();
            let chosen: Vec<&Word> = match wr.operands.as_deref() {
                Some("all") => operands,
                Some("last") if operands.len() > 1 => {
                    operands.last().copied().into_iter().collect()
                }
                _ => Vec::new(),
            };
            for w in chosen {
                match &wr.prefix {
                    Some(p) => {
                        if let Some(rest) = w.text.strip_prefix(p.as_ref()) {
                            let word = strip_word_prefix(w, p.len(), rest);
                            self.write_target(&word, scope, part);
                        } else if w.dynamic() {
                            self.write_target(w, scope, part);
                        }
                    }
                    None => self.write_target(w, scope, part),
                }
            }
        }
    }

    /// `cd`: later relative paths may mean the folder it moves to.
    fn cd(&mut self, args: &[Word], scope: &Scope<'_>) {
        let operand = args
            .iter()
            .find(|w| !w.text.starts_with('-') || w.text == "-");
        let to = match operand {
            None => self.resolve_all("~"),
            Some(w) if w.text == "-" => None,
            Some(w) => self.targets(w, scope),
        };
        match (to, self.cwds.as_mut()) {
            (Some(paths), Some(cwds)) => {
                for p in paths {
                    if !cwds.contains(&p) {
                        cwds.push(p);
                    }
                }
                if cwds.len() > MAX_VALUES {
                    self.cwds = None;
                }
            }
            _ => self.cwds = None,
        }
    }

    /// `ln -s TARGET LINK`: a later path through the link reaches the target.
    fn link(&mut self, args: &[Word], scope: &Scope<'_>) {
        let opts = Options::read(args, |w| self.values(w, scope));
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
            // Links that cannot be followed: where any path leads is not known.
            _ => self.links_lost = true,
        }
    }

    /// The values a word may have when it runs (globs kept as globs); `None` when one is unknown.
    fn values(&self, w: &Word, scope: &Scope<'_>) -> Option<Vec<String>> {
        self.values_at(w, scope, 0)
    }

    fn values_at(&self, w: &Word, scope: &Scope<'_>, depth: usize) -> Option<Vec<String>> {
        let mut acc = vec![String::new()];
        for piece in &w.pieces {
            let options: Vec<String> = match piece {
                Piece::Text { text, .. } => vec![text.clone()],
                Piece::Parameter { name, quoted } => {
                    let vals = self.parameter(name, scope, depth)?;
                    if *quoted {
                        vals
                    } else {
                        vals.iter()
                            .flat_map(|v| v.split_whitespace().map(str::to_string))
                            .collect()
                    }
                }
                Piece::Substitution { .. } => return None,
            };
            if options.is_empty() {
                continue;
            }
            let mut next = Vec::new();
            for a in &acc {
                for o in &options {
                    next.push(format!("{a}{o}"));
                }
            }
            if next.len() > MAX_VALUES {
                return None;
            }
            acc = next;
        }
        Some(acc)
    }

    /// A parameter's possible values.
    fn parameter(&self, name: &str, scope: &Scope<'_>, depth: usize) -> Option<Vec<String>> {
        if name == FOUND {
            return (!scope.find.is_empty()).then(|| scope.find.clone());
        }
        if let Ok(n) = name.parse::<usize>() {
            let pos = scope.positional.as_ref()?;
            return match pos.get(n) {
                Some(v) => v.clone().map(|v| vec![v]),
                None => Some(vec![String::new()]),
            };
        }
        match name {
            "@" | "*" => {
                let pos = scope.positional.as_ref()?;
                let vals: Option<Vec<String>> = pos.iter().skip(1).cloned().collect();
                let vals = vals?;
                return Some(if vals.is_empty() {
                    vec![String::new()]
                } else {
                    vals
                });
            }
            // A number known only when it runs (a process id, a count): read as a glob of any
            // number, so `/proc/$PPID/environ` is every process's environment.
            "#" | "?" | "$" | "!" | "PPID" | "BASHPID" | "UID" | "EUID" | "RANDOM" | "SRANDOM"
            | "LINENO" | "SECONDS" => return Some(vec!["[0-9]*".into()]),
            "-" => return Some(vec!["hB".into()]),
            "HOME" => return self.resolve_all("~"),
            "PWD" => return self.cwds.clone(),
            _ => {}
        }
        // The line's own variables: every value any binding gives, unless some command names
        // the variable (read, printf -v, unset, getopts, …).
        if scope.mentions(name) || depth >= MAX_INDIRECTION {
            return None;
        }
        let mut out = Vec::new();
        let mut bound = false;
        for b in scope.reading.bindings.iter().filter(|b| b.name == name) {
            bound = true;
            for v in b.values.as_ref()? {
                if v.pieces
                    .iter()
                    .any(|p| matches!(p, Piece::Parameter { name: n, .. } if n == name))
                {
                    return None;
                }
                out.extend(self.values_at(v, scope, depth + 1)?);
                if out.len() > MAX_VALUES {
                    return None;
                }
            }
        }
        bound.then_some(out)
    }

    /// The absolute paths a word may name (`None`: unknown).
    fn targets(&self, w: &Word, scope: &Scope<'_>) -> Option<Vec<String>> {
        let mut out = Vec::new();
        for v in self.values(w, scope)? {
            let quoted_tilde = matches!(w.pieces.first(), Some(Piece::Text { quoted: true, text }) if text.starts_with('~'));
            let v = if quoted_tilde {
                // A quoted `~` is a file of that name.
                format!("./{v}")
            } else {
                v
            };
            out.extend(self.resolve_all(&v)?);
            if out.len() > MAX_VALUES {
                return None;
            }
        }
        Some(out)
    }

    /// A path read against every folder the line may be in, its links followed.
    fn resolve_all(&self, p: &str) -> Option<Vec<String>> {
        if self.links_lost {
            return None;
        }
        // `~+` is the folder the line is in, `~-` the one before (not known).
        if let Some(rest) = p
            .strip_prefix("~+")
            .filter(|r| r.is_empty() || r.starts_with('/'))
        {
            return Some(
                self.cwds
                    .as_ref()?
                    .iter()
                    .map(|c| resolve(self.place, "/", &format!("{c}{rest}")))
                    .collect(),
            );
        }
        if p.strip_prefix("~-")
            .is_some_and(|r| r.is_empty() || r.starts_with('/'))
        {
            return None;
        }
        let mut out = Vec::new();
        if p.starts_with('/') || p.starts_with('~') {
            out.push(resolve(self.place, "/", p));
        } else {
            for cwd in self.cwds.as_ref()? {
                out.push(resolve(self.place, cwd, p));
            }
        }
        let mut through = Vec::new();
        for path in &out {
            for (link, target) in &self.links {
                if let Some(rest) = path.strip_prefix(link.as_str()) {
                    if rest.is_empty() || rest.starts_with('/') {
                        through.push(resolve(self.place, "/", &format!("{target}/{rest}")));
                    }
                }
            }
        }
        out.extend(through);
        Some(out)
    }

    /// Whether a path (a glob) can name a path of the set, or all of a protected folder's
    /// contents (`~/*`, `/usr/.*`).
    fn in_set(&self, set: &TargetSet, path: &str) -> bool {
        let home = self.place.home.map(|h| h.trim_end_matches('/'));
        let exact = set
            .exact
            .iter()
            .map(|e| e.as_ref().to_string())
            .chain(home.filter(|h| !h.is_empty()).map(str::to_string));
        let dir = broad_contents(path);
        for e in exact {
            if path_meets(path, &e) || dir.is_some_and(|d| path_meets(d, &e)) {
                return true;
            }
        }
        set.patterns
            .iter()
            .any(|p| path_meets(path, p) || dir.is_some_and(|d| path_meets(d, p)))
    }
}

/// The options and operands of a command's arguments.
struct Options<'w> {
    flags: Vec<String>,
    words: Vec<String>,
    operands: Vec<&'w Word>,
    /// An argument is an expansion: it may be an option.
    dynamic: bool,
}

impl<'w> Options<'w> {
    /// Reads the arguments; `known` gives a dynamic word's values when the line fixes them.
    fn read(args: &'w [Word], known: impl Fn(&Word) -> Option<Vec<String>>) -> Options<'w> {
        let mut o = Options {
            flags: Vec::new(),
            words: Vec::new(),
            operands: Vec::new(),
            dynamic: false,
        };
        let mut ended = false;
        for w in args {
            let t = w.text.as_str();
            if w.dynamic() {
                // `find`'s `{}` is a path under a start point, never an option; nor is a
                // variable whose every value the line gives and none starts with `-`.
                let plain_values = known(w)
                    .is_some_and(|v| v.iter().all(|x| !x.is_empty() && !x.starts_with('-')));
                if !ended && !is_found(w) && !plain_values {
                    o.dynamic = true;
                }
                o.operands.push(w);
            } else if ended {
                o.operands.push(w);
            } else if t == "--" {
                ended = true;
            } else if let Some(long) = t.strip_prefix("--") {
                o.flags
                    .push(format!("--{}", long.split('=').next().unwrap_or(long)));
            } else if t.len() > 1
                && t.starts_with('-')
                && !t.chars().nth(1).is_some_and(|c| c.is_ascii_digit())
            {
                o.words.push(t.to_string());
                o.flags.extend(t.chars().skip(1).map(|c| format!("-{c}")));
            } else {
                o.operands.push(w);
            }
        }
        o
    }

    /// Whether an option is given: a short one in any cluster, a one-dash word (`-delete`)
    /// whole, a long one by any prefix GNU accepts (`--recur`).
    fn has(&self, f: &str) -> bool {
        if f.starts_with("--") {
            return self.flags.iter().any(|g| {
                g == f || (g.len() > 3 && g.starts_with("--") && f.starts_with(g.as_str()))
            });
        }
        if f.chars().count() == 2 {
            return self.flags.iter().any(|g| g == f);
        }
        self.words.iter().any(|w| w == f)
    }
}

/// `set` with operands or `--` changes `$1 $2 …`.
fn set_changes_parameters(args: &[Word]) -> bool {
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

/// The values written inside a word, each a suffix of it: after `=` (`--file=PATH`), after `:`
/// (`HEAD:.env`), a short option's (`-fPATH`), and each of these and the word after a leading
/// `@` (curl's `@PATH`).
fn values_inside(t: &str) -> impl Iterator<Item = &str> {
    let short = (t.starts_with('-') && !t.starts_with("--"))
        .then(|| t.get(2..))
        .flatten();
    let values = [
        t.split_once('=').map(|(_, v)| v),
        t.split_once(':').map(|(_, v)| v),
        short,
    ];
    let at = values
        .into_iter()
        .flatten()
        .chain(std::iter::once(t))
        .filter_map(|v| v.strip_prefix('@'));
    values.into_iter().flatten().chain(at)
}

/// A word with known text and pieces known only when it runs, as a glob: each unknown piece a
/// `*` (within one path segment, as a shell's glob). `None` for a word with no known text.
fn shape(w: &Word) -> Option<String> {
    let mut out = String::new();
    let mut known = false;
    for p in &w.pieces {
        match p {
            Piece::Text { text, .. } if !text.is_empty() => {
                known = true;
                out.push_str(text);
            }
            Piece::Text { .. } => {}
            _ => out.push('*'),
        }
    }
    known.then_some(out)
}

/// What a wrapper's own words say, in the order written, read by its option grammar
/// (`hardline.json` `plain.wrappers`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum WrapperPart {
    /// A word of its own from an unquoted expansion, which may split: where its command starts
    /// is known only when it runs.
    Splits,
    /// An option that moves the wrapped command's folder, with the folder.
    Chdir(Word),
    /// An option whose value is a line the wrapper runs (`flock -c LINE`).
    Line(Word),
    /// A variable it sets for the command (`env NAME=value`).
    Assignment(String),
    /// An option after which its words are joined into one line (`env -S`): they start here.
    Joined(usize),
}

/// A wrapper's words read: its parts, where its options end, and its first operand when it was
/// read on past it for a line option (GNU order).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WrapperScan {
    /// What its words say, in order.
    pub parts: Vec<WrapperPart>,
    /// The first word after its options (after `--` when it has one).
    pub end: usize,
    /// The first operand, when options were read after it.
    pub first_operand: Option<usize>,
}

impl WrapperScan {
    /// The words of the command it runs: from its first operand, or after its options — none
    /// when a line option gave its command and the operands are that option's.
    pub fn command<'w>(&self, args: &'w [Word], has_lines: bool) -> &'w [Word] {
        match self.first_operand {
            Some(c) if !has_lines => args.get(c..).unwrap_or(&[]),
            Some(_) => &[],
            None => args.get(self.end..).unwrap_or(&[]),
        }
    }
}

/// Reads a wrapper's arguments (the words after its name) by its grammar: options with their
/// values (`--opt=v`, `--opt v`, `-o v`, `-ov`, clusters), `--`, assignments, positional words,
/// and — for a wrapper with line options — options after its operands (GNU order). The one
/// reading of a wrapper's words: the hardline's walk and an approval's pattern both use it. It
/// stops at the first [`WrapperPart::Splits`] or [`WrapperPart::Joined`].
pub(crate) fn scan_wrapper(spec: &Wrapper, args: &[Word]) -> WrapperScan {
    let mut parts = Vec::new();
    let mut i = 0;
    let mut positional = spec.positional;
    // Where the command starts, when words after it are still read as options.
    let mut command: Option<usize> = None;
    let has = |list: &[crate::spec::types::Str], o: &str| list.iter().any(|x| x == o);
    let stop = |parts: Vec<WrapperPart>| WrapperScan {
        parts,
        end: args.len(),
        first_operand: None,
    };
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        // A wrapper's own word from an unquoted expansion may split into several (`timeout $T
        // -rf /` with T="5 rm"): where its command starts is known only when it runs.
        if command.is_none() && w.splits() {
            parts.push(WrapperPart::Splits);
            return stop(parts);
        }
        if t == "--" {
            i += 1;
            break;
        }
        if t == "-" {
            // `su -`: a login shell.
            i += 1;
            continue;
        }
        if let Some(long) = t.strip_prefix("--").filter(|l| !l.is_empty()) {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(v)),
                None => (t.to_string(), None),
            };
            if has(&spec.chdir, &name) {
                match value {
                    Some(v) => {
                        parts.push(WrapperPart::Chdir(strip_word_prefix(w, name.len() + 1, v)))
                    }
                    None => {
                        if let Some(v) = args.get(i + 1) {
                            parts.push(WrapperPart::Chdir(v.clone()));
                        }
                    }
                }
            }
            if has(&spec.line, &name) {
                match value {
                    Some(v) => parts.push(WrapperPart::Line(Word::literal(v))),
                    None => {
                        if let Some(v) = args.get(i + 1) {
                            parts.push(WrapperPart::Line(v.clone()));
                        }
                        i += 1;
                    }
                }
            } else if has(&spec.joined, &name) {
                parts.push(WrapperPart::Joined(i + 1));
                return stop(parts);
            } else if value.is_none() && has(&spec.value, &name) {
                i += 1;
            }
            i += 1;
            continue;
        }
        if t.starts_with('-') && t.len() > 1 {
            let cluster: Vec<char> = t.chars().skip(1).collect();
            for (k, c) in cluster.iter().enumerate() {
                let opt = format!("-{c}");
                let rest: String = cluster.get(k + 1..).unwrap_or(&[]).iter().collect();
                if has(&spec.line, &opt) {
                    if rest.is_empty() {
                        if let Some(v) = args.get(i + 1) {
                            parts.push(WrapperPart::Line(v.clone()));
                        }
                        i += 1;
                    } else {
                        parts.push(WrapperPart::Line(Word::literal(&rest)));
                    }
                    break;
                }
                if has(&spec.joined, &opt) {
                    parts.push(WrapperPart::Joined(i + 1));
                    return stop(parts);
                }
                if has(&spec.chdir, &opt) {
                    if rest.is_empty() {
                        if let Some(v) = args.get(i + 1) {
                            parts.push(WrapperPart::Chdir(v.clone()));
                        }
                    } else {
                        parts.push(WrapperPart::Chdir(strip_word_prefix(w, k + 2, &rest)));
                    }
                }
                if has(&spec.value, &opt) {
                    if rest.is_empty() {
                        i += 1;
                    }
                    break;
                }
            }
            i += 1;
            continue;
        }
        if spec.assignments {
            if let Some(name) = shell::assignment_name(t) {
                parts.push(WrapperPart::Assignment(name.to_string()));
                i += 1;
                continue;
            }
        }
        if positional > 0 {
            positional -= 1;
            i += 1;
            continue;
        }
        if !spec.line.is_empty() && command.is_none() {
            // Options may follow operands (GNU order): look on for a line option.
            command = Some(i);
            i += 1;
            continue;
        }
        if command.is_some() {
            i += 1;
            continue;
        }
        break;
    }
    WrapperScan {
        parts,
        end: i,
        first_operand: command,
    }
}

/// A word whose value is known only when it runs.
fn unknown_word() -> Word {
    Word {
        text: "$(…)".into(),
        pieces: vec![Piece::Substitution { quoted: true }],
    }
}

fn found_word() -> Word {
    Word {
        text: FOUND.into(),
        pieces: vec![Piece::Parameter {
            name: FOUND.into(),
            quoted: true,
        }],
    }
}

fn is_found(w: &Word) -> bool {
    w.text == FOUND
}

/// The word after its first `skip` characters (a prefix such as `of=` or `--output=`), its
/// pieces kept when the prefix is plain text.
fn strip_word_prefix(w: &Word, skip: usize, rest: &str) -> Word {
    let mut out = Word {
        text: rest.to_string(),
        pieces: Vec::new(),
    };
    let mut left = skip;
    for p in &w.pieces {
        match p {
            Piece::Text { text, quoted } if left > 0 => {
                let n = text.chars().count();
                if n <= left {
                    left -= n;
                } else {
                    let kept: String = text.chars().skip(left).collect();
                    left = 0;
                    out.pieces.push(Piece::Text {
                        text: kept,
                        quoted: *quoted,
                    });
                }
            }
            _ if left > 0 => return unknown_word(),
            other => out.pieces.push(other.clone()),
        }
    }
    if out.pieces.is_empty() {
        out.pieces.push(Piece::Text {
            text: String::new(),
            quoted: true,
        });
    }
    out
}

/// A home folder whose path is not known is read as this, so that `~/..` leaves it.
const SOME_HOME: &str = "/home/~home";

/// A path made absolute: `~` and `~user` expanded, relative paths against `cwd`, `.` and `..`
/// folded. With the home unknown, a path in it is written `~/…`.
pub fn resolve(place: Place<'_>, cwd: &str, path: &str) -> String {
    let home = place
        .home
        .map(|h| h.trim_end_matches('/'))
        .unwrap_or(SOME_HOME);
    let home = if home.is_empty() { "/" } else { home };
    let expanded = if let Some(rest) = path.strip_prefix('~') {
        let (user, tail) = match rest.find('/') {
            Some(k) => (rest.get(..k).unwrap_or(""), rest.get(k..).unwrap_or("")),
            None => (rest, ""),
        };
        match user {
            "" => format!("{home}{tail}"),
            "root" => format!("/root{tail}"),
            u => format!("/home/{u}{tail}"),
        }
    } else if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{cwd}/{path}")
    };
    let abs = super::normalize(&expanded);
    if place.home.is_none() {
        if abs == SOME_HOME {
            return "~".into();
        }
        if let Some(rest) = abs.strip_prefix(SOME_HOME).filter(|r| r.starts_with('/')) {
            return format!("~{rest}");
        }
    }
    abs
}

/// When the last segment of a glob matches all of a folder's entries (`*`, `.*`, `?*`), the
/// folder.
fn broad_contents(path: &str) -> Option<&str> {
    let (dir, last) = path.rsplit_once('/')?;
    let name = last.strip_prefix('.').unwrap_or(last);
    let t = tokens(name);
    let broad = t.contains(&Token::Star) && t.iter().all(|t| !matches!(t, Token::Char(_)));
    broad.then_some(if dir.is_empty() { "/" } else { dir })
}

/// Whether a text holds a literal piece of a path no tool may read (no case): one that holds none
/// names no such path.
fn secret_may(t: &str) -> bool {
    secret_fragments().iter().any(|f| {
        t.as_bytes()
            .windows(f.len())
            .any(|w| w.eq_ignore_ascii_case(f.as_bytes()))
    })
}

/// The literal pieces (three characters or more) of the paths no tool may read, in lower case,
/// made once: a word holding none of them names no such path.
fn secret_fragments() -> &'static [String] {
    static FRAGMENTS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    FRAGMENTS.get_or_init(|| {
        let mut out: Vec<String> = Vec::new();
        for e in spec().hardline.paths.iter() {
            if e.ask || !e.classes.iter().any(|c| c == "read") {
                continue;
            }
            for p in e.patterns.iter() {
                // The longest literal piece of the pattern stands for it.
                let longest = p
                    .split(['*', '?', '/'])
                    .max_by_key(|f| f.len())
                    .unwrap_or("")
                    .to_lowercase();
                if longest.len() >= 3 && !out.contains(&longest) {
                    out.push(longest);
                }
            }
        }
        out
    })
}

/// A glob's tokens with bash's rule for hidden names: a name starting with `.` is matched only by
/// a `.` spelled out, so a segment that starts with a wildcard cannot start with `.`.
fn hidden_names_spelled(glob: Vec<Token>) -> Vec<Token> {
    let mut out = Vec::with_capacity(glob.len() + 4);
    let mut segment_start = true;
    for t in glob {
        if segment_start {
            match t {
                Token::Star => {
                    out.push(Token::Class(vec!['.'], true));
                    out.push(Token::Star);
                }
                Token::Any => out.push(Token::Class(vec!['.'], true)),
                Token::Class(mut set, negated) => {
                    if negated {
                        set.push('.');
                    } else {
                        set.retain(|c| *c != '.');
                    }
                    out.push(Token::Class(set, negated));
                }
                other => out.push(other),
            }
        } else {
            out.push(t);
        }
        segment_start = out.last() == Some(&Token::Char('/'));
    }
    out
}

/// The refusing read entry (keys, a process's environment) a glob can name a path of, if any.
fn secret_glob(path: &str, home: Option<&str>) -> Option<Hit> {
    let lower = path.to_lowercase();
    let path_tokens = hidden_names_spelled(tokens(&lower));
    let home = home.map(|h| h.trim_end_matches('/').to_lowercase());
    for e in spec().hardline.paths.iter() {
        if e.ask || !e.classes.iter().any(|c| c == "read") {
            continue;
        }
        let found = e.patterns.iter().any(|p| {
            let p = p.to_lowercase();
            let p = match (p.strip_prefix('~'), &home) {
                (Some(rest), Some(h)) => format!("{h}{rest}"),
                (Some(rest), None) => format!("{SOME_HOME}{rest}"),
                _ => p,
            };
            tokens_meet_crossing(&path_tokens, &tokens(&p), true)
        });
        if found {
            return Some(Hit {
                entry: e.id.to_string(),
                reason: e.reason.to_string(),
                part: path.to_string(),
            });
        }
    }
    None
}

/// Whether an entry's program (a name, or a wildcard such as `mkfs.*`) names `program`.
fn names(pattern: &str, program: &str) -> bool {
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

/// Whether two paths, each a glob whose `*`, `?` and `[…]` stand within a segment, can name the
/// same path.
pub fn path_meets(a: &str, b: &str) -> bool {
    let sa: Vec<&str> = a.split('/').filter(|s| !s.is_empty()).collect();
    let sb: Vec<&str> = b.split('/').filter(|s| !s.is_empty()).collect();
    a.starts_with('/') == b.starts_with('/') && segments_meet(&sa, &sb)
}

/// Segment by segment; a `**` segment of `b` (a set's pattern) stands for any segments.
fn segments_meet(a: &[&str], b: &[&str]) -> bool {
    match (a.split_first(), b.split_first()) {
        (_, Some((&"**", rest))) => {
            (0..=a.len()).any(|k| segments_meet(a.get(k..).unwrap_or(&[]), rest))
        }
        (Some((x, ra)), Some((y, rb))) => glob_meets(x, y) && segments_meet(ra, rb),
        (None, None) => true,
        _ => false,
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Char(char),
    Any,
    Star,
    /// `[…]`: the characters it names, and whether it is negated.
    Class(Vec<char>, bool),
}

fn tokens(s: &str) -> Vec<Token> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        match c {
            '*' => {
                if out.last() != Some(&Token::Star) {
                    out.push(Token::Star);
                }
            }
            '?' => out.push(Token::Any),
            '[' => {
                let mut k = i;
                let negated = matches!(chars.get(k), Some('!' | '^'));
                if negated {
                    k += 1;
                }
                let start = k;
                if chars.get(k) == Some(&']') {
                    k += 1;
                }
                while chars.get(k).is_some_and(|c| *c != ']') {
                    k += 1;
                }
                if chars.get(k) == Some(&']') {
                    let mut set = Vec::new();
                    let body: Vec<char> = chars.get(start..k).unwrap_or(&[]).to_vec();
                    let mut j = 0;
                    while let Some(&x) = body.get(j) {
                        if body.get(j + 1) == Some(&'-') {
                            if let Some(&y) = body.get(j + 2) {
                                let (lo, hi) = (x.min(y) as u32, x.max(y) as u32);
                                set.extend((lo..=hi.min(lo + 256)).filter_map(char::from_u32));
                                j += 3;
                                continue;
                            }
                        }
                        set.push(x);
                        j += 1;
                    }
                    out.push(Token::Class(set, negated));
                    i = k + 1;
                } else {
                    out.push(Token::Char('['));
                }
            }
            _ => out.push(Token::Char(c)),
        }
    }
    out
}

/// Whether a glob of one segment matches a plain name (no allocation for the common `*`
/// patterns: a literal with one `*`).
fn wildcard_segment(glob: &str, name: &str) -> bool {
    if !glob.contains(['?', '[']) && glob.matches('*').count() == 1 {
        if let Some((head, tail)) = glob.split_once('*') {
            return name.len() >= head.len() + tail.len()
                && name.starts_with(head)
                && name.ends_with(tail);
        }
    }
    let t = tokens(glob);
    let name: Vec<Token> = name.chars().map(Token::Char).collect();
    tokens_meet(&t, &name)
}

fn single_meets(a: &Token, b: &Token) -> bool {
    match (a, b) {
        (Token::Char(x), Token::Char(y)) => x == y,
        (Token::Class(set, neg), Token::Char(c)) | (Token::Char(c), Token::Class(set, neg)) => {
            set.contains(c) != *neg
        }
        _ => true,
    }
}

/// Whether two globs of one segment can match a common name.
fn glob_meets(a: &str, b: &str) -> bool {
    let special = |s: &str| s.contains(['*', '?', '[']);
    match (special(a), special(b)) {
        (false, false) => return a == b,
        (false, true) => return wildcard_segment(b, a),
        (true, false) => return wildcard_segment(a, b),
        (true, true) => {}
    }
    tokens_meet(&tokens(a), &tokens(b))
}

fn tokens_meet(ta: &[Token], tb: &[Token]) -> bool {
    tokens_meet_crossing(ta, tb, false)
}

/// Whether a path glob (`a`, whose `*` stands within a segment) can name a path a pattern (`b`)
/// matches; `b_crosses`: the pattern's `*` stands for any run of characters, `/` too (the
/// hardline's path patterns).
fn tokens_meet_crossing(ta: &[Token], tb: &[Token], b_crosses: bool) -> bool {
    // seen[i][j]: a[i..] and b[j..] were tried.
    let w = tb.len() + 1;
    let mut seen = vec![false; (ta.len() + 1) * w];
    let mut stack = vec![(0usize, 0usize)];
    while let Some((i, j)) = stack.pop() {
        let Some(cell) = seen.get_mut(i * w + j) else {
            continue;
        };
        if *cell {
            continue;
        }
        *cell = true;
        match (ta.get(i), tb.get(j)) {
            (None, None) => return true,
            (Some(Token::Star), _) => {
                stack.push((i + 1, j));
                // A glob's `*` never stands for a `/`.
                if tb.get(j).is_some_and(|t| *t != Token::Char('/')) {
                    stack.push((i, j + 1));
                }
            }
            (_, Some(Token::Star)) => {
                stack.push((i, j + 1));
                if ta
                    .get(i)
                    .is_some_and(|t| b_crosses || *t != Token::Char('/'))
                {
                    stack.push((i + 1, j));
                }
            }
            // Nor does a glob's `?` or `[…]`.
            (Some(x), Some(y))
                if single_meets(x, y)
                    && !(*y == Token::Char('/') && matches!(x, Token::Any | Token::Class(..))) =>
            {
                stack.push((i + 1, j + 1))
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests;
