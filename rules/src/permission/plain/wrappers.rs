//! Wrappers (hardline.json `plain.wrappers`): programs that run the command after them, each read
//! by its own option grammar — the one reading the hardline's walk and an approval's pattern share.

use super::super::shell::{self, Construct, Word};
use super::super::wildcard;
use super::folders::Folders;
use super::values::{strip_word_prefix, unknown_word, Scope, SH};
use super::walk::{command_text, option_values, Walker};
use crate::spec::types::Wrapper;
use std::borrow::Cow;

/// Where a wrapper's `chdir` option (`env -C`, `sudo -D`) left the wrapped command.
pub(super) enum Moved<'a> {
    /// It runs in the line's folders.
    Stayed,
    /// It runs elsewhere; the line's own folders (`None`: unknown), put back after it.
    From(Option<Folders<'a>>),
}

impl<'a> Walker<'a> {
    pub(super) fn wrapper(
        &mut self,
        spec: &Wrapper,
        args: &[Word],
        scope: &Scope<'_>,
        stdin_fed: bool,
        depth: usize,
    ) {
        // A `chdir` option moves the wrapped command, not the line: the folders are put back.
        let mut moved = Moved::Stayed;
        self.wrapper_body(spec, args, scope, stdin_fed, depth, &mut moved);
        if let Moved::From(cwds) = moved {
            self.cwds = cwds;
        }
    }

    /// Sets the folder the wrapped command runs in, keeping the line's in `moved`.
    pub(super) fn run_in(&mut self, dir: &Word, scope: &Scope<'_>, moved: &mut Moved<'a>) {
        let to = self
            .targets(dir, scope)
            .map(|to| to.into_iter().map(Cow::Owned).collect());
        let before = std::mem::replace(&mut self.cwds, to);
        // The first move keeps the line's folders; a second one moves from the first.
        if let Moved::Stayed = moved {
            *moved = Moved::From(before);
        }
    }

    pub(super) fn wrapper_body(
        &mut self,
        spec: &Wrapper,
        args: &[Word],
        scope: &Scope<'_>,
        stdin_fed: bool,
        depth: usize,
        moved: &mut Moved<'a>,
    ) {
        // A word that makes it run what cannot be read (`ssh -o ProxyCommand=…`, tmux's `;`).
        let opaque_word = args.iter().any(|w| {
            let lower = super::super::hardline::lower(&w.text);
            spec.opaque_values
                .iter()
                .any(|p| wildcard::matches(p, &lower))
        });
        if opaque_word {
            self.opaque(Construct::WrapperLine);
            return;
        }
        // The files its own options write (`script -O FILE`).
        if !spec.written_options.is_empty() {
            let part = command_text(args);
            for (file, _) in option_values(args, &spec.written_options) {
                self.write_paths(&file, scope, &part, false);
            }
        }
        let scan = scan_wrapper(spec, args);
        let has_lines = scan.parts.iter().any(|p| matches!(p, WrapperPart::Line(_)));
        let rest = scan.command(args, has_lines);
        let mut lines: Vec<Word> = Vec::new();
        let mut joined = false;
        for part in scan.parts {
            match part {
                WrapperPart::Splits | WrapperPart::Opaque => {
                    self.opaque(Construct::WrapperLine);
                    return;
                }
                WrapperPart::Chdir(dir) => self.run_in(&dir, scope, moved),
                WrapperPart::Line(line) => lines.push(line),
                WrapperPart::Command(own) => self.own_command(spec, &own, scope, depth),
                WrapperPart::Assignment(name) => {
                    // Read as one before a command is (`env CC='…' make` is `CC='…' make`).
                    let word = args
                        .iter()
                        .find(|w| shell::assignment_name(&w.text) == Some(name.as_str()));
                    match word {
                        Some(word) => self.assignment(&name, word, scope, depth),
                        None if self.unsafe_variable(&name) => {
                            self.opaque(Construct::UnsafeVariable)
                        }
                        None => {}
                    }
                }
                WrapperPart::Joined => joined = true,
            }
        }

        for line in &lines {
            if line.dynamic() {
                self.opaque(Construct::WrapperLine);
            } else {
                self.line(&line.text, Some(Cow::Borrowed(SH)), Some(scope), depth);
            }
        }
        if lines.is_empty() && rest.is_empty() && spec.input_commands {
            self.opaque(Construct::ShellInput);
            return;
        }
        if lines.is_empty() && rest.is_empty() {
            // A shell with nothing to run reads its input (`su -`, `sudo -s <<< …`).
            if stdin_fed && (spec.shell_when_empty || joined) {
                self.opaque(Construct::ShellInput);
            }
            return;
        }
        if !spec.subcommands.0.is_empty() {
            let Some(first) = rest.first() else { return };
            if first.dynamic() {
                self.opaque(Construct::WrapperLine);
                return;
            }
            if let Some(sub) = spec.subcommands.get(&first.text) {
                self.wrapper_body(
                    sub,
                    rest.get(1..).unwrap_or(&[]),
                    scope,
                    stdin_fed,
                    depth,
                    moved,
                );
            }
            return;
        }
        if spec.no_command {
            if lines.is_empty() && !rest.is_empty() {
                self.opaque(Construct::WrapperLine);
            } else if spec.written_operands {
                // The file it keeps what the line printed in (`script -c LINE FILE`), among
                // its options or after `--`.
                let part = command_text(args);
                let among = scan.operands.iter().filter_map(|&at| args.get(at));
                for file in among.chain(args.get(scan.end..).unwrap_or(&[])) {
                    self.write_paths(file, scope, &part, false);
                }
            }
            return;
        }
        if spec.shell_args {
            // `capsh -- -c LINE`: the words are a shell's arguments.
            self.shell(rest, scope, depth);
            return;
        }
        if spec.joins || joined {
            self.joined(rest, scope, depth);
            return;
        }
        if spec.input {
            // Operands come from its input: the command gets one more, unknown; `{}` and the
            // words after `:::` are among them. A word holding a replace string stands for any
            // text there (`cat /home/u/.s{}h/id_rsa` is `cat /home/u/.s*h/id_rsa`).
            let options = args
                .get(..args.len().saturating_sub(rest.len()))
                .unwrap_or(&[]);
            let replaced = replace_strings(options, spec);
            let mut cmd: Vec<Word> = rest
                .iter()
                .take_while(|w| !matches!(w.text.as_str(), ":::" | "::::" | ":::+"))
                .map(|w| match templated(&w.text, &replaced) {
                    None => w.clone(),
                    Some(parts) if parts.iter().all(|p| p.is_empty()) => unknown_word(),
                    Some(parts) => Word::with_unknown(&parts),
                })
                .collect();
            cmd.push(unknown_word());
            self.unwrap_wrappers(&cmd, scope, stdin_fed, depth);
            return;
        }
        self.unwrap_wrappers(rest, scope, stdin_fed, depth);
    }

    /// One of a wrapper's own commands (gdb's `-ex CMD`): the rest after `!` or `shell ` is a
    /// line; one that runs what the reader cannot read (`python …`, `pipe …`, `run`) is opaque.
    fn own_command(&mut self, spec: &Wrapper, own: &Word, scope: &Scope<'_>, depth: usize) {
        if own.dynamic() {
            self.opaque(Construct::WrapperLine);
            return;
        }
        let text = own.text.trim_start();
        for prefix in spec.command_lines.iter() {
            if let Some(line) = text.strip_prefix(prefix.as_ref()) {
                self.line(line, Some(Cow::Borrowed(SH)), Some(scope), depth);
                return;
            }
        }
        let first = text.split_whitespace().next().unwrap_or("");
        if spec.command_opaque.iter().any(|c| c == first) {
            self.opaque(Construct::WrapperLine);
        }
    }
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
    /// An option after which its command's words are joined and run as one shell line
    /// (`sudo -s`, `gdb --args`).
    Joined,
    /// One of its own commands given by an option (gdb's `-ex CMD`): `!LINE` and `shell LINE`
    /// run a line.
    Command(Word),
    /// An option it runs what the reader cannot read with (`screen -X`, `gdb -x FILE`).
    Opaque,
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
    /// Every operand read among its options (GNU order), by index.
    pub operands: Vec<usize>,
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
/// values (`--opt=v`, `--opt v`, `-o v`, `-ov`, clusters, a one-dash long option such as gdb's
/// `-ex` spelled whole), `--`, assignments, positional words, and — for a wrapper with line
/// options — options after its operands (GNU order). The one reading of a wrapper's words: the
/// hardline's walk and an approval's pattern both use it. It stops at the first
/// [`WrapperPart::Splits`] or [`WrapperPart::Opaque`].
pub(crate) fn scan_wrapper(spec: &Wrapper, args: &[Word]) -> WrapperScan {
    let mut parts = Vec::new();
    let mut i = 0;
    let mut positional = spec.positional;
    // Where the command starts, when words after it are still read as options.
    let mut command: Option<usize> = None;
    let stop = |parts: Vec<WrapperPart>| WrapperScan {
        parts,
        end: args.len(),
        first_operand: None,
        operands: Vec::new(),
    };
    let mut operands = Vec::new();
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        // A wrapper's own word from an unquoted expansion may split into several (`timeout $T
        // -rf /` with T="5 rm"): where its command starts is known only when it runs.
        if command.is_none() && w.splits() {
            parts.push(WrapperPart::Splits);
            return stop(parts);
        }
        if listed(&spec.opaque, t) {
            parts.push(WrapperPart::Opaque);
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
        let long = t
            .strip_prefix("--")
            .filter(|l| !l.is_empty())
            .map(|_| t)
            .or_else(|| {
                // A one-dash option of several letters that the grammar lists (gdb's `-ex`).
                let name = t.split('=').next().unwrap_or(t);
                (t.len() > 2 && t.starts_with('-') && spec.all().any(|o| o == name)).then_some(t)
            });
        if let Some(word) = long {
            let (name, value) = match word.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v)),
                None => (word.to_string(), None),
            };
            if listed(&spec.opaque, &name) {
                parts.push(WrapperPart::Opaque);
                return stop(parts);
            }
            let next = args.get(i + 1);
            let given = match value {
                Some(v) => Some(strip_word_prefix(w, name.chars().count() + 1, v)),
                None => next.cloned(),
            };
            if listed(&spec.chdir, &name) {
                if let Some(dir) = given.clone() {
                    parts.push(WrapperPart::Chdir(dir));
                }
            }
            let takes = listed(&spec.line, &name)
                || listed(&spec.commands, &name)
                || listed(&spec.value, &name);
            if listed(&spec.line, &name) {
                if let Some(line) = given {
                    parts.push(WrapperPart::Line(line));
                }
            } else if listed(&spec.commands, &name) {
                if let Some(own) = given {
                    parts.push(WrapperPart::Command(own));
                }
            } else if listed(&spec.joined, &name) {
                parts.push(WrapperPart::Joined);
            }
            if takes && value.is_none() {
                i += 1;
            }
            i += 1;
            continue;
        }
        if t.starts_with('-') && t.len() > 1 {
            let cluster: Vec<char> = t.chars().skip(1).collect();
            let mut value_taken = false;
            for (k, c) in cluster.iter().enumerate() {
                let opt = format!("-{c}");
                let rest: String = cluster.get(k + 1..).unwrap_or(&[]).iter().collect();
                if listed(&spec.opaque, &opt) {
                    parts.push(WrapperPart::Opaque);
                    return stop(parts);
                }
                let in_line = listed(&spec.line, &opt);
                let in_commands = listed(&spec.commands, &opt);
                if in_line || in_commands || listed(&spec.value, &opt) {
                    let given = if rest.is_empty() {
                        value_taken = true;
                        args.get(i + 1).cloned()
                    } else {
                        Some(strip_word_prefix(w, k + 2, &rest))
                    };
                    if listed(&spec.chdir, &opt) {
                        if let Some(dir) = given.clone() {
                            parts.push(WrapperPart::Chdir(dir));
                        }
                    }
                    if let Some(given) = given {
                        if in_line {
                            parts.push(WrapperPart::Line(given));
                        } else if in_commands {
                            parts.push(WrapperPart::Command(given));
                        }
                    }
                    break;
                }
                if listed(&spec.joined, &opt) {
                    // `sudo -iu root CMD`: the options go on; the command is joined.
                    parts.push(WrapperPart::Joined);
                }
            }
            i += 1 + usize::from(value_taken);
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
            operands.push(i);
            i += 1;
            continue;
        }
        if command.is_some() {
            operands.push(i);
            i += 1;
            continue;
        }
        break;
    }
    // `env -- NAME=value CMD`: assignments after `--` are still the wrapper's.
    if spec.assignments {
        while let Some(name) = args.get(i).and_then(|w| shell::assignment_name(&w.text)) {
            parts.push(WrapperPart::Assignment(name.to_string()));
            i += 1;
        }
    }
    WrapperScan {
        parts,
        end: i,
        first_operand: command,
        operands,
    }
}

/// Whether an option is in one of a wrapper's lists.
fn listed(list: &[crate::spec::types::Str], option: &str) -> bool {
    list.iter().any(|x| x == option)
}

/// The strings a wrapper that takes operands from its input replaces with each of them in its
/// command's words: `{}`, and those its `replace` options set (xargs's `-I X`, `-IX`, `-i`,
/// `-iX`, `--replace=X`).
fn replace_strings(options: &[Word], wrapper: &Wrapper) -> Vec<String> {
    let mut out = vec!["{}".to_string()];
    let mut words = options.iter().map(|w| w.text.as_str());
    while let Some(word) = words.next() {
        for option in wrapper.replace.iter().map(|o| o.as_ref()) {
            let long = option.starts_with("--");
            let given = if word == option {
                // `-I X`: the next word; `-i`, `--replace`: `{}`.
                if !long && listed(&wrapper.value, option) {
                    words.next()
                } else {
                    None
                }
            } else if long {
                word.strip_prefix(option).and_then(|r| r.strip_prefix('='))
            } else {
                word.strip_prefix(option)
            };
            if let Some(given) = given.filter(|g| !g.is_empty()) {
                out.push(given.to_string());
            }
            if word == option || given.is_some() {
                break;
            }
        }
    }
    out
}

/// A word's text cut at each replace string and each of GNU parallel's `{…}` forms (`{.}`,
/// `{/}`, `{1}`), which stand for text known only when it runs: none when it holds none.
fn templated<'t>(text: &'t str, replaced: &[String]) -> Option<Vec<&'t str>> {
    let mut parts = Vec::new();
    let mut rest = text;
    loop {
        // The first replace string or `{…}` form in what is left.
        let named = replaced
            .iter()
            .filter(|r| !r.is_empty())
            .filter_map(|r| rest.find(r.as_str()).map(|at| (at, r.len())));
        let braced = rest.find('{').and_then(|open| {
            let close = rest.get(open..)?.find('}')?;
            Some((open, close + 1))
        });
        let Some((at, len)) = named.chain(braced).min() else {
            break;
        };
        parts.push(rest.get(..at).unwrap_or(""));
        rest = rest.get(at + len..).unwrap_or("");
    }
    if parts.is_empty() {
        return None;
    }
    parts.push(rest);
    Some(parts)
}
