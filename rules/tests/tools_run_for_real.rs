#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! What the rules refuse, the tools do: each line below is run for real — make, unzip, cp,
//! rsync, find, diff, jq, uniq, gzip, grep, rg, script, tar and git — in a throwaway project
//! inside a fake home that holds canaries (a key, a token file, lembas's settings), and what it
//! must have done is checked: it wrote into the home, read a key, ran the code a value holds.
//! Then the rules judge
//! the very same line, with that project and that home, in auto mode: it must be refused. A
//! look-alike beside each (the same program on the project's own files) must be allowed, so that
//! the refusal is of what the line does, not of the program.
//!
//! Needs bash and the tools; a form whose tool is missing is skipped, saying so. No root, no
//! network: every path is inside the throwaway folder.

use lembas_rules::permission::{evaluate, Action, Context, Mode, Request};
use std::path::PathBuf;
use std::process::Command;

mod support;

/// One line that does what the hardline refuses.
struct Form {
    /// What it is, for a failure's message.
    about: &'static str,
    /// The programs it needs.
    needs: &'static [&'static str],
    /// A bash line run in the project first (`$HOME` is the fake home).
    setup: &'static str,
    /// The line, run in the project and judged as it is — but `{CMD}`, code it runs: run as a
    /// `touch` of a canary (`~/made`), judged as `rm -rf ~`.
    line: &'static str,
    /// A bash line, run in the project after it, that succeeds only if the line did the harm;
    /// `$OUT` holds what the line printed.
    did_it: &'static str,
    /// The same program doing what it may: judged only, it must be allowed.
    look_alike: &'static str,
}

/// A setup that makes the fake home a repository of its dotfiles, the gh token among them.
const DOTFILES: &str = "(cd ~ && git init -q && git add .config/gh && git -c user.name=t \
    -c user.email=t@t commit -qm dotfiles)";

const FORMS: &[Form] = &[
    Form {
        about: "make puts an operand's value into the lines it runs",
        needs: &["make"],
        setup: "printf 'all:\\n\\t$(CC) --version >/dev/null\\n' > Makefile",
        line: "make CC='{CMD};'",
        did_it: "test -f ~/made",
        look_alike: "make CC=gcc",
    },
    Form {
        about: "make reads a variable of its environment",
        needs: &["make"],
        setup: "printf 'all:\\n\\t$(CC) --version >/dev/null\\n' > Makefile",
        line: "CC='{CMD};' make",
        did_it: "test -f ~/made",
        look_alike: "CFLAGS='-O2 -Wall' make",
    },
    Form {
        about: "make's built-in rule puts CFLAGS after the compiler: a value after a separator",
        needs: &["make", "cc"],
        setup: "echo 'int main(void) { return 0; }' > x.c",
        line: "CFLAGS='; {CMD} #' make x.o",
        did_it: "test -f ~/made",
        look_alike: "CFLAGS='-O2 -Wall' make x.o",
    },
    Form {
        about: "make reads a variable the line exports",
        needs: &["make"],
        setup: "printf 'all:\\n\\t$(CC) --version >/dev/null\\n' > Makefile",
        line: "export CC='{CMD};'; make",
        did_it: "test -f ~/made",
        look_alike: "export CC=gcc; make",
    },
    Form {
        about: "unzip unpacks into the folder it runs in",
        needs: &["zip", "unzip"],
        setup: "mkdir -p pack && echo over > pack/.bashrc && (cd pack && zip -q ../x.zip .bashrc)",
        line: "cd ~ && unzip -o proj/x.zip",
        did_it: "grep -q over ~/.bashrc",
        look_alike: "unzip -o x.zip -d build",
    },
    Form {
        about: "cp --parents keeps the source's path under the destination",
        needs: &["cp"],
        setup: "mkdir -p .config/gh && echo over > .config/gh/hosts.yml",
        line: "cp --parents -r .config/gh ~",
        did_it: "grep -q over ~/.config/gh/hosts.yml",
        look_alike: "cp --parents -r .config/gh build",
    },
    Form {
        about: "rsync -R keeps what follows /./",
        needs: &["rsync"],
        setup: "mkdir -p x/.config/gh && echo over > x/.config/gh/hosts.yml",
        line: "rsync -aR ./x/./.config/gh ~/",
        did_it: "grep -q over ~/.config/gh/hosts.yml",
        look_alike: "rsync -aR ./x/./.config/gh build/",
    },
    Form {
        about: "find -exec gives cat every file under the home, hidden ones too",
        needs: &["find", "cat"],
        setup: "true",
        line: "find ~ -name id_rsa -exec cat {} +",
        did_it: "grep -q KEY-CANARY <<< \"$OUT\"",
        look_alike: "find . -name '*.rs' -exec cat {} +",
    },
    Form {
        about: "find's start points after --",
        needs: &["find", "cat"],
        setup: "true",
        line: "find -- ~ -name id_rsa -exec cat {} +",
        did_it: "grep -q KEY-CANARY <<< \"$OUT\"",
        look_alike: "find -- . -name '*.rs' -exec cat {} +",
    },
    Form {
        about: "gzip -cr writes every file of a folder to its output",
        needs: &["gzip"],
        setup: "true",
        line: "gzip -cr ~ | gunzip",
        did_it: "grep -q KEY-CANARY <<< \"$OUT\"",
        look_alike: "gzip -cr src | gunzip",
    },
    Form {
        about: "diff -rN prints every file of a folder against an empty one",
        needs: &["diff"],
        setup: "mkdir -p empty",
        line: "diff -rN ~ empty",
        did_it: "grep -q KEY-CANARY <<< \"$OUT\"",
        look_alike: "diff -rN src empty",
    },
    Form {
        about: "jq -L imports a JSON file from a folder it is given",
        needs: &["jq"],
        setup: "true",
        line: "jq -n -L ~/.config 'import \"lembas/config\" as $c; $c'",
        did_it: "grep -q SETTINGS-CANARY <<< \"$OUT\"",
        look_alike: "jq -L lib '.a' lib/x.json",
    },
    Form {
        about: "uniq writes its second operand",
        needs: &["git", "uniq"],
        setup: "git init -q && printf '#!/bin/sh\\ntouch ran\\n' > hook.sh",
        line: "uniq hook.sh .git/hooks/pre-commit",
        did_it: "grep -q 'touch ran' .git/hooks/pre-commit",
        look_alike: "uniq hook.sh build/hook.sh",
    },
    Form {
        about: "gzip -r replaces every file of the home",
        needs: &["gzip"],
        setup: "true",
        line: "gzip -r ~",
        did_it: "test -f ~/.ssh/id_rsa.gz",
        look_alike: "gzip -r build",
    },
    Form {
        about: "git cat-file REV:path from the top of a repository of the home's dotfiles",
        needs: &["git"],
        setup: DOTFILES,
        line: "git cat-file -p HEAD:.config/gh/hosts.yml",
        did_it: "grep -q TOKEN-CANARY <<< \"$OUT\"",
        look_alike: "git cat-file -p HEAD:src/a.rs",
    },
    Form {
        about: "git archive of a bare repository of the home's dotfiles, named by --git-dir",
        needs: &["git", "tar"],
        setup: "cd ~ && git init -q --bare .dotfiles && git --git-dir .dotfiles --work-tree . add \
                .config/gh && git --git-dir .dotfiles --work-tree . -c user.name=t \
                -c user.email=t@t commit -qm dotfiles",
        line: "git --git-dir ~/.dotfiles archive HEAD | tar -xO",
        did_it: "grep -q TOKEN-CANARY <<< \"$OUT\"",
        look_alike: "git --git-dir .git log --oneline",
    },
    Form {
        about: "git archive of the home's repository",
        needs: &["git", "tar"],
        setup: DOTFILES,
        line: "git -C ~ archive HEAD | tar -xO",
        did_it: "grep -q TOKEN-CANARY <<< \"$OUT\"",
        look_alike: "git archive HEAD | tar -t",
    },
    Form {
        about: "make -f - runs the makefile its input gives",
        needs: &["make"],
        setup: "true",
        line: "printf 'all:\\n\\t{CMD}\\n' | make -f -",
        did_it: "test -f ~/made",
        look_alike: "make -f build.mk",
    },
    Form {
        about: "make runs the Makefile the line wrote",
        needs: &["make"],
        setup: "true",
        line: "printf 'all:\\n\\t{CMD}\\n' > Makefile && make",
        did_it: "test -f ~/made",
        look_alike: "echo notes > notes.txt && make",
    },
    Form {
        about: "script keeps what its line printed in the file it names: a git hook",
        needs: &["script", "git"],
        setup: "git init -q",
        line: "script -qc 'echo touch ran' .git/hooks/pre-commit",
        did_it: "grep -q 'touch ran' .git/hooks/pre-commit",
        look_alike: "script -qc 'echo ran' build/log.txt",
    },
    Form {
        about:
            "tar's old-style cluster gives -f the word after it: the archive written is a git hook",
        needs: &["tar", "git"],
        setup: "git init -q",
        line: "tar cf .git/hooks/pre-commit src",
        did_it: "test -s .git/hooks/pre-commit",
        look_alike: "tar cf build/out.tar src",
    },
    Form {
        about: "a folder named .git copied whole into the project brings its hooks",
        needs: &["git", "cp"],
        setup: "git init -q && mkdir -p build/s/.git/hooks && printf '#!/bin/sh\\ntouch ran\\n' \
                > build/s/.git/hooks/pre-commit",
        line: "cp -r build/s/.git .",
        did_it: "grep -q 'touch ran' .git/hooks/pre-commit",
        look_alike: "cp -r build/s build/t",
    },
    Form {
        about: "grep -r over the home prints the lines of its token files",
        needs: &["grep"],
        setup: "true",
        line: "grep -r -e CANARY ~",
        did_it: "grep -q TOKEN-CANARY <<< \"$OUT\"",
        look_alike: "grep -r -e main src",
    },
    Form {
        about: "grep -r with no folder reads the one it runs in: the home, after cd",
        needs: &["grep"],
        setup: "true",
        line: "cd ~ && grep -rh KEY",
        did_it: "grep -q KEY-CANARY <<< \"$OUT\"",
        look_alike: "grep -rh main",
    },
    Form {
        about: "rg over a folder of account files prints them",
        needs: &["rg"],
        setup: "true",
        line: "rg --no-filename TOKEN ~/.config",
        did_it: "grep -q TOKEN-CANARY <<< \"$OUT\"",
        look_alike: "rg main src",
    },
];

/// A throwaway folder: a fake home with canaries, and the project inside it.
struct World {
    home: support::Throwaway,
    project: PathBuf,
}

impl World {
    fn new(n: usize) -> World {
        let home = support::Throwaway::new(&format!("lembas-tools-{n}"));
        let project = home.path.join("proj");
        for folder in [
            "proj/src",
            "proj/build",
            "proj/lib",
            ".ssh",
            ".config/gh",
            ".config/lembas",
        ] {
            std::fs::create_dir_all(home.path.join(folder)).unwrap();
        }
        let files = [
            (".ssh/id_rsa", "KEY-CANARY\n"),
            (".config/gh/hosts.yml", "TOKEN-CANARY\n"),
            (
                ".config/lembas/config.json",
                "{\"about\": \"SETTINGS-CANARY\"}\n",
            ),
            (".bashrc", "# the person's\n"),
            ("proj/src/a.rs", "fn main() {}\n"),
            ("proj/lib/x.json", "{}\n"),
        ];
        for (path, text) in files {
            std::fs::write(home.path.join(path), text).unwrap();
        }
        World { home, project }
    }

    /// Runs a bash line in the project with the fake home: its output and whether it ended
    /// well. `$OUT` is set to `out`.
    fn bash(&self, line: &str, out: &str) -> (bool, String) {
        support::bash(line, &self.project, &self.home.path, &[("OUT", out)])
    }

    /// The context the rules judge a line in: this project and this home, auto mode.
    fn context(&self) -> Context {
        let mut ctx = Context::new(Mode::Auto);
        ctx.root = self.project.display().to_string();
        ctx.home = Some(self.home.path.display().to_string());
        ctx
    }
}

fn has(program: &str) -> bool {
    Command::new("bash")
        .arg("-c")
        .arg(format!("command -v {program}"))
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn each_line_does_what_the_rules_refuse_and_is_refused() {
    let mut wrong = Vec::new();
    for (n, form) in FORMS.iter().enumerate() {
        if let Some(missing) = form.needs.iter().find(|p| !has(p)) {
            println!("skipped: {} (no {missing})", form.about);
            continue;
        }
        let world = World::new(n);
        let (ready, said) = world.bash(form.setup, "");
        assert!(ready, "{}: the setup failed: {said}", form.about);
        let run = form.line.replace("{CMD}", "touch ~/made");
        let judged = form.line.replace("{CMD}", "rm -rf ~");
        let (_, printed) = world.bash(&run, "");
        let (did, _) = world.bash(form.did_it, &printed);
        if !did {
            wrong.push(format!("{}: `{run}` did not do it ({printed})", form.about));
        }
        let ctx = world.context();
        let action = evaluate(&Request::bash(&judged), &ctx).action;
        if action != Action::Deny {
            wrong.push(format!("{}: `{judged}` is {action:?}", form.about));
        }
        let action = evaluate(&Request::bash(form.look_alike), &ctx).action;
        if action != Action::Allow {
            wrong.push(format!(
                "{}: the look-alike `{}` is {action:?}",
                form.about, form.look_alike
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
