//! How a word names a path other than plainly: git's pathspec magic (`:/x`, `:(top)x`, `:!x`),
//! the path of a git revision word (`HEAD:.env`), `file:` addresses (`file:///etc/hosts`), and
//! the file a download of an address is saved as (`curl -O https://x/cargo`: `cargo`).

/// What a word is as a git pathspec ([`pathspec`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pathspec<'a> {
    /// No magic: the word is the path.
    Plain,
    /// `:/x`, `:(top)x`: from the repository's top.
    FromTop,
    /// `:(glob)x`, `:(icase)x`: `x`, from where git runs.
    Under(&'a str),
    /// `:!x`, `:^x`, `:(exclude)x`: everything but `x` where git runs.
    Excluding,
}

/// A word read as a git pathspec's magic (`:/`, `:(top,glob)x`, `:!x`).
pub(super) fn pathspec(word: &str) -> Pathspec<'_> {
    let Some(rest) = word.strip_prefix(':') else {
        return Pathspec::Plain;
    };
    if rest.starts_with('/') {
        return Pathspec::FromTop;
    }
    if rest.starts_with(['!', '^']) {
        return Pathspec::Excluding;
    }
    let Some(inside) = rest.strip_prefix('(') else {
        return Pathspec::Plain;
    };
    let Some((magic, path)) = inside.split_once(')') else {
        return Pathspec::FromTop;
    };
    let words: Vec<&str> = magic.split(',').map(str::trim).collect();
    if words.contains(&"top") {
        Pathspec::FromTop
    } else if words.contains(&"exclude") {
        Pathspec::Excluding
    } else {
        Pathspec::Under(path)
    }
}

/// The path in a git revision word, from the repository's top: `REV:path` (the first `:` not
/// inside a `@{…}` or `^{…}`: `HEAD@{10:00}:x`), `:path` and a stage's `:0:path` … `:3:path`.
pub(super) fn revision_path(word: &str) -> Option<&str> {
    if let Some(rest) = word.strip_prefix(':') {
        return if matches!(rest.as_bytes(), [b'0'..=b'3', b':', ..]) {
            rest.get(2..)
        } else {
            Some(rest)
        };
    }
    let mut depth = 0usize;
    for (at, c) in word.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ':' if depth == 0 => return word.get(at + 1..),
            _ => {}
        }
    }
    None
}

/// What a word is as a `file:` address ([`file_address`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum FileAddress {
    /// It is no `file:` address on this machine.
    NotOne,
    /// The path it names, its `%XX` escapes decoded.
    Path(String),
    /// Its escapes decode to bytes that are not text, or it holds curl's globs: the path is
    /// not known.
    Unreadable,
}

/// The path a `file:` address names (`file:///etc/hosts`, `file://localhost/etc/hosts`), if
/// the word is one on this machine.
pub(super) fn file_address(word: &str) -> FileAddress {
    let Some(rest) = word
        .get(..7)
        .filter(|scheme| scheme.eq_ignore_ascii_case("file://"))
        .and_then(|_| word.get(7..))
    else {
        return FileAddress::NotOne;
    };
    let path = match rest.strip_prefix("localhost") {
        Some(after) if after.starts_with('/') => after,
        _ if rest.starts_with('/') => rest,
        _ => return FileAddress::NotOne,
    };
    // curl's globs (`.ss[h-h]`, `{a,b}`) name paths known only when it runs.
    if path.contains(['[', '{']) {
        return FileAddress::Unreadable;
    }
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        let escaped = (b == b'%')
            .then(|| bytes.get(at + 1..at + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                decoded.push(byte);
                at += 3;
            }
            None => {
                decoded.push(b);
                at += 1;
            }
        }
    }
    match String::from_utf8(decoded) {
        Ok(path) => FileAddress::Path(path),
        Err(_) => FileAddress::Unreadable,
    }
}

/// Whether a word is a `file:` address, whose `%XX` escapes may spell a secret's path that its
/// text does not show (`file:///home/u/%2Essh/id_rsa`).
pub(super) fn spells_an_address(text: &str) -> bool {
    text.get(..5)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("file:"))
}

/// The names a download of an address is saved under in the folder it runs in (`curl -O
/// https://x/a/cargo?v=1`: `cargo`; an address ending in `/`: `index.html`), as written and
/// with its `%XX` escapes decoded; none for a word that is no address.
pub(super) fn address_file_names(word: &str) -> Vec<String> {
    let Some((_, rest)) = word.split_once("://") else {
        return Vec::new();
    };
    let path = rest.split(['?', '#']).next().unwrap_or("");
    let last = match path.split_once('/') {
        Some((_, path)) => crate::permission::path::last_name(path),
        None => "",
    };
    let name = if last.is_empty() { "index.html" } else { last };
    let mut names = vec![name.to_string()];
    let decoded = percent_decoded(name);
    if decoded != name {
        names.push(decoded);
    }
    names
}

/// A text with each `%XX` turned into its byte (where the bytes make text).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        let hex = bytes
            .get(at + 1..at + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b, hex) {
            (b'%', Some(value)) => {
                out.push(value);
                at += 3;
            }
            _ => {
                out.push(b);
                at += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::{file_address, pathspec, revision_path, FileAddress, Pathspec};

    #[test]
    fn a_pathspec_from_the_top_is_not_known_and_others_are_read_where_git_runs() {
        assert_eq!(pathspec(":/"), Pathspec::FromTop);
        assert_eq!(pathspec(":(top).ssh"), Pathspec::FromTop);
        assert_eq!(pathspec(":(glob,top)x"), Pathspec::FromTop);
        assert_eq!(pathspec(":(glob)**/*.orig"), Pathspec::Under("**/*.orig"));
        assert_eq!(pathspec(":!vendor"), Pathspec::Excluding);
        assert_eq!(pathspec(":(exclude).env"), Pathspec::Excluding);
        assert_eq!(pathspec(":(top"), Pathspec::FromTop);
        assert_eq!(pathspec("src/x"), Pathspec::Plain);
        assert_eq!(pathspec(":0:x"), Pathspec::Plain);
    }

    #[test]
    fn a_revision_word_names_its_path_after_the_colon_git_reads() {
        assert_eq!(revision_path("HEAD:README.md"), Some("README.md"));
        assert_eq!(revision_path(":0:.ssh/id_ed25519"), Some(".ssh/id_ed25519"));
        assert_eq!(revision_path(":src/x.rs"), Some("src/x.rs"));
        assert_eq!(revision_path("HEAD@{10:00}:.netrc"), Some(".netrc"));
        assert_eq!(revision_path("main^{tree}:a:b"), Some("a:b"));
        assert_eq!(revision_path("HEAD~2"), None);
    }

    #[test]
    fn a_file_address_names_its_decoded_path() {
        assert_eq!(
            file_address("file:///home/u/.config"),
            FileAddress::Path("/home/u/.config".into())
        );
        assert_eq!(
            file_address("FILE://localhost/etc/%70asswd"),
            FileAddress::Path("/etc/passwd".into())
        );
        assert_eq!(file_address("file://server/x"), FileAddress::NotOne);
        assert_eq!(file_address("/etc/passwd"), FileAddress::NotOne);
        assert_eq!(file_address("file:///%ff"), FileAddress::Unreadable);
        assert_eq!(
            file_address("file:///home/u/.ss[h-h]/x"),
            FileAddress::Unreadable
        );
    }
}
