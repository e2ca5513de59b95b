//! "Always allow" (arity.json): the rules an approval of a call adds to the session. It covers as
//! much of each command as the arity table says (`git push origin main` → `git push *`; a program
//! neither the table nor programs.json names, exactly as it stands: `gcc -c x.c`) — the
//! options before its last word kept, with their values (`git -C sub status -s` → `git -C sub
//! status *`) — never a whole wrapper (`sudo apt install x` → `sudo apt install *`, a shell's `-c`
//! line exactly), never a line with `$(…)`, backticks or variables, a network redirection, or a
//! command with an effect (permission/programs.json: `find -exec`, `sed 1e`, `python3 -c`): those
//! are asked every time, and an approval given for one command never covers another of them.
//! An approval holds in the mode it was given in and looser ones, never in plan mode, and never
//! in an unattended session (`Judge::covers`).

use super::programs;
use super::shell::{self, Command};
use super::{
    evaluate, inside, plain, Action, Context, Request, Rule, RuleSource, Target, OUTSIDE_ROOT,
};
use crate::spec::spec;
use thiserror::Error;

/// Why a call cannot be approved for good.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ApprovalError {
    /// The line holds a substitution or a variable, or cannot be read exactly: asked each time.
    #[error("{0}")]
    Substitution(String),
    /// The call is refused: nothing to approve.
    #[error("{0}")]
    Denied(String),
    /// The call is not asked: nothing to approve.
    #[error("{0}")]
    NotAsked(String),
    /// A command runs code or touches a file through an option, or the line opens a network
    /// connection: asked each time.
    #[error("{0}")]
    Effect(String),
    /// A word the pattern would keep holds `*` or `?`, which a rule reads as a wildcard: asked
    /// each time.
    #[error("{0}")]
    Wildcard(String),
}

/// Whether a line, as the reader reads it, holds `$(…)`, backticks or a variable: in a command's
/// word, a redirection's target, or a value the line assigns.
pub fn has_expansion(reading: &shell::Reading) -> bool {
    reading.commands.iter().any(|c| {
        c.words
            .iter()
            .chain(c.redirects.iter().map(|r| &r.target))
            .any(shell::Word::dynamic)
    }) || reading.bindings.iter().any(|b| {
        b.values
            .as_ref()
            .is_none_or(|v| v.iter().any(shell::Word::dynamic))
    })
}

/// The pattern an approval of one command adds: its wrappers as written (each read by its own
/// grammar, the hardline's reading), then the wrapped command's first `arity` words, then ` *`.
/// A wrapper that runs a line of its own (`flock -c LINE`, `env -S`) or whose words may split is
/// kept exactly as it stands.
pub fn command_pattern(cmd: &Command) -> String {
    let words = pattern_words(cmd);
    let joined = words.kept.join(" ");
    if words.exact {
        joined
    } else {
        format!("{joined} *")
    }
}

/// The words an approval's pattern keeps as written, and whether they are the whole command
/// (else ` *` follows them).
struct PatternWords<'c> {
    kept: Vec<&'c str>,
    exact: bool,
}

/// The words of [`command_pattern`].
fn pattern_words(cmd: &Command) -> PatternWords<'_> {
    let arity = &spec().arity;
    let plain = &spec().hardline.plain;
    let exact = || PatternWords {
        kept: cmd.words.iter().map(|w| w.text.as_str()).collect(),
        exact: true,
    };
    let is_shell = |p: &str| {
        plain.shells.iter().any(|s| s == p)
            || plain.other_shells.iter().any(|s| s == p)
            || plain.opaque.get(p).is_some()
    };
    let mut kept: Vec<&str> = Vec::new();
    let mut rest: &[shell::Word] = &cmd.words;
    loop {
        // Assignments before the command stay as written.
        while let Some(w) = rest
            .first()
            .filter(|w| w.text.contains('=') && !w.text.starts_with('-'))
        {
            kept.push(&w.text);
            rest = rest.get(1..).unwrap_or(&[]);
        }
        let Some(wrapper) = rest
            .first()
            .and_then(|w| plain::wrapper_named(shell::program_name(&w.text)))
        else {
            break;
        };
        let args = rest.get(1..).unwrap_or(&[]);
        let scan = plain::scan_wrapper(wrapper, args);
        let own_line = scan.parts.iter().any(|p| {
            matches!(
                p,
                plain::WrapperPart::Splits
                    | plain::WrapperPart::Joined
                    | plain::WrapperPart::Line(_)
                    | plain::WrapperPart::Command(_)
                    | plain::WrapperPart::Opaque
            )
        });
        if own_line {
            return exact();
        }
        let command = scan.command(args, false);
        let wrapper_words = rest.len().saturating_sub(command.len()).max(1);
        kept.extend(rest.iter().take(wrapper_words).map(|w| w.text.as_str()));
        rest = rest.get(wrapper_words..).unwrap_or(&[]);
    }
    let program = rest
        .first()
        .map(|p| shell::program_name(&p.text))
        .unwrap_or("");
    if is_shell(program) || rest.is_empty() {
        // A shell's own line, or a wrapper alone: exactly as it stands.
        return exact();
    }
    // A program the data does not describe — not in programs.json (what its options run, write
    // or read), with no arity —
    // is approved exactly as it stands: which of its options run code (`gcc -wrapper`,
    // `openssl -engine`, `pip3 install`) is not known, so ` *` would cover them.
    let named = |key: &str| key.split(' ').next() == Some(program);
    if !plain::described(program) && !arity.arity.keys().any(named) {
        return exact();
    }
    let mut n = arity.default;
    let mut best = 0usize;
    let operands: Vec<&str> = rest
        .iter()
        .map(|w| w.text.as_str())
        .filter(|t| !t.starts_with('-'))
        .collect();
    for (key, k) in arity.arity.iter() {
        let key_words: Vec<&str> = key.split(' ').collect();
        let starts = key_words.len() <= operands.len()
            && key_words.iter().zip(&operands).all(|(a, b)| a == b);
        if starts && key_words.len() > best {
            best = key_words.len();
            n = *k;
        }
    }
    // The first `n` words that are not options, with the options among them and their values.
    // An option among them that programs.json does not say takes a value or not (`kubectl -n
    // prod get`: is `prod` the subcommand, or `-n`'s value?) leaves the prefix unknown: the
    // command is approved exactly as it stands, never for every subcommand. An option given its
    // value after `=`, or one the program's grammar calls a flag, takes no word.
    let values = programs::effects_of(&program_text(rest)).map(|e| &e.values);
    let mut counted = 0;
    let mut words = rest.iter();
    while let Some(w) = words.next() {
        kept.push(&w.text);
        if w.text.starts_with('-') {
            let takes = values.is_some_and(|v| v.iter().any(|o| *o == w.text));
            if takes {
                if let Some(value) = words.next() {
                    kept.push(&value.text);
                }
            } else if !w.text.contains('=') && !programs::never_takes_next_word(program, &w.text) {
                return exact();
            }
            continue;
        }
        counted += 1;
        if counted >= n.max(1) {
            break;
        }
    }
    PatternWords { kept, exact: false }
}

/// The program of a command's words, read plainly.
fn program_text(words: &[shell::Word]) -> String {
    words
        .first()
        .map(|w| shell::program_name(&w.text).to_string())
        .unwrap_or_default()
}

/// The folder pattern an approval of a path adds: the file's folder and everything in it.
fn folder_pattern(path: &str) -> String {
    match path.rsplit_once('/') {
        Some(("", _)) => "/*".into(),
        Some((dir, _)) => format!("{dir}/*"),
        None => "*".into(),
    }
}

/// What an approval kept beyond the session keeps: the exact call, in words and as the rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExactApproval {
    /// The exact command (`` `rm -f old.log` ``) or file (relative to the root).
    pub words: String,
    /// An approval of that call alone, given in the context's mode.
    pub rule: Rule,
}

/// The approval of exactly this call, for one kept past the session ("always in this project"):
/// one command line that is a single plain command — no character the rules' wildcards or the
/// shell would read as more — or one file inside the root. None where the call cannot be
/// approved that exactly (a line of several commands, an expansion, a path outside the root or
/// with a wildcard character): nothing is kept then.
pub fn approve_exactly(req: &Request, ctx: &Context) -> Option<ExactApproval> {
    const NOT_PLAIN: &str = "*?;&|<>()$`\\\n\r'\"{}[]#~!";
    let (pattern, words) = match &req.target {
        Target::Line(line) => {
            let line = line.trim();
            if line.is_empty() || line.contains(|c: char| NOT_PLAIN.contains(c)) {
                return None;
            }
            (line.to_string(), format!("`{line}`"))
        }
        Target::Path(abs) => {
            if abs.contains(['*', '?']) {
                return None;
            }
            // Path rules are written relative to the root.
            let relative = inside(&ctx.root, abs)?.to_string();
            (relative.clone(), relative)
        }
        Target::Tool => return None,
    };
    let rule = Rule::new(
        &req.permission,
        &pattern,
        Action::Allow,
        RuleSource::Approval,
    )
    .given_in(ctx.mode);
    Some(ExactApproval { words, rule })
}

/// The rules an "always allow" of this call adds, one for each part that was asked.
pub fn approve(req: &Request, ctx: &Context) -> Result<Vec<Rule>, ApprovalError> {
    let texts = &spec().arity.texts;
    let decision = evaluate(
        req,
        &Context {
            unattended: false,
            ..ctx.clone()
        },
    );
    match decision.action {
        Action::Deny => return Err(ApprovalError::Denied(texts.denied.to_string())),
        Action::Allow => return Err(ApprovalError::NotAsked(texts.not_asked.to_string())),
        Action::Ask => {}
    }
    let mut out: Vec<Rule> = Vec::new();
    let mut add = |rule: Rule| {
        if !out.contains(&rule) {
            out.push(rule);
        }
    };
    match &req.target {
        Target::Line(line) => {
            let place = plain::Place {
                root: &ctx.root,
                home: ctx.home.as_deref(),
            };
            let read = plain::analyse(line, place);
            let reading = shell::read(line);
            if has_expansion(&reading) {
                return Err(ApprovalError::Substitution(texts.substitution.to_string()));
            }
            if !read.hits.is_empty() {
                return Err(ApprovalError::Denied(texts.denied.to_string()));
            }
            // An option that runs code is named as such, even where the code it runs is itself
            // unreadable (`tar --to-command=sh`).
            if !read.network.is_empty() || read.commands.iter().any(|c| !c.effects.is_empty()) {
                return Err(ApprovalError::Effect(texts.effect.to_string()));
            }
            if read.opaque.is_some() || !read.unknown.is_empty() {
                return Err(ApprovalError::Substitution(texts.substitution.to_string()));
            }
            for cmd in reading.commands.iter().filter(|c| !c.words.is_empty()) {
                let single = Request {
                    target: Target::Line(cmd.text()),
                    ..req.clone()
                };
                if evaluate(&single, ctx).action == Action::Allow && cmd.redirects.is_empty() {
                    continue;
                }
                let pattern = command_pattern(cmd);
                // The words kept as written (all of them when the pattern is the command
                // exactly): a wildcard in one would cover more, and so would a blank before the
                // ` *` — a rule reads `git -C 'x push --force' status *` as covering
                // `git -C x push --force status`.
                let words = pattern_words(cmd);
                let blank =
                    !words.exact && words.kept.iter().any(|w| w.contains(char::is_whitespace));
                if blank || words.kept.iter().any(|w| w.contains(['*', '?'])) {
                    return Err(ApprovalError::Wildcard(texts.wildcard.to_string()));
                }
                add(Rule::new(
                    &req.permission,
                    &pattern,
                    Action::Allow,
                    RuleSource::Approval,
                )
                .given_in(ctx.mode));
            }
        }
        Target::Path(p) => {
            let place = plain::Place {
                root: &ctx.root,
                home: ctx.home.as_deref(),
            };
            let abs = plain::resolve(place, &ctx.root, p);
            match inside(&ctx.root, &abs) {
                Some(rel) => add(Rule::new(
                    &req.permission,
                    &folder_pattern(rel),
                    Action::Allow,
                    RuleSource::Approval,
                )
                .given_in(ctx.mode)),
                None => {
                    add(Rule::new(
                        &req.permission,
                        &folder_pattern(&abs),
                        Action::Allow,
                        RuleSource::Approval,
                    )
                    .given_in(ctx.mode));
                    add(Rule::new(
                        OUTSIDE_ROOT,
                        &folder_pattern(&abs),
                        Action::Allow,
                        RuleSource::Approval,
                    )
                    .given_in(ctx.mode));
                }
            }
        }
        Target::Tool => add(
            Rule::new(&req.permission, "*", Action::Allow, RuleSource::Approval).given_in(ctx.mode),
        ),
    }
    if out.is_empty() {
        return Err(ApprovalError::NotAsked(texts.not_asked.to_string()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::Mode;

    fn pattern(line: &str) -> String {
        command_pattern(&shell::read(line).commands[0])
    }

    #[test]
    fn options_before_the_last_word_kept_with_their_values() {
        assert_eq!(pattern("git -C sub status -s"), "git -C sub status *");
        assert_eq!(pattern("git --no-pager log -5"), "git --no-pager log *");
        assert_eq!(pattern("make -C dir test"), "make -C dir test *");
        assert_eq!(pattern("python3 x.py --fast"), "python3 x.py *");
        assert_eq!(pattern("git config user.name me"), "git config user.name *");
    }

    #[test]
    fn never_a_command_with_an_effect() {
        let ctx = Context::new(Mode::Edit);
        for line in [
            "find . -name x -exec rm {} ;",
            "sed '1e id' a",
            "python3 -c 'print(1)'",
            "git -c core.pager=id log",
            "tar -xf a.tar --to-command=sh",
            "echo x >/dev/tcp/127.0.0.1/9",
            "git config core.fsmonitor x",
        ] {
            assert!(
                matches!(
                    approve(&Request::bash(line), &ctx),
                    Err(ApprovalError::Effect(_))
                ),
                "{line}"
            );
        }
    }

    #[test]
    fn never_a_word_a_rule_would_read_as_a_wildcard() {
        let ctx = Context::new(Mode::Manual);
        for line in ["git -C 'sub*' status", "make 'te?t'", "bash -c 'rm *'"] {
            let result = approve(&Request::bash(line), &ctx);
            assert!(
                matches!(result, Err(ApprovalError::Wildcard(_))),
                "{line}: {result:?}"
            );
        }
        // A wildcard the arity drops is not kept, and so not refused.
        assert_eq!(pattern("npm test 'a*'"), "npm test *");
        assert_eq!(pattern("touch 'a*'"), "touch *");
    }

    #[test]
    fn covers_what_the_arity_table_says() {
        assert_eq!(pattern("git push origin main"), "git push *");
        assert_eq!(pattern("npm run build -- --watch"), "npm run build *");
        assert_eq!(pattern("ls -la"), "ls *");
        assert_eq!(pattern("cargo test -p x"), "cargo test *");
        assert_eq!(pattern("docker compose up -d"), "docker compose up *");
        assert_eq!(pattern("git"), "git *");
    }

    #[test]
    fn an_expansion_is_found_where_the_reader_finds_one() {
        let has = |line: &str| has_expansion(&shell::read(line));
        for line in [
            "echo $HOME",
            "echo \"${X}\"",
            "ls `pwd`",
            "ls $(pwd)",
            "echo x > $F",
            "X=$(id); ls",
        ] {
            assert!(has(line), "{line}");
        }
        // Quoted text is text: nothing expands.
        for line in [
            "echo '$HOME'",
            "grep -F '$(x)' f",
            "echo \\$HOME",
            "X=1; ls",
        ] {
            assert!(!has(line), "{line}");
        }
    }

    #[test]
    fn never_a_whole_wrapper() {
        assert_eq!(pattern("sudo apt install x"), "sudo apt install *");
        assert_eq!(pattern("env A=1 npm test"), "env A=1 npm test *");
        assert_eq!(pattern("A=1 make all"), "A=1 make all *");
        assert_eq!(pattern("bash -c 'npm test'"), "bash -c npm test");
        assert_eq!(
            pattern("timeout 10 cargo build"),
            "timeout 10 cargo build *"
        );
        // Each wrapper read by its own grammar, as the hardline reads it: long options with
        // their values, clusters, `--`, wrappers in wrappers.
        for (line, want) in [
            (
                "sudo --user=root apt install x",
                "sudo --user=root apt install *",
            ),
            (
                "sudo -u root -- apt install x",
                "sudo -u root -- apt install *",
            ),
            (
                "timeout --signal=KILL 5 cargo build",
                "timeout --signal=KILL 5 cargo build *",
            ),
            (
                "nice -n 5 sudo apt install x",
                "nice -n 5 sudo apt install *",
            ),
            // A wrapper that runs a line of its own is kept exactly.
            ("env -S 'npm test' x", "env -S npm test x"),
            ("flock /tmp/l -c 'npm test'", "flock /tmp/l -c npm test"),
        ] {
            assert_eq!(pattern(line), want, "{line}");
        }
    }

    #[test]
    fn approvals_of_lines() {
        let ctx = Context::new(Mode::Edit);
        let rules = approve(&Request::bash("git push origin main"), &ctx).unwrap();
        assert_eq!(
            rules,
            [
                Rule::new("bash", "git push *", Action::Allow, RuleSource::Approval)
                    .given_in(Mode::Edit)
            ]
        );
        // Parts already allowed need no approval.
        let rules = approve(&Request::bash("git status && npm test"), &ctx).unwrap();
        assert_eq!(
            rules.iter().map(|r| r.pattern.as_str()).collect::<Vec<_>>(),
            ["npm test *"]
        );
        assert!(matches!(
            approve(&Request::bash("rm -rf $(pwd)"), &ctx),
            Err(ApprovalError::Substitution(_))
        ));
        assert!(matches!(
            approve(&Request::bash("echo `x`"), &ctx),
            Err(ApprovalError::Substitution(_))
        ));
        assert!(matches!(
            approve(&Request::bash("rm -rf $DIR"), &ctx),
            Err(ApprovalError::Substitution(_))
        ));
        assert!(matches!(
            approve(&Request::bash("rm -rf /"), &ctx),
            Err(ApprovalError::Denied(_))
        ));
        assert!(matches!(
            approve(&Request::bash("git status"), &ctx),
            Err(ApprovalError::NotAsked(_))
        ));
    }

    #[test]
    fn an_approval_then_allows_the_same_command() {
        let mut ctx = Context::new(Mode::Manual);
        let req = Request::bash("git push origin main");
        ctx.approvals = approve(&req, &ctx).unwrap();
        assert_eq!(
            evaluate(&Request::bash("git push upstream dev"), &ctx).action,
            Action::Allow
        );
        assert_eq!(
            evaluate(&Request::bash("git pull"), &ctx).action,
            Action::Ask
        );
    }

    #[test]
    fn approvals_of_paths() {
        let ctx = Context::new(Mode::Manual);
        let req = Request::tool("edit", Target::Path("src/a.ts".into())).unwrap();
        assert_eq!(approve(&req, &ctx).unwrap()[0].pattern, "src/*");
        let req = Request::tool("read", Target::Path("/tmp/x/y.txt".into())).unwrap();
        let rules = approve(&req, &ctx).unwrap();
        assert_eq!(
            rules
                .iter()
                .map(|r| (r.permission.as_str(), r.pattern.as_str()))
                .collect::<Vec<_>>(),
            [("read", "/tmp/x/*"), ("external_directory", "/tmp/x/*")]
        );
    }
}
