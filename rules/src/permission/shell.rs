//! The command reader under the permission rules (hardline.json `plain`): a line read as bash
//! reads it, or called **opaque**.
//!
//! The reader models a named subset of bash and nothing else:
//! - words: plain characters, `'…'`, `"…"` (with `\"`, `\\`, `\$`, `` \` `` and a backslash before
//!   a newline), a backslash outside quotes, `$NAME`, `$1`, `$@` and the other one-character
//!   parameters, `${NAME}` with nothing else inside, `$( … )` and backticks (their commands read
//!   as lines of their own), unquoted `*`, `?` and `[` (the word is a glob), `~` at the start;
//! - simple commands with leading `NAME=value` assignments and redirections (`>`, `>>`, `>|`,
//!   `<`, `<>`, `>&`, `<&`, `&>`, `&>>`, `<<<`, with a descriptor number before);
//! - pipelines (`|`, `|&`, a leading `!`, the `time` keyword) and lists (`;`, `&`, `&&`, `||`,
//!   newlines, `#` comments);
//! - `( … )`, `{ …; }`, `if`/`then`/`elif`/`else`/`fi`, `while`/`until`/`do`/`done` and
//!   `for NAME in …; do …; done`.
//!
//! Anything else makes the line opaque, named by a [`Construct`]: a carriage return, a NUL or
//! another control character; `$'…'` and `$"…"`; `${…}` with an operator, a quote or a
//! substitution inside; here-documents; `case`, `select`, `[[`, `((`, `coproc` and function
//! definitions; brace expansion; arithmetic; process substitution; an unclosed quote or another
//! syntax error; nesting deeper than [`MAX_DEPTH`]; a line longer than [`MAX_LINE`]. What runs a
//! line or a file of its own (`eval`, `source`, `trap`, a shell reading a pipe) is found one level
//! up, by [`super::plain`]. The reader never reads a line differently from bash: where it cannot be
//! sure, it says so.

use std::fmt;

/// Nesting deeper than this (substitutions, subshells, compound commands, a shell's `-c` line
/// inside another) makes a line opaque.
pub const MAX_DEPTH: usize = 8;

/// A line longer than this (in bytes) is opaque at once.
pub const MAX_LINE: usize = 16 * 1024;

/// What made a line opaque: the first construct outside the reader's subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Construct {
    /// A carriage return: bash reads it as a word character, readers often as a blank.
    CarriageReturn,
    /// A NUL or another control character but tab and newline.
    ControlCharacter,
    /// `$'…'` quoting, with its escapes.
    AnsiCQuote,
    /// `$"…"` quoting (translated strings).
    LocaleQuote,
    /// `${…}` with an operator, a quote or a substitution inside (`${x:-…}`, `${x#…}`).
    ParameterOperator,
    /// A here-document whose body expands (`$`, a backtick or a backslash under an unquoted delimiter), or whose delimiter does.
    HereDocument,
    /// `case`, `select`, `[[`, `coproc`, or `!`/`time` after a pipe.
    Keyword,
    /// A function definition (`f() { … }`, `function f`).
    FunctionDefinition,
    /// Brace expansion (`{a,b}`, `{1..3}`).
    BraceExpansion,
    /// Arithmetic (`$((…))`, `((…))`, `$[…]`, `let`, `for ((…))`).
    Arithmetic,
    /// Process substitution (`<(…)`, `>(…)`).
    ProcessSubstitution,
    /// An array assignment (`a=(…)`, `a[i]=…`).
    Array,
    /// A redirection to a descriptor held in a variable (`{fd}>file`).
    DescriptorVariable,
    /// A quote, substitution or parameter that is never closed.
    UnclosedQuote,
    /// Anything else bash would not parse as the reader does (a stray `)`, `&&` with nothing after).
    Syntax,
    /// Nesting deeper than [`MAX_DEPTH`].
    TooDeep,
    /// A line longer than [`MAX_LINE`].
    TooLong,
    /// A command name from an expansion or a glob (`$(echo rm)`, `/bin/r?`).
    CommandNameExpansion,
    /// `eval` (and `fc`, `compgen`): text run as code.
    Eval,
    /// `source` or `.`: a file run as code.
    Source,
    /// `trap`: code run later.
    Trap,
    /// `alias` or `unalias`.
    Alias,
    /// A builtin that changes the shell (`declare`, `set --`, `shopt`, `enable`, `export -f`, …).
    ShellState,
    /// A shell reading its input or a file (`… | bash`, `bash <<< …`, `bash script.sh`).
    ShellInput,
    /// A shell whose syntax is not bash's (`zsh`, `fish`, …) given a line.
    OtherShell,
    /// Assigning a variable that changes what runs (`PATH`, `LD_*`, `IFS`, `BASH_ENV`, `HOME`, `GIT_*`, …).
    UnsafeVariable,
    /// A line a wrapper or a shell runs that is known only when it runs (`sh -c "$X"`), or a wrapper running a shell with arguments.
    WrapperLine,
}

words!(Construct {
    CarriageReturn => "carriage_return",
    ControlCharacter => "control_character",
    AnsiCQuote => "ansi_c_quote",
    LocaleQuote => "locale_quote",
    ParameterOperator => "parameter_operator",
    HereDocument => "here_document",
    Keyword => "keyword",
    FunctionDefinition => "function_definition",
    BraceExpansion => "brace_expansion",
    Arithmetic => "arithmetic",
    ProcessSubstitution => "process_substitution",
    Array => "array",
    DescriptorVariable => "descriptor_variable",
    UnclosedQuote => "unclosed_quote",
    Syntax => "syntax",
    TooDeep => "too_deep",
    TooLong => "too_long",
    CommandNameExpansion => "command_name_expansion",
    Eval => "eval",
    Source => "source",
    Trap => "trap",
    Alias => "alias",
    ShellState => "shell_state",
    ShellInput => "shell_input",
    OtherShell => "other_shell",
    UnsafeVariable => "unsafe_variable",
    WrapperLine => "wrapper_line",
});

impl fmt::Display for Construct {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One piece of a word, as bash expands it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Characters standing for themselves.
    Text {
        /// The characters, quotes removed.
        text: String,
        /// Whether quotes or a backslash kept them from globbing and splitting.
        quoted: bool,
    },
    /// `$NAME`, `${NAME}`, `$1`, `$@`, …: known only when the line runs (or when the line itself
    /// assigned it).
    Parameter {
        /// The parameter's name (`HOME`, `1`, `@`).
        name: String,
        /// Whether it stood inside double quotes (not split).
        quoted: bool,
    },
    /// `$( … )` or backticks: its commands are read as commands of the line.
    Substitution {
        /// Whether it stood inside double quotes (not split).
        quoted: bool,
    },
}

/// One word of a command: its pieces, and its text with quotes removed (expansions written as
/// `$NAME` and `$(…)`), which is what rules match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Word {
    /// The word with quotes removed, expansions written as they stand: what rules match.
    pub text: String,
    /// The word as bash expands it, piece by piece.
    pub pieces: Vec<Piece>,
}

impl Word {
    /// A word of plain text (quoted: no glob).
    pub fn literal(text: &str) -> Word {
        Word {
            text: text.to_string(),
            pieces: vec![Piece::Text {
                text: text.to_string(),
                quoted: true,
            }],
        }
    }

    /// Whether its value is known only when it runs (an expansion or a substitution).
    pub fn dynamic(&self) -> bool {
        self.pieces.iter().any(|p| !matches!(p, Piece::Text { .. }))
    }

    /// Whether an unquoted expansion in it may split it into several words.
    pub fn splits(&self) -> bool {
        self.pieces.iter().any(|p| {
            matches!(
                p,
                Piece::Parameter { quoted: false, .. } | Piece::Substitution { quoted: false }
            )
        })
    }

    /// Whether an unquoted `*`, `?`, or `[` with a `]` after it makes it a glob (a lone `[` is
    /// the test command).
    pub fn glob(&self) -> bool {
        let mut open = false;
        for p in &self.pieces {
            if let Piece::Text {
                text,
                quoted: false,
            } = p
            {
                for c in text.chars() {
                    match c {
                        '*' | '?' => return true,
                        '[' => open = true,
                        ']' if open => return true,
                        _ => {}
                    }
                }
            }
        }
        false
    }

    fn push_text(&mut self, c: char, quoted: bool) {
        self.text.push(c);
        if let Some(Piece::Text { text, quoted: q }) = self.pieces.last_mut() {
            if *q == quoted {
                text.push(c);
                return;
            }
        }
        self.pieces.push(Piece::Text {
            text: c.to_string(),
            quoted,
        });
    }
}

impl AsRef<str> for Word {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

/// The operator of a redirection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectOp {
    /// `>`
    Write,
    /// `>>`
    Append,
    /// `>|`
    Clobber,
    /// `<>`
    ReadWrite,
    /// `<`
    Read,
    /// `>&`
    DuplicateOut,
    /// `<&`
    DuplicateIn,
    /// `&>`
    WriteBoth,
    /// `&>>`
    AppendBoth,
    /// `<<<`
    HereString,
    /// `<<` (its body follows the line)
    HereDocument,
    /// `<<-` (leading tabs of its body dropped)
    HereDocumentTabs,
}

words!(RedirectOp {
    Write => ">",
    Append => ">>",
    Clobber => ">|",
    ReadWrite => "<>",
    Read => "<",
    DuplicateOut => ">&",
    DuplicateIn => "<&",
    WriteBoth => "&>",
    AppendBoth => "&>>",
    HereString => "<<<",
    HereDocument => "<<",
    HereDocumentTabs => "<<-",
});

/// Every operator, each before any that begins its spelling (`&>>` before `&>`, `<<<` before `<<`).
const REDIRECT_OPS: [RedirectOp; 12] = [
    RedirectOp::AppendBoth,
    RedirectOp::WriteBoth,
    RedirectOp::HereString,
    RedirectOp::HereDocumentTabs,
    RedirectOp::HereDocument,
    RedirectOp::Append,
    RedirectOp::Clobber,
    RedirectOp::DuplicateOut,
    RedirectOp::DuplicateIn,
    RedirectOp::ReadWrite,
    RedirectOp::Write,
    RedirectOp::Read,
];

/// A redirection: its descriptor (when written), its operator and its target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The descriptor written before the operator (`2>`), if any.
    pub fd: Option<u32>,
    /// The operator.
    pub op: RedirectOp,
    /// Its target: a file, a descriptor, a here-string's word or a here-document's delimiter.
    pub target: Word,
}

impl Redirect {
    /// Whether it writes a file: any writing operator, and `>&` to a word that is not a
    /// descriptor. `/dev/null` and the standard streams are not files.
    pub fn writes_file(&self) -> bool {
        let t = self.target.text.as_str();
        let descriptor = !self.target.dynamic()
            && (t == "-" || t.trim_end_matches('-').chars().all(|c| c.is_ascii_digit()))
            && !t.is_empty();
        let writes = match self.op {
            RedirectOp::Write
            | RedirectOp::Append
            | RedirectOp::Clobber
            | RedirectOp::ReadWrite
            | RedirectOp::WriteBoth
            | RedirectOp::AppendBoth => true,
            RedirectOp::DuplicateOut => !descriptor,
            _ => false,
        };
        let harmless = !self.target.dynamic()
            && matches!(t, "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty");
        writes && !harmless
    }

    /// Whether it feeds the command's input from the line itself (`<<<`) or a file (`<`).
    pub fn feeds_input(&self) -> bool {
        matches!(
            self.op,
            RedirectOp::Read
                | RedirectOp::HereString
                | RedirectOp::ReadWrite
                | RedirectOp::HereDocument
                | RedirectOp::HereDocumentTabs
        ) && self.fd.is_none_or(|fd| fd == 0)
    }
}

/// A simple command: its words (leading `NAME=value` assignments first, [`Command::assigns`] of
/// them), its redirections, and where it stands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Command {
    /// Its words: the leading assignments, then the program and its arguments.
    pub words: Vec<Word>,
    /// Its redirections, in the order written.
    pub redirects: Vec<Redirect>,
    /// How many of the first words are assignments.
    pub assigns: usize,
    /// It reads a pipe: it is not the first command of a pipeline.
    pub piped: bool,
}

impl Command {
    /// The command as written, quotes removed, words joined by one space: what rules match.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (i, w) in self.words.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(&w.text);
        }
        out
    }

    /// The words after the assignments: the program and its arguments.
    pub fn argv(&self) -> &[Word] {
        self.words.get(self.assigns..).unwrap_or(&[])
    }

    /// The leading assignments as `(name, value)`.
    pub fn assignments(&self) -> impl Iterator<Item = (&str, &Word)> {
        self.words
            .iter()
            .take(self.assigns)
            .filter_map(|w| assignment_name(&w.text).map(|n| (n, w)))
    }
}

/// A variable given values by the line: `NAME=value` standing alone, `export NAME=value`, or a
/// `for` loop's words. It holds for the commands from `from` on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The variable's name.
    pub name: String,
    /// Its possible values; `None` when one of them cannot be read.
    pub values: Option<Vec<Word>>,
    /// The index in [`Reading::commands`] of the first command it holds for.
    pub from: usize,
}

/// A line as the reader reads it: every simple command it runs, in order (those of
/// substitutions, subshells and compound commands included, function bodies too), the variables
/// it assigns, and the first construct outside the subset, if any.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reading {
    /// Every simple command the line runs, in order.
    pub commands: Vec<Command>,
    /// The variables the line gives values.
    pub bindings: Vec<Binding>,
    /// The first construct outside the reader's subset: the line is opaque.
    pub opaque: Option<Construct>,
    /// A function that calls itself (a fork bomb's shape): its name.
    pub self_calling: Option<String>,
}

/// `NAME` of `NAME=…` or `NAME+=…`, when `word` is an assignment.
pub fn assignment_name(word: &str) -> Option<&str> {
    let (name, _) = word.split_once('=')?;
    let name = name.strip_suffix('+').unwrap_or(name);
    is_name(name).then_some(name)
}

/// A shell variable's name: a letter or `_`, then letters, digits and `_`.
pub fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Reads a line (see the module's docs).
pub fn read(line: &str) -> Reading {
    read_nested(line, 0)
}

/// Reads a line found `depth` levels inside another (a shell's `-c` line).
pub fn read_nested(line: &str, depth: usize) -> Reading {
    let mut reading = Reading::default();
    if line.len() > MAX_LINE {
        reading.opaque = Some(Construct::TooLong);
        return reading;
    }
    if depth > MAX_DEPTH {
        reading.opaque = Some(Construct::TooDeep);
        return reading;
    }
    if let Some(c) = line
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\t' | '\n'))
    {
        reading.opaque = Some(if c == '\r' {
            Construct::CarriageReturn
        } else {
            Construct::ControlCharacter
        });
        return reading;
    }
    let chars: Vec<char> = line.chars().collect();
    let mut p = Parser {
        s: &chars,
        i: 0,
        depth,
        out: reading,
        pending: Vec::new(),
    };
    if p.list(&[], false).is_ok() && p.i < p.s.len() {
        p.fail(Construct::Syntax);
    }
    p.out
}

/// Reading stopped at an opaque construct (recorded in the reading).
struct Stop;

type Step = Result<(), Stop>;

struct Parser<'a> {
    s: &'a [char],
    i: usize,
    depth: usize,
    out: Reading,
    /// Here-documents whose bodies start after the next newline.
    pending: Vec<HereDocument>,
}

/// A here-document met on the current line.
struct HereDocument {
    delimiter: String,
    tabs: bool,
    /// Its delimiter was quoted: the body is text, not expanded.
    quoted: bool,
}

const RESERVED: [&str; 16] = [
    "if", "then", "elif", "else", "fi", "while", "until", "do", "done", "for", "in", "case",
    "esac", "select", "function", "coproc",
];

fn is_meta(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>'
    )
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }

    fn at(&self, n: usize) -> Option<char> {
        self.s.get(self.i + n).copied()
    }

    fn starts(&self, text: &str) -> bool {
        text.chars().enumerate().all(|(k, c)| self.at(k) == Some(c))
    }

    fn fail(&mut self, construct: Construct) -> Stop {
        if self.out.opaque.is_none() {
            self.out.opaque = Some(construct);
        }
        Stop
    }

    /// Spaces, tabs and backslash-newlines.
    fn blanks(&mut self) {
        loop {
            match self.peek() {
                Some(' ' | '\t') => self.i += 1,
                Some('\\') if self.at(1) == Some('\n') => self.i += 2,
                _ => return,
            }
        }
    }

    /// Blanks, newlines and comments.
    fn blank_lines(&mut self) -> Step {
        loop {
            self.blanks();
            match self.peek() {
                Some('\n') => self.newline()?,
                Some('#') => self.comment(),
                _ => return Ok(()),
            }
        }
    }

    /// At a newline that ends a line: past it, and past the bodies of the line's
    /// here-documents. A body with an expansion, a backtick or a backslash under an unquoted
    /// delimiter is opaque.
    fn newline(&mut self) -> Step {
        self.i += 1;
        for doc in std::mem::take(&mut self.pending) {
            loop {
                if self.i >= self.s.len() {
                    return Ok(());
                }
                let start = self.i;
                while self.peek().is_some_and(|c| c != '\n') {
                    self.i += 1;
                }
                let line: String = self.s.get(start..self.i).unwrap_or(&[]).iter().collect();
                if self.peek() == Some('\n') {
                    self.i += 1;
                }
                let compared = if doc.tabs {
                    line.trim_start_matches('\t')
                } else {
                    line.as_str()
                };
                if compared == doc.delimiter {
                    break;
                }
                if !doc.quoted && line.contains(['$', '`', '\\']) {
                    return Err(self.fail(Construct::HereDocument));
                }
            }
        }
        Ok(())
    }

    fn comment(&mut self) {
        while let Some(c) = self.peek() {
            if c == '\n' {
                return;
            }
            self.i += 1;
        }
    }

    /// The plain word ahead (letters, digits and a few marks, up to a metacharacter), without
    /// reading it: for reserved words.
    fn bare_ahead(&self) -> Option<String> {
        let mut k = self.i;
        let mut w = String::new();
        while let Some(&c) = self.s.get(k) {
            if is_meta(c) {
                break;
            }
            if matches!(c, '\'' | '"' | '\\' | '$' | '`') {
                return None;
            }
            w.push(c);
            k += 1;
        }
        (!w.is_empty()).then_some(w)
    }

    fn take_bare(&mut self, word: &str) {
        self.i += word.chars().count();
    }

    fn deeper<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, Stop>) -> Result<T, Stop> {
        if self.depth >= MAX_DEPTH {
            return Err(self.fail(Construct::TooDeep));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// A list: pipelines separated by `;`, `&`, `&&`, `||` and newlines, up to one of `stops`
    /// (reserved words, in command position), a `)` when `paren`, or the end.
    fn list(&mut self, stops: &[&str], paren: bool) -> Step {
        loop {
            self.blank_lines()?;
            match self.peek() {
                None => return Ok(()),
                Some(')') if paren => return Ok(()),
                _ => {}
            }
            if let Some(w) = self.bare_ahead() {
                if stops.contains(&w.as_str()) {
                    return Ok(());
                }
            }
            self.pipeline(stops)?;
            self.blanks();
            match self.peek() {
                None => return Ok(()),
                Some(';') if self.at(1) == Some(';') => return Err(self.fail(Construct::Syntax)),
                Some(';') => self.i += 1,
                Some('\n') => self.newline()?,
                Some('&') if self.at(1) == Some('&') => {
                    self.i += 2;
                    self.need_command()?;
                }
                Some('&') => self.i += 1,
                Some('|') if self.at(1) == Some('|') => {
                    self.i += 2;
                    self.need_command()?;
                }
                Some('#') => self.comment(),
                Some(')') if paren => return Ok(()),
                _ => {
                    if let Some(w) = self.bare_ahead() {
                        if stops.contains(&w.as_str()) {
                            return Ok(());
                        }
                    }
                    return Err(self.fail(Construct::Syntax));
                }
            }
        }
    }

    /// After `&&` or `||`: a command must follow (newlines allowed).
    fn need_command(&mut self) -> Step {
        self.blank_lines()?;
        match self.peek() {
            None | Some(';' | '&' | '|' | ')') => Err(self.fail(Construct::Syntax)),
            _ => Ok(()),
        }
    }

    /// `[time [-p]] [!] command [| command]…`
    fn pipeline(&mut self, stops: &[&str]) -> Step {
        let mut piped = false;
        loop {
            self.blanks();
            // `!` and the `time` keyword stand only at the start of a pipeline (after a `|`,
            // `time` is a program and `!` a syntax error).
            if piped && matches!(self.bare_ahead().as_deref(), Some("!" | "time")) {
                // Parsers disagree on `| time` (bash runs the program, others the keyword).
                return Err(self.fail(Construct::Keyword));
            }
            match self.bare_ahead().as_deref().filter(|_| !piped) {
                Some("!") => {
                    self.i += 1;
                    continue;
                }
                Some("time") => {
                    self.i += 4;
                    self.blanks();
                    if self.bare_ahead().as_deref() == Some("-p") {
                        self.i += 2;
                    }
                    continue;
                }
                _ => {}
            }
            self.command(piped, stops)?;
            self.blanks();
            if self.peek() == Some('|') && self.at(1) != Some('|') {
                self.i += 1;
                if self.peek() == Some('&') {
                    self.i += 1;
                }
                self.blank_lines()?;
                if matches!(self.peek(), None | Some(';' | '&' | '|' | ')')) {
                    return Err(self.fail(Construct::Syntax));
                }
                piped = true;
                continue;
            }
            return Ok(());
        }
    }

    /// One command: compound or simple.
    fn command(&mut self, piped: bool, stops: &[&str]) -> Step {
        if self.peek() == Some('(') {
            if self.at(1) == Some('(') {
                return Err(self.fail(Construct::Arithmetic));
            }
            self.i += 1;
            self.deeper(|p| p.list(&[], true))?;
            if self.peek() != Some(')') {
                return Err(self.fail(Construct::Syntax));
            }
            self.i += 1;
            return self.trailing_redirects(piped);
        }
        if let Some(w) = self.bare_ahead() {
            match w.as_str() {
                "{" => {
                    self.take_bare("{");
                    self.deeper(|p| p.list(&["}"], false))?;
                    return self.close("}", piped);
                }
                "if" => {
                    self.take_bare("if");
                    return self.deeper(|p| p.if_rest(piped));
                }
                "while" | "until" => {
                    self.take_bare(&w);
                    return self.deeper(|p| {
                        p.list(&["do"], false)?;
                        p.expect_word("do")?;
                        p.list(&["done"], false)?;
                        p.close("done", piped)
                    });
                }
                "for" => {
                    self.take_bare("for");
                    return self.deeper(|p| p.for_rest(piped));
                }
                "case" | "select" | "coproc" | "function" | "[[" => {
                    return Err(self.fail(if w == "function" {
                        Construct::FunctionDefinition
                    } else {
                        Construct::Keyword
                    }));
                }
                s if stops.contains(&s) || RESERVED.contains(&s) || s == "}" => {
                    return Err(self.fail(Construct::Syntax));
                }
                _ => {}
            }
        }
        self.simple(piped)
    }

    fn expect_word(&mut self, word: &str) -> Step {
        self.blank_lines()?;
        if self.bare_ahead().as_deref() == Some(word) {
            self.take_bare(word);
            Ok(())
        } else {
            Err(self.fail(Construct::Syntax))
        }
    }

    /// The closing reserved word of a compound command, then its redirections.
    fn close(&mut self, word: &str, piped: bool) -> Step {
        self.expect_word(word)?;
        self.trailing_redirects(piped)
    }

    /// After `if`: `list then list [elif list then list]… [else list] fi`.
    fn if_rest(&mut self, piped: bool) -> Step {
        loop {
            self.list(&["then"], false)?;
            self.expect_word("then")?;
            self.list(&["elif", "else", "fi"], false)?;
            self.blank_lines()?;
            match self.bare_ahead().as_deref() {
                Some("elif") => self.take_bare("elif"),
                Some("else") => {
                    self.take_bare("else");
                    self.list(&["fi"], false)?;
                    return self.close("fi", piped);
                }
                _ => return self.close("fi", piped),
            }
        }
    }

    /// After `for`: `NAME [in words] ; do list done`.
    fn for_rest(&mut self, piped: bool) -> Step {
        self.blanks();
        if self.peek() == Some('(') {
            return Err(self.fail(Construct::Arithmetic));
        }
        let name = match self.bare_ahead() {
            Some(n) if is_name(&n) => n,
            _ => return Err(self.fail(Construct::Syntax)),
        };
        self.take_bare(&name);
        self.blank_lines()?;
        let mut values = Some(Vec::new());
        if self.bare_ahead().as_deref() == Some("in") {
            self.take_bare("in");
            let mut words = Vec::new();
            loop {
                self.blanks();
                match self.peek() {
                    Some(';') => {
                        self.i += 1;
                        break;
                    }
                    Some('\n') => {
                        self.newline()?;
                        break;
                    }
                    None => return Err(self.fail(Construct::Syntax)),
                    Some(c) if is_meta(c) => return Err(self.fail(Construct::Syntax)),
                    _ => words.push(self.word()?),
                }
            }
            values = Some(words);
        } else {
            // Without `in`: the positional parameters.
            values = values.filter(|_| false);
            if self.peek() == Some(';') {
                self.i += 1;
            }
        }
        self.out.bindings.push(Binding {
            name,
            values,
            from: self.out.commands.len(),
        });
        self.expect_word("do")?;
        self.list(&["done"], false)?;
        self.close("done", piped)
    }

    /// Redirections after a compound command, kept as a command without words.
    fn trailing_redirects(&mut self, piped: bool) -> Step {
        let mut cmd = Command {
            piped,
            ..Command::default()
        };
        loop {
            self.blanks();
            if !self.redirect_ahead() {
                break;
            }
            self.redirect(&mut cmd)?;
        }
        if !cmd.redirects.is_empty() {
            self.out.commands.push(cmd);
        }
        Ok(())
    }

    /// Whether a redirection starts here (`>`, `<`, `&>`, or digits then one of them).
    fn redirect_ahead(&self) -> bool {
        match self.peek() {
            Some('<' | '>') => true,
            Some('&') => self.at(1) == Some('>'),
            Some('{') => {
                // `{name}>`: a descriptor held in a variable.
                let mut k = self.i + 1;
                while self
                    .s
                    .get(k)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    k += 1;
                }
                self.s.get(k) == Some(&'}') && matches!(self.s.get(k + 1), Some('<' | '>'))
            }
            Some(c) if c.is_ascii_digit() => {
                let mut k = self.i;
                while self.s.get(k).is_some_and(char::is_ascii_digit) {
                    k += 1;
                }
                matches!(self.s.get(k), Some('<' | '>'))
            }
            _ => false,
        }
    }

    fn redirect(&mut self, cmd: &mut Command) -> Step {
        if self.peek() == Some('{') {
            return Err(self.fail(Construct::DescriptorVariable));
        }
        let mut fd: Option<u32> = None;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            fd = Some(fd.unwrap_or(0).saturating_mul(10).saturating_add(d));
            self.i += 1;
        }
        if self.starts("<(") || self.starts(">(") {
            return Err(self.fail(Construct::ProcessSubstitution));
        }
        // The operators, longest spelling first; their spellings are their words.
        let Some(op) = REDIRECT_OPS
            .iter()
            .copied()
            .find(|op| self.starts(op.as_str()))
        else {
            return Err(self.fail(Construct::Syntax));
        };
        self.i += op.as_str().chars().count();
        if fd.is_some() && matches!(op, RedirectOp::WriteBoth | RedirectOp::AppendBoth) {
            return Err(self.fail(Construct::Syntax));
        }
        self.blanks();
        match self.peek() {
            None => return Err(self.fail(Construct::Syntax)),
            Some(c) if is_meta(c) => {
                if self.starts("<(") || self.starts(">(") {
                    return Err(self.fail(Construct::ProcessSubstitution));
                }
                return Err(self.fail(Construct::Syntax));
            }
            _ => {}
        }
        let start = self.i;
        let target = self.word()?;
        if matches!(op, RedirectOp::HereDocument | RedirectOp::HereDocumentTabs) {
            if target.dynamic() {
                return Err(self.fail(Construct::HereDocument));
            }
            let raw = self.s.get(start..self.i).unwrap_or(&[]);
            self.pending.push(HereDocument {
                delimiter: target.text.clone(),
                tabs: op == RedirectOp::HereDocumentTabs,
                quoted: raw.iter().any(|c| matches!(c, '\'' | '"' | '\\')),
            });
        }
        cmd.redirects.push(Redirect { fd, op, target });
        Ok(())
    }

    /// A simple command: assignments, words and redirections, up to an operator.
    fn simple(&mut self, piped: bool) -> Step {
        let mut cmd = Command {
            piped,
            ..Command::default()
        };
        let mut assigning = true;
        loop {
            self.blanks();
            let Some(c) = self.peek() else { break };
            if self.redirect_ahead() {
                self.redirect(&mut cmd)?;
                continue;
            }
            if c == '(' {
                // `name()`: a function definition (a fork bomb's shape is kept).
                if cmd.words.len() == 1 && cmd.redirects.is_empty() {
                    return self.function(cmd);
                }
                return Err(self.fail(Construct::Syntax));
            }
            if is_meta(c) {
                break;
            }
            if c == '#' {
                self.comment();
                break;
            }
            let start = self.i;
            let word = self.word()?;
            if assigning {
                if let Some(name) = assignment_name(&word.text) {
                    // `NAME=(…)` is an array; a name must be written plainly.
                    let raw: String = self.s.get(start..self.i).unwrap_or(&[]).iter().collect();
                    if !raw.starts_with(name) {
                        // A quoted name (`"X"=1`) is a word, not an assignment.
                    } else if self.peek() == Some('(') {
                        return Err(self.fail(Construct::Array));
                    } else {
                        cmd.words.push(word);
                        cmd.assigns += 1;
                        continue;
                    }
                } else if word.text.contains("[") && word.text.contains("]=") {
                    let head = word.text.split('[').next().unwrap_or("");
                    if is_name(head) {
                        return Err(self.fail(Construct::Array));
                    }
                }
                assigning = false;
            }
            cmd.words.push(word);
        }
        if cmd.words.is_empty() && cmd.redirects.is_empty() {
            return Err(self.fail(Construct::Syntax));
        }
        if cmd.assigns == cmd.words.len() {
            // Assignments standing alone set the line's variables.
            let from = self.out.commands.len();
            for w in &cmd.words {
                if let Some(name) = assignment_name(&w.text) {
                    let value = value_of_assignment(w);
                    self.out.bindings.push(Binding {
                        name: name.to_string(),
                        values: value.map(|v| vec![v]),
                        from,
                    });
                }
            }
            if cmd.redirects.is_empty() {
                return Ok(());
            }
        }
        self.out.commands.push(cmd);
        Ok(())
    }

    /// After `name`, at `(`: `name ( ) compound-command`. Read (so its commands are judged) and
    /// then called opaque.
    fn function(&mut self, cmd: Command) -> Step {
        let name = cmd
            .words
            .first()
            .map(|w| w.text.clone())
            .unwrap_or_default();
        self.i += 1;
        self.blanks();
        if self.peek() != Some(')') {
            return Err(self.fail(Construct::Syntax));
        }
        self.i += 1;
        self.blank_lines()?;
        let first = self.out.commands.len();
        let body = self.deeper(|p| p.command(false, &[]));
        let calls_itself = self.out.commands.get(first..).is_some_and(|cmds| {
            cmds.iter()
                .any(|c| c.argv().first().is_some_and(|w| w.text == name))
        });
        if calls_itself && self.out.self_calling.is_none() {
            self.out.self_calling = Some(name);
        }
        body?;
        Err(self.fail(Construct::FunctionDefinition))
    }

    /// One word, up to an unquoted metacharacter.
    fn word(&mut self) -> Result<Word, Stop> {
        let mut w = Word::default();
        while let Some(c) = self.peek() {
            if is_meta(c) {
                break;
            }
            self.i += 1;
            match c {
                '\\' => match self.peek() {
                    Some('\n') => self.i += 1,
                    Some(n) => {
                        self.i += 1;
                        w.push_text(n, true);
                    }
                    None => w.push_text('\\', true),
                },
                '\'' => loop {
                    match self.peek() {
                        None => return Err(self.fail(Construct::UnclosedQuote)),
                        Some('\'') => {
                            self.i += 1;
                            if w.pieces.is_empty() {
                                w.pieces.push(Piece::Text {
                                    text: String::new(),
                                    quoted: true,
                                });
                            }
                            break;
                        }
                        Some(ch) => {
                            self.i += 1;
                            w.push_text(ch, true);
                        }
                    }
                },
                '"' => self.double_quoted(&mut w)?,
                '$' => self.dollar(&mut w, false)?,
                '`' => self.backtick(&mut w, false)?,
                _ => w.push_text(c, false),
            }
        }
        self.check_braces(&w)?;
        Ok(w)
    }

    /// Brace expansion: an unquoted `{` … `}` with an unquoted `,` or `..` between.
    fn check_braces(&mut self, w: &Word) -> Step {
        let mut open = false;
        let mut inside = false;
        for p in &w.pieces {
            if let Piece::Text {
                text,
                quoted: false,
            } = p
            {
                let mut prev = '\0';
                for c in text.chars() {
                    match c {
                        '{' => {
                            open = true;
                            inside = false;
                        }
                        ',' if open => inside = true,
                        '.' if open && prev == '.' => inside = true,
                        '}' if open && inside => return Err(self.fail(Construct::BraceExpansion)),
                        _ => {}
                    }
                    prev = c;
                }
            }
        }
        Ok(())
    }

    /// After `"`: up to the closing `"`.
    fn double_quoted(&mut self, w: &mut Word) -> Step {
        if w.pieces.is_empty() {
            w.pieces.push(Piece::Text {
                text: String::new(),
                quoted: true,
            });
        }
        loop {
            let Some(c) = self.peek() else {
                return Err(self.fail(Construct::UnclosedQuote));
            };
            self.i += 1;
            match c {
                '"' => return Ok(()),
                '\\' => match self.peek() {
                    Some(n @ ('"' | '\\' | '$' | '`')) => {
                        self.i += 1;
                        w.push_text(n, true);
                    }
                    Some('\n') => self.i += 1,
                    _ => w.push_text('\\', true),
                },
                '$' => self.dollar(w, true)?,
                '`' => self.backtick(w, true)?,
                _ => w.push_text(c, true),
            }
        }
    }

    /// After `$`: a parameter, a substitution, or a plain `$`.
    fn dollar(&mut self, w: &mut Word, quoted: bool) -> Step {
        match self.peek() {
            Some('\'') if !quoted => Err(self.fail(Construct::AnsiCQuote)),
            Some('"') if !quoted => Err(self.fail(Construct::LocaleQuote)),
            Some('[') => Err(self.fail(Construct::Arithmetic)),
            Some('(') => {
                if self.at(1) == Some('(') {
                    return Err(self.fail(Construct::Arithmetic));
                }
                self.i += 1;
                let start = self.i;
                self.deeper(|p| p.list(&[], true))?;
                if self.peek() != Some(')') {
                    return Err(self.fail(Construct::UnclosedQuote));
                }
                let inner: String = self.s.get(start..self.i).unwrap_or(&[]).iter().collect();
                self.i += 1;
                w.text.push_str("$(");
                w.text.push_str(&inner);
                w.text.push(')');
                w.pieces.push(Piece::Substitution { quoted });
                Ok(())
            }
            Some('{') => {
                self.i += 1;
                let mut name = String::new();
                while let Some(c) = self.peek() {
                    if c == '}' {
                        break;
                    }
                    name.push(c);
                    self.i += 1;
                }
                let simple = is_name(&name)
                    || (!name.is_empty() && name.chars().all(|c| c.is_ascii_digit()))
                    || (name.chars().count() == 1 && name.chars().all(|c| "@*#?$!-".contains(c)));
                if self.peek() != Some('}') {
                    return Err(self.fail(Construct::UnclosedQuote));
                }
                if !simple {
                    return Err(self.fail(Construct::ParameterOperator));
                }
                self.i += 1;
                w.text.push_str("${");
                w.text.push_str(&name);
                w.text.push('}');
                w.pieces.push(Piece::Parameter { name, quoted });
                Ok(())
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let mut name = String::new();
                while let Some(n) = self.peek() {
                    if !(n.is_ascii_alphanumeric() || n == '_') {
                        break;
                    }
                    name.push(n);
                    self.i += 1;
                }
                w.text.push('$');
                w.text.push_str(&name);
                w.pieces.push(Piece::Parameter { name, quoted });
                Ok(())
            }
            Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => {
                self.i += 1;
                w.text.push('$');
                w.text.push(c);
                w.pieces.push(Piece::Parameter {
                    name: c.to_string(),
                    quoted,
                });
                Ok(())
            }
            _ => {
                w.push_text('$', quoted);
                Ok(())
            }
        }
    }

    /// After `` ` ``: the text up to the closing backtick (`\$`, `` \` `` and `\\` unescaped),
    /// read as a line of its own. Backticks inside backticks are opaque.
    fn backtick(&mut self, w: &mut Word, quoted: bool) -> Step {
        let mut inner = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.fail(Construct::UnclosedQuote));
            };
            self.i += 1;
            match c {
                '`' => break,
                '\\' => match self.peek() {
                    Some('`') => return Err(self.fail(Construct::TooDeep)),
                    Some(n @ ('$' | '\\')) => {
                        self.i += 1;
                        inner.push(n);
                    }
                    Some('"') if quoted => {
                        self.i += 1;
                        inner.push('"');
                    }
                    _ => inner.push('\\'),
                },
                _ => inner.push(c),
            }
        }
        if self.depth >= MAX_DEPTH {
            return Err(self.fail(Construct::TooDeep));
        }
        let nested = read_nested(&inner, self.depth + 1);
        let base = self.out.commands.len();
        self.out.commands.extend(nested.commands);
        self.out
            .bindings
            .extend(nested.bindings.into_iter().map(|b| Binding {
                from: b.from + base,
                ..b
            }));
        if self.out.self_calling.is_none() {
            self.out.self_calling = nested.self_calling;
        }
        if let Some(c) = nested.opaque {
            return Err(self.fail(c));
        }
        w.text.push('`');
        w.text.push_str(&inner);
        w.text.push('`');
        w.pieces.push(Piece::Substitution { quoted });
        Ok(())
    }
}

/// The value of an assignment word (after `=`), when it has no substitution: its pieces after the
/// name.
fn value_of_assignment(w: &Word) -> Option<Word> {
    let mut value = Word::default();
    let mut seen = false;
    for p in &w.pieces {
        if seen {
            match p {
                Piece::Text { text, quoted } => {
                    for c in text.chars() {
                        value.push_text(c, *quoted);
                    }
                }
                Piece::Parameter { name, quoted } => {
                    value.text.push_str(&format!("${{{name}}}"));
                    value.pieces.push(Piece::Parameter {
                        name: name.clone(),
                        quoted: *quoted,
                    });
                }
                Piece::Substitution { .. } => return None,
            }
            continue;
        }
        match p {
            Piece::Text { text, quoted } => {
                if let Some((_, rest)) = text.split_once('=') {
                    seen = true;
                    for c in rest.chars() {
                        value.push_text(c, *quoted);
                    }
                }
            }
            _ => return None,
        }
    }
    if value.pieces.is_empty() {
        value.pieces.push(Piece::Text {
            text: String::new(),
            quoted: true,
        });
    }
    // An assignment's value is not split or globbed.
    for p in &mut value.pieces {
        match p {
            Piece::Text { quoted, .. } | Piece::Parameter { quoted, .. } => *quoted = true,
            Piece::Substitution { quoted } => *quoted = true,
        }
    }
    Some(value)
}

/// A command's program word read plainly: `/usr/bin/rm` → `rm`.
pub fn program_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

#[cfg(test)]
mod tests;
