//! Server-sent events as chat servers send them: lines `data: …` (several make one frame, joined
//! with newlines), a blank line ending the frame, `:` comments and other fields ignored, `\r\n`
//! or `\n`. Bytes may arrive cut anywhere, a UTF-8 character included.

/// Splits a byte stream into the `data` of its events.
#[derive(Debug, Default)]
pub struct SseSplitter {
    buf: Vec<u8>,
    data: Vec<String>,
}

impl SseSplitter {
    pub fn new() -> SseSplitter {
        SseSplitter::default()
    }

    /// Feeds bytes; returns the frames they completed.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        let SseSplitter { buf, data } = self;
        // Lines are read from `start` on, and the buffer is shifted once at the end.
        let mut start = 0;
        while let Some(nl) = buf
            .get(start..)
            .and_then(|rest| rest.iter().position(|b| *b == b'\n'))
        {
            let end = start + nl;
            let bytes = buf.get(start..end).unwrap_or_default();
            let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
            line(&String::from_utf8_lossy(bytes), data, &mut out);
            start = end + 1;
        }
        buf.drain(..start);
        out
    }

    /// The stream ended: a last frame without its blank line still counts.
    pub fn finish(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.buf.is_empty() {
            let rest = std::mem::take(&mut self.buf);
            let last = String::from_utf8_lossy(&rest);
            line(last.trim_end_matches('\r'), &mut self.data, &mut out);
        }
        frame(&mut self.data, &mut out);
        out
    }
}

/// The data lines gathered make a frame (one line: itself, several: joined with newlines).
fn frame(data: &mut Vec<String>, out: &mut Vec<String>) {
    match data.len() {
        0 => {}
        1 => out.extend(data.pop()),
        _ => out.push(std::mem::take(data).join("\n")),
    }
}

/// One line of the stream: a blank one ends a frame; `data:` adds to it; the rest is ignored.
fn line(line: &str, data: &mut Vec<String>, out: &mut Vec<String>) {
    if line.is_empty() {
        frame(data, out);
        return;
    }
    if line.starts_with(':') {
        return;
    }
    let (field, value) = match line.split_once(':') {
        Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
        None => (line, ""),
    };
    if field == "data" {
        data.push(value.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_cut_anywhere_come_out_whole() {
        let stream = "data: {\"a\":1}\n\n: keep-alive\n\ndata: é\r\ndata: two\r\n\r\nevent: x\ndata: [DONE]\n\n";
        let bytes = stream.as_bytes();
        for cut in 0..bytes.len() {
            let mut s = SseSplitter::new();
            let (a, b) = bytes.split_at(cut);
            let mut frames = s.push(a);
            frames.extend(s.push(b));
            frames.extend(s.finish());
            assert_eq!(frames, ["{\"a\":1}", "é\ntwo", "[DONE]"], "cut at {cut}");
        }
    }

    #[test]
    fn a_last_frame_without_its_blank_line_counts() {
        let mut s = SseSplitter::new();
        assert!(s.push(b"data: tail").is_empty());
        assert_eq!(s.finish(), ["tail"]);
    }
}
