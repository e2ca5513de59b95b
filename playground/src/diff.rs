//! The expected and actual answers of a case compared as JSON: each difference with its path as
//! the case file reads it (`steps[53].expect.result`), and a changed string's words marked. The
//! verdict stays the rules' (`conformance::run_case`); this only shows where they differ.

use lembas_rules::conformance::{Area, Compare};
use serde_json::Value;

/// One place where the answer is not the expected one.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// Where, as the case file reads it: `expect.text`, `steps[3].expect.tree.agents[1].state`.
    pub path: String,
    /// The expected value there; none when only the answer has it.
    pub expected: Option<Value>,
    /// The answer's value there; none when the answer has none.
    pub actual: Option<Value>,
}

/// A piece of a changed string: in both, only in the expected one, or only in the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WordChange {
    /// In both.
    Same(String),
    /// Only in the expected string.
    Expected(String),
    /// Only in the answer's.
    Actual(String),
}

/// The differences of a case's answer, at most `limit` of them, compared as the runner compares
/// them (`compare`, from `conformance::comparison`): only the keys it names, or the whole answer.
/// A team case's expect and answer are its steps' (an array, one per step, the answer's steps
/// holding only the keys their expects name), each said at its step's `expect`.
pub fn differences(
    area: &str,
    compare: &Compare,
    expected: &Value,
    actual: &Value,
    limit: usize,
) -> Vec<Difference> {
    let mut out = Vec::new();
    match (Area::parse(area), compare, expected, actual) {
        (Some(Area::Team), _, Value::Array(e), Value::Array(a)) => {
            for (i, step) in e.iter().enumerate() {
                let path = format!("steps[{i}].expect");
                match a.get(i) {
                    Some(got) => walk(&path, step, got, &mut out, limit),
                    None => push(&mut out, limit, path, Some(step), None),
                }
            }
        }
        (_, Compare::Keys(keys), e, a) => {
            for k in keys {
                let at = format!("expect.{k}");
                match (e.get(k), a.get(k)) {
                    (Some(x), Some(y)) => walk(&at, x, y, &mut out, limit),
                    (None, None) => {}
                    (x, y) => push(&mut out, limit, at, x, y),
                }
            }
        }
        (_, _, e, a) => walk("expect", e, a, &mut out, limit),
    }
    out
}

/// Every difference at the keys the expected object has.
fn expected_keys(
    path: &str,
    expected: &serde_json::Map<String, Value>,
    actual: &serde_json::Map<String, Value>,
    out: &mut Vec<Difference>,
    limit: usize,
) {
    for (k, v) in expected {
        let at = format!("{path}.{k}");
        match actual.get(k) {
            Some(got) => walk(&at, v, got, out, limit),
            None => push(out, limit, at, Some(v), None),
        }
    }
}

fn push(
    out: &mut Vec<Difference>,
    limit: usize,
    path: String,
    expected: Option<&Value>,
    actual: Option<&Value>,
) {
    if out.len() < limit {
        out.push(Difference {
            path,
            expected: expected.cloned(),
            actual: actual.cloned(),
        });
    }
}

/// Every difference below `path`, objects by key and arrays by index.
fn walk(path: &str, expected: &Value, actual: &Value, out: &mut Vec<Difference>, limit: usize) {
    if expected == actual || out.len() >= limit {
        return;
    }
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            expected_keys(path, e, a, out, limit);
            for (k, got) in a.iter().filter(|(k, _)| !e.contains_key(*k)) {
                push(out, limit, format!("{path}.{k}"), None, Some(got));
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            for i in 0..e.len().max(a.len()) {
                let at = format!("{path}[{i}]");
                match (e.get(i), a.get(i)) {
                    (Some(x), Some(y)) => walk(&at, x, y, out, limit),
                    (x, y) => push(out, limit, at, x, y),
                }
            }
        }
        (e, a) => push(out, limit, path.to_string(), Some(e), Some(a)),
    }
}

/// The words of two strings, marked where they differ (a longest common subsequence of words
/// and the spaces between them: only what differs is marked). Strings too long to compare word by word are one
/// change each.
pub fn word_changes(expected: &str, actual: &str) -> Vec<WordChange> {
    let e = words(expected);
    let a = words(actual);
    if e.len().saturating_mul(a.len()) > 250_000 {
        return vec![
            WordChange::Expected(expected.to_string()),
            WordChange::Actual(actual.to_string()),
        ];
    }
    // common(i, j): the common words of e[i..] and a[j..], a row of a.len() + 1 for each i.
    let width = a.len() + 1;
    let mut lengths = vec![0u32; (e.len() + 1) * width];
    let same = |i: usize, j: usize| e.get(i).is_some_and(|x| a.get(j) == Some(x));
    for i in (0..e.len()).rev() {
        for j in (0..a.len()).rev() {
            let common = |k: usize| lengths.get(k).copied().unwrap_or(0);
            let here = i * width + j;
            let n = if same(i, j) {
                common(here + width + 1) + 1
            } else {
                common(here + width).max(common(here + 1))
            };
            if let Some(slot) = lengths.get_mut(here) {
                *slot = n;
            }
        }
    }
    let common = |i: usize, j: usize| lengths.get(i * width + j).copied().unwrap_or(0);
    let mut out: Vec<WordChange> = Vec::new();
    let mut add = |change: WordChange| match (out.last_mut(), &change) {
        (Some(WordChange::Same(s)), WordChange::Same(t))
        | (Some(WordChange::Expected(s)), WordChange::Expected(t))
        | (Some(WordChange::Actual(s)), WordChange::Actual(t)) => s.push_str(t),
        _ => out.push(change),
    };
    let (mut i, mut j) = (0, 0);
    while i < e.len() || j < a.len() {
        match (e.get(i), a.get(j)) {
            (Some(x), Some(y)) if x == y => {
                add(WordChange::Same((*x).to_string()));
                i += 1;
                j += 1;
            }
            (Some(x), None) => {
                add(WordChange::Expected((*x).to_string()));
                i += 1;
            }
            (Some(x), Some(_)) if common(i + 1, j) >= common(i, j + 1) => {
                add(WordChange::Expected((*x).to_string()));
                i += 1;
            }
            (_, Some(y)) => {
                add(WordChange::Actual((*y).to_string()));
                j += 1;
            }
            (None, None) => break,
        }
    }
    out
}

/// A string cut into words and the runs of spaces between them, each its own piece: a word
/// that only lost the space after it is the same word.
fn words(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space = None;
    for (i, c) in text.char_indices() {
        let space = c.is_whitespace();
        if in_space.is_some_and(|was| was != space) {
            out.push(&text[start..i]);
            start = i;
        }
        in_space = Some(space);
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_team_step_says_its_path_as_the_file_reads() {
        let expected =
            json!([{"result": "ok"}, {"result": "Report to yourself!", "tree": {"size": 2}}]);
        let actual =
            json!([{"result": "ok"}, {"result": "Report to yourself.", "tree": {"size": 3}}]);
        let d = differences("team", &Compare::Whole, &expected, &actual, 10);
        let paths: Vec<&str> = d.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(
            paths,
            ["steps[1].expect.result", "steps[1].expect.tree.size"]
        );
        assert_eq!(d[1].actual, Some(json!(3)));
    }

    #[test]
    fn the_answer_is_compared_as_the_runner_compares_it() {
        // Whole (a progress case): a key only the answer has is a difference.
        let d = differences(
            "progress",
            &Compare::Whole,
            &json!({"text": "Thinking"}),
            &json!({"text": "Thinking", "line": "Thinking · 0s"}),
            10,
        );
        assert_eq!(d.len(), 1);
        assert_eq!(
            (
                d[0].path.as_str(),
                d[0].expected.clone(),
                d[0].actual.clone()
            ),
            ("expect.line", None, Some(json!("Thinking · 0s")))
        );
        // Only the keys named (a permission case): the others are not looked at.
        let keys = Compare::Keys(vec!["action".into()]);
        let d = differences(
            "permission",
            &keys,
            &json!({"action": "ask"}),
            &json!({"action": "ask", "reason": "r"}),
            10,
        );
        assert!(d.is_empty());
        let d = differences(
            "delegation",
            &Compare::Whole,
            &json!({"answer": {"a": 1}}),
            &json!({"answer": {"a": 1, "b": 2}}),
            10,
        );
        assert_eq!(d[0].path, "expect.answer.b");
        let d = differences(
            "permission",
            &Compare::Keys(vec!["action".into(), "x".into()]),
            &json!({"action": "ask", "x": [1]}),
            &json!({"action": "run"}),
            1,
        );
        assert_eq!(d.len(), 1, "at most the limit");
    }

    /// For every built-in case made to fail by a changed expect, the differences name it: a
    /// case the runner fails always shows why.
    #[test]
    fn a_failing_case_always_has_a_difference() {
        let files = crate::model::builtin_files();
        let mut checked = 0;
        for f in files.iter().filter(|f| f.area != "team") {
            for case in f.cases.iter().take(40) {
                let Some(serde_json::Value::Object(expect)) = case.get("expect") else {
                    continue;
                };
                let Some(first) = expect.keys().next().cloned() else {
                    continue;
                };
                // A value changed; a key left out of the expect (a whole comparison fails on it).
                let mut wrong = case.clone();
                wrong["expect"][&first] = json!("wrong on purpose");
                let mut shorter = case.clone();
                if let Some(serde_json::Value::Object(e)) = shorter.get_mut("expect") {
                    if e.len() > 1 {
                        e.remove(&first);
                    }
                }
                for changed in [&wrong, &shorter] {
                    let r = lembas_rules::conformance::run_case(&f.area, changed);
                    if r.pass || r.actual.is_null() {
                        continue;
                    }
                    let compare = lembas_rules::conformance::comparison(&f.area, changed).unwrap();
                    assert!(
                        !differences(&f.area, &compare, &r.expected, &r.actual, 10).is_empty(),
                        "{}: {changed}",
                        f.area
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "{checked}");
    }

    #[test]
    fn a_changed_string_marks_its_words() {
        assert_eq!(
            word_changes("Report to yourself!", "Report to yourself."),
            [
                WordChange::Same("Report to ".into()),
                WordChange::Expected("yourself!".into()),
                WordChange::Actual("yourself.".into()),
            ]
        );
        // A word added is marked alone: the word both have is not.
        assert_eq!(
            word_changes("Queued X", "Queued"),
            [
                WordChange::Same("Queued".into()),
                WordChange::Expected(" X".into()),
            ]
        );
        let changes = word_changes("a b c d", "a x c d e");
        let expected: String = changes
            .iter()
            .filter_map(|c| match c {
                WordChange::Same(s) | WordChange::Expected(s) => Some(s.as_str()),
                WordChange::Actual(_) => None,
            })
            .collect();
        let actual: String = changes
            .iter()
            .filter_map(|c| match c {
                WordChange::Same(s) | WordChange::Actual(s) => Some(s.as_str()),
                WordChange::Expected(_) => None,
            })
            .collect();
        assert_eq!(
            (expected.as_str(), actual.as_str()),
            ("a b c d", "a x c d e")
        );
    }
}
