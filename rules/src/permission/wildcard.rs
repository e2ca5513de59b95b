//! Wildcards of rules and hardline entries: `*` any run of characters (`/` and spaces too), `?` one
//! character, everything else itself. A pattern ending in ` *` also matches without that ending,
//! so `git push *` covers `git push` itself.

/// Whether `subject` matches `pattern`: the general matcher at once, for a pattern tested once
/// (telling its shape first costs more than it saves; [`Wildcard`] reads it for many subjects).
pub fn matches(pattern: &str, subject: &str) -> bool {
    if first_letters_differ(pattern, subject) {
        return false;
    }
    glob(pattern, subject)
        || pattern
            .strip_suffix(" *")
            .is_some_and(|head| glob(head, subject))
}

/// A pattern read once: what [`matches`] finds out about a pattern before it looks at a subject,
/// kept for a pattern tested against many subjects (the default rules, on every call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wildcard<'a> {
    text: &'a str,
    shape: Shape<'a>,
}

/// What a pattern is, as far as matching it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape<'a> {
    /// No wildcard: the subject is the text.
    Literal,
    /// A literal, then ` *` (`git push *`): the literal, alone or followed by a space.
    LiteralThenAny { head: &'a str },
    /// `*`, then a literal (`*.env`): a subject ending with the literal.
    AnyThenLiteral { tail: &'a str },
    /// `*`, a literal, `*` (`*.env.*`): a subject holding the literal.
    AnyLiteralAny { middle: &'a str },
    /// Anything else, read by the general matcher.
    Glob,
}

impl<'a> Wildcard<'a> {
    /// The pattern `text`, read.
    pub fn new(text: &'a str) -> Wildcard<'a> {
        let literal = |t: &str| !t.contains(['*', '?']);
        let shape = match text.strip_suffix(" *") {
            Some(head) if literal(head) => Shape::LiteralThenAny { head },
            // A text ending ` *` is also matched without it: the general matcher's.
            Some(_) => Shape::Glob,
            None if literal(text) => Shape::Literal,
            None => match text.strip_prefix('*') {
                Some(tail) if literal(tail) => Shape::AnyThenLiteral { tail },
                Some(rest) => match rest.strip_suffix('*') {
                    Some(middle) if literal(middle) => Shape::AnyLiteralAny { middle },
                    _ => Shape::Glob,
                },
                None => Shape::Glob,
            },
        };
        Wildcard { text, shape }
    }

    /// Whether `subject` matches the pattern.
    pub fn matches(&self, subject: &str) -> bool {
        match self.shape {
            Shape::Literal => self.text == subject,
            Shape::LiteralThenAny { head } => {
                // The byte after the literal's place first (the end, or a space): most subjects
                // are told apart there, before the literal is compared.
                let bytes = subject.as_bytes();
                match bytes.get(head.len()) {
                    None if bytes.len() == head.len() => subject == head,
                    Some(b' ') => bytes.get(..head.len()) == Some(head.as_bytes()),
                    _ => false,
                }
            }
            Shape::AnyThenLiteral { tail } => subject.ends_with(tail),
            Shape::AnyLiteralAny { middle } => holds(subject.as_bytes(), middle.as_bytes()),
            Shape::Glob => {
                !first_letters_differ(self.text, subject)
                    && (glob(self.text, subject)
                        || self
                            .text
                            .strip_suffix(" *")
                            .is_some_and(|head| glob(head, subject)))
            }
        }
    }
}

/// Whether a pattern starting with a letter of its own cannot match `subject` for it starts with
/// another: the pattern and the pattern without a ` *` ending both need the subject to start as
/// they do (but the bare ` *`, whose empty rest matches only an empty subject).
fn first_letters_differ(pattern: &str, subject: &str) -> bool {
    match (pattern.as_bytes().first(), subject.as_bytes().first()) {
        (Some(&first), Some(subject_first)) => {
            first != b'*' && first != b'?' && first != *subject_first
        }
        _ => false,
    }
}

/// Whether `piece` stands somewhere in `text`, found by its first byte (a text searcher set up
/// for each of a call's rules cost more than the search).
fn holds(text: &[u8], piece: &[u8]) -> bool {
    let Some((&first, rest)) = piece.split_first() else {
        return true;
    };
    let mut from = 0;
    while let Some(at) = text
        .get(from..)
        .and_then(|t| t.iter().position(|&b| b == first))
    {
        let start = from + at + 1;
        if text
            .get(start..start + rest.len())
            .is_some_and(|after| after == rest)
        {
            return true;
        }
        from = start;
    }
    false
}

/// Iterative glob with one backtrack point: linear in practice, never recursive, no allocation.
/// Without `?` it runs on bytes (UTF-8 keeps a literal's match whole); with it, on characters.
fn glob(pattern: &str, subject: &str) -> bool {
    if pattern.contains('?') {
        let p: Vec<char> = pattern.chars().collect();
        let s: Vec<char> = subject.chars().collect();
        glob_units(&p, &s, '*', '?')
    } else {
        glob_units(pattern.as_bytes(), subject.as_bytes(), b'*', 0)
    }
}

fn glob_units<T: PartialEq + Copy>(p: &[T], s: &[T], star_unit: T, any: T) -> bool {
    let (mut pi, mut si) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        match p.get(pi) {
            Some(&c) if c == star_unit => {
                star = Some((pi, si));
                pi += 1;
            }
            Some(&c) if c == any || Some(&c) == s.get(si) => {
                pi += 1;
                si += 1;
            }
            _ => match star {
                Some((sp, ss)) => {
                    pi = sp + 1;
                    si = ss + 1;
                    star = Some((sp, ss + 1));
                }
                None => return false,
            },
        }
    }
    p.get(pi..)
        .is_some_and(|rest| rest.iter().all(|&c| c == star_unit))
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn wildcards() {
        assert!(matches("git push *", "git push origin main"));
        assert!(matches("git push *", "git push"));
        assert!(!matches("git push *", "git pushx"));
        assert!(matches("git push *", "git push "));
        assert!(matches("a*b *", "axxb"));
        assert!(matches("a*b *", "axxb c"));
        assert!(!matches("git push *", "git commit -m x"));
        assert!(matches("*.env", ".env"));
        assert!(matches("*.env", "config/prod.env"));
        assert!(!matches("*.env", ".env.local"));
        assert!(matches("*.env.*", ".env.local"));
        assert!(matches("*", ""));
        assert!(matches("a?c", "abc"));
        assert!(matches("é?", "éa"));
        assert!(matches("*é*", "caféine"));
        assert!(!matches("", "a"));
        assert!(matches("mkfs.*", "mkfs.ext4"));
        assert!(matches("*/.ssh/*", "/home/me/.ssh/id_rsa"));
        assert!(matches("**a*b**", "xxaxxbxx"));
    }

    /// The rule of the module's first lines, written as plainly as it reads: recursive, on
    /// characters.
    fn reference(pattern: &[char], subject: &[char]) -> bool {
        match pattern.split_first() {
            None => subject.is_empty(),
            Some(('*', rest)) => (0..=subject.len()).any(|k| reference(rest, &subject[k..])),
            Some(('?', rest)) => !subject.is_empty() && reference(rest, &subject[1..]),
            Some((c, rest)) => subject.first() == Some(c) && reference(rest, &subject[1..]),
        }
    }

    fn by_reference(pattern: &str, subject: &str) -> bool {
        let p: Vec<char> = pattern.chars().collect();
        let s: Vec<char> = subject.chars().collect();
        reference(&p, &s)
            || pattern
                .strip_suffix(" *")
                .is_some_and(|head| reference(&head.chars().collect::<Vec<_>>(), &s))
    }

    /// Every pattern and subject of up to four characters from a small alphabet (with `*`, `?`,
    /// a space and a two-byte letter), and a few longer ones: the matcher agrees with the rule.
    #[test]
    fn agrees_with_the_rule_written_plainly() {
        let mut texts = crate::permission::every_text(&["a", "b", " ", "*", "?", "é"], 4);
        texts.extend(
            [
                "git push *",
                "git push",
                "git push origin",
                "git pushx",
                "a b *",
                "ab *",
            ]
            .map(String::from),
        );
        let subjects: Vec<&String> = texts.iter().collect();
        for pattern in texts.iter().step_by(7).chain(texts.iter().rev().take(6)) {
            for subject in &subjects {
                assert_eq!(
                    matches(pattern, subject),
                    by_reference(pattern, subject),
                    "{pattern:?} against {subject:?}"
                );
                assert_eq!(
                    super::Wildcard::new(pattern).matches(subject),
                    by_reference(pattern, subject),
                    "{pattern:?} read once, against {subject:?}"
                );
            }
        }
    }

    /// Every pattern that is `*` then a literal, or a literal between two `*` (the shapes read
    /// without the general matcher), agrees with the rule against every subject of up to four
    /// characters.
    #[test]
    fn a_literal_after_a_star_agrees_with_the_rule() {
        let literals = crate::permission::every_text(&["a", "b", " ", "é"], 3);
        let subjects = crate::permission::every_text(&["a", "b", " ", "é"], 4);
        let mut patterns = 0;
        for literal in &literals {
            for pattern in [format!("*{literal}"), format!("*{literal}*")] {
                patterns += 1;
                for subject in &subjects {
                    assert_eq!(
                        super::Wildcard::new(&pattern).matches(subject),
                        by_reference(&pattern, subject),
                        "{pattern:?} against {subject:?}"
                    );
                }
            }
        }
        assert!(patterns > 100, "{patterns}");
    }
}
