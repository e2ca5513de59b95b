use super::*;

fn call(tool: &str, target: Target) -> Request {
    Request::tool(tool, target).unwrap()
}

fn action(req: &Request, mode: Mode) -> Action {
    evaluate(req, &Context::new(mode)).action
}

#[test]
fn every_mode_by_every_class() {
    use Action::*;
    let edit = call("edit", Target::Path("src/a.rs".into()));
    let read = call("read", Target::Path("src/a.rs".into()));
    let bash = Request::bash("npm test");
    let team = call("team_send", Target::Tool);
    let table = [
        (Mode::Auto, [Allow, Allow, Allow, Allow]),
        (Mode::Edit, [Allow, Allow, Ask, Allow]),
        (Mode::Manual, [Allow, Ask, Ask, Allow]),
        (Mode::Plan, [Allow, Deny, Deny, Allow]),
    ];
    for (mode, want) in table {
        let got = [
            action(&read, mode),
            action(&edit, mode),
            action(&bash, mode),
            action(&team, mode),
        ];
        assert_eq!(got, want, "{mode}");
    }
}

#[test]
fn a_later_rule_overrides_an_earlier_one() {
    let mut ctx = Context::new(Mode::Edit);
    ctx.rules = vec![
        Rule::new("bash", "npm *", Action::Allow, RuleSource::Session),
        Rule::new("bash", "npm publish *", Action::Deny, RuleSource::Session),
    ];
    assert_eq!(
        evaluate(&Request::bash("npm test"), &ctx).action,
        Action::Allow
    );
    let d = evaluate(&Request::bash("npm publish --tag x"), &ctx);
    assert_eq!(d.action, Action::Deny);
    assert_eq!(
        d.decided_by,
        DecidedBy::Rule {
            source: RuleSource::Session,
            permission: "bash".into(),
            pattern: "npm publish *".into(),
            action: Action::Deny
        }
    );
}

#[test]
fn a_rules_allow_holds_in_plan_mode() {
    assert_eq!(
        action(&Request::bash("git status"), Mode::Plan),
        Action::Allow
    );
    assert_eq!(
        action(&Request::bash("git status --short"), Mode::Plan),
        Action::Allow
    );
    let plan = call("write", Target::Path(".lembas/plans/p.md".into()));
    assert_eq!(action(&plan, Mode::Plan), Action::Allow);
}

#[test]
fn the_strictest_part_of_a_line_wins() {
    assert_eq!(
        action(&Request::bash("git status && npm test"), Mode::Edit),
        Action::Ask
    );
    assert_eq!(
        action(&Request::bash("git status && rm -rf /"), Mode::Auto),
        Action::Deny
    );
    assert_eq!(
        action(&Request::bash("git status; git log"), Mode::Manual),
        Action::Allow
    );
}

#[test]
fn env_files_ask_in_every_mode_but_auto() {
    for (path, want) in [
        (".env", Action::Ask),
        ("config/.env.local", Action::Ask),
        (".env.example", Action::Allow),
    ] {
        let req = call("read", Target::Path(path.into()));
        assert_eq!(action(&req, Mode::Edit), want, "{path}");
        assert_eq!(action(&req, Mode::Plan), want, "{path}");
        assert_eq!(action(&req, Mode::Auto), Action::Allow, "{path}");
    }
}

#[test]
fn outside_the_root_asks() {
    let req = call("read", Target::Path("../other/x".into()));
    let d = evaluate(&req, &Context::new(Mode::Edit));
    assert_eq!(d.action, Action::Ask);
    assert_eq!(
        d.decided_by,
        DecidedBy::OutsideRoot {
            path: "/other/x".into()
        }
    );
    let mut ctx = Context::new(Mode::Edit);
    ctx.rules = vec![Rule::new(
        OUTSIDE_ROOT,
        "/other/*",
        Action::Allow,
        RuleSource::Session,
    )];
    assert_eq!(evaluate(&req, &ctx).action, Action::Allow);
}

#[test]
fn a_redirection_writes_a_file() {
    // echo is allowed by the defaults, but writing its output is a write.
    assert_eq!(action(&Request::bash("echo hi"), Mode::Plan), Action::Allow);
    assert_eq!(
        action(&Request::bash("echo hi > notes.txt"), Mode::Plan),
        Action::Deny
    );
    assert_eq!(
        action(&Request::bash("echo hi > notes.txt"), Mode::Manual),
        Action::Ask
    );
    assert_eq!(
        action(&Request::bash("echo hi > /dev/null"), Mode::Manual),
        Action::Allow
    );
}

#[test]
fn unattended_refuses_what_would_ask() {
    let mut ctx = Context::new(Mode::Edit);
    ctx.unattended = true;
    let d = evaluate(&Request::bash("git push origin main"), &ctx);
    assert_eq!(
        (d.action, d.decided_by),
        (Action::Deny, DecidedBy::Unattended)
    );
    assert_eq!(
        evaluate(&Request::bash("git status"), &ctx).action,
        Action::Allow
    );
}

#[test]
fn requests_read_from_json_name_their_fields() {
    let err = |v: serde_json::Value| Request::from_json("request", &v).unwrap_err().to_string();
    assert_eq!(
        err(serde_json::json!({"tool": "bash"})),
        "request.line: missing"
    );
    assert_eq!(
        err(serde_json::json!({"tool": "mcp_x"})),
        "request.tool: unknown tool (give its class) \"mcp_x\""
    );
    assert_eq!(
        err(serde_json::json!({"tool": "bash", "line": "x", "class": "read"})),
        "request.class: bash is execute, not read"
    );
    let r = Request::from_json(
        "request",
        &serde_json::json!({"tool": "mcp_x", "class": "read"}),
    )
    .unwrap();
    assert_eq!((r.class, r.permission.as_ref()), (RiskClass::Read, "mcp_x"));
}

#[test]
fn paths_normalise() {
    let place = plain::Place {
        root: "/project",
        home: None,
    };
    let resolve = |p: &str| plain::resolve(place, "/project", p);
    assert_eq!(resolve("src/../a.ts"), "/project/a.ts");
    assert_eq!(resolve("../../../etc"), "/etc");
    assert_eq!(inside("/project", "/project/a/b"), Some("a/b"));
    assert_eq!(inside("/project", "/projectx/a"), None);
    assert_eq!(inside("/project", "/project"), Some("."));
}

/// Words a generated command is made of: programs with and without effects, their effect
/// options and plain ones, paths and values.
mod generated {
    use proptest::prelude::*;

    pub const PROGRAMS: &[&str] = &[
        "find",
        "sed",
        "awk",
        "tar",
        "sort",
        "rg",
        "python3",
        "node",
        "make",
        "git",
        "npm",
        "cargo",
        "vim",
        "cat",
        "grep",
        "touch",
        "cp",
        "ls",
        "date",
        "echo",
        "git -C sub",
        "gsed",
    ];
    pub const WORDS: &[&str] = &[
        "-exec",
        "rm",
        "{}",
        ";",
        "-delete",
        "-name",
        "x",
        "1e id",
        "s/a/b/e",
        "w /tmp/o",
        "p",
        "-n",
        "BEGIN{system(\"id\")}",
        "{print $1}",
        "-xf",
        "a.tar",
        "--to-command=sh",
        "--checkpoint-action=exec=id",
        "-I",
        "zstd",
        "--compress-program=sh",
        "--comp=sh",
        "--pre",
        "sh",
        "-c",
        "print(1)",
        "-e",
        "--eval",
        "x.py",
        "app.js",
        "test",
        "--eval=x:",
        "-f",
        "evil.mk",
        "+!id",
        "a.txt",
        "/etc/hosts",
        "~/x",
        "config",
        "core.fsmonitor",
        "user.name",
        "fetch",
        "--upload-pack=id",
        "status",
        "-s",
        "log",
        "-p",
        "push",
        "origin",
        "build",
        "-la",
        "+%s",
        "-d",
        "yesterday",
        "--",
        "$X",
        ".env",
        "src",
        ">",
        "out.txt",
        "|",
    ];

    pub fn line() -> impl Strategy<Value = String> {
        (
            prop::sample::select(PROGRAMS),
            prop::collection::vec(prop::sample::select(WORDS), 0..5),
        )
            .prop_map(|(program, words)| {
                let quoted: Vec<String> = words
                    .iter()
                    .map(|w| {
                        if matches!(*w, ">" | "|") {
                            w.to_string()
                        } else {
                            format!("'{}'", w.replace('\'', "'\\''"))
                        }
                    })
                    .collect();
                let mut line = program.to_string();
                for w in quoted {
                    line.push(' ');
                    line.push_str(&w);
                }
                // A trailing operator would be a syntax error: the line stays readable.
                line.trim_end_matches([' ', '>', '|']).to_string()
            })
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

    /// An approval's pattern never covers a command whose effects differ from the approved
    /// call's: an approved call has none (a call with one is not approved), and a command with
    /// one is never allowed by an approval, whatever the approval's pattern.
    #[test]
    fn an_approval_never_covers_a_command_with_an_effect(
        approved in generated::line(),
        later in generated::line(),
        mode in proptest::sample::select(vec![Mode::Manual, Mode::Edit]),
    ) {
        let ctx = Context::new(mode);
        let mut after = ctx.clone();
        if let Ok(rules) = approval::approve(&Request::bash(&approved), &ctx) {
            let read = plain::analyse(&approved, plain::Place { root: CASE_ROOT, home: None });
            proptest::prop_assert!(
                read.commands.iter().all(|c| c.effects.is_empty()) && read.network.is_empty(),
                "{approved} has an effect and was approved"
            );
            after.approvals = rules;
        }
        let read = plain::analyse(&later, plain::Place { root: CASE_ROOT, home: None });
        let effect = read.commands.iter().any(|c| !c.effects.is_empty()) || !read.network.is_empty();
        let d = evaluate(&Request::bash(&later), &after);
        if effect {
            proptest::prop_assert!(
                !matches!(d.decided_by, DecidedBy::Rule { source: RuleSource::Approval, .. }),
                "after approving {approved}, {later} (an effect) was allowed by {:?}",
                d.decided_by
            );
        }
    }

    /// In plan mode no write or command is ever allowed by a rule other than the defaults, and
    /// a default rule allows a command only inside its program's read-only forms.
    #[test]
    fn plan_mode_lets_no_write_or_command_through_but_the_defaults(
        line in generated::line(),
        path in proptest::sample::select(vec!["src/a.rs", ".lembas/plans/p.md", "/tmp/x", ".env", "a.txt"]),
        pattern in proptest::sample::select(vec!["*", "find *", "git *", "src/*", "cat *", "sed *", "*.rs"]),
        source in proptest::sample::select(vec![RuleSource::Session, RuleSource::Approval, RuleSource::Grant]),
    ) {
        let mut ctx = Context::new(Mode::Plan);
        for key in ["bash", "edit", "*"] {
            let rule = Rule::new(key, pattern, Action::Allow, source);
            match source {
                RuleSource::Approval => ctx.approvals.push(rule.given_in(Mode::Edit)),
                RuleSource::Grant => ctx.grants.push(rule),
                _ => ctx.rules.push(rule),
            }
        }
        let calls = [Request::bash(&line), call("write", Target::Path(path.into()))];
        for req in calls {
            let d = evaluate(&req, &ctx);
            if d.action == Action::Allow {
                proptest::prop_assert!(
                    matches!(d.decided_by, DecidedBy::Rule { source: RuleSource::Defaults, .. }),
                    "{req:?} was allowed in plan mode by {:?}",
                    d.decided_by
                );
            }
        }
    }
}

#[test]
fn the_plan_tools_are_allowed_in_every_mode_and_a_todo_rule_still_reaches_them() {
    for mode in Mode::ALL {
        for tool in ["plan_write", "plan_update", "plan_submit"] {
            assert_eq!(
                action(&call(tool, Target::Tool), mode),
                Action::Allow,
                "{tool} in {mode}"
            );
        }
    }
    let setting: crate::spec::types::Setting =
        serde_json::from_value(serde_json::json!({"todo": "deny"})).unwrap();
    let mut ctx = Context::new(Mode::Plan);
    ctx.rules = rules_from_setting(&setting, RuleSource::Session).unwrap();
    let d = evaluate(&call("plan_write", Target::Tool), &ctx);
    assert_eq!(d.action, Action::Deny);
    let bad: crate::spec::types::Setting =
        serde_json::from_value(serde_json::json!({"todo": {"*": "sometimes"}})).unwrap();
    let e = rules_from_setting(&bad, RuleSource::Session).unwrap_err();
    assert!(e.to_string().contains("todo.*"), "{e}");
}

#[test]
fn an_approval_kept_past_the_session_is_of_the_exact_call_only() {
    use crate::permission::approval::approve_exactly;
    let mut ctx = Context::new(Mode::Manual);
    ctx.root = "/p".into();
    let kept = approve_exactly(&Request::bash("rm -f old.log"), &ctx).unwrap();
    assert_eq!(kept.words, "`rm -f old.log`");
    assert_eq!(kept.rule.given_in, Some(Mode::Manual));
    ctx.approvals = vec![kept.rule];
    assert_eq!(
        action(&Request::bash("rm -f old.log"), Mode::Manual),
        Action::Ask
    );
    let judged = |line: &str| evaluate(&Request::bash(line), &ctx).action;
    assert_eq!(judged("rm -f old.log"), Action::Allow);
    assert_eq!(judged("rm -rf src"), Action::Ask);
    assert_eq!(judged("rm -f old.log src"), Action::Ask);
    for line in [
        "git push && rm x",
        "rm *.log",
        "echo $(id)",
        "a; b",
        "cat < x",
        " ",
    ] {
        assert!(
            approve_exactly(&Request::bash(line), &ctx).is_none(),
            "{line}"
        );
    }
    let write = |path: &str| call("write", Target::Path(path.into()));
    let kept = approve_exactly(&write("/p/src/a.rs"), &ctx).unwrap();
    assert_eq!(kept.words, "src/a.rs");
    ctx.approvals = vec![kept.rule];
    let wrote = |path: &str| evaluate(&write(path), &ctx).action;
    assert_eq!(wrote("/p/src/a.rs"), Action::Allow);
    assert_eq!(wrote("/p/src/b.rs"), Action::Ask);
    assert!(approve_exactly(&write("/etc/hosts"), &ctx).is_none());
    assert!(approve_exactly(&write("/p/a*.rs"), &ctx).is_none());
    assert!(approve_exactly(&call("team_read", Target::Tool), &ctx).is_none());
}

#[test]
fn an_approval_never_holds_in_plan_mode() {
    // A read of `.env` approved "always": its folder's rule, `*`.
    let read = call("read", Target::Path(".env".into()));
    let approved = approval::approve(&read, &Context::new(Mode::Plan)).unwrap_or_default();
    assert!(!approved.is_empty());
    let mut plan = Context::new(Mode::Plan);
    plan.approvals = approved.clone();
    let other = call("read", Target::Path(".env.production".into()));
    assert_ne!(evaluate(&other, &plan).action, Action::Allow);
    // Given in manual mode, it holds in manual mode.
    let mut manual = Context::new(Mode::Manual);
    manual.approvals = approval::approve(&read, &manual).unwrap_or_default();
    assert_eq!(evaluate(&other, &manual).action, Action::Allow);
}

#[test]
fn a_call_never_picks_its_own_permission_key() {
    let value = serde_json::json!({ "tool": "write", "path": "src/a.rs", "permission": "plan" });
    assert!(Request::from_json("request", &value).is_err());
    let value = serde_json::json!({ "tool": "write", "path": "src/a.rs", "permission": "edit" });
    assert!(Request::from_json("request", &value).is_ok());
    // A tool the spec does not have names its key.
    let value = serde_json::json!({ "tool": "mcp_x", "class": "read", "permission": "mcp" });
    assert_eq!(
        Request::from_json("request", &value).map(|r| r.permission.into_owned()),
        Ok("mcp".to_string())
    );
}
