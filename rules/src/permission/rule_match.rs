//! A rule with its permission key and pattern read once, for matching against many calls: the
//! default rules are tested, last first, on every part of every call (permission.md §3's "a later
//! rule overrides an earlier one"), and reading their patterns each time was a sixth of an
//! `evaluate`.

use super::request::{default_rules, Rule};
use super::wildcard::Wildcard;
use crate::spec::types::cmp_names;

/// A rule, its patterns read.
#[derive(Debug, Clone, Copy)]
pub struct ReadRule<'a> {
    rule: &'a Rule,
    /// The permission key as a pattern, when it holds a `*` (otherwise it is compared whole).
    permission: Option<Wildcard<'a>>,
    pattern: Wildcard<'a>,
    /// The first byte every subject the pattern matches starts with, when there is one (its
    /// first character is no wildcard): most rules are told apart from a call by it, before
    /// their pattern is read (`ls *` and `git push origin main`).
    first: Option<u8>,
}

impl<'a> ReadRule<'a> {
    /// `rule`, read.
    pub fn new(rule: &'a Rule) -> ReadRule<'a> {
        ReadRule {
            rule,
            permission: rule
                .permission
                .contains('*')
                .then(|| Wildcard::new(&rule.permission)),
            pattern: Wildcard::new(&rule.pattern),
            first: first_byte(&rule.pattern),
        }
    }

    /// The rule read.
    pub fn rule(&self) -> &'a Rule {
        self.rule
    }

    /// Whether the rule is for `permission`: its key, or a key with a `*` that matches it.
    pub fn is_for(&self, permission: &str) -> bool {
        self.rule.permission == permission
            || self.permission.is_some_and(|key| key.matches(permission))
    }

    /// Whether the rule is for `permission` and its pattern matches `subject`.
    pub fn matches(&self, permission: &str, subject: &str) -> bool {
        self.is_for(permission) && self.pattern_matches(subject)
    }

    /// Whether the rule's pattern matches `subject` (whatever its key).
    pub fn pattern_matches(&self, subject: &str) -> bool {
        self.first
            .is_none_or(|first| subject.as_bytes().first() == Some(&first))
            && self.pattern.matches(subject)
    }
}

/// The first byte of every text `pattern` matches, when there is one: its own first byte, unless
/// that is a wildcard, or the pattern is ` *` alone (which also matches without its ` *`: the
/// empty text).
fn first_byte(pattern: &str) -> Option<u8> {
    let first = *pattern.as_bytes().first()?;
    (!matches!(first, b'*' | b'?') && pattern != " *").then_some(first)
}

/// The default rules that may be for a permission key, in their order.
#[derive(Debug, Clone, Copy)]
pub struct DefaultsFor {
    /// The rules.
    pub rules: &'static [ReadRule<'static>],
    /// Whether every one of them is for the key (found by it): only their patterns are left to
    /// test. Otherwise each is still to be tested with [`ReadRule::matches`].
    pub all_for_key: bool,
}

/// The default rules that may be for `permission`, in their order: those of its key and those
/// whose key has a `*` that matches it, or, for a key no rule names whole, those whose key has a
/// `*`.
pub fn default_rules_for(permission: &str) -> DefaultsFor {
    let index = defaults_by_key();
    match index
        .by_key
        .binary_search_by(|(key, _)| cmp_names(key, permission))
    {
        Ok(at) => DefaultsFor {
            rules: index.by_key.get(at).map_or(&[], |(_, rules)| rules),
            all_for_key: true,
        },
        Err(_) => DefaultsFor {
            rules: &index.wildcard_keys,
            all_for_key: false,
        },
    }
}

/// The default rules read, and found by key.
struct DefaultsByKey {
    /// Each key a default rule names whole, sorted, with every rule that may be for it.
    by_key: Vec<(String, Vec<ReadRule<'static>>)>,
    /// The rules whose key has a `*`: all that may be for a key no rule names whole.
    wildcard_keys: Vec<ReadRule<'static>>,
}

fn defaults_by_key() -> &'static DefaultsByKey {
    static INDEX: std::sync::OnceLock<DefaultsByKey> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let all: Vec<ReadRule<'static>> = default_rules().iter().map(ReadRule::new).collect();
        let mut keys: Vec<String> = all
            .iter()
            .filter(|rule| rule.permission.is_none())
            .map(|rule| rule.rule.permission.clone())
            .collect();
        keys.sort();
        keys.dedup();
        let by_key = keys
            .into_iter()
            .map(|key| {
                let rules = all
                    .iter()
                    .copied()
                    .filter(|rule| rule.is_for(&key))
                    .collect();
                (key, rules)
            })
            .collect();
        let wildcard_keys = all
            .iter()
            .copied()
            .filter(|rule| rule.permission.is_some())
            .collect();
        DefaultsByKey {
            by_key,
            wildcard_keys,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::wildcard;
    use crate::permission::words::{Action, RuleSource};

    /// A read rule says what the rule's own texts say, for keys and patterns of every shape.
    #[test]
    fn a_read_rule_matches_what_its_texts_match() {
        let texts = [
            "*",
            "",
            "bash",
            "team_*",
            "a?c",
            "git push *",
            "git *",
            "*.env",
            "*.env.*",
            "ls",
            "a*b *",
            "?",
            " *",
            "git push",
            "abc",
            "team_add",
            "x.env",
            "git push origin main",
            "Git push *",
            "é?",
            "éa",
        ];
        for permission in texts {
            for pattern in texts {
                let rule = Rule::new(permission, pattern, Action::Allow, RuleSource::Session);
                let read = ReadRule::new(&rule);
                for key in texts {
                    for subject in texts {
                        let by_text = (rule.permission == key
                            || (rule.permission.contains('*')
                                && wildcard::matches(&rule.permission, key)))
                            && wildcard::matches(&rule.pattern, subject);
                        assert_eq!(
                            read.matches(key, subject),
                            by_text,
                            "{permission:?} {pattern:?} against {key:?} {subject:?}"
                        );
                    }
                }
            }
        }
    }

    /// The rules found by key are exactly the defaults that are for the key, in order, for every
    /// key the defaults name and others.
    #[test]
    fn the_rules_for_a_key_are_those_a_scan_finds() {
        let mut keys: Vec<String> = default_rules()
            .iter()
            .map(|r| r.permission.clone())
            .collect();
        keys.extend(["", "*", "bash ", "BASH", "team", "team_", "zzz", "a"].map(String::from));
        for key in &keys {
            let scanned: Vec<&Rule> = default_rules()
                .iter()
                .filter(|rule| ReadRule::new(rule).is_for(key))
                .collect();
            let defaults = default_rules_for(key);
            let found: Vec<&Rule> = defaults
                .rules
                .iter()
                .filter(|rule| rule.is_for(key))
                .map(ReadRule::rule)
                .collect();
            assert_eq!(found, scanned, "{key:?}");
            if defaults.all_for_key {
                assert!(
                    defaults.rules.iter().all(|rule| rule.is_for(key)),
                    "{key:?}"
                );
            }
        }
        assert!(!default_rules_for("bash").rules.is_empty());
        assert!(default_rules_for("bash").all_for_key);
    }
}
