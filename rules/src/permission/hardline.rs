//! The hardline (hardline.json): commands refused in every mode, auto included, and paths no
//! file tool may touch. A line's commands are judged as [`super::plain`] reads them; every part
//! counts. A path is compared without letter case (`.SSH` is `.ssh` on a case-insensitive disk).

use super::path::inside;
use super::wildcard::matches;
use super::RiskClass;
use crate::spec::spec;

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

/// The protected path (`paths`) a call of this class touches, refusing entries first. `abs` is
/// the normalised absolute path (or `~/…`); `home`, when known, lets `~/…` patterns match;
/// `root`, the project root, lets `root_patterns` match.
pub fn check_path(abs: &str, class: RiskClass, home: Option<&str>, root: &str) -> Option<PathHit> {
    let hardline = &spec().hardline;
    let lower = abs.to_lowercase();
    let tilde = home.and_then(|home| {
        let home = home.trim_end_matches('/').to_lowercase();
        lower
            .strip_prefix(home.as_str())
            .filter(|r| r.is_empty() || r.starts_with('/'))
            .map(|r| format!("~{r}"))
    });
    let relative = inside(&root.to_lowercase(), &lower);
    let any = |patterns: &[crate::spec::types::Str]| {
        patterns.iter().any(|p| {
            let p = p.to_lowercase();
            matches(&p, &lower) || tilde.as_deref().is_some_and(|t| matches(&p, t))
        })
    };
    let hit = |ask: bool| {
        hardline
            .paths
            .iter()
            .filter(move |e| e.ask == ask)
            .find_map(|e| {
                let applies = e.classes.iter().any(|c| c == class.as_str());
                let in_root = relative.as_deref().is_some_and(|rel| {
                    e.root_patterns
                        .iter()
                        .any(|p| matches(&p.to_lowercase(), rel))
                });
                let hit = (any(&e.patterns) || in_root) && !any(&e.except_patterns);
                (applies && hit).then(|| PathHit {
                    hit: Hit {
                        entry: e.id.to_string(),
                        reason: e.reason.to_string(),
                        part: abs.to_string(),
                    },
                    ask,
                })
            })
    };
    hit(false).or_else(|| hit(true))
}

#[cfg(test)]
mod tests {
    use super::*;

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
