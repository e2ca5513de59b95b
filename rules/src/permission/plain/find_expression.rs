//! find's expression read into tokens, and for each action what the tests before it say of the
//! files it acts on (hardline.json `plain.find`). Pure functions over the words; `find.rs`
//! judges what the actions do.
//!
//! An action acts on what its own branch lets through: the tests and actions before it back to
//! the last `-o` or `,` (or the group's `(`) at its depth — an earlier branch's tests hold
//! nothing for it (`-name '*.py' -exec … \; -o -exec rm -rf {} +`). In its branch, a test of
//! names that is not negated narrows the names it acts on (`-name '*.py'`, a group of them
//! joined by `-o`; a test of paths by its last part: `-path '*/migrations/*.py'`), and so does
//! a test no guarded file passes (`-type l`); `!`, `-not` and `-regex` narrow nothing.
//! What an earlier branch prunes (`-path ./.git -prune -o …`), and what a negated test of
//! paths keeps out in its own branch (`-not -path './.git/*'`), it does not act on.

use super::super::shell::Word;
use super::super::wildcard;
use crate::permission::hardline::lower;
use crate::spec::types::FindWords;

/// A token of find's expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Token<'w> {
    /// `(`.
    Open,
    /// `)`.
    Close,
    /// `!`, `-not`.
    Not,
    /// `-o`, `-or`, `,`, or a word known only when it runs (which may be one).
    Or,
    /// A test of names or paths (`-name P`, `-path P`): the test, and its pattern (`None`:
    /// known only when it runs).
    Names {
        test: &'w str,
        pattern: Option<&'w str>,
    },
    /// `-type f`.
    Files,
    /// A test no file the hardline guards passes (`-type l`): what it lets through has none of
    /// their names.
    NoneGuarded,
    /// `-prune`.
    Prune,
    /// An action that runs a command (`-exec`, `-execdir`, `-ok`, `-okdir`): where its option
    /// stands among the words.
    Runs { at: usize },
    /// `-delete`.
    Delete,
    /// Any other test, option or action (`-mtime +3`, `-maxdepth 1`, `-print`), by its word.
    Other(&'w str),
}

/// find's expression as tokens, each with where its word stands among `words` (the words after
/// the start points, from `from` on).
pub(super) fn tokens<'w>(words: &'w [Word], from: usize, find: &FindWords) -> Vec<Token<'w>> {
    let mut out = Vec::new();
    let mut at = from;
    while let Some(w) = words.get(at) {
        at += 1;
        if w.dynamic() {
            out.push(Token::Or);
            continue;
        }
        let text = w.text.as_str();
        let value = |n: usize| {
            words
                .get(at + n)
                .filter(|v| !v.dynamic())
                .map(|v| v.text.as_str())
        };
        let token = match text {
            "(" => Token::Open,
            ")" => Token::Close,
            "!" | "-not" => Token::Not,
            "-o" | "-or" | "," => Token::Or,
            "-a" | "-and" => continue,
            "-prune" => Token::Prune,
            "-delete" => Token::Delete,
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let option = at - 1;
                // Its command runs to `;`, or to `+` after `{}`.
                let mut previous: Option<&str> = None;
                while let Some(next) = words.get(at) {
                    at += 1;
                    let word = next.text.as_str();
                    if word == ";" || (word == "+" && previous == Some("{}")) {
                        break;
                    }
                    previous = Some(word);
                }
                Token::Runs { at: option }
            }
            "-type" => {
                let kind = value(0);
                at += 1;
                match kind {
                    Some("f") => Token::Files,
                    // Links, pipes, sockets, devices: git keeps none.
                    Some("l" | "p" | "s" | "c" | "b") => Token::NoneGuarded,
                    _ => Token::Other(text),
                }
            }
            _ if find.name_tests.iter().any(|t| *t == text) => {
                let pattern = value(0);
                at += 1;
                Token::Names {
                    test: text,
                    pattern,
                }
            }
            _ => {
                let values = if find.two_values.iter().any(|o| *o == text) {
                    2
                } else if find.one_value.iter().any(|o| wildcard::matches(o, text)) {
                    1
                } else {
                    0
                };
                at += values;
                Token::Other(text)
            }
        };
        out.push(token);
    }
    out
}

/// The tokens an action at `at` (an index into `tokens`) acts after: its own branch, and the
/// branches before it.
pub(super) struct Context<'t, 'w> {
    /// Its branch: back to the last `-o` (or the group's `(`) at its depth.
    pub(super) own: &'t [Token<'w>],
    /// Everything before its branch.
    pub(super) earlier: &'t [Token<'w>],
}

/// The context of the action at `at` among `tokens`.
pub(super) fn context<'t, 'w>(tokens: &'t [Token<'w>], at: usize) -> Context<'t, 'w> {
    let mut depth = 0usize;
    let mut start = 0;
    for index in (0..at).rev() {
        match tokens.get(index) {
            Some(Token::Close) => depth += 1,
            Some(Token::Open) if depth == 0 => {
                start = index + 1;
                break;
            }
            Some(Token::Open) => depth -= 1,
            Some(Token::Or) if depth == 0 => {
                start = index + 1;
                break;
            }
            _ => {}
        }
    }
    Context {
        own: tokens.get(start..at).unwrap_or(&[]),
        earlier: tokens.get(..start).unwrap_or(&[]),
    }
}

/// What the tests of a branch say of the names it lets through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Names<'w> {
    /// Any name.
    Any,
    /// Names every one of these sets has a pattern for (`None`: known only when it runs).
    Narrowed(Vec<Vec<Option<&'w str>>>),
}

/// The names a branch lets through (see the module's docs); `guarded_path` says whether a test
/// of paths' pattern may match a path the hardline guards (with `*` crossing `/`, as find's
/// does: `./.gi*config`).
pub(super) fn names<'w>(branch: &[Token<'w>], guarded_path: &dyn Fn(&str) -> bool) -> Names<'w> {
    let mut sets: Vec<Vec<Option<&'w str>>> = Vec::new();
    let mut at = 0;
    while let Some(token) = branch.get(at) {
        match token {
            // What a negated test lets through may be any name.
            Token::Not => {
                at += 1 + item_length(branch, at + 1);
                continue;
            }
            Token::Names { test, pattern } if matches!(*test, "-name" | "-iname") => {
                sets.push(vec![*pattern]);
            }
            // A test of paths no guarded path passes (`-path '*/migrations/*.py'`) lets none of
            // them through.
            Token::Names { test, pattern }
                if is_path_test(test) && pattern.is_some_and(|p| !guarded_path(p)) =>
            {
                sets.push(Vec::new());
            }
            Token::NoneGuarded => sets.push(Vec::new()),
            Token::Open => {
                let length = item_length(branch, at);
                let inside = branch
                    .get(at + 1..at + length.saturating_sub(1))
                    .unwrap_or(&[]);
                let mut union: Option<Vec<Option<&'w str>>> = Some(Vec::new());
                for alternative in inside.split(|t| *t == Token::Or) {
                    match (names(alternative, guarded_path), union.as_mut()) {
                        (Names::Narrowed(alternative_sets), Some(all)) => {
                            // One alternative's names: those of its first set.
                            all.extend(alternative_sets.into_iter().next().unwrap_or_default());
                        }
                        _ => union = None,
                    }
                }
                if let Some(all) = union.filter(|all| !all.is_empty()) {
                    sets.push(all);
                }
                at += length.max(1);
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    if sets.is_empty() {
        Names::Any
    } else {
        Names::Narrowed(sets)
    }
}

/// Whether a test is of paths (`-path`, `-wholename`, in either letter case).
fn is_path_test(test: &str) -> bool {
    matches!(test, "-path" | "-ipath" | "-wholename" | "-iwholename")
}

/// How many tokens the item at `at` spans: a group to its `)`, else one.
fn item_length(tokens: &[Token<'_>], at: usize) -> usize {
    if tokens.get(at) != Some(&Token::Open) {
        return 1;
    }
    let mut depth = 0usize;
    for (offset, token) in tokens.iter().skip(at).enumerate() {
        match token {
            Token::Open => depth += 1,
            Token::Close => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return offset + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len().saturating_sub(at)
}

/// The names of `guarded` a branch's names may be (a pattern with `?`, `[…]` or `\` may be any
/// of them), in any letter case.
pub(super) fn guarded_among<'g>(names: &Names<'_>, guarded: &'g [impl AsRef<str>]) -> Vec<&'g str> {
    let Names::Narrowed(sets) = names else {
        return guarded.iter().map(AsRef::as_ref).collect();
    };
    let may_be = |pattern: &Option<&str>, name: &str| match pattern {
        None => true,
        Some(p) if p.contains(['?', '[', '\\']) => true,
        Some(p) => wildcard::matches(&lower(p), &lower(name)),
    };
    guarded
        .iter()
        .map(AsRef::as_ref)
        .filter(|name| sets.iter().all(|set| set.iter().any(|p| may_be(p, name))))
        .collect()
}

/// Whether a branch lets only files through (`-type f`, not negated).
pub(super) fn files_only(branch: &[Token<'_>]) -> bool {
    branch.iter().enumerate().any(|(at, token)| {
        *token == Token::Files && (at == 0 || branch.get(at - 1) != Some(&Token::Not))
    })
}

/// Whether anything before an action chooses which files it acts on (a test, another action):
/// not options that choose none (`-maxdepth 1`, `-xdev`).
pub(super) fn tested(before: &[Token<'_>], find: &FindWords) -> bool {
    before.iter().any(|token| match token {
        Token::Other(word) => !find.chooses_no_file.iter().any(|o| o == word),
        Token::Open | Token::Close => false,
        _ => true,
    })
}

/// A test that keeps paths out of what an action acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Excluded<'w> {
    /// Its pattern (`./.git/*`).
    pub(super) pattern: &'w str,
    /// It prunes what it matches (`-path ./.git -prune -o …`): what is under it too.
    pub(super) pruned: bool,
    /// Its pattern is of names (`-name .git -prune`): matched against a path's last name.
    pub(super) by_name: bool,
}

/// What an action's context keeps out: paths a negated test of paths names in its own branch,
/// and what an earlier branch prunes.
pub(super) fn excluded<'w>(context: &Context<'_, 'w>) -> Vec<Excluded<'w>> {
    let mut out = Vec::new();
    // Only tests of paths and names keep paths out (`-lname` tests a link's target, `-regex`
    // is no wildcard).
    let tested = |token: Option<&Token<'w>>| match token {
        Some(Token::Names {
            test,
            pattern: Some(pattern),
        }) if is_path_test(test) || matches!(*test, "-name" | "-iname") => {
            Some((*pattern, matches!(*test, "-name" | "-iname")))
        }
        _ => None,
    };
    for (at, token) in context.own.iter().enumerate() {
        if *token != Token::Not {
            continue;
        }
        if let Some((pattern, by_name)) = tested(context.own.get(at + 1)) {
            out.push(Excluded {
                pattern,
                pruned: false,
                by_name,
            });
        }
    }
    for (at, token) in context.earlier.iter().enumerate() {
        if context.earlier.get(at + 1) != Some(&Token::Prune) {
            continue;
        }
        if let Some((pattern, by_name)) = tested(Some(token)) {
            out.push(Excluded {
                pattern,
                pruned: true,
                by_name,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::spec;

    fn words(line: &str) -> Vec<Word> {
        line.split(' ').map(Word::unquoted).collect()
    }

    /// The names of the guarded ones the last action of `line` (find's expression) may act on.
    fn acted_on(line: &str) -> Vec<String> {
        let find = &spec().hardline.plain.find;
        let line = words(line);
        let read = tokens(&line, 0, find);
        let at = read
            .iter()
            .rposition(|t| matches!(t, Token::Runs { .. } | Token::Delete))
            .unwrap_or(read.len());
        let around = context(&read, at);
        let guarded_path = |pattern: &str| {
            [
                "./.git/config",
                "./.git/hooks/pre-commit",
                "./.husky/pre-commit",
            ]
            .iter()
            .any(|path| wildcard::matches(pattern, path))
        };
        let mut all: Vec<&str> = find.root_names.iter().map(|n| n.as_ref()).collect();
        for (_, guarded) in find.hidden_folders.iter() {
            all.extend(guarded.iter().map(|n| n.as_ref()));
        }
        guarded_among(&names(around.own, &guarded_path), &all)
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn a_test_of_names_narrows_what_an_action_acts_on() {
        assert!(acted_on("-name *.py -exec black {} +").is_empty());
        assert!(acted_on("-name *.py ! -name setup.py -exec black {} +").is_empty());
        assert!(acted_on("( -name *.c -o -name *.h ) -exec clang-format -i {} +").is_empty());
        assert!(acted_on("-name config -exec rm {} ;").contains(&"config".to_string()));
        assert!(acted_on("-name .git -exec rm -rf {} +").contains(&".git".to_string()));
        assert!(acted_on("-name .* -exec rm -rf {} +").contains(&".git".to_string()));
        assert!(acted_on("-iname *GIT -exec rm -rf {} +").contains(&".git".to_string()));
        assert!(acted_on("-name *.yml -exec sed -i x {} +").contains(&"lefthook.yml".to_string()));
        assert!(acted_on("-name pre-commi? -exec cp x {} ;").contains(&"pre-commit".to_string()));
        assert!(acted_on("-path */migrations/*.py -delete").is_empty());
        assert!(acted_on("-type l -delete").is_empty());
        // Empty folders may be git's own (`.git/refs`): deleting them breaks the repository.
        assert!(acted_on("-type d -empty -delete").contains(&"refs".to_string()));
        assert!(acted_on("-not -empty -delete").contains(&"config".to_string()));
    }

    #[test]
    fn what_does_not_narrow_names_lets_any_through() {
        assert!(acted_on("-type f -exec rm {} ;").contains(&"config".to_string()));
        assert!(acted_on("! -name *.py -exec rm {} ;").contains(&"config".to_string()));
        assert!(acted_on("-path ./.git/* -exec rm {} ;").contains(&"config".to_string()));
        assert!(acted_on("-path ./.gi*config -exec rm {} ;").contains(&"config".to_string()));
        assert!(acted_on("-path ./k8s/* -exec rm {} ;").is_empty());
        assert!(acted_on("-regex .*py -exec rm {} ;").contains(&"config".to_string()));
        assert!(acted_on("( -name *.py -o -type f ) -exec rm {} ;").contains(&"config".to_string()));
        assert!(
            acted_on("-name *.py -exec false ; -o -exec rm -rf {} +").contains(&".git".to_string())
        );
        assert!(acted_on("-name *.py -exec true ; , -exec rm {} +").contains(&".git".to_string()));
    }

    #[test]
    fn an_action_has_the_context_of_its_branch() {
        let find = &spec().hardline.plain.find;
        let line = words("-path ./.git -prune -o -type f -not -path ./x/* -exec rm {} ;");
        let read = tokens(&line, 0, find);
        let at = read
            .iter()
            .position(|t| matches!(t, Token::Runs { .. }))
            .unwrap_or(0);
        let around = context(&read, at);
        assert!(files_only(around.own));
        let kept = excluded(&around);
        assert!(kept.contains(&Excluded {
            pattern: "./.git",
            pruned: true,
            by_name: false
        }));
        assert!(kept.contains(&Excluded {
            pattern: "./x/*",
            pruned: false,
            by_name: false
        }));
        // The action that runs on what is pruned: nothing keeps it out.
        let line = words("-path ./.* -prune -exec rm -rf {} +");
        let read = tokens(&line, 0, find);
        let around = context(&read, read.len() - 1);
        assert!(excluded(&around).is_empty());
    }
}
