//! Opening a file for a file tool (`read`, `write`, `edit`) as the rules judged it, and no other:
//! the judged path is a real path (every folder resolved through its links), so it is opened one
//! folder at a time beneath the project root (or `/`, for a path outside it the rules allowed)
//! with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)`. A symbolic link
//! met on the way — one that leads nowhere (which the judgement could not follow), or one put
//! there after the judgement by a racing command — refuses the open, so no write goes through a
//! link to a file outside the root. A write or an edit of a file with other names (hard links,
//! which may be outside the root) is refused too, and only regular files are opened.

use rustix::fs::{Mode, OFlags, ResolveFlags};
use std::fs::File;
use std::os::fd::OwnedFd;
use std::path::{Component, Path};
use thiserror::Error;

/// What a file tool does with the file it opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reads it.
    Read,
    /// Writes it whole: made with its folders if missing, emptied if not.
    Write,
    /// Reads it, then writes it again (`edit`).
    Edit,
}

/// Why a file was not opened.
#[derive(Debug, Error)]
pub enum OpenError {
    #[error(
        "a symbolic link is on its way (one that leads nowhere, or one made after the path was \
         judged): the file tools do not follow it; name the file it leads to"
    )]
    Link,
    #[error(
        "it has {0} names (hard links): a write through this one changes the others, which may \
         be outside the project; refused"
    )]
    HardLinks(u64),
    #[error("it is not a regular file")]
    NotAFile,
    #[error("{0}")]
    Io(std::io::Error),
}

impl From<rustix::io::Errno> for OpenError {
    fn from(e: rustix::io::Errno) -> OpenError {
        if e == rustix::io::Errno::LOOP || e == rustix::io::Errno::XDEV {
            OpenError::Link
        } else {
            OpenError::Io(e.into())
        }
    }
}

/// The strictest resolution: beneath the folder, through no link.
fn strict() -> ResolveFlags {
    ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS
}

/// Opens `judged` (a real path, as the rules judged it) for `access`, one folder at a time
/// beneath `root` when it is inside it, else beneath `/`.
pub fn open(judged: &Path, root: &Path, access: Access) -> Result<File, OpenError> {
    let (anchor, rest) = match judged.strip_prefix(root) {
        Ok(rest) => (root, rest),
        Err(_) => (Path::new("/"), judged.strip_prefix("/").unwrap_or(judged)),
    };
    let mut names: Vec<&std::ffi::OsStr> = Vec::new();
    for component in rest.components() {
        match component {
            Component::Normal(name) => names.push(name),
            Component::CurDir => {}
            // A real path holds no `..`; one that does is not what was judged.
            _ => return Err(OpenError::Link),
        }
    }
    let Some((last, folders)) = names.split_last() else {
        return Err(OpenError::NotAFile);
    };
    let folder_flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let mut folder: OwnedFd = rustix::fs::openat2(
        rustix::fs::CWD,
        anchor,
        folder_flags,
        Mode::empty(),
        ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
    )?;
    for name in folders {
        if access == Access::Write {
            match rustix::fs::mkdirat(&folder, *name, Mode::from_raw_mode(0o777)) {
                Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                Err(e) => return Err(e.into()),
            }
        }
        folder = rustix::fs::openat2(&folder, *name, folder_flags, Mode::empty(), strict())?;
    }
    let flags = match access {
        Access::Read => OFlags::RDONLY,
        Access::Write => OFlags::WRONLY | OFlags::CREATE,
        Access::Edit => OFlags::RDWR,
    } | OFlags::CLOEXEC
        | OFlags::NOFOLLOW;
    // openat2 takes a mode only with O_CREAT.
    let mode = if access == Access::Write {
        Mode::from_raw_mode(0o666)
    } else {
        Mode::empty()
    };
    let fd = rustix::fs::openat2(&folder, *last, flags, mode, strict())?;
    let stat = rustix::fs::fstat(&fd)?;
    if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::RegularFile {
        return Err(OpenError::NotAFile);
    }
    #[allow(clippy::useless_conversion)]
    let names = u64::from(stat.st_nlink);
    if access != Access::Read && names > 1 {
        return Err(OpenError::HardLinks(names));
    }
    if access == Access::Write {
        rustix::fs::ftruncate(&fd, 0)?;
    }
    Ok(File::from(fd))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn base(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("lembas-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("root")).unwrap();
        std::fs::create_dir_all(dir.join("outside")).unwrap();
        std::fs::canonicalize(dir).unwrap()
    }

    #[test]
    fn a_file_inside_is_read_written_and_made_with_its_folders() {
        let dir = base("plain");
        let root = dir.join("root");
        let mut f = open(&root.join("a/b/c.txt"), &root, Access::Write).unwrap();
        f.write_all(b"hello").unwrap();
        let mut text = String::new();
        open(&root.join("a/b/c.txt"), &root, Access::Read)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "hello");
        // Written again: emptied first.
        open(&root.join("a/b/c.txt"), &root, Access::Write)
            .unwrap()
            .write_all(b"hi")
            .unwrap();
        assert_eq!(
            std::fs::read_to_string(root.join("a/b/c.txt")).unwrap(),
            "hi"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn no_write_goes_through_a_link_or_another_name() {
        let dir = base("links");
        let root = dir.join("root");
        let outside = dir.join("outside");
        // A link that leads nowhere yet, to a file outside.
        std::os::unix::fs::symlink(outside.join("made.txt"), root.join("dangling")).unwrap();
        assert!(matches!(
            open(&root.join("dangling"), &root, Access::Write),
            Err(OpenError::Link)
        ));
        assert!(!outside.join("made.txt").exists());
        // A folder swapped for a link after it was judged.
        std::os::unix::fs::symlink(&outside, root.join("sub")).unwrap();
        assert!(matches!(
            open(&root.join("sub/x.txt"), &root, Access::Write),
            Err(OpenError::Link)
        ));
        assert!(!outside.join("x.txt").exists());
        // A hard link to a file outside.
        std::fs::write(outside.join("system.conf"), "original").unwrap();
        std::fs::hard_link(outside.join("system.conf"), root.join("notes.txt")).unwrap();
        assert!(matches!(
            open(&root.join("notes.txt"), &root, Access::Write),
            Err(OpenError::HardLinks(2))
        ));
        assert!(matches!(
            open(&root.join("notes.txt"), &root, Access::Edit),
            Err(OpenError::HardLinks(2))
        ));
        assert_eq!(
            std::fs::read_to_string(outside.join("system.conf")).unwrap(),
            "original"
        );
        // Not a regular file.
        assert!(matches!(
            open(Path::new("/dev/zero"), &root, Access::Read),
            Err(OpenError::NotAFile)
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_link_swapped_in_while_writes_go_on_never_lets_one_out() {
        let dir = base("race");
        let root = dir.join("root");
        let outside = dir.join("outside");
        std::fs::create_dir_all(root.join("work")).unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let racer = {
            let (root, outside, stop) = (root.clone(), outside.clone(), stop.clone());
            std::thread::spawn(move || {
                let work = root.join("work");
                let link = root.join("work-link");
                std::os::unix::fs::symlink(&outside, &link).unwrap();
                // The folder and a link to outside trade places, atomically, again and again.
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = rustix::fs::renameat_with(
                        rustix::fs::CWD,
                        &work,
                        rustix::fs::CWD,
                        &link,
                        rustix::fs::RenameFlags::EXCHANGE,
                    );
                }
            })
        };
        let mut written = 0;
        for _ in 0..2000 {
            if let Ok(mut f) = open(&root.join("work/out.txt"), &root, Access::Write) {
                written += 1;
                let _ = f.write_all(b"x");
            }
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        racer.join().unwrap();
        assert!(
            !outside.join("out.txt").exists(),
            "a write went through the link"
        );
        assert!(written > 0, "no write got through at all");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
