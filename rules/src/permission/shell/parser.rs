//! The parser of the reader's bash subset (see the module's docs): a line of characters into a
//! [`Reading`], or the first construct outside the subset.

use super::ast::*;

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
    let mut chars: Vec<char> = Vec::with_capacity(line.len());
    for c in line.chars() {
        if c.is_control() && !matches!(c, '\t' | '\n') {
            reading.opaque = Some(if c == '\r' {
                Construct::CarriageReturn
            } else {
                Construct::ControlCharacter
            });
            return reading;
        }
        chars.push(c);
    }
    let mut p = Parser {
        s: &chars,
        ascii: (chars.len() == line.len()).then_some(line),
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
    /// The line, when every character of it is one byte (most lines): the characters at `i..j`
    /// are its bytes at `i..j`, copied into a word at once.
    ascii: Option<&'a str>,
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

/// Every word the parser looks for ahead of it: the reserved words and the marks that open or
/// close a compound command or start a pipeline.
const KEYWORDS: [&str; 21] = [
    "if", "then", "elif", "else", "fi", "while", "until", "do", "done", "for", "in", "case",
    "esac", "select", "function", "coproc", "{", "}", "[[", "!", "time",
];

/// `time`'s option that is read as part of the keyword (`time -p cmd`).
const TIME_POSIX: &str = "-p";

/// The first letters of [`KEYWORDS`] and of [`TIME_POSIX`] (all ASCII), one bit each: the words
/// [`Parser::keyword_ahead`] may find.
const KEYWORD_STARTS: u128 = first_letters(&KEYWORDS) | first_letters(&[TIME_POSIX]);

/// The first letters of `words` that are ASCII, one bit each (made when the crate is compiled).
const fn first_letters(words: &[&str]) -> u128 {
    let mut letters = 0u128;
    let mut rest = words;
    while let [word, after @ ..] = rest {
        if let Some(&first) = word.as_bytes().first() {
            if first < 128 {
                letters |= 1u128 << first;
            }
        }
        rest = after;
    }
    letters
}

fn is_meta(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>'
    )
}

/// A character of an unquoted word that is itself: not a metacharacter, and none of the
/// characters `word` reads otherwise (a backslash, a quote, `$`, a backtick).
fn stands_for_itself(c: char) -> bool {
    !is_meta(c) && !matches!(c, '\\' | '\'' | '"' | '$' | '`')
}

impl<'a> Parser<'a> {
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
            let mut body = String::new();
            loop {
                if self.i >= self.s.len() {
                    self.out.here_documents.push(body);
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
                body.push_str(&line);
                body.push('\n');
            }
            self.out.here_documents.push(body);
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
    /// reading it: for reserved words. Borrowed from the line: this is asked several times a
    /// command, and a copy each time was a third of the reader's allocations.
    fn bare_ahead(&self) -> Option<&'a [char]> {
        let rest = self.s.get(self.i..)?;
        let end = rest.iter().position(|&c| is_meta(c)).unwrap_or(rest.len());
        let w = rest.get(..end)?;
        let quoted = w.iter().any(|c| matches!(c, '\'' | '"' | '\\' | '$' | '`'));
        (!w.is_empty() && !quoted).then_some(w)
    }

    /// The plain word ahead when it is one of [`KEYWORDS`] (or [`TIME_POSIX`] after `time`).
    fn keyword_ahead(&self) -> Option<&'static str> {
        // Most words start with a letter no keyword starts with: none, without reading them.
        let first = u32::from(*self.s.get(self.i)?);
        if first >= 128 || KEYWORD_STARTS & (1u128 << first) == 0 {
            return None;
        }
        let w = self.bare_ahead()?;
        // Every keyword is ASCII, so its length in characters is its length in bytes: a word of
        // another length is no keyword, without comparing its characters.
        KEYWORDS
            .iter()
            .chain(&[TIME_POSIX])
            .find(|k| k.len() == w.len() && k.bytes().zip(w).all(|(b, &c)| char::from(b) == c))
            .copied()
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
            if let Some(w) = self.keyword_ahead() {
                if stops.contains(&w) {
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
                    if let Some(w) = self.keyword_ahead() {
                        if stops.contains(&w) {
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
            if piped && matches!(self.keyword_ahead(), Some("!" | "time")) {
                // Parsers disagree on `| time` (bash runs the program, others the keyword).
                return Err(self.fail(Construct::Keyword));
            }
            match self.keyword_ahead().filter(|_| !piped) {
                Some("!") => {
                    self.i += 1;
                    continue;
                }
                Some("time") => {
                    self.i += 4;
                    self.blanks();
                    if self.keyword_ahead() == Some(TIME_POSIX) {
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
        if let Some(w) = self.keyword_ahead() {
            match w {
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
                    self.take_bare(w);
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
        if self.keyword_ahead() == Some(word) {
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
            match self.keyword_ahead() {
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
        let name: String = self.bare_ahead().unwrap_or(&[]).iter().collect();
        if !is_name(&name) {
            return Err(self.fail(Construct::Syntax));
        }
        self.take_bare(&name);
        self.blank_lines()?;
        let values;
        if self.keyword_ahead() == Some("in") {
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
            // Without `in`: the positional parameters, each a value (`"$@"`).
            let mut every = Word::default();
            every.text.push_str("${@}");
            every.pieces.push(Piece::Parameter {
                name: "@".to_string(),
                quoted: true,
            });
            values = Some(vec![every]);
            if self.peek() == Some(';') {
                self.i += 1;
            }
        }
        let written = values
            .iter()
            .flatten()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        self.out.bindings.push(Binding {
            name,
            values,
            from: self.out.commands.len(),
            appends: false,
            written,
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
                        appends: w.text.starts_with(&format!("{name}+=")),
                        written: w
                            .text
                            .split_once('=')
                            .map_or("", |(_, after)| after)
                            .to_string(),
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
        // Room for the text up to the next metacharacter: all of a word without quotes.
        let rest = self.s.get(self.i..).unwrap_or(&[]);
        let unquoted = rest.iter().take_while(|&&c| !is_meta(c));
        let bytes = if self.ascii.is_some() {
            unquoted.count()
        } else {
            unquoted.map(|c| c.len_utf8()).sum()
        };
        let mut w = Word::with_capacity(bytes);
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
                                w.push_empty_text();
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
                _ => {
                    // The characters standing for themselves up to the next special one, at
                    // once: most words are nothing else.
                    let start = self.i - 1;
                    let run = self.s.get(start..).unwrap_or(&[]);
                    let plain = run.iter().take_while(|&&c| stands_for_itself(c)).count();
                    match self.ascii.and_then(|line| line.get(start..start + plain)) {
                        Some(bytes) => w.push_plain_str(bytes),
                        None => w.push_plain(run.get(..plain).unwrap_or(&[])),
                    }
                    self.i = start + plain.max(1);
                }
            }
        }
        self.check_braces(&w)?;
        Ok(w)
    }

    /// Brace expansion: an unquoted `{` … `}` with an unquoted `,` or `..` between.
    fn check_braces(&mut self, w: &Word) -> Step {
        // A word whose text holds no `{` has none in its pieces.
        if !w.text.contains('{') {
            return Ok(());
        }
        let mut open = false;
        let mut inside = false;
        for p in w.piece_views() {
            if let PieceView::Text {
                text,
                quoted: false,
            } = p
            {
                // By bytes: the four are ASCII, which no byte of another character is.
                let mut prev = 0;
                for c in text.bytes() {
                    match c {
                        b'{' => {
                            open = true;
                            inside = false;
                        }
                        b',' if open => inside = true,
                        b'.' if open && prev == b'.' => inside = true,
                        b'}' if open && inside => return Err(self.fail(Construct::BraceExpansion)),
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
            w.push_empty_text();
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
        self.out.here_documents.extend(nested.here_documents);
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
pub fn value_of_assignment(w: &Word) -> Option<Word> {
    let mut value = Word::default();
    let mut seen = false;
    for p in w.piece_views() {
        if seen {
            match p {
                PieceView::Text { text, quoted } => {
                    for c in text.chars() {
                        value.push_text(c, quoted);
                    }
                }
                PieceView::Parameter { name, quoted } => {
                    value.text.push_str(&format!("${{{name}}}"));
                    value.pieces.push(Piece::Parameter {
                        name: name.to_string(),
                        quoted,
                    });
                }
                PieceView::Substitution { .. } => return None,
            }
            continue;
        }
        match p {
            PieceView::Text { text, quoted } => {
                if let Some((_, rest)) = text.split_once('=') {
                    seen = true;
                    for c in rest.chars() {
                        value.push_text(c, quoted);
                    }
                }
            }
            _ => return None,
        }
    }
    if value.pieces.is_empty() {
        value.push_empty_text();
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

#[cfg(test)]
mod keyword_tests {
    use super::{KEYWORDS, KEYWORD_STARTS, TIME_POSIX};

    /// `keyword_ahead` compares a keyword's byte length with a word's length in characters.
    #[test]
    fn every_keyword_is_ascii() {
        assert!(KEYWORDS.iter().chain(&[TIME_POSIX]).all(|k| k.is_ascii()));
    }

    /// `keyword_ahead` passes over a word whose first letter starts no keyword: exactly the
    /// letters that start one are marked.
    #[test]
    fn the_keywords_first_letters_are_marked() {
        for letter in 0u8..128 {
            let starts = KEYWORDS
                .iter()
                .chain(&[TIME_POSIX])
                .any(|k| k.as_bytes().first() == Some(&letter));
            assert_eq!(
                KEYWORD_STARTS & (1u128 << letter) != 0,
                starts,
                "{:?}",
                char::from(letter)
            );
        }
    }
}
