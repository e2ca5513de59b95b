//! The harness's benchmark (`make bench-harness`): medians of several rounds on 127.0.0.1.
//!
//! 1. **Streaming**: a local server sends 100,000 one-token `content` frames as fast as it can;
//!    tokens per second through a whole engine turn (SSE parsing, events, pacing) against a bare
//!    read of the same bytes with the same HTTP client. Goal: at least 0.9 of the bare read.
//! 2. **Memory per idle subagent**: the resident memory a tree grows by when 31 subagents have
//!    been added, have worked one turn each and wait (each an engine with its conversation and a
//!    task), divided by 31.

#[path = "../tests/common/scripted.rs"]
mod scripted;

use lembas_harness::crew::{Crew, Setup};
use lembas_harness::engine::{Engine, Unattended};
use lembas_harness::provider::client::Provider;
use lembas_harness::tools::Workspace;
use lembas_rules::permission::{Context, Mode};
use lembas_rules::team::TeamOptions;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

const TOKENS: usize = 100_000;
const ROUNDS: usize = 7;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// A server that answers every request with the same 100,000-token stream.
async fn stream_server() -> String {
    let mut body = Vec::new();
    body.extend_from_slice(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
    );
    for i in 0..TOKENS {
        let frame = json!({"choices": [{"delta": {"content": format!("t{} ", i % 10)}}]});
        body.extend_from_slice(format!("data: {frame}\n\n").as_bytes());
    }
    body.extend_from_slice(b"data: [DONE]\n\n");
    let body = Arc::new(body);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| {
        eprintln!("bench: {e}");
        std::process::exit(1)
    });
    let url = format!(
        "http://{}/v1",
        listener
            .local_addr()
            .map_or_else(|_| "127.0.0.1:0".into(), |a| a.to_string())
    );
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let body = Arc::clone(&body);
            tokio::spawn(async move {
                let _ = scripted::read_body(&mut sock).await;
                let _ = sock.write_all(&body).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    url
}

/// The stream's response, with the time it was asked at.
async fn request(url: &str) -> Option<(Instant, reqwest::Response)> {
    let start = Instant::now();
    let resp = reqwest::Client::new()
        .post(format!("{url}/chat/completions"))
        .body("{}")
        .send()
        .await
        .ok()?;
    Some((start, resp))
}

async fn bare(url: &str) -> f64 {
    let Some((start, mut resp)) = request(url).await else {
        return 0.0;
    };
    let mut bytes = 0usize;
    while let Ok(Some(chunk)) = resp.chunk().await {
        bytes += chunk.len();
    }
    assert_read(bytes);
    TOKENS as f64 / start.elapsed().as_secs_f64()
}

/// The same read, its bytes split into SSE frames and each frame parsed (what any client of the
/// stream must do), without the engine's reply, events and pacing.
async fn parsed(url: &str) -> f64 {
    let Some((start, mut resp)) = request(url).await else {
        return 0.0;
    };
    let mut sse = lembas_harness::provider::sse::SseSplitter::new();
    let mut events = 0usize;
    while let Ok(Some(chunk)) = resp.chunk().await {
        for f in sse.push(&chunk) {
            events += lembas_harness::provider::chat::read_frame(&f).len();
        }
    }
    assert_read(events);
    TOKENS as f64 / start.elapsed().as_secs_f64()
}

fn assert_read(bytes: usize) {
    if bytes < TOKENS {
        eprintln!("bench: the stream was cut ({bytes} bytes)");
        std::process::exit(1);
    }
}

async fn engine(url: &str) -> f64 {
    let dir = std::env::temp_dir();
    let mut e = Engine::new(
        Provider::new(url, None),
        "m",
        Workspace::new(&dir),
        Context::new(Mode::Edit),
        Box::new(Unattended),
    );
    let mut events = 0usize;
    let start = Instant::now();
    let end = e.turn("Go.", &mut |_| events += 1).await;
    let secs = start.elapsed().as_secs_f64();
    match end {
        Ok(end) => assert_read(end.reply.len()),
        Err(err) => {
            eprintln!("bench: {err}");
            std::process::exit(1)
        }
    }
    TOKENS as f64 / secs
}

fn rss_kib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0.0)
}

async fn idle_subagents() -> f64 {
    const N: usize = 31;
    let lead = "You are the main agent";
    // One step adds them all; each says hello and waits.
    let adds: Vec<serde_json::Value> = (0..N)
        .map(|i| {
            let args = json!({"name": format!("sub{i}"), "role": "waits", "task": format!("Say hello, sub{i}."), "goal": "a tree"});
            json!({"index": i, "id": format!("a{i}"), "type": "function", "function": {"name": "team_add", "arguments": args.to_string()}})
        })
        .collect();
    let frame = json!({"choices": [{"delta": {"tool_calls": adds}}]}).to_string();
    let mut rules = vec![scripted::rule(
        lead,
        "Go",
        scripted::Reply::Sse(vec![frame, "[DONE]".into()]),
    )];
    for i in 0..N {
        let name = format!("sub{i}");
        rules.push(scripted::rule(
            &format!("You are \"{name}\""),
            "",
            scripted::says(&format!("{name} says hello.")),
        ));
    }
    for _ in 0..(N + 2) {
        rules.push(scripted::rule(lead, "", scripted::says("Noted.")));
    }
    let server = scripted::serve(rules, 0).await;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move { while rx.recv().await.is_some() {} });
    let setup = Setup {
        provider: Provider::new(&server.url, None),
        workspace: Workspace::new(std::env::temp_dir()),
        permissions: Arc::new(Mutex::new(Context::new(Mode::Edit))),
        asker: Arc::new(Unattended),
        window: None,
        system: "You are lembas.".into(),
        plan: lembas_harness::engine::PlanDesk {
            plan: Arc::default(),
            file: ".lembas/plans/bench.md".into(),
        },
        keeping: lembas_harness::crew::Keeping::default(),
        remember: None,
    };
    let options = TeamOptions {
        min: 1,
        max: 32,
        ..TeamOptions::default()
    };
    // A tree with no subagent, warmed by one session, first.
    let before = rss_kib();
    let crew = Crew::new(setup, &options, tx);
    crew.prompt("Go.");
    let _ = tokio::time::timeout(Duration::from_secs(60), crew.finished()).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let live = crew.tree().agents.len().saturating_sub(1);
    let after = rss_kib();
    crew.close();
    if live != N {
        eprintln!("bench: {live} idle subagents, not {N}");
        std::process::exit(1);
    }
    (after - before) / N as f64
}

#[tokio::main]
async fn main() {
    let url = stream_server().await;
    // Warm both paths once.
    bare(&url).await;
    engine(&url).await;
    let (mut b, mut p, mut e) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        b.push(bare(&url).await);
        p.push(parsed(&url).await);
        e.push(engine(&url).await);
    }
    let (b, p, e) = (median(b), median(p), median(e));
    println!("stream of {TOKENS} tokens, medians of {ROUNDS} rounds:");
    println!("  bare read             {:>10.0} tokens/s", b);
    println!("  read + SSE + parse    {:>10.0} tokens/s", p);
    println!("  through the engine    {:>10.0} tokens/s", e);
    println!("  engine / bare read    {:>10.2} (goal ≥ 0.9)", e / b);
    println!("  engine / read+parse   {:>10.2}", e / p);
    // What the frames' parsing alone costs, for the record.
    let frames: Vec<String> = (0..TOKENS)
        .map(|i| json!({"choices": [{"delta": {"content": format!("t{} ", i % 10)}}]}).to_string())
        .collect();
    let mut alone = Vec::new();
    for _ in 0..ROUNDS {
        let start = Instant::now();
        let mut n = 0usize;
        for f in &frames {
            n += lembas_harness::provider::chat::read_frame(f).len();
        }
        assert_read(n);
        alone.push(TOKENS as f64 / start.elapsed().as_secs_f64());
    }
    println!("  frames parsed alone   {:>10.0} tokens/s", median(alone));
    let kib = idle_subagents().await;
    println!("memory per idle subagent: {kib:.0} KiB (resident, 31 subagents)");
}
