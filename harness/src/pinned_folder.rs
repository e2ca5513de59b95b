//! A folder the git guard works in, opened once and reached by its `/proc/self/fd` path after:
//! a process a command left running may swap the folder for a link between the guard's looks
//! (`rename` of a link over `.git/hooks`), so that a listing, a removal or a write by the
//! folder's path lands wherever the link leads — lembas's own kept sessions included, which the
//! command itself cannot reach. Through the opened folder, every step lands in the folder that
//! was opened, and it is opened only where it is where it should be.

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// A folder held open, and the path that reaches it and nothing else.
#[derive(Debug)]
pub struct PinnedFolder {
    _open: std::fs::File,
    path: PathBuf,
}

impl PinnedFolder {
    /// `folder`, opened without following a link in its place, when it is where `root` says it
    /// should be: inside the project, the real project root with the same names after it (no
    /// folder on the way a link); outside it (a repository a `.git` file points to, the
    /// person's own), where its path leads now. None when it is not a folder, or is elsewhere.
    pub fn open(folder: &Path, root: &Path) -> Option<PinnedFolder> {
        use std::os::unix::fs::OpenOptionsExt;
        let expected = match folder.strip_prefix(root) {
            Ok(inside) => std::fs::canonicalize(root).ok()?.join(inside),
            Err(_) => std::fs::canonicalize(folder).ok()?,
        };
        let open = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
            .open(folder)
            .ok()?;
        let path = PathBuf::from(format!("/proc/self/fd/{}", open.as_raw_fd()));
        let opened = std::fs::read_link(&path).ok()?;
        (opened == expected).then_some(PinnedFolder { _open: open, path })
    }

    /// The path that reaches the opened folder (`/proc/self/fd/N`): a name joined to it is an
    /// entry of that folder, wherever its old path leads now.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_reached_through_a_link_on_the_way_is_not_opened() {
        let root = std::env::temp_dir().join(format!("lembas-pinned-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let elsewhere = root.with_extension("elsewhere");
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(elsewhere.join("hooks")).unwrap();
        let hooks = root.join(".git/hooks");
        let pinned = PinnedFolder::open(&hooks, &root).unwrap();
        std::fs::write(pinned.path().join("pre-commit"), "x").unwrap();
        assert!(hooks.join("pre-commit").exists());
        // `.git` swapped for a link while the folder is held: the held one is still reached.
        std::fs::rename(root.join(".git"), root.join("moved")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, root.join(".git")).unwrap();
        std::fs::write(pinned.path().join("post-commit"), "y").unwrap();
        assert!(root.join("moved/hooks/post-commit").exists());
        assert!(!elsewhere.join("hooks/post-commit").exists());
        // Opened now, through the link on the way: refused.
        assert!(PinnedFolder::open(&hooks, &root).is_none());
        // The folder itself a link: refused.
        std::fs::remove_file(root.join(".git")).unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        std::os::unix::fs::symlink(elsewhere.join("hooks"), &hooks).unwrap();
        assert!(PinnedFolder::open(&hooks, &root).is_none());
        let _ = std::fs::remove_dir_all(&root);
        let _ = std::fs::remove_dir_all(&elsewhere);
    }
}
