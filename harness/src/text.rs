//! Texts told in one line: an error, a frame the harness does not use.

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
