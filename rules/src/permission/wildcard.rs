//! Wildcards of rules and hardline entries: `*` any run of characters (`/` and spaces too), `?` one
//! character, everything else itself. A pattern ending in ` *` also matches without that ending,
//! so `git push *` covers `git push` itself.

/// Whether `subject` matches `pattern`.
pub fn matches(pattern: &str, subject: &str) -> bool {
    // The common shape — a literal, then ` *` (`git push *`) — without the general matcher.
    if let Some(head) = pattern.strip_suffix(" *") {
        if !head.contains(['*', '?']) {
            return subject == head
                || subject
                    .strip_prefix(head)
                    .is_some_and(|rest| rest.starts_with(' '));
        }
    }
    if !pattern.contains(['*', '?']) {
        return pattern == subject;
    }
    if glob(pattern, subject) {
        return true;
    }
    match pattern.strip_suffix(" *") {
        Some(head) => glob(head, subject),
        None => false,
    }
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
}
