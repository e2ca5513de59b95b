//! Filling the spec's texts: `{{name}}` stands for a value. A name with no value stays as it is,
//! so a text never loses a part silently.

/// `template` with every `{{key}}` replaced by its value.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let (before, after) = rest.split_at(start);
        out.push_str(before);
        let inner = after.get(2..).unwrap_or("");
        match inner.find("}}") {
            Some(end) => {
                let key = inner.get(..end).unwrap_or("");
                match values.iter().find(|(k, _)| *k == key) {
                    Some((_, v)) => out.push_str(v),
                    None => {
                        out.push_str("{{");
                        out.push_str(key);
                        out.push_str("}}");
                    }
                }
                rest = inner.get(end + 2..).unwrap_or("");
            }
            None => {
                out.push_str(after);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::fill;

    #[test]
    fn fills_known_keys_and_keeps_unknown_ones() {
        assert_eq!(
            fill(
                "Running {{tool}}: {{what}}",
                &[("tool", "bash"), ("what", "ls")]
            ),
            "Running bash: ls"
        );
        assert_eq!(fill("a {{x}} b", &[]), "a {{x}} b");
        assert_eq!(fill("open {{ end", &[]), "open {{ end");
        assert_eq!(fill("{{a}}{{a}}", &[("a", "é")]), "éé");
    }
}
