//! A JSON error as a person reads it: in words about the text (not the parser's), at the place
//! where the fix goes — a missing comma is marked after the value it should follow, not at the
//! next line's key where the parser noticed it — its column counted as the browser counts
//! (UTF-16 units), so that the editor marks it at that column.

/// A JSON error placed and said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonProblem {
    /// Its line, from 1.
    pub line: usize,
    /// Its column, from 1, in UTF-16 units.
    pub column: usize,
    /// What is wrong, in words about the text.
    pub message: String,
}

impl std::fmt::Display for JsonProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

/// What serde_json says, without its position.
fn parser_words(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    full.strip_suffix(&position).unwrap_or(&full).to_string()
}

/// The parser's words as a person reads them, and whether the fix goes before the place it
/// noticed (a missing comma or colon: after the last thing written).
fn said(words: &str) -> (String, bool) {
    let plain = |s: &str| (s.to_string(), false);
    match words {
        "EOF while parsing a string" => plain("the text ends inside a string: its closing \" is missing"),
        "EOF while parsing an object" => plain("the text ends inside an object: a } is missing"),
        "EOF while parsing a list" => plain("the text ends inside a list: a ] is missing"),
        "EOF while parsing a value" => plain("the text ends where a value should be"),
        "control character (\\u0000-\\u001F) found while parsing a string" => {
            plain("a string runs to the end of its line: its closing \" is missing")
        }
        "expected `,` or `}`" => ("a comma is missing after this value (or a } to close the object)".into(), true),
        "expected `,` or `]`" => ("a comma is missing after this value (or a ] to close the list)".into(), true),
        "expected `:`" => ("a colon is missing after this key".into(), true),
        "key must be a string" => plain("a key must be a string in double quotes"),
        "trailing comma" => plain("a comma before a closing bracket: remove it"),
        "trailing characters" => plain("more text after the end of the JSON"),
        "expected value" => plain("a value should be here (a string in double quotes, a number, true, false, null, an object or a list)"),
        "expected ident" => plain("not a JSON word: true, false or null?"),
        "invalid escape" => plain("not an escape JSON has (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)"),
        "invalid number" => plain("not a number JSON can write"),
        "number out of range" => plain("a number too large to read"),
        other => plain(other),
    }
}

/// The byte offset of a 1-based line and column of serde_json's (its column counts bytes).
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let mut at = (start + column.saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The 1-based line and UTF-16 column of a byte offset.
fn place_of(text: &str, at: usize) -> (usize, usize) {
    let before = text.get(..at).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before
        .get(line_start..)
        .unwrap_or("")
        .encode_utf16()
        .count()
        + 1;
    (line, column)
}

/// `e`, an error of reading `text`, placed and said.
pub fn json_problem(text: &str, e: &serde_json::Error) -> JsonProblem {
    let (mut message, before) = said(&parser_words(e));
    let mut at = offset_of(text, e.line(), e.column());
    // A control character in a string: said by what it is (a tab is not the end of a line).
    if parser_words(e).starts_with("control character") {
        // The character itself, or (a line's end, which the parser counts into the next line)
        // the one before the place it gives.
        let here = text.get(at..).and_then(|t| t.chars().next());
        let found = here
            .filter(|c| c.is_control())
            .or_else(|| text.get(..at).and_then(|t| t.chars().next_back()));
        message = match found {
            Some('\t') => "a tab in a string: write it as \\t".into(),
            Some('\n' | '\r') | None => message,
            Some(c) => format!(
                "a control character (U+{:04X}) in a string: write it escaped (\\u{:04x})",
                u32::from(c),
                u32::from(c)
            ),
        };
    }
    if before {
        // Back over the spaces to the end of the last thing written.
        at = text.get(..at).map_or(at, |t| t.trim_end().len());
    }
    let (line, column) = place_of(text, at);
    JsonProblem {
        line,
        column,
        message,
    }
}

/// `e`, an error of reading `text`, as a line: `line 2, column 9: a comma is missing …`.
pub fn json_error(text: &str, e: &serde_json::Error) -> String {
    json_problem(text, e).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(text: &str) -> JsonProblem {
        let e = serde_json::from_str::<serde_json::Value>(text).unwrap_err();
        json_problem(text, &e)
    }

    #[test]
    fn a_missing_comma_is_marked_after_the_value_it_should_follow() {
        let p = problem("{\n  \"a\": 1\n  \"b\": 2\n}");
        assert_eq!((p.line, p.column), (2, 9), "{p}");
        assert!(p.message.starts_with("a comma is missing"), "{p}");
        let p = problem("[1, 2\n 3]");
        assert_eq!((p.line, p.column), (1, 6), "{p}");
    }

    #[test]
    fn the_parsers_words_become_the_texts() {
        assert!(problem("{\"a\": \"b")
            .message
            .contains("closing \" is missing"));
        assert!(problem("{\"a\": \"b\n}")
            .message
            .contains("runs to the end of its line"));
        assert!(problem("{\"a\": 1,}").message.contains("remove it"));
        assert!(problem("{\"a\" 1}").message.contains("colon is missing"));
        assert!(!problem("{\"a\": tru}").message.contains("ident"));
    }

    #[test]
    fn a_tab_in_a_string_is_said_as_a_tab() {
        let p = problem("{\"line\": \"git\tpush\"}");
        assert_eq!(p.message, "a tab in a string: write it as \\t", "{p}");
        assert_eq!((p.line, p.column), (1, 14), "{p}");
    }

    #[test]
    fn a_column_counts_as_the_browser_does() {
        // "é" is two bytes and one UTF-16 unit; "𝄞" four bytes and two units.
        let p = problem("{\"é𝄞\": 1 \"b\": 2}");
        assert_eq!((p.line, p.column), (1, 10), "{p}");
    }
}
