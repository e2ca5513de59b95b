//! The process runner: a bash command in the project root, its output kept bounded (and sent as
//! it comes), its process group killed at its timeout, confined by the sandbox where the session
//! is.

use super::*;

/// What a command did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    /// Its output (stdout then stderr), bounded.
    pub output: String,
    /// Its exit code; none when it was stopped by a signal or by the timeout.
    pub code: Option<i32>,
    pub timed_out: bool,
    /// Its process group, when the command ended by itself and processes of it go on (`cmd &`).
    pub left_running: Option<nix::unistd::Pid>,
}

/// Output of one stream kept within bounds whatever is printed: its first and last
/// [`OUTPUT_MAX`]/2 bytes, the bytes between counted.
#[derive(Debug, Default)]
struct Kept {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    total: usize,
}

impl Kept {
    const HALF: usize = OUTPUT_MAX / 2;

    fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len();
        let room = Self::HALF.saturating_sub(self.head.len());
        if room > 0 {
            let (first, rest) = bytes.split_at(room.min(bytes.len()));
            self.head.extend_from_slice(first);
            bytes = rest;
        }
        self.tail.extend(bytes);
        while self.tail.len() > Self::HALF {
            self.tail.pop_front();
        }
    }

    fn text(&self) -> String {
        let head = String::from_utf8_lossy(&self.head);
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        let tail = String::from_utf8_lossy(&tail);
        let left_out = self.total - self.head.len() - self.tail.len();
        if left_out == 0 {
            format!("{head}{tail}")
        } else {
            format!("{head}\n… {left_out} more bytes not shown …\n{tail}")
        }
    }
}

/// Reads a stream into shared [`Kept`] output until it ends.
async fn keep<R: tokio::io::AsyncRead + Unpin>(
    mut from: R,
    into: Arc<Mutex<Kept>>,
    live: Option<tokio::sync::mpsc::UnboundedSender<String>>,
) {
    use tokio::io::AsyncReadExt;
    let mut buf = vec![0u8; 8192];
    while let Ok(n) = from.read(&mut buf).await {
        if n == 0 {
            return;
        }
        if let Some(chunk) = buf.get(..n) {
            let total = {
                let mut kept = into.lock().unwrap_or_else(PoisonError::into_inner);
                kept.push(chunk);
                kept.total
            };
            if let Some(live) = live.as_ref().filter(|_| total <= OUTPUT_MAX) {
                let _ = live.send(String::from_utf8_lossy(chunk).into_owned());
            }
        }
    }
}

/// A command's process group, killed whole unless the command ended by itself: on its
/// timeout, and when the call is dropped (the person or the tree stopped it).
struct Group(Option<nix::unistd::Pid>);

impl Group {
    fn kill(&mut self) {
        if let Some(pid) = self.0.take() {
            let _ = nix::sys::signal::killpg(pid, nix::sys::signal::Signal::SIGKILL);
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

/// How long output left in the pipes is read after bash itself ended (a background child may
/// hold them open).
const AFTER_END: Duration = Duration::from_millis(200);

/// `bash`: the line run by bash in the project root, in a process group of its own; after
/// `timeout` the whole group is killed. Its output is kept bounded in memory ([`Kept`]); a
/// background child (`cmd &`) does not hold the call past bash's own end.
pub async fn bash(root: &Path, line: &str, timeout: Duration) -> Result<Ran, ToolError> {
    bash_without(root, line, timeout, &[], &CommandPlace::default()).await
}

/// Where a command runs beyond its folder: its `TMPDIR`, and the sandbox's confinement.
#[derive(Debug, Clone, Default)]
pub struct CommandPlace {
    /// The session's temporary folder, the command's `TMPDIR`.
    pub temp: Option<PathBuf>,
    /// The sandbox's confinement; none runs it under the rules alone.
    pub confinement: Option<Confinement>,
    /// Variables of lembas's environment the command does not get: those naming a daemon's
    /// socket, and those whose names say they hold a secret (permission/sandbox.json).
    pub removed_env: Vec<String>,
    /// Where its output goes as it comes (a client shows it live), the first
    /// [`OUTPUT_MAX`] bytes of it.
    pub live: Option<tokio::sync::mpsc::UnboundedSender<String>>,
    /// The folders git must not look for a repository in, above the project
    /// ([`home_repository_ceiling`]).
    pub git_ceiling: Option<std::ffi::OsString>,
}

/// Where git stops looking for a repository for a command in `root`: every folder above the
/// root, when the repository git would find from there is the home's own or one above the home
/// — a repository of the home's dotfiles, its keys and tokens among them (the hardline's
/// `git-home-repository`), which a plain `git log -p` in a project with no repository of its
/// own would show. None when the root has its own repository, or lies in one below the home (a
/// folder of a larger project), or no home is known.
pub fn home_repository_ceiling(root: &Path, home: Option<&Path>) -> Option<std::ffi::OsString> {
    enclosing_home_repository(root, home)?;
    let above: Vec<&Path> = root.ancestors().skip(1).collect();
    std::env::join_paths(above).ok()
}

/// The `.git` of the repository a project in `root` with none of its own lies in, when that
/// repository is the home's own or one above the home (see [`home_repository_ceiling`]): the
/// sandbox hides it too, so that a link in the project leading up (`cd up && git log -p`, `up`
/// a link to `..`) or a command that drops the ceiling finds nothing to read.
pub fn enclosing_home_repository(root: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let home = home?;
    let top = root
        .ancestors()
        .find(|folder| std::fs::symlink_metadata(folder.join(".git")).is_ok())?;
    (top != root && home.starts_with(top)).then(|| top.join(".git"))
}

/// [`bash`], without the environment variables named in `hidden`, in `place` (confined when it
/// says so; what the sandbox refused said after the output).
pub async fn bash_without(
    root: &Path,
    line: &str,
    timeout: Duration,
    hidden: &[String],
    place: &CommandPlace,
) -> Result<Ran, ToolError> {
    // Started in a PID namespace of its own: every process of the command ends with it or with
    // the session, however it hides ([`crate::pid_namespace`]).
    let mut command = crate::pid_namespace::command("bash");
    // What the rules' read-only grammars assume every command runs with (programs.json).
    for (name, value) in lembas_rules::spec::spec().programs.environment.iter() {
        command.env(name, value.as_ref());
    }
    for name in hidden.iter().chain(&place.removed_env) {
        command.env_remove(name);
    }
    if let Some(ceiling) = &place.git_ceiling {
        command.env("GIT_CEILING_DIRECTORIES", ceiling);
    }
    if let Some(temp) = &place.temp {
        command.env("TMPDIR", temp);
    }
    command
        .arg("-c")
        .arg(line)
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match &place.confinement {
        Some(confinement) => crate::sandbox::spawn(command, confinement.clone())
            .await
            .map_err(|e| ToolError::Spawn(e.to_string()))?,
        None => command
            .spawn()
            .map_err(|e| ToolError::Spawn(e.to_string()))?,
    };
    let mut group = Group(
        child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(nix::unistd::Pid::from_raw),
    );
    let started = group.0;
    if let Some(id) = started {
        crate::survivors::started(id);
    }
    let out = Arc::new(Mutex::new(Kept::default()));
    let err = Arc::new(Mutex::new(Kept::default()));
    let mut readers = tokio::task::JoinSet::new();
    if let Some(s) = child.stdout.take() {
        readers.spawn(keep(s, Arc::clone(&out), place.live.clone()));
    }
    if let Some(s) = child.stderr.take() {
        readers.spawn(keep(s, Arc::clone(&err), place.live.clone()));
    }
    let mut left_running = None;
    let (code, timed_out) = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(Ok(status)) => {
            // Ended by itself: its background children may go on.
            left_running = group
                .0
                .take()
                .filter(|id| nix::sys::signal::killpg(*id, None).is_ok());
            (status.code(), false)
        }
        Ok(Err(e)) => return Err(ToolError::Spawn(e.to_string())),
        Err(_) => {
            group.kill();
            let _ = child.wait().await;
            (None, true)
        }
    };
    if let (Some(id), None) = (started, left_running) {
        crate::survivors::ended(id);
    }
    let _ = tokio::time::timeout(AFTER_END, async {
        while readers.join_next().await.is_some() {}
    })
    .await;
    readers.abort_all();
    let mut text = out.lock().unwrap_or_else(PoisonError::into_inner).text();
    let err = err.lock().unwrap_or_else(PoisonError::into_inner).text();
    if !err.is_empty() {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&err);
    }
    if timed_out {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!("stopped after {}s", timeout.as_secs()));
    }
    // Said whatever the exit code: `awk 'BEGIN{system(…)}'` ends well when its command did not.
    let refused = place.confinement.as_ref().and_then(|c| c.stopped(&text));
    if let Some(refused) = refused {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&refused);
    }
    Ok(Ran {
        output: bounded(&text, OUTPUT_MAX + 100),
        code,
        timed_out,
        left_running,
    })
}

/// Runs `bash` with the call's timeout (seconds, 1 to 600, default 120): its answer, the exit
/// code said when not 0; its output sent to `live` as it comes.
pub async fn run_bash(
    w: &Workspace,
    a: &Args,
    policy: Policy,
    live: Option<tokio::sync::mpsc::UnboundedSender<String>>,
) -> String {
    let call: BashArgs = match a.read_as("bash") {
        Ok(call) => call,
        Err(e) => return e.to_string(),
    };
    let secs = call.timeout.unwrap_or(120).clamp(1, 600);
    let command = call.command.as_str();
    let mut place = w.command_place(policy);
    place.live = live;
    // git's hooks and running settings, put back after the command ([`crate::guard`]) — also
    // when it is stopped mid-way — and for as long as processes it leaves go on
    // ([`crate::survivors`]).
    let mut guarded = Guarded {
        w,
        guard: Some(w.survivors.guard_before(&w.root)),
    };
    let ran = bash_without(
        &w.root,
        command,
        Duration::from_secs(secs),
        &w.hidden_env,
        &place,
    )
    .await;
    let mut left_running = None;
    let mut said = match ran {
        Ok(ran) => {
            left_running = ran.left_running;
            match ran.code {
                Some(0) | None => ran.output,
                Some(c) => format!("{}\n(exit {c})", ran.output),
            }
        }
        Err(e) => e.to_string(),
    };
    let mut restored = guarded.end(left_running);
    for earlier in w.survivors.take_said() {
        if !restored.contains(&earlier) {
            restored.push(earlier);
        }
    }
    for restored in restored {
        if !said.is_empty() && !said.ends_with('\n') {
            said.push('\n');
        }
        said.push_str(&restored);
    }
    said
}

/// A command's git guard, put back when the command ends — by itself, or stopped (the call
/// dropped: the person or the tree stopped it), when [`Drop`] does it and what it put back is
/// said with the next command's result.
struct Guarded<'w> {
    w: &'w Workspace,
    guard: Option<crate::guard::GitGuard>,
}

impl Guarded<'_> {
    /// The runners put back; watched on while processes the command left go on (in its group
    /// `left_running`, or out of it). What was put back.
    fn end(&mut self, left_running: Option<nix::unistd::Pid>) -> Vec<String> {
        let Some(guard) = self.guard.take() else {
            return Vec::new();
        };
        let restored = guard.restore(&self.w.root);
        if left_running.is_some() || crate::survivors::strays() {
            self.w.survivors.watch(left_running, &self.w.root, guard);
        }
        restored
    }
}

impl Drop for Guarded<'_> {
    fn drop(&mut self) {
        let said = self.end(None);
        self.w.survivors.tell(said);
    }
}
