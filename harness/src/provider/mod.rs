//! The provider: an OpenAI-compatible chat server's streamed answer, read without I/O here — the
//! bytes come in, events come out — so that every frame a server may send is tested without a
//! network. `sse` splits the stream into frames; `chat` reads each frame into events and puts a
//! reply together (tool calls merged by `index`); `client` sends the request and retries a 5xx.

pub mod chat;
pub mod client;
pub mod sse;
