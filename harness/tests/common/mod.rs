//! A fake OpenAI-compatible server on 127.0.0.1 for the harness's tests: real HTTP and SSE over
//! real TCP; each connection is answered by the next scripted answer, and the request bodies are
//! kept for the test to read.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

pub mod scripted;

use serde_json::json;
use std::sync::{Arc, Mutex};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

/// A fresh, empty folder of this test run (`NAME-PID` in the temporary folder), made again if an
/// earlier run left one.
pub fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The state folder every `lembas` a test starts keeps its sessions in (`XDG_STATE_HOME`): one
/// of this test run, never the person's.
pub fn state_home() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("lembas-test-state-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A fresh project folder holding `hello.txt` ("hi").
pub fn project_with_hello(name: &str) -> std::path::PathBuf {
    let dir = fresh_dir(name);
    std::fs::write(dir.join("hello.txt"), "hi\n").unwrap();
    dir
}

pub enum Answer {
    Status(u16, &'static str),
    Sse(Vec<String>),
    /// A 200 whose stream stops in the middle.
    Cut(Vec<String>),
}

pub async fn fake(script: Vec<Answer>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let seen = bodies.clone();
    tokio::spawn(async move {
        for answer in script {
            let (mut sock, _) = listener.accept().await.unwrap();
            let body = scripted::read_body(&mut sock).await.unwrap_or_default();
            seen.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&body).into_owned());
            match answer {
                Answer::Status(code, body) => scripted::send_status(&mut sock, code, body).await,
                Answer::Sse(frames) | Answer::Cut(frames) => {
                    scripted::send_head(&mut sock).await;
                    scripted::send(&mut sock, &frames).await;
                }
            }
            sock.shutdown().await.ok();
        }
    });
    (url, bodies)
}

pub fn content(s: &str) -> String {
    json!({"choices": [{"delta": {"content": s}}]}).to_string()
}

pub fn tool_call(id: &str, name: &str, args: serde_json::Value) -> String {
    json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}}]}}]}).to_string()
}

/// Runs `line` as an auto-mode agent's `bash` call in `w` (no rules asked: the harness's own
/// running of it, confined as `w` says), and what the model is told.
pub async fn bash_in_auto(w: &lembas_harness::tools::Workspace, line: &str) -> String {
    lembas_harness::tools::run_bash(
        w,
        &lembas_harness::tools::Args(json!({ "command": line })),
        lembas_rules::permission::sandbox::Policy::of(lembas_rules::permission::Mode::Auto, false),
        None,
    )
    .await
}
