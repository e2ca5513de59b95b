//! Server-sent events as chat servers send them: lines `data: …` (several make one frame, joined
//! with newlines), a blank line ending the frame, `:` comments and other fields ignored, `\r\n`
//! or `\n`. Bytes may arrive cut anywhere, a UTF-8 character included. A line or a frame longer
//! than [`LINE_MAX`] is not kept: the splitter says it overflowed and holds nothing more.

/// The longest line, and the longest frame, the splitter keeps (8 MiB).
pub const LINE_MAX: usize = 8 << 20;

/// Splits a byte stream into the `data` of its events.
#[derive(Debug, Default)]
pub struct SseSplitter {
    buf: Vec<u8>,
    /// How much of `buf` is known to hold no newline.
    checked: usize,
    data: Vec<String>,
    /// The bytes of `data`.
    data_len: usize,
    overflowed: bool,
}

impl SseSplitter {
    pub fn new() -> SseSplitter {
        SseSplitter::default()
    }

    /// Whether a line or a frame passed [`LINE_MAX`]: nothing more is read.
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// Feeds bytes; returns the frames they completed.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        if self.overflowed {
            return Vec::new();
        }
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        let SseSplitter {
            buf,
            checked,
            data,
            data_len,
            ..
        } = self;
        // Lines are read from `start` on (the bytes already checked are not searched again), and
        // the buffer is shifted once at the end.
        let mut start = 0;
        let mut from = *checked;
        while let Some(nl) = buf
            .get(from..)
            .and_then(|rest| rest.iter().position(|b| *b == b'\n'))
        {
            let end = from + nl;
            let bytes = buf.get(start..end).unwrap_or_default();
            let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
            line(&String::from_utf8_lossy(bytes), data, data_len, &mut out);
            start = end + 1;
            from = start;
        }
        buf.drain(..start);
        *checked = buf.len();
        if buf.len() > LINE_MAX || *data_len > LINE_MAX {
            self.overflowed = true;
            self.buf = Vec::new();
            self.data = Vec::new();
        }
        out
    }

    /// The stream ended: a last frame without its blank line still counts.
    pub fn finish(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        if self.overflowed {
            return out;
        }
        if !self.buf.is_empty() {
            let rest = std::mem::take(&mut self.buf);
            let last = String::from_utf8_lossy(&rest);
            line(
                last.trim_end_matches('\r'),
                &mut self.data,
                &mut self.data_len,
                &mut out,
            );
        }
        frame(&mut self.data, &mut self.data_len, &mut out);
        out
    }
}

/// The data lines gathered make a frame (one line: itself, several: joined with newlines).
fn frame(data: &mut Vec<String>, data_len: &mut usize, out: &mut Vec<String>) {
    *data_len = 0;
    match data.len() {
        0 => {}
        1 => out.extend(data.pop()),
        _ => out.push(std::mem::take(data).join("\n")),
    }
}

/// One line of the stream: a blank one ends a frame; `data:` adds to it; the rest is ignored.
fn line(line: &str, data: &mut Vec<String>, data_len: &mut usize, out: &mut Vec<String>) {
    if line.is_empty() {
        frame(data, data_len, out);
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
        *data_len += value.len();
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
    fn a_line_without_end_is_not_kept() {
        let mut s = SseSplitter::new();
        let piece = vec![b'a'; 1 << 20];
        s.push(b"data: ");
        for _ in 0..=(LINE_MAX >> 20) {
            assert!(s.push(&piece).is_empty());
        }
        assert!(s.overflowed());
        assert!(s.buf.capacity() == 0 && s.finish().is_empty());
        // Many data lines that never end their frame: the same.
        let mut s = SseSplitter::new();
        let line = format!("data: {}\n", "b".repeat(1 << 20));
        for _ in 0..=(LINE_MAX >> 20) {
            s.push(line.as_bytes());
        }
        assert!(s.overflowed());
    }

    #[test]
    fn a_last_frame_without_its_blank_line_counts() {
        let mut s = SseSplitter::new();
        assert!(s.push(b"data: tail").is_empty());
        assert_eq!(s.finish(), ["tail"]);
    }
}
