//! Wrappers (hardline.json `plain.wrappers`): programs that run the command after them, each read
//! by its own option grammar — the one reading the hardline's walk and an approval's pattern share.

use super::super::shell::{self, Construct, Word};
use super::values::{strip_word_prefix, unknown_word, Scope};
use super::walk::Walker;
use crate::spec::types::Wrapper;

impl Walker<'_> {
    pub(super) fn wrapper(
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
    pub(super) fn run_in(
        &mut self,
        dir: &Word,
        scope: &Scope<'_>,
        moved: &mut Option<Option<Vec<String>>>,
    ) {
        let to = self.targets(dir, scope);
        let before = std::mem::replace(&mut self.cwds, to);
        moved.get_or_insert(before);
    }

    pub(super) fn wrapper_body(
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
