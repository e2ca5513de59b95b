#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! The allow-list verified by running it: every line the rules allow in plan mode — the
//! permission lines of `conformance/` and lines generated from each default-allowed program's
//! grammar and from its real `--help` — is run for real, by bash, in a throwaway project with a
//! fake home (a canary key, canary credentials), a `.env` with a canary and a canary folder
//! outside the root. Each runs under `strace -f` as the unprivileged user 65534 (`setpriv`) in a
//! network namespace of its own (`unshare --net`): any attempt — not only a success — to open a
//! file for writing (but `/dev/null` and the terminal), to remove, rename, link, make, change the
//! mode or owner or times of a file, to connect anywhere (but the name service's socket), to set
//! the clock, to signal another process, or to run a program the line does not name fails the
//! test, as does a canary printed. Where it fails, the rules were wrong: the programs are the
//! reference, not our reading of their manuals. Every path outside the throwaway folder a line
//! can name is read-only to the user it runs as.
//!
//! A second test holds each grammar to its program: every option a grammar names that the
//! program's own help lists takes a value there as the grammar says.
//!
//! Needs root (to become 65534 and make the namespace), `strace`, `setpriv`, `unshare` and git;
//! `make test` installs strace (scripts/toolchain.sh). Without them it says "skipped" and why.

use lembas_rules::permission::programs::grammar::{option_kind, ValueKind};
use lembas_rules::permission::shell;
use lembas_rules::permission::{evaluate, Action, Context, Mode, Request};
use lembas_rules::spec::spec;
use lembas_rules::spec::types::Grammar;
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Canary texts: none may be printed by a line the rules allow in plan mode.
const CANARIES: [&str; 5] = [
    "CANARY-DOTENV-7f3a",
    "CANARY-SSH-KEY-91cc",
    "CANARY-AWS-52d0",
    "CANARY-OUTSIDE-e41b",
    "CANARY-NETRC-0a77",
];

/// The syscalls traced: every one that changes a file, a connection, the clock, a signal, a
/// program run — and every open, to read its flags.
const TRACED: &str = "open,openat,openat2,creat,unlink,unlinkat,rename,renameat,renameat2,link,\
linkat,symlink,symlinkat,mkdir,mkdirat,rmdir,chmod,fchmod,fchmodat,chown,fchown,lchown,fchownat,\
truncate,ftruncate,utime,utimes,utimensat,futimesat,mknod,mknodat,connect,bind,sendto,sendmsg,\
clock_settime,settimeofday,adjtimex,clock_adjtime,kill,tkill,tgkill,execve,execveat,mount,\
umount2,ptrace,process_vm_readv,process_vm_writev";

/// Why the test cannot run here, if it cannot.
fn missing_tool() -> Option<String> {
    if !nix_is_root() {
        return Some("not root (it becomes the user 65534 and makes a network namespace)".into());
    }
    for tool in ["strace", "setpriv", "unshare", "git", "bash"] {
        let found = Command::new("sh")
            .arg("-c")
            .arg(format!("command -v {tool}"))
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            return Some(format!("no {tool} (scripts/toolchain.sh installs it)"));
        }
    }
    None
}

fn nix_is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// The throwaway world: a git project, a fake home, a folder outside the root.
struct World {
    base: PathBuf,
    root: PathBuf,
    home: PathBuf,
    outside: PathBuf,
}

fn sh(dir: &Path, line: &str) {
    let out = Command::new("bash")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{line}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

impl World {
    fn new() -> World {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let base = std::env::temp_dir().join(format!("lembas-for-real-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let root = base.join("project");
        let home = base.join("home");
        let outside = base.join("outside");
        for d in [&root, &home, &outside, &base.join("empty")] {
            std::fs::create_dir_all(d).unwrap();
        }
        let write = |p: PathBuf, text: &str| {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write(root.join("README.md"), "# a project\n");
        write(root.join("a.txt"), "one\ntwo\n");
        write(root.join("b.txt"), "one\nthree\n");
        write(root.join("src/main.rs"), "fn main() {}\n");
        write(root.join("sub/notes.md"), "notes\n");
        write(root.join(".gitignore"), ".env\n");
        write(root.join(".env.example"), "KEY=\n");
        write(root.join("dates.txt"), "2020-01-01\n");
        sh(
            &root,
            "git init -q -b main && git add -A && git -c user.name=t -c user.email=t@t commit -qm one \
             && echo four >> a.txt && git -c user.name=t -c user.email=t@t commit -qam two \
             && git branch feature && echo five >> b.txt",
        );
        write(root.join(".env"), &format!("KEY={}\n", CANARIES[0]));
        write(
            root.join("config/prod.env"),
            &format!("KEY={}\n", CANARIES[0]),
        );
        write(home.join(".ssh/id_ed25519"), CANARIES[1]);
        write(home.join(".aws/credentials"), CANARIES[2]);
        write(home.join(".netrc"), CANARIES[4]);
        write(home.join("notes.txt"), "the person's notes\n");
        write(outside.join("canary.txt"), CANARIES[3]);
        // The lines run as 65534: the project and the home are theirs (git reads a repository
        // its user owns), the folder outside is too — every write there would be seen.
        sh(&base, "chown -R 65534:65534 . && chmod -R go-w .");
        World {
            base,
            root,
            home,
            outside,
        }
    }

    fn context(&self) -> Context {
        let mut ctx = Context::new(Mode::Plan);
        ctx.root = self.root.to_string_lossy().into_owned();
        ctx.home = Some(self.home.to_string_lossy().into_owned());
        ctx
    }

    /// Runs a line as the person's tools would, traced: what it did wrong, if anything.
    fn run(&self, line: &str) -> Vec<String> {
        let trace = self.base.join("trace");
        let _ = std::fs::remove_file(&trace);
        let mut command = Command::new("unshare");
        command
            .args(["--net", "--", "setpriv", "--reuid=65534", "--regid=65534"])
            .args(["--clear-groups", "--", "timeout", "-s", "KILL", "20"])
            .args(["strace", "-f", "-qq", "-s", "4096", "-o"])
            .arg(&trace)
            .args(["-e", &format!("trace={TRACED}"), "bash", "-c", line])
            .current_dir(&self.root)
            .env_clear()
            .env("HOME", &self.home)
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("LANG", "C.UTF-8")
            .stdin(std::process::Stdio::null());
        for (name, value) in spec().programs.environment.iter() {
            command.env(name, value.as_ref());
        }
        let out = command.output().unwrap();
        let mut wrong = Vec::new();
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        for canary in CANARIES {
            if printed.contains(canary) {
                wrong.push(format!("printed the canary {canary}"));
            }
        }
        let traced = std::fs::read_to_string(&trace).unwrap_or_default();
        if traced.is_empty() {
            wrong.push(format!("no trace ({printed})"));
        }
        let named = programs_named(line);
        wrong.extend(
            traced
                .lines()
                .filter_map(|l| attempt(l, &named, &self.base)),
        );
        wrong
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

/// The programs a line names (its commands' first words, read plainly): what it may run.
fn programs_named(line: &str) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = ["bash".to_string()].into();
    for c in shell::read(line).commands {
        if let Some(w) = c.argv().first() {
            out.insert(shell::program_name(&w.text).to_string());
        }
    }
    out
}

/// What a traced call did that a read-only line must not even try, if anything.
fn attempt(line: &str, named: &BTreeSet<String>, base: &Path) -> Option<String> {
    let call = line
        .split_once(' ')
        .map(|(_, rest)| rest.trim_start())
        .unwrap_or(line);
    let name = call.split('(').next().unwrap_or("");
    // Plan mode writes nothing but the plan (its files under .lembas/plans/).
    let harmless_path = |c: &str| {
        ["\"/dev/null\"", "\"/dev/tty\""]
            .iter()
            .any(|p| c.contains(p))
            || c.contains("\".lembas/plans/")
            || c.contains("/project/.lembas/plans/")
    };
    match name {
        "open" | "openat" | "openat2" | "creat" => {
            let writes = ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"]
                .iter()
                .any(|f| call.contains(f));
            (name == "creat" || writes)
                .then_some(())
                .filter(|_| !harmless_path(call))
                .map(|_| format!("opened for writing: {call}"))
        }
        "connect" | "bind" | "sendto" | "sendmsg" => {
            // The C library asks the name service for the user's name (`ls -l`, `whoami`).
            let name_service = call.contains("sa_family=AF_UNIX")
                && (call.contains("/var/run/nscd/socket") || call.contains("/run/systemd/userdb"));
            (!name_service).then(|| format!("network: {call}"))
        }
        "execve" | "execveat" => {
            let path = call.split('"').nth(1).unwrap_or("");
            let program = path.rsplit('/').next().unwrap_or(path);
            // A program under the throwaway folder is a canary: never run.
            let canary = path.starts_with(&base.to_string_lossy().into_owned());
            (canary || !named.contains(program)).then(|| format!("ran {path}: {call}"))
        }
        "kill" | "tkill" | "tgkill" => Some(format!("signalled: {call}")),
        "" => None,
        other if TRACED.split(',').any(|t| t == other) => {
            // Every other traced call changes something.
            Some(format!("changed something: {call}"))
        }
        _ => None,
    }
}

/// Every permission line of `conformance/` (each area `permission` file's bash calls).
fn conformance_lines() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let file: serde_json::Value = serde_json::from_str(&text).unwrap();
        for case in file["cases"].as_array().into_iter().flatten() {
            for request in std::iter::once(&case["request"])
                .chain(
                    case["then"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|t| &t["request"]),
                )
                .chain(std::iter::once(&case["call"]))
            {
                if request["tool"] == "bash" {
                    if let Some(line) = request["line"].as_str() {
                        out.push(line.to_string());
                    }
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The lines the rules allow in plan mode in this world.
fn allowed_in_plan(world: &World, lines: impl IntoIterator<Item = String>) -> Vec<String> {
    let ctx = world.context();
    lines
        .into_iter()
        .filter(|l| evaluate(&Request::bash(l), &ctx).action == Action::Allow)
        .collect()
}

#[test]
fn every_conformance_line_allowed_in_plan_mode_reads_only() {
    if let Some(why) = missing_tool() {
        println!("skipped: {why}");
        return;
    }
    let world = World::new();
    let lines = allowed_in_plan(&world, conformance_lines());
    assert!(lines.len() > 40, "too few lines ran: {}", lines.len());
    let mut wrong = Vec::new();
    for line in &lines {
        for what in world.run(line) {
            wrong.push(format!("{line}\n    {what}"));
        }
    }
    println!("{} conformance lines allowed in plan mode ran", lines.len());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

// ---- Lines made from each program's grammar and its real help ---------------------------

/// An option of a program as its help lists it: its spelling and how it takes a value.
#[derive(Debug, Clone, PartialEq, Eq)]
struct HelpOption {
    name: String,
    kind: ValueKind,
}

/// How a program writes its help.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HelpStyle {
    /// GNU's `-a, --all`, `-d, --date=STRING` (a required value for both spellings),
    /// `--color[=WHEN]` and `-I[FMT]` (an optional value for the spelling that shows it).
    Gnu,
    /// git's parse-options: `-U, --unified[=<n>]`, `--[no-]stat`, `--stat-width <width>` — a
    /// short spelling takes its value as the long one does.
    Git,
}

/// The options a help text lists, with how each takes a value.
fn help_options(text: &str, style: HelpStyle) -> Vec<HelpOption> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        if !line.starts_with('-') {
            continue;
        }
        // The option part ends at two spaces, or at the first space that does not start a
        // value (`--ignore-space-at-eol ignore changes…`).
        let head = line.split("  ").next().unwrap_or(line);
        let mut spellings: Vec<(Vec<String>, ValueKind)> = Vec::new();
        for spelled in head.split(", ") {
            let spelled = spelled.trim();
            let (no, body) = match spelled.strip_prefix("--[no-]") {
                Some(body) => (true, format!("--{body}")),
                None => (false, spelled.to_string()),
            };
            let (name, rest) = match body.find(['=', '[', ' ', '<']) {
                Some(k) => (body[..k].to_string(), body[k..].to_string()),
                None => (body.clone(), String::new()),
            };
            if name.len() < 2 || !name.starts_with('-') {
                continue;
            }
            let placeholder = |r: &str| r.starts_with(|c: char| c.is_ascii_uppercase() || c == '<');
            let kind = match style {
                _ if rest.starts_with("[=") || rest.starts_with("[<") => ValueKind::Optional,
                HelpStyle::Gnu if rest.starts_with('[') => ValueKind::Optional,
                HelpStyle::Gnu if rest.strip_prefix('=').is_some_and(placeholder) => {
                    ValueKind::Text
                }
                // `-p, --indicator-style=slash`: the long spelling with a fixed value.
                HelpStyle::Gnu if rest.starts_with('=') => continue,
                HelpStyle::Git if rest.starts_with('=') => ValueKind::Text,
                HelpStyle::Git if rest.starts_with(" <") || rest.starts_with('<') => {
                    ValueKind::Text
                }
                HelpStyle::Git if rest.starts_with(" [") => ValueKind::Text,
                _ => ValueKind::Flag,
            };
            // A negation (`--no-stat`) takes no value.
            if no {
                spellings.push((vec![name.replacen("--", "--no-", 1)], ValueKind::Flag));
            }
            spellings.push((vec![name], kind));
        }
        let last = spellings.last().map(|(_, k)| *k).unwrap_or(ValueKind::Flag);
        for (names, kind) in &spellings {
            let negation = names.iter().all(|n| n.starts_with("--no-"));
            let kind = match style {
                HelpStyle::Git if negation => *kind,
                HelpStyle::Git => last,
                // A required value is both spellings'; an optional one the spelling's own.
                HelpStyle::Gnu if last == ValueKind::Text => last,
                HelpStyle::Gnu => *kind,
            };
            for name in names {
                out.push(HelpOption {
                    name: name.clone(),
                    kind,
                });
            }
        }
    }
    out
}

/// A program's help, as the program prints it (`None` when it prints none).
fn help_of(words: &[&str], at: &Path) -> Option<String> {
    let out = Command::new(words[0])
        .args(&words[1..])
        .current_dir(at)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .ok()?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (!text.trim().is_empty()).then_some(text)
}

/// Each default-allowed program (and git subcommand) with its grammar and the command that
/// prints its help.
fn programs(root: &Path) -> Vec<(Vec<String>, &'static Grammar, Vec<HelpOption>)> {
    let mut out = Vec::new();
    let file = &spec().programs.programs;
    for (program, entry) in file.iter() {
        let Some(grammar) = entry.read_only.as_ref() else {
            continue;
        };
        if grammar.subcommands.0.is_empty() {
            let help = help_of(&[program, "--help"], root).unwrap_or_default();
            out.push((
                vec![program.to_string()],
                grammar,
                help_options(&help, HelpStyle::Gnu),
            ));
        } else {
            for (sub, sub_grammar) in grammar.subcommands.iter() {
                let help = help_of(&[program, sub, "-h"], root).unwrap_or_default();
                out.push((
                    vec![program.to_string(), sub.to_string()],
                    sub_grammar,
                    help_options(&help, HelpStyle::Git),
                ));
            }
        }
    }
    out
}

#[test]
fn each_grammar_takes_values_as_its_program_does() {
    if let Some(why) = missing_tool() {
        println!("skipped: {why}");
        return;
    }
    let world = World::new();
    let sets = &spec().programs.sets;
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (words, grammar, help) in programs(&world.root) {
        for option in &help {
            let Some(ours) = option_kind(grammar, sets, &option.name) else {
                continue;
            };
            checked += 1;
            let agrees = match option.kind {
                ValueKind::Flag => ours == ValueKind::Flag,
                ValueKind::Optional => ours == ValueKind::Optional,
                // git's help cannot show a "last argument default" (`--merged` alone means
                // HEAD): such an option takes its value like any other when one follows.
                _ => matches!(
                    ours,
                    ValueKind::Text | ValueKind::Path | ValueKind::Tree | ValueKind::LastOptional
                ),
            };
            if !agrees {
                wrong.push(format!(
                    "{}: {} is {:?} in its help, {ours:?} in the grammar",
                    words.join(" "),
                    option.name,
                    option.kind
                ));
            }
        }
    }
    assert!(checked > 150, "too few options checked: {checked}");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Paths a generated line may name: inside the root, outside it (all canaries or read-only),
/// in the fake home, globs, and spellings that leave the root.
fn paths(world: &World) -> Vec<String> {
    let outside = world.outside.to_string_lossy().into_owned();
    let home = world.home.to_string_lossy().into_owned();
    let mut out: Vec<String> = [
        "a.txt",
        "b.txt",
        "README.md",
        "src",
        "src/main.rs",
        ".",
        "sub",
        "*.txt",
        "src/*",
        ".env",
        ".env.example",
        "config/prod.env",
        "config",
        "dates.txt",
        "..",
        "../outside",
        "../outside/canary.txt",
        "~",
        "~/",
        "~/.ssh",
        "~/.ssh/id_ed25519",
        "~/.aws/credentials",
        "~/.netrc",
        "~/notes.txt",
        "$HOME/.ssh/id_ed25519",
        "/",
        "/dev/null",
        "/proc/self/environ",
        "-",
        "HEAD",
        "HEAD~1",
        "main",
        "feature",
        "HEAD:a.txt",
        "HEAD:.env",
        "@{-1}",
        "../empty",
        "./a.txt",
        "src/../../outside/canary.txt",
        "*",
        ".*",
        "~/.*",
        "../*/canary.txt",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    out.push(format!("{outside}/canary.txt"));
    out.push(outside);
    out.push(format!("{home}/.ssh/id_ed25519"));
    out
}

/// Values an option may be given.
fn values(world: &World) -> Vec<String> {
    let mut out: Vec<String> = [
        "5",
        "0",
        "1",
        "x",
        "%H",
        "--",
        "-",
        "yesterday",
        "2020-01-01",
        "2.weeks",
        "always",
        "never",
        "v2",
        "all",
        "main",
        "HEAD",
        "+%s",
        "@0",
        "seconds",
        "ns",
        "/tmp/x",
        "-s",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    out.extend(paths(world));
    out
}

/// Quotes a word for bash unless it is meant to expand (`~`, `$HOME`, a glob).
fn spell(word: &str) -> String {
    let expands = word.starts_with('~') || word.starts_with('$') || word.contains('*');
    if expands
        || word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=+%:@".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// One generated word of a command: an option of the grammar or of the help, with a value or
/// not, joined or apart, or an operand.
fn word(
    grammar_options: Vec<String>,
    help_options: Vec<String>,
    values: Vec<String>,
    paths: Vec<String>,
) -> impl Strategy<Value = String> {
    let option = prop::sample::select(if grammar_options.is_empty() {
        vec!["-x".to_string()]
    } else {
        grammar_options
    });
    let help = prop::sample::select(if help_options.is_empty() {
        vec!["--help".to_string()]
    } else {
        help_options
    });
    let value = prop::sample::select(values);
    let path = prop::sample::select(paths);
    prop_oneof![
        3 => option.clone(),
        2 => help.clone(),
        2 => (option.clone(), value.clone()).prop_map(|(o, v)| format!("{o} {}", spell(&v))),
        1 => (option, value.clone()).prop_map(|(o, v)| {
            if o.starts_with("--") { format!("{o}={}", spell(&v)) } else { format!("{o}{}", spell(&v)) }
        }),
        1 => (help, value).prop_map(|(o, v)| format!("{o}={}", spell(&v))),
        3 => path.prop_map(|p| spell(&p)),
    ]
}

/// A generated line: a default-allowed program with random words, sometimes inside a
/// substitution, a redirection from a path, or two commands joined.
fn generated_lines(world: &World) -> BoxedStrategy<String> {
    let mut commands: Vec<BoxedStrategy<String>> = Vec::new();
    for (words, grammar, help) in programs(&world.root) {
        let sets = &spec().programs.sets;
        let mut ours: Vec<String> = grammar.options.keys().map(str::to_string).collect();
        for set in grammar.use_sets.iter() {
            if let Some(s) = sets.get(set) {
                ours.extend(s.keys().map(str::to_string));
            }
        }
        let theirs: Vec<String> = help.iter().map(|o| o.name.clone()).collect();
        let head = words.join(" ");
        let globals = ["", "--no-pager ", "-P ", "-C sub ", "-c core.pager=cat "];
        let w = word(ours, theirs, values(world), paths(world));
        let line = (
            prop::sample::select(globals.to_vec()),
            prop::collection::vec(w, 0..4),
        )
            .prop_map(move |(global, args)| {
                let head = if head.starts_with("git ") {
                    head.replacen("git ", &format!("git {global}"), 1)
                } else {
                    head.clone()
                };
                std::iter::once(head)
                    .chain(args)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .boxed();
        commands.push(line);
    }
    let command = prop::strategy::Union::new(commands).boxed();
    let path = prop::sample::select(paths(world));
    prop_oneof![
        6 => command.clone(),
        1 => command.clone().prop_map(|c| format!("echo \"$({c})\"")),
        1 => (command.clone(), path.clone()).prop_map(|(c, p)| format!("{c} < {}", spell(&p))),
        1 => (command.clone(), command.clone()).prop_map(|(a, b)| format!("{a} && {b}")),
        1 => (command, path).prop_map(|(c, p)| format!("{c} | echo \"$(< {})\"", spell(&p))),
    ]
    .boxed()
}

#[test]
fn generated_lines_allowed_in_plan_mode_read_only() {
    if let Some(why) = missing_tool() {
        println!("skipped: {why}");
        return;
    }
    let world = World::new();
    let strategy = generated_lines(&world);
    let ctx = world.context();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 400,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let ran = std::cell::Cell::new(0usize);
    let result = runner.run(&strategy, |line| {
        if evaluate(&Request::bash(&line), &ctx).action != Action::Allow {
            return Ok(());
        }
        ran.set(ran.get() + 1);
        let wrong = world.run(&line);
        prop_assert!(wrong.is_empty(), "{line}\n    {}", wrong.join("\n    "));
        Ok(())
    });
    println!("{} generated lines allowed in plan mode ran", ran.get());
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(
        ran.get() > 50,
        "too few generated lines were allowed: {}",
        ran.get()
    );
}
