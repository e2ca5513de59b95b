//! The hardline's path patterns (hardline.json `paths`) made once in lower case, and how a path
//! or a path glob is compared with them (for [`super::hardline::check_path`] and the plain
//! reading's secret reads): what every path a pattern matches starts with or holds, found once
//! per pattern, is compared first with what is found once per path, so that most patterns are
//! ruled out in a step or two; each shortcut gives every answer the whole comparison gives.

use super::glob::{heads_meet, one_meets, tokens, tokens_meet_crossing, Token};
use super::wildcard::matches;
use super::RiskClass;
use crate::spec::spec;
use crate::spec::types::HardPath;
use std::borrow::Cow;
use std::sync::OnceLock;

/// A pattern of a path entry in lower case, with what a match must start with and the longest
/// run of it that holds no wildcard: a path that does not hold them cannot match, and most paths
/// are ruled out by them at once.
pub(crate) struct LowerPattern {
    text: String,
    /// What comes before its first wildcard: a match starts with it.
    head: String,
    /// The longest piece between wildcards, when the pattern starts with one (`*/.ssh/*`).
    needle: String,
    /// The pattern as a glob's tokens, after its `~` if it starts with one (see [`Self::glob`]).
    glob_tokens: Vec<Token>,
    /// Where its text's first wildcard (`*`, `?`, `[`) stands: the text before it is literal.
    first_wildcard: usize,
    /// The head's first bytes (up to [`START_BYTES`]) as a path's [`PathKey`] holds them.
    head_start: u128,
    /// Which bytes of a [`PathKey`]'s start the head's first bytes fill.
    head_mask: u128,
    /// The pairs of bytes the needle holds (see [`PathKey`]): a path holding it holds them all.
    needle_pairs: u64,
    /// Its text holds `/.`, which every path it matches holds (a hidden name: `*/.ssh/*`).
    hidden_segment: bool,
    /// Comparing a path's first bytes with the head's says whether the path starts with it.
    head_compared_whole: bool,
}

/// How many of a path's first bytes a [`PathKey`] holds.
const START_BYTES: usize = 16;

/// What a path is compared with every pattern by first, made once per path: its first bytes
/// (up to [`START_BYTES`], zeros after a shorter path's end) as one number, so that a pattern's
/// head is compared with it in one step (most heads part from a path in their first bytes:
/// `~/.ssh/` and `/home/u/x`; `~/.config/gh/` and `~/.config/autostart/`); and the pairs of
/// bytes it holds, each a bit of a number, so that a needle holding a pair the path does not
/// (`/.ssh` holds `/.`, which `/home/u/proj/src/main.rs` does not) is ruled out in one step,
/// where looking for it in the path costs a call and a comparison at each place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PathKey {
    start: u128,
    pairs: u64,
}

impl PathKey {
    /// The key of `text`.
    pub(crate) fn of(text: &str) -> PathKey {
        let mut bytes = [0u8; START_BYTES];
        for (byte, from) in bytes.iter_mut().zip(text.as_bytes()) {
            *byte = *from;
        }
        PathKey {
            start: u128::from_le_bytes(bytes),
            pairs: pairs_of(text.as_bytes()),
        }
    }
}

/// The pairs of neighbouring bytes of a text, each set as one bit of 64 (two pairs may share
/// one: a bit set says the pair may be there, a bit not set that it is not). 64, not more: a
/// number of 64 bits is one of WebAssembly's own.
fn pairs_of(bytes: &[u8]) -> u64 {
    bytes.windows(2).fold(0u64, |pairs, pair| match pair {
        [first, second] => {
            let bit = (u32::from(*first) * 31 + u32::from(*second)) % 64;
            pairs | (1u64 << bit)
        }
        _ => pairs,
    })
}

/// A home folder (in lower case) read as the start of a glob, once for all the patterns that
/// start with `~` (see [`LowerPattern::glob`]).
pub(crate) struct HomeGlob<'a> {
    text: &'a str,
    /// The home's tokens, when they are its part of every pattern's: reading a glob never looks
    /// back past a plain letter, so the home's tokens and the rest's read apart are the whole
    /// text's — unless the home holds a wildcard's letter (a `*` at its end merges with one after
    /// it, a `[` opens a class): then there are none, and each pattern is read whole.
    tokens: Option<Vec<Token>>,
}

impl<'a> HomeGlob<'a> {
    /// The home `text` (in lower case) read for the patterns.
    pub(crate) fn new(text: &'a str) -> HomeGlob<'a> {
        let tokens = (!text.contains(['*', '?', '['])).then(|| tokens(text));
        HomeGlob { text, tokens }
    }

    /// What is found of a path glob once for every pattern it is met with (see
    /// [`LowerPattern::meets_glob`]).
    pub(crate) fn facts(&self, path: &[Token]) -> GlobFacts {
        GlobFacts {
            agreement: self.agreement(path),
            hidden_segment: may_hold_a_hidden_segment(path),
        }
    }

    /// How a path glob's first tokens meet the home's, found once for every pattern that
    /// starts with `~` (see [`LowerPattern::meets_glob`]).
    fn agreement(&self, path: &[Token]) -> HomeAgreement {
        let Some(home) = &self.tokens else {
            return HomeAgreement::Unknown;
        };
        for (at, home_token) in home.iter().enumerate() {
            match path.get(at) {
                Some(Token::Star) => return HomeAgreement::Unknown,
                Some(token) if one_meets(token, home_token) => {}
                _ => return HomeAgreement::Parts,
            }
        }
        HomeAgreement::RestFrom(home.len())
    }
}

/// What is found of a path glob once for every pattern it is met with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GlobFacts {
    /// How its first tokens meet the home's.
    agreement: HomeAgreement,
    /// Whether a path it names may hold `/.`: a `/` of its own followed by a token that may
    /// stand for a `.` (its wildcards stand for no `/`, and one at a name's start for no `.`).
    hidden_segment: bool,
}

/// Whether a path glob (hidden names spelled) may name a path holding `/.` (see
/// [`GlobFacts`]).
fn may_hold_a_hidden_segment(path: &[Token]) -> bool {
    path.windows(2).any(|pair| match pair {
        [Token::Char('/'), Token::Star] => true,
        [Token::Char('/'), next] => one_meets(next, &Token::Char('.')),
        _ => false,
    })
}

/// How a path glob's first tokens meet a home's: what [`heads_meet`] finds of the glob and a
/// pattern starting with `~` as far as the home goes, the same for every such pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HomeAgreement {
    /// They part: no pattern starting with `~` can meet the glob.
    Parts,
    /// The home's tokens meet the glob's first ones, one for one: the glob's rest, from here,
    /// is compared with what follows a pattern's `~`.
    RestFrom(usize),
    /// A `*` of the glob comes first, or the home holds a wildcard's letter: each pattern is met
    /// whole.
    Unknown,
}

impl LowerPattern {
    fn new(pattern: &str) -> LowerPattern {
        let text = pattern.to_lowercase();
        // A pattern ending in ` *` matches without that ending too: the piece comes from before.
        let body = text.strip_suffix(" *").unwrap_or(&text);
        let mut pieces = body.split(['*', '?']);
        let head = pieces.next().unwrap_or("").to_string();
        let needle = if head.is_empty() {
            pieces.max_by_key(|piece| piece.len()).unwrap_or("")
        } else {
            ""
        }
        .to_string();
        let glob_tokens = tokens(text.strip_prefix('~').unwrap_or(&text));
        let first_wildcard = text.find(['*', '?', '[']).unwrap_or(text.len());
        let hidden_segment = text.contains("/.");
        let head_start = PathKey::of(&head).start;
        let needle_pairs = pairs_of(needle.as_bytes());
        let mut mask = [0u8; START_BYTES];
        for byte in mask.iter_mut().take(head.len()) {
            *byte = 0xff;
        }
        // A head of up to 16 bytes, none of them zero, is compared whole by the first bytes: a
        // path shorter than it parts from it at its end (where the key holds zeros).
        let head_compared_whole = head.len() <= START_BYTES && !head.contains('\0');
        LowerPattern {
            text,
            head,
            needle,
            glob_tokens,
            first_wildcard,
            head_start,
            head_mask: u128::from_le_bytes(mask),
            needle_pairs,
            hidden_segment,
            head_compared_whole,
        }
    }

    /// The pattern as a glob's tokens, its `~` standing for `home` (a folder in lower case, read
    /// once for every pattern): what `tokens` makes of the pattern with its `~` replaced, read once
    /// instead of on every call.
    pub(crate) fn glob(&self, home: &HomeGlob<'_>) -> Cow<'_, [Token]> {
        if !self.text.starts_with('~') {
            return Cow::Borrowed(&self.glob_tokens);
        }
        match &home.tokens {
            Some(tokens_of_home) => {
                let mut glob = Vec::with_capacity(tokens_of_home.len() + self.glob_tokens.len());
                glob.extend(tokens_of_home.iter().cloned());
                glob.extend(self.glob_tokens.iter().cloned());
                Cow::Owned(glob)
            }
            None => Cow::Owned(tokens(&format!(
                "{}{}",
                home.text,
                self.text.get(1..).unwrap_or("")
            ))),
        }
    }

    /// Whether a path glob in lower case (its tokens, hidden names spelled) can name a path the
    /// pattern matches, its `~` standing for `home`: the tokens before the first `*` of either
    /// are compared first, with no list made for the pattern (most patterns, `~/.ssh/*` against
    /// `/home/u/proj/*/*`, part there).
    /// A pattern holding `/.` (`*/.ssh/*`) meets no glob that may name no path holding it.
    /// `facts` is `home.facts(path)`, found once for every pattern.
    pub(crate) fn meets_glob(&self, path: &[Token], home: &HomeGlob<'_>, facts: GlobFacts) -> bool {
        if self.hidden_segment && !facts.hidden_segment {
            return false;
        }
        let agree = match (self.text.starts_with('~'), facts.agreement) {
            (true, HomeAgreement::Parts) => false,
            (true, HomeAgreement::RestFrom(at)) => heads_meet(
                path.get(at..).unwrap_or(&[]).iter(),
                self.glob_tokens.iter(),
            ),
            (true, HomeAgreement::Unknown) => true,
            (false, _) => heads_meet(path.iter(), self.glob_tokens.iter()),
        };
        agree && tokens_meet_crossing(path, &self.glob(home), true)
    }

    /// The pattern's tokens as written, its `~` (if any) left out (see [`Self::glob`]).
    pub(crate) fn glob_tokens(&self) -> &[Token] {
        &self.glob_tokens
    }

    /// Whether a path in lower case matches the pattern (see [`matches`]).
    pub(crate) fn matches(&self, lower_path: &str) -> bool {
        self.matches_with(lower_path, PathKey::of(lower_path))
    }

    /// [`Self::matches`], the path's [`PathKey`] made already (once for every pattern).
    #[inline]
    pub(crate) fn matches_with(&self, lower_path: &str, key: PathKey) -> bool {
        key.start & self.head_mask == self.head_start
            && (self.head_compared_whole || lower_path.starts_with(self.head.as_str()))
            && key.pairs & self.needle_pairs == self.needle_pairs
            // A needle is kept only where the head is empty: looking for an empty one is a call.
            && (self.needle.is_empty() || lower_path.contains(self.needle.as_str()))
            && matches(&self.text, lower_path)
    }

    /// The pattern, in lower case.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// The pattern's text before its first wildcard (`*`, `?`, `[`), in lower case: what every
    /// path it matches starts with (its `~` standing for a home).
    pub(crate) fn literal(&self) -> &str {
        self.text.get(..self.first_wildcard).unwrap_or(&self.text)
    }
}

/// A path entry of the hardline (`paths`) with its patterns in lower case, made once: a path is
/// compared with them in lower case on every call.
pub(crate) struct LowerPath {
    /// The entry as the spec data has it.
    pub(crate) entry: &'static HardPath,
    /// Its `patterns`, in lower case.
    pub(crate) patterns: Vec<LowerPattern>,
    /// Its `root_patterns`, in lower case.
    pub(crate) root_patterns: Vec<LowerPattern>,
    /// Its `except` patterns, in lower case.
    pub(crate) except_patterns: Vec<LowerPattern>,
    /// Which of `patterns` a path may match by its first byte.
    by_first_byte: ByFirstByte,
}

/// Where in an entry's patterns those a path may match by its first byte stand: a pattern
/// whose head starts with `~` matches only a path spelled from `~`, one whose head starts with
/// `/` only a path from the root; one with no head (`*/.ssh/*`) any path.
struct ByFirstByte {
    /// Those whose head starts with `~`.
    home: Vec<usize>,
    /// Those whose head starts with another byte (`/`).
    other: Vec<usize>,
    /// Those with no head.
    anywhere: Vec<usize>,
}

impl ByFirstByte {
    fn of(patterns: &[LowerPattern]) -> ByFirstByte {
        let mut groups = ByFirstByte {
            home: Vec::new(),
            other: Vec::new(),
            anywhere: Vec::new(),
        };
        for (at, pattern) in patterns.iter().enumerate() {
            match pattern.head.as_bytes().first() {
                None => groups.anywhere.push(at),
                Some(b'~') => groups.home.push(at),
                Some(_) => groups.other.push(at),
            }
        }
        groups
    }
}

impl LowerPath {
    /// Whether the entry covers calls of this class.
    pub(crate) fn applies_to(&self, class: RiskClass) -> bool {
        self.entry.classes.iter().any(|c| c == class.as_str())
    }

    /// Whether one of its `patterns` matches a path in lower case, its [`PathKey`] made: only
    /// those whose head may start the path are tried (see [`ByFirstByte`]).
    pub(crate) fn patterns_match(&self, lower_path: &str, key: PathKey) -> bool {
        let groups = &self.by_first_byte;
        let headed: &[usize] = match lower_path.as_bytes().first() {
            Some(b'~') => &groups.home,
            Some(_) => &groups.other,
            None => &[],
        };
        headed
            .iter()
            .chain(&groups.anywhere)
            .filter_map(|at| self.patterns.get(*at))
            .any(|p| p.matches_with(lower_path, key))
    }
}

/// The hardline's path entries, their patterns in lower case (made on the first call).
pub(crate) fn lower_paths() -> &'static [LowerPath] {
    static PATHS: OnceLock<Vec<LowerPath>> = OnceLock::new();
    PATHS.get_or_init(|| {
        let all = |patterns: &[crate::spec::types::Str]| {
            patterns.iter().map(|p| LowerPattern::new(p)).collect()
        };
        spec()
            .hardline
            .paths
            .iter()
            .map(|entry| {
                let patterns: Vec<LowerPattern> = all(&entry.patterns);
                LowerPath {
                    entry,
                    by_first_byte: ByFirstByte::of(&patterns),
                    patterns,
                    root_patterns: all(&entry.root_patterns),
                    except_patterns: all(&entry.except_patterns),
                }
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::super::glob::hidden_names_spelled;
    use super::*;

    #[test]
    fn a_pattern_s_piece_rules_out_no_match() {
        let patterns: Vec<&LowerPattern> = lower_paths()
            .iter()
            .flat_map(|e| {
                e.patterns
                    .iter()
                    .chain(&e.root_patterns)
                    .chain(&e.except_patterns)
            })
            .collect();
        let mut paths: Vec<String> = Vec::new();
        for p in &patterns {
            for star in ["", "x", "a/b", "*"] {
                for one in ["q", "/", "?"] {
                    let path = p.as_str().replace('*', star).replace('?', one);
                    paths.push(format!("{path}/more"));
                    paths.push(path);
                }
            }
        }
        let mut matched = 0;
        for p in &patterns {
            for path in &paths {
                let whole = matches(p.as_str(), path);
                assert_eq!(p.matches(path), whole, "{} against {path}", p.as_str());
                matched += usize::from(whole);
            }
        }
        assert!(matched > patterns.len());
    }

    /// A pattern's tokens read once are what reading the pattern with its `~` replaced gives.
    #[test]
    fn a_pattern_s_tokens_are_its_text_s() {
        for e in lower_paths() {
            for p in &e.patterns {
                for home in [
                    "/home/me",
                    "/home/~home",
                    "/h[o]me/*",
                    "",
                    "/home/x*",
                    "/home/a\\b",
                    "/home/[x",
                ] {
                    let text = match p.as_str().strip_prefix('~') {
                        Some(rest) => format!("{home}{rest}"),
                        None => p.as_str().to_string(),
                    };
                    assert_eq!(
                        p.glob(&HomeGlob::new(home)).as_ref(),
                        tokens(&text).as_slice(),
                        "{text}"
                    );
                }
            }
        }
    }

    /// Comparing the heads first changes no answer: `meets_glob` is the whole meeting of the
    /// path glob and the pattern with its `~` read, for every pattern, homes with and without
    /// wildcards, and globs that part at their first letter, in the home, or only after a `*`.
    #[test]
    fn meets_glob_is_the_whole_meeting() {
        let globs = [
            "/home/me/proj/*/*",
            "/home/me/.s?h/*",
            "/home/me/.*",
            "/home/me/.config/*",
            "/home/x*/.ssh/id_*",
            "/home/*/.aws/c*",
            "*/.git/hooks/*",
            "/etc/*",
            "/proc/*/environ",
            "/home/me/proj/.git/*",
            "/home/me/proj/.g?t/config",
            "/h[o]me/me/.ssh/*",
            "?home/me/.npmrc",
            "/tmp/*",
            "/home/me/proj/?git/*",
            "/home/me/[.]ssh/*",
            "/home/me/proj/*/*/*",
            "/home/me/proj/*/.git/config",
        ];
        let mut met = 0;
        for home in [
            "/home/me",
            "/home/x*",
            "/h[o]me/me",
            "",
            "/home/a\\b",
            "/home/~home",
        ] {
            let home_glob = HomeGlob::new(home);
            for glob in globs {
                let path = hidden_names_spelled(tokens(glob));
                for e in lower_paths() {
                    for p in &e.patterns {
                        let whole = tokens_meet_crossing(&path, &p.glob(&home_glob), true);
                        assert_eq!(
                            p.meets_glob(&path, &home_glob, home_glob.facts(&path)),
                            whole,
                            "{glob} against {} (home {home})",
                            p.as_str()
                        );
                        met += usize::from(whole);
                    }
                }
            }
        }
        assert!(
            met > 50,
            "only {met} meetings: the globs meet too few patterns to compare"
        );
    }

    /// Trying only the patterns a path's first byte allows changes no answer: for every entry,
    /// `patterns_match` is whether any of its patterns matches.
    #[test]
    fn patterns_tried_by_first_byte_are_every_pattern_s_answer() {
        let paths = [
            "",
            "~",
            "~/.ssh/id_rsa",
            "~/.config/gh/hosts.yml",
            "~/proj/.git/config",
            "/home/me/.ssh/id_rsa",
            "/home/me/proj/.git/hooks/pre-commit",
            "/proc/1/environ",
            "/etc/shadow",
            ".ssh/id_rsa",
            "x/.git/config",
            "/home/me/proj/src/main.rs",
        ];
        let mut matched = 0;
        for e in lower_paths() {
            for path in paths {
                let every = e.patterns.iter().any(|p| p.matches(path));
                assert_eq!(e.patterns_match(path, PathKey::of(path)), every, "{path}");
                matched += usize::from(every);
            }
        }
        assert!(
            matched > 5,
            "only {matched} matches: the paths match too few entries"
        );
    }
}
