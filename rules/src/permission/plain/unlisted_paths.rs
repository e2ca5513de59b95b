//! The paths a program lembas knows nothing of, or a line of code, may write or read (hardline.json `paths`,
//! `plain`: `unlisted_writes`, `home_words`). Such a program — an interpreter given a line of
//! code (`python3 -c`, `node -e`, `perl -e`), a script, a tool of the project — does with the
//! paths its words name whatever it does: a word naming a path the hardline protects from
//! writes, whole or as a piece of its text (`python3 x.py ~/.bashrc`, `--out=~/.zshrc`,
//! `open('.git/hooks/pre-commit','w')`), is judged as a write of it; a piece naming a path no
//! tool may read, as a read of it. A text that reaches the home by a name of its own
//! (`os.path.expanduser('~')`, `process.env.HOME`) may put any piece it holds under the home
//! (`+ '/.bashrc'`, `joinpath('.bashrc')`): each is judged there too.

use super::values::Scope;
use super::walk::gnu_name;
use super::walk::Walker;
use crate::permission::hardline::{check_path, PathHit};
use crate::permission::programs;
use crate::permission::shell::{self, Word};
use crate::permission::RiskClass;

impl Walker<'_> {
    /// What the words after a program lembas knows nothing of may write or read of what the
    /// hardline protects (see the module's docs), and the lines their quoted strings hold. A
    /// word whose value is known only when it runs is not read here (its secret reads are
    /// judged as any program's).
    pub(super) fn unlisted_paths(&mut self, words: &[Word], scope: &Scope<'_>, depth: usize) {
        // A program that only writes its words out (`echo`, `basename`) does nothing with them.
        let program = words.first().map_or("", |w| shell::program_name(&w.text));
        if self
            .hardline
            .plain
            .text_programs
            .iter()
            .any(|p| *p == program)
        {
            return;
        }
        let mut texts: Vec<String> = Vec::new();
        for w in words.iter().skip(1) {
            if w.dynamic() {
                texts.extend(self.values(w, scope).unwrap_or_default());
            } else {
                texts.push(w.text.clone());
            }
        }
        for text in &texts {
            self.paths_in_text(text);
            if super::unlisted::holds_a_line(text) {
                self.lines_in_code(text, scope, depth);
            }
        }
    }

    /// The paths a text a program takes as its own (a line of code, an unlisted program's
    /// word) names, each judged as the module's docs say.
    pub(super) fn paths_in_text(&mut self, text: &str) {
        let reaches_home = self
            .hardline
            .plain
            .home_words
            .iter()
            .any(|h| text.contains(h.as_ref()));
        let mut named: Vec<String> = Vec::new();
        // A wildcard in code is mostly a pattern's (`s/.*/x/`): a piece holding one is read only
        // where it starts at the home (`glob('~/.*')`).
        let pieces = path_pieces(text)
            .filter(|piece| piece.starts_with('~') || !piece.contains(['*', '?', '[']));
        for piece in pieces {
            if names_a_path(piece) {
                named.push(piece.to_string());
            }
            if reaches_home && (piece.starts_with('/') || hidden_name(piece)) {
                named.push(format!("~/{}", piece.trim_start_matches('/')));
            }
        }
        for piece in named {
            for path in self.resolve_all(&piece).unwrap_or_default() {
                self.protected_by_name(&path);
            }
        }
    }

    /// The lines a line of code may run through a shell or as a program's words: the quoted
    /// strings of each bracketed group of it, joined by a space (`os.system('rm -rf ~')`,
    /// `spawn('rm', ['-rf', '~'])`, `subprocess.run(["rm", "-rf", "/"])`), and each string
    /// alone (`system "rm -rf ~"`, `` `rm -rf ~` ``), read for what the hardline refuses in them.
    pub(super) fn lines_in_code(&mut self, text: &str, scope: &Scope<'_>, depth: usize) {
        for line in bracketed_strings(text) {
            self.hardline_of_line(&line, Some(scope), depth);
        }
    }

    /// The code a command's options give its program to run (programs.json `effects`, `runs`
    /// of a program with no subcommands, not its `lines`, which are read as lines: `perl -e
    /// CODE`, `php -r CODE`, `-neCODE`, `--eval=CODE`), read as an unlisted program's word is:
    /// for the paths it names and the lines its strings hold.
    pub(super) fn code_it_is_given(&mut self, words: &[Word], scope: &Scope<'_>, depth: usize) {
        let program = words.first().map_or("", |w| shell::program_name(&w.text));
        let Some(entry) = programs::effects_of(gnu_name(program)) else {
            return;
        };
        if entry.runs.is_empty() || !entry.subcommands.0.is_empty() {
            return;
        }
        let code_options = || {
            entry
                .runs
                .iter()
                .filter(|o| !entry.lines.iter().any(|(line, _)| line == o.as_ref()))
        };
        let mut code: Vec<String> = Vec::new();
        for (at, w) in words.iter().enumerate().skip(1) {
            if w.dynamic() || !w.text.starts_with('-') {
                continue;
            }
            let Some(value) = code_options().find_map(|o| code_value(o, &w.text)) else {
                continue;
            };
            match value {
                CodeValue::Joined(text) => code.push(text.to_string()),
                CodeValue::Next => match words.get(at + 1) {
                    Some(next) if next.dynamic() => {
                        code.extend(self.values(next, scope).unwrap_or_default());
                    }
                    Some(next) => code.push(next.text.clone()),
                    None => {}
                },
            }
        }
        for text in &code {
            self.paths_in_text(text);
            if super::unlisted::holds_a_line(text) {
                self.lines_in_code(text, scope, depth);
            }
        }
    }

    /// A path an unlisted program's word names, judged as a write where its entry is one of
    /// `unlisted_writes`, and as a read where no tool may read it.
    fn protected_by_name(&mut self, path: &str) {
        let (home, root) = (self.place.home, self.place.root);
        let listed = |found: &PathHit| {
            self.hardline
                .plain
                .unlisted_writes
                .iter()
                .any(|id| *id == found.hit.entry)
        };
        match check_path(path, RiskClass::Write, home, root).filter(listed) {
            Some(found) if found.ask => self.out.guarded_trees.push(found.hit),
            Some(found) => self.out.hits.push(found.hit),
            None => {
                if let Some(found) =
                    check_path(path, RiskClass::Read, home, root).filter(|f| !f.ask)
                {
                    self.out.hits.push(found.hit);
                }
            }
        }
    }
}

/// The pieces of a word's text a program may take as paths: the runs between the characters
/// that stand around a path in a line of code or an option (quotes, brackets, blanks, `,;+=:<>|&`),
/// not an address's (`//host/…`).
fn path_pieces(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '\'' | '"'
                    | '`'
                    | '('
                    | ')'
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | ','
                    | ';'
                    | '+'
                    | '='
                    | ':'
                    | '<'
                    | '>'
                    | '|'
                    | '&'
                    | '!'
            )
    })
    .filter(|piece| !piece.is_empty() && !piece.starts_with("//"))
}

/// Where the code an option gives is.
enum CodeValue<'w> {
    /// Joined to the option (`--eval=CODE`, `-eCODE`, `-neCODE`).
    Joined(&'w str),
    /// The next word (`-e CODE`, `-ne CODE`).
    Next,
}

/// The code a word gives by an option that takes it (`-e`, `--eval`), in any spelling: whole,
/// `=`-joined, or a short option's letter in a cluster with the code after it or in the next
/// word. `None` when the word is not that option.
fn code_value<'w>(option: &str, word: &'w str) -> Option<CodeValue<'w>> {
    if word == option {
        return Some(CodeValue::Next);
    }
    if let Some(rest) = word.strip_prefix(option) {
        if let Some(joined) = rest.strip_prefix('=') {
            return Some(CodeValue::Joined(joined));
        }
    }
    let letter = option.strip_prefix('-').filter(|l| l.len() == 1)?;
    let cluster = word.strip_prefix('-').filter(|c| !c.starts_with('-'))?;
    let (_, after) = cluster.split_once(letter)?;
    Some(if after.is_empty() {
        CodeValue::Next
    } else {
        CodeValue::Joined(after)
    })
}

/// At most this many bracketed groups of one text are read for the lines they hold.
const MAX_GROUPS: usize = 64;

/// The quoted strings (`'…'`, `"…"`, `` `…` ``, a backslash escaping the next character) of
/// each bracketed group (`(…)`, `[…]`) of a text, joined by a space, for groups holding one;
/// then each string that holds a line alone.
fn bracketed_strings(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    // Each quoted string's content, and where it stands.
    let mut strings: Vec<(usize, String)> = Vec::new();
    // Each bracket's opening and closing places, quotes passed over.
    let mut open: Vec<usize> = Vec::new();
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    while let Some(&c) = chars.get(at) {
        match c {
            '\'' | '"' | '`' => {
                let mut content = String::new();
                let mut next = at + 1;
                while let Some(&d) = chars.get(next) {
                    if d == c {
                        break;
                    }
                    if d == '\\' && c != '\'' {
                        next += 1;
                        if let Some(&escaped) = chars.get(next) {
                            content.push(escaped);
                        }
                    } else {
                        content.push(d);
                    }
                    next += 1;
                }
                strings.push((at, content));
                at = next + 1;
                continue;
            }
            '(' | '[' => open.push(at),
            ')' | ']' => {
                if let Some(start) = open.pop() {
                    groups.push((start, at));
                }
            }
            _ => {}
        }
        at += 1;
    }
    // A group left open runs to the end.
    groups.extend(open.into_iter().map(|start| (start, chars.len())));
    // Each string alone is a line too (`system "rm -rf ~"`, perl's `` `…` ``).
    let alone: Vec<String> = strings
        .iter()
        .map(|(_, content)| content.clone())
        .filter(|content| super::unlisted::holds_a_line(content))
        .collect();
    groups
        .into_iter()
        .take(MAX_GROUPS)
        .filter_map(|(start, end)| {
            let inside: Vec<&str> = strings
                .iter()
                .filter(|(place, _)| *place > start && *place < end)
                .map(|(_, content)| content.as_str())
                .collect();
            (!inside.is_empty()).then(|| inside.join(" "))
        })
        .chain(alone)
        .fold(Vec::new(), |mut lines, line| {
            if !lines.contains(&line) {
                lines.push(line);
            }
            lines
        })
}

/// Whether a piece is spelled as a path: it holds a `/`, starts at the home (`~`), or is a
/// hidden name (`.bashrc`); a bare word (`config`, `HEAD`) may be anything.
fn names_a_path(piece: &str) -> bool {
    piece.contains('/') || piece.starts_with('~') || hidden_name(piece)
}

/// Whether a piece is a hidden name (`.bashrc`, `.git`), not `.` or `..`.
fn hidden_name(piece: &str) -> bool {
    piece
        .strip_prefix('.')
        .is_some_and(|rest| !rest.is_empty() && !rest.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::{bracketed_strings, code_value, names_a_path, path_pieces, CodeValue};
    use crate::spec::spec;

    #[test]
    fn a_line_of_code_is_cut_into_the_paths_it_may_name() {
        let pieces: Vec<&str> =
            path_pieces("open(os.environ['HOME']+'/.bashrc','a').write('x')").collect();
        assert!(pieces.contains(&"/.bashrc"), "{pieces:?}");
        assert!(pieces.contains(&"HOME"), "{pieces:?}");
        let pieces: Vec<&str> = path_pieces("--out=/home/u/.zshrc").collect();
        assert_eq!(pieces, ["--out", "/home/u/.zshrc"]);
        assert_eq!(path_pieces("https://x.io/.git/config").count(), 1);
    }

    #[test]
    fn the_strings_of_a_bracketed_group_are_one_line() {
        assert_eq!(bracketed_strings("os.system('rm -rf ~')"), ["rm -rf ~"]);
        let lines = bracketed_strings("spawn('rm', ['-rf', '~'])");
        assert!(lines.contains(&"-rf ~".to_string()), "{lines:?}");
        assert!(lines.contains(&"rm -rf ~".to_string()), "{lines:?}");
        assert_eq!(
            bracketed_strings(r#"subprocess.run(["rm", "-r\"f", "/"])"#),
            [r#"rm -r"f /"#]
        );
        assert_eq!(bracketed_strings("print(1)"), Vec::<String>::new());
        assert_eq!(bracketed_strings("x('a(b')"), ["a(b"]);
        assert_eq!(bracketed_strings("`rm -rf ~`; 1"), ["rm -rf ~"]);
    }

    #[test]
    fn code_is_found_in_every_spelling_of_its_option() {
        assert!(matches!(code_value("-e", "-e"), Some(CodeValue::Next)));
        assert!(matches!(code_value("-e", "-ne"), Some(CodeValue::Next)));
        assert!(matches!(
            code_value("-e", "-eprint"),
            Some(CodeValue::Joined("print"))
        ));
        assert!(matches!(
            code_value("--eval", "--eval=x()"),
            Some(CodeValue::Joined("x()"))
        ));
        assert!(code_value("-e", "--exclude").is_none());
        assert!(code_value("-e", "-p").is_none());
        assert!(code_value("--eval", "--evaluate").is_none());
    }

    #[test]
    fn a_bare_word_is_no_path() {
        assert!(names_a_path(".git/hooks/x"));
        assert!(names_a_path("~"));
        assert!(names_a_path(".bashrc"));
        assert!(!names_a_path("config"));
        assert!(!names_a_path(".."));
        assert!(!names_a_path("."));
    }

    #[test]
    fn every_entry_unlisted_programs_write_is_a_path_entry() {
        let hardline = &spec().hardline;
        for id in hardline.plain.unlisted_writes.iter() {
            assert!(
                hardline.paths.iter().any(|e| e.id == *id),
                "plain.unlisted_writes names {id}, which is no paths entry"
            );
        }
    }
}
