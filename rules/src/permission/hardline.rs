//! The hardline (hardline.json): commands refused in every mode, auto included, and paths no
//! file tool may touch. A line's commands are judged as [`super::plain`] reads them; every part
//! counts. A path is compared without letter case (`.SSH` is `.ssh` on a case-insensitive disk).

use super::glob::{hidden_names_spelled, tokens, tokens_meet_crossing, PathGlob, Token};
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
        LowerPattern {
            text,
            head,
            needle,
            glob_tokens,
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

    /// Whether a path in lower case matches the pattern (see [`matches`]).
    pub(crate) fn matches(&self, lower_path: &str) -> bool {
        lower_path.starts_with(self.head.as_str())
            && lower_path.contains(self.needle.as_str())
            && matches(&self.text, lower_path)
    }

    /// The pattern, in lower case.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
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
}

impl LowerPath {
    /// Whether the entry covers calls of this class.
    pub(crate) fn applies_to(&self, class: RiskClass) -> bool {
        self.entry.classes.iter().any(|c| c == class.as_str())
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
            .map(|entry| LowerPath {
                entry,
                patterns: all(&entry.patterns),
                root_patterns: all(&entry.root_patterns),
                except_patterns: all(&entry.except_patterns),
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
    let tildes: Vec<String> = given.into_iter().chain(lying_in).collect();
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
        (
            hidden_names_spelled(tokens(lower_abs)),
            HomeGlob::new(lower_home.as_deref().unwrap_or("*")),
        )
    });
    let relative_glob = glob
        .as_ref()
        .and(relative.as_deref())
        .map(|rel| hidden_names_spelled(tokens(rel)));
    let any = |patterns: &[LowerPattern]| {
        patterns.iter().any(|p| match &glob {
            Some((path, home)) => tokens_meet_crossing(path, &p.glob(home), true),
            None => p.matches(lower_abs) || tildes.iter().any(|t| p.matches(t)),
        })
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
                let hit = (any(&e.patterns) || in_root) && !spared;
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
