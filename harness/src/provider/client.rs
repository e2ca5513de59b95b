//! The HTTP side of the provider: `POST {base}/chat/completions` with `stream: true`, the answer
//! read as it comes through [`super::sse`] and [`super::chat`]. A 5xx is tried again twice — the
//! first at once, the second after 2 s — and each retry is said (the `retrying` phase); any other
//! failure is one clear line: an HTTP error, a refused connection, a timeout, a stream that ended
//! before the reply did. Nothing a server sends makes it panic.

use super::chat::{read_frame, ChatEvent, ChatRequest, Reply};
use super::sse::{SseSplitter, LINE_MAX};
use crate::text::one_line;
use serde_json::Value;
use std::time::Duration;
use thiserror::Error;

/// Why a request failed, in one line.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProviderError {
    #[error("cannot reach {url}: {reason}")]
    Connect { url: String, reason: String },
    #[error("{status} from {url}: {body}")]
    Http {
        url: String,
        status: String,
        body: String,
    },
    #[error("the server stopped answering for {secs}s")]
    Timeout { secs: u64 },
    #[error(
        "{status} from {url}: {body} — the server wants a key it takes: set LEMBAS_API_KEY to \
         it (or name another variable with --api-key-env)"
    )]
    Unauthorized {
        url: String,
        status: String,
        body: String,
    },
    #[error("the stream ended before the reply did")]
    Cut,
    #[error("the server said: {0}")]
    Server(String),
    #[error("the server's stream cannot be read: {0}")]
    Unreadable(String),
    #[error("the server sent too much: {0}")]
    TooMuch(String),
}

/// The most of an error's body that is read (64 KiB).
const ERROR_BODY_MAX: usize = 64 << 10;

/// What the caller hears while a request runs.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    Chat(ChatEvent),
    /// A 5xx: the request is sent again in `in_secs` seconds (attempt 1 or 2).
    Retrying {
        reason: String,
        in_secs: u64,
        attempt: u64,
    },
}

/// The waits before the retries of a 5xx: at once, then after two seconds.
pub const RETRY_WAITS: [u64; 2] = [0, 2];

/// What is posted: the request, streamed.
#[derive(serde::Serialize)]
struct Body<'r, 'a> {
    #[serde(flatten)]
    request: &'r ChatRequest<'a>,
    stream: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    return_progress: bool,
}

#[derive(Debug, Clone)]
pub struct Provider {
    pub base: String,
    pub api_key: Option<String>,
    /// The longest silence a stream may keep.
    pub idle: Duration,
    /// Ask llama.cpp for its prompt processing (`return_progress: true`).
    pub return_progress: bool,
    client: reqwest::Client,
}

impl Provider {
    pub fn new(base: &str, api_key: Option<String>) -> Provider {
        Provider {
            base: base.trim_end_matches('/').to_string(),
            api_key,
            idle: Duration::from_secs(300),
            return_progress: false,
            client: reqwest::Client::new(),
        }
    }

    fn url(&self) -> String {
        format!("{}/chat/completions", self.base)
    }

    /// The models the server serves (`GET {base}/models`, OpenAI's shape `{ data: [{ id }] }`),
    /// asked once with a short wait; none when it does not answer so (a picker is then not
    /// offered). At most 1 MiB of answer and 500 models are read.
    pub async fn models(&self) -> Option<Vec<String>> {
        let mut req = self.client.get(format!("{}/models", self.base));
        if let Some(key) = &self.api_key {
            req = req.bearer_auth(key);
        }
        let answer = tokio::time::timeout(Duration::from_secs(5), async {
            let mut resp = req.send().await.ok()?;
            if !resp.status().is_success() {
                return None;
            }
            let mut body = Vec::new();
            while let Ok(Some(chunk)) = resp.chunk().await {
                body.extend_from_slice(&chunk);
                if body.len() > 1 << 20 {
                    return None;
                }
            }
            Some(body)
        })
        .await
        .ok()??;
        let value: serde_json::Value = serde_json::from_slice(&answer).ok()?;
        let ids: Vec<String> = value
            .get("data")?
            .as_array()?
            .iter()
            .filter_map(|m| m.get("id")?.as_str())
            .filter(|id| !id.trim().is_empty())
            .take(500)
            .map(str::to_string)
            .collect();
        (!ids.is_empty()).then_some(ids)
    }

    /// Sends the request (streamed; with `return_progress` when asked) and reads the reply,
    /// telling `on` every event. The request is written from the caller's conversation as it
    /// is sent: nothing is copied.
    pub async fn stream(
        &self,
        request: &ChatRequest<'_>,
        mut on: impl FnMut(StreamEvent),
    ) -> Result<Reply, ProviderError> {
        let body = Body {
            request,
            stream: true,
            return_progress: self.return_progress,
        };
        let mut attempt = 0usize;
        loop {
            match self.once(&body, &mut on).await {
                Err(ProviderError::Http {
                    status,
                    body: text,
                    url,
                }) if status.starts_with('5') => {
                    let Some(wait) = RETRY_WAITS.get(attempt).copied() else {
                        return Err(ProviderError::Http {
                            url,
                            status,
                            body: text,
                        });
                    };
                    attempt += 1;
                    on(StreamEvent::Retrying {
                        reason: one_line(&format!("{status} {text}")),
                        in_secs: wait,
                        attempt: attempt as u64,
                    });
                    tokio::time::sleep(Duration::from_secs(wait)).await;
                }
                other => return other,
            }
        }
    }

    async fn once(
        &self,
        body: &Body<'_, '_>,
        on: &mut impl FnMut(StreamEvent),
    ) -> Result<Reply, ProviderError> {
        let url = self.url();
        let mut req = self.client.post(&url).json(body);
        if let Some(key) = &self.api_key {
            req = req.bearer_auth(key);
        }
        let connect = |e: reqwest::Error| ProviderError::Connect {
            url: url.clone(),
            reason: one_line(
                &std::error::Error::source(&e).map_or_else(|| e.to_string(), |s| s.to_string()),
            ),
        };
        let mut resp = tokio::time::timeout(self.idle, req.send())
            .await
            .map_err(|_| ProviderError::Timeout {
                secs: self.idle.as_secs(),
            })?
            .map_err(connect)?;
        let status = resp.status();
        if !status.is_success() {
            // Read up to a bound, each piece within the silence a stream may keep.
            let mut body = Vec::new();
            while body.len() < ERROR_BODY_MAX {
                match tokio::time::timeout(self.idle, resp.chunk()).await {
                    Ok(Ok(Some(piece))) => body.extend_from_slice(&piece),
                    _ => break,
                }
            }
            body.truncate(ERROR_BODY_MAX);
            let text = String::from_utf8_lossy(&body).into_owned();
            let message = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| {
                    v.pointer("/error/message")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                })
                .unwrap_or(text);
            let (status, body) = (status.to_string(), one_line(&message));
            if status.starts_with("401") || status.starts_with("403") {
                return Err(ProviderError::Unauthorized { url, status, body });
            }
            return Err(ProviderError::Http { url, status, body });
        }
        let mut sse = SseSplitter::new();
        let mut reply = Reply::default();
        // The silence is counted from the last frame, not the last byte: a server that sends
        // only keep-alive comments is silent too.
        let mut deadline = tokio::time::Instant::now() + self.idle;
        loop {
            let chunk = tokio::time::timeout_at(deadline, resp.chunk())
                .await
                .map_err(|_| ProviderError::Timeout {
                    secs: self.idle.as_secs(),
                })?;
            let end = matches!(chunk, Ok(None));
            let frames = match chunk {
                Ok(Some(bytes)) => sse.push(&bytes),
                Ok(None) => sse.finish(),
                Err(_) => return Err(ProviderError::Cut),
            };
            if sse.overflowed() {
                return Err(ProviderError::TooMuch(format!(
                    "a line of its stream passed {} MiB",
                    LINE_MAX >> 20
                )));
            }
            if !frames.is_empty() {
                deadline = tokio::time::Instant::now() + self.idle;
            }
            for f in frames {
                for e in read_frame(&f) {
                    reply.take(&e);
                    on(StreamEvent::Chat(e));
                }
            }
            if let Some(m) = &reply.overflow {
                return Err(ProviderError::TooMuch(m.clone()));
            }
            if let Some(m) = &reply.error {
                return Err(ProviderError::Server(m.clone()));
            }
            if let Some(m) = &reply.unreadable {
                return Err(ProviderError::Unreadable(m.clone()));
            }
            if reply.done {
                return Ok(reply);
            }
            if end {
                return if reply.complete() {
                    Ok(reply)
                } else {
                    Err(ProviderError::Cut)
                };
            }
        }
    }
}
