//! What the command reader reads a line into: words and their pieces, redirections, simple
//! commands, the variables a line assigns, and the construct that made a line opaque.

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
    /// Unquoted values with blanks that split a command's words more ways than are read.
    WordSplitting,
    /// A word with more possible values than are followed, a value handed through more
    /// variables than are followed, or more folders the line may be in, links it makes or files
    /// `find` finds than are followed: which of them it names is not read.
    TooManyValues,
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
    WordSplitting => "word_splitting",
    TooManyValues => "too_many_values",
});

impl fmt::Display for Construct {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One piece of a word, as bash expands it. A piece of text is a run of its word's
/// [`Word::text`] (which holds it already: a copy of its own was an allocation for every word of
/// every line); [`Word::piece_views`] reads the pieces with their text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Characters standing for themselves.
    Text {
        /// Where the characters, quotes removed, are in the word's text (bytes).
        span: std::ops::Range<usize>,
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

/// A piece of a word as read, with its text: what [`Word::piece_views`] gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PieceView<'w> {
    /// Characters standing for themselves.
    Text {
        /// The characters, quotes removed.
        text: &'w str,
        /// Whether quotes or a backslash kept them from globbing and splitting.
        quoted: bool,
    },
    /// `$NAME`, `${NAME}`, `$1`, `$@`, …: known only when the line runs.
    Parameter {
        /// The parameter's name (`HOME`, `1`, `@`).
        name: &'w str,
        /// Whether it stood inside double quotes (not split).
        quoted: bool,
    },
    /// `$( … )` or backticks.
    Substitution {
        /// Whether it stood inside double quotes (not split).
        quoted: bool,
    },
}

/// A word's pieces, in order. Most words are one piece, which is held in place: a list of one
/// was an allocation for every word of every line.
#[derive(Debug, Clone)]
pub enum Pieces {
    /// Exactly one piece.
    One(Piece),
    /// None, or more than one.
    Many(Vec<Piece>),
}

impl Pieces {
    /// Adds a piece at the end.
    pub fn push(&mut self, piece: Piece) {
        *self = match std::mem::take(self) {
            Pieces::One(first) => Pieces::Many(vec![first, piece]),
            Pieces::Many(list) if list.is_empty() => Pieces::One(piece),
            Pieces::Many(mut list) => {
                list.push(piece);
                Pieces::Many(list)
            }
        };
    }
}

impl Default for Pieces {
    fn default() -> Pieces {
        Pieces::Many(Vec::new())
    }
}

impl From<Vec<Piece>> for Pieces {
    fn from(mut list: Vec<Piece>) -> Pieces {
        match (list.pop(), list.is_empty()) {
            (Some(only), true) => Pieces::One(only),
            (Some(last), false) => {
                list.push(last);
                Pieces::Many(list)
            }
            (None, _) => Pieces::default(),
        }
    }
}

impl std::ops::Deref for Pieces {
    type Target = [Piece];

    fn deref(&self) -> &[Piece] {
        match self {
            Pieces::One(piece) => std::slice::from_ref(piece),
            Pieces::Many(list) => list,
        }
    }
}

impl std::ops::DerefMut for Pieces {
    fn deref_mut(&mut self) -> &mut [Piece] {
        match self {
            Pieces::One(piece) => std::slice::from_mut(piece),
            Pieces::Many(list) => list,
        }
    }
}

impl PartialEq for Pieces {
    fn eq(&self, other: &Pieces) -> bool {
        **self == **other
    }
}

impl Eq for Pieces {}

impl<'a> IntoIterator for &'a Pieces {
    type Item = &'a Piece;
    type IntoIter = std::slice::Iter<'a, Piece>;

    fn into_iter(self) -> std::slice::Iter<'a, Piece> {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Pieces {
    type Item = &'a mut Piece;
    type IntoIter = std::slice::IterMut<'a, Piece>;

    fn into_iter(self) -> std::slice::IterMut<'a, Piece> {
        self.iter_mut()
    }
}

/// One word of a command: its pieces, and its text with quotes removed (expansions written as
/// `$NAME` and `$(…)`), which is what rules match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Word {
    /// The word with quotes removed, expansions written as they stand: what rules match. Its
    /// pieces of text are runs of it (their spans): it grows only with them, by the reader and the
    /// word builders of the plain reading (a span that does not fit it is read as unknown:
    /// [`Word::piece_views`]).
    pub text: String,
    /// The word as bash expands it, piece by piece.
    pub pieces: Pieces,
}

impl Word {
    /// A word of plain text (quoted: no glob).
    pub fn literal(text: &str) -> Word {
        Word {
            text: text.to_string(),
            pieces: Pieces::One(Piece::Text {
                span: 0..text.len(),
                quoted: true,
            }),
        }
    }

    /// A word of text as written without quotes: a `~` at its start is the home, and its
    /// wildcards are a glob (`~/.netrc`, a path the data spells).
    pub fn unquoted(text: &str) -> Word {
        Word {
            text: text.to_string(),
            pieces: Pieces::One(Piece::Text {
                span: 0..text.len(),
                quoted: false,
            }),
        }
    }

    /// A word of quoted text with a value known only when it runs between each two of `parts`
    /// (xargs's `-I{}` in `/home/u/.s{}h/id_rsa`: `/home/u/.s` and `h/id_rsa`).
    pub fn with_unknown(parts: &[&str]) -> Word {
        let mut word = Word::default();
        for (at, part) in parts.iter().enumerate() {
            if at > 0 {
                word.text.push_str("$(…)");
                word.pieces.push(Piece::Substitution { quoted: true });
            }
            for c in part.chars() {
                word.push_text(c, true);
            }
        }
        word
    }

    /// A word of quoted text with the parameter `name` between each two of `parts` (find's
    /// `{}/pre-commit`: `{}` and `/pre-commit`).
    pub fn with_parameter(parts: &[&str], name: &str) -> Word {
        let mut word = Word::default();
        for (at, part) in parts.iter().enumerate() {
            if at > 0 {
                word.text.push_str(name);
                word.pieces.push(Piece::Parameter {
                    name: name.into(),
                    quoted: true,
                });
            }
            for c in part.chars() {
                word.push_text(c, true);
            }
        }
        word
    }

    /// The word's pieces, each with its text.
    pub fn piece_views(&self) -> impl Iterator<Item = PieceView<'_>> {
        self.pieces.iter().map(|piece| self.view(piece))
    }

    /// The word's first piece, with its text.
    pub fn first_piece(&self) -> Option<PieceView<'_>> {
        self.pieces.first().map(|piece| self.view(piece))
    }

    /// A piece of this word, with its text. A piece of text whose place is not in the word's text
    /// (which the builders never make) is not read as some other text: it is read as a value known
    /// only when the line runs, so its word's values are unknown and nothing is allowed on a guess.
    fn view<'w>(&'w self, piece: &'w Piece) -> PieceView<'w> {
        match piece {
            Piece::Text { span, quoted } => match self.text.get(span.clone()) {
                Some(text) => PieceView::Text {
                    text,
                    quoted: *quoted,
                },
                None => PieceView::Substitution { quoted: *quoted },
            },
            Piece::Parameter { name, quoted } => PieceView::Parameter {
                name,
                quoted: *quoted,
            },
            Piece::Substitution { quoted } => PieceView::Substitution { quoted: *quoted },
        }
    }

    /// An empty piece of text, quoted, at the word's end (`''`, `""`: a word of no characters).
    pub(crate) fn push_empty_text(&mut self) {
        let end = self.text.len();
        self.pieces.push(Piece::Text {
            span: end..end,
            quoted: true,
        });
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
        // Its pieces of text are runs of its text: a text holding none of `*`, `?` and `[` (most
        // words) makes no glob, without its pieces read.
        if !self.text.bytes().any(|b| matches!(b, b'*' | b'?' | b'[')) {
            return false;
        }
        let mut open = false;
        for p in self.piece_views() {
            if let PieceView::Text {
                text,
                quoted: false,
            } = p
            {
                // By bytes: the four are ASCII, which no byte of another character is.
                for c in text.bytes() {
                    match c {
                        b'*' | b'?' => return true,
                        b'[' => open = true,
                        b']' if open => return true,
                        _ => {}
                    }
                }
            }
        }
        false
    }

    /// An empty word with room for `bytes` of text: a word is read character by character, and
    /// growing its text one character at a time was most of the reader's allocations.
    pub(super) fn with_capacity(bytes: usize) -> Word {
        Word {
            text: String::with_capacity(bytes),
            pieces: Pieces::default(),
        }
    }

    /// Unquoted characters that stand for themselves, added at once.
    pub(super) fn push_plain(&mut self, run: &[char]) {
        let start = self.text.len();
        self.text.extend(run);
        self.add_to_piece(start, false);
    }

    /// Unquoted characters that stand for themselves, added at once from the line's text.
    pub(super) fn push_plain_str(&mut self, run: &str) {
        let start = self.text.len();
        self.text.push_str(run);
        self.add_to_piece(start, false);
    }

    /// One character, quoted or not.
    pub(super) fn push_text(&mut self, c: char, quoted: bool) {
        let start = self.text.len();
        self.text.push(c);
        self.add_to_piece(start, quoted);
    }

    /// The word's text from `start` on (just added) added to its last piece when that is text
    /// quoted alike, else as a new piece.
    fn add_to_piece(&mut self, start: usize, quoted: bool) {
        let end = self.text.len();
        if let Some(Piece::Text { span, quoted: q }) = self.pieces.last_mut() {
            if *q == quoted && span.end == start {
                span.end = end;
                return;
            }
        }
        self.pieces.push(Piece::Text {
            span: start..end,
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
pub(super) const REDIRECT_OPS: [RedirectOp; 12] = [
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
    /// Whether its target is a descriptor (`>&2`, `<&0`, `>&-`), not a file.
    pub fn is_descriptor(&self) -> bool {
        let t = self.target.text.as_str();
        matches!(self.op, RedirectOp::DuplicateOut | RedirectOp::DuplicateIn)
            && !self.target.dynamic()
            && !t.is_empty()
            && (t == "-" || t.trim_end_matches('-').chars().all(|c| c.is_ascii_digit()))
    }

    /// Whether it opens its target for writing: any writing operator, and `>&` to a word that is
    /// not a descriptor.
    pub fn writes_file(&self) -> bool {
        match self.op {
            RedirectOp::Write
            | RedirectOp::Append
            | RedirectOp::Clobber
            | RedirectOp::ReadWrite
            | RedirectOp::WriteBoth
            | RedirectOp::AppendBoth => true,
            RedirectOp::DuplicateOut => !self.is_descriptor(),
            _ => false,
        }
    }

    /// Whether it opens its target for reading: `<`, `<>`, and `<&` to a word that is not a
    /// descriptor.
    pub fn reads_file(&self) -> bool {
        match self.op {
            RedirectOp::Read | RedirectOp::ReadWrite => true,
            RedirectOp::DuplicateIn => !self.is_descriptor(),
            _ => false,
        }
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
        let bytes = self.words.iter().map(|w| w.text.len() + 1).sum();
        let mut out = String::with_capacity(bytes);
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
    /// `NAME+=value`: the value is added to the one the variable had before.
    pub appends: bool,
    /// Its value as written after the `=`, command substitutions and all (`$(dirname x)`);
    /// a `for` loop's words joined by blanks.
    pub written: String,
}

/// A line as the reader reads it: every simple command it runs, in order (those of
/// substitutions, subshells and compound commands included, function bodies too), the variables
/// it assigns, and the first construct outside the subset, if any.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reading {
    /// Every simple command the line runs, in order.
    pub commands: Vec<Command>,
    /// The bodies of its here-documents, as written (a body that expands is opaque).
    pub here_documents: Vec<String>,
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

/// A command's program word read plainly: `/usr/bin/rm` → `rm`.
pub fn program_name(word: &str) -> &str {
    crate::permission::path::last_name(word)
}
