//! The values a word may have when the line runs: the line's own variables, positional
//! parameters, `$HOME` and `$PWD`, `find`'s `{}`, and the paths they name.

use super::super::path::resolve;
use super::super::shell::{self, Piece, PieceView, Pieces, Reading, Word};
use super::addresses::{file_address, pathspec, revision_path, FileAddress, Pathspec};
use super::walk::Walker;
use crate::spec::spec;
use std::borrow::Cow;

/// A line's positional parameters, `$0` first (`None`: one not known); borrowed when they are
/// only a shell's name, so that reading a line copies nothing for them.
pub(super) type Positional = Cow<'static, [Option<Cow<'static, str>>]>;

/// `$0` alone, as bash runs the line.
pub(super) const BASH: &[Option<Cow<'static, str>>] = &[Some(Cow::Borrowed("bash"))];

/// `$0` alone, as a shell inside the line runs its own.
pub(super) const SH: &[Option<Cow<'static, str>>] = &[Some(Cow::Borrowed("sh"))];

/// The values known in one line: its variables, its positional parameters (`None`: unknown).
pub(super) struct Scope<'a> {
    pub(super) reading: &'a Reading,
    pub(super) positional: Option<Positional>,
    /// `{}` of a `find -exec`: the paths it stands for.
    pub(super) find: Vec<String>,
    /// Names some command of the reading names as a word (`read X`, `unset X`, `printf -v X`):
    /// their values are not known. Made when a variable is first looked up.
    pub(super) mentioned: std::cell::OnceCell<std::collections::BTreeSet<String>>,
    /// The line whose shell runs this one (`export F=…; bash -c 'cat $F'`): a variable this line
    /// does not set may have a value it gives. Every variable, exported or not, is taken as
    /// passed down: a value read too many is a refusal too many, one missed a secret read.
    outer: Option<&'a Scope<'a>>,
}

impl<'a> Scope<'a> {
    pub(super) fn new(reading: &'a Reading, positional: Option<Positional>) -> Scope<'a> {
        Scope {
            reading,
            positional,
            find: Vec::new(),
            mentioned: std::cell::OnceCell::new(),
            outer: None,
        }
    }

    /// The scope of a line a shell inside `outer`'s line runs (`bash -c LINE`, `watch LINE`).
    pub(super) fn nested(
        reading: &'a Reading,
        positional: Option<Positional>,
        outer: Option<&'a Scope<'a>>,
    ) -> Scope<'a> {
        Scope {
            outer,
            ..Scope::new(reading, positional)
        }
    }

    /// Whether the line shifts its positional parameters (`shift`, `shift 2`): `$1` may then be
    /// any of them.
    fn shifts(&self) -> bool {
        // `builtin shift`, `command -p shift` too: any of a command's first words; a program
        // known only when it runs may be `shift`.
        self.reading.commands.iter().any(|c| {
            let words = c.argv();
            words.first().is_some_and(Word::dynamic)
                || words.iter().take(3).any(|word| word.text == "shift")
        })
    }

    /// The same scope with `find -exec`'s `{}` standing for `paths`.
    pub(super) fn finding(&self, paths: Vec<String>) -> Scope<'a> {
        Scope {
            reading: self.reading,
            positional: self.positional.clone(),
            find: paths,
            mentioned: self.mentioned.clone(),
            outer: self.outer,
        }
    }

    /// Every value this line sets `name` to: its bindings' and its `export NAME=value` and
    /// `readonly NAME=value` words' (a value `None`: one not read, a command substitution's).
    fn set_values<'s>(
        &'s self,
        name: &'s str,
    ) -> impl Iterator<Item = Given<Option<Cow<'s, Word>>>> {
        let exported = self
            .reading
            .commands
            .iter()
            .filter(|c| sets_plainly(c))
            .flat_map(|c| c.argv().iter().skip(1));
        self.bound(name).chain(assigned_in(exported, name))
    }

    /// Every value this line gives `name` that its text spells: its bindings' values, the
    /// assignments before its commands (`F=v bash -c …`) and the `NAME=value` words of its
    /// commands (`export F=v`, `env F=v`), whichever command reads the variable. Guesses of
    /// what it may hold, not what it holds ([`Walker::parameter`] reads that).
    pub(super) fn given<'s>(&'s self, name: &'s str) -> impl Iterator<Item = Given<Cow<'s, Word>>> {
        let words = self.reading.commands.iter().flat_map(|c| c.words.iter());
        self.bound(name)
            .chain(assigned_in(words, name))
            .filter_map(|given| {
                given.value.map(|value| Given {
                    value,
                    appends: given.appends,
                })
            })
    }

    /// The values the line's bindings of `name` give it (`None`: one not read).
    fn bound<'s>(&'s self, name: &'s str) -> impl Iterator<Item = Given<Option<Cow<'s, Word>>>> {
        self.reading
            .bindings
            .iter()
            .filter(move |b| b.name == name)
            .flat_map(|b| {
                let unread = b.values.is_none().then_some(Given {
                    value: None,
                    appends: b.appends,
                });
                b.values
                    .iter()
                    .flatten()
                    .map(|v| Given {
                        value: Some(Cow::Borrowed(v)),
                        appends: b.appends,
                    })
                    .chain(unread)
            })
    }

    /// This scope and the scopes of the lines that run it, innermost first.
    pub(super) fn levels(&self) -> impl Iterator<Item = &Scope<'a>> {
        std::iter::successors(Some(self), |scope| scope.outer)
    }

    pub(super) fn mentions(&self, name: &str) -> bool {
        self.mentioned
            .get_or_init(|| {
                let mut mentioned = std::collections::BTreeSet::new();
                // `export` and `readonly` change no value but by `NAME=value`, which
                // [`Scope::set_values`] reads.
                for c in self.reading.commands.iter().filter(|c| !sets_plainly(c)) {
                    let program = c.argv().first().map_or("", |w| w.text.as_str());
                    // The option that names the variable set, joined to it (`printf -vF`,
                    // `read -aF`).
                    let naming = spec()
                        .hardline
                        .plain
                        .setting_commands
                        .naming_options
                        .get(program)
                        .map(|o| o.as_ref());
                    for w in c.argv().iter().skip(1) {
                        let t = w.text.as_str();
                        let name = shell::assignment_name(t)
                            .or_else(|| t.split('[').next().filter(|n| shell::is_name(n)));
                        if let Some(n) = name {
                            mentioned.insert(n.to_string());
                        }
                        let joined = naming
                            .and_then(|option| t.strip_prefix(option))
                            .filter(|n| shell::is_name(n));
                        if let Some(n) = joined {
                            mentioned.insert(n.to_string());
                        }
                    }
                }
                mentioned
            })
            .contains(name)
    }
}

/// Whether a command is `export` or `readonly`, named plainly: its `NAME=value` words set the
/// variable as an assignment standing alone does, its other words change no value.
fn sets_plainly(command: &shell::Command) -> bool {
    command.argv().first().is_some_and(|program| {
        !program.dynamic()
            && spec()
                .hardline
                .plain
                .setting_commands
                .plainly
                .iter()
                .any(|p| *p == program.text)
    })
}

/// A value a line gives a variable ([`Scope::given`], [`Scope::set_values`]).
pub(super) struct Given<V> {
    /// The value after the `=`.
    pub(super) value: V,
    /// `NAME+=value`: added to the value before.
    pub(super) appends: bool,
}

/// The values the `NAME=value` and `NAME+=value` words among `words` give `name` (`None`: one
/// with a command substitution).
fn assigned_in<'s>(
    words: impl Iterator<Item = &'s Word> + 's,
    name: &'s str,
) -> impl Iterator<Item = Given<Option<Cow<'s, Word>>>> + 's {
    words
        .filter(move |w| shell::assignment_name(&w.text) == Some(name))
        .map(move |w| Given {
            value: shell::value_of_assignment(w).map(Cow::Owned),
            appends: w
                .text
                .get(name.len()..)
                .is_some_and(|t| t.starts_with("+=")),
        })
}

/// Whether every command substitution a word's text holds is one that makes the folder the
/// command runs in (hardline.json `plain.pwd_substitutions`: `$(pwd)`, `` `pwd -P` ``).
fn only_pwd_substitutions(text: &str) -> bool {
    let mut rest = text.to_string();
    for pwd in spec().hardline.plain.pwd_substitutions.iter() {
        rest = rest.replace(pwd.as_ref(), "");
    }
    rest.len() < text.len() && !rest.contains("$(") && !rest.contains('`')
}

/// A name `find -exec`'s `{}` is read as (no variable has it).
pub(super) const FOUND: &str = "{}";

/// What follows a process's folder in `/proc` (`/proc/self/cwd`, `/proc/thread-self/cwd`,
/// `/proc/PID/cwd`, `/proc/PID/task/TID/cwd`, a PID known only when it runs read as `[0-9]*`), when
/// the path goes through one.
fn proc_cwd_rest(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("/proc/")?;
    let (process, rest) = rest.split_once('/')?;
    let a_process = |name: &str| {
        matches!(name, "self" | "thread-self" | "[0-9]*" | "*")
            || (!name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()))
    };
    if !a_process(process) {
        return None;
    }
    let rest = match rest.strip_prefix("task/") {
        Some(task) => {
            let (thread, after) = task.split_once('/')?;
            if !a_process(thread) {
                return None;
            }
            after
        }
        None => rest,
    };
    rest.strip_prefix("cwd")
}

/// At most this many values of one word, folders the line may be in and links it makes are
/// followed; more is unknown.
pub(super) const MAX_VALUES: usize = 32;

/// A variable whose value names another variable is followed this deep; deeper is unknown.
pub(super) const MAX_INDIRECTION: usize = 8;

impl Walker<'_> {
    /// The values a word may have when it runs (globs kept as globs); `None` when one is unknown.
    pub(super) fn values(&self, w: &Word, scope: &Scope<'_>) -> Option<Vec<String>> {
        self.values_at(w, scope, 0)
    }

    pub(super) fn values_at(
        &self,
        w: &Word,
        scope: &Scope<'_>,
        depth: usize,
    ) -> Option<Vec<String>> {
        // A word of text alone has one value, its pieces' text: made at once (most words are).
        // A piece read otherwise (one out of its word's text) leaves it to the reading below.
        if !w.dynamic() {
            let mut value = String::with_capacity(w.text.len());
            let all_text = w.piece_views().all(|piece| match piece {
                PieceView::Text { text, .. } => {
                    value.push_str(text);
                    true
                }
                _ => false,
            });
            if all_text {
                return Some(vec![value]);
            }
        }
        let mut acc = vec![String::new()];
        for piece in w.piece_views() {
            let options: Vec<String> = match piece {
                PieceView::Text { text, .. } => vec![text.to_string()],
                PieceView::Parameter { name, quoted } => {
                    let vals = self.parameter(name, scope, depth)?;
                    if quoted {
                        vals
                    } else {
                        vals.iter()
                            .flat_map(|v| v.split_whitespace().map(str::to_string))
                            .collect()
                    }
                }
                // `$(pwd)`: the folder the line is in, as `$PWD` (`docker run -v $(pwd):/app`),
                // when every substitution of the word is one; any other is known only when it runs.
                PieceView::Substitution { .. } if only_pwd_substitutions(&w.text) => {
                    self.parameter("PWD", scope, depth)?
                }
                PieceView::Substitution { .. } => return None,
            };
            if options.is_empty() {
                continue;
            }
            let mut next = Vec::new();
            for a in &acc {
                for o in &options {
                    next.push(format!("{a}{o}"));
                }
            }
            if next.len() > MAX_VALUES {
                return None;
            }
            acc = next;
        }
        Some(acc)
    }

    /// A parameter's possible values.
    pub(super) fn parameter(
        &self,
        name: &str,
        scope: &Scope<'_>,
        depth: usize,
    ) -> Option<Vec<String>> {
        if name == FOUND {
            return (!scope.find.is_empty()).then(|| scope.find.clone());
        }
        if let Ok(n) = name.parse::<usize>() {
            let pos = scope.positional.as_ref()?;
            // After a `shift` (`shift; cat "$1"`), any of the parameters from the n-th on.
            if n > 0 && scope.shifts() {
                let mut out = vec![String::new()];
                for v in pos.iter().skip(n) {
                    out.push(v.as_ref()?.to_string());
                }
                return Some(out);
            }
            return match pos.get(n) {
                Some(v) => v.as_ref().map(|v| vec![v.to_string()]),
                None => Some(vec![String::new()]),
            };
        }
        match name {
            "@" | "*" => {
                let pos = scope.positional.as_ref()?;
                let vals: Option<Vec<String>> = pos
                    .iter()
                    .skip(1)
                    .map(|v| v.as_ref().map(|v| v.to_string()))
                    .collect();
                let vals = vals?;
                return Some(if vals.is_empty() {
                    vec![String::new()]
                } else {
                    vals
                });
            }
            // A number known only when it runs (a process id, a count): read as a glob of any
            // number, so `/proc/$PPID/environ` is every process's environment.
            "#" | "?" | "$" | "!" | "PPID" | "BASHPID" | "UID" | "EUID" | "RANDOM" | "SRANDOM"
            | "LINENO" | "SECONDS" => return Some(vec!["[0-9]*".into()]),
            "-" => return Some(vec!["hB".into()]),
            "HOME" => return self.resolve_all("~"),
            "PWD" => {
                return self
                    .cwds
                    .as_ref()
                    .map(|c| c.iter().map(|c| c.to_string()).collect())
            }
            // Empty before any `cd`, then one of the folders the line may be in (see `~-`).
            "OLDPWD" if !self.changed_folder => return Some(vec![String::new()]),
            "OLDPWD" => {
                return self
                    .cwds
                    .as_ref()
                    .map(|c| c.iter().map(|c| c.to_string()).collect())
            }
            _ => {}
        }
        // The line's own variables: every value any binding gives (`export F=v` too), unless
        // some command names the variable (read, printf -v, unset, getopts, …). The lines that
        // run this one give theirs too (`export F=…; bash -c 'cat $F'`), each value read where
        // it was given. A value added (`F+=x`) is added to each value given before it.
        if depth >= MAX_INDIRECTION {
            return None;
        }
        let mut whole: Vec<String> = Vec::new();
        let mut added: Vec<Vec<String>> = Vec::new();
        let mut bound = false;
        for level in scope.levels() {
            if level.mentions(name) {
                return None;
            }
            for given in level.set_values(name) {
                bound = true;
                let appends = given.appends;
                let value = given.value?;
                if value
                    .pieces
                    .iter()
                    .any(|p| matches!(p, Piece::Parameter { name: n, .. } if n == name))
                {
                    return None;
                }
                let values = self.values_at(&value, level, depth + 1)?;
                if appends {
                    added.push(values);
                } else {
                    whole.extend(values);
                }
                if whole.len() > MAX_VALUES {
                    return None;
                }
            }
        }
        if !bound {
            return None;
        }
        // Each value before, then each with the values added after it, in order.
        if !added.is_empty() && whole.is_empty() {
            // Added to a value of the person's environment, which is not known.
            return None;
        }
        let mut current = whole.clone();
        let mut out = whole;
        for values in added {
            let mut next = Vec::with_capacity(current.len() * values.len());
            for before in &current {
                for after in &values {
                    next.push(format!("{before}{after}"));
                }
            }
            out.extend(next.iter().cloned());
            if out.len() > MAX_VALUES {
                return None;
            }
            current = next;
        }
        Some(out)
    }

    /// The absolute paths a word may name (`None`: unknown).
    pub(super) fn targets(&self, w: &Word, scope: &Scope<'_>) -> Option<Vec<String>> {
        let mut out = Vec::new();
        for v in self.values(w, scope)? {
            // git's pathspec magic: `:/x` and `:(top)x` start at the repository's top, which may
            // be any folder above — where they lead is not known; `:(glob)x` is `x`; an exclude
            // (`:!x`, `:^x`, `:(exclude)x`) leaves the folder git runs in.
            let v = match pathspec(&v) {
                Pathspec::Plain => v,
                Pathspec::FromTop => return None,
                Pathspec::Under(path) => path.to_string(),
                Pathspec::Excluding => ".".to_string(),
            };
            let quoted_tilde = matches!(w.first_piece(), Some(PieceView::Text { quoted: true, text }) if text.starts_with('~'));
            let v = if quoted_tilde {
                // A quoted `~` is a file of that name.
                format!("./{v}")
            } else {
                v
            };
            // `.?`, `.*`, `.[.]` match `..` in dash and in bash before 5.2: that too.
            if let Some(parent) = dot_dot_variant(&v) {
                out.extend(self.resolve_all(&parent)?);
            }
            // `file:///home/u/.config` (gio, a browser, curl) is the path it names too.
            match file_address(&v) {
                FileAddress::NotOne => {}
                FileAddress::Path(path) => out.extend(self.resolve_all(&path)?),
                FileAddress::Unreadable => return None,
            }
            out.extend(self.resolve_all(&v)?);
            if out.len() > MAX_VALUES {
                return None;
            }
        }
        Some(out)
    }

    /// `rest` (empty or starting with `/`) after each folder the line may be in; none when the
    /// folder is not known.
    fn in_each_folder(&self, rest: &str) -> Option<Vec<String>> {
        Some(
            self.cwds
                .as_ref()?
                .iter()
                .map(|c| resolve(self.place, "/", &format!("{c}{rest}")))
                .collect(),
        )
    }

    /// A path read against every folder the line may be in, its links followed.
    pub(super) fn resolve_all(&self, p: &str) -> Option<Vec<String>> {
        if self.links_lost {
            return None;
        }
        // A process's `/proc/…/cwd` is the path itself (another process's folder, which the
        // hardline judges) and the folder the line is in (`/proc/self/cwd/../.kube/config`: its
        // own, or a child's that started there).
        if let Some(rest) = proc_cwd_rest(p).filter(|r| r.is_empty() || r.starts_with('/')) {
            let mut out = vec![resolve(self.place, "/", p)];
            for c in self.cwds.iter().flat_map(|cwds| cwds.iter()) {
                out.push(resolve(self.place, "/", &format!("{c}{rest}")));
            }
            return Some(out);
        }
        // `~+` is the folder the line is in.
        if let Some(rest) = p
            .strip_prefix("~+")
            .filter(|r| r.is_empty() || r.starts_with('/'))
        {
            return self.in_each_folder(rest);
        }
        // `~-` is `OLDPWD`: empty before any `cd` (programs.json `environment`), so the rest
        // from the root; after one, one of the folders the line may be in (each `cd` adds its
        // own, and the folder it left is one of them).
        if let Some(rest) = p
            .strip_prefix("~-")
            .filter(|r| r.is_empty() || r.starts_with('/'))
        {
            if !self.changed_folder {
                return Some(if rest.is_empty() {
                    Vec::new()
                } else {
                    vec![resolve(self.place, "/", rest)]
                });
            }
            return self.in_each_folder(rest);
        }
        let mut out = Vec::new();
        if p.starts_with('/') || p.starts_with('~') {
            out.push(resolve(self.place, "/", p));
        } else {
            for cwd in self.cwds.as_ref()?.iter() {
                out.push(resolve(self.place, cwd, p));
            }
        }
        let mut through = Vec::new();
        for path in &out {
            for (link, target) in &self.links {
                if let Some(rest) = path.strip_prefix(link.as_str()) {
                    if rest.is_empty() || rest.starts_with('/') {
                        through.push(resolve(self.place, "/", &format!("{target}/{rest}")));
                    }
                }
            }
        }
        out.extend(through);
        Some(out)
    }
}

/// The values written inside a word, each a suffix of it: after `=` (`--file=PATH`), after `:`
/// (`HEAD:.env`), a short option's (`-fPATH`), and each of these and the word after a leading
/// `@` (curl's `@PATH`).
pub(super) fn values_inside(t: &str) -> ValuesInside<'_> {
    // At most the four values and, after a leading `@`, each of them and the word.
    let mut inside = ValuesInside {
        word: t,
        starts: [0; 9],
        filled: 0,
        next: 0,
    };
    // Most words hold none of the characters a value follows: nothing to split.
    if t.bytes().any(|b| matches!(b, b'=' | b':' | b'-' | b'@')) {
        let short = (t.starts_with('-') && !t.starts_with("--"))
            .then(|| t.get(2..))
            .flatten();
        let colon = t.split_once(':').map(|(_, v)| v);
        let values = [
            t.split_once('=').map(|(_, v)| v),
            colon,
            short,
            revision_path(t).filter(|path| Some(*path) != colon),
        ];
        let at = values
            .into_iter()
            .flatten()
            .chain(std::iter::once(t))
            .filter_map(|v| v.strip_prefix('@'));
        for (slot, value) in inside
            .starts
            .iter_mut()
            .zip(values.into_iter().flatten().chain(at))
        {
            // Each value is a suffix of the word: kept as where it starts.
            *slot = t.len() - value.len();
            inside.filled += 1;
        }
    }
    inside
}

/// The values [`values_inside`] finds in a word, in order: each a suffix of the word, kept as
/// where it starts (a list of nine slices was copied whole each time it moved, for every word).
#[derive(Debug, Clone)]
pub(super) struct ValuesInside<'t> {
    word: &'t str,
    starts: [usize; 9],
    filled: usize,
    next: usize,
}

impl<'t> Iterator for ValuesInside<'t> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        while self.next < self.filled {
            let start = self.starts.get(self.next).copied();
            self.next += 1;
            if let Some(value) = start.and_then(|start| self.word.get(start..)) {
                return Some(value);
            }
        }
        None
    }
}

/// A word with known text and pieces known only when it runs, as a glob: each unknown piece a
/// `*` (within one path segment, as a shell's glob). `None` for a word with no known text.
pub(super) fn shape(w: &Word) -> Option<String> {
    let mut out = String::new();
    let mut known = false;
    for p in w.piece_views() {
        match p {
            PieceView::Text { text, .. } if !text.is_empty() => {
                known = true;
                out.push_str(text);
            }
            PieceView::Text { .. } => {}
            _ => out.push('*'),
        }
    }
    known.then_some(out)
}

/// A word whose value is known only when it runs.
pub(super) fn unknown_word() -> Word {
    Word {
        text: "$(…)".into(),
        pieces: Pieces::One(Piece::Substitution { quoted: true }),
    }
}

pub(super) fn found_word() -> Word {
    Word {
        text: FOUND.into(),
        pieces: Pieces::One(Piece::Parameter {
            name: FOUND.into(),
            quoted: true,
        }),
    }
}

pub(super) fn is_found(w: &Word) -> bool {
    w.text == FOUND
}

/// Whether a word holds find's `{}` (alone or joined to more text: `{}/pre-commit`).
pub(super) fn joins_found(w: &Word) -> bool {
    w.dynamic()
        && w.piece_views()
            .any(|p| matches!(p, PieceView::Parameter { name, .. } if name == FOUND))
}

/// The word after its first `skip` characters (a prefix such as `of=` or `--output=`), its
/// pieces kept when the prefix is plain text.
pub(super) fn strip_word_prefix(w: &Word, skip: usize, rest: &str) -> Word {
    // `rest` is the end of the word's text: a piece kept has its place moved back by the
    // prefix's bytes. A word whose pieces do not fit its text is read as unknown (no place is
    // guessed).
    let Some(cut) = w.text.len().checked_sub(rest.len()) else {
        return unknown_word();
    };
    let mut out = Word {
        text: rest.to_string(),
        pieces: Pieces::default(),
    };
    let mut left = skip;
    for p in &w.pieces {
        match p {
            Piece::Text { span, quoted } if left > 0 => {
                let Some(text) = w.text.get(span.clone()) else {
                    return unknown_word();
                };
                let n = text.chars().count();
                if n <= left {
                    left -= n;
                } else {
                    let skipped: usize = text.chars().take(left).map(char::len_utf8).sum();
                    left = 0;
                    let Some(kept) = moved_back(span.start + skipped..span.end, cut) else {
                        return unknown_word();
                    };
                    out.pieces.push(Piece::Text {
                        span: kept,
                        quoted: *quoted,
                    });
                }
            }
            _ if left > 0 => return unknown_word(),
            Piece::Text { span, quoted } => {
                let Some(kept) = moved_back(span.clone(), cut) else {
                    return unknown_word();
                };
                out.pieces.push(Piece::Text {
                    span: kept,
                    quoted: *quoted,
                });
            }
            other => out.pieces.push(other.clone()),
        }
    }
    if out.pieces.is_empty() {
        out.push_empty_text();
    }
    out
}

/// A piece's place in a word's text, moved back by `cut` bytes (`None`: it began before them).
fn moved_back(span: std::ops::Range<usize>, cut: usize) -> Option<std::ops::Range<usize>> {
    Some(span.start.checked_sub(cut)?..span.end.checked_sub(cut)?)
}

/// The path with each segment that is a glob able to match `..` (`.?`, `.*`, `.[.]`: dash and
/// bash before 5.2 match it) read as `..`; none when it has no such segment.
pub(super) fn dot_dot_variant(path: &str) -> Option<String> {
    if !path.split('/').any(may_be_parent) {
        return None;
    }
    Some(
        path.split('/')
            .map(|segment| {
                if may_be_parent(segment) {
                    ".."
                } else {
                    segment
                }
            })
            .collect::<Vec<_>>()
            .join("/"),
    )
}

/// Whether a glob segment may match `..`: a `.`, then wildcards that together may match one `.`
/// (`*`, `?`, a bracket that takes `.`) — not `.*.orig`, `.[!.]*` or `.??*`.
fn may_be_parent(segment: &str) -> bool {
    let Some(rest) = segment.strip_prefix('.') else {
        return false;
    };
    if !rest.contains(['*', '?', '[']) {
        return false;
    }
    // How many one-letter tokens that take `.` it has (a `*` takes none or any).
    let mut ones = 0;
    let mut star = false;
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '*' => star = true,
            '?' | '.' => ones += 1,
            '[' => match bracket_takes_dot(&mut chars) {
                Some(true) => ones += 1,
                // A bracket that does not take `.`, or no bracket at all (an unclosed `[`).
                _ => return false,
            },
            _ => return false,
        }
    }
    ones == 1 || (ones == 0 && star)
}

/// Whether the bracket expression after a `[` takes `.`; none when it is not closed.
fn bracket_takes_dot(chars: &mut std::str::Chars<'_>) -> Option<bool> {
    let mut set: Vec<char> = Vec::new();
    let mut c = chars.next()?;
    let negated = c == '!' || c == '^';
    if negated {
        c = chars.next()?;
    }
    // A `]` first is one of the set.
    set.push(c);
    loop {
        match chars.next()? {
            ']' => break,
            c => set.push(c),
        }
    }
    let mut takes = false;
    let mut i = 0;
    while let Some(&c) = set.get(i) {
        match (set.get(i + 1), set.get(i + 2)) {
            (Some('-'), Some(&end)) => {
                takes |= (c..=end).contains(&'.');
                i += 3;
            }
            _ => {
                takes |= c == '.';
                i += 1;
            }
        }
    }
    Some(takes != negated)
}
