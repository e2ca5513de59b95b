//! The hardline (hardline.json): commands refused in every mode, auto included, and paths no
//! file tool may touch. A line's commands are judged as [`super::plain`] reads them; every part
//! counts. A path is compared without letter case (`.SSH` is `.ssh` on a case-insensitive disk).

use super::glob::{
    heads_meet, hidden_names_spelled, one_meets, tokens, tokens_meet_crossing, PathGlob, Token,
};
use super::path::inside;
use super::wildcard::matches;
use super::RiskClass;
use crate::spec::spec;
use crate::spec::types::HardPath;
use std::borrow::Cow;
use std::sync::OnceLock;

/// A hardline entry that refuses a call (or, for a guarding path entry, asks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The entry's id (`rm-root`).
    pub entry: String,
    /// The entry's reason, said to the model.
    pub reason: String,
    /// The part of the line it refused, spelled plainly (or the path).
    pub part: String,
}

/// A protected path entry that a call touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathHit {
    /// The entry and the path.
    pub hit: Hit,
    /// The entry guards rather than refuses: the call is asked where it would be allowed.
    pub ask: bool,
}

/// A text in lower case (as `str::to_lowercase` writes it), borrowed when it already is (most
/// paths are).
pub(crate) fn lower(text: &str) -> Cow<'_, str> {
    let unchanged = if text.is_ascii() {
        !text.bytes().any(|b| b.is_ascii_uppercase())
    } else {
        // A title-case letter (`ǅ`) is not upper case and still changes.
        text.chars().all(|c| {
            let mut lowered = c.to_lowercase();
            lowered.next() == Some(c) && lowered.next().is_none()
        })
    };
    if unchanged {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.to_lowercase())
    }
}

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
    needle_pairs: u128,
    /// Its text holds `/.`, which every path it matches holds (a hidden name: `*/.ssh/*`).
    hidden_segment: bool,
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
    pairs: u128,
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

/// The pairs of neighbouring bytes of a text, each set as one bit of 128 (two pairs may share
/// one: a bit set says the pair may be there, a bit not set that it is not).
fn pairs_of(bytes: &[u8]) -> u128 {
    bytes.windows(2).fold(0u128, |pairs, pair| match pair {
        [first, second] => {
            let bit = (u32::from(*first) * 31 + u32::from(*second)) % 128;
            pairs | (1u128 << bit)
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

    /// Whether a path in lower case matches the pattern (see [`matches`]).
    pub(crate) fn matches(&self, lower_path: &str) -> bool {
        self.matches_with(lower_path, PathKey::of(lower_path))
    }

    /// [`Self::matches`], the path's [`PathKey`] made already (once for every pattern). A head's
    /// bytes are never zero, so a path shorter than the head parts from it at its end.
    #[inline]
    pub(crate) fn matches_with(&self, lower_path: &str, key: PathKey) -> bool {
        key.start & self.head_mask == self.head_start
            && (self.head.len() <= START_BYTES || lower_path.starts_with(self.head.as_str()))
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

/// A target set of hardline.json (`sets`: the folders a command must not empty or change), its
/// globs cut into segments once for every path compared with them.
pub(crate) struct PathSet {
    /// Paths named exactly.
    pub(crate) exact: Vec<PathGlob>,
    /// Globs (`**` stands for any segments).
    pub(crate) patterns: Vec<PathGlob>,
    /// Globs inside the home, after its `~/` (`.*`: the home's hidden folders).
    pub(crate) home_patterns: Vec<&'static str>,
}

/// The target set named `name`, if hardline.json has it.
pub(crate) fn path_set(name: &str) -> Option<&'static PathSet> {
    static SETS: OnceLock<Vec<(&'static str, PathSet)>> = OnceLock::new();
    let sets = SETS.get_or_init(|| {
        let cut = |globs: &'static [crate::spec::types::Str]| {
            globs.iter().map(|g| PathGlob::new(g)).collect()
        };
        spec()
            .hardline
            .sets
            .0
            .iter()
            .map(|(name, set)| {
                let in_home = |g: &'static crate::spec::types::Str| g.strip_prefix("~/");
                let set = PathSet {
                    exact: cut(&set.exact),
                    patterns: set
                        .patterns
                        .iter()
                        .filter(|g| in_home(g).is_none())
                        .map(|g| PathGlob::new(g))
                        .collect(),
                    home_patterns: set.patterns.iter().filter_map(in_home).collect(),
                };
                (name.as_ref(), set)
            })
            .collect()
    });
    sets.iter()
        .find(|(known, _)| *known == name)
        .map(|(_, set)| set)
}

/// The protected path (`paths`) a call of this class touches, refusing entries first. `abs` is
/// the normalised absolute path (or `~/…`); `home`, when known, lets `~/…` patterns match;
/// `root`, the project root, lets `root_patterns` match.
pub fn check_path(abs: &str, class: RiskClass, home: Option<&str>, root: &str) -> Option<PathHit> {
    let lower_abs = lower(abs);
    let lower_abs = lower_abs.as_ref();
    let given = home.and_then(|home| {
        let home = lower(home.trim_end_matches('/'));
        lower_abs
            .strip_prefix(home.as_ref())
            .filter(|r| r.is_empty() || r.starts_with('/'))
            .map(|r| format!("~{r}"))
    });
    // A path in a home by where it lies (`/home/u/.npmrc` where the home is not given, or is
    // another's): read against `~` patterns from that home too.
    let lying_in = after_a_home(lower_abs).map(|r| format!("~{r}"));
    let mut tildes: Vec<String> = given.into_iter().chain(lying_in).collect();
    tildes.dedup();
    let relative = inside(&lower(root), lower_abs);
    // A path that is a glob (a redirection's `> .gi?/hooks/x`, which bash expands when it
    // matches one file) is every path it can name, by bash's rule for hidden names: a pattern
    // it can meet covers it, and no `except` pattern spares it.
    let lower_home = home.map(|h| lower(h.trim_end_matches('/')).into_owned());
    // Only a glob that may name a hidden entry (a segment spelled with its `.` and a wildcard
    // after it: `.gi?`, `.[g]it`, `.*`) is read so: git's and the home's protected names are
    // hidden ones, and `build/*` is read as written (a folder's contents are judged by the
    // command that takes them).
    let may_name_hidden = lower_abs.split('/').any(|segment| {
        segment
            .strip_prefix('.')
            .is_some_and(|rest| rest.contains(['*', '?', '[']))
    });
    let glob = may_name_hidden.then(|| {
        let path = hidden_names_spelled(tokens(lower_abs));
        let home = HomeGlob::new(lower_home.as_deref().unwrap_or("*"));
        let facts = home.facts(&path);
        (path, home, facts)
    });
    let relative_glob = glob
        .as_ref()
        .and(relative.as_deref())
        .map(|rel| hidden_names_spelled(tokens(rel)));
    let keyed: Vec<(&str, PathKey)> = std::iter::once(lower_abs)
        .chain(tildes.iter().map(String::as_str))
        .map(|path| (path, PathKey::of(path)))
        .collect();
    let any = |patterns: &[LowerPattern]| {
        patterns.iter().any(|p| match &glob {
            Some((path, home, facts)) => p.meets_glob(path, home, *facts),
            None => keyed.iter().any(|(path, key)| p.matches_with(path, *key)),
        })
    };
    let matched = |e: &LowerPath| match &glob {
        Some(_) => any(&e.patterns),
        None => keyed.iter().any(|(path, key)| e.patterns_match(path, *key)),
    };
    let hit = |ask: bool| {
        lower_paths()
            .iter()
            .filter(move |e| e.entry.ask == ask && e.applies_to(class))
            .find_map(|e| {
                let in_root = relative.as_deref().is_some_and(|rel| {
                    e.root_patterns.iter().any(|p| match &relative_glob {
                        Some(rel_glob) => tokens_meet_crossing(rel_glob, &p.glob_tokens, true),
                        None => p.matches(rel),
                    })
                });
                let spared = glob.is_none() && any(&e.except_patterns);
                let hit = (matched(e) || in_root) && !spared;
                hit.then(|| PathHit {
                    hit: Hit {
                        entry: e.entry.id.to_string(),
                        reason: e.entry.reason.to_string(),
                        part: abs.to_string(),
                    },
                    ask,
                })
            })
    };
    hit(false).or_else(|| hit(true))
}

/// What follows a home folder in a path by where it lies (`/home/NAME`, `/Users/NAME`,
/// `/var/home/NAME`, `/root`): `/.npmrc` of `/home/u/.npmrc`; none outside one.
fn after_a_home(path: &str) -> Option<&str> {
    let rest = if let Some(rest) = path.strip_prefix("/root") {
        rest
    } else {
        let under = ["/home/", "/users/", "/var/home/"]
            .iter()
            .find_map(|folder| path.strip_prefix(folder))?;
        let name_end = under.find('/').unwrap_or(under.len());
        let name = under.get(..name_end)?;
        // A user's name: no blank, no `~`, no wildcard (`/home/ read ~/.aws` is text).
        if name.is_empty() || name.contains(|c: char| c.is_whitespace() || "~*?[".contains(c)) {
            return None;
        }
        under.get(name_end..)?
    };
    (rest.is_empty() || rest.starts_with('/')).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_in_a_home_is_read_from_that_home() {
        for (path, rest) in [
            ("/home/u/.npmrc", Some("/.npmrc")),
            ("/users/ann/.aws/config", Some("/.aws/config")),
            ("/root/.kube/config", Some("/.kube/config")),
            ("/var/home/u", Some("")),
            ("/rooted/x", None),
            ("/home/", None),
            ("/home/ read ~/.aws/credentials", None),
            ("/etc/passwd", None),
        ] {
            assert_eq!(after_a_home(path), rest, "{path}");
        }
        let hit = check_path("/home/u/.npmrc", RiskClass::Write, None, "/work");
        assert_eq!(hit.map(|h| h.hit.entry), Some("credentials".to_string()));
    }

    /// The piece a pattern's match needs never rules out a path the pattern matches: every
    /// pattern against paths made from every pattern (its wildcards spelled several ways).
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
        for home in ["/home/me", "/home/x*", "/h[o]me/me", ""] {
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

    #[test]
    fn lower_is_to_lowercase() {
        for text in [
            "/home/me/.ssh",
            "/HOME/Me",
            "ǅ/x",
            "/tmp/Σ",
            "ΑΣ",
            "/proc/İ",
            "",
            "ß",
        ] {
            assert_eq!(lower(text), text.to_lowercase(), "{text}");
        }
        assert!(matches!(lower("/home/me"), Cow::Borrowed(_)));
    }

    #[test]
    fn protected_paths() {
        let refused =
            |p: &str, c: RiskClass| check_path(p, c, None, "/project").is_some_and(|h| !h.ask);
        assert!(refused("/etc/passwd", RiskClass::Write));
        assert!(check_path("/etc/passwd", RiskClass::Read, None, "/project").is_none());
        assert!(refused("/home/me/.ssh/id_rsa", RiskClass::Read));
        assert!(refused("/home/me/.SSH/id_rsa", RiskClass::Read));
        assert!(refused("/project/.git/hooks/pre-commit", RiskClass::Write));
        assert!(refused("/project/.GIT/hooks/pre-commit", RiskClass::Write));
        assert!(refused("/proc/1/environ", RiskClass::Read));
        assert!(refused("/proc/self/environ", RiskClass::Read));
        assert!(check_path("/project/src/a.rs", RiskClass::Write, None, "/project").is_none());
        let git = check_path("/project/.git/config", RiskClass::Write, None, "/project");
        assert!(git.is_some_and(|h| h.ask));
        assert!(check_path("/project/.git/config", RiskClass::Read, None, "/project").is_none());
    }
}
