//! What the tests that run real tools share: a throwaway folder that removes itself, and a bash
//! line run in it with a fake home, its output kept.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A folder under the system's temporary folder, removed (with everything in it) when dropped.
pub struct Throwaway {
    pub path: PathBuf,
}

impl Throwaway {
    /// A fresh folder named `name` and this process's id, emptied if it was there.
    pub fn new(name: &str) -> Throwaway {
        let path = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Throwaway { path }
    }
}

impl Drop for Throwaway {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Runs a bash line in `folder` with `home` as the home, no system or global git config, no
/// input, and `env` besides: what it printed (output then errors) and whether it ended well.
pub fn bash(line: &str, folder: &Path, home: &Path, env: &[(&str, &str)]) -> (bool, String) {
    let mut command = Command::new("bash");
    command
        .arg("-c")
        .arg(line)
        .current_dir(folder)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(std::process::Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    let done = command.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&done.stdout),
        String::from_utf8_lossy(&done.stderr)
    );
    (done.status.success(), text)
}
