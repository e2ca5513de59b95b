//! A command's background processes, kept under the git guard's watch (the floor under the
//! rules, with [`crate::guard`]). A command that ends by itself may leave processes running
//! (`npm run dev &`), confined as it was. The guard put git's runners back when the command
//! ended; a hook or a `core.fsmonitor` such a process writes later would run at the person's next
//! git command, outside any sandbox. So while any such process goes on, the runners are put back
//! as they were before the command, every [`PERIOD`]; a later command's guard keeps them as they
//! were then too (not as it finds them); and when the session ends, the processes still running
//! are ended and the runners put back a last time.
//!
//! Which processes: lembas is its descendants' subreaper (`PR_SET_CHILD_SUBREAPER`), so a
//! command's process whose parent ended — every one left when its `bash` ended, however it went
//! into the background (`&`, `nohup`, `setsid`, a double fork) — becomes lembas's child, and the
//! watch goes on while lembas has a child that has not ended.
//!
//! What was put back is said with the next command's result. While a command's processes go on,
//! a change the person makes to the runners themselves is put back too, and said.

use crate::guard::GitGuard;
use nix::unistd::Pid;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// How often the runners are put back while a command's processes go on.
pub const PERIOD: Duration = Duration::from_millis(100);

/// How long the session's end goes on ending the processes its commands left (each round, those
/// that came to lembas since).
const KILL_FOR: Duration = Duration::from_secs(5);

/// The projects whose runners are watched, each as it was before the first command whose
/// processes went on there; one per session, shared by its workspaces.
#[derive(Debug)]
pub struct Survivors {
    watch: Arc<Mutex<Watch>>,
}

impl Default for Survivors {
    /// The watch of a session: lembas made its descendants' subreaper (where the kernel cannot,
    /// a process whose parent ended goes unseen, as it did before).
    fn default() -> Survivors {
        let _ = nix::sys::prctl::set_child_subreaper(true);
        Survivors {
            watch: Arc::default(),
        }
    }
}

#[derive(Debug, Default)]
struct Watch {
    projects: Vec<Project>,
    /// The process groups of the commands whose processes went on (ended with the session).
    groups: Vec<Pid>,
    /// What was put back since the last command's result said it.
    said: Vec<String>,
    /// The session ended: the watchers stop.
    ended: bool,
}

/// A project whose runners are watched: its root, and its runners as they were before the
/// first command whose processes went on there.
#[derive(Debug)]
struct Project {
    root: PathBuf,
    kept: GitGuard,
}

/// The process groups of every command lembas started that has not ended, or whose processes
/// go on under a session's watch: a child of lembas in none of them left its command's group,
/// and whose it was is not known.
static GROUPS: Mutex<Vec<Pid>> = Mutex::new(Vec::new());

fn groups() -> std::sync::MutexGuard<'static, Vec<Pid>> {
    GROUPS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A command began, in the process group `group`.
pub fn started(group: Pid) {
    groups().push(group);
}

/// A command ended with no process of its group left.
pub fn ended(group: Pid) {
    groups().retain(|g| *g != group);
}

/// A child of lembas, read from `/proc`.
#[derive(Debug, Clone, Copy)]
struct Child {
    pid: Pid,
    group: Pid,
    /// It ended, and nobody has waited for it yet.
    ended: bool,
}

/// The children of lembas that have not ended (its commands' `bash`, and every process of theirs
/// whose parent ended).
fn children() -> Vec<Child> {
    let mut all = all_children();
    all.retain(|child| !child.ended);
    all
}

/// Every child of lembas, ended or not, read from `/proc`.
fn all_children() -> Vec<Child> {
    let me = std::process::id().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // `pid (comm) state ppid …`: the name may hold anything but ends at the last `)`.
            let (_, after) = stat.rsplit_once(')')?;
            let mut fields = after.split_whitespace();
            let state = fields.next()?;
            let parent = fields.next()?;
            let group: i32 = fields.next()?.parse().ok()?;
            // A process whose first thread ended shows as a zombie while its other threads go
            // on: ended only when none does.
            let ended = matches!(state, "Z" | "X") && !threads_go_on(&entry.path());
            (parent == me).then(|| Child {
                pid: Pid::from_raw(pid),
                group: Pid::from_raw(group),
                ended,
            })
        })
        .collect()
}

/// Whether a thread of the process at `/proc/PID` has not ended.
fn threads_go_on(proc_entry: &Path) -> bool {
    let Ok(tasks) = std::fs::read_dir(proc_entry.join("task")) else {
        return false;
    };
    tasks.flatten().any(|task| {
        std::fs::read_to_string(task.path().join("stat")).is_ok_and(|stat| {
            stat.rsplit_once(')')
                .and_then(|(_, after)| after.split_whitespace().next())
                .is_some_and(|state| !matches!(state, "Z" | "X"))
        })
    })
}

/// Whether lembas has a child that has not ended but is no running command's `bash` (which leads
/// its command's group): a process a command left, in its group or out of it (`setsid`).
pub fn strays() -> bool {
    let known = groups().clone();
    children()
        .iter()
        .any(|child| !(child.pid == child.group && known.contains(&child.group)))
}

/// Waits for the ended processes lembas took in from its commands' groups, so that none is left
/// a zombie: a process of a command's group that is not its `bash` (whose group it leads, and
/// for which the runtime waits).
fn reap_taken_in() {
    let known = groups().clone();
    for child in all_children() {
        if child.ended && child.pid != child.group && known.contains(&child.group) {
            let _ = nix::sys::wait::waitpid(child.pid, Some(nix::sys::wait::WaitPidFlag::WNOHANG));
        }
    }
}

impl Watch {
    /// The runners of `root` as a later command keeps them: as they were before the first of
    /// the commands whose processes went on there, while the watch goes on.
    fn kept_for(&self, root: &Path) -> Option<GitGuard> {
        self.projects
            .iter()
            .find(|p| p.root == root)
            .map(|p| p.kept.clone())
    }

    /// Puts back what changed of every watched project's runners; the watch ends when no
    /// process of lembas's commands is left (after a last look: what they wrote before they
    /// ended).
    fn put_back(&mut self) {
        reap_taken_in();
        let going_on = !children().is_empty();
        let mut said = Vec::new();
        for project in &self.projects {
            said.extend(project.kept.restore(&project.root));
        }
        if !going_on {
            self.projects.clear();
            self.groups.clear();
        }
        for sentence in said {
            if !self.said.contains(&sentence) {
                self.said.push(sentence);
            }
        }
    }
}

impl Survivors {
    /// The guard of a command about to run in `root`: its runners as they are — or, while an
    /// earlier command's processes go on there, as they were before it (so that what those wrote
    /// is never taken for the person's). What those wrote is put back first.
    pub fn guard_before(&self, root: &Path) -> GitGuard {
        let mut watch = self.lock();
        watch.put_back();
        watch
            .kept_for(root)
            .unwrap_or_else(|| GitGuard::before(root))
    }

    /// The command whose group is `group` ended (or was stopped) with processes of it still
    /// running, in its group or out of it: the runners of `root` are kept as `guard` read them
    /// before it while they go on.
    pub fn watch(&self, group: Option<Pid>, root: &Path, guard: GitGuard) {
        let start = {
            let mut watch = self.lock();
            if watch.ended {
                return;
            }
            let first = watch.projects.is_empty();
            watch.groups.extend(group);
            if !watch.projects.iter().any(|p| p.root == root) {
                watch.projects.push(Project {
                    root: root.to_path_buf(),
                    kept: guard,
                });
            }
            // One watcher at a time: started with the first project.
            first
        };
        if !start {
            return;
        }
        let watch = Arc::clone(&self.watch);
        std::thread::spawn(move || loop {
            std::thread::sleep(PERIOD);
            let mut watch = watch.lock().unwrap_or_else(PoisonError::into_inner);
            if watch.ended {
                return;
            }
            watch.put_back();
            if watch.projects.is_empty() {
                return;
            }
        });
    }

    /// What was put back when nobody could be told (a command stopped mid-way), to be said with
    /// the next command's result.
    pub fn tell(&self, said: Vec<String>) {
        let mut watch = self.lock();
        for sentence in said {
            if !watch.said.contains(&sentence) {
                watch.said.push(sentence);
            }
        }
    }

    /// What was put back since it was last said, taken to be said now.
    pub fn take_said(&self) -> Vec<String> {
        std::mem::take(&mut self.lock().said)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Watch> {
        self.watch.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Survivors {
    /// The session ended: every process its commands left running is ended, and the runners put
    /// back a last time once they are gone.
    fn drop(&mut self) {
        let mut watch = self.lock();
        watch.ended = true;
        if watch.projects.is_empty() {
            return;
        }
        for group in &watch.groups {
            let _ = nix::sys::signal::killpg(*group, nix::sys::signal::Signal::SIGKILL);
        }
        // Theirs, and those that left their group (in no command's group: whose they were is
        // not known), and their children as they come to lembas, until none is left
        // ([`KILL_FOR`] at most).
        let known: Vec<Pid> = groups()
            .iter()
            .filter(|g| !watch.groups.contains(g))
            .copied()
            .collect();
        let started = std::time::Instant::now();
        while started.elapsed() < KILL_FOR {
            let left: Vec<Child> = children()
                .into_iter()
                .filter(|child| {
                    watch.groups.contains(&child.group) || !known.contains(&child.group)
                })
                .collect();
            if left.is_empty() {
                break;
            }
            for child in left {
                let _ = nix::sys::signal::kill(child.pid, nix::sys::signal::Signal::SIGKILL);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        reap_taken_in();
        groups().retain(|g| !watch.groups.contains(g));
        for project in &watch.projects {
            let _ = project.kept.restore(&project.root);
        }
        watch.projects.clear();
    }
}
