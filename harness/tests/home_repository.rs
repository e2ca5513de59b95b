#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! A project with no repository of its own inside a home that is one (its dotfiles, keys and
//! tokens among them): git, run by a command in the project, finds no repository above it — a
//! plain `git log -p` would show the home's secrets. A folder of a larger repository below the
//! home still finds its repository. Real git, a throwaway home.

mod common;

use common::bash_in_auto;
use lembas_harness::sandbox::{probe, Sandbox, Support};
use lembas_harness::tools::Workspace;
use std::path::Path;
use std::sync::Arc;

fn git(folder: &Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(folder)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

#[tokio::test]
async fn git_finds_no_repository_of_the_home_above_the_project() {
    let base = std::env::temp_dir().join(format!("lembas-home-repo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let home = base.join("home");
    std::fs::create_dir_all(home.join(".kube")).unwrap();
    let home = std::fs::canonicalize(&home).unwrap();
    std::fs::write(home.join(".kube/config"), "token: KUBESECRET\n").unwrap();
    git(&home, &["init", "-q"]);
    git(&home, &["add", ".kube/config"]);
    git(&home, &["commit", "-q", "-m", "dotfiles"]);
    // A project with no repository of its own, in the home's.
    let project = home.join("work/proj");
    std::fs::create_dir_all(&project).unwrap();
    let w = Workspace::new(&project).with_home(Some(home.to_string_lossy().into_owned()));
    let said = bash_in_auto(&w, "git log -p; git show HEAD:.kube/config").await;
    assert!(!said.contains("KUBESECRET"), "{said}");
    assert!(said.contains("not a git repository"), "{said}");
    // Confined (where the kernel has Landlock): the home's repository is hidden too, so neither
    // a link in the project leading up nor a command that drops the ceiling reaches it.
    if matches!(probe(), Support::Full { .. }) {
        std::os::unix::fs::symlink("..", project.join("up")).unwrap();
        let sandbox = Arc::new(Sandbox::new(false, false, None).unwrap());
        let confined = Workspace::new(&project)
            .with_home(Some(home.to_string_lossy().into_owned()))
            .with_sandbox(sandbox);
        for line in [
            "cd up && git log -p",
            "env -u GIT_CEILING_DIRECTORIES git log -p",
            "git -C up log -p",
        ] {
            let said = bash_in_auto(&confined, line).await;
            assert!(!said.contains("KUBESECRET"), "{line}: {said}");
        }
    } else {
        println!("no Landlock here: the home's repository is not hidden");
    }
    // A folder of a larger repository below the home: found, as the person would expect.
    let mono = home.join("code/mono");
    std::fs::create_dir_all(mono.join("app")).unwrap();
    std::fs::write(mono.join("app/README"), "the app\n").unwrap();
    git(&mono, &["init", "-q"]);
    git(&mono, &["add", "."]);
    git(&mono, &["commit", "-q", "-m", "the monorepo"]);
    let w = Workspace::new(mono.join("app")).with_home(Some(home.to_string_lossy().into_owned()));
    let said = bash_in_auto(&w, "git log --format=%s").await;
    assert!(said.contains("the monorepo"), "{said}");
    let _ = std::fs::remove_dir_all(&base);
}
