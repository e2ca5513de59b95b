//! The read-only forms of a program (permission/programs.json `read_only`): whether a command's
//! words stay inside its grammar, and which of them name files it reads.
//!
//! A grammar is an allow-list of forms: an option it does not list, spelled exactly (a GNU
//! prefix such as `--out` for `--output` is not listed, so it is outside), a value where a flag
//! stands, a missing value, an operand it does not take, a subcommand it does not know, or a word
//! that may become an option only when the line runs — each puts the command outside, and the
//! rule that named the program does not cover it.
//!
//! This file is compiled into build.rs too, which checks every grammar's `match` and `not_match`
//! lines with it; it uses nothing but the spec types and the wildcards.

use super::types::{Grammar, Map};
use super::wildcard;

pub use super::types::{OperandKind, ValueKind};

/// A word of a command (after its program) as a grammar reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arg<'a> {
    /// The word, quotes removed.
    pub text: &'a str,
    /// Whether its whole value is known before the line runs (no expansion in it).
    pub known: bool,
    /// Whether it may start with `-` when the line runs: an expansion that leads it and whose
    /// values are not all known.
    pub may_be_option: bool,
}

impl<'a> Arg<'a> {
    /// A word known exactly.
    pub fn plain(text: &'a str) -> Arg<'a> {
        Arg {
            text,
            known: true,
            may_be_option: false,
        }
    }
}

/// How a command reads a file its words name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadKind {
    /// The file.
    File,
    /// The file, or the folder and everything in it.
    Tree,
    /// A git revision or path: the word as a path, and after its first `:` a path.
    Revision,
}

/// A file a command reads: the argument that names it, from which character of it the path
/// starts (after `--file=` or `-f`), and how it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedRead {
    /// The argument's index.
    pub arg: usize,
    /// How many of its characters come before the path.
    pub skip: usize,
    /// How it is read.
    pub kind: ReadKind,
}

/// Why a command is outside its program's read-only forms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outside {
    /// An option the grammar does not list.
    UnknownOption(String),
    /// A value after `=` (or joined) on an option that takes none.
    ValueOnFlag(String),
    /// An option that takes a value, with none after it.
    MissingValue(String),
    /// A word that may be an option when the line runs.
    MayBeOption(String),
    /// An operand where the grammar takes none, or one its patterns do not allow.
    Operand(String),
    /// More operands than the grammar takes.
    TooManyOperands,
    /// A value the grammar refuses its option (`--format=%G?`).
    Value(String),
    /// A subcommand the grammar does not know, or none.
    Subcommand(String),
    /// It runs in a folder outside the project root, or one not known (after `cd`): what it
    /// reads there without naming it (git the repository, ls the folder) is not the project's.
    Folder(String),
}

/// Reads a command's arguments (the words after its program) by `grammar`, with the file's
/// option `sets`: the files they name for reading, or why they are outside it.
pub fn read(
    grammar: &Grammar,
    sets: &Map<Map<ValueKind>>,
    args: &[Arg<'_>],
) -> Result<Vec<NamedRead>, Outside> {
    let mut named = Vec::new();
    read_from(grammar, sets, args, 0, &mut named)?;
    Ok(named)
}

/// An option's kind in a grammar: its own options, then its sets in order.
pub fn option_kind(grammar: &Grammar, sets: &Map<Map<ValueKind>>, name: &str) -> Option<ValueKind> {
    grammar.options.get(name).copied().or_else(|| {
        grammar
            .use_sets
            .iter()
            .find_map(|set| sets.get(set).and_then(|s| s.get(name)).copied())
    })
}

/// The reading of one grammar's words from `start` on.
struct Reader<'g, 'a, 'n> {
    grammar: &'g Grammar,
    sets: &'g Map<Map<ValueKind>>,
    args: &'g [Arg<'a>],
    named: &'n mut Vec<NamedRead>,
    operands: OperandKind,
}

fn read_from(
    grammar: &Grammar,
    sets: &Map<Map<ValueKind>>,
    args: &[Arg<'_>],
    start: usize,
    named: &mut Vec<NamedRead>,
) -> Result<(), Outside> {
    let operands = grammar.operands;
    let mut reader = Reader {
        grammar,
        sets,
        args,
        named,
        operands,
    };
    let mut found: Vec<usize> = Vec::new();
    let mut ended = false;
    let mut i = start;
    while let Some(arg) = args.get(i) {
        let here = i;
        i += 1;
        let text = arg.text;
        let options_done = ended || (grammar.options_first && !found.is_empty());
        if !options_done {
            if text == "--" && !grammar.no_dashes {
                ended = true;
                continue;
            }
            if arg.may_be_option && !grammar.text_options {
                return Err(Outside::MayBeOption(text.to_string()));
            }
            if text.len() > 1 && text.starts_with('-') {
                match reader.option(here, &mut i) {
                    Ok(()) => continue,
                    // bash's echo prints a word that is not its option.
                    Err(_) if grammar.text_options => {}
                    Err(e) => return Err(e),
                }
            }
        }
        if !grammar.subcommands.0.is_empty() {
            let sub = grammar
                .subcommands
                .get(text)
                .filter(|_| arg.known)
                .ok_or_else(|| Outside::Subcommand(text.to_string()))?;
            return read_from(sub, sets, args, i, reader.named);
        }
        found.push(here);
    }
    if !grammar.subcommands.0.is_empty() {
        return Err(Outside::Subcommand(String::new()));
    }
    // git reads two paths outside its work tree as two files to compare, `--` between or not.
    if let Some(kind) = grammar.pair.filter(|_| found.len() == 2) {
        reader.operands = kind;
    }
    reader.operands_read(&found)
}

impl Reader<'_, '_, '_> {
    fn kind(&self, name: &str) -> Result<ValueKind, Outside> {
        option_kind(self.grammar, self.sets, name)
            .ok_or_else(|| Outside::UnknownOption(name.to_string()))
    }

    fn switch(&mut self, name: &str) -> Result<(), Outside> {
        if let Some(kind) = self.grammar.switches.get(name) {
            self.operands = *kind;
        }
        Ok(())
    }

    /// Whether the grammar refuses this value of the option.
    fn refused(&self, name: &str, value: &str) -> Result<(), Outside> {
        let refused = self
            .grammar
            .refused_values
            .get(name)
            .is_some_and(|patterns| patterns.iter().any(|p| wildcard::matches(p, value)));
        if refused {
            return Err(Outside::Value(format!("{name}={value}")));
        }
        Ok(())
    }

    /// A value's file, when the option reads one.
    fn value(&mut self, kind: ValueKind, arg: usize, skip: usize) {
        let read = match kind {
            ValueKind::Path => ReadKind::File,
            ValueKind::Tree => ReadKind::Tree,
            _ => return,
        };
        self.named.push(NamedRead {
            arg,
            skip,
            kind: read,
        });
    }

    /// The value in the next word, for an option that must have one (one that may go without
    /// it when last takes none there).
    fn next_value(&mut self, name: &str, kind: ValueKind, next: &mut usize) -> Result<(), Outside> {
        let Some(arg) = self.args.get(*next) else {
            if kind == ValueKind::LastOptional {
                return Ok(());
            }
            return Err(Outside::MissingValue(name.to_string()));
        };
        if !arg.known
            && (kind == ValueKind::LastOptional || !self.grammar.refused_values.0.is_empty())
        {
            return Err(Outside::MayBeOption(arg.text.to_string()));
        }
        // git's "last argument default": a next word that starts with `-` is not the value but
        // the next option (`git branch --merged -D main` deletes).
        if kind == ValueKind::LastOptional && arg.text.starts_with('-') {
            return Ok(());
        }
        self.refused(name, arg.text)?;
        self.value(kind, *next, 0);
        *next += 1;
        Ok(())
    }

    /// The option at `here` (a word starting with `-`), its value taken; `next` is the word
    /// after it.
    fn option(&mut self, here: usize, next: &mut usize) -> Result<(), Outside> {
        let text = self.args.get(here).map_or("", |a| a.text);
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(v)),
                None => (text.to_string(), None),
            };
            let kind = self.kind(&name)?;
            self.switch(&name)?;
            return match (kind, value) {
                (ValueKind::Flag, Some(_)) => Err(Outside::ValueOnFlag(name)),
                (ValueKind::Flag, None) => Ok(()),
                (ValueKind::Optional, None) => Ok(()),
                (_, Some(v)) => {
                    self.refused(&name, v)?;
                    self.value(kind, here, name.chars().count() + 1);
                    Ok(())
                }
                (_, None) => self.next_value(&name, kind, next),
            };
        }
        let letters: Vec<char> = text.chars().skip(1).collect();
        if self.grammar.numbers && letters.iter().all(char::is_ascii_digit) {
            return Ok(());
        }
        for (k, letter) in letters.iter().enumerate() {
            let name = format!("-{letter}");
            let kind = self.kind(&name)?;
            self.switch(&name)?;
            let rest = letters.len() - k - 1;
            match kind {
                ValueKind::Flag => {
                    if rest > 0 && !self.grammar.clusters {
                        return Err(Outside::UnknownOption(text.to_string()));
                    }
                }
                ValueKind::Optional => {
                    let value: String = letters.iter().skip(k + 1).collect();
                    return self.refused(&name, &value);
                }
                _ if rest > 0 => {
                    let value: String = letters.iter().skip(k + 1).collect();
                    self.refused(&name, &value)?;
                    self.value(kind, here, k + 2);
                    return Ok(());
                }
                _ => return self.next_value(&name, kind, next),
            }
        }
        Ok(())
    }

    fn operands_read(&mut self, found: &[usize]) -> Result<(), Outside> {
        if self
            .grammar
            .max_operands
            .is_some_and(|max| found.len() > max)
        {
            return Err(Outside::TooManyOperands);
        }
        for &at in found {
            let Some(arg) = self.args.get(at) else {
                continue;
            };
            let patterns = &self.grammar.operand_patterns;
            let allowed = patterns.is_empty()
                || (arg.known && patterns.iter().any(|p| wildcard::matches(p, arg.text)));
            if !allowed {
                return Err(Outside::Operand(arg.text.to_string()));
            }
            // Pathspec magic (`:(glob)…`, `:/…`, `:!…`) names paths the reader cannot place.
            let magic = [":(", ":/", ":!", ":^"]
                .iter()
                .any(|m| arg.text.starts_with(m));
            if self.operands == OperandKind::Revision && magic {
                return Err(Outside::Operand(arg.text.to_string()));
            }
            // A wildcard, a bracket or a backslash: git matches the pathspec itself, where `*`
            // and `?` match a leading dot and `*` crosses `/` (`'?env'` names `.env`,
            // `'*credentials'` names `.aws/credentials`) — which files it names is not read.
            if self.operands == OperandKind::Revision && arg.text.contains(['*', '?', '[', '\\']) {
                return Err(Outside::Operand(arg.text.to_string()));
            }
            let kind = match self.operands {
                OperandKind::None => return Err(Outside::Operand(arg.text.to_string())),
                OperandKind::Text | OperandKind::List => continue,
                OperandKind::Path => ReadKind::File,
                OperandKind::Tree => ReadKind::Tree,
                OperandKind::Revision => ReadKind::Revision,
            };
            self.named.push(NamedRead {
                arg: at,
                skip: 0,
                kind,
            });
        }
        Ok(())
    }
}
