//! What makes an approval not cover a command (permission/programs.json `effects`): an option
//! that runs code or writes or reads a file the line does not name, an operand that does
//! (`git config core.fsmonitor`, `vim +…`), a `sed` or `awk` program with such a command, or a
//! word that may become one of these only when the line runs.
//!
//! Effects are found generously — a GNU prefix of an option (`--comp` for
//! `--compress-program`), a short option anywhere in a cluster — because finding one only makes
//! the person be asked again.

use super::scripts;
use super::types::Effects;
use super::wildcard;
use crate::permission::hardline::lower;

/// An effect a command's words ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// It runs code the line does not spell as a command: the word that does.
    Runs(String),
    /// It writes or reads a file the line does not name as one: the word that does.
    Writes(String),
    /// A word known only when the line runs may be such an option.
    Unknown(String),
}

/// Code a command's words give a program to run, as the hardline reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Code {
    /// A shell line (`tar --to-command=LINE`, `sed 'e LINE'`, `git -c alias.x='!LINE'`): read
    /// as a line of its own.
    Line(String),
    /// Code whose text the line does not give (`sed e` runs its input, `awk '{system($0)}'`):
    /// the line is opaque.
    Unreadable(String),
    /// Text the program puts into the lines it runs (`make CC=VALUE`): read for what the
    /// hardline refuses in it, as a line.
    Text(String),
    /// The last `count` words are a command run through the shell as
    /// `sh -c 'FIRST "$@"' FIRST REST…` (`git bisect run CMD ARGS`, `git submodule foreach
    /// CMD`).
    Command {
        /// How many of the last words it is.
        count: usize,
    },
}

/// The code a program's arguments give it to run (see [`Code`]): by its entry's `lines`
/// options, its `config_lines` settings (`git -c KEY=VALUE`, and `git config KEY VALUE` for a
/// subcommand whose entry says `settings`), its `unreadable` options and its script; a
/// subcommand's words by the subcommand's entry.
pub fn code_of(entry: &Effects, args: &[EffectWord<'_>]) -> Vec<Code> {
    if entry.subcommands.0.is_empty() {
        return code(entry, args, Some(entry));
    }
    let i = subcommand_at(entry, args);
    let mut out = code(
        entry,
        args.get(..i.min(args.len())).unwrap_or(&[]),
        Some(entry),
    );
    if let Some(sub) = args.get(i).and_then(|w| entry.subcommands.get(w.text)) {
        let settings = (sub.settings || sub.config_options).then_some(entry);
        out.extend(code(sub, args.get(i + 1..).unwrap_or(&[]), settings));
    }
    out
}

/// Where the subcommand is among a program's arguments: after its own options and their values
/// (`git -C x -c k=v push`: 4); past the last argument when there is none.
fn subcommand_at(entry: &Effects, args: &[EffectWord<'_>]) -> usize {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        if !w.dynamic && !w.text.starts_with('-') {
            break;
        }
        i += 1 + usize::from(takes_value(entry, w.text));
    }
    i
}

/// Where a program's first operand names no subcommand of its own (`subcommand_names`) and so
/// may be an alias the person defined (`git b` after `git config alias.b 'submodule foreach'`):
/// its index among `args`.
pub fn alias_at(entry: &Effects, args: &[EffectWord<'_>]) -> Option<usize> {
    if entry.subcommand_names.is_empty() {
        return None;
    }
    let i = subcommand_at(entry, args);
    let word = args.get(i)?;
    // The list is sorted (a test holds it so): searched, not scanned.
    let own = entry.subcommands.get(word.text).is_some()
        || entry
            .subcommand_names
            .binary_search_by(|n| n.as_ref().cmp(word.text))
            .is_ok();
    (!own).then_some(i)
}

/// The code of `args` by `entry`; `settings`: the entry whose `config_lines` and
/// `config_unreadable` its settings are read by.
fn code(entry: &Effects, args: &[EffectWord<'_>], settings: Option<&Effects>) -> Vec<Code> {
    let settings =
        settings.filter(|s| !s.config_lines.is_empty() || !s.config_unreadable.is_empty());
    let mut out = Vec::new();
    let mut script: Vec<&str> = Vec::new();
    // The first operand and the one before the word read (no list of them: one allocation less
    // per command).
    let mut first: Option<&str> = None;
    let mut previous_operand: Option<&str> = None;
    // The values of its line operands, which its rules join into one line (`$(CC) $(CFLAGS)`).
    let mut values: Vec<&str> = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        let t = w.text;
        if entry.unreadable.iter().any(|o| names(o, t)) {
            out.push(Code::Unreadable(t.to_string()));
        }
        for (option, prefix) in entry.lines.iter() {
            let value = match option_value(option, t, args.get(i).map(|n| n.text)) {
                Some((v, next)) => {
                    i += usize::from(next);
                    Some(v)
                }
                None => None,
            };
            // vim's `-c ':!LINE'` is `-c '!LINE'`.
            let value = value.map(|v| {
                if prefix.is_empty() {
                    v
                } else {
                    v.trim_start_matches(':')
                }
            });
            if let Some(line) = value.and_then(|v| v.strip_prefix(prefix.as_ref())) {
                out.push(Code::Line(line.to_string()));
            }
        }
        if let Some(settings) = settings {
            let setting = match t {
                "-c" | "--config" => {
                    let v = args.get(i).map(|n| n.text);
                    i += 1;
                    v
                }
                // `--conf=…`, `--confi …`: git takes a long option by any prefix it has.
                _ if is_config_prefix(t) => match t.split_once('=') {
                    Some((_, v)) => Some(v),
                    None => {
                        let v = args.get(i).map(|n| n.text);
                        i += 1;
                        v
                    }
                },
                _ => t.strip_prefix("--config=").or_else(|| {
                    t.strip_prefix("-c")
                        .filter(|v| !v.is_empty() && !t.starts_with("--"))
                }),
            };
            if let Some((key, value)) = setting.and_then(|s| s.split_once('=')) {
                config_code(settings, key, value, entry.persists, &mut out);
            }
            // `--config-env=KEY=VARIABLE`: the value is the environment's, which the line may not
            // show: a setting that runs code is opaque.
            let from_environment = match t {
                "--config-env" => {
                    let v = args.get(i).map(|n| n.text);
                    i += 1;
                    v
                }
                _ => t.strip_prefix("--config-env="),
            };
            if let Some((key, _)) = from_environment.and_then(|s| s.split_once('=')) {
                let key = lower(key);
                let named = |keys: &[crate::spec::types::Str]| {
                    keys.iter().any(|p| wildcard::matches(&lower(p), &key))
                };
                if named(&settings.config_lines) || named(&settings.config_unreadable) {
                    out.push(Code::Unreadable(key.into_owned()));
                }
            }
        }
        if let Some(kind) = entry.script.as_deref() {
            if let Some(given) = script_option(kind, t, args.get(i).map(|n| n.text)) {
                match given {
                    ScriptGiven::Inline(s) => script.push(s),
                    ScriptGiven::Next => {
                        if let Some(next) = args.get(i) {
                            script.push(next.text);
                        }
                        i += 1;
                    }
                    // A script in a file (`sed -f x.sed`, `-f -` its input) is code the line
                    // does not give.
                    ScriptGiven::File => out.push(Code::Unreadable(t.to_string())),
                }
                continue;
            }
        }
        // `git config alias.x '-c core.fsmonitor=… status'`: after its key, git takes a word
        // that starts with `-` as the value.
        if t.starts_with('-') && entry.settings {
            if let (Some(key), Some(settings)) = (previous_operand, settings) {
                config_code(settings, key, t, entry.persists, &mut out);
            }
        }
        if !t.starts_with('-') {
            if entry.commands_after.iter().any(|c| c.as_ref() == t) {
                // Its own options first (`foreach --recursive CMD`).
                let rest = args.get(i..).unwrap_or(&[]);
                let options = rest
                    .iter()
                    .take_while(|w| !w.dynamic && w.text.starts_with('-'))
                    .count();
                out.push(Code::Command {
                    count: rest.len() - options,
                });
                break;
            }
            if let Some((_, value)) = t.split_once('=').filter(|_| {
                entry
                    .line_operands
                    .iter()
                    .any(|p| wildcard::matches(&lower(p), &lower(t)))
            }) {
                if value.contains('$') && !w.expanded {
                    // make expands it (`$(shell …)`, `$A$B`, `$$`): known only when it runs.
                    out.push(Code::Unreadable(t.to_string()));
                } else {
                    out.push(Code::Text(value.to_string()));
                    values.push(value);
                }
            }
            // `git config KEY VALUE`: the value is run when git next reads the key. Every two
            // operands in a row are read as a key and its value, so no spelling places the key
            // elsewhere unread (`git config set KEY VALUE`, `git config -f FILE KEY VALUE`).
            if let (true, Some(key), Some(settings)) = (entry.settings, previous_operand, settings)
            {
                config_code(settings, key, t, entry.persists, &mut out);
            }
            previous_operand = Some(t);
            first = first.or(Some(t));
        }
    }
    if values.len() > 1 {
        out.push(Code::Text(values.join(" ")));
    }
    if let Some(kind) = entry.script.as_deref() {
        let program = if script.is_empty() {
            first.map(|p| vec![p]).unwrap_or_default()
        } else {
            script
        };
        for text in program {
            let found = match kind {
                "sed" => scripts::sed_code(text),
                _ => scripts::awk_code(text),
            };
            out.extend(found);
        }
    }
    out
}

/// A git setting whose value git runs (`alias.x=!LINE`, `core.pager=LINE`), or with which it
/// runs code the line does not give (`include.path=FILE`); `persists`: kept in a file, so what
/// it runs runs later, outside the sandbox: opaque unless it names no code.
fn config_code(settings: &Effects, key: &str, value: &str, persists: bool, out: &mut Vec<Code>) {
    let key = lower(key);
    let named =
        |keys: &[crate::spec::types::Str]| keys.iter().any(|p| wildcard::matches(&lower(p), &key));
    let trimmed = value.trim();
    // One of the safe programs, alone or with plain flags (`less -FRX`, `code --wait`): no word
    // a flag could take as code (`vim -c CMD`, `--cmd=…` are not plain flags). An editor is
    // given a file after its words, which a short flag could take as a script (`vim -u`): its
    // flags are long ones only.
    let safe_with = |short_flags: bool| {
        let mut words = trimmed.split_whitespace();
        words.next().is_some_and(|program| {
            settings
                .config_safe_values
                .iter()
                .any(|v| v.as_ref() == program)
        }) && words.all(|flag| {
            (short_flags || flag.starts_with("--"))
                && flag.len() > 1
                && flag.starts_with('-')
                && flag
                    .chars()
                    .skip(1)
                    .all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
    };
    let editor = named(&settings.config_editors);
    let safe = safe_with(!editor);
    // `/dev/null`, `:` and `true` name no code: `core.hooksPath=/dev/null` turns the hooks off,
    // `sequence.editor=:` keeps the rebase's list as it is; an editor of the safe ones runs none.
    if named(&settings.config_unreadable)
        && !matches!(trimmed, "/dev/null" | ":" | "true")
        && !(editor && safe)
    {
        out.push(Code::Unreadable(key.into_owned()));
        return;
    }
    if named(&settings.config_lines) {
        // An alias without `!` is a git command, not a line — but one that sets a setting or
        // the folder git's programs come from (`-c core.fsmonitor=…`) runs what it says.
        if key.starts_with("alias.") && !value.starts_with('!') {
            let sets = value.split_whitespace().any(|w| {
                w.starts_with("-c") || w.starts_with("--config-env") || w.starts_with("--exec-path")
            });
            if sets {
                out.push(Code::Unreadable(key.into_owned()));
            }
            return;
        }
        // Kept, it runs later outside the sandbox: only a value that names no code is read as
        // a line (a safe program, a host name, a credential helper's name).
        let plain_word = !trimmed.is_empty()
            && trimmed
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
        let names_no_code = safe
            || matches!(trimmed, "/dev/null" | ":")
            || (named(&settings.config_path_programs) && plain_word)
            || (named(&settings.config_helper_words) && plain_word);
        if persists && !names_no_code {
            out.push(Code::Unreadable(key.into_owned()));
            return;
        }
        out.push(Code::Line(value.trim_start_matches('!').to_string()));
    }
}

/// Whether a word is `--config` shortened (`--co`, `--conf=…`), as git reads a long option by
/// any prefix (`--config-env` spelled whole is its own).
fn is_config_prefix(word: &str) -> bool {
    let name = word.split('=').next().unwrap_or(word);
    name.len() >= 4 && name != "--config" && "--config".starts_with(name)
}

/// A word of a command as effects read it: its text, and whether it may start with `-` or `+`
/// when the line runs although its text does not (an expansion leads it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EffectWord<'a> {
    /// The word, quotes removed.
    pub text: &'a str,
    /// Whether an expansion leads it.
    pub dynamic: bool,
    /// Whether an expansion is anywhere in it (its `$` is the shell's, not the program's).
    pub expanded: bool,
}

/// The effects of a program's arguments (the words after its name) by its `effects` entry.
pub fn effects(entry: &Effects, args: &[EffectWord<'_>]) -> Vec<Effect> {
    let mut out = Vec::new();
    if entry.subcommands.0.is_empty() {
        scan(entry, args, &mut out);
        return out;
    }
    // Options before the subcommand are the program's own; the rest are the subcommand's.
    let i = subcommand_at(entry, args);
    scan(
        entry,
        args.get(..i.min(args.len())).unwrap_or(&[]),
        &mut out,
    );
    if let Some(sub) = args.get(i) {
        if let Some(sub_entry) = entry.subcommands.get(sub.text) {
            scan(sub_entry, args.get(i + 1..).unwrap_or(&[]), &mut out);
        }
    }
    out
}

/// Whether an option (spelled whole, without `=`) takes the next word as its value.
fn takes_value(entry: &Effects, word: &str) -> bool {
    !word.contains('=') && entry.values.iter().any(|v| v == word)
}

fn scan(entry: &Effects, args: &[EffectWord<'_>], out: &mut Vec<Effect>) {
    // Only the first operand is read (no list of them: one allocation less per command).
    let mut first_operand: Option<&str> = None;
    let mut scripts_given: Vec<&str> = Vec::new();
    let mut script_file = false;
    let mut ended = false;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        let text = w.text;
        if w.dynamic && !ended {
            out.push(Effect::Unknown(text.to_string()));
            continue;
        }
        if !ended && text == "--" {
            ended = true;
            continue;
        }
        let option = !ended && text.len() > 1 && (text.starts_with('-') || text.starts_with('+'));
        if !option {
            if entry.first_operand_options && first_operand.is_none() && !text.starts_with('-') {
                // Old tar: `tar xIf zstd a.tar` — the first word is a cluster of options.
                for letter in text.chars() {
                    let short = super::short_option(letter);
                    found(entry, &short, text, out);
                }
            }
            first_operand = first_operand.or(Some(text));
            if entry
                .runs_operands
                .iter()
                .any(|p| wildcard::matches(&lower(p), &lower(text)))
            {
                out.push(Effect::Runs(text.to_string()));
            }
            continue;
        }
        found(entry, text, text, out);
        if let Some(script) = entry.script.as_deref() {
            if let Some(given) = script_option(script, text, args.get(i).map(|w| w.text)) {
                match given {
                    ScriptGiven::Inline(s) => scripts_given.push(s),
                    ScriptGiven::Next => {
                        if let Some(next) = args.get(i) {
                            scripts_given.push(next.text);
                        }
                        i += 1;
                        continue;
                    }
                    ScriptGiven::File => script_file = true,
                }
            }
        }
        if takes_value(entry, text) {
            i += 1;
        }
    }
    let Some(script) = entry.script.as_deref() else {
        return;
    };
    if script_file {
        return;
    }
    // Without `-e` the first operand is the program.
    let programs: Vec<&str> = if scripts_given.is_empty() {
        first_operand.into_iter().collect()
    } else {
        scripts_given
    };
    for program in programs {
        let effect = match script {
            "sed" => scripts::sed_effect(program),
            _ => scripts::awk_effect(program),
        };
        if effect {
            out.push(Effect::Runs(program.to_string()));
        }
    }
}

/// Where an option gives a script (`sed -e S`, `--expression=S`, `-eS`; gawk's `--source`), or
/// a script file.
enum ScriptGiven<'a> {
    Inline(&'a str),
    Next,
    File,
}

fn script_option<'a>(
    script: &str,
    word: &'a str,
    next: Option<&'a str>,
) -> Option<ScriptGiven<'a>> {
    let long: &[&str] = match script {
        "sed" => &["--expression"],
        _ => &["--source"],
    };
    // Long options by any GNU prefix (`--expr=…`, `--e …`).
    for name in long {
        match option_value(name, word, next) {
            Some((_, true)) => return Some(ScriptGiven::Next),
            Some((value, false)) => return Some(ScriptGiven::Inline(value)),
            None => {}
        }
    }
    if option_value("--file", word, next).is_some() {
        return Some(ScriptGiven::File);
    }
    let short = word.strip_prefix('-').filter(|w| !w.starts_with('-'))?;
    for (k, letter) in short.char_indices() {
        match letter {
            'e' if script == "sed" => {
                let rest = short.get(k + 1..).unwrap_or("");
                return Some(if rest.is_empty() {
                    ScriptGiven::Next
                } else {
                    ScriptGiven::Inline(rest)
                });
            }
            'f' => return Some(ScriptGiven::File),
            _ => {}
        }
    }
    None
}

/// The value a word gives `option`, in any spelling git's and GNU's parsers take: `--exec V`,
/// `--exec=V`, a prefix of the long name (`--ex V`, `--exe=V`: ambiguous prefixes too, so none
/// is missed), `-x V`, `-xV`, and a short option inside a cluster, its value the rest of the
/// cluster or the next word (`-fx V`, `-nOV`); with whether the value is the next word.
fn option_value<'a>(option: &str, word: &'a str, next: Option<&'a str>) -> Option<(&'a str, bool)> {
    if let Some(long) = option.strip_prefix("--") {
        let given = word.strip_prefix("--")?;
        let (name, value) = match given.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (given, None),
        };
        if name.is_empty() || !long.starts_with(name) {
            return None;
        }
        return match value {
            Some(value) => Some((value, false)),
            None => next.map(|n| (n, true)),
        };
    }
    if word == option {
        return next.map(|n| (n, true));
    }
    let letter = match option.strip_prefix('-') {
        Some(name) if name.chars().count() == 1 => name,
        // A one-dash long option (`-exec`) or a bare word: its value joined, after `=` or not.
        _ => {
            let rest = word.strip_prefix(option)?;
            let rest = rest.strip_prefix('=').unwrap_or(rest);
            return (!rest.is_empty()).then_some((rest, false));
        }
    };
    if word.starts_with("--") {
        return None;
    }
    let cluster = word.strip_prefix('-')?;
    let at = cluster.find(letter)?;
    let rest = cluster.get(at + letter.len()..)?;
    if rest.is_empty() {
        next.map(|n| (n, true))
    } else {
        Some((rest, false))
    }
}

/// An option found among the entry's `runs` or `writes`, by any spelling.
fn found(entry: &Effects, word: &str, shown: &str, out: &mut Vec<Effect>) {
    if entry.runs.iter().any(|o| names(o, word)) {
        out.push(Effect::Runs(shown.to_string()));
    } else if entry.writes.iter().any(|o| names(o, word)) {
        out.push(Effect::Writes(shown.to_string()));
    }
}

/// Whether a word spells an option: exactly, after `=`, by a GNU prefix of a long one (at least
/// one letter), a short one anywhere in a cluster, a one-dash long one (`-exec`) whole or with
/// its value joined, and a wildcard entry (`+*`) by matching.
fn names(option: &str, word: &str) -> bool {
    // A wildcard entry (written in lower case) matches in any letter case (`*command=*` is
    // ssh's `ProxyCommand=`); a word in lower case is matched as it is, with no copy.
    if option.contains('*') {
        return wildcard::matches(option, word)
            || (word.bytes().any(|b| b.is_ascii_uppercase())
                && wildcard::matches(option, &word.to_ascii_lowercase()));
    }
    if let Some(long) = word.strip_prefix("--") {
        let name = long.split('=').next().unwrap_or(long);
        return !name.is_empty()
            && option
                .strip_prefix("--")
                .is_some_and(|o| o == name || o.starts_with(name));
    }
    if word
        .strip_prefix(option)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('='))
    {
        return true;
    }
    let Some(letters) = word.strip_prefix('-') else {
        return false;
    };
    let mut short = option.chars();
    match (short.next(), short.next(), short.next()) {
        (Some('-'), Some(letter), None) => letters.contains(letter),
        // `-exec` and its like are whole words; `-TT` too.
        _ => word.starts_with(option) && option.len() > 2,
    }
}
