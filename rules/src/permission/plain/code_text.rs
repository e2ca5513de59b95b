//! A text a program takes as its own — a line of code (`python3 -c CODE`, a here-document fed
//! to `node`), an unlisted program's word — read for the paths it may name and the lines it may
//! run (hardline.json `plain.code`). Pure functions over the text; the walker judges what they
//! find (`unlisted_paths.rs`).
//!
//! The text is cut into pieces at the characters that stand around a path in code or in an
//! option (quotes, brackets, blanks, `,;+=:<>|&!#@`), `\/` read as `/`; a piece after a scheme's
//! `:` (`https://…`) is an address, not a path. Its quoted strings (and perl's and ruby's
//! `q(…)`, `qq{…}`, `qx(…)`, `%x{…}`, `%q(…)`) are read in order, with each spelling of the
//! home outside them (`os.environ['HOME']`) standing for `~`.

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
    for c in text.chars().chain(std::iter::once(' ')) {
        if splits(c) {
            // `https://host/…`: an address's path, not one of this machine's.
            let address = before_piece == Some(':') && piece.starts_with("//");
            if !piece.is_empty() && !address {
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
pub(super) fn holds_any(text: &str, words: &[impl AsRef<str>]) -> bool {
    words.iter().any(|w| text.contains(w.as_ref()))
}

/// Whether a text reaches the home: it holds one of `home_words` (`expanduser`, `HOME`), a
/// piece of it starts at the home (`~/x`), or it is `~` or quotes it (`'~'`) — not perl's
/// `=~` nor a bitwise `~x`.
pub(super) fn reaches_home(text: &str, pieces: &[String], home_words: &[impl AsRef<str>]) -> bool {
    holds_any(text, home_words)
        || text == "~"
        || text.contains("'~'")
        || text.contains("\"~\"")
        || pieces.iter().any(|p| p.starts_with("~/"))
}

/// A text's quoted strings and spellings of the home, each where it stands.
struct Items {
    /// Each string's content, and where it starts.
    strings: Vec<(usize, String)>,
    /// Each bracketed group (`(…)`, `[…]`), from its opening to its closing.
    groups: Vec<(usize, usize)>,
}

/// Reads a text's strings and groups (see [`Items`]); a spelling of the home outside a string
/// (`os.environ['HOME']`, `homedir()`) is a string `~` where it stands.
fn items(text: &str, home_words: &[impl AsRef<str>]) -> Items {
    let indices: Vec<(usize, char)> = text.char_indices().collect();
    let chars: Vec<char> = indices.iter().map(|(_, c)| *c).collect();
    let is_home = |content: &str| home_words.iter().any(|w| w.as_ref() == content);
    let mut strings: Vec<(usize, String)> = Vec::new();
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
            strings.push((at, content));
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
                // `os.environ['HOME']`, `getenv("HOME")`: the home.
                if is_home(&content) {
                    content = "~".to_string();
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
            _ => {
                let rest = indices
                    .get(at)
                    .and_then(|(byte, _)| text.get(*byte..))
                    .unwrap_or("");
                if let Some(word) = home_words
                    .iter()
                    .map(AsRef::as_ref)
                    .find(|w| rest.starts_with(*w))
                {
                    strings.push((at, "~".to_string()));
                    at += word.chars().count();
                    continue;
                }
            }
        }
        at += 1;
    }
    // A group left open runs to the end.
    groups.extend(open.into_iter().map(|start| (start, chars.len())));
    Items { strings, groups }
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

/// The lines a line of code may run through a shell or as a program's words: the strings of
/// each bracketed group, joined by a space (`os.system('rm -rf ~')`, `spawn('rm', ['-rf',
/// '~'])`, `subprocess.run(['rm', '-rf', os.environ['HOME']])`), then each string alone that
/// holds a blank or a separator (`system "rm -rf ~"`, `` `rm -rf ~` ``, `qx(rm -rf ~)`), then
/// each group's own text that holds one (fzf's `execute(rm -rf ~)`).
pub(super) fn code_lines(text: &str, home_words: &[impl AsRef<str>]) -> Vec<String> {
    let Items { strings, groups } = items(text, home_words);
    // A group's own text holding a line, as a program's bindings hold one (fzf's
    // `execute(rm -rf ~)`).
    let chars: Vec<char> = text.chars().collect();
    let raw = groups.iter().take(MAX_GROUPS).filter_map(|(start, end)| {
        let inside: String = chars.get(start + 1..*end)?.iter().collect();
        super::unlisted::holds_a_line(&inside).then_some(inside)
    });
    let alone = strings
        .iter()
        .map(|(_, content)| content.clone())
        .filter(|content| super::unlisted::holds_a_line(content));
    let grouped = groups.iter().take(MAX_GROUPS).filter_map(|(start, end)| {
        let inside: Vec<&str> = strings
            .iter()
            .filter(|(place, _)| place > start && place < end)
            .map(|(_, content)| content.as_str())
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

/// The paths a line of code builds of strings in a group (`os.path.join(h, '.local', 'bin',
/// 'ls')`, `Path.home().joinpath('.config', 'autostart')`): the strings of each group from its
/// first hidden name on, joined by `/`.
pub(super) fn joined_paths(text: &str, home_words: &[impl AsRef<str>]) -> Vec<String> {
    let Items { strings, groups } = items(text, home_words);
    let mut out = Vec::new();
    for (start, end) in groups.iter().take(MAX_GROUPS) {
        let inside: Vec<&str> = strings
            .iter()
            .filter(|(place, _)| place > start && place < end)
            .map(|(_, content)| content.as_str())
            .skip_while(|content| !hidden_name(content.split('/').next().unwrap_or("")))
            .collect();
        if inside.len() > 1 {
            out.push(inside.join("/"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOME: [&str; 3] = ["HOME", "expanduser", "homedir"];

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
        assert!(reaches_home(text, &path_pieces(text), &[] as &[&str]));
    }

    #[test]
    fn the_strings_of_a_bracketed_group_are_one_line() {
        let lines = code_lines("os.system('rm -rf ~')", &HOME);
        assert_eq!(
            lines.first().map(String::as_str),
            Some("rm -rf ~"),
            "{lines:?}"
        );
        let lines = code_lines("spawn('rm', ['-rf', '~'])", &HOME);
        assert!(lines.contains(&"-rf ~".to_string()), "{lines:?}");
        assert!(lines.contains(&"rm -rf ~".to_string()), "{lines:?}");
        let lines = code_lines(r#"subprocess.run(["rm", "-r\"f", "/"])"#, &HOME);
        assert_eq!(
            lines.first().map(String::as_str),
            Some(r#"rm -r"f /"#),
            "{lines:?}"
        );
        let lines = code_lines("subprocess.run(['rm','-rf',os.environ['HOME']])", &HOME);
        assert!(lines.contains(&"rm -rf ~".to_string()), "{lines:?}");
        let lines = code_lines("os.system('rm -rf ' + os.environ['HOME'])", &HOME);
        assert!(lines.contains(&"rm -rf  ~".to_string()), "{lines:?}");
        let lines = code_lines(
            "execFileSync('rm', ['-rf', require('os').homedir()])",
            &HOME,
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("rm -rf") && l.ends_with('~')),
            "{lines:?}"
        );
        assert_eq!(code_lines("print(1)", &HOME), Vec::<String>::new());
        assert_eq!(code_lines("start:execute(rm -rf ~)", &HOME), ["rm -rf ~"]);
        assert_eq!(code_lines("x('a(b')", &HOME), ["a(b"]);
        assert_eq!(code_lines("`rm -rf ~`; 1", &HOME), ["rm -rf ~"]);
        assert_eq!(code_lines("qx(rm -rf ~)", &HOME), ["rm -rf ~"]);
        assert_eq!(code_lines("%x{rm -rf ~}", &HOME), ["rm -rf ~"]);
        assert_eq!(code_lines("equal(1)", &HOME), Vec::<String>::new());
    }

    #[test]
    fn strings_of_a_group_from_a_hidden_name_are_a_path() {
        assert_eq!(
            joined_paths("os.path.join(h, '.local', 'bin', 'ls')", &HOME),
            [".local/bin/ls"]
        );
        assert_eq!(
            joined_paths(
                "os.path.join(os.path.expanduser('~'), '.kube', 'config')",
                &HOME
            ),
            [".kube/config"]
        );
        assert!(joined_paths("print('a', 'b')", &HOME).is_empty());
    }
}
