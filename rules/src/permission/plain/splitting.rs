//! Field splitting: bash cuts the value of an unquoted expansion at its blanks into words of their
//! own (`F='evil .git/hooks/pre-commit'; cp $F` runs `cp evil .git/hooks/pre-commit`, two
//! operands). A command whose words hold such a value the line gives is judged as the words it
//! runs with, each way its values may split.

use super::super::shell::{PieceView, Word};
use super::values::Scope;
use super::walk::Walker;

/// How many ways a command's words may split before the command is not read (each is judged).
pub(super) const MAX_SPLITS: usize = 16;

/// The ways a command's words split when it runs.
pub(super) enum Split {
    /// No word holds an unquoted value with a blank in it: the words are the ones it runs with.
    None,
    /// Each way its words may be cut (every value the line may give them).
    Ways(Vec<Vec<Word>>),
    /// More ways than [`MAX_SPLITS`]: not read.
    TooMany,
}

impl Walker<'_> {
    /// The ways `words` split when they run (see [`Split`]).
    pub(super) fn split(&self, words: &[Word], scope: &Scope<'_>) -> Split {
        if !words.iter().any(|w| self.splits(w, scope)) {
            return Split::None;
        }
        let mut ways: Vec<Vec<Word>> = vec![Vec::with_capacity(words.len())];
        for w in words {
            let alternatives: Vec<Vec<Word>> = if self.splits(w, scope) {
                match self.fields(w, scope) {
                    Some(alternatives) => alternatives,
                    None => return Split::TooMany,
                }
            } else {
                vec![vec![w.clone()]]
            };
            let mut next = Vec::with_capacity(ways.len() * alternatives.len());
            for way in &ways {
                for fields in &alternatives {
                    let mut longer = way.clone();
                    longer.extend(fields.iter().cloned());
                    next.push(longer);
                }
            }
            if next.len() > MAX_SPLITS {
                return Split::TooMany;
            }
            ways = next;
        }
        Split::Ways(ways)
    }

    /// Whether a word holds an unquoted parameter one of whose values the line gives has a
    /// blank in it.
    fn splits(&self, w: &Word, scope: &Scope<'_>) -> bool {
        w.dynamic()
            && w.piece_views().any(|piece| match piece {
                PieceView::Parameter {
                    name,
                    quoted: false,
                } => self
                    .parameter(name, scope, 0)
                    .is_some_and(|values| values.iter().any(|v| v.contains(char::is_whitespace))),
                _ => false,
            })
    }

    /// Each way a word's fields may come out, each field a word of text (its values kept
    /// unquoted: bash globs them too); none when a piece's value is not known or there are
    /// more than [`MAX_SPLITS`] ways.
    fn fields(&self, w: &Word, scope: &Scope<'_>) -> Option<Vec<Vec<Word>>> {
        // Each way: the fields so far, the last one open (text after it joins it).
        let mut ways: Vec<Vec<String>> = vec![vec![String::new()]];
        for piece in w.piece_views() {
            match piece {
                PieceView::Text { text, .. } => {
                    for way in &mut ways {
                        if let Some(open) = way.last_mut() {
                            open.push_str(text);
                        }
                    }
                }
                PieceView::Parameter { name, quoted } => {
                    let values = self.parameter(name, scope, 0)?;
                    let mut next = Vec::with_capacity(ways.len() * values.len());
                    for way in &ways {
                        for value in &values {
                            let mut longer = way.clone();
                            if quoted {
                                if let Some(open) = longer.last_mut() {
                                    open.push_str(value);
                                }
                            } else {
                                split_into(&mut longer, value);
                            }
                            next.push(longer);
                        }
                    }
                    if next.len() > MAX_SPLITS {
                        return None;
                    }
                    ways = next;
                }
                PieceView::Substitution { .. } => return None,
            }
        }
        Some(
            ways.into_iter()
                .map(|fields| {
                    fields
                        .iter()
                        .filter(|field| !field.is_empty())
                        .map(|field| Word::unquoted(field))
                        .collect()
                })
                .collect(),
        )
    }
}

/// An unquoted value added to fields whose last one is open: its first piece joins that one,
/// each blank ends a field, and a blank at its end leaves a new one open.
fn split_into(fields: &mut Vec<String>, value: &str) {
    let mut pieces = value.split(char::is_whitespace);
    if let (Some(first), Some(open)) = (pieces.next(), fields.last_mut()) {
        open.push_str(first);
    }
    for piece in pieces {
        fields.push(piece.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::split_into;

    #[test]
    fn a_value_splits_at_its_blanks_and_joins_the_text_around_it() {
        let mut fields = vec!["x".to_string()];
        split_into(&mut fields, "a b  c");
        assert_eq!(fields, ["xa", "b", "", "c"]);
        let mut fields = vec!["x".to_string()];
        split_into(&mut fields, "a ");
        assert_eq!(fields, ["xa", ""]);
        let mut fields = vec![String::new()];
        split_into(&mut fields, "abc");
        assert_eq!(fields, ["abc"]);
    }
}
