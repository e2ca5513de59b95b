//! Paths as the rules read them, lexically and without the disk: made absolute against a folder
//! (`~`, `~user`, `.` and `..` folded), and placed inside or outside the project root. The
//! harness's file tools read their paths with these functions too, so that a tool and a command
//! naming the same path are judged alike.

use std::borrow::Cow;

/// The last name of a path: what follows its last `/` (all of it when it has none; nothing
/// when it ends with `/`). Found by a byte (a reverse search by a character set a searcher up
/// each time).
pub fn last_name(path: &str) -> &str {
    match path.as_bytes().iter().rposition(|&b| b == b'/') {
        Some(slash) => path.get(slash + 1..).unwrap_or(""),
        None => path,
    }
}

/// `.`, `..` and doubled slashes folded, lexically.
pub fn normalize(path: &str) -> String {
    let absolute = path.starts_with('/');
    // Written into one text: the kept segments, `/` between (and first, when absolute).
    let mut out = String::with_capacity(path.len() + 1);
    if absolute {
        out.push('/');
    }
    let base = out.len();
    for seg in segments(path) {
        match seg {
            "" | "." => {}
            ".." => {
                let kept = out.get(base..).unwrap_or("");
                let last_at = kept.len() - last_name(kept).len();
                let last = kept.get(last_at..).unwrap_or("");
                if !kept.is_empty() && last != ".." && last != "~" {
                    // The last segment goes, with the `/` before it.
                    out.truncate(base + last_at.saturating_sub(1));
                } else if !absolute {
                    push_segment(&mut out, base, "..");
                }
            }
            s => push_segment(&mut out, base, s),
        }
    }
    out
}

/// A path's pieces between its `/`s, as `path.split('/')` gives them, found by bytes (a split by
/// a character set a searcher up for every path).
fn segments(path: &str) -> impl Iterator<Item = &str> {
    let mut start = Some(0);
    std::iter::from_fn(move || {
        let from = start?;
        let rest = path.get(from..).unwrap_or("");
        match rest.as_bytes().iter().position(|&b| b == b'/') {
            Some(slash) => {
                start = Some(from + slash + 1);
                rest.get(..slash)
            }
            None => {
                start = None;
                Some(rest)
            }
        }
    })
}

/// A segment added at the end of a path being written from `base` on.
fn push_segment(out: &mut String, base: usize, segment: &str) {
    if out.len() > base {
        out.push('/');
    }
    out.push_str(segment);
}

/// Whether `abs` is `root` or under it, as [`inside`] says, without making the relative path.
pub fn is_inside(root: &str, abs: &str) -> bool {
    let root = root.trim_end_matches('/');
    root.is_empty()
        || abs
            .strip_prefix(root)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// `abs` relative to `root` when it is inside it (`.` for the root itself), borrowed from `abs`.
pub fn inside<'a>(root: &str, abs: &'a str) -> Option<&'a str> {
    let root = root.trim_end_matches('/');
    if abs == root {
        return Some(".");
    }
    if root.is_empty() {
        return Some(abs.trim_start_matches('/'));
    }
    abs.strip_prefix(root).and_then(|r| r.strip_prefix('/'))
}

/// The permission key that a path outside the project root is checked under.
pub const OUTSIDE_ROOT: &str = "external_directory";

/// Where the line runs: the project root and the person's home, when known.
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    /// The project root, absolute.
    pub root: &'a str,
    /// The person's home folder, when known.
    pub home: Option<&'a str>,
}

/// The kernel's own links before `..` is folded: `/dev/fd` is `/proc/self/fd` (so
/// `/dev/fd/../environ` is the process's environment) and `/dev/stdin`, `/dev/stdout`,
/// `/dev/stderr` are its descriptors 0, 1 and 2. Only a path that climbs out of them is read
/// through them; `/dev/fd/1` itself stays the device it is.
fn through_kernel_links(path: &str) -> Cow<'_, str> {
    let climbs = path.split('/').any(|s| s == "..");
    if !climbs {
        return Cow::Borrowed(path);
    }
    for (device, target) in [
        ("/dev/fd/", "/proc/self/fd/"),
        ("/dev/stdin/", "/proc/self/fd/0/"),
        ("/dev/stdout/", "/proc/self/fd/1/"),
        ("/dev/stderr/", "/proc/self/fd/2/"),
    ] {
        if let Some(rest) = path.strip_prefix(device) {
            return Cow::Owned([target, rest].concat());
        }
    }
    Cow::Borrowed(path)
}

/// A home folder whose path is not known is read as this, so that `~/..` leaves it.
pub(crate) const SOME_HOME: &str = "/home/~home";

/// A path made absolute: `~` and `~user` expanded, relative paths against `cwd`, `.` and `..`
/// folded. With the home unknown, a path in it is written `~/…`.
pub fn resolve(place: Place<'_>, cwd: &str, path: &str) -> String {
    let home = place
        .home
        .map(|h| h.trim_end_matches('/'))
        .unwrap_or(SOME_HOME);
    let home = if home.is_empty() { "/" } else { home };
    let expanded = if let Some(rest) = path.strip_prefix('~') {
        let (user, tail) = match rest.find('/') {
            Some(k) => (rest.get(..k).unwrap_or(""), rest.get(k..).unwrap_or("")),
            None => (rest, ""),
        };
        match user {
            "" => Cow::Owned([home, tail].concat()),
            "root" => Cow::Owned(["/root", tail].concat()),
            u => Cow::Owned(["/home/", u, tail].concat()),
        }
    } else if path.starts_with('/') {
        Cow::Borrowed(path)
    } else {
        Cow::Owned([cwd, "/", path].concat())
    };
    let abs = normalize(&through_kernel_links(&expanded));
    if place.home.is_none() {
        if abs == SOME_HOME {
            return "~".into();
        }
        if let Some(rest) = abs.strip_prefix(SOME_HOME).filter(|r| r.starts_with('/')) {
            return ["~", rest].concat();
        }
    }
    abs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path's last name is what splitting it at `/` gives last, for every path of up to four
    /// characters of `/`, `a` and `é`.
    #[test]
    fn the_last_name_is_the_last_piece() {
        for path in crate::permission::every_text(&["/", "a", "é"], 4) {
            assert_eq!(
                last_name(&path),
                path.rsplit('/').next().unwrap(),
                "{path:?}"
            );
        }
    }

    /// A path's pieces are what splitting it at `/` gives, for every path of up to five
    /// characters of `/`, `a` and `é`.
    #[test]
    fn the_segments_are_the_pieces_between_slashes() {
        for path in crate::permission::every_text(&["/", "a", "é"], 5) {
            assert!(segments(&path).eq(path.split('/')), "{path:?}");
        }
    }

    #[test]
    fn is_inside_says_what_inside_finds() {
        for root in ["/p", "/p/", "/", "", "/home/u/proj"] {
            for abs in [
                "/p",
                "/p/a",
                "/pa",
                "/",
                "/home/u/proj/src",
                "/home/u",
                "/home/u/projx",
            ] {
                assert_eq!(
                    is_inside(root, abs),
                    inside(root, abs).is_some(),
                    "{root} {abs}"
                );
            }
        }
    }

    /// The normalisation as it was first written (segments collected, joined), the reference
    /// for the one that writes into one text.
    fn normalize_by_segments(path: &str) -> String {
        let absolute = path.starts_with('/');
        let mut parts: Vec<&str> = Vec::new();
        for seg in path.split('/') {
            match seg {
                "" | "." => {}
                ".." => {
                    if parts.last().is_some_and(|p| *p != ".." && *p != "~") {
                        parts.pop();
                    } else if !absolute {
                        parts.push("..");
                    }
                }
                s => parts.push(s),
            }
        }
        let joined = parts.join("/");
        if absolute {
            ["/", joined.as_str()].concat()
        } else {
            joined
        }
    }

    proptest::proptest! {
        /// Paths made of `.`, `..`, `~`, empty and named segments (and odd letters) are
        /// normalised as the reference does.
        #[test]
        fn normalize_is_the_segments_joined(
            path in proptest::string::string_regex("(/|\\.|\\.\\.|~|a|bc|é|x\\.y|/\\.\\./|//){0,12}").unwrap()
        ) {
            proptest::prop_assert_eq!(normalize(&path), normalize_by_segments(&path));
        }
    }

    const PLACE: Place<'static> = Place {
        root: "/project",
        home: None,
    };

    #[test]
    fn paths_resolve_like_the_shell() {
        assert_eq!(
            resolve(PLACE, "/project", "~/../../etc/passwd"),
            "/etc/passwd"
        );
        assert_eq!(resolve(PLACE, "/project", "~/.ssh/id"), "~/.ssh/id");
        assert_eq!(resolve(PLACE, "/project", "~root"), "/root");
        assert_eq!(resolve(PLACE, "/project", "~bob/x"), "/home/bob/x");
        assert_eq!(resolve(PLACE, "/project", "/tmp/../usr"), "/usr");
        assert_eq!(resolve(PLACE, "/project", "a/../b"), "/project/b");
        // Through the kernel's links before `..`: `/dev/fd` is `/proc/self/fd`.
        assert_eq!(
            resolve(PLACE, "/project", "/dev/fd/../environ"),
            "/proc/self/environ"
        );
        assert_eq!(
            resolve(PLACE, "/project", "/dev/fd/../../1/environ"),
            "/proc/1/environ"
        );
        assert_eq!(resolve(PLACE, "/project", "/dev/fd/1"), "/dev/fd/1");
        let home = Place {
            root: "/project",
            home: Some("/home/me"),
        };
        assert_eq!(resolve(home, "/project", "~/x"), "/home/me/x");
    }
}
