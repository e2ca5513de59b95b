#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! The provider against a fake OpenAI-compatible server on 127.0.0.1: real HTTP and SSE over
//! real TCP. Each connection is answered by the next scripted response.

mod common;
use common::{content, fake, Answer};

use lembas_harness::provider::chat::{ChatEvent, ChatRequest, Message, StreamOptions};
use lembas_harness::provider::client::{Provider, ProviderError, StreamEvent};
use serde_json::json;
use std::time::{Duration, Instant};

/// A request to model `m` with the conversation `messages` and no tools.
fn request(messages: &[Message]) -> ChatRequest<'_> {
    ChatRequest {
        model: "m",
        messages,
        tools: &[],
        stream_options: StreamOptions {
            include_usage: true,
        },
    }
}

/// The error a request gets from a server answering with `script`.
async fn failure(script: Vec<Answer>) -> ProviderError {
    let (url, _) = fake(script).await;
    Provider::new(&url, None)
        .stream(&request(&[]), |_| {})
        .await
        .unwrap_err()
}

#[tokio::test]
async fn a_streamed_reply_with_stream_set() {
    let (url, bodies) = fake(vec![Answer::Sse(vec![
        content("Hel"),
        content("lo"),
        json!({"choices": [{"delta": {}, "finish_reason": "stop"}]}).to_string(),
        "[DONE]".into(),
    ])])
    .await;
    let mut events = Vec::new();
    let reply = Provider::new(&url, None)
        .stream(
            &request(&[Message::User {
                content: "Hi.".into(),
            }]),
            |e| events.push(e),
        )
        .await
        .unwrap();
    assert_eq!(reply.content, "Hello");
    assert_eq!(reply.finish.as_deref(), Some("stop"));
    assert!(events.contains(&StreamEvent::Chat(ChatEvent::Content("Hel".into()))));
    let sent: serde_json::Value = serde_json::from_str(&bodies.lock().unwrap()[0]).unwrap();
    assert_eq!(
        sent,
        json!({"model": "m", "messages": [{"role": "user", "content": "Hi."}], "tools": [],
            "stream_options": {"include_usage": true}, "stream": true})
    );
}

#[tokio::test]
async fn a_502_twice_then_success_says_retrying() {
    let (url, _) = fake(vec![
        Answer::Status(502, "{\"error\":{\"message\":\"Bad Gateway\"}}"),
        Answer::Status(502, "busy"),
        Answer::Sse(vec![content("ok"), "[DONE]".into()]),
    ])
    .await;
    let mut retries = Vec::new();
    let t0 = Instant::now();
    let reply = Provider::new(&url, None)
        .stream(&request(&[]), |e| {
            if let StreamEvent::Retrying {
                in_secs,
                attempt,
                reason,
            } = e
            {
                retries.push((attempt, in_secs, reason));
            }
        })
        .await
        .unwrap();
    assert_eq!(reply.content, "ok");
    assert_eq!(
        retries.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>(),
        [(1, 0), (2, 2)]
    );
    assert!(retries[0].2.contains("502"), "{:?}", retries[0].2);
    assert!(t0.elapsed() >= Duration::from_secs(2));
}

#[tokio::test]
async fn a_404_is_one_clear_line() {
    let err = failure(vec![Answer::Status(
        404,
        "{\"error\":{\"message\":\"no such model\\nstack\"}}",
    )])
    .await;
    assert!(
        matches!(&err, ProviderError::Http { status, body, .. } if status.starts_with("404") && body == "no such model"),
        "{err}"
    );
    assert!(!err.to_string().contains('\n'));
}

#[tokio::test]
async fn three_5xx_fail() {
    let err = failure(vec![
        Answer::Status(500, "x"),
        Answer::Status(503, "y"),
        Answer::Status(500, "z"),
    ])
    .await;
    assert!(matches!(err, ProviderError::Http { .. }), "{err}");
}

#[tokio::test]
async fn a_cut_stream_is_an_error() {
    let err = failure(vec![Answer::Cut(vec![content("Half")])]).await;
    assert_eq!(err, ProviderError::Cut);
}

#[tokio::test]
async fn a_refused_connection_is_one_clear_line() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    drop(listener);
    let err = Provider::new(&url, None)
        .stream(&request(&[]), |_| {})
        .await
        .unwrap_err();
    assert!(matches!(err, ProviderError::Connect { .. }), "{err}");
    assert!(err.to_string().starts_with("cannot reach"), "{err}");
}

#[tokio::test]
async fn an_error_frame_and_garbage_never_panic() {
    // What lembas cannot read is said as its own, not as the server's words.
    let err = failure(vec![Answer::Sse(vec![
        "{not json".into(),
        json!({"error": {"message": "overloaded"}}).to_string(),
    ])])
    .await;
    assert!(
        matches!(err, ProviderError::Unreadable(ref m) if m.starts_with("a frame that is not JSON")),
        "{err}"
    );
}
