//! A command's own PID namespace: the floor under [`crate::survivors`]. A process a command
//! leaves running can keep out of reach of every list lembas reads — forking and letting its
//! parent end, over and over, so that each pid lembas finds has gone by the time it is signalled
//! — and go on after the session, writing a git hook that runs outside any sandbox. So every
//! command starts in a PID namespace of its own (in a user namespace of its own, which lets an
//! unprivileged lembas make one), under a small init of lembas's: when a namespace's init ends,
//! the kernel ends every process in it, whatever it did to hide, and none can leave it.
//!
//! lembas runs as three processes for a command, each started anew from its own program (no
//! `fork` without `exec` in a program with threads):
//! - the **waiter** (`lembas __command-waiter required bash -c LINE`), the process lembas starts, confined
//!   as the command is, leading the command's process group: it makes the namespaces, starts the
//!   init and then `bash`, and ends as `bash` ends — so lembas sees the command end when `bash`
//!   does, with its exit code, as before;
//! - the **init** (`lembas __namespace-init`), the namespace's first process: it reaps every
//!   process of the namespace that `bash` leaves, and ends once the waiter has ended and none is
//!   left — or when lembas ends the command's process group (a stopped command, the session's
//!   end), which ends them all at once, or when it finds lembas gone (killed by `SIGKILL`, which
//!   lets lembas end nothing);
//! - **`bash`**, started in the namespace after its init, which runs the line as before.
//!
//! Where the kernel makes no such namespace (user namespaces turned off: a probe when lembas
//! first starts a command says so), the waiter runs `bash` all the same and
//! [`crate::survivors`] ends what it can find. Where it made one then but cannot now (a process
//! left running has used up the user namespaces a user may have), the command does not run. Inside the namespace the user and
//! group ids are mapped to themselves where the kernel lets the waiter write its own maps (not
//! under the sandbox, whose Landlock refuses those writes: there `id` says the overflow id,
//! 65534, and files are reached as before).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::OnceLock;
use std::time::Duration;

/// The first word of the waiter's command line (after the program).
pub const WAITER: &str = "__command-waiter";

/// The first word of the init's command line.
pub const INIT: &str = "__namespace-init";

/// The first word of the probe's command line: it makes the namespaces and ends, saying
/// whether it could.
pub const PROBE: &str = "__namespace-probe";

/// The waiter's second word: whether the command must not run without its namespace (the
/// kernel made one when lembas first tried: one it cannot make now was made impossible — by a
/// process using up the user namespaces — and a command run without it could outlive the
/// session).
const REQUIRED: &str = "required";
const OPTIONAL: &str = "optional";

/// How often the init looks for processes to reap, and for the waiter's end.
const INIT_PERIOD: Duration = Duration::from_millis(20);

/// How long the waiter waits for an init with nothing left to reap, so that the command's
/// process group holds nothing once `bash` has ended (else it is watched as a command that left
/// processes running, [`crate::survivors`]).
const INIT_GRACE: Duration = Duration::from_millis(200);

static PROGRAM: OnceLock<PathBuf> = OnceLock::new();

/// Says which program is lembas's (the running `lembas`, or a test's built one): commands start
/// in a namespace of their own from then on. Until it is said, they start as `bash` alone.
pub fn use_program(lembas: PathBuf) {
    let _ = PROGRAM.set(lembas);
}

/// The command that runs `program` with its own namespace: the waiter with `program` after it,
/// or `program` alone where no lembas program was given.
pub fn command(program: &str) -> tokio::process::Command {
    match PROGRAM.get() {
        Some(lembas) => {
            let required = if namespaces_made(lembas) {
                REQUIRED
            } else {
                OPTIONAL
            };
            let mut command = tokio::process::Command::new(lembas);
            command.arg(WAITER).arg(required).arg(program);
            command
        }
        None => tokio::process::Command::new(program),
    }
}

/// Whether the kernel made the namespaces when lembas first tried (the probe, once).
fn namespaces_made(lembas: &std::path::Path) -> bool {
    static MADE: OnceLock<bool> = OnceLock::new();
    *MADE.get_or_init(|| {
        std::process::Command::new(lembas)
            .arg(PROBE)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    })
}

/// Makes the namespaces a command starts in.
fn make_namespaces() -> nix::Result<()> {
    use nix::sched::CloneFlags;
    nix::sched::unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWPID)
}

/// The waiter's or the init's work, when lembas was started as one of them (its first word
/// [`WAITER`] or [`INIT`]): how it ends. None for any other start.
pub fn run_as_helper(args: &[OsString]) -> Option<ExitCode> {
    let first = args.get(1)?.to_str()?;
    match first {
        WAITER => Some(waiter(args.get(2..).unwrap_or(&[]))),
        INIT => Some(init(Lembas::from_words(args.get(2..).unwrap_or(&[])))),
        PROBE => Some(match make_namespaces() {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::FAILURE,
        }),
        _ => None,
    }
}

/// The waiter: the namespaces made, the init started, then the command, whose end is its own.
fn waiter(words: &[OsString]) -> ExitCode {
    // Whether the namespace is required is said, never assumed: a waiter told neither runs
    // nothing.
    let (required, command) = match words.split_first() {
        Some((first, rest)) if first == REQUIRED => (true, rest),
        Some((first, rest)) if first == OPTIONAL => (false, rest),
        _ => {
            eprintln!("lembas: {WAITER} needs `{REQUIRED}` or `{OPTIONAL}`, then a program to run");
            return ExitCode::from(2);
        }
    };
    let Some((program, args)) = command.split_first() else {
        eprintln!("lembas: {WAITER} needs a program to run");
        return ExitCode::from(2);
    };
    // The ids, read before the namespace leaves them unmapped.
    let (uid, gid) = (nix::unistd::getuid(), nix::unistd::getgid());
    // lembas itself (the waiter's parent), whose end the init watches for.
    let lembas = Lembas::parent();
    let made = make_namespaces();
    if let (Err(error), true) = (&made, required) {
        eprintln!(
            "lembas: the command's own PID namespace could not be made ({error}), though the \
             kernel made one when lembas started (a process may have used them up): the command \
             did not run, as a process it left could outlive the session"
        );
        return ExitCode::from(126);
    }
    let namespaced = made.is_ok();
    let mut init = None;
    if namespaced {
        // Each may be refused (the sandbox): the ids then read as the overflow id inside.
        let _ = std::fs::write("/proc/self/setgroups", "deny\n");
        let _ = std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1\n"));
        let _ = std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1\n"));
        // The namespace's first process: its init. Its standard input is a pipe the waiter
        // holds, which ends when the waiter does.
        init = std::env::current_exe().ok().and_then(|program| {
            std::process::Command::new(program)
                .arg(INIT)
                .args(lembas.iter().flat_map(Lembas::words))
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .ok()
        });
        // Without it, the command itself is the namespace's first process: every process it
        // leaves ends when it does.
    }
    let status = std::process::Command::new(program).args(args).status();
    if let Some(mut init) = init {
        drop(init.stdin.take());
        let deadline = std::time::Instant::now() + INIT_GRACE;
        while std::time::Instant::now() < deadline {
            match init.try_wait() {
                Ok(None) => std::thread::sleep(Duration::from_millis(2)),
                _ => break,
            }
        }
    }
    match status {
        Ok(status) => ended_as(status),
        Err(error) => {
            eprintln!("lembas: {}: {error}", program.to_string_lossy());
            ExitCode::from(127)
        }
    }
}

/// Ends as `status` says the command ended: by its signal (raised again here), or with its exit
/// code.
fn ended_as(status: std::process::ExitStatus) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    if let Some(number) = status.signal() {
        if let Ok(signal) = nix::sys::signal::Signal::try_from(number) {
            let _ = nix::sys::signal::raise(signal);
        }
        return ExitCode::from(u8::try_from(128 + number).unwrap_or(255));
    }
    ExitCode::from(
        status
            .code()
            .and_then(|c| u8::try_from(c).ok())
            .unwrap_or(1),
    )
}

/// A process known by its pid and its start time (a pid is used again after a process ends).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Lembas {
    pid: u32,
    started: u64,
}

impl Lembas {
    /// The calling process's parent: lembas, for the waiter.
    fn parent() -> Option<Lembas> {
        let pid = u32::try_from(nix::unistd::getppid().as_raw()).ok()?;
        Some(Lembas {
            pid,
            started: start_time(pid)?,
        })
    }

    /// As the waiter gives it to the init: its pid and start time.
    fn words(&self) -> [String; 2] {
        [self.pid.to_string(), self.started.to_string()]
    }

    /// Read back from the init's words.
    fn from_words(words: &[OsString]) -> Option<Lembas> {
        let word = |at: usize| words.get(at)?.to_str();
        Some(Lembas {
            pid: word(0)?.parse().ok()?,
            started: word(1)?.parse().ok()?,
        })
    }

    /// Whether it has not ended: its `/proc` entry there with the same start time (one that
    /// cannot be read for another reason is taken as going on).
    fn goes_on(&self) -> bool {
        match std::fs::read_to_string(format!("/proc/{}/stat", self.pid)) {
            Ok(stat) => stat_start_time(&stat) == Some(self.started),
            Err(error) => error.kind() != std::io::ErrorKind::NotFound,
        }
    }
}

/// The start time of the process `pid` (clock ticks after boot), from `/proc/PID/stat`.
fn start_time(pid: u32) -> Option<u64> {
    stat_start_time(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// The 22nd field of a `/proc/PID/stat` line: after the name, which ends at the last `)`, it is
/// the 20th.
fn stat_start_time(stat: &str) -> Option<u64> {
    let (_, after) = stat.rsplit_once(')')?;
    after.split_whitespace().nth(19)?.parse().ok()
}

/// The init: the namespace's processes reaped until the waiter has ended and none is left, or
/// lembas has ended.
fn init(lembas: Option<Lembas>) -> ExitCode {
    use nix::errno::Errno;
    use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let waiter_ended = Arc::new(AtomicBool::new(false));
    {
        let waiter_ended = Arc::clone(&waiter_ended);
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
            waiter_ended.store(true, Ordering::SeqCst);
        });
    }
    loop {
        // Read first: a process `bash` left is the init's child before the waiter learns that
        // `bash` ended.
        let ended = waiter_ended.load(Ordering::SeqCst);
        // lembas ended without ending the command's process group (killed by `SIGKILL`): the
        // init ends, and every process of the namespace with it.
        if lembas.as_ref().is_some_and(|lembas| !lembas.goes_on()) {
            return ExitCode::FAILURE;
        }
        match waitpid(None, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) => std::thread::sleep(INIT_PERIOD),
            Ok(_) | Err(Errno::EINTR) => {}
            Err(Errno::ECHILD) if ended => return ExitCode::SUCCESS,
            Err(_) => std::thread::sleep(INIT_PERIOD),
        }
    }
}
