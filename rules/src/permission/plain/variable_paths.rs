//! Variables of the person's environment that name an account file or a folder of them
//! (hardline.json `plain.variable_paths`: `KUBECONFIG` → `~/.kube/config`): a word reading
//! through one is spelled with the path it names when not set, and judged as a read of that path
//! too (`cat $KUBECONFIG` as `cat ~/.kube/config`).
//!
//! The person sets these variables, not the model: their value is usually the path the tool's
//! documentation gives, and a word naming one is read as that path whatever else the line does
//! with the variable (sets it, names it, copies it into another: `K=$KUBECONFIG; cat $K`). A
//! command substitution is guessed the same way, from the paths its text spells and the folders
//! above them (`D=$(dirname ~/.kube/config); cat $D/config`).

use super::super::shell::{assignment_name, is_name, PieceView, Word};
use super::values::{Scope, MAX_INDIRECTION};
use crate::spec::spec;
use std::cell::Cell;

/// How many variables deep a value given by another is followed (`A=$KUBECONFIG; B=$A`), as
/// deep as the values themselves are ([`MAX_INDIRECTION`]); deeper sets `too_many`.
const MAX_DEPTH: usize = MAX_INDIRECTION;

/// At most this many texts of one word are guessed; more set `too_many`. More than a word's
/// values (`values::MAX_VALUES`): guesses are only compared with the paths no tool may read, and a
/// loop over a few dozen words is an everyday line.
const MAX_GUESSES: usize = 256;

/// The texts a word may spell with a variable of `variable_paths` standing for the path it names
/// when not set, every variable the line (or a line running it) gives a value standing for each
/// value given ([`Scope::given`]: `$CARGO_HOME/credentials.toml`: `~/.cargo/credentials.toml`;
/// `K=$KUBECONFIG; … $K`: `~/.kube/config`; `export F=~/.ssh/id_rsa; bash -c 'cat $F'`), and
/// every command substitution standing for what it may make ([`substitution_guesses`]). Only
/// texts that hold such a guess: none for a word of text alone, or one that holds a value known
/// only when the line runs (a variable the person sets that is not in the table).
///
/// More texts than are followed ([`MAX_GUESSES`]) give none and set `too_many`.
pub(super) fn spellings(w: &Word, scope: &Scope<'_>, too_many: &Cell<bool>) -> Vec<String> {
    let mut guessing = Guessing {
        too_many,
        names: Vec::new(),
    };
    spelled(w, scope, &mut guessing)
        .unwrap_or_default()
        .into_iter()
        .filter(|spelling| spelling.holds_a_guess)
        .map(|spelling| spelling.text)
        .collect()
}

/// A text a word may spell, and whether a guess (a variable's default path, a value given to a
/// variable, what a substitution may make) is part of it.
struct Spelling {
    text: String,
    holds_a_guess: bool,
}

/// What a spelling carries down the variables it goes through.
struct Guessing<'c> {
    /// Set when more was met than is followed.
    too_many: &'c Cell<bool>,
    /// The variables being spelled, outermost first: a value naming one of them again is a
    /// cycle (`F=$F/id_rsa`, `A=$B; B=$A`), spelled by the other values only.
    names: Vec<String>,
}

/// Every text `w` may spell (see [`spellings`]); none when one of its pieces is not known.
fn spelled(w: &Word, scope: &Scope<'_>, guessing: &mut Guessing<'_>) -> Option<Vec<Spelling>> {
    let defaults = &spec().hardline.plain.variable_paths;
    let mut out = vec![Spelling {
        text: String::new(),
        holds_a_guess: false,
    }];
    for piece in w.piece_views() {
        let options: Vec<Spelling> = match piece {
            PieceView::Text { text, .. } => vec![Spelling {
                text: text.to_string(),
                holds_a_guess: false,
            }],
            PieceView::Parameter { name, .. } => {
                let mut options = Vec::new();
                if let Some(path) = defaults.get(name) {
                    options.push(Spelling {
                        text: path.to_string(),
                        holds_a_guess: true,
                    });
                }
                if guessing.names.len() < MAX_DEPTH {
                    options.extend(given_spellings(scope, name, guessing));
                } else if scope
                    .levels()
                    .any(|level| level.given(name).next().is_some())
                {
                    guessing.too_many.set(true);
                }
                // A value a command substitution makes (`D=$(dirname ~/.kube/config)`,
                // `export D=$(…)`), which the line's bindings do not read.
                for level in scope.levels() {
                    options.extend(
                        assigned_substitutions(level, name)
                            .flat_map(substitution_guesses)
                            .map(|text| Spelling {
                                text,
                                holds_a_guess: true,
                            }),
                    );
                }
                options
            }
            // What a command substitution makes, guessed from the paths its text spells and
            // the folders above them (`$(dirname ~/.kube/config)`: `~/.kube`).
            PieceView::Substitution { .. } => substitution_guesses(&w.text)
                .into_iter()
                .map(|text| Spelling {
                    text,
                    holds_a_guess: true,
                })
                .collect(),
        };
        if options.is_empty() {
            return None;
        }
        let mut next = Vec::with_capacity(out.len() * options.len());
        for before in &out {
            for option in &options {
                next.push(Spelling {
                    text: format!("{}{}", before.text, option.text),
                    holds_a_guess: before.holds_a_guess || option.holds_a_guess,
                });
            }
        }
        if next.len() > MAX_GUESSES {
            guessing.too_many.set(true);
            return None;
        }
        out = next;
    }
    Some(out)
}

/// What `name` may spell by the values this line and the lines running it give it
/// ([`Scope::given`]): each value, and each value added (`F+=/id_rsa`) after each other one. All
/// are kept as guesses: the variable's values are not known when a command names it (`export F`,
/// `read F`), a value adds to another or a shell runs the line.
fn given_spellings(scope: &Scope<'_>, name: &str, guessing: &mut Guessing<'_>) -> Vec<Spelling> {
    let again = guessing.names.iter().any(|known| known == name);
    let mut whole = Vec::new();
    let mut added = Vec::new();
    guessing.names.push(name.to_string());
    for level in scope.levels() {
        for given in level.given(name) {
            let cycle = again
                && given.value.piece_views().any(|piece| {
                    matches!(piece, PieceView::Parameter { name: named, .. }
                        if guessing.names.iter().any(|known| known == named))
                });
            if cycle {
                continue;
            }
            let spellings = spelled(&given.value, level, guessing).unwrap_or_default();
            if given.appends {
                added.extend(spellings);
            } else {
                whole.extend(spellings);
            }
        }
    }
    let mut out: Vec<Spelling> = Vec::with_capacity(whole.len() * (added.len() + 1));
    for before in &whole {
        for after in &added {
            out.push(Spelling {
                text: format!("{}{}", before.text, after.text),
                holds_a_guess: true,
            });
        }
    }
    out.extend(whole.into_iter().chain(added).map(|spelling| Spelling {
        holds_a_guess: true,
        ..spelling
    }));
    guessing.names.pop();
    if out.len() > MAX_GUESSES {
        guessing.too_many.set(true);
        return Vec::new();
    }
    out
}

/// The values the line gives `name` that hold a command substitution (`D=$(…)`, `export
/// D=$(…)`), as written.
fn assigned_substitutions<'s>(
    scope: &'s Scope<'_>,
    name: &'s str,
) -> impl Iterator<Item = &'s str> {
    let standing_alone = scope
        .reading
        .bindings
        .iter()
        .filter(move |b| b.name == name)
        .map(|b| b.written.as_str());
    // `export D=$(…)`, `local D=$(…)`: a command's word.
    let in_commands = scope
        .reading
        .commands
        .iter()
        .flat_map(|c| c.words.iter())
        .filter(move |w| assignment_name(&w.text) == Some(name))
        .filter_map(|w| w.text.split_once('=').map(|(_, value)| value));
    standing_alone
        .chain(in_commands)
        .filter(|value| value.contains("$(") || value.contains('`'))
}

/// What a command substitution in a word's text may make: each path its text spells
/// (`$(echo ~/.kube)`, `$(dirname ~/.kube/config)`: a word with a `/` or starting with `~`), and
/// every folder above it (`dirname` takes them off one by one); none past [`MAX_GUESSES`].
fn substitution_guesses(text: &str) -> Vec<String> {
    if !text.contains("$(") && !text.contains('`') {
        return Vec::new();
    }
    let spelled = super::secrets::substitution_pieces(text)
        .into_iter()
        .filter(|piece| piece.contains('/') || piece.starts_with('~'));
    let mut out = Vec::new();
    for spelled in spelled {
        let mut path = spelled.trim_end_matches('/');
        // Up to the folders just under the home or the root: the home itself, the root, or
        // `/home/u` would stand for every file of the person's (`$(realpath ~/proj/dist)` is not
        // the whole home).
        while below_the_home(path) && !out.iter().any(|known: &String| known == path) {
            out.push(path.to_string());
            match path.rsplit_once('/') {
                Some((folder, _)) => path = folder,
                None => break,
            }
        }
        if out.len() > MAX_GUESSES {
            return Vec::new();
        }
    }
    out
}

/// Whether a path is below the home or a folder of the root that is no one's home (`~/.kube`,
/// `/home/u/.kube`, `/etc/ssh`, `src/x`; not `~`, `/`, `/etc`, `/home/u`, `/Users/u`, `x`).
fn below_the_home(path: &str) -> bool {
    if let Some(rest) = path.strip_prefix('~') {
        return rest.starts_with('/') && !rest.trim_matches('/').is_empty();
    }
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    if !path.starts_with('/') {
        return path.contains('/') && !segments.is_empty();
    }
    match segments.as_slice() {
        [] | [_] => false,
        [top, _] => !matches!(*top, "home" | "Users"),
        _ => true,
    }
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
    // A name read as a variable's (`$KUBECONFIG`, `${KUBECONFIG}`) or by `printenv`, not a word
    // of text that spells it (a commit message naming `KUBECONFIG`).
    let defaults = &spec().hardline.plain.variable_paths;
    let text = super::secrets::substitution_text(&w.text);
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || "()'\"`;|&<>={}".contains(c))
        .filter(|piece| !piece.is_empty())
        .collect();
    let after_printenv = words
        .windows(2)
        .filter(|pair| pair.first() == Some(&"printenv"))
        .filter_map(|pair| pair.get(1).copied());
    let expanded = text.match_indices('$').filter_map(|(at, _)| {
        let rest = text.get(at + 1..)?;
        let rest = rest.strip_prefix('{').unwrap_or(rest);
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        rest.get(..end)
    });
    let names: Vec<&str> = after_printenv.chain(expanded).collect();
    names
        .into_iter()
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
            .map(|w| (w.text.clone(), spellings(w, &scope, &Cell::new(false))))
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
        // A variable of the line's own spells its values, whether or not they are known when
        // the command reads it (`export K`, `read K`); a word with no variable spells nothing.
        for line in [
            "K=/tmp/k; cat $K",
            "K=/tmp/k; export K; cat $K",
            "export K=/tmp/k; cat $K",
        ] {
            let words = spelled_words(line);
            let cat = words.iter().find(|(word, _)| word == "$K");
            assert_eq!(
                cat.map(|(_, s)| s.as_slice()),
                Some(&["/tmp/k".to_string()][..]),
                "{line}"
            );
        }
        assert!(spelled_words("cat /tmp/k")
            .iter()
            .all(|(_, s)| s.is_empty()));
    }

    #[test]
    fn a_substitution_is_guessed_from_the_paths_it_spells_and_their_folders() {
        for (line, wanted) in [
            (
                "D=$(dirname ~/.kube/config); cat $D/config",
                "~/.kube/config",
            ),
            (
                "export D=$(echo ~/.aws); cat $D/credentials",
                "~/.aws/credentials",
            ),
            ("cat $(echo ~/.kube)/config", "~/.kube/config"),
        ] {
            let words = spelled_words(line);
            assert!(
                words.iter().any(|(_, s)| s.iter().any(|t| t == wanted)),
                "{line}: {words:?}"
            );
        }
        assert_eq!(
            substitution_guesses("$(dirname ~/.kube/config)"),
            ["~/.kube/config", "~/.kube"]
        );
        // A substitution spelling no path guesses nothing, and its word spells nothing.
        assert!(substitution_guesses("$(mktemp -d)").is_empty());
        assert!(spelled_words("OUT=$(mktemp -d); cat $OUT/x")
            .iter()
            .all(|(_, s)| s.is_empty()));
    }

    #[test]
    fn guesses_stop_below_the_home_and_the_root() {
        assert!(below_the_home("~/.kube"));
        assert!(below_the_home("/home/u/.kube"));
        assert!(below_the_home("/etc/ssh"));
        assert!(below_the_home("src/x"));
        for path in [
            "~", "~/", "/", "/etc", "/home", "/home/u", "/Users/u", "x", "",
        ] {
            assert!(!below_the_home(path), "{path}");
        }
        assert_eq!(
            substitution_guesses("$(realpath ~/proj/dist)"),
            ["~/proj/dist", "~/proj"]
        );
    }

    #[test]
    fn a_here_documents_prose_is_text() {
        // A commit message naming a variable or a path among other words: nothing guessed.
        let message = "$(cat <<'EOF'\nFix ~/.kube/config when $KUBECONFIG is unset\nEOF\n)";
        assert!(substitution_guesses(message).is_empty());
        let reading = shell::read(&format!("git commit -m \"{message}\""));
        let named: Vec<&str> = reading
            .commands
            .iter()
            .flat_map(|c| c.argv().iter())
            .flat_map(named_in_substitution)
            .collect();
        assert!(named.is_empty(), "{named:?}");
        // A line of its own that is the path alone is what it makes.
        assert_eq!(
            substitution_guesses("$(cat <<'EOF'\n~/.kube/config\nEOF\n)"),
            ["~/.kube/config", "~/.kube"]
        );
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
