//! git's runners in the project, kept as they were across every command (the hardline's
//! `git-hooks` entry and `git config`'s settings that run a program, permission/programs.json):
//! the kernel's sandbox lets a command write anywhere in the project, `.git/` included, and a
//! hook or a `core.fsmonitor` written there would run at the person's next `git commit` or
//! `git status`, outside any sandbox. So before a command its repository's hooks and the
//! settings of its config that run a program are read; after it, a hook it added, changed or
//! removed is put back as it was, and a config whose running settings it changed is written back
//! whole. What was put back is said to the model.

use lembas_rules::permission::wildcard;
use lembas_rules::spec::spec;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The most bytes of hooks a guard keeps (a repository with more is not kept whole: its hooks
/// folder is then emptied of what a command adds, never restored from a partial copy).
const HOOKS_MAX: usize = 4 << 20;

/// A repository's runners before a command.
#[derive(Debug, Default)]
pub struct GitGuard {
    hooks: Option<Hooks>,
    config: Option<Config>,
}

#[derive(Debug)]
struct Hooks {
    folder: PathBuf,
    files: BTreeMap<std::ffi::OsString, Vec<u8>>,
}

#[derive(Debug)]
struct Config {
    file: PathBuf,
    bytes: Vec<u8>,
    running: Vec<String>,
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

/// The settings of a config file that run a program, as `key=value` lines (git's own reading,
/// `git config --file … --list`, which runs nothing and follows no include). None when git
/// cannot read it.
fn running_settings(file: &Path) -> Option<Vec<String>> {
    let out = std::process::Command::new("git")
        .args(["config", "--no-includes", "--null", "--list", "--file"])
        .arg(file)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let patterns = spec()
        .programs
        .programs
        .get("git")
        .and_then(|p| p.effects.as_ref())
        .and_then(|e| e.subcommands.get("config"))
        .map(|c| c.runs_operands)
        .unwrap_or_default();
    let mut running: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .split('\0')
        .filter(|entry| {
            let key = entry.split('\n').next().unwrap_or("").to_lowercase();
            !key.is_empty() && patterns.iter().any(|p| wildcard::matches(p, &key))
        })
        .map(str::to_string)
        .collect();
    running.sort();
    Some(running)
}

fn read_hooks(folder: &Path) -> Option<BTreeMap<std::ffi::OsString, Vec<u8>>> {
    let mut files = BTreeMap::new();
    let mut total = 0;
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(files),
        Err(_) => return None,
    };
    for entry in entries.flatten() {
        let bytes = std::fs::read(entry.path()).ok()?;
        total += bytes.len();
        if total > HOOKS_MAX {
            return None;
        }
        files.insert(entry.file_name(), bytes);
    }
    Some(files)
}

impl GitGuard {
    /// Reads `root`'s repository's hooks and running settings (nothing when it has none).
    pub fn before(root: &Path) -> GitGuard {
        let Some(dir) = git_dir(root) else {
            return GitGuard::default();
        };
        let folder = dir.join("hooks");
        let hooks = read_hooks(&folder).map(|files| Hooks { folder, files });
        let file = dir.join("config");
        let config = std::fs::read(&file).ok().and_then(|bytes| {
            running_settings(&file).map(|running| Config {
                file,
                bytes,
                running,
            })
        });
        GitGuard { hooks, config }
    }

    /// After the command: what it changed of the runners put back; a sentence for each.
    pub fn after(self) -> Vec<String> {
        let mut said = Vec::new();
        if let Some(hooks) = self.hooks {
            let now = read_hooks(&hooks.folder).unwrap_or_default();
            let mut changed = false;
            for (name, bytes) in &now {
                if hooks.files.get(name) != Some(bytes) {
                    changed = true;
                    let path = hooks.folder.join(name);
                    match hooks.files.get(name) {
                        Some(old) => {
                            let _ = std::fs::write(&path, old);
                        }
                        None => {
                            let _ = std::fs::remove_file(&path)
                                .or_else(|_| std::fs::remove_dir_all(&path));
                        }
                    }
                }
            }
            for (name, old) in &hooks.files {
                if !now.contains_key(name) {
                    changed = true;
                    let _ = std::fs::write(hooks.folder.join(name), old);
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
        if let Some(config) = self.config {
            let now = std::fs::read(&config.file).unwrap_or_default();
            if now != config.bytes && running_settings(&config.file) != Some(config.running) {
                let _ = std::fs::write(&config.file, &config.bytes);
                said.push(format!(
                    "the command changed a setting of {} that runs a program: it would run at the \
                     person's next git command, outside any sandbox, so lembas put the file back \
                     as it was",
                    config.file.display()
                ));
            }
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
        let said = guard.after();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(!hooks.join("pre-commit").exists());
        assert_eq!(
            std::fs::read_to_string(hooks.join("pre-push")).unwrap(),
            "#!/bin/sh\nexit 0\n"
        );
        // Nothing changed: nothing said.
        assert!(GitGuard::before(&root).after().is_empty());
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
        assert!(guard.after().is_empty(), "an ordinary setting stays");
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
            let said = guard.after();
            assert_eq!(said.len(), 1, "{key}: {said:?}");
            assert_eq!(std::fs::read_to_string(&config).unwrap(), before, "{key}");
        }
        let _ = std::fs::remove_dir_all(&root);
    }
}
