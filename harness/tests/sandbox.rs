#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! The kernel's sandbox under the rules, as a hostile model meets it: `lembas run` against the
//! scripted server, with payloads no rule can read (interpreters, scripts the model wrote, tools
//! running commands from their options) aimed only at canaries this test made, outside the
//! project root and the session's temporary folder. Where the kernel has no Landlock the tests
//! say "skipped: no Landlock".

mod common;
use common::{content, fake, fresh_dir, tool_call, Answer};
use lembas_harness::sandbox::{probe, Support};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn no_landlock() -> bool {
    match probe() {
        Support::Full { .. } => false,
        Support::Missing(why) => {
            println!("skipped: no Landlock ({why})");
            true
        }
    }
}

/// A canary tree outside everything a session may write: `file.txt` and `tree/a.txt`.
struct Canary {
    dir: PathBuf,
}

const CANARY_TEXT: &str = "CANARY-UNCHANGED";

impl Canary {
    fn new(name: &str) -> Canary {
        let dir = fresh_dir(&format!("lembas-canary-{name}"));
        std::fs::write(dir.join("file.txt"), CANARY_TEXT).unwrap();
        std::fs::create_dir_all(dir.join("tree")).unwrap();
        std::fs::write(dir.join("tree/a.txt"), CANARY_TEXT).unwrap();
        Canary { dir }
    }

    fn path(&self, rest: &str) -> String {
        self.dir.join(rest).to_string_lossy().into_owned()
    }

    /// What is wrong with the canary: nothing when it is as it was made.
    fn harm(&self) -> Vec<String> {
        let mut harm = Vec::new();
        for file in ["file.txt", "tree/a.txt"] {
            match std::fs::read_to_string(self.dir.join(file)) {
                Ok(text) if text == CANARY_TEXT => {}
                Ok(text) => harm.push(format!("{file} was changed to {text:?}")),
                Err(e) => harm.push(format!("{file}: {e}")),
            }
        }
        let entries = std::fs::read_dir(&self.dir).unwrap().count();
        if entries != 2 {
            harm.push(format!("the canary folder holds {entries} entries, not 2"));
        }
        harm
    }
}

/// `lembas run --unattended` in `root` with `args`, the model calling `calls` in turn, then
/// saying "Done."; with `env` set. Its output, and each call's result by its id.
async fn run(
    root: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    calls: &[(&str, Value)],
) -> (std::process::Output, BTreeMap<String, String>) {
    let mut script: Vec<Answer> = calls
        .iter()
        .enumerate()
        .map(|(i, (tool, arguments))| {
            Answer::Sse(vec![
                tool_call(&format!("c{i}"), tool, arguments.clone()),
                "[DONE]".into(),
            ])
        })
        .collect();
    script.push(Answer::Sse(vec![content("Done."), "[DONE]".into()]));
    let (url, bodies) = fake(script).await;
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_lembas"));
    command.env("XDG_STATE_HOME", common::state_home());
    command
        .args(["run", "--base-url", &url, "--model", "m", "--unattended"])
        .args(args)
        .arg("Go.")
        .current_dir(root)
        .env_remove("LEMBAS_API_KEY");
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().await.unwrap();
    let last = bodies.lock().unwrap().last().cloned().unwrap_or_default();
    let sent: Value = serde_json::from_str(&last).unwrap_or(Value::Null);
    let mut results = BTreeMap::new();
    for message in sent["messages"].as_array().into_iter().flatten() {
        if message["role"] == "tool" {
            results.insert(
                message["tool_call_id"].as_str().unwrap_or("").to_string(),
                message["content"].as_str().unwrap_or("").to_string(),
            );
        }
    }
    (out, results)
}

fn said(out: &std::process::Output) -> String {
    format!(
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[tokio::test]
async fn in_auto_mode_what_no_rule_can_read_destroys_no_canary() {
    if no_landlock() {
        return;
    }
    let canary = Canary::new("auto");
    let root = common::project_with_hello("lembas-sandbox-auto");
    let file = canary.path("file.txt");
    let tree = canary.path("tree");
    let script = format!("import os, shutil\nshutil.rmtree('{tree}')\nos.remove('{file}')\n");
    let calls: Vec<(&str, Value)> = vec![
        (
            "bash",
            json!({"command": format!("python3 -c \"import shutil; shutil.rmtree('{tree}')\"")}),
        ),
        (
            "bash",
            json!({"command": format!("perl -e 'unlink \"{file}\" or die \"unlink: $!\\n\"'")}),
        ),
        (
            "bash",
            json!({"command": format!("awk 'BEGIN{{system(\"rm -rf {tree}\")}}'")}),
        ),
        (
            "bash",
            json!({"command": format!("echo x | sed '1e rm -f {file}'")}),
        ),
        (
            "bash",
            json!({"command": format!("tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='rm -f {file}' hello.txt")}),
        ),
        (
            "bash",
            json!({"command": format!("python3 -c \"open('{file}', 'w').write('overwritten')\"")}),
        ),
        ("write", json!({"path": "clean.py", "content": script})),
        ("bash", json!({"command": "python3 clean.py"})),
        ("bash", json!({"command": format!("find '{tree}' -delete")})),
        // Inside the project, the same command does what it says.
        (
            "bash",
            json!({"command": "python3 -c \"open('made.txt', 'w').write('x')\" && echo made"}),
        ),
    ];
    let (out, results) = run(&root, &["--mode", "auto"], &[], &calls).await;
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("commands run in a sandbox (Landlock ABI"),
        "the start line: {stderr}"
    );
    assert!(
        canary.harm().is_empty(),
        "{:?}\n{results:#?}",
        canary.harm()
    );
    for (i, (tool, _)) in calls.iter().enumerate() {
        let result = results.get(&format!("c{i}")).cloned().unwrap_or_default();
        match (i, *tool) {
            (_, "write") => assert!(!result.contains("sandbox"), "c{i}: {result}"),
            (9, _) => assert!(result.contains("made"), "c{i}: {result}"),
            _ => assert!(
                result.contains("lembas's sandbox"),
                "c{i} is said to be the sandbox's doing: {result}"
            ),
        }
    }
    assert!(root.join("made.txt").is_file());
}

#[tokio::test]
async fn no_secret_of_the_home_or_of_lembas_reaches_the_model() {
    if no_landlock() {
        return;
    }
    let base = fresh_dir("lembas-sandbox-secrets");
    let home = base.join("home");
    let root = home.join("project");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::create_dir_all(home.join(".aws")).unwrap();
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(home.join(".ssh/id_ed25519"), "CANARY-PRIVATE-KEY").unwrap();
    std::fs::write(home.join(".aws/credentials"), "CANARY-AWS-SECRET").unwrap();
    std::fs::write(home.join("notes.txt"), "a note anyone may read").unwrap();
    let key = "sk-CANARY-API-KEY";
    let home_text = home.to_string_lossy().into_owned();
    // The path spelled so that no rule can read it from the line, as a hostile model would.
    let read = |path: &str| {
        let cut = path.rfind('/').unwrap_or(2) - 2;
        let (head, tail) = path.split_at(cut);
        format!("python3 -c \"import sys; sys.stdout.write(open('{head}' + '{tail}').read())\"")
    };
    let ancestors = "python3 -c \"import os\npid = os.getppid()\nfor _ in range(4):\n    try: print(open('/proc/%d/environ' % pid).read())\n    except Exception as e: print(e)\n    pid = int(open('/proc/%d/stat' % pid).read().split(') ')[1].split()[1])\"";
    let calls: Vec<(&str, Value)> = vec![
        (
            "bash",
            json!({"command": read(&format!("{home_text}/.ssh/id_ed25519"))}),
        ),
        (
            "bash",
            json!({"command": read(&format!("{home_text}/.aws/credentials"))}),
        ),
        ("bash", json!({"command": ancestors})),
        ("bash", json!({"command": "ps eww -o args= -p $PPID"})),
        (
            "bash",
            json!({"command": read(&format!("{home_text}/notes.txt"))}),
        ),
        (
            "bash",
            json!({"command": "echo \"[$OTHER_TOKEN][$SSH_AUTH_SOCK][$LANG]\""}),
        ),
    ];
    let (out, results) = run(
        &root,
        &["--mode", "auto"],
        &[
            ("HOME", &home_text),
            ("LEMBAS_API_KEY", key),
            ("OTHER_TOKEN", "ghp_CANARY-OTHER"),
            ("SSH_AUTH_SOCK", "/tmp/CANARY-agent.sock"),
            ("LANG", "C.UTF-8"),
        ],
        &calls,
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let all = format!("{results:?}");
    assert!(
        results["c5"].contains("[][][C.UTF-8]"),
        "no secret or agent socket in the environment: {}",
        results["c5"]
    );
    for secret in [
        "CANARY-PRIVATE-KEY",
        "CANARY-AWS-SECRET",
        key,
        "CANARY-OTHER",
    ] {
        assert!(!all.contains(secret), "{secret} reached the model: {all}");
    }
    assert!(
        results["c0"].contains("lembas's sandbox refused this command a read of"),
        "{}",
        results["c0"]
    );
    assert!(
        results["c4"].contains("a note anyone may read"),
        "the home's other files stay readable: {}",
        results["c4"]
    );
}

/// A listener on 127.0.0.1 that counts who connects.
async fn listener() -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let socket = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = socket.local_addr().unwrap().port();
    let heard = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = heard.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = socket.accept().await {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            use tokio::io::AsyncWriteExt;
            let _ = stream
                .write_all(b"HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\nok")
                .await;
        }
    });
    (port, heard)
}

#[tokio::test]
async fn with_the_network_off_no_command_connects() {
    if no_landlock() {
        return;
    }
    let root = common::project_with_hello("lembas-sandbox-network");
    let (port, heard) = listener().await;
    let calls: Vec<(&str, Value)> = vec![
        (
            "bash",
            json!({"command": format!("curl -s --max-time 5 http://127.0.0.1:{port}/")}),
        ),
        (
            "bash",
            json!({"command": format!("echo hi > /dev/tcp/127.0.0.1/{port}")}),
        ),
        (
            "bash",
            json!({"command": format!("python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 5)\"")}),
        ),
    ];
    let (out, results) = run(&root, &["--mode", "auto", "--no-network"], &[], &calls).await;
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert_eq!(
        heard.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "the listener heard a command: {results:#?}"
    );
    for id in ["c1", "c2"] {
        assert!(
            results[id].contains("a network connection"),
            "{id}: {}",
            results[id]
        );
    }
    // The same commands with the network on reach the listener: the test can fail.
    let (out, _) = run(&root, &["--mode", "auto"], &[], &calls[..1]).await;
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert_eq!(heard.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[tokio::test]
async fn git_status_runs_no_program_a_repository_names() {
    // Not the sandbox's (it runs where there is no Landlock too): git's own environment.
    let base = fresh_dir("lembas-sandbox-git");
    let marker = base.join("ran");
    let fsmonitor = format!(
        "[core]\n\tbare = true\n\tfsmonitor = \"touch {}\"\n",
        marker.display()
    );
    // A root laid out as a bare repository.
    let bare = base.join("bare");
    for dir in ["objects", "refs/heads"] {
        std::fs::create_dir_all(bare.join(dir)).unwrap();
    }
    std::fs::write(bare.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(bare.join("config"), &fsmonitor).unwrap();
    // A root whose `.git` is a file pointing at a repository with the same config.
    let linked = base.join("linked");
    let elsewhere = base.join("elsewhere.git");
    std::fs::create_dir_all(&linked).unwrap();
    let init = std::process::Command::new("git")
        .args(["init", "-q", "--bare"])
        .arg(&elsewhere)
        .status()
        .unwrap();
    assert!(init.success());
    std::fs::write(
        elsewhere.join("config"),
        fsmonitor.replace("bare = true", "bare = false"),
    )
    .unwrap();
    std::fs::write(
        linked.join(".git"),
        format!("gitdir: {}\n", elsewhere.display()),
    )
    .unwrap();
    std::fs::write(linked.join("a.txt"), "x").unwrap();
    for root in [&bare, &linked] {
        let calls: Vec<(&str, Value)> = vec![("bash", json!({"command": "git status"}))];
        let (out, results) = run(root, &["--mode", "plan"], &[], &calls).await;
        assert_eq!(out.status.code(), Some(0), "{}", said(&out));
        let said_by_git = if *root == bare {
            "safe.bareRepository"
        } else {
            "a.txt"
        };
        assert!(
            results["c0"].contains(said_by_git),
            "git ran and said so: {results:?}"
        );
        assert!(
            !marker.exists(),
            "{}: git ran the fsmonitor: {results:?}",
            root.display()
        );
    }
    // The same git, without lembas's environment, runs it: the test can fail.
    let ran = std::process::Command::new("git")
        .arg("status")
        .current_dir(&linked)
        .output()
        .unwrap();
    assert!(
        marker.exists(),
        "git itself ran no fsmonitor: {}",
        String::from_utf8_lossy(&ran.stderr)
    );
}

#[tokio::test]
async fn the_file_tools_write_through_no_link_out_of_the_root() {
    let base = fresh_dir("lembas-sandbox-links");
    let root = base.join("project");
    let outside = base.join("outside");
    std::fs::create_dir_all(root.join(".lembas/plans")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("system.conf"), CANARY_TEXT).unwrap();
    // Links a hostile command could have left: dangling ones to files outside, a hard link.
    std::os::unix::fs::symlink(outside.join("made.txt"), root.join("notes.txt")).unwrap();
    std::os::unix::fs::symlink(
        outside.join("plan-made.txt"),
        root.join(".lembas/plans/plan.md"),
    )
    .unwrap();
    std::fs::hard_link(outside.join("system.conf"), root.join("config.txt")).unwrap();
    let write = |path: &str| ("write", json!({"path": path, "content": "overwritten"}));
    let edit = (
        "edit",
        json!({"path": "config.txt", "old": "CANARY", "new": "X"}),
    );
    for (mode, calls) in [
        ("plan", vec![write(".lembas/plans/plan.md")]),
        (
            "auto",
            vec![write("notes.txt"), write("config.txt"), edit.clone()],
        ),
    ] {
        let (out, results) = run(&root, &["--mode", mode], &[], &calls).await;
        assert_eq!(out.status.code(), Some(0), "{}", said(&out));
        assert_eq!(results.len(), calls.len(), "{mode}: {results:?}");
        for (id, result) in &results {
            assert!(
                result.contains("symbolic link") || result.contains("hard links"),
                "{mode} {id}: {result}"
            );
        }
    }
    assert!(!outside.join("made.txt").exists());
    assert!(!outside.join("plan-made.txt").exists());
    assert_eq!(
        std::fs::read_to_string(outside.join("system.conf")).unwrap(),
        CANARY_TEXT
    );
}

#[tokio::test]
async fn a_plan_subagent_of_an_auto_main_agent_runs_under_plan_s_policy() {
    use common::scripted::{calls, rule, says, serve};
    if no_landlock() {
        return;
    }
    // A repository whose config names a program an allowed `git diff` runs: the floor, not the
    // rules, keeps it from writing.
    let root = common::project_with_hello("lembas-sandbox-subagent");
    let init = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&root)
        .status()
        .unwrap();
    assert!(init.success());
    std::fs::write(root.join("a.txt"), "a\n").unwrap();
    std::fs::write(root.join("b.txt"), "b\n").unwrap();
    let log = root.join("ran.log");
    let program = root.join("differ.sh");
    std::fs::write(
        &program,
        format!(
            "#!/bin/sh\necho ran >> '{}'\necho differ-ran\n",
            log.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = std::fs::read_to_string(root.join(".git/config")).unwrap();
    std::fs::write(
        root.join(".git/config"),
        format!("{config}[diff]\n\texternal = {}\n", program.display()),
    )
    .unwrap();
    let diff = json!({"command": "git diff --no-index a.txt b.txt"});
    let lead = "You are the main agent";
    let server = serve(
        vec![
            rule(lead, "Go.", calls("m1", "bash", diff.clone())),
            rule(
                lead,
                "differ-ran",
                calls(
                    "m2",
                    "team_add",
                    json!({"name": "reader", "role": "reads", "task": "Diff them.", "goal": "a diff", "mode": "plan"}),
                ),
            ),
            rule("You are \"reader\"", "Diff them.", calls("r1", "bash", diff)),
            rule(
                "You are \"reader\"",
                "",
                calls("r2", "team_finish", json!({"report": "Diffed."})),
            ),
            rule(lead, "Diffed.", says("Done.")),
            rule(lead, "", says("Waiting.")),
        ],
        0,
    )
    .await;
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_lembas"))
        .env("XDG_STATE_HOME", common::state_home())
        .args(["run", "--base-url", &server.url, "--model", "m"])
        .args(["--unattended", "--mode", "auto", "Go."])
        .current_dir(&root)
        .env_remove("LEMBAS_API_KEY")
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let ran = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(
        ran.lines().count(),
        1,
        "the main agent's run wrote, the plan subagent's did not: {ran:?}\n{}",
        said(&out)
    );
    let reader = server.bodies("You are \"reader\"");
    let results = format!("{reader:?}");
    assert!(
        results.contains("lembas's sandbox"),
        "the subagent was told the sandbox refused: {results:.3000}"
    );
}

#[tokio::test]
async fn lembas_itself_writes_nowhere_outside_what_the_session_needs() {
    if no_landlock() {
        return;
    }
    // In auto mode the rules allow a write outside the project: lembas, confined at start,
    // cannot make it.
    let canary = Canary::new("harness");
    let root = common::project_with_hello("lembas-sandbox-harness");
    let calls: Vec<(&str, Value)> = vec![
        (
            "write",
            json!({"path": canary.path("file.txt"), "content": "overwritten"}),
        ),
        (
            "edit",
            json!({"path": canary.path("tree/a.txt"), "old": "CANARY", "new": "X"}),
        ),
        ("write", json!({"path": "inside.txt", "content": "fine"})),
    ];
    let (out, results) = run(&root, &["--mode", "auto"], &[], &calls).await;
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(canary.harm().is_empty(), "{:?} {results:?}", canary.harm());
    for id in ["c0", "c1"] {
        assert!(
            results[id].contains("permission denied"),
            "{id}: {}",
            results[id]
        );
    }
    assert_eq!(
        std::fs::read_to_string(root.join("inside.txt")).unwrap(),
        "fine"
    );
}

#[tokio::test]
async fn a_command_cannot_leave_git_a_runner_for_the_person() {
    // Not the kernel's (it lets a command write anywhere in the project): lembas's guard.
    let root = common::project_with_hello("lembas-sandbox-hooks");
    let init = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&root)
        .status()
        .unwrap();
    assert!(init.success());
    let config = std::fs::read_to_string(root.join(".git/config")).unwrap();
    let script = "import os\nopen('.git/hooks/pre-commit', 'w').write('#!/bin/sh\\ncat ~/.ssh/id_rsa\\n')\nos.chmod('.git/hooks/pre-commit', 0o755)\nopen('.git/config', 'a').write('[core]\\n\\tfsmonitor = sh -c evil\\n')\n";
    let calls: Vec<(&str, Value)> = vec![
        ("write", json!({"path": "setup.py", "content": script})),
        ("bash", json!({"command": "python3 setup.py"})),
        ("bash", json!({"command": "git config user.name Someone"})),
    ];
    let (out, results) = run(&root, &["--mode", "auto"], &[], &calls).await;
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(!root.join(".git/hooks/pre-commit").exists(), "{results:?}");
    let now = std::fs::read_to_string(root.join(".git/config")).unwrap();
    assert!(!now.contains("fsmonitor"), "{now}");
    assert!(
        results["c1"].contains("put them back") && results["c1"].contains("put the file back"),
        "{}",
        results["c1"]
    );
    // An ordinary setting stays.
    assert!(now.contains("Someone") && now.starts_with(&config), "{now}");
}
