//! A case's JSON read as far as it goes, the way an author types it: its pieces by kind (keys,
//! strings, numbers, literals) and the line where each path (`steps[3].expect.result`) is
//! written, so that a difference says its line ("line 4"); and Format. A reader that never fails.
//! (The editor's own colours and marks are CodeMirror's: `editor/editor.js`.)

/// What a piece of the text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An object's key.
    Key,
    /// A string value.
    Text,
    /// A number.
    Number,
    /// `true`, `false` or `null`.
    Literal,
    /// Anything else: brackets, commas, colons, spaces, a stray character.
    Plain,
}

/// A container being read, with the path to it and the key or index inside it.
enum Open {
    Object { path: String, key: Option<String> },
    Array { path: String, index: usize },
}

/// The text read: its pieces (byte ranges and kinds) and each path's first line (1-based).
#[derive(Debug, Default, PartialEq)]
pub struct Scan {
    /// The pieces, in order, covering the whole text.
    pub pieces: Vec<(usize, usize, Kind)>,
    /// Each key's or array item's path and the line it starts on.
    pub lines: Vec<(String, usize)>,
}

impl Scan {
    /// The line where `path` is written, or where its nearest written parent is.
    pub fn line_of(&self, path: &str) -> Option<usize> {
        let mut path = path;
        loop {
            if let Some((_, line)) = self.lines.iter().find(|(p, _)| p == path) {
                return Some(*line);
            }
            let cut = path.rfind(['.', '['])?;
            path = &path[..cut];
        }
    }
}

/// Reads `text` as JSON as far as it goes.
pub fn scan(text: &str) -> Scan {
    let bytes = text.as_bytes();
    let mut scan = Scan::default();
    let mut stack: Vec<Open> = Vec::new();
    let mut line = 1;
    let mut i = 0;
    // The path of the value starting here, recorded once for an array's item.
    let value_starts = |stack: &mut Vec<Open>, scan: &mut Scan, line: usize| -> String {
        match stack.last_mut() {
            Some(Open::Object { path, key }) => match key {
                Some(k) if path.is_empty() => k.clone(),
                Some(k) => format!("{path}.{k}"),
                None => path.clone(),
            },
            Some(Open::Array { path, index }) => {
                let at = format!("{path}[{index}]");
                scan.lines.push((at.clone(), line));
                at
            }
            None => String::new(),
        }
    };
    // The byte at a position; none past the end.
    let at = |k: usize| bytes.get(k).copied();
    while let Some(b) = at(i) {
        let start = i;
        let kind = match b {
            b'"' => {
                i += 1;
                while let Some(c) = at(i).filter(|c| *c != b'"' && *c != b'\n') {
                    i += if c == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
                while i < bytes.len() && !text.is_char_boundary(i) {
                    i += 1;
                }
                // A key is a string followed by a colon, inside an object.
                let mut j = i;
                while matches!(at(j), Some(b' ' | b'\t' | b'\r' | b'\n')) {
                    j += 1;
                }
                let is_key = bytes.get(j) == Some(&b':')
                    && matches!(stack.last(), Some(Open::Object { .. }));
                if is_key {
                    let word = text.get(start + 1..i.saturating_sub(1)).unwrap_or("");
                    if let Some(Open::Object { path, key }) = stack.last_mut() {
                        let at = if path.is_empty() {
                            word.to_string()
                        } else {
                            format!("{path}.{word}")
                        };
                        scan.lines.push((at, line));
                        *key = Some(word.to_string());
                    }
                    Kind::Key
                } else {
                    value_starts(&mut stack, &mut scan, line);
                    Kind::Text
                }
            }
            b'{' | b'[' => {
                let path = value_starts(&mut stack, &mut scan, line);
                stack.push(if b == b'{' {
                    Open::Object { path, key: None }
                } else {
                    Open::Array { path, index: 0 }
                });
                i += 1;
                Kind::Plain
            }
            b'}' | b']' => {
                stack.pop();
                i += 1;
                Kind::Plain
            }
            b',' => {
                if let Some(Open::Array { index, .. }) = stack.last_mut() {
                    *index += 1;
                }
                i += 1;
                Kind::Plain
            }
            b'-' | b'0'..=b'9' => {
                value_starts(&mut stack, &mut scan, line);
                while matches!(at(i), Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')) {
                    i += 1;
                }
                Kind::Number
            }
            b't' | b'f' | b'n' => {
                value_starts(&mut stack, &mut scan, line);
                while at(i).is_some_and(|c| c.is_ascii_alphabetic()) {
                    i += 1;
                }
                Kind::Literal
            }
            _ => {
                if b == b'\n' {
                    line += 1;
                }
                i += 1;
                // A character of several bytes is one piece.
                while i < bytes.len() && !text.is_char_boundary(i) {
                    i += 1;
                }
                Kind::Plain
            }
        };
        match scan.pieces.last_mut() {
            Some((_, end, last)) if *last == kind && kind == Kind::Plain => *end = i,
            _ => scan.pieces.push((start, i, kind)),
        }
    }
    scan
}

/// Keys kept in the order they are written: a case's JSON formatted, two spaces a level.
pub fn formatted(text: &str) -> Result<String, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| crate::model::json_error(text, &e))?;
    lembas_rules::json::to_pretty_text(&value).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CASE: &str = "{\n  \"about\": \"x <y>\",\n  \"steps\": [\n    {\"op\": \"call\"},\n    {\n      \"expect\": {\"result\": true, \"n\": -1.5}\n    }\n  ]\n}";

    #[test]
    fn each_path_has_its_line() {
        let s = scan(CASE);
        assert_eq!(s.line_of("about"), Some(2));
        assert_eq!(s.line_of("steps[0].op"), Some(4));
        assert_eq!(s.line_of("steps[1]"), Some(5));
        assert_eq!(s.line_of("steps[1].expect.result"), Some(6));
        // A path not written (a key only the answer has) goes to its parent's line.
        assert_eq!(s.line_of("steps[1].expect.tree.size"), Some(6));
        assert_eq!(s.line_of("nothing"), None);
    }

    #[test]
    fn the_pieces_cover_the_text_and_are_escaped() {
        let s = scan(CASE);
        let mut at = 0;
        for (start, end, _) in &s.pieces {
            assert_eq!(*start, at);
            at = *end;
        }
        assert_eq!(at, CASE.len());
        let kind_of = |piece: &str| {
            s.pieces
                .iter()
                .find(|(start, end, _)| CASE.get(*start..*end) == Some(piece))
                .map(|p| p.2)
        };
        assert_eq!(kind_of("\"about\""), Some(Kind::Key));
        assert_eq!(kind_of("\"x <y>\""), Some(Kind::Text));
        assert_eq!(kind_of("true"), Some(Kind::Literal));
        assert_eq!(kind_of("-1.5"), Some(Kind::Number));
        // Half-written text is read as far as it goes.
        let partial = "{\"a\": [1, \"é";
        assert_eq!(
            scan(partial).pieces.last().map(|p| p.1),
            Some(partial.len())
        );
    }

    /// Whatever the text — half-written, escaped oddly, in several scripts — its pieces cover
    /// it exactly, each on character boundaries.
    #[test]
    fn any_text_is_read_whole() {
        let tricky = [
            "",
            "\"",
            "\"\\",
            "\"\\\"",
            "{\"a\\é\": \"é\\\"→\"}",
            "{\"a\":\n\"b",
            "[1e5, -0.5, truex, nul, \"\\u00e9\"]",
            "{{{{[[[[",
            "}}]]],,,::",
            "😀\"😀\":😀",
            "\"\\😀\"",
            "\t\r\n  \u{7f}\u{0}",
        ];
        for text in tricky {
            let s = scan(text);
            let mut at = 0;
            for (start, end, _) in &s.pieces {
                assert_eq!(*start, at, "{text:?}");
                assert!(text.is_char_boundary(*end), "{text:?}");
                at = *end;
            }
            assert_eq!(at, text.len(), "{text:?}");
        }
    }

    #[test]
    fn format_keeps_the_authors_order() {
        assert_eq!(
            formatted("{\"z\": 1, \"a\": {\"y\": 2, \"b\": 3}}").unwrap(),
            "{\n  \"z\": 1,\n  \"a\": {\n    \"y\": 2,\n    \"b\": 3\n  }\n}"
        );
        assert!(formatted("{\"a\": }")
            .unwrap_err()
            .starts_with("line 1, column"));
    }
}
