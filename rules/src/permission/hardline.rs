//! The hardline (hardline.json): commands refused in every mode, auto included, and paths no
//! file tool may touch. A line is judged spelled plainly ([`super::shell`]); every part counts.

use super::shell::{self, Command};
use super::wildcard::matches;
use super::RiskClass;
use crate::spec::spec;
use crate::spec::types::HardlineFile;

/// A hardline entry that refuses a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub entry: String,
    pub reason: String,
    /// The part of the line it refused, spelled plainly (or the path).
    pub part: String,
}

/// An operand read plainly: `$HOME` and `${HOME}` as `~`, doubled and trailing slashes dropped.
pub fn plain_target(word: &str, h: &HardlineFile) -> String {
    let mut t = word.to_string();
    for home in h.plain.home.iter() {
        if let Some(rest) = t.strip_prefix(home.as_ref()) {
            t = format!("~{rest}");
        }
    }
    while t.contains("//") {
        t = t.replace("//", "/");
    }
    while t.contains("/./") {
        t = t.replace("/./", "/");
    }
    loop {
        if let Some(s) = t.strip_suffix("/.") {
            t = if s.is_empty() { "/".into() } else { s.into() };
        } else if t.len() > 1 && t.ends_with('/') {
            t.pop();
        } else {
            break;
        }
    }
    t
}

/// A command's options and operands: `-rf` as `-r` and `-f`, `--force=x` as `--force`; after `--`
/// everything is an operand.
fn options<S: AsRef<str>>(args: &[S]) -> (Vec<String>, Vec<&str>) {
    let mut flags = Vec::new();
    let mut operands = Vec::new();
    let mut ended = false;
    for a in args {
        let a = a.as_ref();
        if ended {
            operands.push(a);
        } else if a == "--" {
            ended = true;
        } else if let Some(long) = a.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            flags.push(format!("--{name}"));
        } else if a.len() > 1
            && a.starts_with('-')
            && !a.chars().nth(1).is_some_and(|c| c.is_ascii_digit())
        {
            flags.extend(a.chars().skip(1).map(|c| format!("-{c}")));
        } else {
            operands.push(a);
        }
    }
    (flags, operands)
}

fn in_set(h: &HardlineFile, set: &str, target: &str) -> bool {
    h.sets.get(set).is_some_and(|s| {
        s.exact.iter().any(|e| e == target) || s.patterns.iter().any(|p| matches(p, target))
    })
}

/// The entry a plain command (program first) falls under, if any.
pub fn check_plain<S: AsRef<str>>(words: &[S]) -> Option<Hit> {
    let h = &spec().hardline;
    let (program, args) = words.split_first()?;
    let program = shell::program_name(program.as_ref());
    let (flags, operands) = options(args);
    for e in h.commands.iter() {
        if e.programs.is_empty() || !e.programs.iter().any(|p| matches(p, program)) {
            continue;
        }
        if !e.flags.is_empty() && !e.flags.iter().any(|f| flags.iter().any(|x| x == f)) {
            continue;
        }
        if let Some(set) = &e.targets {
            if !operands.iter().any(|o| in_set(h, set, &plain_target(o, h))) {
                continue;
            }
        }
        if !e.operands.is_empty()
            && !operands
                .iter()
                .any(|o| e.operands.iter().any(|p| matches(p, o)))
        {
            continue;
        }
        return Some(Hit {
            entry: e.id.to_string(),
            reason: e.reason.to_string(),
            part: words
                .iter()
                .map(AsRef::as_ref)
                .collect::<Vec<&str>>()
                .join(" "),
        });
    }
    None
}

/// The entry one simple command falls under: any command it runs (wrappers unwrapped), or one of
/// its redirections.
pub fn check_command(cmd: &Command) -> Option<Hit> {
    let h = &spec().hardline;
    if shell::is_plain(&cmd.words, &h.plain) {
        if let Some(hit) = check_plain(&cmd.words) {
            return Some(hit);
        }
    } else {
        let words: Vec<String> = cmd.words.iter().map(|w| w.text.clone()).collect();
        for plain in shell::plain(&words, &h.plain) {
            if let Some(hit) = check_plain(&plain) {
                return Some(hit);
            }
        }
    }
    for r in &cmd.redirects {
        if !r.op.contains('>') {
            continue;
        }
        let target = plain_target(&r.target, h);
        for e in h.redirects.iter() {
            if in_set(h, &e.targets, &target) {
                return Some(Hit {
                    entry: e.id.to_string(),
                    reason: e.reason.to_string(),
                    part: format!("{} {} {}", cmd.text(), r.op, r.target),
                });
            }
        }
    }
    None
}

/// Whether `line` holds `pattern` with any white space in between its characters ignored —
/// without making a copy of the line.
fn holds_squeezed(line: &str, pattern: &str) -> bool {
    let pat: Vec<char> = pattern.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(first) = pat.first() else {
        return false;
    };
    line.char_indices()
        .filter(|(_, c)| c == first)
        .any(|(start, _)| {
            let mut want = pat.iter();
            let mut next = want.next();
            for c in line
                .get(start..)
                .unwrap_or("")
                .chars()
                .filter(|c| !c.is_whitespace())
            {
                match next {
                    Some(w) if *w == c => next = want.next(),
                    Some(_) => return false,
                    None => return true,
                }
            }
            next.is_none()
        })
}

/// An entry that refuses the whole line as written (a fork bomb), white space ignored.
pub fn check_line(line: &str) -> Option<Hit> {
    spec().hardline.commands.iter().find_map(|e| {
        e.line
            .iter()
            .find(|l| holds_squeezed(line, l))
            .map(|_| Hit {
                entry: e.id.to_string(),
                reason: e.reason.to_string(),
                part: line.trim().to_string(),
            })
    })
}

/// Every hardline hit of a line (one per refused part), in the order of the line.
pub fn check(line: &str) -> Vec<Hit> {
    let mut hits: Vec<Hit> = check_line(line).into_iter().collect();
    hits.extend(shell::split(line).iter().filter_map(check_command));
    hits
}

/// A protected path (`paths`) for a call of this class. `abs` is the normalised absolute path;
/// `home`, when known, lets `~/…` patterns match.
pub fn check_path(abs: &str, class: RiskClass, home: Option<&str>) -> Option<Hit> {
    let h = &spec().hardline;
    let tilde = home.and_then(|home| {
        let home = home.trim_end_matches('/');
        abs.strip_prefix(home)
            .filter(|r| r.is_empty() || r.starts_with('/'))
            .map(|r| format!("~{r}"))
    });
    h.paths.iter().find_map(|e| {
        let applies = e.classes.iter().any(|c| c == class.as_str());
        let hit = e
            .patterns
            .iter()
            .any(|p| matches(p, abs) || tilde.as_deref().is_some_and(|t| matches(p, t)));
        (applies && hit).then(|| Hit {
            entry: e.id.to_string(),
            reason: e.reason.to_string(),
            part: abs.to_string(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(line: &str) -> bool {
        !check(line).is_empty()
    }

    #[test]
    fn refuses_every_spelling() {
        for line in [
            "rm -rf /",
            "rm -fr /",
            "rm -r -f /",
            "rm --recursive --force /",
            "rm -Rf /",
            "rm -rf /*",
            "rm -rf ~",
            "rm -rf ~/",
            "rm -rf $HOME",
            "rm -rf \"$HOME\"",
            "rm -rf ${HOME}/",
            "rm -rf //",
            "rm -rf /.",
            "rm -rf /usr",
            "rm -rf /etc/",
            "rm -rf -- /",
            "rm --no-preserve-root x",
            "/usr/bin/rm -rf /",
            "\\rm -rf /",
            "'rm' '-rf' '/'",
            "r\"m\" -rf /",
            "sudo rm -rf /",
            "sudo -u root -E rm -rf /",
            "env FOO=1 rm -rf /",
            "FOO=1 rm -rf /",
            "timeout 5 rm -rf /",
            "nice -n 10 rm -rf /",
            "nohup rm -rf / &",
            "command rm -rf /",
            "exec rm -rf /",
            "xargs rm -rf /",
            "bash -c 'rm -rf /'",
            "sh -lc \"rm -rf ~\"",
            "zsh -c 'echo hi; rm -rf /'",
            "eval 'rm -rf /'",
            "true && rm -rf /",
            "ls || rm -rf /",
            "ls; rm -rf /",
            "ls | rm -rf /",
            "(rm -rf /)",
            "echo $(rm -rf /)",
            "echo `rm -rf /`",
            "mkfs.ext4 /dev/sda1",
            "mkfs -t ext4 /dev/sdb",
            "dd if=/dev/zero of=/dev/sda bs=1M",
            "echo x > /dev/sda",
            ":(){ :|:& };:",
            "chmod -R 777 /",
            "chown -R me ~",
            "shutdown -h now",
            "sudo reboot",
            "systemctl poweroff",
        ] {
            assert!(refused(line), "{line}");
        }
    }

    #[test]
    fn look_alikes_are_not_refused() {
        for line in [
            "rm -rf ./build",
            "rm -rf build/",
            "rm -f /tmp/x",
            "git rm -r x",
            "echo \"rm -rf /\"",
            "echo rm -rf /",
            "grep -r x /",
            "ls /",
            "chmod -R 755 ./dist",
            "dd if=/dev/zero of=./disk.img",
            "echo x > /dev/null",
            "cat /dev/sda1.txt",
            "systemctl status nginx",
        ] {
            assert!(!refused(line), "{line}");
        }
    }

    #[test]
    fn a_line_is_matched_with_white_space_ignored() {
        assert!(holds_squeezed(":(){ :|:& };:", ":(){:|:&};:"));
        assert!(holds_squeezed("x; : ( ) { : | : & } ; :", ":(){:|:&};:"));
        assert!(!holds_squeezed(":(){ :|: };", ":(){:|:&};:"));
        assert!(!holds_squeezed("", ":"));
    }

    #[test]
    fn protected_paths() {
        assert!(check_path("/etc/passwd", RiskClass::Write, None).is_some());
        assert!(check_path("/etc/passwd", RiskClass::Read, None).is_none());
        assert!(check_path("/home/me/.ssh/id_rsa", RiskClass::Read, None).is_some());
        assert!(check_path("/project/.git/hooks/pre-commit", RiskClass::Write, None).is_some());
        assert!(check_path("/project/src/a.rs", RiskClass::Write, None).is_none());
    }
}
