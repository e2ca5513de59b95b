//! A text a program takes as its own — a line of code (`python3 -c CODE`, a here-document fed
//! to `node`), an unlisted program's word — read for the paths it may name and the lines it may
//! run (hardline.json `plain.code`). Pure functions over the text; the walker judges what they
//! find (`unlisted_paths.rs`).
//!
//! The text is cut into pieces at the characters that stand around a path in code or in an
//! option (quotes, brackets, blanks, `,;+=:<>|&!#@`), `\/` read as `/`; a piece after a scheme's
//! `:` (`https://…`) is an address, not a path. Its quoted strings (and perl's and ruby's
//! `q(…)`, `qq{…}`, `qx(…)`, `%x{…}`, `%q(…)`) are read in order, with each spelling of the
//! home outside them (`os.environ['HOME']`) standing for `~`: once per text ([`Code`]), for
//! every question asked of it.

use crate::permission::hardline::lower;
use crate::spec::types::Str;
use std::cell::OnceCell;

/// At most this many bracketed groups of one text are read for the lines they hold.
const MAX_GROUPS: usize = 64;

/// The characters a path in a line of code or an option stands between.
fn splits(c: char) -> bool {
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
                | '#'
                | '@'
        )
}

/// The pieces of a text a program may take as paths (see the module's docs).
pub(super) fn path_pieces(text: &str) -> Vec<String> {
    let text = text.replace("\\/", "/");
    let mut out = Vec::new();
    let mut piece = String::new();
    let mut before_piece: Option<char> = None;
    let mut previous: Option<char> = None;
    // The piece before the last `:` (`https`, `file`).
    let mut scheme = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if splits(c) {
            // `https://host/…`: an address's path, not one of this machine's (a `file:` one
            // is); `f().read`: a member of what a call gives, not a hidden name.
            let address = before_piece == Some(':')
                && piece.starts_with("//")
                && !scheme.eq_ignore_ascii_case("file");
            if c == ':' {
                scheme.clone_from(&piece);
            }
            let member = matches!(before_piece, Some(')' | ']')) && piece.starts_with('.');
            if !piece.is_empty() && !address && !member {
                out.push(std::mem::take(&mut piece));
            }
            piece.clear();
            before_piece = Some(c);
        } else {
            if piece.is_empty() {
                before_piece = previous;
            }
            piece.push(c);
        }
        previous = Some(c);
    }
    out
}

/// Whether a piece is spelled as a path: it holds a `/`, starts at the home (`~`), or is a
/// hidden name (`.bashrc`); a bare word (`config`, `HEAD`) may be anything.
pub(super) fn names_a_path(piece: &str) -> bool {
    piece.contains('/') || piece.starts_with('~') || hidden_name(piece)
}

/// Whether a piece is a hidden name (`.bashrc`, `.git`), not `.` or `..`.
pub(super) fn hidden_name(piece: &str) -> bool {
    piece
        .strip_prefix('.')
        .is_some_and(|rest| !rest.is_empty() && !rest.starts_with('.'))
}

/// Whether a piece holding a wildcard is read as the paths it may match: one that starts as a
/// path does (`~/.ssh/*`, `/home/u/.ssh/id_*`, `.git/hook?/x`, `./.bash[r]c`) with a whole
/// name before its first wildcard — not a pattern's text (`s/.*/x/`, `'/.*'`, `\w+/`).
pub(super) fn read_as_glob(piece: &str) -> bool {
    let Some(first) = piece.find(['*', '?', '[']) else {
        return true;
    };
    let literal = piece.get(..first).unwrap_or("");
    if piece.starts_with('~') {
        return true;
    }
    let rest = if let Some(rest) = literal.strip_prefix("./") {
        rest
    } else if let Some(rest) = literal.strip_prefix("../") {
        rest
    } else if let Some(rest) = literal.strip_prefix('/') {
        // A whole name after the first `/`: `/home/…`, not `/.*`.
        return rest.find('/').is_some_and(|at| at > 0);
    } else {
        literal
    };
    // `.bash[r]c`, `.git/hook?`: a hidden name's start, a letter after its dot.
    rest.strip_prefix('.')
        .and_then(|r| r.chars().next())
        .is_some_and(char::is_alphanumeric)
}

/// The end of a piece from its first hidden name on (`%s/.local/bin/ls`, `$h/.kube/config`,
/// `/tmp/x/.bashrc`: `/.local/bin/ls`, …), which a text may put under the home whatever is
/// before it.
pub(super) fn from_first_hidden(piece: &str) -> Option<&str> {
    let at = piece.find("/.")?;
    let rest = piece.get(at..)?;
    hidden_name(rest.get(1..)?.split('/').next()?).then_some(rest)
}

/// Whether a text holds one of `words` (the spellings of the home, of a write, of a delete).
pub(super) fn holds_any(text: &str, words: &[Str]) -> bool {
    words.iter().any(|w| text.contains(w.as_ref()))
}

/// Whether a text holds one of `words` as a name of its own, in any letter case
/// (`shutil.move(`, `{recursive: true}`; not `removed`): a name is a run of letters, digits and
/// `_`.
pub(super) fn names_any(text: &str, words: &[Str]) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|name| !name.is_empty())
        .any(|name| words.iter().any(|w| name.eq_ignore_ascii_case(w.as_ref())))
}

/// Whether a text holds one of `words` in any letter case (`createWriteStream` holds `write`).
pub(super) fn holds_any_case(text: &str, words: &[Str]) -> bool {
    let text = lower(text);
    words
        .iter()
        .any(|w| text.contains(lower(w.as_ref()).as_ref()))
}

/// Whether a text reaches the home: it holds one of `home_words` (`expanduser`, `HOME`), a
/// piece of it starts at the home (`~/x`), or it is `~` or quotes it (`'~'`) — not perl's
/// `=~` nor a bitwise `~x`.
pub(super) fn reaches_home(text: &str, pieces: &[String], home_words: &[Str]) -> bool {
    holds_any(text, home_words)
        || text == "~"
        || text.contains("'~'")
        || text.contains("\"~\"")
        || pieces.iter().any(|p| p.starts_with("~/"))
}

/// A quoted string of a text (or a spelling of the home, as `~`), and where it stands.
struct Quoted {
    /// Where it starts.
    at: usize,
    /// Where the text after it starts.
    end: usize,
    /// Its content.
    content: String,
    /// It is a command the code runs (`` `…` ``, perl's `qx(…)`, ruby's `%x{…}`).
    command: bool,
}

/// A text's quoted strings and spellings of the home, each where it stands.
struct Items {
    /// Each string's content, and where it starts.
    strings: Vec<Quoted>,
    /// Each bracketed group (`(…)`, `[…]`), from its opening to its closing.
    groups: Vec<(usize, usize)>,
}

/// Reads a text's strings and groups (see [`Items`]); a spelling of the home outside a string
/// (`os.environ['HOME']`, `homedir()`) is a string `~` where it stands.
fn items(text: &str, home_words: &[Str]) -> Items {
    let indices: Vec<(usize, char)> = text.char_indices().collect();
    let chars: Vec<char> = indices.iter().map(|(_, c)| *c).collect();
    let is_home = |content: &str| home_words.iter().any(|w| w.as_ref() == content);
    // The letters a spelling of the home starts with: only where one stands is one looked for.
    let home_starts: Vec<char> = home_words.iter().filter_map(|w| w.chars().next()).collect();
    let mut strings: Vec<Quoted> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    while let Some(&c) = chars.get(at) {
        // perl's `q(…)`, `qq{…}`, `qx#…#`, ruby's `%x{…}`, `%q(…)`: a string between the
        // delimiters.
        if let Some((delimiter, start)) = quote_like(&chars, at) {
            let close = closing(delimiter);
            let mut content = String::new();
            let mut next = start;
            while let Some(&d) = chars.get(next) {
                if d == close {
                    break;
                }
                content.push(d);
                next += 1;
            }
            let command = chars.get(at + 1) == Some(&'x');
            strings.push(Quoted {
                at,
                end: next + 1,
                content,
                command,
            });
            at = next + 1;
            continue;
        }
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
                // `os.environ['HOME']`, `getenv("HOME")`: the home; so is a template's
                // `${process.env.HOME}`.
                if is_home(&content) {
                    content = "~".to_string();
                } else if c != '\'' {
                    content = homes_in_templates(&content, home_words);
                }
                strings.push(Quoted {
                    at,
                    end: next + 1,
                    content,
                    command: c == '`',
                });
                at = next + 1;
                continue;
            }
            '(' | '[' => open.push(at),
            ')' | ']' => {
                if let Some(start) = open.pop() {
                    groups.push((start, at));
                }
            }
            _ if home_starts.contains(&c) => {
                let rest = indices
                    .get(at)
                    .and_then(|(byte, _)| text.get(*byte..))
                    .unwrap_or("");
                if let Some(word) = home_words
                    .iter()
                    .map(AsRef::as_ref)
                    .find(|w| rest.starts_with(*w))
                {
                    let end = at + word.chars().count();
                    strings.push(Quoted {
                        at,
                        end,
                        content: "~".to_string(),
                        command: false,
                    });
                    at = end;
                    continue;
                }
            }
            _ => {}
        }
        at += 1;
    }
    // A group left open runs to the end.
    groups.extend(open.into_iter().map(|start| (start, chars.len())));
    Items { strings, groups }
}

/// A template string's `${…}` spelling the home (`${process.env.HOME}`, `${os.homedir()}`) as
/// `~`.
fn homes_in_templates(content: &str, home_words: &[Str]) -> String {
    let mut out = String::with_capacity(content.len());
    let mut rest = content;
    while let Some(at) = rest.find("${") {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let Some(end) = from.find('}') else {
            out.push_str(from);
            return out;
        };
        let inner = from.get(..=end).unwrap_or(from);
        if holds_any(inner, home_words) {
            out.push('~');
        } else {
            out.push_str(inner);
        }
        rest = from.get(end + 1..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

/// A quote-like operator of perl's or ruby's starting at `at` (`q(`, `qq{`, `qx#`, `qw[`, `%x{`,
/// `%q(`, `%Q[`, `%w(`): its opening delimiter and where its content starts.
fn quote_like(chars: &[char], at: usize) -> Option<(char, usize)> {
    let before = at.checked_sub(1).and_then(|b| chars.get(b));
    if before.is_some_and(|b| b.is_alphanumeric() || *b == '_') {
        return None;
    }
    let word: String = chars.get(at..at + 3).unwrap_or(&[]).iter().collect();
    let length = if word.starts_with("qq") || word.starts_with("qx") || word.starts_with("qw") {
        2
    } else if word.starts_with('q') {
        1
    } else if ["%x", "%q", "%Q", "%w", "%W"]
        .iter()
        .any(|p| word.starts_with(p))
    {
        2
    } else {
        return None;
    };
    let delimiter = *chars.get(at + length)?;
    matches!(
        delimiter,
        '(' | '{' | '[' | '<' | '#' | '@' | '!' | '|' | '/' | '~'
    )
    .then_some((delimiter, at + length + 1))
}

/// The delimiter that closes a quote-like operator's string.
fn closing(opening: char) -> char {
    match opening {
        '(' => ')',
        '{' => '}',
        '[' => ']',
        '<' => '>',
        other => other,
    }
}

/// The name right before a place of a text, blanks passed over (`system (` and `system "`:
/// `system`): a run of letters, digits, `_` and `$`.
fn name_before(chars: &[char], at: usize) -> String {
    let mut end = at;
    while end > 0 && chars.get(end - 1).is_some_and(|c| *c == ' ') {
        end -= 1;
    }
    let mut start = end;
    while start > 0
        && chars
            .get(start - 1)
            .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '$'))
    {
        start -= 1;
    }
    chars.get(start..end).unwrap_or(&[]).iter().collect()
}

/// Whether a text with blanks reads as code rather than prose: it holds a bracket, a quote, a
/// `;`, `=` or `{` (`print(open('x').read())`, not `explain what ~/.bashrc does`).
pub(super) fn looks_like_code(text: &str) -> bool {
    text.contains(['(', '\'', '"', ';', '=', '{', '`'])
}

/// A line of code read once for its strings and groups: with the home's spellings read as the
/// string `~` (`os.environ['HOME']`, `homedir()`), and, when first asked for, as written.
pub(super) struct Code<'t> {
    /// The text, a character at a time.
    chars: Vec<char>,
    /// Its strings and groups, the home's spellings read as `~`.
    with_home: Items,
    /// Its text, for its strings as written.
    text: &'t str,
    /// Its strings and groups as written, read when first asked for.
    bare: OnceCell<Items>,
}

impl<'t> Code<'t> {
    /// `text` read, `home_words` the names that spell the home (hardline.json `plain.code`).
    pub(super) fn read(text: &'t str, home_words: &[Str]) -> Code<'t> {
        Code {
            chars: text.chars().collect(),
            with_home: items(text, home_words),
            text,
            bare: OnceCell::new(),
        }
    }

    /// Its strings and groups as written.
    fn bare(&self) -> &Items {
        self.bare.get_or_init(|| items(self.text, &[]))
    }

    /// The lines a line of code runs through a shell or as a program's words — what a call
    /// that runs a command (`runs`: `system`, `run`, `execSync`, `spawn`, fzf's `execute`) is
    /// given: the strings of its bracketed group joined by a space (`os.system('rm -rf ~')`,
    /// `spawn('rm', ['-rf', '~'])`, `subprocess.run(['rm', '-rf', os.environ['HOME']])`) and the
    /// group's own text (fzf's `execute(rm -rf ~)`), a string right after its name (perl's
    /// `system "rm -rf ~"`); and every command string (`` `rm -rf ~` ``, `qx(rm -rf ~)`,
    /// `%x{rm -rf ~}`). Other strings are text (`print('run pre-commit install')`).
    pub(super) fn lines(&self, runs: &[Str]) -> Vec<String> {
        let Items { strings, groups } = &self.with_home;
        let chars = &self.chars;
        let called = |at: usize| {
            let name = name_before(chars, at);
            !name.is_empty() && runs.iter().any(|r| r.as_ref() == name)
        };
        let run_groups: Vec<&(usize, usize)> = groups
            .iter()
            .take(MAX_GROUPS)
            .filter(|(start, _)| called(*start))
            .collect();
        let raw = run_groups.iter().filter_map(|(start, end)| {
            let inside: String = chars.get(start + 1..*end)?.iter().collect();
            super::unlisted::holds_a_line(&inside).then_some(inside)
        });
        let alone = strings
            .iter()
            .filter(|quoted| quoted.command || called(quoted.at))
            .map(|quoted| quoted.content.clone())
            .filter(|content| super::unlisted::holds_a_line(content));
        let grouped = run_groups.iter().filter_map(|(start, end)| {
            let inside: Vec<&str> = strings
                .iter()
                .filter(|quoted| quoted.at > *start && quoted.at < *end)
                .map(|quoted| quoted.content.as_str())
                .collect();
            (!inside.is_empty()).then(|| inside.join(" "))
        });
        let mut lines: Vec<String> = Vec::new();
        for line in grouped.chain(alone).chain(raw) {
            if !lines.contains(&line) {
                lines.push(line);
            }
        }
        lines
    }

    /// The arguments of each call a line of code makes to one of `calls` (`shutil.rmtree(…)`,
    /// `fs.rmSync(…)`, `shutil.move(…)`), each as the path its strings spell joined by `/`
    /// (`os.path.join(os.path.expanduser('~'), '.cache')`: `~/.cache`); one that names the folder
    /// the code runs in (`os.getcwd()`, `folder_words`) is `.`.
    pub(super) fn call_arguments(&self, calls: &[Str], folder_words: &[Str]) -> Vec<String> {
        let Items { strings, groups } = &self.with_home;
        let chars = &self.chars;
        let in_string = |at: usize| {
            strings
                .iter()
                .any(|q| q.at < at && at < q.end.saturating_sub(1))
        };
        let mut out = Vec::new();
        for (start, end) in groups.iter().take(MAX_GROUPS) {
            let name = name_before(chars, *start);
            if name.is_empty() || !calls.iter().any(|c| c.eq_ignore_ascii_case(&name)) {
                continue;
            }
            // A method's receiver is moved or deleted too (`Path('.git').rename(…)`): the strings
            // of the group right before `.name`.
            let dot = start.checked_sub(name.chars().count() + 1);
            if let Some(dot) = dot.filter(|d| chars.get(*d) == Some(&'.')) {
                let receiver = groups.iter().find(|(_, close)| *close + 1 == dot);
                if let Some((from, to)) = receiver {
                    out.extend(
                        strings
                            .iter()
                            .filter(|q| q.at > *from && q.at < *to && !q.content.is_empty())
                            .map(|q| q.content.clone()),
                    );
                }
            }
            // Its arguments: cut at each `,` outside strings and inner brackets.
            let mut cuts = vec![*start];
            let mut depth = 0usize;
            for at in start + 1..*end {
                if in_string(at) {
                    continue;
                }
                match chars.get(at) {
                    Some('(' | '[' | '{') => depth += 1,
                    Some(')' | ']' | '}') => depth = depth.saturating_sub(1),
                    Some(',') if depth == 0 => cuts.push(at),
                    _ => {}
                }
            }
            cuts.push(*end);
            for pair in cuts.windows(2) {
                let [from, to] = *pair else {
                    continue;
                };
                let mut parts: Vec<&str> = Vec::new();
                for quoted in strings
                    .iter()
                    .filter(|q| q.at > from && q.at < to && !q.content.is_empty())
                {
                    // `expanduser('~')`: the home once.
                    if !(quoted.content == "~" && parts.last() == Some(&"~")) {
                        parts.push(quoted.content.as_str());
                    }
                }
                // `join(require('os').homedir(), 'x')`: a path starts at the home.
                if let Some(home) = parts.iter().rposition(|p| *p == "~") {
                    parts.drain(..home);
                }
                let argument: String = chars.get(from + 1..to).unwrap_or(&[]).iter().collect();
                if holds_any(&argument, folder_words) {
                    out.push(".".to_string());
                }
                if parts.is_empty() {
                    continue;
                }
                let mut path = parts.join("/");
                while path.contains("//") {
                    path = path.replace("//", "/");
                }
                out.push(path);
            }
        }
        out
    }

    /// The paths a line of code builds of strings (`os.path.join(h, '.local', 'bin', 'ls')`,
    /// `Path('.git')/'hooks'/'pre-commit'`, `Path.home()/'.kube'/'config'`): each run of strings
    /// with nothing but `/`, `+`, `,`, brackets and blanks between them, from a hidden name on,
    /// joined by `/` — every path of the run's start (`.git/hooks`, `.git/hooks/pre-commit`).
    pub(super) fn joined_paths(&self) -> Vec<String> {
        let strings = &self.with_home.strings;
        let chars = &self.chars;
        let joins = |before: &Quoted, after: &Quoted| {
            chars.get(before.end..after.at).is_some_and(|between| {
                let between: String = between.iter().collect();
                // `Path(a).joinpath(b)`, `File.join(a, b)`.
                let between = between.replace(".joinpath(", "").replace(".join(", "");
                between.chars().all(|c| {
                    c.is_whitespace() || matches!(c, '/' | '+' | ',' | '(' | ')' | '*' | '[')
                })
            })
        };
        let mut out = Vec::new();
        for (at, first) in strings.iter().enumerate() {
            let start = first.content.trim_start_matches('/');
            if !hidden_name(start.split('/').next().unwrap_or("")) {
                continue;
            }
            // `os.path.join('..', '.local', …)`: the folders before it in the run.
            let mut path = start.to_string();
            for before in strings.get(..at).unwrap_or(&[]).iter().rev() {
                let next_after = strings.iter().find(|q| q.at > before.at).unwrap_or(first);
                let dots = !before.content.is_empty()
                    && before
                        .content
                        .split('/')
                        .all(|p| matches!(p, "" | "." | ".."));
                if !dots || !joins(before, next_after) {
                    break;
                }
                path = format!("{}/{path}", before.content.trim_end_matches('/'));
            }
            let mut previous = first;
            for next in strings.iter().skip(at + 1).take(MAX_GROUPS) {
                if !joins(previous, next)
                    || next.content.is_empty()
                    || next.content.contains(char::is_whitespace)
                {
                    break;
                }
                path = format!(
                    "{}/{}",
                    path.trim_end_matches('/'),
                    next.content.trim_start_matches('/')
                );
                out.push(path.clone());
                previous = next;
            }
        }
        out
    }

    /// A line of code with the content of each quoted string that holds a blank between words
    /// (prose, a shell line) blanked out: the paths left are those it may open.
    pub(super) fn without_prose(&self) -> String {
        let mut out: Vec<char> = self.chars.clone();
        for quoted in &self.bare().strings {
            // Blanks only around a path (`' ~/.bashrc'.strip()`) make no prose.
            if quoted.content.trim().contains(char::is_whitespace) {
                for c in out
                    .iter_mut()
                    .take(quoted.end.saturating_sub(1))
                    .skip(quoted.at + 1)
                {
                    *c = ' ';
                }
            }
        }
        out.into_iter().collect()
    }

    /// The folders a line of code moves into (`os.chdir('.git')`, `Dir.chdir("x")`,
    /// `process.chdir('x')`): the strings of each group after `chdir`.
    pub(super) fn folders_entered(&self) -> Vec<String> {
        let Items { strings, groups } = &self.with_home;
        let chars = &self.chars;
        groups
            .iter()
            .filter(|(start, _)| {
                let before: String = chars
                    .get(start.saturating_sub(5)..*start)
                    .unwrap_or(&[])
                    .iter()
                    .collect();
                before == "chdir"
            })
            .flat_map(|(start, end)| {
                strings
                    .iter()
                    .filter(move |quoted| quoted.at > *start && quoted.at < *end)
                    .map(|quoted| quoted.content.clone())
            })
            .collect()
    }

    /// Whether a line of code opens a file to write it by its mode: a short string of mode letters
    /// with a writing one among them after a `,` (`open(f, 'w')`, `'a'`, `'ta'`, `'r+'`, PHP's
    /// `"c"`), or a string starting as perl's modes do (`">>/x"`, `"+<"`).
    pub(super) fn opens_to_write(&self) -> bool {
        let chars = &self.chars;
        self.bare().strings.iter().any(|quoted| {
            let mode = quoted.content.as_str();
            let mut before = quoted.at;
            while before > 0 && chars.get(before - 1) == Some(&' ') {
                before -= 1;
            }
            let argument = before > 0 && chars.get(before - 1) == Some(&',');
            let letters = argument
                && (1..=3).contains(&mode.len())
                && mode.chars().all(|c| "rwaxbtcU+".contains(c))
                && mode.contains(['w', 'a', 'x', 'c', '+']);
            letters || mode.starts_with('>') || mode.starts_with("+<") || mode.starts_with("+>")
        })
    }

    /// Whether a line of code holds one of `words` outside its strings, in any letter case
    /// (`createWriteStream` holds `write`; `'editor.formatOnSave'` is text).
    pub(super) fn holds_outside_strings(&self, words: &[Str]) -> bool {
        let mut code: Vec<char> = self.chars.clone();
        for quoted in &self.bare().strings {
            for c in code
                .iter_mut()
                .take(quoted.end.saturating_sub(1))
                .skip(quoted.at + 1)
            {
                *c = ' ';
            }
        }
        holds_any_case(&code.into_iter().collect::<String>(), words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOME: [Str; 3] = [Str("HOME"), Str("expanduser"), Str("homedir")];
    const RUNS: [Str; 6] = [
        Str("system"),
        Str("run"),
        Str("spawn"),
        Str("execSync"),
        Str("execFileSync"),
        Str("execute"),
    ];

    fn code_lines_(text: &str, home_words: &[Str]) -> Vec<String> {
        Code::read(text, home_words).lines(&RUNS)
    }

    fn joined_paths(text: &str, home_words: &[Str]) -> Vec<String> {
        Code::read(text, home_words).joined_paths()
    }

    fn call_arguments(
        text: &str,
        home_words: &[Str],
        calls: &[Str],
        folder_words: &[Str],
    ) -> Vec<String> {
        Code::read(text, home_words).call_arguments(calls, folder_words)
    }

    fn without_prose(text: &str) -> String {
        Code::read(text, &HOME).without_prose()
    }

    fn folders_entered(text: &str, home_words: &[Str]) -> Vec<String> {
        Code::read(text, home_words).folders_entered()
    }

    fn opens_to_write(text: &str) -> bool {
        Code::read(text, &HOME).opens_to_write()
    }

    fn holds_outside_strings(text: &str, words: &[Str]) -> bool {
        Code::read(text, &HOME).holds_outside_strings(words)
    }

    #[test]
    fn a_line_of_code_is_cut_into_the_paths_it_may_name() {
        let pieces = path_pieces("open(os.environ['HOME']+'/.bashrc','a').write('x')");
        assert!(pieces.contains(&"/.bashrc".to_string()), "{pieces:?}");
        assert_eq!(
            path_pieces("--out=/home/u/.zshrc"),
            ["--out", "/home/u/.zshrc"]
        );
        assert_eq!(path_pieces("https://x.io/.git/config"), ["https"]);
        assert_eq!(
            path_pieces("file:///home/u/.bashrc"),
            ["file", "///home/u/.bashrc"]
        );
        assert_eq!(
            path_pieces("open('//home/u/.bashrc')"),
            ["open", "//home/u/.bashrc"]
        );
        assert_eq!(path_pieces(r"'\/home\/u\/.x'"), ["/home/u/.x"]);
        assert_eq!(
            path_pieces("q#>>/home/u/.bashrc#"),
            ["q", "/home/u/.bashrc"]
        );
    }

    #[test]
    fn a_member_of_a_call_is_no_hidden_name() {
        assert_eq!(
            path_pieces("require('fs').rmSync(x)"),
            ["require", "fs", "x"]
        );
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
    fn a_pattern_is_no_glob_of_paths() {
        assert!(read_as_glob("/home/u/.ssh/id_*"));
        assert!(read_as_glob("~/.*"));
        assert!(read_as_glob(".git/hook?/pre-commit"));
        assert!(read_as_glob(".bash[r]c"));
        assert!(read_as_glob("./.bash[r]c"));
        assert!(!read_as_glob("s/.*/x/"));
        assert!(!read_as_glob("/.*"));
        assert!(!read_as_glob("src/*.py"));
        assert!(read_as_glob("src/main.py"));
    }

    #[test]
    fn a_hidden_name_inside_a_piece_may_be_put_under_the_home() {
        assert_eq!(
            from_first_hidden("%s/.local/bin/ls"),
            Some("/.local/bin/ls")
        );
        assert_eq!(from_first_hidden("/.bashrc"), Some("/.bashrc"));
        assert_eq!(from_first_hidden("/home/u/x"), None);
        assert_eq!(from_first_hidden("a/../b"), None);
    }

    #[test]
    fn the_home_is_reached_by_name_or_by_a_piece_at_it() {
        let text = "perl -ne 'print if $_ =~ m{/bin/sh}'";
        assert!(!reaches_home(text, &path_pieces(text), &HOME));
        let text = "os.path.expanduser('~')";
        assert!(reaches_home(text, &path_pieces(text), &HOME));
        let text = "open('~/.x')";
        assert!(reaches_home(text, &path_pieces(text), &[]));
    }

    #[test]
    fn the_strings_of_a_bracketed_group_are_one_line() {
        let lines = code_lines_("os.system('rm -rf ~')", &HOME);
        assert_eq!(
            lines.first().map(String::as_str),
            Some("rm -rf ~"),
            "{lines:?}"
        );
        let lines = code_lines_("spawn('rm', ['-rf', '~'])", &HOME);
        assert!(lines.contains(&"rm -rf ~".to_string()), "{lines:?}");
        let lines = code_lines_(r#"subprocess.run(["rm", "-r\"f", "/"])"#, &HOME);
        assert_eq!(
            lines.first().map(String::as_str),
            Some(r#"rm -r"f /"#),
            "{lines:?}"
        );
        let lines = code_lines_("subprocess.run(['rm','-rf',os.environ['HOME']])", &HOME);
        assert!(lines.contains(&"rm -rf ~".to_string()), "{lines:?}");
        let lines = code_lines_("os.system('rm -rf ' + os.environ['HOME'])", &HOME);
        assert!(lines.contains(&"rm -rf  ~".to_string()), "{lines:?}");
        let lines = code_lines_(
            "execFileSync('rm', ['-rf', require('os').homedir()])",
            &HOME,
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("rm -rf") && l.ends_with('~')),
            "{lines:?}"
        );
        assert_eq!(code_lines_("print(1)", &HOME), Vec::<String>::new());
        assert_eq!(code_lines_("start:execute(rm -rf ~)", &HOME), ["rm -rf ~"]);
        assert_eq!(code_lines_("system('a(b')", &HOME), ["a(b"]);
        assert!(code_lines_("print('run: pre-commit install')", &HOME).is_empty());
        assert_eq!(code_lines_("system \"rm -rf ~\"", &HOME), ["rm -rf ~"]);
        assert_eq!(code_lines_("`rm -rf ~`; 1", &HOME), ["rm -rf ~"]);
        assert_eq!(code_lines_("qx(rm -rf ~)", &HOME), ["rm -rf ~"]);
        assert_eq!(code_lines_("%x{rm -rf ~}", &HOME), ["rm -rf ~"]);
        assert_eq!(
            code_lines_("Bun.$`rm -rf ${process.env.HOME}`", &HOME),
            ["rm -rf ~"]
        );
        assert_eq!(code_lines_("equal(1)", &HOME), Vec::<String>::new());
    }

    #[test]
    fn strings_from_a_hidden_name_are_a_path() {
        assert_eq!(
            joined_paths("os.path.join(h, '.local', 'bin', 'ls')", &HOME),
            [".local/bin", ".local/bin/ls"]
        );
        assert_eq!(
            joined_paths(
                "os.path.join(os.path.expanduser('~'), '.kube', 'config')",
                &HOME
            ),
            [".kube/config"]
        );
        assert_eq!(
            joined_paths("Path('.git')/'hooks'/'pre-commit'", &HOME),
            [".git/hooks", ".git/hooks/pre-commit"]
        );
        assert!(joined_paths("print('a', 'b')", &HOME).is_empty());
        assert_eq!(
            joined_paths("os.path.join('..', '.local', 'bin')", &HOME),
            ["../.local/bin"]
        );
        assert_eq!(
            joined_paths("Path.home().joinpath('.local').joinpath('bin')", &HOME),
            [".local/bin"]
        );
        assert!(joined_paths("x = '.git'; open('out.txt', 'w')", &HOME).is_empty());
    }

    #[test]
    fn what_a_call_deletes_is_its_arguments() {
        let deletes = [Str("rmtree"), Str("rmSync"), Str("move"), Str("remove")];
        let here = [Str("getcwd")];
        let targets = |text: &str| call_arguments(text, &HOME, &deletes, &here);
        assert_eq!(targets("shutil.rmtree(os.path.expanduser('~'))"), ["~"]);
        assert_eq!(
            targets("os.remove(os.path.join(os.path.expanduser('~'), 'Downloads', 'x.zip'))"),
            ["~/Downloads/x.zip"]
        );
        assert_eq!(targets("shutil.rmtree(os.getcwd())"), ["."]);
        assert_eq!(
            targets("shutil.move('/home/u/proj', '/tmp/p')"),
            ["/home/u/proj", "/tmp/p"]
        );
        assert_eq!(
            targets("fs.rmSync(require('os').homedir(), {recursive: true})"),
            ["~"]
        );
        assert!(targets("[p.unlink() for p in Path('.').rglob('*.pyc')]").is_empty());
        assert_eq!(
            targets("shutil.rmtree(Path('build') / 'cache')"),
            ["build/cache"]
        );
        assert_eq!(targets("Path('.git').move('/tmp/g')"), [".git", "/tmp/g"]);
    }

    #[test]
    fn a_name_is_matched_whole() {
        assert!(names_any("shutil.move('a', 'b')", &[Str("move")]));
        assert!(names_any(
            "rmSync(x, {recursive: true})",
            &[Str("RECURSIVE")]
        ));
        assert!(!names_any("a warning removed", &[Str("move")]));
    }

    #[test]
    fn code_has_brackets_quotes_or_separators() {
        assert!(looks_like_code("Deno.writeTextFileSync('/x', 'y')"));
        assert!(!looks_like_code("explain what ~/.bashrc does"));
    }

    #[test]
    fn prose_is_no_path_opened() {
        let text = "open('docs/a.md','w').write('Add to ~/.bashrc')";
        let left = path_pieces(&without_prose(text));
        assert!(left.contains(&"docs/a.md".to_string()), "{left:?}");
        assert!(!left.iter().any(|p| p.contains("bashrc")), "{left:?}");
        let left = path_pieces(&without_prose("open(' ~/.bashrc'.strip(), 'a')"));
        assert!(left.contains(&"~/.bashrc".to_string()), "{left:?}");
    }

    #[test]
    fn a_folder_moved_into_is_read() {
        assert_eq!(
            folders_entered("os.chdir('.git'); open('x','w')", &HOME),
            [".git"]
        );
        assert!(folders_entered("print('.git')", &HOME).is_empty());
    }

    #[test]
    fn a_mode_that_writes_is_a_sign_of_writing() {
        assert!(opens_to_write("print(1, file=open('/x', 'ta'))"));
        assert!(opens_to_write("fopen(\"/x\", \"c\")"));
        assert!(opens_to_write("open('x', 'r+')"));
        assert!(!opens_to_write("open('x.txt').read()"));
        assert!(!opens_to_write("open('x.txt', 'r')"));
        assert!(!opens_to_write("print('x' if a else 'y')"));
        assert!(opens_to_write("open(F, \">>/home/u/.bashrc\")"));
        assert!(holds_outside_strings(
            "fs.createWriteStream(p)",
            &[Str("write")]
        ));
        assert!(!holds_outside_strings(
            "s.get('editor.formatOnSave')",
            &[Str("save")]
        ));
    }
}
