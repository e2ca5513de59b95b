#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! What the rules say git runs, git runs: each spelling by which a git command runs code the
//! hardline reads (permission/programs.json git `effects`: `commands_after`, `lines`,
//! `config_unreadable`, `unreadable`) is run for real in a throwaway repository with a fake
//! home, its code a `touch` of a canary file — the canary must appear, or the rules guard a
//! door git does not open. Then the rules judge the same spelling in auto mode:
//! - where the line holds the code (`git bisect run CMD`), with `rm -rf ~` as the code it is
//!   refused, and with `touch done.txt` allowed (the code is read, not the spelling refused);
//! - where it does not (`git -c include.path=FILE x`: the code is in the file), it is refused
//!   whatever it names.
//!
//! Needs git and bash; no root, no network. Without git it says "skipped".

use lembas_rules::permission::{evaluate, Action, Context, Mode, Request};
use std::path::{Path, PathBuf};
use std::process::Command;

mod support;

/// One spelling by which git runs code.
struct Form {
    /// What it is, for a failure's message.
    about: &'static str,
    /// A bash line that readies the repository (run in it), `{CMD}` standing for the code when
    /// the code is kept in a file or a setting.
    setup: &'static str,
    /// The git line, `{CMD}` standing for the code (`{CMD%}`: with `% ` for each space, as an
    /// `ext::` URL spells it).
    line: &'static str,
    /// Whether the line itself holds the code (else the rules cannot read it).
    holds_the_code: bool,
}

/// A setup that gives the repository a submodule.
const WITH_SUBMODULE: &str =
    "git init -q -b main ../sub && git -C ../sub commit -q --allow-empty -m s \
    && git -c protocol.file.allow=always submodule -q add ../sub sub && git commit -qm sub";

const FORMS: &[Form] = &[
    Form {
        about: "bisect run, the command as words",
        setup: "git bisect start HEAD HEAD~2 >/dev/null",
        line: "git bisect run {CMD}",
        holds_the_code: true,
    },
    Form {
        about: "bisect run, a shell's line",
        setup: "git bisect start HEAD HEAD~2 >/dev/null",
        line: "git bisect run sh -c '{CMD}'",
        holds_the_code: true,
    },
    Form {
        about: "submodule foreach, one word",
        setup: WITH_SUBMODULE,
        line: "git submodule foreach --recursive '{CMD}'",
        holds_the_code: true,
    },
    Form {
        about: "filter-branch --tree-filter",
        setup: "true",
        line: "git filter-branch -f --tree-filter '{CMD}' HEAD",
        holds_the_code: true,
    },
    Form {
        about: "difftool -x",
        setup: "echo a > f.txt && git add f.txt && git commit -qm f && echo b > f.txt",
        line: "git difftool -y -x '{CMD}'",
        holds_the_code: true,
    },
    Form {
        about: "grep -O",
        setup: "echo needle > g.txt && git add g.txt && git commit -qm g",
        line: "git grep -O'{CMD}' needle",
        holds_the_code: true,
    },
    Form {
        about: "submodule--helper foreach, the built-in behind submodule foreach",
        setup: WITH_SUBMODULE,
        line: "git submodule--helper foreach '{CMD}'",
        holds_the_code: true,
    },
    Form {
        about: "rebase -x in a cluster",
        setup: "true",
        line: "git rebase -fx '{CMD}' HEAD~1",
        holds_the_code: true,
    },
    Form {
        about: "grep --open=, a prefix of --open-files-in-pager",
        setup: "echo needle > g.txt && git add g.txt && git commit -qm g",
        line: "git grep --open='{CMD}' needle",
        holds_the_code: true,
    },
    Form {
        about: "--config-env: an alias whose text is a variable's",
        setup: "true",
        line: "X='!{CMD}' git --config-env=alias.x=X x",
        holds_the_code: false,
    },
    Form {
        about: "clone -c core.hooksPath: a post-checkout hook as it clones",
        setup: "mkdir -p ../hooks && printf '#!/bin/sh\n{CMD}\n' > ../hooks/post-checkout \
                && chmod +x ../hooks/post-checkout",
        line: "git clone -q -c core.hooksPath=$PWD/../hooks . ../copy",
        holds_the_code: false,
    },
    Form {
        about: "-c include.path: an alias from the file included",
        setup: "printf '[alias]\\n\\tx = !{CMD}\\n' > ../inc.cfg",
        line: "git -c include.path=$PWD/../inc.cfg x",
        holds_the_code: false,
    },
    Form {
        about: "config include.path, then the alias",
        setup: "printf '[alias]\\n\\tx = !{CMD}\\n' > ../inc.cfg",
        line: "git config include.path ../../inc.cfg && git x",
        holds_the_code: false,
    },
    Form {
        about: "-c core.hooksPath: a pre-commit hook from another folder",
        setup: "mkdir -p ../hooks && printf '#!/bin/sh\\n{CMD}\\n' > ../hooks/pre-commit \
                && chmod +x ../hooks/pre-commit",
        line: "git -c core.hooksPath=../hooks commit -q --allow-empty -m x",
        holds_the_code: false,
    },
    Form {
        about: "-c protocol.ext.allow: an ext:: URL's command",
        setup: "true",
        line: "git -c protocol.ext.allow=always ls-remote 'ext::sh -c {CMD%}'",
        holds_the_code: false,
    },
    Form {
        about: "config --rename-section: a harmless section made an alias",
        setup: "git config foo.x '!{CMD}'",
        line: "git config --rename-section foo alias && git x",
        holds_the_code: false,
    },
];

fn has_git() -> bool {
    Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A throwaway folder: a repository of three commits, a fake home, a canary's place.
struct World {
    base: support::Throwaway,
    repo: PathBuf,
    home: PathBuf,
}

impl World {
    fn new(n: usize) -> World {
        let base = support::Throwaway::new(&format!("lembas-git-runs-{n}"));
        let repo = base.path.join("repo");
        let home = base.path.join("home");
        std::fs::create_dir_all(&repo).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let world = World { base, repo, home };
        world.bash(
            "git init -q -b main && for m in one two three; do \
             git commit -q --allow-empty -m $m; done",
        );
        world
    }

    /// Runs a bash line in the repository with the fake home; its output and whether it ended
    /// well.
    fn bash(&self, line: &str) -> (bool, String) {
        support::bash(
            line,
            &self.repo,
            &self.home,
            &[
                ("GIT_AUTHOR_NAME", "t"),
                ("GIT_AUTHOR_EMAIL", "t@t"),
                ("GIT_COMMITTER_NAME", "t"),
                ("GIT_COMMITTER_EMAIL", "t@t"),
                ("FILTER_BRANCH_SQUELCH_WARNING", "1"),
                ("GIT_PAGER", "cat"),
            ],
        )
    }
}

/// The form's text with `code` in it.
fn with_code(text: &str, code: &str) -> String {
    text.replace("{CMD%}", &code.replace(' ', "% "))
        .replace("{CMD}", code)
}

fn canary(base: &Path) -> PathBuf {
    base.join("canary")
}

#[test]
fn every_spelling_the_rules_read_as_code_runs_code_in_real_git() {
    if !has_git() {
        println!("skipped: no git");
        return;
    }
    let mut wrong = Vec::new();
    for (n, form) in FORMS.iter().enumerate() {
        let world = World::new(n);
        let touch = format!("touch {}", canary(&world.base.path).display());
        let (ready, said) = world.bash(&with_code(form.setup, &touch));
        assert!(ready, "{}: the setup failed: {said}", form.about);
        let (_, said) = world.bash(&with_code(form.line, &touch));
        if !canary(&world.base.path).exists() {
            wrong.push(format!("{}: git ran no code ({said})", form.about));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn each_such_spelling_is_judged_by_its_code_in_auto_mode() {
    // Only the paths matter here: nothing is run.
    let mut ctx = Context::new(Mode::Auto);
    ctx.root = "/home/u/proj".into();
    ctx.home = Some("/home/u".into());
    let mut wrong = Vec::new();
    for form in FORMS {
        let destroying = with_code(form.line, "rm -rf ~");
        let action = evaluate(&Request::bash(&destroying), &ctx).action;
        if action != Action::Deny {
            wrong.push(format!("{}: `{destroying}` is {action:?}", form.about));
        }
        let harmless = with_code(form.line, "touch done.txt");
        let action = evaluate(&Request::bash(&harmless), &ctx).action;
        let expected = if form.holds_the_code {
            Action::Allow
        } else {
            Action::Deny
        };
        if action != expected {
            wrong.push(format!(
                "{}: `{harmless}` is {action:?}, not {expected:?}",
                form.about
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
