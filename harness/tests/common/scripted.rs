//! A scripted OpenAI-compatible server on 127.0.0.1 for a whole tree: real HTTP and SSE over
//! real TCP, every connection answered at once in its own task. Each rule names the agent it is
//! for by a text of its system prompt (`You are "writer"`; the main agent's block says `You are
//! the main agent`) and, optionally, a text the conversation's last message must contain; each
//! request takes the first unused rule that fits, so a script does not depend on timing. A
//! request that no rule fits is answered with a plain reply saying so, and kept.
//!
//! Shared by the tests and by `cargo run -p lembas-harness --example fake-server` (a person's
//! scripted server, read from a JSON file).
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

/// How a rule answers.
#[derive(Clone)]
pub enum Reply {
    /// A stream of `data:` frames (each a JSON text, or `[DONE]`).
    Sse(Vec<String>),
    /// An HTTP error with this status and body.
    Status(u16, String),
    /// The frames before, then a wait for a permit of the gate, then the frames after.
    Hold(Vec<String>, Arc<Semaphore>, Vec<String>),
    /// The frames, then a permit for the gate (what another reply holds back goes on).
    Release(Vec<String>, Arc<Semaphore>),
}

#[derive(Clone)]
pub struct Rule {
    /// A text of the agent's system prompt.
    pub who: String,
    /// A text the last message must contain (empty: any).
    pub when: String,
    /// A text some message of the conversation must contain (empty: any): what a turn must have
    /// seen of the turns before it.
    pub seen: String,
    pub reply: Reply,
}

pub fn rule(who: &str, when: &str, reply: Reply) -> Rule {
    Rule {
        who: who.into(),
        when: when.into(),
        seen: String::new(),
        reply,
    }
}

/// What the server saw: each request's body, with the rule it took (None: no rule fitted).
#[derive(Default)]
pub struct Seen {
    pub requests: Vec<(Option<usize>, Value)>,
}

pub struct Server {
    pub url: String,
    pub seen: Arc<Mutex<Seen>>,
    rules: Arc<Mutex<Vec<(Rule, bool)>>>,
}

impl Server {
    /// The bodies the agent whose system prompt contains `who` sent, in order.
    pub fn bodies(&self, who: &str) -> Vec<Value> {
        self.seen
            .lock()
            .unwrap()
            .requests
            .iter()
            .filter(|(_, b)| system(b).contains(who))
            .map(|(_, b)| b.clone())
            .collect()
    }

    /// Rules not used yet (their `who` and `when`).
    pub fn unused(&self) -> Vec<(String, String)> {
        self.rules
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, used)| !used)
            .map(|(r, _)| (r.who.clone(), r.when.clone()))
            .collect()
    }
}

/// A request's system prompt (empty without one).
pub fn system(body: &Value) -> String {
    body["messages"][0]
        .as_object()
        .filter(|m| m["role"] == "system")
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_string()
}

/// The text of a request's last message.
pub fn last(body: &Value) -> String {
    body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_string()
}

pub async fn serve(rules: Vec<Rule>, port: u16) -> Server {
    let listener = TcpListener::bind(("127.0.0.1", port)).await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Seen::default()));
    let rules = Arc::new(Mutex::new(rules.into_iter().map(|r| (r, false)).collect()));
    let (s, r) = (seen.clone(), Arc::clone(&rules));
    tokio::spawn(async move {
        loop {
            let Ok((sock, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(answer(sock, s.clone(), Arc::clone(&r)));
        }
    });
    Server { url, seen, rules }
}

/// One HTTP request's body, read by its length (None: the connection closed first).
pub async fn read_body(sock: &mut TcpStream) -> Option<Vec<u8>> {
    read_message(sock).await.map(|(_, body)| body)
}

/// One HTTP request: its head (lower case) and its body, read by its length.
pub async fn read_message(sock: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 8192];
    let head_end = loop {
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_lowercase();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
    }
    Some((head, buf[head_end..head_end + len].to_vec()))
}

/// The models the server says it serves (`GET …/models`).
pub const MODELS: &str = r#"{"object": "list", "data": [{"id": "m"}, {"id": "m-large"}]}"#;

async fn answer(mut sock: TcpStream, seen: Arc<Mutex<Seen>>, rules: Arc<Mutex<Vec<(Rule, bool)>>>) {
    let Some((head, raw)) = read_message(&mut sock).await else {
        return;
    };
    if head.starts_with("get ") && head.lines().next().is_some_and(|l| l.contains("/models")) {
        send_status(&mut sock, 200, MODELS).await;
        return;
    }
    let Ok(body) = serde_json::from_slice::<Value>(&raw) else {
        return;
    };
    let (sys, last) = (system(&body), last(&body));
    let conversation = body["messages"].to_string();
    let taken = {
        let mut rules = rules.lock().unwrap();
        let at = rules.iter().position(|(r, used)| {
            !used
                && sys.contains(&r.who)
                && last.contains(&r.when)
                && conversation.contains(&r.seen)
        });
        if let Some(i) = at {
            rules[i].1 = true;
        }
        at.map(|i| (i, rules[i].0.reply.clone()))
    };
    seen.lock()
        .unwrap()
        .requests
        .push((taken.as_ref().map(|(i, _)| *i), body));
    let reply = taken.map(|(_, r)| r).unwrap_or_else(|| {
        Reply::Sse(vec![
            content("(no rule of the script fits this request)"),
            "[DONE]".into(),
        ])
    });
    match reply {
        Reply::Status(code, text) => send_status(&mut sock, code, &text).await,
        Reply::Sse(frames) => {
            send_head(&mut sock).await;
            send(&mut sock, &frames).await;
        }
        Reply::Release(frames, gate) => {
            send_head(&mut sock).await;
            send(&mut sock, &frames).await;
            gate.add_permits(1);
        }
        Reply::Hold(before, gate, after) => {
            send_head(&mut sock).await;
            send(&mut sock, &before).await;
            if let Ok(permit) = gate.acquire().await {
                permit.forget();
            }
            send(&mut sock, &after).await;
        }
    }
    let _ = sock.shutdown().await;
}

/// An HTTP error with its JSON body.
pub async fn send_status(sock: &mut TcpStream, code: u16, text: &str) {
    let head = format!("HTTP/1.1 {code} Oops\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}", text.len());
    let _ = sock.write_all(head.as_bytes()).await;
}

/// The head of a 200 event stream.
pub async fn send_head(sock: &mut TcpStream) {
    let _ = sock
        .write_all(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
        )
        .await;
}

/// `data:` frames, one at a time.
pub async fn send(sock: &mut TcpStream, frames: &[String]) {
    for f in frames {
        let _ = sock.write_all(format!("data: {f}\n\n").as_bytes()).await;
        let _ = sock.flush().await;
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

pub fn content(s: &str) -> String {
    json!({"choices": [{"delta": {"content": s}}]}).to_string()
}

pub fn call(id: &str, name: &str, args: Value) -> String {
    json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}}]}}]}).to_string()
}

pub fn usage(prompt: u64, completion: u64) -> String {
    json!({"choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion}})
        .to_string()
}

/// A reply that makes one call, then `[DONE]`.
pub fn calls(id: &str, name: &str, args: Value) -> Reply {
    Reply::Sse(vec![call(id, name, args), "[DONE]".into()])
}

/// A final reply, then `[DONE]`.
pub fn says(text: &str) -> Reply {
    Reply::Sse(vec![content(text), "[DONE]".into()])
}

/// Rules from a JSON script: `[{"who": …, "when": …, "reply": {"sse": [frame…]} | {"calls":
/// [name, args]} | {"says": text} | {"status": 502, "body": …}}]`.
pub fn from_json(v: &Value) -> Result<Vec<Rule>, String> {
    let list = v.as_array().ok_or("the script is not a list of rules")?;
    let mut out = Vec::new();
    for (i, r) in list.iter().enumerate() {
        let who = r["who"].as_str().unwrap_or("").to_string();
        let when = r["when"].as_str().unwrap_or("").to_string();
        let seen = r["seen"].as_str().unwrap_or("").to_string();
        let reply = &r["reply"];
        let reply = if let Some(t) = reply["says"].as_str() {
            says(t)
        } else if let Some(t) = reply["holds"].as_str() {
            // Says `t`, then holds the stream open for good (a turn only a cancel ends).
            Reply::Hold(vec![content(t)], Arc::new(Semaphore::new(0)), vec![])
        } else if let Some(c) = reply["calls"].as_array() {
            let name = c
                .first()
                .and_then(Value::as_str)
                .ok_or(format!("rule {i}: calls: [name, args]"))?;
            calls(
                &format!("c{i}"),
                name,
                c.get(1).cloned().unwrap_or(json!({})),
            )
        } else if let Some(frames) = reply["sse"].as_array() {
            Reply::Sse(
                frames
                    .iter()
                    .map(|f| f.as_str().map_or_else(|| f.to_string(), str::to_string))
                    .collect(),
            )
        } else if let Some(code) = reply["status"].as_u64() {
            Reply::Status(
                u16::try_from(code).map_err(|e| format!("rule {i}: status: {e}"))?,
                reply["body"].as_str().unwrap_or("").to_string(),
            )
        } else {
            return Err(format!(
                "rule {i}: reply must have says, holds, calls, sse or status"
            ));
        };
        out.push(Rule {
            who,
            when,
            seen,
            reply,
        });
    }
    Ok(out)
}
