//! The sandbox's policy (permission/sandbox.json, this project's; spec 3.4.0 has no sandbox):
//! what a command lembas runs may reach in each mode — the trees it may change, whether it has a
//! network, the home's files it may never read — held by the kernel under the rules. The harness
//! applies a [`Policy`] (Landlock and seccomp); this module only says what it is, narrows a
//! subagent's by every agent above it, and reads a failed command's output for what the sandbox
//! refused it, so the model is told.

use super::path::{inside, resolve, Place};
use super::words::Mode;
use crate::spec::sandbox_spec;
use crate::spec::types::{NetworkPolicy, WritableTree};
use crate::text::fill;

/// What one agent's commands may reach: its mode's policy, narrowed by every agent above it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// The mode whose policy this is: the strictest of the agent's and its parents'.
    mode: Mode,
    /// The trees a command may change, sorted, each once.
    writes: Vec<WritableTree>,
    /// Whether a command may open a network connection.
    network: bool,
    /// Whether a command may change files' modes, owners, times and extended attributes.
    metadata: bool,
}

impl Policy {
    /// A mode's policy; `network` is the person's setting (on unless they turned it off).
    pub fn of(mode: Mode, network: bool) -> Policy {
        let entry = sandbox_spec().modes.get(mode.as_str());
        let mut writes: Vec<WritableTree> = entry
            .map(|m| m.writes.iter().copied().collect())
            .unwrap_or_default();
        writes.sort();
        writes.dedup();
        let network = network && entry.is_some_and(|m| m.network == NetworkPolicy::Setting);
        Policy {
            mode,
            writes,
            network,
            metadata: entry.is_some_and(|m| m.metadata),
        }
    }

    /// An agent's policy: its own mode's first, then narrowed by each agent above it (`modes`:
    /// its own mode, then its parent's, up to the main agent's). Never wider than any of them.
    pub fn of_chain(modes: &[Mode], network: bool) -> Policy {
        let mut modes = modes.iter();
        let Some(first) = modes.next() else {
            return Policy::of(Mode::Plan, false);
        };
        modes.fold(Policy::of(*first, network), |policy, parent| {
            policy.within(&Policy::of(*parent, network))
        })
    }

    /// This policy narrowed by a parent's: what both allow.
    pub fn within(self, parent: &Policy) -> Policy {
        Policy {
            mode: self.mode.max(parent.mode),
            writes: self
                .writes
                .into_iter()
                .filter(|w| parent.writes.contains(w))
                .collect(),
            network: self.network && parent.network,
            metadata: self.metadata && parent.metadata,
        }
    }

    /// The mode whose policy this is (the strictest of the chain).
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The trees a command may change.
    pub fn writes(&self) -> &[WritableTree] {
        &self.writes
    }

    /// Whether a command may open a network connection.
    pub fn network(&self) -> bool {
        self.network
    }

    /// Whether a command may change files' modes, owners, times and extended attributes (never a
    /// setuid or setgid bit).
    pub fn metadata(&self) -> bool {
        self.metadata
    }

    /// The policy in words: what is writable, the network, the hidden files.
    pub fn describe(&self) -> String {
        let texts = &sandbox_spec().texts;
        let writes = if self.writes.is_empty() {
            &texts.writes_none
        } else {
            &texts.writes_root
        };
        let network = if self.network {
            &texts.network_on
        } else {
            &texts.network_off
        };
        format!("{writes}; {network}; {}", texts.hidden)
    }

    /// The line said when a session starts with the sandbox (`abi`: Landlock's, as the kernel
    /// has it).
    pub fn start_line(&self, abi: u32) -> String {
        fill(
            &sandbox_spec().texts.start,
            &[
                ("abi", &abi.to_string()),
                ("mode", self.mode.as_str()),
                ("policy", &self.describe()),
            ],
        )
    }
}

/// The folders a policy's trees are, for one session.
#[derive(Debug, Clone, Copy)]
pub struct Places<'a> {
    /// The project root, absolute.
    pub root: &'a str,
    /// The session's own temporary folder, absolute.
    pub session_temp: &'a str,
    /// The person's home, when known.
    pub home: Option<&'a str>,
}

impl Places<'_> {
    /// The folder a writable tree is.
    pub fn tree(&self, tree: WritableTree) -> &str {
        match tree {
            WritableTree::Root => self.root,
            WritableTree::SessionTemp => self.session_temp,
        }
    }
}

/// The files and folders under the home no command reads or writes, relative to the home
/// (`.ssh`, `.aws`, `.config/gh`, …): the home-relative paths of the hardline entries the data
/// names, each cut at its first wildcard, none under another.
pub fn hidden_in_home() -> Vec<String> {
    let hardline = &crate::spec::spec().hardline;
    let mut out: Vec<String> = Vec::new();
    for id in sandbox_spec().hidden.iter() {
        let entries = hardline.paths.iter().filter(|p| p.id == *id);
        for pattern in entries.flat_map(|p| p.patterns.iter()) {
            let Some(relative) = pattern.strip_prefix("~/") else {
                continue;
            };
            let fixed: Vec<&str> = relative
                .split('/')
                .take_while(|segment| !segment.contains(['*', '?', '[']))
                .collect();
            if !fixed.is_empty() {
                out.push(fixed.join("/"));
            }
        }
    }
    out.sort();
    out.dedup();
    let all = out.clone();
    out.retain(|path| {
        !all.iter()
            .any(|other| other != path && path.starts_with(&format!("{other}/")))
    });
    out
}

/// The homes, besides the person's, whose hidden files no command reads: `/root`, and each
/// folder of `/home` (`/home/*`: the harness lists it).
pub fn other_homes() -> impl Iterator<Item = &'static str> {
    sandbox_spec().homes.iter().map(|h| h.as_ref())
}

/// The system's secrets no command reads (`/etc/shadow`, the SSH host keys, …).
pub fn hidden_system() -> impl Iterator<Item = &'static str> {
    sandbox_spec().hidden_system.iter().map(|h| h.as_ref())
}

/// The system calls that change files' modes, owners, times and extended attributes: refused
/// where the policy has no [`Policy::metadata`].
pub fn metadata_syscalls() -> impl Iterator<Item = &'static str> {
    sandbox_spec().metadata_syscalls.iter().map(|s| s.as_ref())
}

/// Whether no command gets the variable `name` of lembas's environment: one naming a daemon's
/// socket (`SSH_AUTH_SOCK`, `TMUX`, …), or one whose name says it holds a secret (`*TOKEN*`,
/// `*KEY*`, …, whatever its letter case).
pub fn removes_variable(name: &str) -> bool {
    let environment = &sandbox_spec().environment;
    let upper = name.to_uppercase();
    environment.removed.iter().any(|n| *n == upper)
        || environment
            .removed_matching
            .iter()
            .any(|p| super::wildcard::matches(p, &upper))
}

/// The devices every command may write (`/dev/null`, the terminal).
pub fn devices() -> impl Iterator<Item = &'static str> {
    sandbox_spec().devices.iter().map(|d| d.as_ref())
}

/// The system calls refused in every mode, by name.
pub fn refused_syscalls() -> impl Iterator<Item = &'static str> {
    sandbox_spec().syscalls.iter().map(|s| s.as_ref())
}

/// An access the sandbox refused a command, read from its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stopped {
    /// A change to a path outside the trees the policy lets it change.
    Write(String),
    /// A read of a hidden file.
    Read(String),
    /// A network connection, where the policy has none.
    Network,
    /// An access the output says was refused without naming a path the policy keeps it from
    /// (`unlink: Permission denied`): it may have been the sandbox.
    Unnamed,
}

/// What the sandbox refused a failed command, as its output says it (`Permission denied`,
/// `Operation not permitted` next to a path the policy keeps it from, or to a socket where it
/// has no network): each once, in the order met. Empty when nothing the output says is the
/// sandbox's doing.
pub fn stopped(output: &str, policy: &Policy, places: Places<'_>) -> Vec<Stopped> {
    let mut hidden: Vec<String> = places
        .home
        .map(|home| {
            hidden_in_home()
                .into_iter()
                .map(|h| format!("{}/{h}", home.trim_end_matches('/')))
                .collect()
        })
        .unwrap_or_default();
    hidden.extend(hidden_system().map(str::to_string));
    let place = Place {
        root: places.root,
        home: places.home,
    };
    let mut out: Vec<Stopped> = Vec::new();
    let mut unnamed = false;
    // A traceback names the socket on a line of its own (`sock = socket(…)`).
    let network_said = output.lines().any(mentions_network);
    let add = |out: &mut Vec<Stopped>, s: Stopped| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    for line in output.lines() {
        let denied = line.contains("Permission denied") || line.contains("Operation not permitted");
        if !denied {
            continue;
        }
        if !policy.network && (mentions_network(line) || (!line.contains('/') && network_said)) {
            add(&mut out, Stopped::Network);
            continue;
        }
        if policy.network && mentions_network(line) {
            // Not the sandbox's: it lets this command connect.
            continue;
        }
        let before = out.len();
        // An absolute path the policy lets it change says the refusal was not the sandbox's; a
        // relative one may be relative to any folder (`rmtree`'s `'a.txt'`).
        let mut explained = false;
        for candidate in paths_in(line) {
            let abs = resolve(place, places.root, &candidate);
            if abs.starts_with("/dev/tcp/") || abs.starts_with("/dev/udp/") {
                continue;
            }
            let under = |tree: &str| inside(tree, &abs).is_some();
            if hidden.iter().any(|h| under(h)) {
                add(&mut out, Stopped::Read(abs));
            } else if !policy.writes.iter().any(|tree| under(places.tree(*tree)))
                && !devices().any(|d| d == abs)
            {
                add(&mut out, Stopped::Write(abs));
            } else if candidate.starts_with('/') {
                explained = true;
            }
        }
        if out.len() == before && !explained {
            unnamed = true;
        }
    }
    if unnamed && out.is_empty() {
        out.push(Stopped::Unnamed);
    }
    out
}

/// Whether a line of output speaks of a network connection.
fn mentions_network(line: &str) -> bool {
    let lower = line.to_lowercase();
    ["socket", "connect", "/dev/tcp", "/dev/udp", "network"]
        .iter()
        .any(|w| lower.contains(w))
}

/// The tool result's sentence for what the sandbox refused (none when it refused nothing).
pub fn stopped_text(stopped: &[Stopped], policy: &Policy) -> Option<String> {
    let texts = &sandbox_spec().texts;
    let what: Vec<String> = stopped
        .iter()
        .filter_map(|s| match s {
            Stopped::Write(path) => Some(fill(&texts.stopped_write, &[("path", path)])),
            Stopped::Read(path) => Some(fill(&texts.stopped_read, &[("path", path)])),
            Stopped::Network => Some(texts.stopped_network.to_string()),
            Stopped::Unnamed => None,
        })
        .collect();
    if what.is_empty() {
        return stopped.contains(&Stopped::Unnamed).then(|| {
            fill(
                &texts.stopped_unnamed,
                &[
                    ("mode", policy.mode.as_str()),
                    ("policy", &policy.describe()),
                ],
            )
        });
    }
    Some(fill(
        &texts.stopped,
        &[
            ("what", &what.join(", ")),
            ("mode", policy.mode.as_str()),
            ("policy", &policy.describe()),
        ],
    ))
}

/// The paths a line of an error names: quoted (`'…'`, `"…"`, `‘…’`, `` `…' ``) or a word that
/// starts with `/`, `./` or `~/`.
fn paths_in(line: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = line;
    while let Some((start, open)) = rest
        .char_indices()
        .find(|(_, c)| matches!(c, '\'' | '"' | '‘' | '`'))
    {
        let close = match open {
            '‘' => '’',
            '`' => '\'',
            c => c,
        };
        let after = rest.get(start + open.len_utf8()..).unwrap_or("");
        let Some((quoted, next)) = after.split_once(close) else {
            break;
        };
        if (!quoted.is_empty() && !quoted.contains(' ')) || quoted.starts_with('/') {
            out.push(quoted.to_string());
        }
        rest = next;
    }
    for word in line.split_whitespace() {
        let word = word.trim_matches(|c: char| matches!(c, ':' | ',' | ';' | '(' | ')'));
        if (word.starts_with('/') || word.starts_with("./") || word.starts_with("~/"))
            && !out.iter().any(|p| p == word)
        {
            out.push(word.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLACES: Places<'static> = Places {
        root: "/work/project",
        session_temp: "/tmp/lembas-1",
        home: Some("/home/me"),
    };

    #[test]
    fn plan_changes_nothing_and_has_no_network() {
        let plan = Policy::of(Mode::Plan, true);
        assert!(plan.writes().is_empty());
        assert!(!plan.network());
        for mode in [Mode::Manual, Mode::Edit, Mode::Auto] {
            let policy = Policy::of(mode, true);
            assert_eq!(
                policy.writes(),
                [WritableTree::Root, WritableTree::SessionTemp]
            );
            assert!(policy.network());
            assert!(
                !Policy::of(mode, false).network(),
                "the setting turns it off"
            );
        }
    }

    #[test]
    fn a_subagent_is_never_wider_than_any_agent_above_it() {
        for own in Mode::ALL {
            for parent in Mode::ALL {
                for network in [true, false] {
                    let policy = Policy::of_chain(&[own, parent, Mode::Auto], network);
                    let parents = Policy::of(parent, network);
                    assert!(policy.writes().iter().all(|w| parents.writes().contains(w)));
                    assert!(!policy.network() || parents.network());
                    assert_eq!(policy.mode(), own.max(parent));
                }
            }
        }
        assert_eq!(
            Policy::of_chain(&[Mode::Auto, Mode::Plan], true),
            Policy::of(Mode::Plan, true)
        );
        assert_eq!(Policy::of_chain(&[], true), Policy::of(Mode::Plan, false));
    }

    #[test]
    fn no_command_gets_a_secret_or_a_daemons_socket_from_the_environment() {
        for name in [
            "SSH_AUTH_SOCK",
            "TMUX",
            "GITHUB_TOKEN",
            "aws_secret_access_key",
            "OPENAI_API_KEY",
            "DB_PASSWORD",
            "DBUS_SESSION_BUS_ADDRESS",
        ] {
            assert!(removes_variable(name), "{name}");
        }
        for name in ["PATH", "HOME", "LANG", "TERM", "CARGO_HOME", "TMPDIR"] {
            assert!(!removes_variable(name), "{name}");
        }
    }

    #[test]
    fn plan_changes_no_metadata_and_the_chain_keeps_it_so() {
        assert!(!Policy::of(Mode::Plan, true).metadata());
        assert!(Policy::of(Mode::Edit, true).metadata());
        assert!(!Policy::of_chain(&[Mode::Auto, Mode::Plan], true).metadata());
    }

    #[test]
    fn the_home_keeps_its_keys_and_credentials() {
        let hidden = hidden_in_home();
        for path in [
            ".ssh",
            ".gnupg",
            ".aws",
            ".config/gh",
            ".netrc",
            ".git-credentials",
            ".config/lembas",
        ] {
            assert!(hidden.iter().any(|h| h == path), "{path}: {hidden:?}");
        }
        assert!(
            hidden.iter().all(|h| !h.contains('*')),
            "no wildcard: {hidden:?}"
        );
        assert!(!hidden.iter().any(|h| h.starts_with(".ssh/")), "{hidden:?}");
    }

    #[test]
    fn what_the_sandbox_refused_is_read_from_the_output() {
        let plan = Policy::of(Mode::Plan, true);
        let edit = Policy::of(Mode::Edit, true);
        let cases: &[(&str, &Policy, &[Stopped])] = &[
            (
                "touch: cannot touch '/srv/canary/a': Permission denied",
                &edit,
                &[Stopped::Write("/srv/canary/a".into())],
            ),
            (
                "touch: cannot touch 'notes.txt': Permission denied",
                &plan,
                &[Stopped::Write("/work/project/notes.txt".into())],
            ),
            (
                "touch: cannot touch 'notes.txt': Permission denied",
                &edit,
                &[Stopped::Unnamed],
            ),
            (
                "  sock = socket(af, socktype, proto)\nPermissionError: [Errno 1] Operation not permitted",
                &plan,
                &[Stopped::Network],
            ),
            (
                "PermissionError: [Errno 13] Permission denied: '/home/me/.ssh/id_ed25519'",
                &edit,
                &[Stopped::Read("/home/me/.ssh/id_ed25519".into())],
            ),
            (
                "bash: line 1: /dev/tcp/127.0.0.1/9: Operation not permitted",
                &plan,
                &[Stopped::Network],
            ),
            (
                "bash: line 1: /dev/tcp/127.0.0.1/9: Operation not permitted",
                &edit,
                &[],
            ),
            (
                "rm: cannot remove ‘/etc/x’: Permission denied",
                &edit,
                &[Stopped::Write("/etc/x".into())],
            ),
            (
                "echo: write error: /dev/null: Permission denied",
                &plan,
                &[],
            ),
            (
                "unlink: Permission denied at -e line 1.",
                &edit,
                &[Stopped::Unnamed],
            ),
            ("all good", &plan, &[]),
        ];
        for (output, policy, expected) in cases {
            assert_eq!(&stopped(output, policy, PLACES), expected, "{output}");
        }
        let maybe = stopped_text(&[Stopped::Unnamed], &edit).unwrap();
        assert!(
            maybe.contains("it may have been lembas's sandbox"),
            "{maybe}"
        );
        let text = stopped_text(&[Stopped::Write("/srv/x".into())], &plan).unwrap();
        assert!(
            text.contains("/srv/x") && text.contains("plan mode"),
            "{text}"
        );
        assert!(stopped_text(&[], &plan).is_none());
    }
}
