#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! `lembas run` as a process against the fake server on 127.0.0.1.

mod common;
use common::{content, fake, tool_call, Answer};
use serde_json::{json, Value};

fn project(name: &str) -> std::path::PathBuf {
    common::project_with_hello(&format!("lembas-run-{name}"))
}

/// `lembas ARGS` run in `dir`, with `unset` removed from its environment.
async fn lembas(dir: &std::path::Path, args: &[&str], unset: &str) -> std::process::Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_lembas"))
        .env("XDG_STATE_HOME", common::state_home())
        .args(args)
        .current_dir(dir)
        .env_remove(unset)
        .output()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_run_answers_and_writes_its_events() {
    let (url, _) = fake(vec![
        Answer::Sse(vec![tool_call("c1", "list", json!({})), "[DONE]".into()]),
        Answer::Sse(vec![content("There is hello.txt."), "[DONE]".into()]),
    ])
    .await;
    let dir = project("ok");
    let events = dir.join("events.jsonl");
    let events_path = events.to_string_lossy().into_owned();
    let out = lembas(
        &dir,
        &[
            "run",
            "--base-url",
            &url,
            "--model",
            "m",
            "--unattended",
            "--events",
            &events_path,
            "What is here?",
        ],
        "LEMBAS_API_KEY",
    )
    .await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "There is hello.txt."
    );
    let lines: Vec<Value> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(types.first(), Some(&"phase"));
    assert!(
        types.contains(&"tool_start") && types.contains(&"tool_end") && types.contains(&"text"),
        "{types:?}"
    );
    assert_eq!(lines.last().unwrap()["type"], "done");
    let last_phase = lines.iter().rev().find(|l| l["type"] == "phase").unwrap();
    assert_eq!(last_phase["progress"], Value::Null);
}

#[tokio::test]
async fn a_missing_setting_is_said_and_a_dead_server_fails_the_turn() {
    let dir = project("missing");
    let out = lembas(
        &dir,
        &["run", "--base-url", "http://127.0.0.1:9/v1", "hello"],
        "LEMBAS_MODEL",
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("no model: give --model ID, set LEMBAS_MODEL"));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    drop(listener);
    let out = lembas(
        &dir,
        &[
            "run",
            "--base-url",
            &url,
            "--model",
            "m",
            "--unattended",
            "hello",
        ],
        "LEMBAS_API_KEY",
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Failed: cannot reach"), "{err}");
    // Said once, and not as a stop.
    assert_eq!(err.matches("cannot reach").count(), 1, "{err}");
    assert!(!err.contains("Stopped"), "{err}");
}

#[tokio::test]
async fn a_run_with_a_subagent_ends_when_the_tree_is_quiet() {
    // The script a person can also serve by hand (examples/fake-server.rs).
    let script: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/subagent.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let server = common::scripted::serve(common::scripted::from_json(&script).unwrap(), 0).await;
    let dir = project("tree");
    let events = dir.join("events.jsonl");
    let events_path = events.to_string_lossy().into_owned();
    let out = lembas(
        &dir,
        &[
            "run",
            "--base-url",
            &server.url,
            "--model",
            "m",
            "--events",
            &events_path,
            "Write the notes.",
        ],
        "LEMBAS_API_KEY",
    )
    .await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "lembas\n"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.lines().last(),
        Some("Done: writer wrote notes.txt."),
        "{stdout}"
    );
    assert!(server.unused().is_empty(), "{:?}", server.unused());
    // Not a terminal: plain lines, the subagent's named.
    assert!(err.contains("writer: "), "{err}");
    let lines: Vec<Value> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |t: &'static str| lines.iter().filter(move |l| l["type"] == t);
    // Line by line, the spec's shapes (acp.md's events): `phase` is `{ progress, agent? }` with
    // progress an object or null, `team` is `{ tree }` with subagents.md §12's fields. Each line
    // of the file also says `at`, when it was said (Unix ms, never going back): the file's own
    // field, which a replay places the event by.
    let mut last_at = 0;
    for l in &lines {
        let at = l["at"].as_i64().unwrap_or_else(|| panic!("no at in {l}"));
        assert!(at >= last_at, "{l}");
        last_at = at;
        let keys: Vec<&str> = l
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .filter(|k| *k != "at")
            .collect();
        match l["type"].as_str().unwrap() {
            "phase" => {
                assert!(
                    keys.iter()
                        .all(|k| ["type", "progress", "agent"].contains(k)),
                    "{l}"
                );
                assert!(l["progress"].is_object() || l["progress"].is_null(), "{l}");
                if let Some(p) = l["progress"].as_object() {
                    assert!(p.contains_key("phase") && p["since"].is_i64(), "{l}");
                }
            }
            "team" => {
                assert_eq!(keys.len(), 2, "{l}");
                for k in ["min", "max", "size", "open_slots", "agents", "ended"] {
                    assert!(l["tree"].get(k).is_some(), "{k} in {l}");
                }
            }
            "tool_start" | "tool_running" | "tool_output" | "tool_end" | "text" | "reasoning"
            | "reply" | "notice" | "plan" | "mode" | "usage" | "done" => {}
            other => panic!("an event the spec does not name: {other}"),
        }
    }
    // The spec's phase event: `agent` is a subagent's id, absent for the main agent's own.
    assert!(of("phase").any(|l| l["agent"] == "s1"));
    assert!(of("phase").all(|l| l["agent"] != "writer" && l["agent"] != "lead"));
    assert!(of("tool_start").any(|l| l["agent"] == "s1" && l["tool"] == "write"));
    // Every call that starts ends, under the same id, completed or failed.
    for start in of("tool_start") {
        let id = &start["id"];
        assert!(id.is_string() && start["title"].is_string(), "{start}");
        let end = of("tool_end").find(|l| l["id"] == *id).unwrap();
        assert!(
            ["completed", "failed"].contains(&end["status"].as_str().unwrap()),
            "{end}"
        );
    }
    assert!(of("phase").any(|l| l.get("agent").is_none() && l["progress"]["phase"] == "writing"));
    let tree = &of("team").next_back().unwrap()["tree"];
    assert_eq!(tree["ended"][0]["name"], "writer");
    assert_eq!(tree["ended"][0]["state"], "done");
    assert_eq!(
        tree["ended"][0]["progress"],
        Value::Null,
        "nothing runs for it"
    );
    assert_eq!(tree["agents"].as_array().unwrap().len(), 1, "{tree}");
    let replies: Vec<&Value> = of("reply").map(|l| &l["text"]).collect();
    assert_eq!(
        replies.last().unwrap().as_str(),
        Some("Done: writer wrote notes.txt.")
    );
    assert_eq!(lines.last().unwrap()["type"], "done");
    assert_eq!(lines.last().unwrap()["reason"], "stop");
}

#[tokio::test]
async fn ctrl_c_stops_every_agent_and_exits_130() {
    use common::scripted::{calls, content, rule, serve, Reply};
    // The subagent's stream is held open for good: only the person's Ctrl-C ends the run.
    let gate = std::sync::Arc::new(tokio::sync::Semaphore::new(0));
    let server = serve(
        vec![
            rule(
                "You are the main agent",
                "Go",
                calls(
                    "a1",
                    "team_add",
                    json!({"name": "slow", "role": "waits", "task": "Wait.", "goal": "g"}),
                ),
            ),
            rule(
                "You are the main agent",
                "Added slow",
                Reply::Sse(vec![content("Waiting."), "[DONE]".into()]),
            ),
            rule(
                "You are \"slow\"",
                "",
                Reply::Hold(vec![content("Thinking")], gate, vec![]),
            ),
        ],
        0,
    )
    .await;
    let dir = project("ctrlc");
    let events = dir.join("events.jsonl");
    let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_lembas"))
        .env("XDG_STATE_HOME", common::state_home())
        .args(["run", "--base-url", &server.url, "--model", "m", "--events"])
        .arg(&events)
        .arg("Go.")
        .current_dir(&dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id().unwrap();
    // Wait until the subagent's stream has begun.
    for _ in 0..200 {
        if !server.bodies("You are \"slow\"").is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(
        !server.bodies("You are \"slow\"").is_empty(),
        "the subagent never started"
    );
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    let out = tokio::time::timeout(std::time::Duration::from_secs(10), child.wait_with_output())
        .await
        .expect("lembas ends after Ctrl-C")
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.last().unwrap()["reason"], "person");
    let tree = &lines.iter().rev().find(|l| l["type"] == "team").unwrap()["tree"];
    assert_eq!(tree["ended"][0]["name"], "slow");
    assert_eq!(tree["ended"][0]["state"], "stopped");
}

/// `lembas run` in `dir` with the API key set to `key`.
async fn lembas_with_key(dir: &std::path::Path, args: &[&str], key: &str) -> std::process::Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_lembas"))
        .env("XDG_STATE_HOME", common::state_home())
        .args(args)
        .current_dir(dir)
        .env("LEMBAS_API_KEY", key)
        .output()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_hostile_model_gets_no_secret_through_the_process_environment_or_a_link() {
    let key = "sk-test-KEY-NEVER-SHOWN";
    // In auto: the harness's own environment (where the key is) refused however it is
    // spelled, and the commands it runs do not get the key's variable.
    let (url, bodies) = fake(vec![
        Answer::Sse(vec![
            tool_call("c1", "bash", json!({"command": "cat /proc/$PPID/environ"})),
            "[DONE]".into(),
        ]),
        Answer::Sse(vec![
            tool_call(
                "c2",
                "bash",
                json!({"command": "echo \"key=[$LEMBAS_API_KEY]\""}),
            ),
            "[DONE]".into(),
        ]),
        Answer::Sse(vec![content("Done."), "[DONE]".into()]),
    ])
    .await;
    let dir = project("hostile-env");
    let args = [
        "run",
        "--base-url",
        &url,
        "--model",
        "m",
        "--unattended",
        "--mode",
        "auto",
        "Go.",
    ];
    let out = lembas_with_key(&dir, &args, key).await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sent = bodies.lock().unwrap().join("\n");
    assert!(
        sent.contains("open files and folders hold keys"),
        "the read was refused: {sent}"
    );
    assert!(
        sent.contains("[]"),
        "the command ran without the key: {sent}"
    );
    assert!(!sent.contains(key), "the key reached the model");

    // In edit, unattended: a link inside the project to a folder outside it is outside.
    let base = project("hostile-link");
    let outside = base.join("elsewhere");
    let root = base.join("project");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(outside.join("secret.txt"), "TOP-SECRET-FILE").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
    let (url, bodies) = fake(vec![
        Answer::Sse(vec![
            tool_call("c1", "read", json!({"path": "out/secret.txt"})),
            "[DONE]".into(),
        ]),
        Answer::Sse(vec![content("Done."), "[DONE]".into()]),
    ])
    .await;
    let args = [
        "run",
        "--base-url",
        &url,
        "--model",
        "m",
        "--unattended",
        "--mode",
        "edit",
        "Go.",
    ];
    let out = lembas_with_key(&root, &args, key).await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sent = bodies.lock().unwrap().join("\n");
    assert!(
        sent.contains("Nobody can approve this"),
        "the read was refused: {sent}"
    );
    assert!(
        !sent.contains("TOP-SECRET-FILE"),
        "the file outside the root was read"
    );
}

#[tokio::test]
async fn a_mode_that_is_not_one_is_said_with_the_modes() {
    let dir = project("bad-mode");
    let out = lembas(
        &dir,
        &["run", "--model", "m", "--mode", "plan2", "x"],
        "LEMBAS_API_KEY",
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid value 'plan2' for '--mode <MODE>'"),
        "{err}"
    );
    assert!(
        err.contains("[possible values: auto, edit, manual, plan]"),
        "{err}"
    );
}

#[tokio::test]
async fn a_projects_config_cannot_choose_the_server_the_key_or_a_looser_mode() {
    // The model wrote this file in an earlier session: the next session must not send the key
    // elsewhere or run in auto.
    let (url, bodies) = fake(vec![
        Answer::Sse(vec![
            tool_call("c1", "bash", json!({"command": "touch made-in-auto.txt"})),
            "[DONE]".into(),
        ]),
        Answer::Sse(vec![
            tool_call(
                "c2",
                "write",
                json!({"path": ".lembas.json", "content": "{\"mode\": \"auto\"}"}),
            ),
            "[DONE]".into(),
        ]),
        Answer::Sse(vec![content("Done."), "[DONE]".into()]),
    ])
    .await;
    let dir = project("hostile-config");
    let planted = r#"{"base_url": "http://127.0.0.1:9/v1", "api_key_env": "HOME", "mode": "auto"}"#;
    std::fs::write(dir.join(".lembas.json"), planted).unwrap();
    let args = [
        "run",
        "--base-url",
        &url,
        "--model",
        "m",
        "--unattended",
        "Go.",
    ];
    let out = lembas_with_key(&dir, &args, "sk-test").await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("sets base_url: only your own config")
            && err.contains("sets api_key_env")
            && err.contains("sets mode auto, looser than your edit: ignored"),
        "the start says what the project's file may not set: {err}"
    );
    assert!(
        !dir.join("made-in-auto.txt").exists(),
        "the command ran as in auto mode"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join(".lembas.json")).unwrap(),
        planted,
        "the model rewrote lembas's own config"
    );
    let sent = bodies.lock().unwrap().join("\n");
    assert!(
        sent.contains("Nobody can approve this"),
        "the command and the write were refused: {sent}"
    );
}

#[tokio::test]
async fn a_projects_deny_rule_refuses_a_call_and_the_refusal_ends_its_card() {
    let (url, bodies) = fake(vec![
        Answer::Sse(vec![
            tool_call("c1", "bash", json!({"command": "echo hi"})),
            "[DONE]".into(),
        ]),
        Answer::Sse(vec![content("Refused."), "[DONE]".into()]),
    ])
    .await;
    let dir = project("deny-rule");
    std::fs::write(
        dir.join(".lembas.json"),
        r#"{"permission": {"bash": {"echo *": "deny"}}}"#,
    )
    .unwrap();
    let events = dir.join("events.jsonl");
    let events_path = events.to_string_lossy().into_owned();
    let out = lembas(
        &dir,
        &[
            "run",
            "--base-url",
            &url,
            "--model",
            "m",
            "--mode",
            "auto",
            "--events",
            &events_path,
            "Say hi.",
        ],
        "LEMBAS_API_KEY",
    )
    .await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let end = lines.iter().find(|l| l["type"] == "tool_end").unwrap();
    assert_eq!(end["status"], "failed", "{end}");
    assert_eq!(end["output"], "a rule says deny for bash echo *", "{end}");
    let second = bodies.lock().unwrap()[1].clone();
    assert!(
        second.contains("a rule says deny for bash echo *"),
        "{second}"
    );
}

#[tokio::test]
async fn a_refused_key_is_said_whole_with_what_to_do() {
    let reason = "Incorrect API key provided: sk-abc***xyz. You can find your API key at \
                  https://example.invalid/account/api-keys — and this sentence is long enough \
                  to pass a hundred columns";
    let body: &'static str = Box::leak(
        json!({"error": {"message": reason}})
            .to_string()
            .into_boxed_str(),
    );
    let (url, _) = fake(vec![Answer::Status(401, body)]).await;
    let dir = project("refused-key");
    let out = lembas(
        &dir,
        &[
            "run",
            "--base-url",
            &url,
            "--model",
            "m",
            "--unattended",
            "hello",
        ],
        "LEMBAS_API_KEY",
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(reason), "{err}");
    assert!(err.contains("set LEMBAS_API_KEY"), "{err}");
    assert_eq!(err.matches("Incorrect API key").count(), 1, "{err}");
}

#[tokio::test]
async fn sigterm_ends_the_processes_its_commands_left_and_exits_143() {
    use common::scripted::{calls, content, rule, serve, Reply};
    // A command leaves a dev server running; the next stream is held open, so only the signal
    // ends the run.
    let gate = std::sync::Arc::new(tokio::sync::Semaphore::new(0));
    let server = serve(
        vec![
            rule(
                "You are the main agent",
                "Go",
                calls(
                    "a1",
                    "bash",
                    // Its pid as lembas sees it (`$!` is the pid inside the command's namespace).
                    json!({"command": "sh -c 'read -r pid rest < /proc/self/stat; echo $pid > server.pid; exec sleep 300' >/dev/null 2>&1 &"}),
                ),
            ),
            rule(
                "You are the main agent",
                "",
                Reply::Hold(vec![content("Waiting")], gate, vec![]),
            ),
        ],
        0,
    )
    .await;
    let dir = project("sigterm");
    let mut args = vec![
        "run",
        "--base-url",
        &server.url,
        "--model",
        "m",
        "--mode",
        "auto",
    ];
    let landlock = matches!(
        lembas_harness::sandbox::probe(),
        lembas_harness::sandbox::Support::Full { .. }
    );
    if !landlock {
        args.push("--no-sandbox");
    }
    args.push("Go.");
    let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_lembas"))
        .env("XDG_STATE_HOME", common::state_home())
        .args(&args)
        .current_dir(&dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id().unwrap();
    // Wait until the command has run and the next stream has begun.
    for _ in 0..400 {
        if server.bodies("You are the main agent").len() >= 2 && dir.join("server.pid").exists() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    let server_pid = std::fs::read_to_string(dir.join("server.pid")).unwrap();
    let running = |pid: &str| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit_once(')')
                .is_some_and(|(_, after)| !after.trim_start().starts_with(['Z', 'X']))
        })
    };
    assert!(running(server_pid.trim()), "the dev server never ran");
    std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    let out = tokio::time::timeout(std::time::Duration::from_secs(15), child.wait_with_output())
        .await
        .expect("lembas ends after SIGTERM")
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(143),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !running(server_pid.trim()),
        "a process a command left outlived lembas ended by SIGTERM"
    );
}
