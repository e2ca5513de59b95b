//! The floor under the rules (permission/sandbox.json; the policy is
//! `lembas_rules::permission::sandbox`): every command lembas runs is confined by the kernel to
//! what its agent's mode may reach, whatever the rules allowed it.
//!
//! How: a fresh thread, made for the one command, confines itself — its capabilities dropped (a
//! root lembas gives its commands none), Landlock (ABI 6: reads of the whole tree but the home's
//! keys and credentials, writes only where the policy says, signals and abstract Unix sockets
//! scoped to the command, no TCP where there is no network) and seccomp (no `ptrace`,
//! `process_vm_*`, `io_uring`, `TIOCSTI`; no socket but a Unix one where there is no network) —
//! and spawns the command, which inherits all of it; the thread then ends, and the rest of lembas
//! keeps its own freedom. Landlock cannot refuse a path inside a tree it allows, so read is
//! granted on every entry of each folder on the way to a hidden file but the hidden one,
//! enumerated when the command starts. lembas itself is made undumpable at start, so no command
//! reads its environment (`/proc/PID/environ`) or memory.

use lembas_rules::permission::sandbox::{self, Places, Policy};
use lembas_rules::spec::sandbox_spec;
use lembas_rules::spec::types::WritableTree;
use lembas_rules::text::fill;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The Landlock ABI the sandbox asks for: 6, the first with scoped signals and sockets.
const ABI: landlock::ABI = landlock::ABI::V6;

/// Why a command could not be confined (it is then not run).
#[derive(Debug, Error)]
pub enum SandboxError {
    #[error("the sandbox could not be set up: Landlock: {0}")]
    Landlock(#[from] landlock::RulesetError),
    #[error("the sandbox could not be set up: seccomp: {0}")]
    Seccomp(String),
    #[error("the sandbox could not be set up: capabilities: {0}")]
    Capabilities(String),
    #[error("the sandbox does not know the system call \"{0}\"")]
    UnknownSyscall(String),
    #[error("the confined command could not start: {0}")]
    Spawn(String),
}

/// What this machine's kernel gives the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    /// Landlock at ABI 6 or later, and seccomp: every command is confined.
    Full {
        /// Landlock's ABI as the kernel has it (or the newest this build knows).
        abi: u32,
    },
    /// Not enough for the sandbox: why.
    Missing(String),
}

/// Whether this kernel can confine a command: a throwaway thread confines itself as a plan-mode
/// command would, and says how far it got.
pub fn probe() -> Support {
    let found = std::thread::spawn(|| {
        let status = landlock_ruleset(&Policy::of(lembas_rules::permission::Mode::Plan, false))
            .and_then(|r| r.create())
            .and_then(|r| r.restrict_self());
        match status {
            Ok(status) => match (status.ruleset, status.landlock) {
                (
                    landlock::RulesetStatus::FullyEnforced,
                    landlock::LandlockStatus::Available {
                        effective_abi,
                        kernel_abi,
                    },
                ) => Support::Full {
                    abi: kernel_abi
                        .and_then(|k| u32::try_from(k).ok())
                        .unwrap_or(effective_abi as u32),
                },
                (_, landlock::LandlockStatus::Available { effective_abi, .. }) => {
                    Support::Missing(format!(
                        "this kernel's Landlock is ABI {}, older than the 6 the sandbox needs",
                        effective_abi as u32
                    ))
                }
                (_, landlock::LandlockStatus::NotEnabled) => {
                    Support::Missing("this kernel has Landlock, but it is not enabled".into())
                }
                (_, landlock::LandlockStatus::NotImplemented) => {
                    Support::Missing("this kernel has no Landlock".into())
                }
            },
            Err(e) => Support::Missing(format!("Landlock failed: {e}")),
        }
    });
    found
        .join()
        .unwrap_or_else(|_| Support::Missing("the probe of Landlock failed".into()))
}

/// Makes lembas undumpable: its `/proc/PID/environ`, `mem` and the rest are then readable by no
/// process without `CAP_SYS_PTRACE` (which its commands never have), so the API key in its
/// environment stays its own.
pub fn undumpable() -> std::io::Result<()> {
    nix::sys::prctl::set_dumpable(false).map_err(std::io::Error::from)
}

/// What `lembas sandbox status` says: what this kernel gives, each mode's policy, what is hidden
/// and refused in every mode.
pub fn status() -> String {
    use lembas_rules::permission::Mode;
    let mut out = String::new();
    match probe() {
        Support::Full { abi } => out.push_str(&format!(
            "enforced: Landlock ABI {abi} (the sandbox asks for {}), seccomp\n",
            ABI as u32
        )),
        Support::Missing(why) => out.push_str(&format!(
            "not enforced: {why}; commands run under the rules alone, and auto mode needs \
             --no-sandbox\n"
        )),
    }
    for mode in Mode::ALL.iter().rev() {
        out.push_str(&format!("{mode}: {}\n", Policy::of(*mode, true).describe()));
    }
    out.push_str(&format!(
        "hidden in the home: {}\n",
        sandbox::hidden_in_home().join(", ")
    ));
    out.push_str(&format!(
        "writable in every mode: {}\n",
        sandbox::devices().collect::<Vec<_>>().join(", ")
    ));
    out.push_str(&format!(
        "hidden on the system: {}\n",
        sandbox::hidden_system().collect::<Vec<_>>().join(", ")
    ));
    out.push_str(&format!(
        "refused in every mode: {}, TIOCSTI, a setuid or setgid bit, every Unix socket; \
         without a network, every socket; in plan mode also {}\n",
        sandbox::refused_syscalls().collect::<Vec<_>>().join(", "),
        sandbox::metadata_syscalls().collect::<Vec<_>>().join(", ")
    ));
    out
}

/// A temporary folder of the session's own, in the system's (`lembas-PID-…`, only its user's).
pub fn make_session_temp() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let folder = std::env::temp_dir().join(format!("lembas-{}-{nanos:08x}", std::process::id()));
    std::fs::DirBuilder::new().mode(0o700).create(&folder)?;
    std::fs::canonicalize(&folder)
}

/// Confines lembas itself — `lembas run` and `lembas chat`, whose session has one root — before
/// any thread starts: it may read the whole tree, and write only the project `root`, the
/// session's temporary folder, its `events` file (made here if missing), the folder of kept
/// `sessions` (made by its caller), `/dev/null` and the terminal; the temporary folder's parent
/// only to remove it. So a file tool writes nowhere
/// else, whatever the rules allowed, and every command's own confinement is inside this one.
pub fn confine_harness(
    root: &Path,
    session_temp: &Path,
    events: Option<&Path>,
    sessions: Option<&Path>,
) -> Result<(), SandboxError> {
    use landlock::{
        path_beneath_rules, Access, AccessFs, CompatLevel, Compatible, RulesetAttr,
        RulesetCreatedAttr,
    };
    if let Some(events) = events {
        std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(events)
            .map_err(|e| SandboxError::Spawn(format!("--events {}: {e}", events.display())))?;
    }
    let file = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate;
    let devices: Vec<&str> = sandbox::devices().collect();
    let parent = session_temp.parent().unwrap_or(session_temp);
    landlock::Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(ABI))?
        .create()?
        .add_rules(path_beneath_rules(["/"], AccessFs::from_read(ABI)))?
        .add_rules(path_beneath_rules(
            [root, session_temp],
            AccessFs::from_all(ABI),
        ))?
        .add_rules(path_beneath_rules([parent], AccessFs::RemoveDir))?
        .add_rules(path_beneath_rules(events, file))?
        .add_rules(path_beneath_rules(sessions, AccessFs::from_all(ABI)))?
        .add_rules(path_beneath_rules(&devices, file | AccessFs::IoctlDev))?
        .restrict_self()?;
    Ok(())
}

/// A session's sandbox: what the kernel gives, the session's own temporary folder, the person's
/// network setting. Its temporary folder is removed when it is dropped.
#[derive(Debug)]
pub struct Sandbox {
    support: Support,
    /// `--no-sandbox`: commands run under the rules alone.
    off: bool,
    network: bool,
    session_temp: PathBuf,
}

impl Sandbox {
    /// The sandbox of a session: the kernel probed, a temporary folder of its own (the commands'
    /// `TMPDIR`; `made`: one made already, by [`confine_harness`]'s caller). `off`: the person
    /// gave `--no-sandbox`.
    pub fn new(off: bool, network: bool, made: Option<PathBuf>) -> std::io::Result<Sandbox> {
        let session_temp = match made {
            Some(folder) => folder,
            None => make_session_temp()?,
        };
        Ok(Sandbox {
            support: if off {
                Support::Missing(sandbox_spec().texts.no_sandbox.to_string())
            } else {
                probe()
            },
            off,
            network,
            session_temp,
        })
    }

    /// Whether commands are confined.
    pub fn enforced(&self) -> bool {
        !self.off && matches!(self.support, Support::Full { .. })
    }

    /// The person's network setting.
    pub fn network(&self) -> bool {
        self.network
    }

    /// The session's own temporary folder.
    pub fn session_temp(&self) -> &Path {
        &self.session_temp
    }

    /// What the kernel gives.
    pub fn support(&self) -> &Support {
        &self.support
    }

    /// The line said when a session starts in `mode`.
    pub fn start_line(&self, mode: lembas_rules::permission::Mode) -> String {
        let texts = &sandbox_spec().texts;
        match (&self.support, self.off) {
            (_, true) => texts.no_sandbox.to_string(),
            (Support::Full { abi }, false) => Policy::of(mode, self.network).start_line(*abi),
            (Support::Missing(why), false) => fill(&texts.missing, &[("why", why)]),
        }
    }

    /// Why `mode` may not run here, when it may not: auto mode needs the sandbox unless the
    /// person said `--no-sandbox`.
    pub fn refuses(&self, mode: lembas_rules::permission::Mode) -> Option<String> {
        match (&self.support, self.off, mode) {
            (Support::Missing(why), false, lembas_rules::permission::Mode::Auto) => {
                Some(fill(&sandbox_spec().texts.auto_refused, &[("why", why)]))
            }
            _ => None,
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.session_temp);
    }
}

/// Where one command runs: the project root and the person's home, both real paths.
#[derive(Debug, Clone)]
pub struct Confinement {
    /// The agent's policy.
    pub policy: Policy,
    /// The project root.
    pub root: PathBuf,
    /// The session's temporary folder.
    pub session_temp: PathBuf,
    /// The person's home.
    pub home: Option<PathBuf>,
    /// Folders no command reads, wherever they are (lembas's kept sessions).
    pub private: Vec<PathBuf>,
}

impl Confinement {
    fn tree(&self, tree: WritableTree) -> &Path {
        match tree {
            WritableTree::Root => &self.root,
            WritableTree::SessionTemp => &self.session_temp,
        }
    }

    /// The hidden files: the person's home's, every other home's (`/root`, `/home/*`), the
    /// system's — each as written, as its link leads, and with every link inside a hidden folder
    /// followed to where it leads (`~/.ssh/id_rsa` → `~/dotfiles/id_rsa`).
    fn hidden(&self) -> Vec<PathBuf> {
        let mut homes: Vec<PathBuf> = self.home.iter().cloned().collect();
        for home in sandbox::other_homes() {
            match home.strip_suffix("/*") {
                Some(folder) => {
                    if let Ok(entries) = std::fs::read_dir(folder) {
                        homes.extend(entries.flatten().map(|e| e.path()));
                    }
                }
                None => homes.push(PathBuf::from(home)),
            }
        }
        let mut out = Vec::new();
        let add = |path: PathBuf, out: &mut Vec<PathBuf>| {
            if let Ok(real) = std::fs::canonicalize(&path) {
                if real != path {
                    links_inside(&real, out);
                    out.push(real);
                }
            }
            links_inside(&path, out);
            out.push(path);
        };
        for home in &homes {
            for relative in sandbox::hidden_in_home() {
                add(home.join(relative), &mut out);
            }
        }
        for path in sandbox::hidden_system() {
            add(PathBuf::from(path), &mut out);
        }
        // lembas's kept sessions, wherever XDG_STATE_HOME puts them.
        for folder in &self.private {
            add(folder.clone(), &mut out);
        }
        // The home's own repository, when the project has none of its own and lies in it: its
        // history holds the dotfiles, keys among them.
        if let Some(repository) =
            crate::tools::enclosing_home_repository(&self.root, self.home.as_deref())
        {
            add(repository, &mut out);
        }
        out.sort();
        out.dedup();
        out
    }

    /// The rules' view of its folders.
    pub fn places<'a>(&self, root: &'a str, temp: &'a str, home: Option<&'a str>) -> Places<'a> {
        Places {
            root,
            session_temp: temp,
            home,
        }
    }

    /// The tool result's sentence for what the sandbox refused a command whose output is this.
    pub fn stopped(&self, output: &str) -> Option<String> {
        let root = self.root.to_string_lossy();
        let temp = self.session_temp.to_string_lossy();
        let home = self.home.as_ref().map(|h| h.to_string_lossy());
        let places = self.places(&root, &temp, home.as_deref());
        sandbox::stopped_text(
            &sandbox::stopped(output, &self.policy, places),
            &self.policy,
        )
    }
}

/// The files no command reads, wherever they are: every home's keys and credentials, the
/// system's secrets, where links inside them lead, and `private` folders (lembas's state).
pub fn hidden_paths(home: Option<&Path>, private: &[PathBuf]) -> Vec<PathBuf> {
    Confinement {
        policy: Policy::of(lembas_rules::permission::Mode::Plan, false),
        root: PathBuf::new(),
        session_temp: PathBuf::new(),
        home: home.map(Path::to_path_buf),
        private: private.to_vec(),
    }
    .hidden()
}

/// The files (device and inode) of `paths` and of the folders among them, two levels down and
/// 4,096 entries at most: what a hard link elsewhere would also reach.
pub fn inodes_of(paths: &[PathBuf]) -> std::collections::HashSet<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let mut out = std::collections::HashSet::new();
    let mut seen = 0usize;
    let mut stack: Vec<(PathBuf, u8)> = paths.iter().map(|p| (p.clone(), 0)).collect();
    while let Some((path, depth)) = stack.pop() {
        seen += 1;
        if seen > 4096 {
            break;
        }
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_file() {
            out.insert((meta.dev(), meta.ino()));
        } else if meta.is_dir() && depth < 2 {
            if let Ok(entries) = std::fs::read_dir(&path) {
                stack.extend(entries.flatten().map(|e| (e.path(), depth + 1)));
            }
        }
    }
    out
}

/// Where the links inside a hidden folder lead (to two levels down, at most 4,096 entries): a
/// file reached through a link is judged where it is, so its real place is hidden too.
fn links_inside(folder: &Path, out: &mut Vec<PathBuf>) {
    let mut pending = vec![(folder.to_path_buf(), 0)];
    let mut seen = 0;
    while let Some((at, depth)) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > 4096 {
                return;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() {
                if let Ok(real) = std::fs::canonicalize(entry.path()) {
                    out.push(real);
                }
            } else if kind.is_dir() && depth < 2 {
                pending.push((entry.path(), depth + 1));
            }
        }
    }
}

/// `tree` minus the hidden paths: `tree` itself when none is inside it, else each of its
/// entries but the hidden, folders on the way to a hidden one opened in turn. A link is granted
/// as the file it leads to, so one that leads to a hidden file, or to a folder holding one, is
/// left out. A folder that cannot be listed is left out (nothing is granted that was not read).
fn cover(tree: &Path, hidden: &[PathBuf], out: &mut Vec<PathBuf>) {
    if hidden.iter().any(|h| tree.starts_with(h)) {
        return;
    }
    if !hidden.iter().any(|h| h.starts_with(tree)) {
        out.push(tree.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(tree) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let is_link = entry.file_type().map(|t| t.is_symlink()).unwrap_or(true);
        if is_link {
            let Ok(target) = std::fs::canonicalize(&path) else {
                continue;
            };
            if hidden
                .iter()
                .any(|h| target.starts_with(h) || h.starts_with(&target))
            {
                continue;
            }
            out.push(path);
        } else {
            cover(&path, hidden, out);
        }
    }
}

fn landlock_ruleset(policy: &Policy) -> Result<landlock::Ruleset, landlock::RulesetError> {
    use landlock::{Access, AccessFs, AccessNet, CompatLevel, Compatible, RulesetAttr, Scope};
    let mut ruleset = landlock::Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(ABI))?
        .scope(Scope::from_all(ABI))?;
    if !policy.network() {
        ruleset = ruleset.handle_access(AccessNet::from_all(ABI))?;
    }
    Ok(ruleset)
}

/// Confines the calling thread (and every process it starts from now on) to `confinement`.
fn confine(confinement: &Confinement) -> Result<(), SandboxError> {
    use landlock::{path_beneath_rules, Access, AccessFs, RulesetCreatedAttr};
    let hidden = confinement.hidden();
    let mut readable = Vec::new();
    cover(Path::new("/"), &hidden, &mut readable);
    let mut writable = Vec::new();
    for tree in confinement.policy.writes() {
        cover(confinement.tree(*tree), &hidden, &mut writable);
    }
    let device = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate;
    let devices: Vec<&str> = sandbox::devices().collect();
    let ruleset = landlock_ruleset(&confinement.policy)?
        .create()?
        .add_rules(path_beneath_rules(&readable, AccessFs::from_read(ABI)))?
        .add_rules(path_beneath_rules(&writable, AccessFs::from_all(ABI)))?
        .add_rules(path_beneath_rules(&devices, device))?;
    let filter = seccomp_filter(&confinement.policy)?;
    drop_capabilities()?;
    ruleset.restrict_self()?;
    seccompiler::apply_filter(&filter).map_err(|e| SandboxError::Seccomp(e.to_string()))?;
    Ok(())
}

/// Every capability of the thread dropped, the bounding set first (so that a root lembas's
/// commands get none back when they start a program).
fn drop_capabilities() -> Result<(), SandboxError> {
    use caps::{CapSet, Capability};
    let fail = |e: caps::errors::CapsError| SandboxError::Capabilities(e.to_string());
    if caps::has_cap(None, CapSet::Effective, Capability::CAP_SETPCAP).map_err(fail)? {
        caps::clear(None, CapSet::Bounding).map_err(fail)?;
    }
    for set in [
        CapSet::Ambient,
        CapSet::Inheritable,
        CapSet::Effective,
        CapSet::Permitted,
    ] {
        caps::clear(None, set).map_err(fail)?;
    }
    Ok(())
}

/// A system call of the data, by name: its number on this machine, or none where it has no
/// such call (aarch64 has only the `*at` forms).
fn syscall(name: &str) -> Result<Option<i64>, SandboxError> {
    let number = match name {
        "ptrace" => libc::SYS_ptrace,
        "process_vm_readv" => libc::SYS_process_vm_readv,
        "process_vm_writev" => libc::SYS_process_vm_writev,
        "io_uring_setup" => libc::SYS_io_uring_setup,
        "io_uring_enter" => libc::SYS_io_uring_enter,
        "io_uring_register" => libc::SYS_io_uring_register,
        "keyctl" => libc::SYS_keyctl,
        "add_key" => libc::SYS_add_key,
        "request_key" => libc::SYS_request_key,
        "shmget" => libc::SYS_shmget,
        "shmat" => libc::SYS_shmat,
        "shmctl" => libc::SYS_shmctl,
        "msgget" => libc::SYS_msgget,
        "msgsnd" => libc::SYS_msgsnd,
        "msgrcv" => libc::SYS_msgrcv,
        "msgctl" => libc::SYS_msgctl,
        "semget" => libc::SYS_semget,
        "semop" => libc::SYS_semop,
        "semctl" => libc::SYS_semctl,
        "semtimedop" => libc::SYS_semtimedop,
        "fchmod" => libc::SYS_fchmod,
        "fchmodat" => libc::SYS_fchmodat,
        "fchown" => libc::SYS_fchown,
        "fchownat" => libc::SYS_fchownat,
        "utimensat" => libc::SYS_utimensat,
        "setxattr" => libc::SYS_setxattr,
        "lsetxattr" => libc::SYS_lsetxattr,
        "fsetxattr" => libc::SYS_fsetxattr,
        "removexattr" => libc::SYS_removexattr,
        "lremovexattr" => libc::SYS_lremovexattr,
        "fremovexattr" => libc::SYS_fremovexattr,
        #[cfg(target_arch = "x86_64")]
        "chmod" => libc::SYS_chmod,
        #[cfg(target_arch = "x86_64")]
        "chown" => libc::SYS_chown,
        #[cfg(target_arch = "x86_64")]
        "lchown" => libc::SYS_lchown,
        #[cfg(target_arch = "x86_64")]
        "utime" => libc::SYS_utime,
        #[cfg(target_arch = "x86_64")]
        "utimes" => libc::SYS_utimes,
        #[cfg(target_arch = "x86_64")]
        "futimesat" => libc::SYS_futimesat,
        #[cfg(not(target_arch = "x86_64"))]
        "chmod" | "chown" | "lchown" | "utime" | "utimes" | "futimesat" => return Ok(None),
        other => return Err(SandboxError::UnknownSyscall(other.to_string())),
    };
    Ok(Some(number))
}

fn seccomp_filter(policy: &Policy) -> Result<seccompiler::BpfProgram, SandboxError> {
    use seccompiler::{
        SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule, TargetArch,
    };
    let fail = |e: seccompiler::Error| SandboxError::Seccomp(e.to_string());
    let condition = |arg: u8, op: SeccompCmpOp, value: u64| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(|e| fail(e.into()))
    };
    let rule = |conditions: Vec<SeccompCondition>| {
        SeccompRule::new(conditions).map_err(|e| fail(e.into()))
    };
    let mut rules: std::collections::BTreeMap<i64, Vec<SeccompRule>> = Default::default();
    let mut refuse = |names: &mut dyn Iterator<Item = &str>| -> Result<(), SandboxError> {
        for name in names {
            if let Some(number) = syscall(name)? {
                rules.insert(number, Vec::new());
            }
        }
        Ok(())
    };
    refuse(&mut sandbox::refused_syscalls())?;
    if !policy.metadata() {
        refuse(&mut sandbox::metadata_syscalls())?;
    }
    // Never a setuid or setgid bit: the mode is the second argument of chmod and fchmod, the
    // third of fchmodat.
    let set_id = [libc::S_ISUID, libc::S_ISGID];
    let mut mode_calls: Vec<(i64, u8)> = vec![(libc::SYS_fchmod, 1), (libc::SYS_fchmodat, 2)];
    #[cfg(target_arch = "x86_64")]
    mode_calls.push((libc::SYS_chmod, 1));
    for (number, arg) in mode_calls {
        if rules.contains_key(&number) {
            continue;
        }
        let mut by_bit = Vec::new();
        for bit in set_id {
            let bit = u64::from(bit);
            by_bit.push(rule(vec![condition(
                arg,
                SeccompCmpOp::MaskedEq(bit),
                bit,
            )?])?);
        }
        rules.insert(number, by_bit);
    }
    // No typing into the person's terminal. (`Ioctl` is `u64` on some targets, `i32` on others.)
    #[allow(clippy::unnecessary_cast)]
    let tiocsti = condition(1, SeccompCmpOp::Eq, libc::TIOCSTI as u64)?;
    rules.insert(libc::SYS_ioctl, vec![rule(vec![tiocsti])?]);
    // No Unix socket (a daemon's — tmux, Docker, D-Bus, an SSH agent — would do for a command
    // what the sandbox refuses it), and without a network, no socket at all. `socketpair` makes
    // only a pair with no name, and stays.
    let sockets = if policy.network() {
        vec![rule(vec![condition(
            0,
            SeccompCmpOp::Eq,
            libc::AF_UNIX as u64,
        )?])?]
    } else {
        Vec::new()
    };
    rules.insert(libc::SYS_socket, sockets);
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| fail(e.into()))?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| fail(e.into()))?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| fail(e.into()))
}

/// Starts `command` confined: a thread of its own confines itself and spawns it (the runtime
/// entered, so the child is tokio's to wait on), then ends.
pub async fn spawn(
    mut command: tokio::process::Command,
    confinement: Confinement,
) -> Result<tokio::process::Child, SandboxError> {
    let runtime = tokio::runtime::Handle::current();
    let (send, receive) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let _entered = runtime.enter();
        let started = confine(&confinement).and_then(|()| {
            command
                .spawn()
                .map_err(|e| SandboxError::Spawn(e.to_string()))
        });
        let _ = send.send(started);
    });
    receive
        .await
        .unwrap_or_else(|_| Err(SandboxError::Spawn("the sandbox's thread ended".into())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_landlock_auto_mode_is_refused_unless_the_person_says_so() {
        use lembas_rules::permission::Mode;
        let missing = |off: bool| Sandbox {
            support: Support::Missing("this kernel has no Landlock".into()),
            off,
            network: true,
            session_temp: std::env::temp_dir().join("lembas-never-made"),
        };
        let sandbox = missing(false);
        assert!(!sandbox.enforced());
        let why = sandbox.refuses(Mode::Auto).unwrap();
        assert!(
            why.contains("--no-sandbox") && why.contains("no Landlock"),
            "{why}"
        );
        for mode in [Mode::Plan, Mode::Manual, Mode::Edit] {
            assert!(sandbox.refuses(mode).is_none(), "{mode}");
        }
        assert!(sandbox
            .start_line(Mode::Edit)
            .contains("commands run without a sandbox"));
        let off = missing(true);
        assert!(off.refuses(Mode::Auto).is_none());
        assert!(off.start_line(Mode::Auto).contains("--no-sandbox"));
    }

    #[test]
    fn every_refused_system_call_is_known() {
        for name in sandbox::refused_syscalls().chain(sandbox::metadata_syscalls()) {
            assert!(syscall(name).is_ok(), "{name}");
        }
        for mode in lembas_rules::permission::Mode::ALL {
            for network in [true, false] {
                assert!(seccomp_filter(&Policy::of(mode, network)).is_ok());
            }
        }
    }

    /// Runs `line` in `root` confined by `policy`: its output.
    async fn confined(root: &Path, policy: Policy, line: &str) -> String {
        confined_with_home(root, None, policy, line).await
    }

    /// Runs `line` in `root` confined by `policy`, `home` the person's: its output.
    async fn confined_with_home(
        root: &Path,
        home: Option<&Path>,
        policy: Policy,
        line: &str,
    ) -> String {
        confined_with_private(root, home, &[], policy, line).await
    }

    /// Runs `line` in `root` confined by `policy`, `home` the person's, `private` folders hidden:
    /// its output.
    async fn confined_with_private(
        root: &Path,
        home: Option<&Path>,
        private: &[PathBuf],
        policy: Policy,
        line: &str,
    ) -> String {
        let temp = std::env::temp_dir().join(format!("lembas-sb-temp-{}", std::process::id()));
        std::fs::create_dir_all(&temp).unwrap();
        let place = crate::tools::CommandPlace {
            temp: Some(temp.clone()),
            confinement: Some(Confinement {
                policy,
                root: root.to_path_buf(),
                session_temp: temp,
                home: home.map(Path::to_path_buf),
                private: private.to_vec(),
            }),
            removed_env: Vec::new(),
            live: None,
            git_ceiling: None,
        };
        crate::tools::bash_without(root, line, std::time::Duration::from_secs(20), &[], &place)
            .await
            .unwrap()
            .output
    }

    #[tokio::test]
    async fn a_subagent_runs_under_its_own_policy_never_its_parents() {
        if no_landlock() {
            return;
        }
        use lembas_rules::permission::Mode;
        let root = std::env::temp_dir().join(format!("lembas-sb-chain-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        let write = "python3 -c \"open('made.txt', 'w').write('x')\" && echo made";
        // A plan subagent of an auto main agent: nothing writable, though its parent may write.
        let out = confined(
            &root,
            Policy::of_chain(&[Mode::Plan, Mode::Auto], true),
            write,
        )
        .await;
        assert!(!root.join("made.txt").exists(), "{out}");
        assert!(out.contains("lembas's sandbox"), "{out}");
        // An auto subagent of a plan main agent: never wider than its parent.
        let out = confined(
            &root,
            Policy::of_chain(&[Mode::Auto, Mode::Plan], true),
            write,
        )
        .await;
        assert!(!root.join("made.txt").exists(), "{out}");
        // The main agent in auto writes in its project.
        let out = confined(&root, Policy::of_chain(&[Mode::Auto], true), write).await;
        assert!(root.join("made.txt").is_file(), "{out}");
        // Signals stay inside the command: lembas (its parent) cannot be signalled.
        let out = confined(
            &root,
            Policy::of(Mode::Auto, true),
            "kill -0 $PPID; echo code=$?",
        )
        .await;
        assert!(out.contains("code=1"), "{out}");
        let _ = std::fs::remove_dir_all(&root);
    }

    fn no_landlock() -> bool {
        match probe() {
            Support::Missing(why) => {
                println!("skipped: no Landlock ({why})");
                true
            }
            Support::Full { .. } => false,
        }
    }

    /// A folder of this test with a project root, a canary file outside it and a fake home.
    fn world(name: &str) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
        let base = std::env::temp_dir().join(format!("lembas-sb-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let (root, home) = (base.join("root"), base.join("home"));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::create_dir_all(home.join("dotfiles")).unwrap();
        let canary = base.join("canary.txt");
        std::fs::write(&canary, "CANARY").unwrap();
        let base = std::fs::canonicalize(base).unwrap();
        (
            base.join("root"),
            base.join("home"),
            base.join("canary.txt"),
            base,
        )
    }

    #[tokio::test]
    async fn no_daemon_is_reached_through_its_unix_socket() {
        if no_landlock() {
            return;
        }
        use lembas_rules::permission::Mode;
        let (root, _, _, base) = world("unix");
        // A daemon outside the sandbox (tmux's, Docker's, an SSH agent's are such sockets).
        let socket = base.join("daemon.sock");
        let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        listener.set_nonblocking(true).unwrap();
        let connect = format!(
            "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{}'); print('connected')\"",
            socket.display()
        );
        for mode in [Mode::Auto, Mode::Plan] {
            let out = confined(&root, Policy::of(mode, true), &connect).await;
            assert!(!out.contains("connected"), "{mode}: {out}");
            assert!(listener.accept().is_err(), "{mode}: the daemon was reached");
        }
        // A pair with no name still works (Python's asyncio, Node's children use them).
        let pair = "python3 -c \"import socket; a, b = socket.socketpair(); a.send(b'x'); print(b.recv(1))\"";
        let out = confined(&root, Policy::of(Mode::Auto, true), pair).await;
        assert!(out.contains("b'x'"), "{out}");
        let _ = std::fs::remove_dir_all(&base);
    }

    #[tokio::test]
    async fn no_setuid_bit_and_in_plan_no_metadata_change() {
        if no_landlock() {
            return;
        }
        use lembas_rules::permission::Mode;
        use std::os::unix::fs::PermissionsExt;
        let (root, _, canary, base) = world("meta");
        std::fs::write(root.join("tool.sh"), "echo hi").unwrap();
        let mode_of = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        let out = confined(
            &root,
            Policy::of(Mode::Auto, true),
            "chmod u+s tool.sh; chmod g+s tool.sh; chmod +x tool.sh && echo made-executable",
        )
        .await;
        assert_eq!(mode_of(&root.join("tool.sh")) & 0o6000, 0, "{out}");
        assert!(out.contains("made-executable"), "{out}");
        let before = (
            mode_of(&canary),
            std::fs::metadata(&canary).unwrap().modified().unwrap(),
        );
        let line = format!(
            "chmod 600 '{0}'; touch -d 2001-01-01 '{0}'; python3 -c \"import os; os.setxattr('{0}', 'user.x', b'1')\"",
            canary.display()
        );
        let out = confined(&root, Policy::of(Mode::Plan, true), &line).await;
        let after = (
            mode_of(&canary),
            std::fs::metadata(&canary).unwrap().modified().unwrap(),
        );
        assert_eq!(before, after, "{out}");
        let _ = std::fs::remove_dir_all(&base);
    }

    #[tokio::test]
    async fn secrets_stay_hidden_through_links_and_system_files() {
        if no_landlock() {
            return;
        }
        use lembas_rules::permission::Mode;
        let (root, home, _, base) = world("links");
        // A dotfile manager's layout: the key lives elsewhere, ~/.ssh holds a link to it.
        std::fs::write(home.join("dotfiles/id_rsa"), "CANARY-KEY").unwrap();
        std::os::unix::fs::symlink(home.join("dotfiles/id_rsa"), home.join(".ssh/id_rsa")).unwrap();
        std::fs::write(home.join("dotfiles/vimrc"), "set nu").unwrap();
        let policy = Policy::of(Mode::Auto, true);
        let out = confined_with_home(
            &root,
            Some(&home),
            policy.clone(),
            &format!("cat '{}'", home.join(".ssh/id_rsa").display()),
        )
        .await;
        assert!(!out.contains("CANARY-KEY"), "{out}");
        let out = confined_with_home(
            &root,
            Some(&home),
            policy.clone(),
            &format!("cat '{}'", home.join("dotfiles/vimrc").display()),
        )
        .await;
        assert!(out.contains("set nu"), "the rest stays readable: {out}");
        if Path::new("/etc/shadow").exists() {
            let out = confined(
                &root,
                policy.clone(),
                "head -c 1 /etc/shadow >/dev/null && echo GOT-IT",
            )
            .await;
            assert!(!out.contains("GOT-IT"), "{out}");
        }
        // lembas's kept sessions: in the home, and wherever XDG_STATE_HOME puts them.
        let kept = home.join(".local/state/lembas/sessions/s1");
        std::fs::create_dir_all(&kept).unwrap();
        std::fs::write(kept.join("conversation.jsonl"), "CANARY-CHAT").unwrap();
        let elsewhere = base.join("xdg-state/lembas");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("approvals"), "CANARY-STATE").unwrap();
        let line = format!(
            "cat '{}' '{}'",
            kept.join("conversation.jsonl").display(),
            elsewhere.join("approvals").display()
        );
        let out = confined_with_private(
            &root,
            Some(&home),
            std::slice::from_ref(&elsewhere),
            policy.clone(),
            &line,
        )
        .await;
        assert!(
            !out.contains("CANARY-CHAT") && !out.contains("CANARY-STATE"),
            "{out}"
        );
        // No key ring, no System V memory shared with processes outside.
        let out = confined(&root, policy, "ipcmk -M 4096 && echo GOT-IT").await;
        assert!(!out.contains("GOT-IT"), "{out}");
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn the_cover_leaves_out_the_hidden_and_links_to_them() {
        let base = std::env::temp_dir().join(format!("lembas-cover-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let home = base.join("home");
        for dir in [".ssh", ".config/gh", ".config/nvim", "src"] {
            std::fs::create_dir_all(home.join(dir)).unwrap();
        }
        std::fs::write(home.join("notes.txt"), "x").unwrap();
        std::os::unix::fs::symlink(home.join(".ssh"), home.join("keys")).unwrap();
        std::os::unix::fs::symlink(&home, home.join("again")).unwrap();
        std::os::unix::fs::symlink(home.join("src"), home.join("code")).unwrap();
        let hidden = vec![home.join(".ssh"), home.join(".config/gh")];
        let mut out = Vec::new();
        cover(&home, &hidden, &mut out);
        out.sort();
        let mut expected = vec![
            home.join(".config/nvim"),
            home.join("code"),
            home.join("notes.txt"),
            home.join("src"),
        ];
        expected.sort();
        assert_eq!(out, expected);
        let mut none = Vec::new();
        cover(&home.join(".ssh"), &hidden, &mut none);
        assert!(none.is_empty());
        let mut whole = Vec::new();
        cover(&home.join("src"), &hidden, &mut whole);
        assert_eq!(whole, vec![home.join("src")]);
        let _ = std::fs::remove_dir_all(&base);
    }
}
