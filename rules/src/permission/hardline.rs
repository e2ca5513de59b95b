//! The hardline (hardline.json): commands refused in every mode, auto included, and paths no
//! file tool may touch. A line's commands are judged as [`super::plain`] reads them; every part
//! counts. A path is compared without letter case (`.SSH` is `.ssh` on a case-insensitive disk).

use super::glob::{hidden_names_spelled, tokens, tokens_meet_crossing, PathGlob};
use super::path::inside;
use super::path_patterns::PathKey;
pub(crate) use super::path_patterns::{lower_paths, HomeGlob, LowerPath, LowerPattern};
use super::RiskClass;
use crate::spec::spec;
use smallvec::SmallVec;
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
    // What follows the home in the path, spelled from `~`: the given home's, and the home the
    // path lies in by where it lies (`/home/u/.npmrc` where the home is not given, or is
    // another's), read against `~` patterns from that home too — once when they are the same.
    let given = home.and_then(|home| {
        let home = lower(home.trim_end_matches('/'));
        lower_abs
            .strip_prefix(home.as_ref())
            .filter(|r| r.is_empty() || r.starts_with('/'))
    });
    let lying_in = after_a_home(lower_abs).filter(|rest| Some(*rest) != given);
    let tildes: SmallVec<[String; 2]> = given
        .into_iter()
        .chain(lying_in)
        .map(|rest| format!("~{rest}"))
        .collect();
    let lower_root = lower(root);
    let relative = inside(&lower_root, lower_abs);
    // A path that is a glob (a redirection's `> .gi?/hooks/x`, which bash expands when it
    // matches one file) is every path it can name, by bash's rule for hidden names: a pattern
    // it can meet covers it, and no `except` pattern spares it.
    // Only a glob that may name a hidden entry (a segment spelled with its `.` and a wildcard
    // after it: `.gi?`, `.[g]it`, `.*`) is read so: git's and the home's protected names are
    // hidden ones, and `build/*` is read as written (a folder's contents are judged by the
    // command that takes them).
    let may_name_hidden = lower_abs.split('/').any(|segment| {
        segment
            .strip_prefix('.')
            .is_some_and(|rest| rest.contains(['*', '?', '[']))
    });
    let lower_home = if may_name_hidden {
        home.map(|h| lower(h.trim_end_matches('/')))
    } else {
        None
    };
    let glob = may_name_hidden.then(|| {
        let path = hidden_names_spelled(tokens(lower_abs));
        let home = HomeGlob::new(lower_home.as_deref().unwrap_or("*"));
        let facts = home.facts(&path);
        (path, home, facts)
    });
    let relative_glob = glob
        .as_ref()
        .and(relative)
        .map(|rel| hidden_names_spelled(tokens(rel)));
    let keyed: SmallVec<[(&str, PathKey); 3]> = std::iter::once(lower_abs)
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
                let in_root = relative.is_some_and(|rel| {
                    e.root_patterns.iter().any(|p| match &relative_glob {
                        Some(rel_glob) => tokens_meet_crossing(rel_glob, p.glob_tokens(), true),
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
