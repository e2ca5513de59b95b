//! The programs `sed` and `awk` are given, read for commands that run something or touch a file
//! the line does not name. Both fail closed: what the reader cannot follow counts as an effect.
//!
//! A sed script is read command by command as GNU sed reads it (addresses, `!`, blocks, labels,
//! `a`/`i`/`c` text, `s` and `y` with any delimiter and bracket expressions): `e`, `r`, `R`, `w`
//! and `W`, and the `e` and `w` flags of `s`, are effects — exactly what `sed --sandbox` refuses.
//! An awk program is not parsed: one that holds `system`, `getline`, a pipe `|`, a `>` (an output
//! redirection or a comparison) or `@` (gawk's `@load`, `@include`) counts as one.

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
    fn awk_programs_that_may_run_or_write() {
        assert!(awk_effect("BEGIN{system(\"rm -rf x\")}"));
        assert!(awk_effect("{print > \"/tmp/x\"}"));
        assert!(awk_effect("{\"date\" | getline d}"));
        assert!(awk_effect("@load \"x\""));
        assert!(!awk_effect("{print $1}"));
        assert!(!awk_effect("NR==1"));
    }
}
