//! Texts as they are told: in one line (an error, a frame the harness does not use), and as a
//! terminal may be given them (no escape of a model's or a tool's draws on the screen).

/// The most characters [`one_line`] keeps.
pub const ONE_LINE_MAX: usize = 300;

/// The first line of a text that says something, at most [`ONE_LINE_MAX`] characters: how an
/// error or a frame the harness does not use is told.
pub fn one_line(s: &str) -> String {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .chars()
        .take(ONE_LINE_MAX)
        .collect()
}

/// A text as a terminal may be given it: every control character but the line end and the tab —
/// an escape that would move the cursor, erase a line or retitle the window — and every
/// character that reorders text (bidirectional overrides) written as its code (`\x1b`, `\u{202e}`),
/// so what a model or a tool wrote cannot draw over a question or hide a line of it.
pub fn visible(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let reorders = matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}');
        if (c.is_control() && c != '\n' && c != '\t') || reorders {
            if (c as u32) < 0x100 {
                out.push_str(&format!("\\x{:02x}", c as u32));
            } else {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_would_move_the_cursor_is_written_as_its_code() {
        assert_eq!(
            visible("ls\x1b[1A\x1b[2K\rrm -rf ~"),
            "ls\\x1b[1A\\x1b[2K\\x0drm -rf ~"
        );
        assert_eq!(visible("a\tb\nc"), "a\tb\nc");
        assert_eq!(visible("x\u{202e}y\u{9b}"), "x\\u{202e}y\\x9b");
        assert_eq!(visible("naïve — ok"), "naïve — ok");
    }
}
