#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! The tree at work against a scripted server on 127.0.0.1 (a script per agent, told apart by
//! its system prompt): a subagent added, working in its own task, reporting, and waking the main
//! agent; a narrowed subagent's request decided by the main agent; a subagent's call reaching
//! the person; a context that fills.

mod common;
use common::scripted::{call, calls, content, rule, says, serve, usage, Reply, Server};

use lembas_harness::crew::{Crew, SessionEnd, Setup};
use lembas_harness::engine::{Approval, Asker, PlanDesk, Question};
use lembas_harness::events::SessionEvent as Out;
use lembas_harness::provider::client::Provider;
use lembas_harness::tools::Workspace;
use lembas_rules::permission::{Context, Mode};
use lembas_rules::spec::loop_spec;
use lembas_rules::team::{AgentState, TeamOptions};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const LEAD: &str = "You are the main agent";

fn project(name: &str) -> Workspace {
    Workspace::new(common::project_with_hello(&format!("lembas-team-{name}")))
}

/// Answers every approval with `answer`, and keeps who asked for what.
struct Person {
    answer: Approval,
    asked: Mutex<Vec<(String, String, String)>>,
}

impl Asker for Person {
    fn ask(&self, question: &Question<'_>) -> Approval {
        self.asked.lock().unwrap().push((
            question.agent.name.clone(),
            question.call.tool.clone(),
            question.call.what.clone(),
        ));
        self.answer
    }
}

struct Run {
    outcome: SessionEnd,
    outs: Vec<Out>,
    tree: lembas_rules::team::view::TreeInfo,
}

async fn session(
    server: &Server,
    w: &Workspace,
    mode: Mode,
    window: Option<u64>,
    asker: Arc<dyn Asker>,
    prompt: &str,
) -> Run {
    let options = TeamOptions {
        min: 1,
        max: 4,
        model: "m".into(),
        mode,
        ..TeamOptions::default()
    };
    session_with(server, w, window, asker, prompt, options).await
}

/// A session of a tree started with `options`, until it is over: how it ended, everything it
/// said, and its tree at the end.
async fn session_with(
    server: &Server,
    w: &Workspace,
    window: Option<u64>,
    asker: Arc<dyn Asker>,
    prompt: &str,
    options: TeamOptions,
) -> Run {
    let mut permissions = Context::new(options.mode);
    permissions.root = w.root.to_string_lossy().into_owned();
    let setup = Setup {
        provider: Provider::new(&server.url, None),
        workspace: w.clone(),
        permissions: Arc::new(Mutex::new(permissions)),
        asker,
        window,
        system: "You are lembas.".into(),
        plan: PlanDesk {
            plan: Arc::default(),
            file: ".lembas/plans/team.md".into(),
        },
        keeping: lembas_harness::crew::Keeping::default(),
        remember: None,
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let crew = Crew::new(setup, &options, tx);
    let heard = tokio::spawn(async move {
        let mut outs = Vec::new();
        while let Some(o) = rx.recv().await {
            outs.push(o);
        }
        outs
    });
    crew.prompt(prompt);
    let outcome = tokio::time::timeout(Duration::from_secs(20), crew.finished())
        .await
        .expect("the session ends");
    let tree = crew.tree();
    crew.close();
    drop(crew);
    let outs = tokio::time::timeout(Duration::from_secs(5), heard)
        .await
        .expect("every task lets go of the tree")
        .unwrap();
    Run {
        outcome,
        outs,
        tree,
    }
}

fn replies(outs: &[Out]) -> Vec<String> {
    outs.iter()
        .filter_map(|o| match o {
            Out::Reply { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

fn phases(outs: &[Out], agent: &str) -> Vec<String> {
    outs.iter()
        .filter_map(|o| match o {
            Out::Phase {
                agent: a,
                progress: p,
            } if a.name == agent => Some(
                p.as_ref()
                    .map_or("none".to_string(), |p| p.phase.name().to_string()),
            ),
            _ => None,
        })
        .collect()
}

fn tool_results(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect()
}

fn add(name: &str, extra: Value) -> Reply {
    let mut args = json!({"name": name, "role": format!("owns {name}"), "task": format!("Do the {name} part."), "goal": "the notes"});
    if let (Value::Object(a), Value::Object(e)) = (&mut args, extra) {
        a.extend(e);
    }
    calls("a1", "team_add", args)
}

#[tokio::test]
async fn a_subagent_writes_a_file_reports_and_wakes_the_main_agent() {
    // The subagent's first reply waits until the main agent's turn has ended, so the main agent
    // is seen waiting for it.
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let server = serve(
        vec![
            rule(LEAD, "Write the notes", add("writer", json!({}))),
            rule(
                LEAD,
                "Added writer",
                Reply::Release(
                    vec![content("Waiting for writer."), "[DONE]".into()],
                    gate.clone(),
                ),
            ),
            rule(LEAD, "Wrote notes.txt", says("writer wrote notes.txt.")),
            rule(
                "You are \"writer\" (s1)",
                "Do the writer part.",
                Reply::Hold(
                    vec![],
                    gate,
                    vec![
                        call(
                            "w1",
                            "write",
                            json!({"path": "notes.txt", "content": "n\n"}),
                        ),
                        "[DONE]".into(),
                    ],
                ),
            ),
            rule(
                "You are \"writer\"",
                "",
                calls(
                    "w2",
                    "team_finish",
                    json!({"report": "Wrote notes.txt (1 line)."}),
                ),
            ),
        ],
        0,
    )
    .await;
    let w = project("report");
    let run = session(
        &server,
        &w,
        Mode::Edit,
        None,
        Arc::new(lembas_harness::engine::Unattended),
        "Write the notes.",
    )
    .await;
    assert_eq!(run.outcome, SessionEnd::Finished);
    assert_eq!(
        std::fs::read_to_string(w.root.join("notes.txt")).unwrap(),
        "n\n"
    );
    assert_eq!(server.unused(), Vec::<(String, String)>::new());
    assert_eq!(
        replies(&run.outs).last().map(String::as_str),
        Some("writer wrote notes.txt.")
    );
    // The subagent's system prompt is the spec's member block, filled for it.
    let sub = server.bodies("You are \"writer\"");
    let system = common::scripted::system(&sub[0]);
    assert!(system.contains("You are \"writer\" (s1), a subagent of this session, and you report to \"lead\".\nYour position: owns writer\nThe team's goal: the notes"), "{system}");
    // Its tools: the project's and the member's team tools, not the main agent's own.
    let offered: Vec<&str> = sub[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        offered.contains(&"write") && offered.contains(&"team_finish"),
        "{offered:?}"
    );
    assert!(!offered.contains(&"team_add"), "{offered:?}");
    // The report reached the main agent and woke it; team_finish ended the subagent's turn.
    assert_eq!(sub.len(), 2, "no step after team_finish");
    let lead = server.bodies(LEAD);
    assert!(common::scripted::last(lead.last().unwrap()).contains("Wrote notes.txt (1 line)."));
    let ended = &run.tree.ended;
    assert_eq!(ended.len(), 1);
    assert_eq!(
        (ended[0].name.as_str(), ended[0].state),
        ("writer", AgentState::Done)
    );
    // The main agent waited for its subagent between its turns, and rests at the end.
    let lead_phases = phases(&run.outs, "lead");
    assert!(
        lead_phases.contains(&"waiting_for_subagents".to_string()),
        "{lead_phases:?}"
    );
    assert_eq!(lead_phases.last().map(String::as_str), Some("none"));
    assert!(run.outs.iter().any(|o| matches!(o, Out::ToolStart { agent, call } if agent.name == "writer" && call.tool == "write")));
    let last_tree = run.outs.iter().rev().find_map(|o| match o {
        Out::Team { tree } => Some(tree),
        _ => None,
    });
    assert_eq!(last_tree, Some(&run.tree), "the last state is always sent");
}

#[tokio::test]
async fn a_narrowed_subagent_asks_the_main_agent_and_the_call_then_runs() {
    let requestable = loop_spec().team.texts.requestable;
    let server = serve(
        vec![
            rule(
                LEAD,
                "Make the file",
                add("maker", json!({"mode": "manual", "request": ["execute"]})),
            ),
            rule(LEAD, "Added maker", says("Waiting.")),
            rule(
                LEAD,
                "r1",
                calls("d1", "team_decide", json!({"id": "r1", "allow": true})),
            ),
            rule(LEAD, "made.txt is made", says("maker made it.")),
            // The decision's answer and maker's first report may come in one step or two.
            rule(LEAD, "", says("Noted.")),
            rule(LEAD, "", says("Noted.")),
            rule(
                "You are \"maker\"",
                "Do the maker part.",
                calls("m1", "bash", json!({"command": "touch made.txt"})),
            ),
            rule(
                "You are \"maker\"",
                "the main agent may",
                calls(
                    "m2",
                    "team_request",
                    json!({"tool": "bash", "pattern": "touch made.txt", "why": "the task"}),
                ),
            ),
            rule(
                "You are \"maker\"",
                "Asked the main agent",
                says("Waiting for r1."),
            ),
            rule(
                "You are \"maker\"",
                "Try it again now",
                calls("m3", "bash", json!({"command": "touch made.txt"})),
            ),
            rule(
                "You are \"maker\"",
                "",
                calls("m4", "team_finish", json!({"report": "made.txt is made."})),
            ),
        ],
        0,
    )
    .await;
    let w = project("request");
    let person = Arc::new(Person {
        answer: Approval::Deny,
        asked: Mutex::new(Vec::new()),
    });
    let run = session(
        &server,
        &w,
        Mode::Auto,
        None,
        person.clone(),
        "Make the file.",
    )
    .await;
    assert_eq!(run.outcome, SessionEnd::Finished);
    let sub = server.bodies("You are \"maker\"");
    let results: Vec<String> = sub.iter().flat_map(tool_results).collect();
    assert!(results.iter().any(|r| *r == requestable), "{results:?}");
    assert!(
        w.root.join("made.txt").exists(),
        "the same call ran once allowed"
    );
    assert!(
        person.asked.lock().unwrap().is_empty(),
        "the main agent decided, not the person"
    );
    let specific: Vec<(String, String)> = server
        .unused()
        .into_iter()
        .filter(|(_, when)| !when.is_empty())
        .collect();
    assert_eq!(specific, Vec::<(String, String)>::new());
    assert_eq!(
        replies(&run.outs).last().map(String::as_str),
        Some("maker made it.")
    );
}

#[tokio::test]
async fn in_an_all_edit_tree_a_subagents_bash_reaches_the_person_naming_it() {
    let server = serve(
        vec![
            rule(LEAD, "Run it", add("runner", json!({}))),
            rule(LEAD, "Added runner", says("Waiting.")),
            rule(LEAD, "ran", says("Done.")),
            rule(
                "You are \"runner\"",
                "Do the runner part.",
                calls(
                    "r1",
                    "bash",
                    json!({"command": "bash -c 'echo ran > out.txt'"}),
                ),
            ),
            rule("You are \"runner\"", "", says("ran it")),
        ],
        0,
    )
    .await;
    let w = project("person");
    let person = Arc::new(Person {
        answer: Approval::Once,
        asked: Mutex::new(Vec::new()),
    });
    let run = session(&server, &w, Mode::Edit, None, person.clone(), "Run it.").await;
    assert_eq!(run.outcome, SessionEnd::Finished);
    let asked = person.asked.lock().unwrap().clone();
    let results: Vec<String> = server
        .bodies("You are \"runner\"")
        .iter()
        .flat_map(tool_results)
        .collect();
    assert_eq!(asked.len(), 1, "{asked:?} {results:?}");
    assert_eq!(
        (asked[0].0.as_str(), asked[0].1.as_str()),
        ("runner", "bash")
    );
    assert_eq!(
        std::fs::read_to_string(w.root.join("out.txt")).unwrap(),
        "ran\n"
    );
    assert!(phases(&run.outs, "runner").contains(&"waiting_for_person".to_string()));
}

#[tokio::test]
async fn a_full_context_pauses_a_subagent_for_its_final_turn_and_keeps_its_findings() {
    let server = serve(
        vec![
            rule(LEAD, "Read it all", add("reader", json!({}))),
            rule(LEAD, "Added reader", says("Waiting.")),
            rule(
                LEAD,
                "ran out of context",
                says("reader is gone; its findings are kept."),
            ),
            rule(
                "You are \"reader\"",
                "Do the reader part.",
                Reply::Sse(vec![
                    call("x1", "read", json!({"path": "hello.txt"})),
                    usage(900, 10),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "You are \"reader\"",
                "your context is full",
                calls(
                    "x2",
                    "team_findings",
                    json!({"action": "write", "text": "hello.txt says hi"}),
                ),
            ),
            rule("You are \"reader\"", "", says("Saved my findings.")),
        ],
        0,
    )
    .await;
    let w = project("context");
    let run = session(
        &server,
        &w,
        Mode::Edit,
        Some(1000),
        Arc::new(lembas_harness::engine::Unattended),
        "Read it all.",
    )
    .await;
    assert_eq!(run.outcome, SessionEnd::Finished);
    assert_eq!(server.unused(), Vec::<(String, String)>::new());
    let ended = &run.tree.ended;
    assert_eq!(ended.len(), 1, "{:?}", run.tree);
    assert_eq!(ended[0].state, AgentState::OutOfContext);
    assert_eq!(ended[0].findings, 1);
    let lead = server.bodies(LEAD);
    let woke = common::scripted::last(lead.last().unwrap());
    assert!(woke.contains("Saved my findings."), "{woke}");
}

#[tokio::test]
async fn a_message_during_the_last_step_wakes_the_agent_again() {
    // The writer finishes while the main agent's last step is still streaming: the report is
    // not lost, it starts the main agent's next turn.
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let server = serve(
        vec![
            rule(LEAD, "Go", add("quick", json!({}))),
            rule(
                LEAD,
                "Added quick",
                Reply::Hold(
                    vec![content("Waiting")],
                    gate.clone(),
                    vec![content("."), "[DONE]".into()],
                ),
            ),
            rule(LEAD, "quick is done", says("All done.")),
            rule(
                "You are \"quick\"",
                "",
                calls("q1", "team_finish", json!({"report": "quick is done"})),
            ),
        ],
        0,
    )
    .await;
    let w = project("late");
    let opener =
        tokio::spawn({
            let gate = gate.clone();
            let seen = server.seen.clone();
            async move {
                // Let the main agent's step go once the subagent has reported.
                loop {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    let reported =
                        seen.lock().unwrap().requests.iter().any(|(_, b)| {
                            common::scripted::system(b).contains("You are \"quick\"")
                        });
                    if reported {
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        gate.add_permits(1);
                        return;
                    }
                }
            }
        });
    let run = session(
        &server,
        &w,
        Mode::Edit,
        None,
        Arc::new(lembas_harness::engine::Unattended),
        "Go.",
    )
    .await;
    opener.await.unwrap();
    assert_eq!(run.outcome, SessionEnd::Finished);
    assert_eq!(
        replies(&run.outs).last().map(String::as_str),
        Some("All done.")
    );
    assert_eq!(server.unused(), Vec::<(String, String)>::new());
}

#[tokio::test]
async fn a_subagent_waits_for_a_slot_while_the_models_capacity_is_full() {
    // Two requests at once: the main agent and one subagent hold them; a second subagent waits
    // for a slot (waiting_for_model) until the main agent's turn ends.
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let server = serve(
        vec![
            rule(LEAD, "Split it", add("one", json!({}))),
            rule(LEAD, "Added one", add("two", json!({}))),
            rule(
                LEAD,
                "Added two",
                Reply::Release(vec![content("Waiting."), "[DONE]".into()], gate.clone()),
            ),
            // one holds its slot until two has been added.
            rule(
                "You are \"one\"",
                "",
                Reply::Hold(vec![], gate, vec![content("one is done"), "[DONE]".into()]),
            ),
            rule("You are \"two\"", "", says("two is done")),
            rule(LEAD, "", says("Noted.")),
            rule(LEAD, "", says("Noted.")),
            rule(LEAD, "", says("Noted.")),
        ],
        0,
    )
    .await;
    let w = project("slots");
    let options = TeamOptions {
        capacity: lembas_rules::subagents::Capacity {
            group: None,
            parallel: Some(2),
        },
        ..TeamOptions::default()
    };
    let run = session_with(
        &server,
        &w,
        None,
        Arc::new(lembas_harness::engine::Unattended),
        "Split it.",
        options,
    )
    .await;
    let (outcome, outs) = (run.outcome, run.outs);
    assert_eq!(outcome, SessionEnd::Finished);
    let two = phases(&outs, "two");
    assert_eq!(
        two.first().map(String::as_str),
        Some("waiting_for_model"),
        "{two:?}"
    );
    assert!(
        two.contains(&"reading_prompt".to_string()),
        "then it ran: {two:?}"
    );
    assert_eq!(
        phases(&outs, "one").first().map(String::as_str),
        Some("reading_prompt")
    );
    let said: Vec<String> = server
        .bodies("You are \"two\"")
        .iter()
        .map(common::scripted::last)
        .collect();
    assert_eq!(said, ["Do the two part."]);
}
