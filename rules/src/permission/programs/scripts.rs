//! The programs `sed` and `awk` are given, read for commands that run something or touch a file
//! the line does not name. Both fail closed: what the reader cannot follow counts as an effect.
//!
//! A sed script is read command by command as GNU sed reads it (addresses, `!`, blocks, labels,
//! `a`/`i`/`c` text, `s` and `y` with any delimiter and bracket expressions): `e`, `r`, `R`, `w`
//! and `W`, and the `e` and `w` flags of `s`, are effects — exactly what `sed --sandbox` refuses.
//! An awk program is not parsed: one that holds `system`, `getline`, a pipe `|`, a `>` (an output
//! redirection or a comparison) or `@` (gawk's `@load`, `@include`) counts as one. For the
//! hardline, the shell lines they run are read where the script spells them ([`sed_code`],
//! [`awk_code`]).

use super::effects::Code;

/// Whether a sed script (its `-e` parts joined by newlines, as sed joins them) runs or touches a
/// file.
pub fn sed_effect(script: &str) -> bool {
    let chars: Vec<char> = script.chars().collect();
    SedReader {
        chars: &chars,
        at: 0,
    }
    .read()
    .unwrap_or(true)
}

/// The shell lines a sed script runs: each `e COMMAND`; `e` alone and the `e` flag of `s`
/// run text of the input, which the line does not give (a script the reader cannot follow is
/// unreadable too).
pub fn sed_code(script: &str) -> Vec<Code> {
    let chars: Vec<char> = script.chars().collect();
    let mut reader = SedReader {
        chars: &chars,
        at: 0,
    };
    let mut out = Vec::new();
    if reader.code(&mut out).is_none() {
        out.push(Code::Unreadable(script.to_string()));
    }
    out
}

/// The shell lines an awk program runs: `system("LINE")`, `"LINE" | getline`, `print | "LINE"`
/// with the line written as one string; any other `system`, pipe or `getline` of a command is
/// unreadable, and so is a `getline` from a file (`getline l < "FILE"`) and a `print` or `printf`
/// into one (`print > "FILE"`).
pub fn awk_code(program: &str) -> Vec<Code> {
    let mut out = Vec::new();
    let unreadable = |out: &mut Vec<Code>| out.push(Code::Unreadable(program.to_string()));
    // Arguments set by the program (`ARGV[1]=…`) name files the line does not.
    if program.contains("ARGV") {
        unreadable(&mut out);
    }
    // `getline l < "FILE"`, `print > "FILE"`: a file the line does not name.
    for (word, redirection) in [("getline", '<'), ("print", '>')] {
        for (k, _) in program.match_indices(word) {
            let statement = program
                .get(k..)
                .unwrap_or("")
                .split([';', '}', '\n'])
                .next()
                .unwrap_or("");
            if statement.contains(redirection) {
                unreadable(&mut out);
            }
        }
    }
    let mut rest = program;
    while let Some(k) = rest.find("system") {
        let after = rest.get(k + "system".len()..).unwrap_or("").trim_start();
        match after
            .strip_prefix('(')
            .map(str::trim_start)
            .and_then(string_literal)
        {
            Some((line, tail)) if tail.trim_start().starts_with(')') => out.push(Code::Line(line)),
            _ => unreadable(&mut out),
        }
        rest = rest.get(k + 1..).unwrap_or("");
    }
    for (k, _) in program.match_indices('|') {
        let before = program.get(..k).unwrap_or("").trim_end();
        let after = program.get(k + 1..).unwrap_or("").trim_start();
        let after = after.strip_prefix('&').unwrap_or(after).trim_start();
        if after.starts_with("getline") {
            // `"cmd" | getline`: the string before the pipe.
            match before.rfind('"').and_then(|end| {
                let start = before.get(..end)?.rfind('"')?;
                Some(before.get(start + 1..end)?.to_string())
            }) {
                Some(line) if before.ends_with('"') => out.push(Code::Line(line)),
                _ => unreadable(&mut out),
            }
        } else if after.starts_with('|') || before.ends_with('|') {
            // `||`, the logical or.
        } else {
            match string_literal(after) {
                Some((line, _)) => out.push(Code::Line(line)),
                None => unreadable(&mut out),
            }
        }
    }
    out
}

/// A double-quoted awk string at the start of `text` (with `\"` and `\\`), and what follows it.
fn string_literal(text: &str) -> Option<(String, &str)> {
    let body = text.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((k, c)) = chars.next() {
        match c {
            '\\' => {
                let (_, next) = chars.next()?;
                out.push(next);
            }
            '"' => return Some((out, body.get(k + 1..).unwrap_or(""))),
            _ => out.push(c),
        }
    }
    None
}

/// Whether an awk program may run a command or write a file.
pub fn awk_effect(program: &str) -> bool {
    program.contains("system") || program.contains("getline") || program.contains(['|', '>', '@'])
}

struct SedReader<'a> {
    chars: &'a [char],
    at: usize,
}

/// `None`: the reader cannot follow the script.
type Read<T> = Option<T>;

impl SedReader<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek();
        self.at += 1;
        c
    }

    fn blanks(&mut self) {
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.at += 1;
        }
    }

    /// Whether the script has an effect (`None`: not read).
    fn read(&mut self) -> Read<bool> {
        loop {
            while self.peek().is_some_and(|c| c.is_whitespace() || c == ';') {
                self.at += 1;
            }
            let Some(c) = self.peek() else {
                return Some(false);
            };
            if c == '#' {
                self.skip_line();
                continue;
            }
            self.address()?;
            self.blanks();
            if self.peek() == Some(',') {
                self.at += 1;
                self.blanks();
                self.address()?;
                self.blanks();
            }
            while self.peek() == Some('!') {
                self.at += 1;
                self.blanks();
            }
            let command = self.next()?;
            match command {
                // A block's commands follow at once.
                '{' => continue,
                '}' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x'
                | 'z' | 'F' => {}
                'l' | 'L' | 'q' | 'Q' => {
                    self.blanks();
                    while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                        self.at += 1;
                    }
                }
                ':' | 'b' | 't' | 'T' | 'v' => self.label(),
                'a' | 'i' | 'c' => self.text(),
                'e' | 'r' | 'R' | 'w' | 'W' => return Some(true),
                's' => {
                    let delimiter = self.next()?;
                    if matches!(delimiter, '\n' | '\\') {
                        return None;
                    }
                    self.part(delimiter, true)?;
                    self.part(delimiter, false)?;
                    if self.flags()? {
                        return Some(true);
                    }
                }
                'y' => {
                    let delimiter = self.next()?;
                    if matches!(delimiter, '\n' | '\\') {
                        return None;
                    }
                    self.part(delimiter, false)?;
                    self.part(delimiter, false)?;
                }
                _ => return None,
            }
            self.blanks();
            match self.peek() {
                None | Some(';' | '\n' | '}' | '#') => {}
                Some(_) => return None,
            }
        }
    }

    /// The commands of `e`: each `e LINE` a line; `e` alone, the `s` flags `e` and `w`, and the
    /// file commands `r`, `R`, `w`, `W` unreadable.
    fn code(&mut self, out: &mut Vec<Code>) -> Read<()> {
        let start = self.at;
        // A first pass with the effect reader keeps the grammar in one place: an unreadable
        // script is `None`.
        self.read()?;
        self.at = start;
        let text: String = self.chars.iter().collect();
        for command in split_commands(&text) {
            let command = command.trim();
            let body = strip_address(command);
            if let Some(rest) = body.strip_prefix('e') {
                let line = rest.trim();
                if line.is_empty() {
                    out.push(Code::Unreadable(command.to_string()));
                } else {
                    out.push(Code::Line(line.to_string()));
                }
            } else if body.starts_with('s') && s_flags(body).contains(['e', 'w']) {
                out.push(Code::Unreadable(command.to_string()));
            } else if body.starts_with(['r', 'R', 'w', 'W']) {
                // A file read into the output or written (`1r ~/.aws/credentials`, `w /etc/x`):
                // what the line touches is sed's to say, not the line's.
                out.push(Code::Unreadable(command.to_string()));
            }
        }
        Some(())
    }

    fn skip_line(&mut self) {
        while self.peek().is_some_and(|c| c != '\n') {
            self.at += 1;
        }
    }

    /// A line number, `$`, `first~step`, `+N`, `~N`, `/regex/` or `\cregexc` with its `I` and
    /// `M` flags; or nothing.
    fn address(&mut self) -> Read<()> {
        match self.peek() {
            Some(c) if c.is_ascii_digit() || c == '$' || c == '+' || c == '~' => {
                self.at += 1;
                while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '~') {
                    self.at += 1;
                }
            }
            Some('/') => {
                self.at += 1;
                self.part('/', true)?;
                self.address_flags();
            }
            Some('\\') => {
                self.at += 1;
                let delimiter = self.next()?;
                if delimiter == '\n' {
                    return None;
                }
                self.part(delimiter, true)?;
                self.address_flags();
            }
            _ => {}
        }
        Some(())
    }

    fn address_flags(&mut self) {
        while matches!(self.peek(), Some('I' | 'M')) {
            self.at += 1;
        }
    }

    /// A regex or a replacement up to its closing delimiter (escapes and, in a regex, bracket
    /// expressions skipped).
    fn part(&mut self, delimiter: char, regex: bool) -> Read<()> {
        loop {
            let c = self.next()?;
            if c == '\\' {
                self.next()?;
                continue;
            }
            if c == delimiter {
                return Some(());
            }
            if regex && c == '[' {
                self.bracket()?;
            }
        }
    }

    /// The rest of a bracket expression after its `[`: a `]` first (or after `^`) is a member;
    /// `[:class:]`, `[=x=]` and `[.x.]` are read whole.
    fn bracket(&mut self) -> Read<()> {
        if self.peek() == Some('^') {
            self.at += 1;
        }
        if self.peek() == Some(']') {
            self.at += 1;
        }
        loop {
            let c = self.next()?;
            match c {
                ']' => return Some(()),
                '[' if matches!(self.peek(), Some(':' | '=' | '.')) => {
                    let kind = self.next()?;
                    loop {
                        let d = self.next()?;
                        if d == kind && self.peek() == Some(']') {
                            self.at += 1;
                            break;
                        }
                    }
                }
                '\n' => return None,
                _ => {}
            }
        }
    }

    /// The flags of `s`: whether one runs the result (`e`) or writes a file (`w`).
    fn flags(&mut self) -> Read<bool> {
        loop {
            self.blanks();
            match self.peek() {
                Some('e' | 'w') => return Some(true),
                Some(c) if c.is_ascii_digit() || matches!(c, 'g' | 'p' | 'i' | 'I' | 'm' | 'M') => {
                    self.at += 1;
                }
                _ => return Some(false),
            }
        }
    }

    /// A label or a version: up to `;` or the end of the line.
    fn label(&mut self) {
        self.blanks();
        while self.peek().is_some_and(|c| c != ';' && c != '\n') {
            self.at += 1;
        }
    }

    /// The text of `a`, `i` or `c`: the rest of the line, a backslash before a newline going on.
    fn text(&mut self) {
        while let Some(c) = self.next() {
            match c {
                '\\' => {
                    self.at += 1;
                }
                '\n' => return,
                _ => {}
            }
        }
    }
}

/// A sed script's commands, split at `;` and newlines outside `s`, `y` and labels' text (a
/// rough split: the effect reader above has already read the script exactly; this only finds
/// where `e` commands start).
fn split_commands(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = script.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | ';' => {
                out.push(std::mem::take(&mut current));
            }
            's' | 'y' if current.trim().is_empty() || ends_with_address(&current) => {
                current.push(c);
                // Copy the three parts of `s/a/b/` through their delimiter.
                if let Some(d) = chars.next() {
                    current.push(d);
                    let mut seen = 0;
                    while let Some(x) = chars.next() {
                        current.push(x);
                        if x == '\\' {
                            if let Some(y) = chars.next() {
                                current.push(y);
                            }
                            continue;
                        }
                        if x == d {
                            seen += 1;
                            if seen == 2 {
                                break;
                            }
                        }
                    }
                }
            }
            _ => current.push(c),
        }
    }
    out.push(current);
    out
}

/// Whether what is written so far of a command is only its address (`1`, `$`, `/x/`, `1,5`,
/// `1!`).
fn ends_with_address(text: &str) -> bool {
    let t = text.trim();
    !t.is_empty() && strip_address(t).is_empty()
}

/// A command with its address and `!` taken off.
fn strip_address(command: &str) -> &str {
    let mut rest = command.trim_start();
    for _ in 0..2 {
        let bytes = rest.as_bytes();
        let mut k = 0;
        match bytes.first() {
            Some(b'/') => {
                k = 1;
                while let Some(&b) = bytes.get(k) {
                    k += 1;
                    if b == b'\\' {
                        k += 1;
                    } else if b == b'/' {
                        break;
                    }
                }
            }
            Some(b) if b.is_ascii_digit() || *b == b'$' || *b == b'+' || *b == b'~' => {
                while bytes
                    .get(k)
                    .is_some_and(|b| b.is_ascii_digit() || *b == b'$' || *b == b'~' || *b == b'+')
                {
                    k += 1;
                }
            }
            _ => break,
        }
        rest = rest.get(k..).unwrap_or("").trim_start();
        while rest.starts_with(['I', 'M']) {
            rest = rest.get(1..).unwrap_or("");
        }
        match rest.strip_prefix(',') {
            Some(r) => rest = r.trim_start(),
            None => break,
        }
    }
    rest.trim_start_matches(|c: char| c == '!' || c.is_whitespace())
}

/// The flags after an `s` command's three parts.
fn s_flags(command: &str) -> &str {
    let mut chars = command.char_indices();
    let Some((_, 's')) = chars.next() else {
        return "";
    };
    let Some((_, delimiter)) = chars.next() else {
        return "";
    };
    let mut seen = 0;
    let mut escaped = false;
    for (k, c) in chars {
        if escaped {
            escaped = false;
            continue;
        }
        if c == '\\' {
            escaped = true;
        } else if c == delimiter {
            seen += 1;
            if seen == 2 {
                return command.get(k + c.len_utf8()..).unwrap_or("");
            }
        }
    }
    ""
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_commands_that_run_or_touch_files() {
        for script in [
            "e ls",
            "1e rm -rf x",
            "s/a/b/e",
            "s/a/b/w /tmp/x",
            "s/a/b/ w x",
            "r /etc/passwd",
            "R x",
            "w out",
            "W out",
            "$!{w x\n}",
            "/x/I e",
            "s,a,b,2e",
            "y/a/b/;e",
            "1~2w x",
            "s/[/]/x/w y",
            "s/a/b/;;; W x",
            "\\%a%w x",
            "a\\\nfoo\nw x",
            "s/a/b/q",
        ] {
            assert!(sed_effect(script), "{script}");
        }
        for script in [
            "s/a/b/",
            "s/a/b/g",
            "1,5p",
            "$d",
            "/x/!d",
            ":a;N;ba",
            "s/[/]/x/",
            "1!G;h;$!d",
            "y/abc/xyz/",
            "s/a/\\n/g;T;s/x/y/M2",
            "0~2d",
            "\\%a%d",
            "a hello w",
            "l 5",
            "=",
            "s/e/w/",
            "/w/p",
            "s/x/y/;# w z",
            "{p;p}",
        ] {
            assert!(!sed_effect(script), "{script}");
        }
    }

    #[test]
    fn the_lines_a_sed_script_runs() {
        assert_eq!(sed_code("1e rm -rf ~"), [Code::Line("rm -rf ~".into())]);
        // A file read into the output or written: what it touches is not the line's to say.
        for script in [
            "1r /home/u/.aws/credentials",
            "R x",
            "w /etc/passwd",
            "$W out",
            "s/a/b/w f",
        ] {
            assert!(
                matches!(sed_code(script).as_slice(), [Code::Unreadable(_)]),
                "{script}"
            );
        }
        assert!(sed_code("s/r/w/g").is_empty());
        // awk: a getline from a file and a print into one, not a comparison.
        assert!(!awk_code("BEGIN{while((getline l<\"/x\")>0)print l}").is_empty());
        assert!(!awk_code("{print > \"/etc/passwd\"}").is_empty());
        assert!(awk_code("$3 > 100 {print $1}").is_empty());
        assert_eq!(sed_code("p;$e date"), [Code::Line("date".into())]);
        assert!(matches!(sed_code("e").as_slice(), [Code::Unreadable(_)]));
        assert!(matches!(
            sed_code("s/.*/id/e").as_slice(),
            [Code::Unreadable(_)]
        ));
        assert!(sed_code("s/e/x/g").is_empty());
        assert!(sed_code("/e/p").is_empty());
    }

    #[test]
    fn the_lines_an_awk_program_runs() {
        assert_eq!(
            awk_code("BEGIN{system(\"rm -rf ~\")}"),
            [Code::Line("rm -rf ~".into())]
        );
        assert_eq!(
            awk_code("{\"date\" | getline d}"),
            [Code::Line("date".into())]
        );
        assert_eq!(awk_code("{print | \"sort\"}"), [Code::Line("sort".into())]);
        assert!(matches!(
            awk_code("{system($0)}").as_slice(),
            [Code::Unreadable(_)]
        ));
        assert!(awk_code("{ if (a || b) print }").is_empty());
        assert!(awk_code("{print $1}").is_empty());
    }

    #[test]
    fn awk_programs_that_may_run_or_write() {
        assert!(awk_effect("BEGIN{system(\"rm -rf x\")}"));
        assert!(awk_effect("{print > \"/tmp/x\"}"));
        assert!(awk_effect("{\"date\" | getline d}"));
        assert!(awk_effect("@load \"x\""));
        assert!(!awk_effect("{print $1}"));
        assert!(!awk_effect("NR==1"));
    }
}
