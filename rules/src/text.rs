//! Filling the spec's texts: `{{name}}` stands for a value. A name with no value stays as it is,
//! so a text never loses a part silently.

use std::fmt::{Display, Write};

/// `template` with every `{{key}}` replaced by its value.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    fill_with(&mut out, template, |key, out| {
        match values.iter().find(|(k, _)| *k == key) {
            Some((_, v)) => out.write_str(v).is_ok(),
            None => false,
        }
    });
    out
}

/// Writes `template` into `out`, every `{{key}}` replaced by its value written as it displays.
pub fn fill_into<W: Write>(out: &mut W, template: &str, values: &[(&str, &dyn Display)]) {
    fill_with(out, template, |key, out| {
        match values.iter().find(|(k, _)| *k == key) {
            Some((_, v)) => {
                let _ = write!(out, "{v}");
                true
            }
            None => false,
        }
    });
}

/// A value to fill in, written without going through `Display` where it can be.
pub enum Arg<'a> {
    /// A text as it is.
    Str(&'a str),
    /// An integer.
    Int(i64),
    /// A count.
    Count(u64),
    /// Anything else, written with `Display`.
    Show(&'a dyn Display),
}

/// Writes `template` into `out`, every `{{key}}` replaced by its [`Arg`].
pub fn fill_args<W: Write>(out: &mut W, template: &str, values: &[(&str, Arg<'_>)]) {
    fill_with(out, template, |key, out| {
        match values.iter().find(|(k, _)| *k == key) {
            Some((_, Arg::Str(s))) => out.write_str(s).is_ok(),
            Some((_, Arg::Int(n))) => write!(out, "{n}").is_ok(),
            Some((_, Arg::Count(n))) => write!(out, "{n}").is_ok(),
            Some((_, Arg::Show(v))) => write!(out, "{v}").is_ok(),
            None => false,
        }
    });
}

/// Writes `template` into `out`; `value(key, out)` writes a key's value and says whether it knew
/// the key (an unknown `{{key}}` stays as it is).
pub fn fill_with<W: Write>(
    out: &mut W,
    template: &str,
    mut value: impl FnMut(&str, &mut W) -> bool,
) {
    let mut rest = template;
    // Each `{{` in turn, found by its first byte (`{` and `}` are ASCII: every place found is a
    // char boundary).
    while let Some(open) = doubled(rest, b'{') {
        let after = rest.get(open + 2..).unwrap_or("");
        let Some(close) = doubled(after, b'}') else {
            break;
        };
        let key = after.get(..close).unwrap_or("");
        let _ = out.write_str(rest.get(..open).unwrap_or(""));
        let known = value(key, out);
        if !known {
            // An unknown key stays as it is.
            let _ = out.write_str(rest.get(open..open + 2 + close + 2).unwrap_or(""));
        }
        rest = after.get(close + 2..).unwrap_or("");
    }
    let _ = out.write_str(rest);
}

/// Where `byte` first stands twice in a row in `text`: found by its first byte (a search for
/// the two as a text set a searcher up each time, three times the filling's cost).
fn doubled(text: &str, byte: u8) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut from = 0;
    loop {
        let at = from + bytes.get(from..)?.iter().position(|&b| b == byte)?;
        if bytes.get(at + 1) == Some(&byte) {
            return Some(at);
        }
        from = at + 1;
    }
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

    /// The filling as it was first written, byte by byte: the reference the search by `{{` is
    /// held to.
    fn fill_by_bytes(template: &str, values: &[(&str, &str)]) -> String {
        let bytes = template.as_bytes();
        let mut out = String::new();
        let (mut i, mut copied) = (0, 0);
        while i + 1 < bytes.len() {
            if bytes[i] == b'{' && bytes[i + 1] == b'{' {
                let mut j = i + 2;
                while j + 1 < bytes.len() && !(bytes[j] == b'}' && bytes[j + 1] == b'}') {
                    j += 1;
                }
                if j + 1 >= bytes.len() {
                    break;
                }
                out.push_str(&template[copied..i]);
                match values.iter().find(|(k, _)| *k == &template[i + 2..j]) {
                    Some((_, v)) => {
                        out.push_str(v);
                        copied = j + 2;
                    }
                    None => copied = i,
                }
                i = j + 2;
            } else {
                i += 1;
            }
        }
        out.push_str(&template[copied..]);
        out
    }

    proptest::proptest! {
        /// Any template of braces, keys and other text is filled as the byte-by-byte reading
        /// fills it: keys known and unknown, braces unclosed, three in a row, empty keys.
        #[test]
        fn filling_is_the_byte_by_byte_reading(template in "[{}ab é]{0,24}") {
            let values = [("a", "X"), ("", "E"), ("b a", "Y")];
            proptest::prop_assert_eq!(fill(&template, &values), fill_by_bytes(&template, &values));
        }
    }
}

/// `part` of `whole` in whole percent, rounded down (`whole` 0 is read as 1): exact while `whole`
/// is under 1.8 × 10¹⁷, and no 128-bit division (a kilobyte of the `.wasm`) for it.
pub fn whole_percent(part: u64, whole: u64) -> u64 {
    let whole = whole.max(1);
    let (times, rest) = (part / whole, part % whole);
    let rest = match rest.checked_mul(100) {
        Some(hundredfold) => hundredfold / whole,
        None => rest / (whole / 100),
    };
    times.saturating_mul(100).saturating_add(rest)
}

#[cfg(test)]
mod percent_tests {
    use super::whole_percent;

    #[test]
    fn whole_percent_is_the_exact_floor() {
        for (part, whole) in [
            (0, 0),
            (1, 3),
            (2, 3),
            (64, 100),
            (90_000, 140_000),
            (999, 1000),
            (150, 100),
            (u64::MAX, u64::MAX),
            (u64::MAX - 1, u64::MAX),
            (u64::MAX, 1),
            (12_345_678_901, 98_765_432_109),
        ] {
            let exact = (u128::from(part) * 100) / u128::from(whole.max(1));
            let want = u64::try_from(exact).unwrap_or(u64::MAX);
            if whole < 180_000_000_000_000_000 {
                assert_eq!(whole_percent(part, whole), want, "{part} of {whole}");
            } else {
                assert!(
                    whole_percent(part, whole).abs_diff(want) <= 1,
                    "{part} of {whole}"
                );
            }
        }
    }
}
