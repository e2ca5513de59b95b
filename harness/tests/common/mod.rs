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

use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

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
            let mut buf = Vec::new();
            let mut tmp = [0u8; 4096];
            // Read the head, then the body by its length.
            let head_end = loop {
                let n = sock.read(&mut tmp).await.unwrap();
                buf.extend_from_slice(&tmp[..n]);
                if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    break i + 4;
                }
            };
            let head = String::from_utf8_lossy(&buf[..head_end]).to_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map(|v| v.trim().parse().unwrap())
                .unwrap_or(0);
            while buf.len() < head_end + len {
                let n = sock.read(&mut tmp).await.unwrap();
                buf.extend_from_slice(&tmp[..n]);
            }
            seen.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&buf[head_end..]).into_owned());
            match answer {
                Answer::Status(code, body) => {
                    let text = format!("HTTP/1.1 {code} Oops\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len());
                    sock.write_all(text.as_bytes()).await.unwrap();
                }
                Answer::Sse(frames) | Answer::Cut(frames) => {
                    sock.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n").await.unwrap();
                    for f in frames {
                        sock.write_all(format!("data: {f}\n\n").as_bytes())
                            .await
                            .unwrap();
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
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
