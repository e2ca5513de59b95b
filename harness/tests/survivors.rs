#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! A command's background processes, as a hostile model uses them: a process left running
//! (`&`, `setsid -f`) writes a git hook after the command ended and the guard looked. The hook
//! must not stay; a process left running must go on while the session does (a dev server), and
//! end with it. Run confined by the real sandbox (where the kernel has Landlock) in a real
//! repository; its own test binary, because it ends the processes its session's commands left.

mod common;

use common::bash_in_auto;
use lembas_harness::sandbox::{probe, Sandbox, Support};
use lembas_harness::tools::Workspace;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// Whether the process `pid` is there and has not ended.
fn running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(')')
                .map(|(_, after)| after.trim_start().to_string())
        })
        .is_some_and(|after| !after.starts_with('Z') && !after.starts_with('X'))
}

fn plant(hook: &str, root: &Path) -> bool {
    root.join(".git/hooks").join(hook).exists()
}

/// A fresh repository in a folder of its own for one phase of the test, and a session's
/// workspace in it (confined where the kernel can).
fn session(name: &str) -> (std::path::PathBuf, Workspace) {
    // Commands start as `lembas` starts them: in a PID namespace of their own, under its init.
    lembas_harness::pid_namespace::use_program(env!("CARGO_BIN_EXE_lembas").into());
    let root = std::env::temp_dir().join(format!("lembas-survivors-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let root = std::fs::canonicalize(&root).unwrap();
    let ok = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&root)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let confined = matches!(probe(), Support::Full { .. });
    if !confined {
        println!("no Landlock here: the commands run unconfined");
    }
    let sandbox = Arc::new(Sandbox::new(!confined, false, None).unwrap());
    let w = Workspace::new(&root).with_sandbox(sandbox);
    (root, w)
}

/// The start of a line that writes its process's pid as lembas sees it (`$!` is the pid inside
/// the command's namespace) into `file`, then sleeps for the seconds that follow it.
fn sleep_saying_pid(file: &str) -> String {
    format!("sh -c 'read -r pid rest < /proc/self/stat; echo $pid > {file}; exec sleep \"$0\"'")
}

/// A line that writes the hook `hook` after `after` seconds.
fn write_hook(hook: &str, after: &str) -> String {
    format!(
        "sleep {after}; printf '#!/bin/sh\\necho planted\\n' > .git/hooks/{hook}; \
         chmod +x .git/hooks/{hook}"
    )
}

/// One test, its phases in turn: each phase's session ends the processes its commands left,
/// which another test's running alongside would be taken for.
#[tokio::test]
async fn a_hook_a_background_process_writes_later_does_not_stay() {
    // 1. Out of its process group and session from the start (`setsid -f`): nothing of the
    // command's group is left, and the watch starts all the same.
    {
        let (root, w) = session("setsid");
        bash_in_auto(
            &w,
            &format!(
                "setsid -f sh -c \"{}\" >/dev/null 2>&1",
                write_hook("post-checkout", "0.6")
            ),
        )
        .await;
        std::thread::sleep(Duration::from_millis(1500));
        assert!(
            !plant("post-checkout", &root),
            "a setsid process's hook stayed"
        );
        let said = bash_in_auto(&w, "true").await;
        assert!(said.contains("hooks"), "{said}");
        let _ = std::fs::remove_dir_all(&root);
    }

    // 2. A command stopped mid-way (the person stopped it): what it wrote is put back, and said
    // with the next command's result.
    {
        let (root, w) = session("stopped");
        let stopped = tokio::time::timeout(
            Duration::from_millis(1500),
            bash_in_auto(
                &w,
                &format!("{}; sleep 100", write_hook("pre-commit", "0.2")),
            ),
        )
        .await;
        assert!(stopped.is_err(), "the command was not stopped");
        assert!(
            !plant("pre-commit", &root),
            "a stopped command's hook stayed"
        );
        let said = bash_in_auto(&w, "true").await;
        assert!(said.contains("hooks"), "{said}");
        let _ = std::fs::remove_dir_all(&root);
    }

    // 3. In the background of the command (`&`), a dev server, a later command, a process that
    // ends, the session's end.
    let (root, w) = session("background");
    let said = bash_in_auto(
        &w,
        &format!("({}) >/dev/null 2>&1 &", write_hook("pre-commit", "0.6")),
    )
    .await;
    assert!(!plant("pre-commit", &root), "written too soon: {said}");
    // A dev server: it goes on while the session does.
    bash_in_auto(
        &w,
        &format!("{} 300 >/dev/null 2>&1 &", sleep_saying_pid("server.pid")),
    )
    .await;
    let server = std::fs::read_to_string(root.join("server.pid")).unwrap();
    let server = server.trim().to_string();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        !plant("pre-commit", &root),
        "a background process's hook stayed"
    );
    assert!(running(&server), "the dev server was ended mid-session");

    // The next command's result says what was put back.
    let said = bash_in_auto(&w, "true").await;
    assert!(said.contains("hooks"), "{said}");
    assert!(running(&server));

    // A later command's guard keeps the runners as they were before the first: a hook written
    // while the watch goes on is put back by the command's own guard too.
    let said = bash_in_auto(&w, &write_hook("pre-push", "0")).await;
    assert!(!plant("pre-push", &root), "{said}");

    // A process left running that ends is waited for: no zombie is left of it.
    bash_in_auto(
        &w,
        &format!("{} 0.3 >/dev/null 2>&1 &", sleep_saying_pid("short.pid")),
    )
    .await;
    let short = std::fs::read_to_string(root.join("short.pid")).unwrap();
    let short = short.trim().to_string();
    std::thread::sleep(Duration::from_millis(1000));
    assert!(
        !Path::new(&format!("/proc/{short}")).exists(),
        "a process left running was not waited for when it ended"
    );

    // The session ends: the processes its commands left end with it.
    drop(w);
    assert!(!running(&server), "the dev server outlived the session");
    assert!(
        !Path::new(&format!("/proc/{server}")).exists(),
        "the ended dev server was not waited for"
    );
    let _ = std::fs::remove_dir_all(&root);

    // 4. A process that hops from pid to pid — forking and letting its parent end, every
    // millisecond — so that each pid lembas finds has gone by the time it is signalled: it ends
    // with the session all the same (its namespace's init ended). It gives up by itself after
    // 20 s, so that a failing run leaves nothing behind.
    let (root, w) = session("hopping");
    bash_in_auto(
        &w,
        "perl -e 'my $end = time + 20; while (time < $end) { exit 0 if fork; \
         select(undef, undef, undef, 0.001); open my $f, \">>\", \"hops.log\"; print $f \"x\"; \
         close $f }' >/dev/null 2>&1 &",
    )
    .await;
    let hops = |root: &Path| {
        std::fs::metadata(root.join("hops.log"))
            .map(|m| m.len())
            .unwrap_or(0)
    };
    std::thread::sleep(Duration::from_millis(300));
    assert!(hops(&root) > 0, "the hopping process did not start");
    drop(w);
    std::thread::sleep(Duration::from_millis(300));
    let at_end = hops(&root);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        hops(&root),
        at_end,
        "a hopping process outlived the session"
    );
    let _ = std::fs::remove_dir_all(&root);
}
