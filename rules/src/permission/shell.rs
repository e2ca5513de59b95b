//! A command line spelled plainly (hardline.json `plain`): split into the simple commands it runs
//! — at `&&`, `||`, `;`, `|`, `&`, newlines, `( … )`, `$( … )` and backticks — with quotes and
//! backslashes removed; then [`plain`] unwraps the wrappers (`sudo`, `env`, `VAR=… cmd`,
//! `timeout`, `bash -c '…'`, `eval`, …) and reads `/usr/bin/rm` as `rm`.
//!
//! This is not a shell: it reads enough to judge a line, and it never fails — an unclosed quote
//! runs to the end of the line.

use crate::spec::types::Plain;

/// One word of a command, quotes and backslashes removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    /// It holds a `$…` expansion or a substitution, so its value is known only when it runs.
    pub dynamic: bool,
}

impl AsRef<str> for Word {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

/// A redirection: its operator (`>`, `>>`, `<`, `&>`, …) and its target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    pub op: String,
    pub target: String,
}

impl Redirect {
    /// Whether it writes a file (not a descriptor, not `/dev/null`).
    pub fn writes_file(&self) -> bool {
        let out = self.op.contains('>');
        let dup = self.op.ends_with('&') || self.target.starts_with('&');
        let harmless = matches!(
            self.target.as_str(),
            "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
        );
        out && !dup && !harmless && !self.target.is_empty()
    }
}

/// A simple command: its words and redirections.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Command {
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
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
}

/// Deeper nesting than this is read as plain text (a line cannot make the reader recurse without end).
const MAX_DEPTH: usize = 16;

/// Every simple command of `line`, those inside `( … )`, `$( … )` and backticks included (after
/// the command they stand in).
pub fn split(line: &str) -> Vec<Command> {
    let mut out = Vec::new();
    split_into(line, 0, &mut out);
    out
}

fn split_into(line: &str, depth: usize, out: &mut Vec<Command>) {
    let mut r = Reader {
        chars: line.chars().collect(),
        i: 0,
        depth,
        nested: Vec::new(),
    };
    let mut cmd = Command::default();
    let mut word: Option<Word> = None;
    let push_word = |word: &mut Option<Word>, cmd: &mut Command| {
        if let Some(w) = word.take() {
            cmd.words.push(w);
        }
    };
    let end_cmd =
        |cmd: &mut Command, out: &mut Vec<Command>, nested: &mut Vec<String>, depth: usize| {
            let done = std::mem::take(cmd);
            let brace = |w: &Word| matches!(w.text.as_str(), "{" | "}") && !w.dynamic;
            let mut done = done;
            while done.words.first().is_some_and(brace) {
                done.words.remove(0);
            }
            while done.words.last().is_some_and(brace) {
                done.words.pop();
            }
            if !done.words.is_empty() || !done.redirects.is_empty() {
                out.push(done);
            }
            for inner in nested.drain(..) {
                if depth < MAX_DEPTH {
                    split_into(&inner, depth + 1, out);
                }
            }
        };
    while let Some(c) = r.peek() {
        match c {
            ' ' | '\t' | '\r' => {
                r.i += 1;
                push_word(&mut word, &mut cmd);
            }
            '\n' | ';' | '(' | ')' => {
                r.i += 1;
                push_word(&mut word, &mut cmd);
                end_cmd(&mut cmd, out, &mut r.nested, depth);
            }
            '&' | '|' => {
                // `&>` and `&>>` redirect; `&&`, `||`, `|&`, `|` and `&` end the command.
                if c == '&' && r.peek_at(1) == Some('>') {
                    push_word(&mut word, &mut cmd);
                    let red = r.redirect();
                    cmd.redirects.push(red);
                    continue;
                }
                r.i += 1;
                if matches!(r.peek(), Some('&') | Some('|')) {
                    r.i += 1;
                }
                push_word(&mut word, &mut cmd);
                end_cmd(&mut cmd, out, &mut r.nested, depth);
            }
            '>' | '<' => {
                // A word of digits right before is the descriptor (`2>`).
                let fd = match &word {
                    Some(w)
                        if !w.dynamic
                            && !w.text.is_empty()
                            && w.text.chars().all(|d| d.is_ascii_digit()) =>
                    {
                        word.take().map(|w| w.text)
                    }
                    _ => None,
                };
                push_word(&mut word, &mut cmd);
                let mut red = r.redirect();
                if let Some(fd) = fd {
                    red.op = format!("{fd}{}", red.op);
                }
                cmd.redirects.push(red);
            }
            '#' if word.is_none() => {
                while let Some(ch) = r.peek() {
                    if ch == '\n' {
                        break;
                    }
                    r.i += 1;
                }
            }
            _ => {
                let w = word.get_or_insert_with(|| Word {
                    text: String::new(),
                    dynamic: false,
                });
                r.word_part(w);
            }
        }
    }
    push_word(&mut word, &mut cmd);
    end_cmd(&mut cmd, out, &mut r.nested, depth);
}

struct Reader {
    chars: Vec<char>,
    i: usize,
    depth: usize,
    /// Lines inside `$( … )` and backticks met in the current command, split after it.
    nested: Vec<String>,
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.chars.get(self.i + n).copied()
    }

    /// Reads one piece of a word (a quoted run, an escape, a substitution or one character).
    fn word_part(&mut self, w: &mut Word) {
        let Some(c) = self.peek() else { return };
        self.i += 1;
        match c {
            '\'' => {
                while let Some(ch) = self.peek() {
                    self.i += 1;
                    if ch == '\'' {
                        return;
                    }
                    w.text.push(ch);
                }
            }
            '"' => {
                while let Some(ch) = self.peek() {
                    match ch {
                        '"' => {
                            self.i += 1;
                            return;
                        }
                        '\\' => {
                            self.i += 1;
                            match self.peek() {
                                Some(n @ ('"' | '\\' | '$' | '`')) => {
                                    self.i += 1;
                                    w.text.push(n);
                                }
                                Some('\n') => self.i += 1,
                                _ => w.text.push('\\'),
                            }
                        }
                        '$' => self.dollar(w),
                        '`' => {
                            self.i += 1;
                            self.backtick(w);
                        }
                        _ => {
                            self.i += 1;
                            w.text.push(ch);
                        }
                    }
                }
            }
            '\\' => match self.peek() {
                Some('\n') => self.i += 1,
                Some(n) => {
                    self.i += 1;
                    w.text.push(n);
                }
                None => {}
            },
            '$' => {
                self.i -= 1;
                self.dollar(w);
            }
            '`' => self.backtick(w),
            _ => w.text.push(c),
        }
    }

    /// At a `$`: a substitution `$( … )`, a variable `$X` / `${X}`, or a plain `$`.
    fn dollar(&mut self, w: &mut Word) {
        self.i += 1;
        match self.peek() {
            Some('(') => {
                self.i += 1;
                let inner = self.until_close();
                w.text.push_str("$(");
                w.text.push_str(&inner);
                w.text.push(')');
                w.dynamic = true;
                self.nested.push(inner);
            }
            Some('{') => {
                w.text.push('$');
                while let Some(ch) = self.peek() {
                    self.i += 1;
                    w.text.push(ch);
                    if ch == '}' {
                        break;
                    }
                }
                w.dynamic = true;
            }
            Some(ch)
                if ch.is_ascii_alphanumeric()
                    || matches!(ch, '_' | '@' | '*' | '#' | '?' | '$' | '!' | '-') =>
            {
                w.text.push('$');
                w.dynamic = true;
                if ch.is_ascii_alphabetic() || ch == '_' {
                    while let Some(n) = self.peek() {
                        if !(n.is_ascii_alphanumeric() || n == '_') {
                            break;
                        }
                        self.i += 1;
                        w.text.push(n);
                    }
                } else {
                    self.i += 1;
                    w.text.push(ch);
                }
            }
            _ => w.text.push('$'),
        }
    }

    /// After `` ` ``: the line up to the closing backtick.
    fn backtick(&mut self, w: &mut Word) {
        let mut inner = String::new();
        while let Some(ch) = self.peek() {
            self.i += 1;
            if ch == '`' {
                break;
            }
            if ch == '\\' {
                if let Some(n) = self.peek() {
                    self.i += 1;
                    inner.push(n);
                    continue;
                }
            }
            inner.push(ch);
        }
        w.text.push('`');
        w.text.push_str(&inner);
        w.text.push('`');
        w.dynamic = true;
        self.nested.push(inner);
    }

    /// After `$(`: the text up to its closing `)`, nested parentheses and quotes respected.
    fn until_close(&mut self) -> String {
        let mut depth = 1usize;
        let mut inner = String::new();
        let mut quote: Option<char> = None;
        while let Some(ch) = self.peek() {
            self.i += 1;
            match (quote, ch) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), '\\') => {
                    inner.push(ch);
                    if let Some(n) = self.peek() {
                        self.i += 1;
                        inner.push(n);
                    }
                    continue;
                }
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(ch),
                (None, '(') => depth += 1,
                (None, ')') => {
                    depth -= 1;
                    if depth == 0 {
                        return inner;
                    }
                }
                (None, '\\') => {
                    inner.push(ch);
                    if let Some(n) = self.peek() {
                        self.i += 1;
                        inner.push(n);
                    }
                    continue;
                }
                _ => {}
            }
            inner.push(ch);
        }
        inner
    }

    /// At `>`, `<` or `&>`: the operator and the word after it.
    fn redirect(&mut self) -> Redirect {
        let mut op = String::new();
        while let Some(ch) = self.peek() {
            if matches!(ch, '>' | '<' | '&' | '|') && op.len() < 3 {
                // `>&` joins; `>|` forces; `&>` is one operator; stop before `&&`.
                if ch == '&' && !op.is_empty() && self.peek_at(1) == Some('&') {
                    break;
                }
                if ch == '|' && op != ">" {
                    break;
                }
                self.i += 1;
                op.push(ch);
            } else {
                break;
            }
        }
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.i += 1;
        }
        let mut w = Word {
            text: String::new(),
            dynamic: false,
        };
        while let Some(ch) = self.peek() {
            if matches!(
                ch,
                ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>'
            ) {
                break;
            }
            self.word_part(&mut w);
        }
        if self.depth > MAX_DEPTH {
            self.nested.clear();
        }
        Redirect { op, target: w.text }
    }
}

/// A command's program word read plainly: `/usr/bin/rm` → `rm`.
pub fn program_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Whether `words` is already plain: no assignment first, no wrapper, shell or eval to unwrap.
pub fn is_plain<S: AsRef<str>>(words: &[S], spec: &Plain) -> bool {
    match words.first().map(AsRef::as_ref) {
        None => true,
        Some(first) => {
            let program = program_name(first);
            !is_assignment(first)
                && spec.wrappers.get(program).is_none()
                && !spec.shells.iter().any(|s| s == program)
                && !spec.eval.iter().any(|s| s == program)
        }
    }
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            let mut chars = name.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// How many words at the start of `words` are a wrapper's: the wrapper itself, its options (with
/// their values), its assignments and positional words. Zero when `words` does not start with one.
pub fn wrapper_len(words: &[String], plain: &Plain) -> usize {
    let Some(first) = words.first() else { return 0 };
    let Some(spec) = plain.wrappers.get(program_name(first)) else {
        return 0;
    };
    let mut i = 1;
    let mut positional = spec.positional;
    while let Some(w) = words.get(i) {
        if w == "--" {
            i += 1;
            break;
        }
        if w.starts_with('-') && w.len() > 1 {
            i += 1;
            if spec.value.iter().any(|v| v == w) {
                i += 1;
            }
        } else if spec.assignments && is_assignment(w) {
            i += 1;
        } else if positional > 0 {
            positional -= 1;
            i += 1;
        } else {
            break;
        }
    }
    i.min(words.len())
}

/// The commands `words` runs, spelled plainly: leading `VAR=…` dropped, wrappers unwrapped, a
/// shell's `-c` line and `eval`'s words split again, the program read by its name. Each result is
/// a list of words whose first is the program.
pub fn plain(words: &[String], plain_spec: &Plain) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    plain_into(words, plain_spec, 0, &mut out);
    out
}

fn plain_into(words: &[String], spec: &Plain, depth: usize, out: &mut Vec<Vec<String>>) {
    let mut rest = words;
    for _ in 0..64 {
        while rest.first().is_some_and(|w| is_assignment(w)) {
            rest = rest.get(1..).unwrap_or(&[]);
        }
        let n = wrapper_len(rest, spec);
        if n == 0 {
            break;
        }
        rest = rest.get(n..).unwrap_or(&[]);
    }
    let Some(first) = rest.first() else { return };
    let program = program_name(first);
    let again = |line: &str, out: &mut Vec<Vec<String>>| {
        if depth >= MAX_DEPTH {
            return;
        }
        for cmd in split(line) {
            let inner: Vec<String> = cmd.words.iter().map(|w| w.text.clone()).collect();
            plain_into(&inner, spec, depth + 1, out);
        }
    };
    if spec.shells.iter().any(|s| s == program) {
        let args = rest.get(1..).unwrap_or(&[]);
        let script = args
            .iter()
            .position(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'))
            .and_then(|i| args.get(i + 1));
        if let Some(line) = script {
            again(line, out);
            return;
        }
    }
    if spec.eval.iter().any(|s| s == program) {
        again(&rest.get(1..).unwrap_or(&[]).join(" "), out);
        return;
    }
    let mut cmd: Vec<String> = rest.to_vec();
    if let Some(p) = cmd.first_mut() {
        *p = program.to_string();
    }
    out.push(cmd);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::spec;

    fn texts(line: &str) -> Vec<String> {
        split(line).iter().map(Command::text).collect()
    }

    fn plains(line: &str) -> Vec<String> {
        let p = &spec().hardline.plain;
        split(line)
            .iter()
            .flat_map(|c| {
                plain(
                    &c.words.iter().map(|w| w.text.clone()).collect::<Vec<_>>(),
                    p,
                )
            })
            .map(|w| w.join(" "))
            .collect()
    }

    #[test]
    fn splits_compound_lines() {
        assert_eq!(
            texts("a && b || c; d | e & f\ng"),
            ["a", "b", "c", "d", "e", "f", "g"]
        );
        assert_eq!(texts("(cd x && make)"), ["cd x", "make"]);
        assert_eq!(
            texts("echo $(rm -rf /) x"),
            ["echo $(rm -rf /) x", "rm -rf /"]
        );
        assert_eq!(texts("echo `whoami`"), ["echo `whoami`", "whoami"]);
        assert_eq!(texts("echo \"rm -rf /\""), ["echo rm -rf /"]);
        assert_eq!(texts("git commit -m 'a b'"), ["git commit -m a b"]);
        assert_eq!(texts("r\\m -rf x"), ["rm -rf x"]);
        assert_eq!(texts("echo 'unclosed"), ["echo unclosed"]);
        assert_eq!(texts("ls # a comment"), ["ls"]);
        assert_eq!(texts("{ a; b; }"), ["a", "b"]);
    }

    #[test]
    fn reads_redirections() {
        let c = split("echo x > /dev/sda 2>&1");
        assert_eq!(c[0].text(), "echo x");
        assert_eq!(
            c[0].redirects[0],
            Redirect {
                op: ">".into(),
                target: "/dev/sda".into()
            }
        );
        assert!(c[0].redirects[0].writes_file());
        assert!(!c[0].redirects[1].writes_file());
        let c = split("make &> log.txt && ls");
        assert_eq!(c[0].redirects[0].target, "log.txt");
        assert_eq!(c[1].text(), "ls");
    }

    #[test]
    fn unwraps_wrappers() {
        assert_eq!(plains("sudo -u root -E rm -rf /"), ["rm -rf /"]);
        assert_eq!(plains("env A=1 B=2 /usr/bin/rm -rf /"), ["rm -rf /"]);
        assert_eq!(plains("A=1 rm x"), ["rm x"]);
        assert_eq!(
            plains("timeout -s KILL 10 nice -n 5 nohup rm -rf ~"),
            ["rm -rf ~"]
        );
        assert_eq!(plains("bash -lc 'rm -rf / && ls'"), ["rm -rf /", "ls"]);
        assert_eq!(plains("eval \"rm -rf /\""), ["rm -rf /"]);
        assert_eq!(plains("xargs -n 1 rm -rf"), ["rm -rf"]);
        assert_eq!(plains("bash script.sh"), ["bash script.sh"]);
        assert_eq!(plains("sudo"), Vec::<String>::new());
    }

    #[test]
    fn never_panics_on_odd_lines() {
        for line in [
            "", "$", "$(", "`", "\\", "\"", "'", "${", ">", "2>", "&>", "((((", "))))", "$((1+2))",
            "a >| b", "<<<x",
        ] {
            let _ = split(line);
            let _ = plains(line);
        }
        let deep = "$(".repeat(500);
        let _ = split(&deep);
        let deep = "bash -c ".repeat(100) + "x";
        let _ = plains(&deep);
    }
}
