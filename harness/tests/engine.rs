#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! The engine against a fake server on 127.0.0.1: a turn with a tool call, its phases, and a
//! call the rules refuse going back to the model as the tool's result.

mod common;
use common::{content, fake, tool_call, Answer};

use lembas_harness::call::CallStatus;
use lembas_harness::engine::{Approval, Asker, Engine, Question, Unattended};
use lembas_harness::events::{AgentRef, SessionEvent as Event};
use lembas_harness::provider::client::Provider;
use lembas_harness::tools::Workspace;
use lembas_rules::permission::{Context, Mode};
use serde_json::{json, Value};

fn project(name: &str) -> Workspace {
    Workspace::new(common::project_with_hello(&format!("lembas-engine-{name}")))
}

fn context(w: &Workspace, mode: Mode) -> Context {
    let mut c = Context::new(mode);
    c.root = w.root.to_string_lossy().into_owned();
    c
}

const DONE: &str = "[DONE]";

/// An engine on the server at `url`, working in `w` in `mode`.
fn engine_on(url: &str, w: &Workspace, mode: Mode, asker: Box<dyn Asker>) -> Engine {
    Engine::new(
        Provider::new(url, None),
        "m",
        w.clone(),
        context(w, mode),
        asker,
    )
}

/// A turn in which the model makes one call and then says `then`: the project and the second
/// request's body (which carries the call's result).
async fn one_call(
    name: &str,
    mode: Mode,
    asker: Box<dyn Asker>,
    tool: &str,
    args: Value,
    then: &str,
) -> (Workspace, Engine, Value) {
    let (url, bodies) = fake(vec![
        Answer::Sse(vec![tool_call("c1", tool, args), DONE.into()]),
        Answer::Sse(vec![content(then), DONE.into()]),
    ])
    .await;
    let w = project(name);
    let mut engine = engine_on(&url, &w, mode, asker);
    engine.turn("Go.", &mut |_| {}).await.unwrap();
    let second: Value = serde_json::from_str(&bodies.lock().unwrap()[1]).unwrap();
    (w, engine, second)
}

fn tool_result(body: &Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn a_turn_with_a_tool_call_and_its_phases() {
    let (url, bodies) = fake(vec![
        Answer::Sse(vec![tool_call("c1", "list", json!({})), DONE.into()]),
        Answer::Sse(vec![
            content("There is "),
            content("hello.txt."),
            DONE.into(),
        ]),
    ])
    .await;
    let w = project("list");
    let mut engine = engine_on(&url, &w, Mode::Edit, Box::new(Unattended));
    let mut events = Vec::new();
    let end = engine
        .turn("What is here?", &mut |e| events.push(e))
        .await
        .unwrap();
    assert_eq!(end.reply, "There is hello.txt.");
    assert_eq!(end.steps, 2);
    assert!(events.contains(&Event::ToolEnd {
        agent: AgentRef::main(),
        id: "lead-1".into(),
        tool: "list".into(),
        status: CallStatus::Completed,
        output: "hello.txt".into(),
        diff: None,
        found: Vec::new(),
    }));
    let phases: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::Phase { progress: p, .. } => Some(
                p.as_ref()
                    .map_or("null".to_string(), |p| p.phase.name().to_string()),
            ),
            _ => None,
        })
        .collect();
    assert_eq!(phases.first().map(String::as_str), Some("reading_prompt"));
    assert!(phases.contains(&"running_tool".to_string()), "{phases:?}");
    assert!(phases.contains(&"writing".to_string()), "{phases:?}");
    assert_eq!(phases.last().map(String::as_str), Some("null"));
    // The tool's result went back to the model with its call's id.
    let second: Value = serde_json::from_str(&bodies.lock().unwrap()[1]).unwrap();
    let tool_msg = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()
        .clone();
    assert_eq!(tool_msg["tool_call_id"], "c1");
    assert_eq!(tool_msg["content"], "hello.txt");
    // The tools come from the spec data.
    let names: Vec<&str> = second["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["read", "write", "edit", "list", "glob", "grep", "bash"]
    );
}

#[tokio::test]
async fn what_the_rules_refuse_goes_back_as_the_result_and_nothing_runs() {
    let (w, _, second) = one_call(
        "hardline",
        Mode::Auto,
        Box::new(Says(Approval::Once)),
        "bash",
        json!({"command": "rm -rf / && touch made.txt"}),
        "I may not.",
    )
    .await;
    assert!(!w.root.join("made.txt").exists());
    let line = "rm -rf / && touch made.txt";
    let decision = lembas_rules::permission::evaluate(
        &lembas_rules::permission::Request::bash(line),
        &context(&w, Mode::Auto),
    );
    assert_eq!(decision.action, lembas_rules::permission::Action::Deny);
    assert_eq!(
        tool_result(&second),
        decision.reason,
        "the refusal's own text"
    );
}

#[tokio::test]
async fn an_always_allow_runs_the_call_and_is_kept() {
    let (w, engine, second) = one_call(
        "ask",
        Mode::Manual,
        Box::new(Says(Approval::Always)),
        "bash",
        json!({"command": "echo one > made.txt"}),
        "Made.",
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(w.root.join("made.txt")).unwrap(),
        "one\n"
    );
    assert_eq!(tool_result(&second), "");
    assert!(!engine.permissions().lock().unwrap().approvals.is_empty());
}

#[tokio::test]
async fn unattended_refuses_what_would_ask() {
    let (w, _, second) = one_call(
        "unattended",
        Mode::Manual,
        Box::new(Unattended),
        "write",
        json!({"path": "x.txt", "content": "x"}),
        "Could not.",
    )
    .await;
    assert!(!w.root.join("x.txt").exists());
    assert_eq!(
        tool_result(&second),
        lembas_rules::spec::spec().modes_file.reasons.person
    );
}

struct Says(Approval);

impl Asker for Says {
    fn ask(&self, _question: &Question<'_>) -> Approval {
        self.0
    }
}

#[tokio::test]
async fn two_reads_of_one_step_run_and_answer_in_the_order_called() {
    let two = json!({"choices": [{"delta": {"tool_calls": [
        {"index": 0, "id": "a", "type": "function", "function": {"name": "read", "arguments": "{\"path\": \"one.txt\"}"}},
        {"index": 1, "id": "b", "type": "function", "function": {"name": "grep", "arguments": "{\"pattern\": \"two\"}"}}
    ]}}]});
    let (url, bodies) = fake(vec![
        Answer::Sse(vec![two.to_string(), DONE.into()]),
        Answer::Sse(vec![content("Read both."), DONE.into()]),
    ])
    .await;
    let w = project("parallel");
    std::fs::write(w.root.join("one.txt"), "first\n").unwrap();
    std::fs::write(w.root.join("two.txt"), "two\n").unwrap();
    let mut engine = engine_on(&url, &w, Mode::Manual, Box::new(Unattended));
    let mut started = Vec::new();
    engine
        .turn("Read.", &mut |e| {
            if let Event::ToolStart { call, .. } = e {
                started.push(call.tool);
            }
        })
        .await
        .unwrap();
    assert_eq!(started, ["read", "grep"]);
    let second: Value = serde_json::from_str(&bodies.lock().unwrap()[1]).unwrap();
    let results: Vec<(&str, &str)> = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap(),
                m["content"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].0, "a");
    assert!(results[0].1.contains("first"), "{results:?}");
    assert_eq!(results[1], ("b", "two.txt:1: two"));
}

#[tokio::test]
async fn the_phase_while_a_chunk_is_held_back_is_the_live_one() {
    use common::scripted::{rule, serve, Reply};
    let gate = std::sync::Arc::new(tokio::sync::Semaphore::new(0));
    let reasoning = json!({"choices": [{"delta": {"reasoning_content": "hmm"}}]}).to_string();
    let server = serve(
        vec![rule(
            "",
            "",
            Reply::Hold(
                vec![reasoning],
                gate.clone(),
                vec![content("Done."), DONE.into()],
            ),
        )],
        0,
    )
    .await;
    let w = project("gate");
    let mut engine = engine_on(&server.url, &w, Mode::Edit, Box::new(Unattended));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let turn = tokio::spawn(async move {
        engine
            .turn("Think.", &mut |e| {
                if let Event::Phase { progress: p, .. } = e {
                    let _ = tx.send(p.map(|p| p.phase.name()));
                }
            })
            .await
    });
    // While the rest is held back, the engine says it is thinking — not after the stream.
    let mut seen = Vec::new();
    while seen.last() != Some(&Some("thinking")) {
        let p = tokio::time::timeout(std::time::Duration::from_secs(5), rx.recv())
            .await
            .expect("the phase arrives while the stream is held")
            .unwrap();
        seen.push(p);
    }
    assert_eq!(seen, [Some("reading_prompt"), Some("thinking")]);
    gate.add_permits(1);
    let end = turn.await.unwrap().unwrap();
    assert_eq!(end.reply, "Done.");
    let mut rest = Vec::new();
    while let Some(p) = rx.recv().await {
        rest.push(p);
    }
    assert_eq!(rest.last(), Some(&None), "{rest:?}");
}

/// The phases a turn says against `script`, and how it ended.
async fn phases_of(name: &str, script: Vec<Answer>) -> (Vec<Value>, Result<String, String>) {
    let (url, _) = fake(script).await;
    let w = project(name);
    let mut engine = engine_on(&url, &w, Mode::Edit, Box::new(Unattended));
    let mut phases = Vec::new();
    let end = engine
        .turn("Go.", &mut |e| {
            if let Event::Phase { progress: p, .. } = e {
                phases.push(serde_json::to_value(p).unwrap());
            }
        })
        .await;
    (phases, end.map(|e| e.reply).map_err(|e| e.to_string()))
}

#[tokio::test]
async fn a_502_twice_then_success_is_said_as_retrying_then_the_reply() {
    let (phases, end) = phases_of(
        "retry",
        vec![
            Answer::Status(502, "{\"error\": \"bad gateway\"}"),
            Answer::Status(502, "{\"error\": \"bad gateway\"}"),
            Answer::Sse(vec![content("Fine."), DONE.into()]),
        ],
    )
    .await;
    assert_eq!(end, Ok("Fine.".to_string()));
    let retrying: Vec<&Value> = phases.iter().filter(|p| p["phase"] == "retrying").collect();
    assert!(!retrying.is_empty(), "{phases:?}");
    assert!(retrying
        .iter()
        .all(|p| p["reason"].as_str().unwrap().starts_with("502")));
    assert_eq!(retrying.last().unwrap()["attempt"], 2);
    assert_eq!(phases.last(), Some(&Value::Null));
}

#[tokio::test]
async fn a_stream_cut_in_the_middle_fails_the_turn_in_one_line() {
    let (phases, end) = phases_of("cut", vec![Answer::Cut(vec![content("Half")])]).await;
    let err = end.unwrap_err();
    assert!(!err.contains('\n'), "{err}");
    let last = phases.last().unwrap();
    assert_eq!(last["phase"], "failed", "{phases:?}");
    assert!(!last["reason"].as_str().unwrap().is_empty());
}

#[tokio::test]
async fn an_edit_is_judged_as_a_read_too_and_a_hidden_files_old_text_is_not_shown() {
    let (url, bodies) = fake(vec![
        Answer::Sse(vec![
            tool_call(
                "c1",
                "edit",
                json!({"path": ".env", "old": "API=C", "new": "API=C"}),
            ),
            DONE.into(),
        ]),
        Answer::Sse(vec![
            tool_call("c2", "write", json!({"path": ".env", "content": "new\n"})),
            DONE.into(),
        ]),
        Answer::Sse(vec![content("Done."), DONE.into()]),
    ])
    .await;
    let w = project("edit-reads");
    // The workspace reads the session's rules, as a session's does.
    let rules = std::sync::Arc::new(std::sync::Mutex::new(context(&w, Mode::Edit)));
    let w = w.with_permissions(rules);
    std::fs::write(w.root.join(".env"), "API=CANARY\n").unwrap();
    // Edit mode allows edits; reading .env asks, and nobody answers here.
    let mut engine = engine_on(&url, &w, Mode::Edit, Box::new(Unattended));
    let mut events = Vec::new();
    engine.turn("Go.", &mut |e| events.push(e)).await.unwrap();
    let second: Value = serde_json::from_str(&bodies.lock().unwrap()[1]).unwrap();
    // The edit did not run: its answer says nothing of what the file holds.
    assert_eq!(
        tool_result(&second),
        lembas_rules::spec::spec().modes_file.reasons.person
    );
    // The write ran (edit mode writes without asking), and its diff does not show the old text.
    assert_eq!(
        std::fs::read_to_string(w.root.join(".env")).unwrap(),
        "new\n"
    );
    let diff = events
        .iter()
        .find_map(|e| match e {
            Event::ToolEnd { diff: Some(d), .. } => Some(d.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(diff.old.as_deref(), Some(lembas_harness::engine::NOT_SHOWN));
    assert!(!format!("{events:?}").contains("CANARY"));
}

#[tokio::test]
async fn the_plan_is_written_where_it_is_said_to_be_never_through_a_link() {
    let steps = json!({"title": "Plan", "steps": ["One"]});
    let (url, bodies) = fake(vec![
        Answer::Sse(vec![
            tool_call("p1", "plan_write", steps.clone()),
            DONE.into(),
        ]),
        Answer::Sse(vec![content("Tried."), DONE.into()]),
        Answer::Sse(vec![tool_call("p2", "plan_write", steps), DONE.into()]),
        Answer::Sse(vec![content("Written."), DONE.into()]),
    ])
    .await;
    let w = project("plan-link");
    std::fs::create_dir_all(w.root.join("src")).unwrap();
    std::fs::create_dir_all(w.root.join(".lembas")).unwrap();
    std::os::unix::fs::symlink("../src", w.root.join(".lembas/plans")).unwrap();
    let desk = lembas_harness::engine::PlanDesk {
        plan: std::sync::Arc::default(),
        file: ".lembas/plans/t.md".into(),
    };
    let mut engine = engine_on(&url, &w, Mode::Plan, Box::new(Unattended)).with_plan(desk.clone());
    engine.turn("Plan it.", &mut |_| {}).await.unwrap();
    let second: Value = serde_json::from_str(&bodies.lock().unwrap()[1]).unwrap();
    assert!(
        tool_result(&second).contains("a link on the way"),
        "{second}"
    );
    assert!(
        !w.root.join("src/t.md").exists(),
        "the plan went through the link"
    );
    assert!(desk.plan.lock().unwrap().is_none());
    // Without the link, it is written, in plan mode.
    std::fs::remove_file(w.root.join(".lembas/plans")).unwrap();
    engine.turn("Again.", &mut |_| {}).await.unwrap();
    assert_eq!(
        std::fs::read_to_string(w.root.join(".lembas/plans/t.md")).unwrap(),
        "# Plan\n\n1. [ ] One\n"
    );
}

#[tokio::test]
async fn greps_hits_are_places_a_client_can_follow() {
    let (url, _) = fake(vec![
        Answer::Sse(vec![
            tool_call("g1", "grep", json!({"pattern": "needle"})),
            DONE.into(),
        ]),
        Answer::Sse(vec![content("Found."), DONE.into()]),
    ])
    .await;
    let w = project("grep-hits");
    std::fs::write(w.root.join("hay.txt"), "straw\nneedle\nstraw\n").unwrap();
    let mut engine = engine_on(&url, &w, Mode::Edit, Box::new(Unattended));
    let mut events = Vec::new();
    engine
        .turn("Find it.", &mut |e| events.push(e))
        .await
        .unwrap();
    let found = events
        .iter()
        .find_map(|e| match e {
            Event::ToolEnd { found, .. } if !found.is_empty() => Some(found.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].path, w.root.join("hay.txt").to_string_lossy());
    assert_eq!(found[0].line, Some(2));
}
