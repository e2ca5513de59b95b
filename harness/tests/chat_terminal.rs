#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! `lembas chat` as a person uses it: the process on a pseudo-terminal of its own (its session's
//! controlling terminal, so that Ctrl-C is the terminal's SIGINT), against the scripted server on
//! 127.0.0.1. Two prompts on one conversation, Ctrl-C during a turn, `/mode plan` refusing a
//! write on the next turn, Ctrl-D leaving.

mod common;
use common::scripted::{call, content, rule, serve, Reply};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A child on a pseudo-terminal, and everything it wrote to it.
struct Terminal {
    master: std::fs::File,
    seen: Arc<Mutex<String>>,
    child: std::process::Child,
}

impl Drop for Terminal {
    /// A test that failed half-way leaves no lembas behind on its terminal.
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Terminal {
    fn spawn(dir: &std::path::Path, args: &[&str]) -> Terminal {
        let pty = nix::pty::openpty(None, None).unwrap();
        let slave: OwnedFd = pty.slave;
        // util-linux's setsid: a session of its own, its standard input (the pseudo-terminal) its
        // controlling terminal, then lembas in its place (same process).
        let child = std::process::Command::new("setsid")
            .arg("--ctty")
            .arg(env!("CARGO_BIN_EXE_lembas"))
            .env("XDG_STATE_HOME", common::state_home())
            .args(args)
            .current_dir(dir)
            .env_remove("LEMBAS_API_KEY")
            .stdin(slave.try_clone().unwrap())
            .stdout(slave.try_clone().unwrap())
            .stderr(slave)
            .spawn()
            .unwrap();
        let master = std::fs::File::from(pty.master);
        let seen = Arc::new(Mutex::new(String::new()));
        let mut reader = master.try_clone().unwrap();
        let into = Arc::clone(&seen);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    return;
                }
                into.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Terminal {
            master,
            seen,
            child,
        }
    }

    /// The line the cursor is on, as a terminal of 40 rows and 120 columns draws what was
    /// written to it (escapes and all).
    fn cursor_line(&self) -> String {
        let mut parser = vt100::Parser::new(40, 120, 0);
        parser.process(self.seen.lock().unwrap().as_bytes());
        let screen = parser.screen();
        let (row, _) = screen.cursor_position();
        let line = screen
            .rows(0, 120)
            .nth(usize::from(row))
            .unwrap_or_default();
        line
    }

    /// The whole screen, as a terminal of 40 rows and 120 columns draws it.
    fn screen_text(&self) -> String {
        let mut parser = vt100::Parser::new(40, 120, 0);
        parser.process(self.seen.lock().unwrap().as_bytes());
        parser.screen().contents()
    }

    /// Waits for the prompt after `from`, then checks nothing is drawn over or after it (a
    /// moment later, when a live area would have ticked): the cursor's line is `> ` alone.
    fn prompt_stays(&self, from: usize) -> usize {
        let at = self.shows("> ", from);
        std::thread::sleep(Duration::from_millis(1300));
        assert_eq!(
            self.cursor_line(),
            "> ",
            "the prompt was drawn over; the terminal showed:\n{}",
            self.seen.lock().unwrap()
        );
        at
    }

    /// Types `text`, as a person at the terminal would.
    fn typed(&mut self, text: &str) {
        self.master.write_all(text.as_bytes()).unwrap();
        self.master.flush().unwrap();
    }

    /// Waits until the terminal shows `text` after `from` bytes of it; where it ends.
    fn shows(&self, text: &str, from: usize) -> usize {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            {
                let seen = self.seen.lock().unwrap();
                if let Some(at) = seen.get(from..).and_then(|s| s.find(text)) {
                    return from + at + text.len();
                }
            }
            assert!(
                Instant::now() < deadline,
                "the terminal never showed {text:?}; it showed:\n{}",
                self.seen.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn text_of(body: &Value) -> String {
    body["messages"].to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_conversation_of_several_turns_at_a_terminal() {
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let server = serve(
        vec![
            rule("", "First.", Reply::Sse(vec![content("One."), "[DONE]".into()])),
            rule("", "Second.", Reply::Sse(vec![content("Two."), "[DONE]".into()])),
            // Held for good: only the person's Ctrl-C ends this turn.
            rule(
                "",
                "Hold on.",
                Reply::Hold(vec![content("Thinking")], Arc::clone(&gate), vec![]),
            ),
            rule("", "After.", Reply::Sse(vec![content("Three."), "[DONE]".into()])),
            // A subagent's turn, its report waking the main agent, and the tree between turns.
            rule(
                "You are the main agent",
                "Add one.",
                Reply::Sse(vec![
                    call(
                        "a1",
                        "team_add",
                        json!({"name": "api", "role": "the API", "task": "Write the API.", "goal": "a service"}),
                    ),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "You are the main agent",
                "Added api",
                Reply::Sse(vec![content("Waiting for api."), "[DONE]".into()]),
            ),
            rule(
                "You are \"api\"",
                "",
                Reply::Sse(vec![content("Done: the API."), "[DONE]".into()]),
            ),
            rule(
                "You are the main agent",
                "Done: the API.",
                Reply::Sse(vec![content("api reported."), "[DONE]".into()]),
            ),
            rule(
                "You are the main agent",
                "Who is left?",
                Reply::Sse(vec![content("Nobody."), "[DONE]".into()]),
            ),
            rule(
                "",
                "Write it.",
                Reply::Sse(vec![
                    call("w1", "write", json!({"path": "notes.txt", "content": "x\n"})),
                    "[DONE]".into(),
                ]),
            ),
            rule("", "plan", Reply::Sse(vec![content("Not written."), "[DONE]".into()])),
        ],
        0,
    )
    .await;
    let dir = common::fresh_dir("lembas-chat");
    let url = server.url.clone();
    let dir_in = dir.clone();
    let status = tokio::task::spawn_blocking(move || {
        let mut term = Terminal::spawn(&dir_in, &["chat", "--base-url", &url, "--model", "m"]);
        let at = term.shows("> ", 0);
        term.typed("First.\r");
        let at = term.shows("One.", at);
        let at = term.shows("> ", at);
        term.typed("Second.\r");
        let at = term.shows("Two.", at);
        let at = term.shows("> ", at);
        // Each reply once: written as it came, not again at its end.
        let screen = term.screen_text();
        assert_eq!(screen.matches("One.").count(), 1, "{screen}");
        assert!(
            screen.contains("> First.\nOne.\n> Second.\nTwo.\n> "),
            "{screen}"
        );
        term.typed("Hold on.\r");
        // The reply is written as it comes, and stays when the person stops the turn.
        let at = term.shows("Thinking", at);
        std::thread::sleep(Duration::from_millis(300));
        term.typed("\u{3}");
        let at = term.shows("Stopped. The conversation goes on.", at);
        let at = term.prompt_stays(at);
        assert!(
            term.screen_text().contains("> Hold on.\nThinking"),
            "{}",
            term.screen_text()
        );
        term.typed("After.\r");
        let at = term.shows("Three.", at);
        let at = term.shows("> ", at);
        // A subagent: added, its report wakes the main agent; the tree lives on between turns.
        term.typed("Add one.\r");
        let at = term.shows("api reported.", at);
        let at = term.prompt_stays(at);
        term.typed("/tree\r");
        let at = term.shows("api (s1)", at);
        let at = term.shows("> ", at);
        term.typed("/stop api\r");
        let at = term.shows("Stopped api (s1).", at);
        let at = term.shows("> ", at);
        term.typed("Who is left?\r");
        let at = term.shows("Nobody.", at);
        let at = term.shows("> ", at);
        term.typed("/mode plan\r");
        let at = term.shows("The main agent's mode is plan.", at);
        let at = term.shows("> ", at);
        term.typed("Write it.\r");
        let at = term.shows("Not written.", at);
        term.shows("> ", at);
        // Ctrl-D at the prompt leaves.
        term.typed("\u{4}");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(s) = term.child.try_wait().unwrap() {
                break s;
            }
            assert!(
                Instant::now() < deadline,
                "lembas did not leave on Ctrl-D; the terminal showed:\n{}",
                term.seen.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    })
    .await
    .unwrap();
    assert_eq!(status.code(), Some(0));
    let bodies = server.bodies("");
    let find = |prompt: &str| {
        bodies
            .iter()
            .find(|b| common::scripted::last(b).contains(prompt))
            .cloned()
            .unwrap_or_else(|| panic!("no request for {prompt:?}"))
    };
    // The second turn is on the first one's conversation.
    let second = text_of(&find("Second."));
    assert!(
        second.contains("First.") && second.contains("One."),
        "{second}"
    );
    // The stopped turn stays in the conversation: the next one goes on from it.
    let after = text_of(&find("After."));
    assert!(after.contains("Hold on."), "{after}");
    // The person's stop reaches the main agent with its next prompt.
    let left = common::scripted::last(&find("Who is left?"));
    assert!(left.contains("The person stopped api"), "{left}");
    // In plan mode the write is refused, and the model reads the refusal.
    assert!(!dir.join("notes.txt").exists(), "plan mode wrote the file");
    let refused = text_of(&find("plan"));
    assert!(refused.contains("\"role\":\"tool\""), "{refused}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_question_shows_the_change_ctrl_c_cancels_it_and_a_plan_is_approved() {
    let server = serve(
        vec![
            rule(
                "",
                "Write it.",
                Reply::Sse(vec![
                    call("w1", "write", json!({"path": "notes.txt", "content": "x\n"})),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "",
                "The person refused this call.",
                Reply::Sse(vec![content("Not written, then."), "[DONE]".into()]),
            ),
            rule("", "After.", Reply::Sse(vec![content("Three."), "[DONE]".into()])),
            rule("", "Edited line.", Reply::Sse(vec![content("Four."), "[DONE]".into()])),
            rule("", "Edited line.", Reply::Sse(vec![content("Five."), "[DONE]".into()])),
            rule(
                "",
                "Plan it.",
                Reply::Sse(vec![
                    call(
                        "p1",
                        "plan_write",
                        json!({"title": "Add the notes", "steps": ["Write notes.txt", "Read it back"]}),
                    ),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "",
                "The plan has 2 steps",
                Reply::Sse(vec![call("p2", "plan_submit", json!({})), "[DONE]".into()]),
            ),
            rule(
                "",
                "approved the plan",
                Reply::Sse(vec![
                    call("l1", "list", json!({})),
                    "[DONE]".into(),
                ]),
            ),
            rule(
                "",
                "hello.txt",
                Reply::Sse(vec![content("Carrying it out."), "[DONE]".into()]),
            ),
            rule(
                "",
                "Fail now.",
                Reply::Status(
                    401,
                    r#"{"error": {"message": "Incorrect API key provided: sk-abc. You can find your API key at https://example.invalid/account/api-keys, and this reason runs past a hundred columns"}}"#.into(),
                ),
            ),
        ],
        0,
    )
    .await;
    let dir = common::fresh_dir("lembas-chat-questions");
    std::fs::write(dir.join("hello.txt"), "hello\n").unwrap();
    let url = server.url.clone();
    let dir_in = dir.clone();
    let status = tokio::task::spawn_blocking(move || {
        let mut term = Terminal::spawn(
            &dir_in,
            &[
                "chat",
                "--base-url",
                &url,
                "--model",
                "m",
                "--mode",
                "manual",
            ],
        );
        let at = term.shows("> ", 0);
        term.typed("Write it.\r");
        // The question names the main agent in words, and shows the change to review.
        let at = term.shows("the main agent wants to: Write notes.txt", at);
        let at = term.shows("+ x", at);
        let at = term.shows(
            "allow? [y]es once, [a]lways this session, [p] always in this project, [n]o: ",
            at,
        );
        std::thread::sleep(Duration::from_millis(200));
        term.typed("\u{3}");
        let at = term.shows("The question is cancelled: the call is refused.", at);
        let at = term.shows(
            "Refused: Write notes.txt — The person refused this call.",
            at,
        );
        let at = term.prompt_stays(at);
        // The next line is a prompt, not the question's answer.
        term.typed("After.\r");
        let at = term.shows("Three.", at);
        let at = term.shows("> ", at);
        term.typed("/mode plan\r");
        let at = term.shows("The main agent's mode is plan.", at);
        let at = term.shows("> ", at);
        term.typed("Plan it.\r");
        let at = term.shows("the main agent submits the plan:", at);
        let at = term.shows("1. [ ] Write notes.txt", at);
        let at = term.shows("approve the plan? [y]es, [n]o: ", at);
        term.typed("y\r");
        let at = term.shows("The main agent's mode is manual now.", at);
        // Each call leaves a line that stays.
        let at = term.shows("List the project's folder", at);
        let at = term.shows("Carrying it out.", at);
        let at = term.shows("> ", at);
        // A failure is said whole, once, with what to do, and the prompt comes back clean.
        term.typed("Fail now.\r");
        let at = term.shows("this reason runs past a hundred columns", at);
        let at = term.shows("set LEMBAS_API_KEY", at);
        term.prompt_stays(at);
        let screen = term.screen_text();
        assert_eq!(
            screen.matches("Incorrect API key provided").count(),
            1,
            "{screen}"
        );
        term.typed("\u{4}");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(s) = term.child.try_wait().unwrap() {
                break s;
            }
            assert!(Instant::now() < deadline, "lembas did not leave on Ctrl-D");
            std::thread::sleep(Duration::from_millis(20));
        }
    })
    .await
    .unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(!dir.join("notes.txt").exists(), "the cancelled write ran");
    let bodies = server.bodies("");
    let after = bodies
        .iter()
        .find(|b| common::scripted::last(b).contains("After."))
        .unwrap();
    // The cancelled question was refused, and said so to the model.
    assert!(text_of(after).contains("The person refused this call."));
    assert!(bodies.iter().any(|b| common::scripted::last(b)
        .contains("The person approved the plan: the session is in manual mode")));
}

/// Waits for the chat to leave (after Ctrl-D): its exit status.
fn left(term: &mut Terminal) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(s) = term.child.try_wait().unwrap() {
            return s;
        }
        assert!(
            Instant::now() < deadline,
            "lembas did not leave; the terminal showed:\n{}",
            term.seen.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn yesterdays_conversation_goes_on_with_continue() {
    let server = serve(
        vec![
            rule(
                "",
                "Remember 7.",
                Reply::Sse(vec![content("Noted: 7."), "[DONE]".into()]),
            ),
            rule(
                "",
                "What was it?",
                Reply::Sse(vec![content("It was 7."), "[DONE]".into()]),
            ),
        ],
        0,
    )
    .await;
    let dir = common::fresh_dir("lembas-chat-continue");
    let url = server.url.clone();
    let dir_in = dir.clone();
    let listed = tokio::task::spawn_blocking(move || {
        let args = ["chat", "--base-url", &url, "--model", "m"];
        let mut term = Terminal::spawn(&dir_in, &args);
        let at = term.shows("> ", 0);
        term.typed("Remember 7.\r");
        let at = term.shows("Noted: 7.", at);
        term.shows("> ", at);
        term.typed("\u{4}");
        assert_eq!(left(&mut term).code(), Some(0));
        // The session is kept, and listed for its folder.
        let listed = std::process::Command::new(env!("CARGO_BIN_EXE_lembas"))
            .env("XDG_STATE_HOME", common::state_home())
            .arg("sessions")
            .current_dir(&dir_in)
            .output()
            .unwrap();
        let mut term = Terminal::spawn(
            &dir_in,
            &[&args[..], &["--continue", "--mode", "plan"]].concat(),
        );
        // The person's flag holds over the mode the session was left in, and is said.
        let at = term.shows("the session was in edit mode; --mode plan holds", 0);
        let at = term.shows("going on with the session", at);
        let at = term.shows("> ", at);
        term.typed("What was it?\r");
        let at = term.shows("It was 7.", at);
        term.shows("> ", at);
        term.typed("\u{4}");
        assert_eq!(left(&mut term).code(), Some(0));
        String::from_utf8_lossy(&listed.stdout).into_owned()
    })
    .await
    .unwrap();
    assert!(listed.contains("Remember 7."), "{listed}");
    let bodies = server.bodies("");
    let after = bodies
        .iter()
        .find(|b| common::scripted::last(b).contains("What was it?"))
        .unwrap();
    assert!(text_of(after).contains("Noted: 7."), "{}", text_of(after));
    // A kept session that cannot be read is said, never started anew.
    let id = listed.split_whitespace().next().unwrap().to_string();
    let kept = common::state_home().join("lembas/sessions").join(&id);
    std::fs::write(kept.join("conversation.jsonl"), "{\"role\": \"user\"}\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lembas"))
        .env("XDG_STATE_HOME", common::state_home())
        .args([
            "chat",
            "--base-url",
            &server.url,
            "--model",
            "m",
            "--resume",
            &id,
        ])
        .current_dir(&dir)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("conversation.jsonl, line 1: missing field `content`"),
        "{err}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lembas"))
        .env("XDG_STATE_HOME", common::state_home())
        .args([
            "chat",
            "--base-url",
            &server.url,
            "--model",
            "m",
            "--resume",
            "1-2-3",
        ])
        .current_dir(&dir)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("no stored session 1-2-3"));
}
