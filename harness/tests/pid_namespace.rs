#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! A command's waiter, run as lembas runs it (`lembas __command-waiter required|optional PROGRAM
//! ARGS…`): the command's end is the waiter's, its processes stay inside a PID namespace of
//! their own, and where the namespace cannot be made though the kernel made one at the start,
//! the command does not run.

use std::process::Command;

fn waiter(required: &str, line: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lembas"))
        .args(["__command-waiter", required, "bash", "-c", line])
        .output()
        .unwrap()
}

/// Whether this kernel makes the namespaces (else the waiter runs the command as it is).
fn namespaces() -> bool {
    Command::new(env!("CARGO_BIN_EXE_lembas"))
        .arg("__namespace-probe")
        .status()
        .unwrap()
        .success()
}

#[test]
fn the_waiter_ends_as_the_command_does_inside_a_namespace_of_its_own() {
    let out = waiter(
        "optional",
        "grep NSpid /proc/self/status; echo said >&2; exit 7",
    );
    assert_eq!(out.status.code(), Some(7));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "said\n");
    // Its pid in each namespace it is in, the outermost first.
    let pids = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .skip(1)
        .count();
    if namespaces() {
        assert_eq!(pids, 2, "{}", String::from_utf8_lossy(&out.stdout));
    } else {
        println!("no user namespaces here: the command ran without one");
    }
    let out = waiter("optional", "kill -TERM $$");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(15), "{:?}", out.status);
    let out = Command::new(env!("CARGO_BIN_EXE_lembas"))
        .args(["__command-waiter", "required", "no-such-program-here"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(127));
    // Told neither `required` nor `optional`: nothing runs.
    let out = Command::new(env!("CARGO_BIN_EXE_lembas"))
        .args(["__command-waiter", "bash", "-c", "echo ran"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn a_command_whose_namespace_can_no_longer_be_made_does_not_run() {
    // Inside a user namespace of util-linux's `unshare` that allows no more of them, as a
    // process that used them all up would leave the kernel.
    let script = format!(
        "echo 0 > /proc/sys/user/max_user_namespaces || exit 99; \
         '{lembas}' __command-waiter required bash -c 'echo ran'; echo \"required $?\"; \
         '{lembas}' __command-waiter optional bash -c 'echo ran'; echo \"optional $?\"",
        lembas = env!("CARGO_BIN_EXE_lembas")
    );
    let out = match Command::new("unshare")
        .args(["--user", "--map-root-user", "sh", "-c", &script])
        .output()
    {
        Ok(out) if out.status.code() != Some(99) && out.status.success() => out,
        other => {
            println!("no util-linux unshare with user namespaces here ({other:?}): not run");
            return;
        }
    };
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(said, "required 126\nran\noptional 0\n", "{said}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("could not be made"), "{err}");
}

#[test]
fn what_a_command_left_running_ends_when_lembas_is_killed() {
    if !namespaces() {
        println!("no user namespaces here: nothing ends them when lembas is killed");
        return;
    }
    let base = std::env::temp_dir().join(format!("lembas-ns-killed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let log = base.join("alive.log");
    // lembas's place: a shell that starts the waiter (whose command leaves a process writing a
    // line every 0.1 s, for 6 s at most), then waits, and is killed by `SIGKILL`.
    let line = format!(
        "for i in $(seq 1 60); do echo x >> '{}'; sleep 0.1; done & exit 0",
        log.display()
    );
    let mut lembas = Command::new("bash")
        .args([
            "-c",
            &format!(
                "'{}' __command-waiter required bash -c \"$0\"; sleep 30",
                env!("CARGO_BIN_EXE_lembas")
            ),
            &line,
        ])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(800));
    lembas.kill().unwrap();
    lembas.wait().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let lines = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .count()
    };
    let at_kill = lines();
    assert!(at_kill > 0, "the command's process never ran");
    std::thread::sleep(std::time::Duration::from_millis(1000));
    assert_eq!(
        lines(),
        at_kill,
        "a process a command left outlived lembas killed"
    );
    let _ = std::fs::remove_dir_all(&base);
}
