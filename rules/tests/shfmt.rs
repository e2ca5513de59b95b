#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! The command reader against a real parser: Debian's `shfmt` (`shfmt -ln bash --to-json`) reads
//! the same lines. For every line the reader calls plain (not opaque), the commands, their words
//! and their redirections equal those of shfmt's syntax tree, in the same order; a line shfmt
//! refuses must be opaque. Run over the hostile corpus and over generated lines, with two
//! properties: auto never allows a generated line holding a destructive command, and a line a
//! rule allows is always plain.

use lembas_rules::permission::plain::{analyse, Place};
use lembas_rules::permission::shell::{self, PieceView, Word};
use lembas_rules::permission::{evaluate, Action, Context, DecidedBy, Mode, Request};
use proptest::prelude::*;
use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

const PLACE: Place<'static> = Place {
    root: "/project",
    home: None,
};

/// One command as both sides see it: its words (quotes removed, `${name}` for a parameter,
/// `$(…)` for a substitution) and its redirections (`fd op target`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    words: Vec<String>,
    redirects: Vec<String>,
}

fn word_form(w: &Word) -> String {
    let mut out = String::new();
    for p in w.piece_views() {
        match p {
            PieceView::Text { text, .. } => out.push_str(text),
            PieceView::Parameter { name, .. } => out.push_str(&format!("${{{name}}}")),
            PieceView::Substitution { .. } => out.push_str("$(…)"),
        }
    }
    out
}

fn reader_commands(line: &str) -> Vec<Seen> {
    shell::read(line)
        .commands
        .iter()
        .map(|c| Seen {
            words: c.words.iter().map(word_form).collect(),
            redirects: c
                .redirects
                .iter()
                .map(|r| {
                    let fd = r.fd.map(|f| f.to_string()).unwrap_or_default();
                    format!("{fd}{} {}", r.op.as_str(), word_form(&r.target))
                })
                .collect(),
        })
        .collect()
}

/// shfmt's tree of a line, or its refusal.
fn shfmt(line: &str) -> Result<Value, String> {
    let mut child = Command::new("shfmt")
        .args(["-ln", "bash", "--to-json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("shfmt runs (scripts/toolchain.sh installs Debian's shfmt)");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(line.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("shfmt ends");
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())
}

/// A node of shfmt's tree the reader's subset does not hold.
#[derive(Debug)]
struct Outside(String);

struct Tree {
    out: Vec<Seen>,
}

fn unescape(s: &str, double: bool) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\n') => {}
            Some(n) if !double || matches!(n, '"' | '\\' | '$' | '`') => out.push(n),
            Some(n) => {
                out.push('\\');
                out.push(n);
            }
            None => out.push('\\'),
        }
    }
    out
}

fn offset(v: &Value) -> u64 {
    v["Pos"]["Offset"].as_u64().unwrap_or(0)
}

impl Tree {
    fn stmts(&mut self, v: &Value) -> Result<(), Outside> {
        for s in v.as_array().into_iter().flatten() {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn redirects(&mut self, s: &Value) -> Result<Vec<String>, Outside> {
        let mut out = Vec::new();
        for r in s["Redirs"].as_array().into_iter().flatten() {
            let op = self.redirect_op(r)?;
            let fd = r["N"]["Value"].as_str().unwrap_or("");
            out.push(format!("{fd}{op} {}", self.word(&r["Word"])?));
        }
        Ok(out)
    }

    /// The words of a command in the order they are written (assignments, arguments and
    /// redirection targets interleave), so that substitutions are met in the reader's order.
    fn stmt(&mut self, s: &Value) -> Result<(), Outside> {
        let cmd = &s["Cmd"];
        let kind = cmd["Type"].as_str().unwrap_or("");
        match kind {
            "CallExpr" | "DeclClause" => {
                let mut items: Vec<(u64, &Value, &str)> = Vec::new();
                for a in cmd["Assigns"].as_array().into_iter().flatten() {
                    items.push((offset(a), a, "assign"));
                }
                for a in cmd["Args"].as_array().into_iter().flatten() {
                    items.push((
                        offset(a),
                        a,
                        if kind == "DeclClause" { "decl" } else { "arg" },
                    ));
                }
                let mut redirect_words = Vec::new();
                for r in s["Redirs"].as_array().into_iter().flatten() {
                    redirect_words.push((offset(&r["Word"]), &r["Word"]));
                }
                // Substitutions inside redirection targets are read with the words.
                let mut order: Vec<(u64, usize, bool)> = items
                    .iter()
                    .enumerate()
                    .map(|(k, i)| (i.0, k, false))
                    .chain(
                        redirect_words
                            .iter()
                            .enumerate()
                            .map(|(k, r)| (r.0, k, true)),
                    )
                    .collect();
                order.sort();
                let mut words: Vec<(usize, String)> = Vec::new();
                let mut redirect_forms: Vec<(usize, String)> = Vec::new();
                for (_, k, is_redirect) in order {
                    if is_redirect {
                        let w = self.word(redirect_words[k].1)?;
                        redirect_forms.push((k, w));
                        continue;
                    }
                    let (_, a, what) = items[k];
                    let form = match what {
                        "assign" | "decl" if a.get("Name").is_some_and(|n| !n.is_null()) => {
                            if a["Array"].is_object() || a["Index"].is_object() {
                                return Err(Outside("array".into()));
                            }
                            let name = a["Name"]["Value"].as_str().unwrap_or("").to_string();
                            if a["Naked"].as_bool() == Some(true) {
                                name
                            } else {
                                let plus = if a["Append"].as_bool() == Some(true) {
                                    "+"
                                } else {
                                    ""
                                };
                                let value = if a["Value"].is_object() {
                                    self.word(&a["Value"])?
                                } else {
                                    String::new()
                                };
                                format!("{name}{plus}={value}")
                            }
                        }
                        "decl" => self.word(&a["Value"])?,
                        _ => self.word(a)?,
                    };
                    words.push((k, form));
                }
                words.sort();
                let mut words: Vec<String> = words.into_iter().map(|(_, w)| w).collect();
                if kind == "DeclClause" {
                    words.insert(
                        0,
                        cmd["Variant"]["Value"].as_str().unwrap_or("").to_string(),
                    );
                }
                let has_args =
                    kind == "DeclClause" || cmd["Args"].as_array().is_some_and(|a| !a.is_empty());
                let redirects = self.redirect_list(s, &redirect_forms)?;
                if has_args || !redirects.is_empty() {
                    self.out.push(Seen { words, redirects });
                }
                Ok(())
            }
            "BinaryCmd" => {
                self.stmt(&cmd["X"])?;
                self.stmt(&cmd["Y"])
            }
            "Subshell" | "Block" => {
                self.stmts(&cmd["Stmts"])?;
                self.trailing(s)
            }
            "IfClause" => {
                self.if_clause(cmd)?;
                self.trailing(s)
            }
            "WhileClause" => {
                self.stmts(&cmd["Cond"])?;
                self.stmts(&cmd["Do"])?;
                self.trailing(s)
            }
            "ForClause" => {
                let lp = &cmd["Loop"];
                if lp["Type"].as_str() != Some("WordIter") {
                    return Err(Outside("for ((…))".into()));
                }
                for w in lp["Items"].as_array().into_iter().flatten() {
                    self.word(w)?;
                }
                self.stmts(&cmd["Do"])?;
                self.trailing(s)
            }
            "TimeClause" => self.stmt(&cmd["Stmt"]),
            // A statement of redirections alone (`2>&1` after `&`).
            "" if cmd.is_null() => self.trailing(s),
            other => Err(Outside(other.to_string())),
        }
    }

    fn if_clause(&mut self, c: &Value) -> Result<(), Outside> {
        self.stmts(&c["Cond"])?;
        self.stmts(&c["Then"])?;
        if c["Else"].is_object() {
            self.if_clause(&c["Else"])?;
        }
        Ok(())
    }

    fn redirect_list(
        &mut self,
        s: &Value,
        targets: &[(usize, String)],
    ) -> Result<Vec<String>, Outside> {
        let mut out = Vec::new();
        for (k, r) in s["Redirs"].as_array().into_iter().flatten().enumerate() {
            let op = self.redirect_op(r)?;
            let fd = r["N"]["Value"].as_str().unwrap_or("");
            let target = targets
                .iter()
                .find(|(i, _)| *i == k)
                .map(|(_, t)| t.clone())
                .unwrap_or_default();
            out.push(format!("{fd}{op} {target}"));
        }
        Ok(out)
    }

    fn redirect_op(&self, r: &Value) -> Result<&'static str, Outside> {
        Ok(match r["Op"].as_u64() {
            Some(54) => ">",
            Some(55) => ">>",
            Some(56) => "<",
            Some(57) => "<>",
            Some(58) => "<&",
            Some(59) => ">&",
            Some(60) => ">|",
            Some(61) => "<<",
            Some(62) => "<<-",
            Some(63) => "<<<",
            Some(64) => "&>",
            Some(65) => "&>>",
            other => return Err(Outside(format!("redirection {other:?}"))),
        })
    }

    /// Redirections after a compound command: a command without words.
    fn trailing(&mut self, s: &Value) -> Result<(), Outside> {
        let r = self.redirects(s)?;
        if !r.is_empty() {
            self.out.push(Seen {
                words: Vec::new(),
                redirects: r,
            });
        }
        Ok(())
    }

    fn word(&mut self, w: &Value) -> Result<String, Outside> {
        let mut out = String::new();
        for p in w["Parts"].as_array().into_iter().flatten() {
            self.part(p, false, &mut out)?;
        }
        Ok(out)
    }

    fn part(&mut self, p: &Value, double: bool, out: &mut String) -> Result<(), Outside> {
        match p["Type"].as_str().unwrap_or("") {
            "Lit" => out.push_str(&unescape(p["Value"].as_str().unwrap_or(""), double)),
            "SglQuoted" if p["Dollar"].as_bool() != Some(true) => {
                out.push_str(p["Value"].as_str().unwrap_or(""))
            }
            "DblQuoted" if p["Dollar"].as_bool() != Some(true) => {
                for q in p["Parts"].as_array().into_iter().flatten() {
                    self.part(q, true, out)?;
                }
            }
            "ParamExp" => {
                for k in [
                    "Excl", "Length", "Width", "Index", "Slice", "Repl", "Names", "Exp",
                ] {
                    if !p[k].is_null() && p[k] != Value::Bool(false) {
                        return Err(Outside(format!("${{…}} with {k}")));
                    }
                }
                out.push_str(&format!(
                    "${{{}}}",
                    p["Param"]["Value"].as_str().unwrap_or("")
                ));
            }
            "CmdSubst" => {
                self.stmts(&p["Stmts"])?;
                out.push_str("$(…)");
            }
            other => return Err(Outside(other.to_string())),
        }
        Ok(())
    }
}

/// The differential check of one line; an error names the difference.
fn check(line: &str) -> Result<(), String> {
    let analysis = analyse(line, PLACE);
    if analysis.opaque.is_some() {
        return Ok(());
    }
    let tree = shfmt(line)
        .map_err(|e| format!("the reader read {line:?} plainly; shfmt refused it: {e}"))?;
    let mut t = Tree { out: Vec::new() };
    t.stmts(&tree["Stmts"])
        .map_err(|Outside(what)| format!("the reader read {line:?} plainly; shfmt found {what}"))?;
    let ours = reader_commands(line);
    if ours != t.out {
        return Err(format!(
            "{line:?}\n  reader: {ours:?}\n  shfmt:  {:?}",
            t.out
        ));
    }
    Ok(())
}

fn corpus_lines() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance");
    let mut lines = Vec::new();
    for f in ["permission.json", "hostile.json", "delegation.json"] {
        let text = std::fs::read_to_string(dir.join(f)).expect("case file");
        let v: Value = serde_json::from_str(&text).expect("json");
        for c in v["cases"].as_array().into_iter().flatten() {
            for key in ["request", "call"] {
                if let Some(l) = c[key]["line"].as_str() {
                    lines.push(l.to_string());
                }
            }
        }
    }
    lines.sort();
    lines.dedup();
    lines
}

#[test]
fn the_reader_reads_the_corpus_as_shfmt_does() {
    let lines = corpus_lines();
    assert!(lines.len() > 300, "the corpus has {} lines", lines.len());
    let mut plain = 0;
    let errors: Vec<String> = lines
        .iter()
        .filter_map(|l| {
            if analyse(l, PLACE).opaque.is_none() {
                plain += 1;
            }
            check(l).err()
        })
        .collect();
    assert!(
        errors.is_empty(),
        "{} differences:\n{}",
        errors.len(),
        errors.join("\n")
    );
    assert!(plain > 200, "only {plain} plain lines compared");
}

#[test]
fn a_difference_is_found() {
    // The comparison itself can fail: a reading that differs from shfmt's is reported.
    let tree = shfmt("a 'b c' d").expect("shfmt");
    let mut t = Tree { out: Vec::new() };
    t.stmts(&tree["Stmts"]).expect("tree");
    assert_ne!(reader_commands("a b c d"), t.out);
    assert_eq!(reader_commands("a 'b c' d"), t.out);
}

// Generated lines: destructive and harmless commands, quoted, wrapped, put inside keywords and
// joined by separators.

fn destructive() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "rm -rf /",
        "rm -rf ~",
        "rm -fr /usr",
        "rm --recursive --force /etc",
        "mkfs.ext4 /dev/sda1",
        "dd if=/dev/zero of=/dev/sda",
        "shutdown -h now",
        "reboot",
        "chmod -R 777 /",
        "find / -delete",
        "mv /usr /tmp/x",
        "kill -9 1",
    ])
    .prop_map(str::to_string)
}

fn harmless() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "ls -la",
        "git status",
        "echo hi",
        "cargo test",
        "rm -rf ./build",
        "cat a.txt",
        "grep -r x src",
        "true",
    ])
    .prop_map(str::to_string)
}

/// One word quoted one of several ways.
fn quote(word: &str, how: u8) -> String {
    match how % 6 {
        0 => word.to_string(),
        1 => format!("'{word}'"),
        2 => format!("\"{word}\""),
        3 => word
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    format!("\\{c}")
                } else {
                    c.to_string()
                }
            })
            .collect(),
        4 if word.len() > 1 => {
            let (a, b) = word.split_at(1);
            format!("{a}'{b}'")
        }
        _ => format!("\"{word}\"''"),
    }
}

fn requote(cmd: &str, hows: &[u8]) -> String {
    cmd.split(' ')
        .enumerate()
        .map(|(i, w)| {
            // A quoted `~` is a file of that name: the generated line would mean something else.
            if w.contains('~') || (w.contains('/') && hows.get(i).is_some_and(|h| h % 6 == 3)) {
                w.to_string()
            } else {
                quote(w, hows.get(i).copied().unwrap_or(0))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn wrap(cmd: String, how: u8) -> String {
    match how % 12 {
        0 => cmd,
        1 => format!("sudo {cmd}"),
        2 => format!("env A=1 {cmd}"),
        3 => format!("timeout 5 {cmd}"),
        4 => format!("nice -n 5 {cmd}"),
        5 => format!("bash -c '{}'", cmd.replace('\'', "'\\''")),
        6 => format!("sh -ec \"{}\"", cmd.replace(['"', '\\', '$', '`'], "")),
        7 => format!("nohup {cmd} &"),
        8 => format!("command {cmd}"),
        9 => format!("exec {cmd}"),
        10 => format!("A=1 {cmd}"),
        _ => format!("busybox {cmd}"),
    }
}

fn enclose(cmd: String, how: u8) -> String {
    match how % 9 {
        0 => cmd,
        1 => format!("if true; then {cmd}; fi"),
        2 => format!("{{ {cmd}; }}"),
        3 => format!("({cmd})"),
        4 => format!("! {cmd}"),
        5 => format!("while false; do {cmd}; done"),
        6 => format!("for x in a; do {cmd}; done"),
        7 => format!("echo $({cmd})"),
        _ => format!("time {cmd}"),
    }
}

/// Fragments that readers get wrong, appended to a command. `swallowing` adds those that turn
/// the rest of the line into text (an unclosed quote): right for the differential test, wrong for
/// a property that counts the destructive commands a line runs.
fn noise(swallowing: bool) -> impl Strategy<Value = &'static str> {
    let mut fragments = vec![
        "",
        "",
        " $X",
        " \"$X\"",
        " ${X}",
        " \"${HOME}\"/a",
        " ~/x",
        " $'a'",
        " ${x:-y}",
        " {a,b}",
        " {}",
        " 2>&1",
        " >/dev/null",
        " >& out",
        " &> log",
        " 3<> f",
        " <<< word",
        " <<'E'\nbody $(x)\nE\n",
        " <<E\nplain\nE\n",
        " # comment ; rm -rf /\n",
        " \\\n next",
        " \"$(date)\"",
        " `date`",
        " a\\ b",
        " 'it''s'",
        " \"a\\\"b\"",
        " x=1",
        " *.rs",
        " [ab]c",
        " $((1+1))",
        " <(ls)",
        " ; x=/usr",
        " \t\ttab",
        " é",
    ];
    if swallowing {
        fragments.extend([" \"unclosed", " 'unclosed", " \\"]);
    }
    prop::sample::select(fragments)
}

fn line() -> impl Strategy<Value = (String, bool)> {
    line_with(true)
}

/// Generated lines whose every destructive command runs (no fragment turns it into text).
fn runs() -> impl Strategy<Value = (String, bool)> {
    line_with(false)
}

fn line_with(swallowing: bool) -> impl Strategy<Value = (String, bool)> {
    (
        prop::collection::vec(
            (
                prop::bool::ANY,
                any::<u8>(),
                any::<u8>(),
                prop::collection::vec(any::<u8>(), 6),
                noise(swallowing),
            ),
            1..4,
        ),
        prop::collection::vec(
            prop::sample::select(vec![" ; ", " && ", " || ", " | ", " & ", "\n"]),
            3,
        ),
        destructive(),
        harmless(),
    )
        .prop_map(|(parts, seps, bad, good)| {
            let mut out = String::new();
            let mut has_bad = false;
            for (i, (is_bad, w, e, hows, extra)) in parts.iter().enumerate() {
                let base = if *is_bad { &bad } else { &good };
                has_bad |= *is_bad;
                let cmd = enclose(format!("{}{extra}", wrap(requote(base, hows), *w)), *e);
                if i > 0 {
                    out.push_str(seps.get(i - 1).copied().unwrap_or(" ; "));
                }
                out.push_str(&cmd);
            }
            (out, has_bad)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn generated_lines_are_read_as_shfmt_reads_them((l, _) in line()) {
        if let Err(e) = check(&l) {
            prop_assert!(false, "{}", e);
        }
    }

    #[test]
    fn auto_never_allows_a_generated_destructive_line((l, has_bad) in runs()) {
        let d = evaluate(&Request::bash(&l), &Context::new(Mode::Auto));
        if has_bad {
            prop_assert_ne!(d.action, Action::Allow, "{:?}", l);
        }
    }

    #[test]
    fn a_line_a_rule_allows_is_plain((l, _) in line(), mode in prop::sample::select(Mode::ALL.to_vec())) {
        let d = evaluate(&Request::bash(&l), &Context::new(mode));
        let by_rule = matches!(d.decided_by, DecidedBy::Rule { .. });
        if d.action == Action::Allow && (by_rule || mode != Mode::Auto) {
            prop_assert!(analyse(&l, PLACE).opaque.is_none(), "{:?}", l);
        }
    }
}
