//! Globs of paths (a `*`, `?` or `[…]` stands within one segment) and whether two of them can name
//! the same path. Rules' and hardline entries' wildcards are [`super::wildcard`]'s.
use std::borrow::Borrow;

/// When the last segment of a glob matches all of a folder's entries (`*`, `.*`, `?*`), the
/// folder.
pub(crate) fn broad_contents(path: &str) -> Option<&str> {
    let (dir, last) = path.rsplit_once('/')?;
    let name = last.strip_prefix('.').unwrap_or(last);
    let t = tokens(name);
    let broad = t.contains(&Token::Star) && t.iter().all(|t| !matches!(t, Token::Char(_)));
    broad.then_some(if dir.is_empty() { "/" } else { dir })
}

/// Whether two paths, each a glob whose `*`, `?` and `[…]` stand within a segment, can name the
/// same path.
pub fn path_meets(a: &str, b: &str) -> bool {
    Segments::of(a).meets(b)
}

/// A path's segments, empty ones left out (`/a//b/` is `a`, `b`).
fn segments_of(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter(|s| !s.is_empty())
}

/// A path cut into its segments once, to be compared with many globs ([`path_meets`]).
pub(crate) struct Segments<'a> {
    absolute: bool,
    parts: Vec<&'a str>,
}

impl<'a> Segments<'a> {
    /// The segments of `path`, a glob too.
    pub(crate) fn of(path: &'a str) -> Segments<'a> {
        Segments {
            absolute: path.starts_with('/'),
            parts: segments_of(path).collect(),
        }
    }

    /// Whether this path and `glob` can name the same path (`glob`'s `**` stands for any
    /// segments). A glob of up to 16 segments is cut on the stack.
    pub(crate) fn meets(&self, glob: &str) -> bool {
        if self.absolute != glob.starts_with('/') {
            return false;
        }
        let mut on_stack = [GlobSegment::new(""); 16];
        let mut count = 0;
        for part in segments_of(glob) {
            match on_stack.get_mut(count) {
                Some(slot) => *slot = GlobSegment::new(part),
                None => {
                    let parts: Vec<GlobSegment<'_>> =
                        segments_of(glob).map(GlobSegment::new).collect();
                    return segments_meet(&self.parts, &parts);
                }
            }
            count += 1;
        }
        segments_meet(&self.parts, on_stack.get(..count).unwrap_or(&[]))
    }

    /// [`Self::meets`] for a glob cut once ([`PathGlob`]).
    pub(crate) fn meets_glob(&self, glob: &PathGlob) -> bool {
        self.absolute == glob.absolute && segments_meet(&self.parts, &glob.parts)
    }
}

/// A glob of a set (a spec's table, which lives as long as the program), cut into its segments
/// once for every path it is compared with: what [`Segments::meets`] would cut on every call.
#[derive(Debug, Clone)]
pub(crate) struct PathGlob {
    absolute: bool,
    parts: Vec<GlobSegment<'static>>,
}

impl PathGlob {
    /// The glob `glob`, cut.
    pub(crate) fn new(glob: &'static str) -> PathGlob {
        PathGlob {
            absolute: glob.starts_with('/'),
            parts: segments_of(glob).map(GlobSegment::new).collect(),
        }
    }
}

/// One segment of a glob, with whether it holds a wildcard (`*`, `?` or `[`).
#[derive(Debug, Clone, Copy)]
struct GlobSegment<'a> {
    text: &'a str,
    wild: bool,
}

impl<'a> GlobSegment<'a> {
    fn new(text: &'a str) -> GlobSegment<'a> {
        GlobSegment {
            text,
            wild: has_wildcard(text),
        }
    }
}

/// Whether a glob's text holds a wildcard (`*`, `?` or `[`).
fn has_wildcard(text: &str) -> bool {
    text.contains(['*', '?', '['])
}

/// Segment by segment; a `**` segment of `b` (a set's pattern) stands for any segments.
fn segments_meet(a: &[&str], b: &[GlobSegment<'_>]) -> bool {
    match (a.split_first(), b.split_first()) {
        (_, Some((glob, rest))) if glob.text == "**" => {
            (0..=a.len()).any(|k| segments_meet(a.get(k..).unwrap_or(&[]), rest))
        }
        (Some((x, ra)), Some((y, rb))) => {
            segment_meets(x, has_wildcard(x), y.text, y.wild) && segments_meet(ra, rb)
        }
        (None, None) => true,
        _ => false,
    }
}

/// Whether two globs of one segment can match a common name, with whether each holds a
/// wildcard told.
fn segment_meets(a: &str, a_wild: bool, b: &str, b_wild: bool) -> bool {
    match (a_wild, b_wild) {
        (false, false) => a == b,
        (false, true) => wildcard_segment(b, a),
        (true, false) => wildcard_segment(a, b),
        (true, true) => tokens_meet(&tokens(a), &tokens(b)),
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Token {
    Char(char),
    Any,
    Star,
    /// `[…]`: the characters it names, and whether it is negated.
    Class(Vec<char>, bool),
}

pub(crate) fn tokens(s: &str) -> Vec<Token> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        match c {
            '*' => {
                if out.last() != Some(&Token::Star) {
                    out.push(Token::Star);
                }
            }
            '?' => out.push(Token::Any),
            '[' => {
                let mut k = i;
                let negated = matches!(chars.get(k), Some('!' | '^'));
                if negated {
                    k += 1;
                }
                let start = k;
                if chars.get(k) == Some(&']') {
                    k += 1;
                }
                while chars.get(k).is_some_and(|c| *c != ']') {
                    k += 1;
                }
                if chars.get(k) == Some(&']') {
                    let mut set = Vec::new();
                    let body: Vec<char> = chars.get(start..k).unwrap_or(&[]).to_vec();
                    let mut j = 0;
                    while let Some(&x) = body.get(j) {
                        if body.get(j + 1) == Some(&'-') {
                            if let Some(&y) = body.get(j + 2) {
                                let (lo, hi) = (x.min(y) as u32, x.max(y) as u32);
                                set.extend((lo..=hi.min(lo + 256)).filter_map(char::from_u32));
                                j += 3;
                                continue;
                            }
                        }
                        set.push(x);
                        j += 1;
                    }
                    out.push(Token::Class(set, negated));
                    i = k + 1;
                } else {
                    out.push(Token::Char('['));
                }
            }
            _ => out.push(Token::Char(c)),
        }
    }
    out
}

/// Whether a glob of one segment matches a plain name (no allocation for the common `*`
/// patterns: a literal with one `*`).
pub(crate) fn wildcard_segment(glob: &str, name: &str) -> bool {
    if !glob.contains(['?', '[']) && glob.matches('*').count() == 1 {
        if let Some((head, tail)) = glob.split_once('*') {
            return name.len() >= head.len() + tail.len()
                && name.starts_with(head)
                && name.ends_with(tail);
        }
    }
    let t = tokens(glob);
    let name: Vec<Token> = name.chars().map(Token::Char).collect();
    tokens_meet(&t, &name)
}

pub(crate) fn single_meets(a: &Token, b: &Token) -> bool {
    match (a, b) {
        (Token::Char(x), Token::Char(y)) => x == y,
        (Token::Class(set, neg), Token::Char(c)) | (Token::Char(c), Token::Class(set, neg)) => {
            set.contains(c) != *neg
        }
        _ => true,
    }
}

pub(crate) fn tokens_meet(ta: &[Token], tb: &[Token]) -> bool {
    tokens_meet_crossing(ta, tb, false)
}

/// Whether a path glob (`a`, whose `*` stands within a segment) can name a path a pattern (`b`)
/// matches; `b_crosses`: the pattern's `*` stands for any run of characters, `/` too (the
/// hardline's path patterns).
pub(crate) fn tokens_meet_crossing(ta: &[Token], tb: &[Token], b_crosses: bool) -> bool {
    // Up to the first `*` of either there is one way on, a token of each at a time: followed
    // without the table below, most pairs (a path and a pattern anchored elsewhere) part there.
    let (mut start_a, mut start_b) = (0, 0);
    loop {
        match (ta.get(start_a), tb.get(start_b)) {
            (None, None) => return true,
            (Some(Token::Star), _) | (_, Some(Token::Star)) => break,
            (Some(x), Some(y)) if one_meets(x, y) => {
                start_a += 1;
                start_b += 1;
            }
            _ => return false,
        }
    }
    meet_from(ta, tb, b_crosses, (start_a, start_b))
}

/// Whether two globs agree up to the first `*` of either, read as their tokens come (a
/// pattern's `~` read as a home's tokens, not gathered into one list): the walk
/// [`tokens_meet_crossing`] makes first. False: they cannot meet, and that walk would say so.
pub(crate) fn heads_meet<A: Borrow<Token>, B: Borrow<Token>>(
    mut a: impl Iterator<Item = A>,
    mut b: impl Iterator<Item = B>,
) -> bool {
    loop {
        let (x, y) = (a.next(), b.next());
        match (
            x.as_ref().map(Borrow::borrow),
            y.as_ref().map(Borrow::borrow),
        ) {
            (None, None) | (Some(Token::Star), _) | (_, Some(Token::Star)) => return true,
            (Some(x), Some(y)) if one_meets(x, y) => {}
            _ => return false,
        }
    }
}

/// Whether `a[start.0..]` and `b[start.1..]` can meet, every way on tried once (a table of the
/// places reached).
fn meet_from(ta: &[Token], tb: &[Token], b_crosses: bool, start: (usize, usize)) -> bool {
    // seen[i][j]: a[i..] and b[j..] were tried.
    let w = tb.len() + 1;
    let mut seen = vec![false; (ta.len() + 1) * w];
    // Room for a way on through each token of both, so the common walk never grows it.
    let mut stack = Vec::with_capacity(ta.len() + tb.len() + 2);
    stack.push(start);
    while let Some((i, j)) = stack.pop() {
        let Some(cell) = seen.get_mut(i * w + j) else {
            continue;
        };
        if *cell {
            continue;
        }
        *cell = true;
        match (ta.get(i), tb.get(j)) {
            (None, None) => return true,
            (Some(Token::Star), _) => {
                stack.push((i + 1, j));
                // A glob's `*` never stands for a `/`.
                if tb.get(j).is_some_and(|t| *t != Token::Char('/')) {
                    stack.push((i, j + 1));
                }
            }
            (_, Some(Token::Star)) => {
                stack.push((i, j + 1));
                if ta
                    .get(i)
                    .is_some_and(|t| b_crosses || *t != Token::Char('/'))
                {
                    stack.push((i + 1, j));
                }
            }
            (Some(x), Some(y)) if one_meets(x, y) => stack.push((i + 1, j + 1)),
            _ => {}
        }
    }
    false
}

/// Whether one token of a path glob and one of a pattern, neither a `*`, can stand for the same
/// character: a glob's `?` or `[…]` never stands for a `/`.
pub(crate) fn one_meets(x: &Token, y: &Token) -> bool {
    single_meets(x, y) && !(*y == Token::Char('/') && matches!(x, Token::Any | Token::Class(..)))
}

/// Whether a wildcard pattern (a rule's or a hardline entry's: `*` any run of characters, `/`
/// too; `?` one character) can match a path inside `folder` — the folder, a `/`, then anything.
/// `.` (the project root as a rule sees it) holds every relative path.
pub fn may_match_under(pattern: &str, folder: &str) -> bool {
    let folder = folder.trim_end_matches('/');
    let (folder, slash) = match folder {
        "." => ("", ""),
        "" => ("", "/"),
        f => (f, "/"),
    };
    let prefix = || folder.chars().chain(slash.chars());
    // Up to its first wildcard a pattern matches only itself: a folder that differs from it
    // there holds nothing it matches (most of the hardline's patterns are anchored at a folder
    // of their own, and are ruled out here).
    let literal = pattern.split(['*', '?']).next().unwrap_or_default();
    if literal.chars().zip(prefix()).any(|(p, c)| p != c) {
        return false;
    }
    if literal.len() == pattern.len() {
        // No wildcard: the pattern is a path under the folder when it goes on past it.
        return literal.chars().count() > prefix().count();
    }
    pattern_runs_past(pattern, prefix())
}

/// Whether `pattern` can match `prefix` and go on past it: the places in the pattern a match may
/// have reached, character by character.
fn pattern_runs_past(pattern: &str, prefix: impl Iterator<Item = char>) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    // The places in the pattern a match may have reached, a `*` standing for nothing too.
    let close = |states: &mut Vec<usize>| {
        let mut k = 0;
        while let Some(&s) = states.get(k) {
            if pattern.get(s) == Some(&'*') && !states.contains(&(s + 1)) {
                states.push(s + 1);
            }
            k += 1;
        }
    };
    let mut states = vec![0];
    let mut next = Vec::new();
    close(&mut states);
    for c in prefix {
        next.clear();
        for &s in &states {
            let to = match pattern.get(s) {
                Some('*') => s,
                Some('?') => s + 1,
                Some(&p) if p == c => s + 1,
                _ => continue,
            };
            if !next.contains(&to) {
                next.push(to);
            }
        }
        close(&mut next);
        std::mem::swap(&mut states, &mut next);
    }
    // A place before the pattern's end can be carried to its end by more characters.
    states.iter().any(|&s| s < pattern.len())
}

/// A glob's tokens with bash's rule for hidden names: a name starting with `.` is matched only by
/// a `.` spelled out, so a segment that starts with a wildcard cannot start with `.`.
pub(crate) fn hidden_names_spelled(glob: Vec<Token>) -> Vec<Token> {
    let mut out = Vec::with_capacity(glob.len() + 4);
    let mut segment_start = true;
    for t in glob {
        if segment_start {
            match t {
                Token::Star => {
                    out.push(Token::Class(vec!['.'], true));
                    out.push(Token::Star);
                }
                Token::Any => out.push(Token::Class(vec!['.'], true)),
                Token::Class(mut set, negated) => {
                    if negated {
                        set.push('.');
                    } else {
                        set.retain(|c| *c != '.');
                    }
                    out.push(Token::Class(set, negated));
                }
                other => out.push(other),
            }
        } else {
            out.push(t);
        }
        segment_start = out.last() == Some(&Token::Char('/'));
    }
    out
}

/// Whether a path that is a bash glob (`.en?`, `config/*.ENV`: `*`, `?` and `[…]` within one
/// segment, a hidden name only by a `.` spelled out) can name a path a rule's pattern matches
/// (`*` any run of characters, `/` too).
pub fn glob_may_match(glob: &str, pattern: &str) -> bool {
    GlobPath::new(glob).may_match(pattern)
}

/// A path that is a bash glob, read once for every rule's pattern it is compared with (see
/// [`glob_may_match`]).
pub(crate) struct GlobPath {
    /// Its tokens, hidden names spelled.
    tokens: Vec<Token>,
}

impl GlobPath {
    /// The glob `glob`, read.
    pub(crate) fn new(glob: &str) -> GlobPath {
        GlobPath {
            tokens: hidden_names_spelled(tokens(glob)),
        }
    }

    /// Whether the glob can name a path `pattern` matches. The pattern's letters before its
    /// first wildcard are compared with the glob's first tokens before the pattern is read (a
    /// rule's `/etc/*` parts from `src/*.rs` at its first letter).
    pub(crate) fn may_match(&self, pattern: &str) -> bool {
        let literal = pattern
            .find(['*', '?', '[', '\\'])
            .and_then(|at| pattern.get(..at))
            .unwrap_or(pattern);
        // Its letters, then a `*` standing for what follows them: a walk that reaches it says
        // nothing yet, and the pattern is read.
        let letters = literal
            .chars()
            .map(Token::Char)
            .chain(std::iter::once(Token::Star));
        heads_meet(self.tokens.iter(), letters)
            && tokens_meet_crossing(&self.tokens, &tokens(pattern), true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether two globs of one segment can match a common name.
    fn glob_meets(a: &str, b: &str) -> bool {
        segment_meets(a, has_wildcard(a), b, has_wildcard(b))
    }

    /// Comparing a pattern's first letters first changes no answer: `may_match` is the whole
    /// meeting, for every default rule's pattern and rules' patterns of other shapes.
    #[test]
    fn a_glob_read_once_meets_as_the_whole_meeting() {
        let mut patterns: Vec<String> = crate::permission::request::default_rules()
            .iter()
            .map(|r| r.pattern.clone())
            .collect();
        patterns.extend(
            [
                "/etc/*", "src/*.rs", "*.env", ".env", "a\\*b", "[ab]*", "?x", "", "*",
            ]
            .map(String::from),
        );
        let globs = [
            ".en?",
            "src/*",
            "/etc/*/x",
            "*",
            ".*",
            "a?.txt",
            "/home/u/proj/*/*",
            "[a]b",
            "",
            "/etc/pass?d",
            ".git/*",
            "x\\y*",
        ];
        let mut met = 0;
        for glob in globs {
            let read = GlobPath::new(glob);
            let path = hidden_names_spelled(tokens(glob));
            for pattern in &patterns {
                let whole = tokens_meet_crossing(&path, &tokens(pattern), true);
                assert_eq!(read.may_match(pattern), whole, "{glob} against {pattern}");
                met += usize::from(whole);
            }
        }
        assert!(
            met > 10,
            "only {met} meetings: the globs meet too few patterns"
        );
    }

    #[test]
    fn a_glob_may_name_what_a_pattern_matches() {
        assert!(glob_may_match(".en?", "*.env"));
        assert!(glob_may_match(".e*", "*.env"));
        assert!(glob_may_match(".[e]nv", "*.env"));
        assert!(glob_may_match("config/*", "*.env"));
        assert!(glob_may_match("*", "*.env"), "a * names prod.env");
        assert!(!glob_may_match("*", ".env"), "a * names no hidden file");
        assert!(!glob_may_match("src/*.rs", "*.env"));
        assert!(!glob_may_match("a?.txt", "*.env"));
    }

    /// `tokens_meet_crossing` as it was first written: the table from the first tokens on.
    fn tokens_meet_plainly(ta: &[Token], tb: &[Token], b_crosses: bool) -> bool {
        meet_from(ta, tb, b_crosses, (0, 0))
    }

    /// Every pair of globs of up to three pieces from `a`, `b`, `/`, `*`, `?`, `[ab]`, `[!a]`,
    /// crossing and not: the same answer as the first writing.
    #[test]
    fn tokens_meet_agrees_with_its_first_writing() {
        let mut texts =
            crate::permission::every_text(&["a", "b", "/", "*", "?", "[ab]", "[!a]"], 3);
        texts.extend(
            ["/home/me/.ssh/*", "/proc/*/environ", "*/.aws/*", "src/*.rs"].map(String::from),
        );
        let read: Vec<Vec<Token>> = texts.iter().map(|t| tokens(t)).collect();
        let mut met = 0;
        for a in &read {
            for b in &read {
                for crosses in [false, true] {
                    let plainly = tokens_meet_plainly(a, b, crosses);
                    assert_eq!(
                        tokens_meet_crossing(a, b, crosses),
                        plainly,
                        "{a:?} {b:?} {crosses}"
                    );
                    met += usize::from(plainly);
                }
            }
        }
        assert!(met > 0 && met < read.len() * read.len() * 2);
    }

    /// `may_match_under` as it was first written: the pattern run over the whole folder.
    fn may_match_under_plainly(pattern: &str, folder: &str) -> bool {
        let prefix: String = match folder.trim_end_matches('/') {
            "." => String::new(),
            "" => "/".into(),
            f => format!("{f}/"),
        };
        pattern_runs_past(pattern, prefix.chars())
    }

    /// Every pattern and folder of up to four characters from `a/*?.é` (and the hardline's own
    /// patterns against folders near them): the same answer as the first writing.
    #[test]
    fn may_match_under_agrees_with_its_first_writing() {
        let texts = crate::permission::every_text(&["a", "/", "*", "?", ".", "é"], 4);
        let folders: Vec<String> = texts
            .iter()
            .filter(|t| !t.contains(['*', '?']))
            .cloned()
            .collect();
        for pattern in &texts {
            for folder in folders.iter().step_by(5) {
                assert_eq!(
                    may_match_under(pattern, folder),
                    may_match_under_plainly(pattern, folder),
                    "{pattern:?} under {folder:?}"
                );
            }
        }
        let patterns = [
            "~/.ssh/*",
            "/proc/*/environ",
            "/home/me/.ssh/id_*",
            "*/.aws/*",
            "a",
            "/a/b",
        ];
        let near = [
            "~",
            "~/",
            "~/.ssh",
            "/",
            "",
            ".",
            "/proc",
            "/proc/1",
            "/home",
            "/home/me/.ssh/id_rsa",
            "/a",
            "/a/b",
            "/a/b/c",
            "a",
            "b",
        ];
        for pattern in patterns {
            for folder in near {
                assert_eq!(
                    may_match_under(pattern, folder),
                    may_match_under_plainly(pattern, folder),
                    "{pattern:?} under {folder:?}"
                );
            }
        }
    }

    #[test]
    fn a_pattern_may_match_under_a_folder() {
        assert!(may_match_under("*.env", "src"));
        assert!(may_match_under("*.env", "."));
        assert!(may_match_under("~/.ssh/*", "~"));
        assert!(may_match_under("/home/me/.ssh/*", "/home"));
        assert!(may_match_under("/home/me/.ssh/*", "/"));
        assert!(may_match_under("/proc/*/environ", "/proc"));
        assert!(may_match_under("/proc/*/environ", "/proc/1"));
        assert!(!may_match_under("secrets/*", "src"));
        assert!(!may_match_under("/home/me/.ssh/*", "/home/me/src"));
        assert!(!may_match_under("/home/me/.ssh/*", "/tmp"));
        assert!(may_match_under("src/?.env", "src"));
    }

    #[test]
    fn globs_meet_when_they_can_name_one_path() {
        assert!(path_meets("/?in", "/bin"));
        assert!(path_meets("/[b]in", "/bin"));
        assert!(path_meets("/*", "/usr"));
        assert!(path_meets("/*/*", "/usr/*"));
        assert!(path_meets("/dev/s?a", "/dev/sd*"));
        assert!(!path_meets("/dev/[!s]da", "/dev/sd*"));
        assert!(!path_meets("/project/build", "/*"));
        assert!(!path_meets("/usr", "/"));
        assert!(glob_meets("*", "*"));
        assert!(!glob_meets("a*", "b*"));
        assert!(path_meets("/etc/ssh/sshd_config", "/etc/**"));
        assert!(path_meets("/etc", "/etc/**"));
        assert!(!path_meets("/project/etc", "/etc/**"));
    }
}
