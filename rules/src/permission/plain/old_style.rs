//! Old-style option clusters (hardline.json `plain.old_style`): a first word without a dash is
//! a cluster of options, and the letters that take a value take the words after it in turn, so
//! `tar cgf SNAP OUT src` is read as `tar -c -g SNAP -f OUT src` by every entry, write and read.

use super::super::shell::Word;

/// `words` (the program first) with an old-style first word spelled as the options it is, or
/// `None` when its first word is not one (it has a dash, an expansion, or a character that is no
/// option letter); `with_values` are the letters that take a value (the program's
/// `plain.old_style`).
pub(super) fn expand(with_values: &str, words: &[Word]) -> Option<Vec<Word>> {
    let (name, args) = words.split_first()?;
    let (cluster, rest) = args.split_first()?;
    let letters = cluster.text.as_str();
    if cluster.dynamic() || letters.is_empty() || !letters.chars().all(|c| c.is_ascii_alphabetic())
    {
        return None;
    }
    let mut out = Vec::with_capacity(words.len() + letters.len());
    out.push(name.clone());
    let mut values = rest.iter();
    for letter in letters.chars() {
        out.push(Word::literal(&format!("-{letter}")));
        if with_values.contains(letter) {
            if let Some(value) = values.next() {
                out.push(value.clone());
            }
        }
    }
    out.extend(values.cloned());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: &[&str]) -> Option<Vec<String>> {
        let words: Vec<Word> = line.iter().map(|t| Word::literal(t)).collect();
        let program = line.first().copied().unwrap_or("");
        super::super::known::known(program)
            .old_style
            .and_then(|with_values| expand(with_values, &words))
            .map(|w| w.into_iter().map(|w| w.text).collect())
    }

    #[test]
    fn the_letters_take_the_words_after_the_cluster_in_turn() {
        assert_eq!(
            texts(&["tar", "cgf", "snap", "out.tar", "src"]),
            Some(
                ["tar", "-c", "-g", "snap", "-f", "out.tar", "src"]
                    .map(String::from)
                    .to_vec()
            )
        );
        assert_eq!(
            texts(&["tar", "cvfg", "out.tar", "snap"]),
            Some(
                ["tar", "-c", "-v", "-f", "out.tar", "-g", "snap"]
                    .map(String::from)
                    .to_vec()
            )
        );
    }

    #[test]
    fn a_dashed_first_word_or_another_program_is_left_as_it_is() {
        assert_eq!(texts(&["tar", "-cf", "out.tar", "src"]), None);
        assert_eq!(texts(&["cp", "a", "b"]), None);
        assert_eq!(texts(&["tar", "x.tar"]), None);
    }
}
