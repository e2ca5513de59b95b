//! Variables of the person's environment that name an account file or a folder of them
//! (hardline.json `plain.variable_paths`: `KUBECONFIG` → `~/.kube/config`): a word reading
//! through one is spelled with the path it names when not set, and judged as a read of that path
//! too (`cat $KUBECONFIG` as `cat ~/.kube/config`).
//!
//! The person sets these variables, not the model: their value is usually the path the tool's
//! documentation gives, and a word naming one is read as that path whatever else the line does
//! with the variable (sets it, names it, copies it into another: `K=$KUBECONFIG; cat $K`).

use super::super::shell::{is_name, PieceView, Word};
use super::values::{Scope, MAX_VALUES};
use crate::spec::spec;

/// How many variables deep a value given by another is followed (`A=$KUBECONFIG; B=$A`).
const MAX_DEPTH: usize = 4;

/// The texts a word may spell with a variable of `variable_paths` standing for the path it names
/// when not set, and every variable the line sets standing for each value it gives
/// (`$CARGO_HOME/credentials.toml`: `~/.cargo/credentials.toml`; `K=$KUBECONFIG; … $K`:
/// `~/.kube/config`). Only texts that hold such a path: none for a word that names no such
/// variable, or that holds a value known only when the line runs (a variable the person sets that
/// is not in the table, a command substitution).
pub(super) fn spellings(w: &Word, scope: &Scope<'_>) -> Vec<String> {
    spelled(w, scope, 0)
        .unwrap_or_default()
        .into_iter()
        .filter(|spelling| spelling.holds_a_default)
        .map(|spelling| spelling.text)
        .collect()
}

/// A text a word may spell, and whether a variable's default path is part of it.
struct Spelling {
    text: String,
    holds_a_default: bool,
}

/// Every text `w` may spell (see [`spellings`]), `depth` variables down; none when one of its
/// pieces is not known.
fn spelled(w: &Word, scope: &Scope<'_>, depth: usize) -> Option<Vec<Spelling>> {
    let defaults = &spec().hardline.plain.variable_paths;
    let mut out = vec![Spelling {
        text: String::new(),
        holds_a_default: false,
    }];
    for piece in w.piece_views() {
        let options: Vec<Spelling> = match piece {
            PieceView::Text { text, .. } => vec![Spelling {
                text: text.to_string(),
                holds_a_default: false,
            }],
            PieceView::Parameter { name, .. } => {
                let mut options = Vec::new();
                if let Some(path) = defaults.get(name) {
                    options.push(Spelling {
                        text: path.to_string(),
                        holds_a_default: true,
                    });
                }
                if depth < MAX_DEPTH {
                    let values = scope
                        .reading
                        .bindings
                        .iter()
                        .filter(|b| b.name == name)
                        .flat_map(|b| b.values.iter().flatten());
                    for value in values {
                        options.extend(spelled(value, scope, depth + 1).unwrap_or_default());
                    }
                }
                options
            }
            PieceView::Substitution { .. } => Vec::new(),
        };
        if options.is_empty() {
            return None;
        }
        let mut next = Vec::with_capacity(out.len() * options.len());
        for before in &out {
            for option in &options {
                next.push(Spelling {
                    text: format!("{}{}", before.text, option.text),
                    holds_a_default: before.holds_a_default || option.holds_a_default,
                });
            }
        }
        if next.len() > MAX_VALUES {
            return None;
        }
        out = next;
    }
    Some(out)
}

/// The paths named by the variables of `variable_paths` that a word's command substitution names
/// (`$(printenv KUBECONFIG)`, `$(echo $KUBECONFIG)`, `$(dirname $KUBECONFIG)`): what it makes
/// may be that path, or hold it. None for a word with no substitution.
pub(super) fn named_in_substitution(w: &Word) -> Vec<&'static str> {
    let substitution = w
        .piece_views()
        .any(|piece| matches!(piece, PieceView::Substitution { .. }));
    if !substitution {
        return Vec::new();
    }
    let defaults = &spec().hardline.plain.variable_paths;
    w.text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|name| is_name(name))
        .filter_map(|name| defaults.get(name).map(|path| &**path))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::shell;

    /// The words of a line's commands after their programs, each with what it spells.
    fn spelled_words(line: &str) -> Vec<(String, Vec<String>)> {
        let reading = shell::read(line);
        let scope = Scope::new(&reading, None);
        reading
            .commands
            .iter()
            .flat_map(|c| c.argv().iter().skip(1))
            .map(|w| (w.text.clone(), spellings(w, &scope)))
            .collect()
    }

    #[test]
    fn a_variable_of_the_table_is_spelled_as_its_path() {
        let words = spelled_words(
            "cat $CARGO_HOME/credentials.toml \"$KUBECONFIG\" ${KUBECONFIG} $X/$KUBECONFIG $HOME x",
        );
        let spelled: Vec<Vec<String>> = words.into_iter().map(|(_, s)| s).collect();
        assert_eq!(
            spelled,
            [
                vec!["~/.cargo/credentials.toml".to_string()],
                vec!["~/.kube/config".to_string()],
                vec!["~/.kube/config".to_string()],
                vec![],
                vec![],
                vec![],
            ]
        );
    }

    #[test]
    fn a_variable_the_line_sets_is_still_its_path_too() {
        // Set by the line, after the read, in a subshell, or copied into another variable:
        // the person's value may still be the one the command reads.
        for line in [
            "KUBECONFIG=/tmp/k; cat $KUBECONFIG",
            "cat $KUBECONFIG; KUBECONFIG=x",
            "K=$KUBECONFIG; cat $K",
            "for f in $KUBECONFIG; do cat $f; done",
            "A=$KUBECONFIG; B=$A; cat $B",
        ] {
            let words = spelled_words(line);
            assert!(
                words
                    .iter()
                    .any(|(_, s)| s.contains(&"~/.kube/config".to_string())),
                "{line}: {words:?}"
            );
        }
        // A variable of the line's own that names none of them spells nothing.
        assert!(spelled_words("K=/tmp/k; cat $K")
            .iter()
            .all(|(_, s)| s.is_empty()));
    }

    #[test]
    fn a_substitution_naming_a_variable_of_the_table_names_its_path() {
        let reading = shell::read("cat \"$(printenv KUBECONFIG)\" $(echo $GNUPGHOME) $(date) x");
        let words: Vec<Vec<&str>> = reading
            .commands
            .iter()
            .filter(|c| c.argv().first().is_some_and(|p| p.text == "cat"))
            .flat_map(|c| c.argv().iter().skip(1))
            .map(named_in_substitution)
            .collect();
        assert_eq!(
            words,
            [vec!["~/.kube/config"], vec!["~/.gnupg"], vec![], vec![]]
        );
    }
}
