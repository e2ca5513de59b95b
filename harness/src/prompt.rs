//! A prompt from an editor as the model reads it (ACP's `ContentBlock`s): its text, then what
//! the person attached — a file they @-mentioned (`resource_link`), read through the rules as a
//! read of that path and only when the rules allow it without asking, and a selection or buffer
//! the editor embedded (`resource`), which the person sent themselves. What cannot be included is
//! said in its place, so nothing is dropped without a word.

use agent_client_protocol::v1::schema as acp;

/// What reading an attached file came to.
pub enum Attached {
    /// Its text.
    Read(String),
    /// It was not read: why, in words.
    NotRead(String),
}

/// A `file://` URI's path, its `%XX` escapes decoded; none for another scheme or a path that is
/// not UTF-8 once decoded.
pub fn file_path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file://")?;
    // `file://host/path`: only the local host (empty, or `localhost`).
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        if b == b'%' {
            let hex = bytes.get(at + 1..at + 3)?;
            let value = u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
            out.push(value);
            at += 3;
        } else {
            out.push(b);
            at += 1;
        }
    }
    String::from_utf8(out).ok().filter(|p| !p.contains('\0'))
}

/// One attachment as the model reads it; its name written so that it cannot close the tag.
fn block(kind: &str, name: &str, body: &str) -> String {
    let name = name
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    format!("<{kind} name=\"{name}\">\n{}\n</{kind}>", body.trim_end())
}

/// The prompt's text: its text blocks in order, then each attachment; `read` reads an attached
/// file's path as the rules allow.
pub fn prompt_text(blocks: &[acp::ContentBlock], read: &dyn Fn(&str) -> Attached) -> String {
    let mut parts: Vec<String> = Vec::new();
    for b in blocks {
        let part = match b {
            acp::ContentBlock::Text(t) => t.text.clone(),
            acp::ContentBlock::ResourceLink(link) => match file_path(&link.uri) {
                Some(path) => match read(&path) {
                    Attached::Read(text) => block("attached-file", &path, &text),
                    Attached::NotRead(why) => block(
                        "attached-file",
                        &path,
                        &format!("(not included: {why}; read it with the read tool)"),
                    ),
                },
                None => block(
                    "attached-link",
                    &link.uri,
                    "(not included: only files of this machine are read)",
                ),
            },
            acp::ContentBlock::Resource(embedded) => match &embedded.resource {
                acp::EmbeddedResourceResource::TextResourceContents(r) => {
                    block("attached", &r.uri, &r.text)
                }
                acp::EmbeddedResourceResource::BlobResourceContents(r) => {
                    block("attached", &r.uri, "(not included: it is not text)")
                }
                _ => block(
                    "attached",
                    "?",
                    "(not included: a kind of resource lembas does not read)",
                ),
            },
            acp::ContentBlock::Image(_) => {
                "(an image was attached: not included, this agent reads text only)".to_string()
            }
            acp::ContentBlock::Audio(_) => {
                "(a recording was attached: not included, this agent reads text only)".to_string()
            }
            _ => "(something was attached that lembas does not read: not included)".to_string(),
        };
        parts.push(part);
    }
    parts.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_uri_is_its_path_and_nothing_else_is() {
        assert_eq!(
            file_path("file:///p/src/a%20b.rs").as_deref(),
            Some("/p/src/a b.rs")
        );
        assert_eq!(file_path("file://localhost/p/x").as_deref(), Some("/p/x"));
        assert_eq!(file_path("file://evil/p/x"), None);
        assert_eq!(file_path("https://x/y"), None);
        assert_eq!(file_path("file:///p/%00x"), None);
        assert_eq!(file_path("file:///p/%zz"), None);
        assert_eq!(file_path("file:///p/%2"), None);
        assert_eq!(
            block("attached", "a\"><x>&", "t"),
            "<attached name=\"a&quot;&gt;&lt;x&gt;&amp;\">\nt\n</attached>"
        );
    }

    #[test]
    fn every_block_is_said_and_a_file_is_read_only_as_allowed() {
        let blocks = vec![
            acp::ContentBlock::Text(acp::TextContent::new("Fix this.")),
            acp::ContentBlock::ResourceLink(acp::ResourceLink::new("a.rs", "file:///p/a.rs")),
            acp::ContentBlock::ResourceLink(acp::ResourceLink::new(".env", "file:///p/.env")),
            acp::ContentBlock::Resource(acp::EmbeddedResource::new(
                acp::EmbeddedResourceResource::TextResourceContents(
                    acp::TextResourceContents::new("fn main() {}", "file:///p/b.rs"),
                ),
            )),
        ];
        let read = |path: &str| {
            if path.ends_with(".env") {
                Attached::NotRead("reading it asks first".into())
            } else {
                Attached::Read(format!("text of {path}"))
            }
        };
        let text = prompt_text(&blocks, &read);
        assert_eq!(
            text,
            "Fix this.\n<attached-file name=\"/p/a.rs\">\ntext of /p/a.rs\n</attached-file>\n\
             <attached-file name=\"/p/.env\">\n(not included: reading it asks first; read it with \
             the read tool)\n</attached-file>\n<attached name=\"file:///p/b.rs\">\nfn main() {}\n\
             </attached>"
        );
    }
}
