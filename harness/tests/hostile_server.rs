#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! A hostile model server against `lembas run`: an endless stream, a silent reply, keep-alives
//! and nothing else, a 1 GB line, 10,000 calls, 50 MB of arguments, a 1 GB error body. Each run
//! ends by itself with a clear error (or, for the arguments, a refusal the model sees) well
//! within a minute, and lembas's peak memory stays under a fixed bound.

mod common;
use common::scripted::{read_body, send_head};
use serde_json::json;
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

/// What the server does with a request.
#[derive(Clone, Copy)]
enum Hostile {
    /// Content frames, as fast as they go, forever.
    EndlessStream,
    /// The head of a stream, then nothing.
    Silent,
    /// The head, then a keep-alive comment every 100 ms and nothing else.
    KeepAlivesOnly,
    /// `data: ` and then a gigabyte without a newline.
    GigabyteLine,
    /// One reply making 10,000 calls.
    TenThousandCalls,
    /// One write call whose arguments are 50 MB; then, asked again, "Done.".
    FiftyMegabyteArguments,
    /// A 500 whose body is a gigabyte.
    GigabyteErrorBody,
}

fn frame(value: serde_json::Value) -> Vec<u8> {
    format!("data: {value}\n\n").into_bytes()
}

/// The bodies of the requests the server was sent.
type Bodies = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

async fn answer(mut sock: TcpStream, hostile: Hostile, first: bool, bodies: Bodies) {
    let body = read_body(&mut sock).await.unwrap_or_default();
    bodies
        .lock()
        .unwrap()
        .push(String::from_utf8_lossy(&body).into_owned());
    let piece = "x".repeat(64 << 10);
    match hostile {
        Hostile::EndlessStream => {
            send_head(&mut sock).await;
            let bytes = frame(json!({"choices": [{"delta": {"content": piece}}]}));
            while sock.write_all(&bytes).await.is_ok() {}
        }
        Hostile::Silent => {
            send_head(&mut sock).await;
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
        Hostile::KeepAlivesOnly => {
            send_head(&mut sock).await;
            while sock.write_all(b": keep-alive\n\n").await.is_ok() {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        Hostile::GigabyteLine => {
            send_head(&mut sock).await;
            let _ = sock.write_all(b"data: ").await;
            for _ in 0..(1 << 14) {
                if sock.write_all(piece.as_bytes()).await.is_err() {
                    break;
                }
            }
        }
        Hostile::TenThousandCalls => {
            send_head(&mut sock).await;
            for i in 0..10_000 {
                let call = json!({"choices": [{"delta": {"tool_calls": [{"index": i, "id": format!("c{i}"), "type": "function", "function": {"name": "list", "arguments": "{}"}}]}}]});
                if sock.write_all(&frame(call)).await.is_err() {
                    return;
                }
            }
            let _ = sock.write_all(b"data: [DONE]\n\n").await;
        }
        Hostile::FiftyMegabyteArguments if first => {
            send_head(&mut sock).await;
            let start = json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "big", "type": "function", "function": {"name": "write", "arguments": "{\"path\": \"big.txt\", \"content\": \""}}]}}]});
            let _ = sock.write_all(&frame(start)).await;
            let more = frame(
                json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}}]}),
            );
            for _ in 0..800 {
                if sock.write_all(&more).await.is_err() {
                    return;
                }
            }
            let end = json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\"}"}}]}, "finish_reason": "tool_calls"}]});
            let _ = sock.write_all(&frame(end)).await;
            let _ = sock.write_all(b"data: [DONE]\n\n").await;
        }
        Hostile::FiftyMegabyteArguments => {
            send_head(&mut sock).await;
            let done =
                json!({"choices": [{"delta": {"content": "Done."}, "finish_reason": "stop"}]});
            let _ = sock.write_all(&frame(done)).await;
            let _ = sock.write_all(b"data: [DONE]\n\n").await;
        }
        Hostile::GigabyteErrorBody => {
            let _ = sock
                .write_all(
                    b"HTTP/1.1 500 Oops\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n",
                )
                .await;
            for _ in 0..(1 << 14) {
                if sock.write_all(piece.as_bytes()).await.is_err() {
                    break;
                }
            }
        }
    }
    let _ = sock.shutdown().await;
}

/// Serves `hostile` to every request; its URL, and the bodies it is sent.
async fn serve(hostile: Hostile) -> (String, Bodies) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let bodies = Bodies::default();
    let kept = bodies.clone();
    tokio::spawn(async move {
        let mut first = true;
        while let Ok((sock, _)) = listener.accept().await {
            tokio::spawn(answer(sock, hostile, first, kept.clone()));
            first = false;
        }
    });
    (url, bodies)
}

/// The peak resident memory of the largest child this test process has waited for, in KiB.
fn children_peak_kib() -> i64 {
    nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .unwrap()
        .max_rss()
}

/// The most memory lembas may take whatever the server sends (the bounds are 8 MiB a reply and
/// a line; the rest is the process itself).
const PEAK_MAX_KIB: i64 = 256 << 10;

/// `lembas run` against `hostile`: its exit code, what it said, how long it took.
async fn run(hostile: Hostile) -> (Option<i32>, String, Duration) {
    let (url, bodies) = serve(hostile).await;
    let dir = common::project_with_hello(&format!("lembas-hostile-server-{}", hostile as u8));
    let started = Instant::now();
    let out = tokio::time::timeout(
        Duration::from_secs(120),
        tokio::process::Command::new(env!("CARGO_BIN_EXE_lembas"))
            .env("XDG_STATE_HOME", common::state_home())
            .args([
                "run",
                "--base-url",
                &url,
                "--model",
                "m",
                "--unattended",
                "--idle-timeout",
                "3",
                "--events",
            ])
            .arg(dir.join("events.jsonl"))
            .arg("Go.")
            .current_dir(&dir)
            .env_remove("LEMBAS_API_KEY")
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("lembas did not end by itself within two minutes")
    .unwrap();
    let took = started.elapsed();
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap_or_default();
    let sent = bodies.lock().unwrap().join("\n");
    let said = format!(
        "{}\n{}\n{events}\n{sent}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), said, took)
}

async fn ends_with(hostile: Hostile, code: i32, says: &str) {
    let (exit, said, took) = run(hostile).await;
    println!("ended in {took:?} ({said:.300})");
    assert_eq!(exit, Some(code), "{said:.2000}");
    assert!(said.contains(says), "wanted {says:?} in {said:.2000}");
    assert!(took < Duration::from_secs(60), "took {took:?}");
    let peak = children_peak_kib();
    assert!(peak < PEAK_MAX_KIB, "peak memory {peak} KiB");
}

#[tokio::test]
async fn an_endless_stream_is_stopped_at_its_bound() {
    ends_with(Hostile::EndlessStream, 1, "the reply passed 8 MiB").await;
}

#[tokio::test]
async fn a_silent_reply_ends_at_the_idle_timeout() {
    ends_with(Hostile::Silent, 1, "the server stopped answering for 3s").await;
}

#[tokio::test]
async fn keep_alives_are_silence_too() {
    ends_with(
        Hostile::KeepAlivesOnly,
        1,
        "the server stopped answering for 3s",
    )
    .await;
}

#[tokio::test]
async fn a_gigabyte_line_is_not_kept() {
    ends_with(
        Hostile::GigabyteLine,
        1,
        "a line of its stream passed 8 MiB",
    )
    .await;
}

#[tokio::test]
async fn ten_thousand_calls_are_refused() {
    ends_with(Hostile::TenThousandCalls, 1, "more than 128 calls").await;
}

#[tokio::test]
async fn fifty_megabytes_of_arguments_are_refused_to_the_model() {
    let (exit, said, took) = run(Hostile::FiftyMegabyteArguments).await;
    println!("50 MB of arguments answered in {took:?}");
    assert_eq!(exit, Some(0), "{said:.2000}");
    assert!(said.contains("Done."), "{said:.2000}");
    assert!(
        said.contains("the call's arguments passed 1 MiB"),
        "the model is told: {said:.2000}"
    );
    assert!(took < Duration::from_secs(60), "took {took:?}");
    assert!(children_peak_kib() < PEAK_MAX_KIB);
}

#[tokio::test]
async fn a_gigabyte_error_body_is_read_to_its_bound() {
    // A 500 is tried again twice (at once, then after 2 s), each read to its bound.
    ends_with(Hostile::GigabyteErrorBody, 1, "500").await;
}
