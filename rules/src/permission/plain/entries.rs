//! The hardline's command entries (hardline.json `commands`) judged against a command: its
//! program, subcommand, options, targets and their sets.

use super::super::glob::{broad_contents, Segments};
use super::super::hardline::{self, lower, PathSet};
use super::super::shell::Word;
use super::super::wildcard;
use super::known::Known;
use super::values::{strip_word_prefix, Scope};
use super::walk::{command_text, option_values, Holds, Options, Walker};
use crate::spec::types::HardCommand;
use std::borrow::Cow;

impl Walker<'_> {
    /// The hardline's command entries for a program's words (`--help` or `--version` first is
    /// never refused), found by `known`'s place of the program in their index; `shared` is the
    /// arguments' options read with no option lists, when they hold no option and no expansion.
    pub(super) fn entries<'w>(
        &mut self,
        program: &str,
        known: &Known,
        words: &'w [Word],
        scope: &Scope<'_>,
        shared: Option<&Options<'w>>,
    ) {
        let args = words.get(1..).unwrap_or(&[]);
        let help = args
            .first()
            .is_some_and(|a| matches!(a.text.as_str(), "--help" | "--version"));
        if help {
            return;
        }
        // The entries that hold only for a subcommand, when no word spells one of theirs and
        // none is known only when the line runs, are passed over at once (`entry`'s first test,
        // made once for all of them).
        let subcommands = super::index::subcommands_at(program, known.commands);
        let no_subcommand = (shared.is_some() || !args.iter().any(Word::dynamic))
            && !subcommands.spelled(args.iter().map(|w| w.text.as_str()));
        if no_subcommand && subcommands.every_entry_needs_one {
            // Every entry naming the program would be passed over below.
            return;
        }
        for named in super::index::commands_naming_at(program, known.commands) {
            if no_subcommand && named.needs_a_subcommand {
                continue;
            }
            let e = named.entry;
            let holds = self.entry(e, args, scope, shared);
            if holds != Holds::No {
                self.hit(e, command_text(words), holds);
            }
        }
    }

    /// Whether an entry's conditions hold for a command's arguments; `shared` is their options
    /// read with no option lists, when they hold no option and no expansion.
    pub(super) fn entry<'w>(
        &mut self,
        e: &HardCommand,
        args: &'w [Word],
        scope: &Scope<'_>,
        shared: Option<&Options<'w>>,
    ) -> Holds {
        // An entry for some subcommands holds only when a word spells one (the first operand, or
        // one spelled as an option), or when a word is known only when the line runs (options read
        // once for every entry, `shared`, mean none is): with neither, it does not hold, found
        // before the options are read for it (`git push` and the four `git` entries). The
        // subcommand check below is the whole rule; this passes over what it would refuse.
        if super::index::needs_a_subcommand(e)
            && (shared.is_some() || !args.iter().any(Word::dynamic))
            && !args
                .iter()
                .any(|w| e.subcommands.iter().any(|s| *s == w.text))
        {
            return Holds::No;
        }
        // A word spelling one of the entry's value options would make the next one its value.
        let names_a_value = |w: &Word| e.value_options.iter().any(|v| *v == w.text);
        let own;
        let opts = match shared.filter(|_| !args.iter().any(names_a_value)) {
            Some(o) => o,
            None => {
                own = Options::read(
                    args,
                    |w| self.values(w, scope),
                    &e.value_options,
                    &e.attached_options,
                );
                &own
            }
        };
        // An option that spares a command counts only spelled whole: a prefix that names it may
        // name another option too.
        if e.unless.iter().any(|f| opts.has_exactly(f)) {
            return Holds::No;
        }
        let mut maybe = false;
        let mut need = |holds: Holds| -> bool {
            match holds {
                Holds::Yes => true,
                Holds::Maybe => {
                    maybe = true;
                    true
                }
                Holds::No => false,
            }
        };
        // A BSD cluster (`ps eww`, `tar xf`) holding one of the entry's letters counts as one of
        // its flags — with `bsd_first`, only as the first argument (`tar -cf x -C /var/log
        // nginx` extracts nothing).
        let bsd = e.bsd_letters.as_deref().map(|letters| {
            let holds = |w: &&Word| {
                !w.dynamic()
                    && w.text.chars().all(|c| c.is_ascii_alphabetic())
                    && w.text.contains(|c: char| letters.contains(c))
            };
            let candidates: &[&Word] = if e.bsd_first {
                match (args.first(), opts.operands.first()) {
                    (Some(first), Some(operand)) if std::ptr::eq(first, *operand) => {
                        std::slice::from_ref(operand)
                    }
                    _ => &[],
                }
            } else {
                &opts.operands
            };
            if candidates.iter().any(holds) {
                Holds::Yes
            } else if candidates.iter().any(|w| w.dynamic()) {
                Holds::Maybe
            } else {
                Holds::No
            }
        });
        if !e.flags.is_empty() || bsd.is_some() {
            let holds = if e.flags.iter().any(|f| opts.has(f)) || bsd == Some(Holds::Yes) {
                Holds::Yes
            } else if opts.dynamic || bsd == Some(Holds::Maybe) {
                Holds::Maybe
            } else {
                Holds::No
            };
            if !need(holds) {
                return Holds::No;
            }
        }
        if !e.subcommands.is_empty() {
            let holds = match opts.operands.first() {
                Some(w) if w.dynamic() => Holds::Maybe,
                Some(w) if e.subcommands.iter().any(|s| *s == w.text) => Holds::Yes,
                _ if e.subcommands.iter().any(|s| opts.has(s)) => Holds::Yes,
                _ => Holds::No,
            };
            if !need(holds) {
                return Holds::No;
            }
        }
        if !e.operands.is_empty() {
            // An operand as written, in lower case, and as the number it spells (`-01` is -1).
            let spelled = |w: &Word| {
                let lower = lower(&w.text);
                let number = w.text.trim().parse::<i64>().ok().map(|n| n.to_string());
                e.operands.iter().any(|p| {
                    wildcard::matches(p, &w.text)
                        || wildcard::matches(&hardline::lower(p), &lower)
                        || number.as_deref().is_some_and(|n| wildcard::matches(p, n))
                })
            };
            let holds = if opts.operands.iter().any(|w| !w.dynamic() && spelled(w)) {
                Holds::Yes
            } else if opts.operands.iter().any(|w| w.dynamic()) {
                Holds::Maybe
            } else {
                Holds::No
            };
            if !need(holds) {
                return Holds::No;
            }
        }
        if !e.words.is_empty() {
            let holds = if args.iter().any(|w| {
                let text = lower(&w.text);
                !w.dynamic() && e.words.iter().any(|p| wildcard::matches(&lower(p), &text))
            }) {
                Holds::Yes
            } else if args.iter().any(Word::dynamic) {
                Holds::Maybe
            } else {
                Holds::No
            };
            if !need(holds) {
                return Holds::No;
            }
        }
        if e.no_operands {
            let signal = |w: &&Word| {
                !w.dynamic()
                    && w.text
                        .strip_prefix('-')
                        .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()))
            };
            let holds = if opts.operands.iter().all(signal) {
                Holds::Yes
            } else {
                Holds::No
            };
            if !need(holds) {
                return Holds::No;
            }
        }
        if e.broad {
            let holds = if opts
                .operands
                .iter()
                .any(|w| !w.dynamic() && matches_every_name(&w.text))
            {
                Holds::Yes
            } else if opts.operands.iter().any(|w| w.dynamic()) {
                Holds::Maybe
            } else {
                Holds::No
            };
            if !need(holds) {
                return Holds::No;
            }
        }
        if let Some(set_name) = &e.targets {
            let Some(set) = hardline::path_set(set_name) else {
                return Holds::No;
            };
            let mut holds = Holds::No;
            // `chmod -x /bin/*`: a mode spelled as an option leaves one operand, the target.
            let owner_skipped = usize::from(
                e.owner_first
                    && opts.operands.len() > 1
                    && !e.owner_options.iter().any(|o| opts.has(o)),
            );
            let mut listed: Vec<&Word> = match e.target_operand.as_deref() {
                Some("last") if opts.operands.len() > 1 => {
                    opts.operands.last().copied().into_iter().collect()
                }
                Some("last") => Vec::new(),
                _ => opts.operands.iter().skip(owner_skipped).copied().collect(),
            };
            if !e.target_options.is_empty() {
                if e.target_operand.as_deref() != Some("all") {
                    listed.clear();
                }
                let given = option_values(args, &e.target_options);
                if given.is_empty() {
                    // No target option: its target is the folder it runs in.
                    match &self.cwds {
                        Some(cwds) if cwds.iter().any(|folder| self.in_set(set, folder)) => {
                            holds = Holds::Yes;
                        }
                        Some(_) => {}
                        None => holds = holds.max_maybe(),
                    }
                }
                for (value, option) in given {
                    let mount = option == "--mount";
                    let Some(values) = self.values(&value, scope) else {
                        holds = holds.max_maybe();
                        continue;
                    };
                    for v in values {
                        // An empty value is the folder it runs in (`git -C ""`).
                        let source = match volume_source(&v, mount) {
                            Some(source) => source,
                            None if v.is_empty() => ".",
                            None => continue,
                        };
                        match self.resolve_all(source) {
                            Some(paths)
                                if paths.iter().any(|p| self.in_target_set(e, set, p, true)) =>
                            {
                                holds = Holds::Yes;
                            }
                            Some(_) => {}
                            None => holds = holds.max_maybe(),
                        }
                    }
                }
            }
            // The home as the folder the others go into: a path inside it is written, not it.
            let into = (e.into_last && opts.operands.len() > 1)
                .then(|| opts.operands.last().copied())
                .flatten();
            for w in listed {
                let inside = into.is_some_and(|last| std::ptr::eq(last, w));
                let word: Cow<'_, Word> = match &e.target_prefix {
                    Some(prefix) if !w.dynamic() => match w.text.strip_prefix(prefix.as_ref()) {
                        Some(rest) => {
                            Cow::Owned(strip_word_prefix(w, prefix.chars().count(), rest))
                        }
                        None => continue,
                    },
                    _ => Cow::Borrowed(w),
                };
                match self.targets(&word, scope) {
                    Some(paths) if paths.iter().any(|p| self.in_target_set(e, set, p, inside)) => {
                        holds = Holds::Yes;
                        break;
                    }
                    Some(_) => {}
                    None => holds = Holds::Maybe,
                }
            }
            if !need(holds) {
                return Holds::No;
            }
        }
        if maybe {
            Holds::Maybe
        } else {
            Holds::Yes
        }
    }

    /// Whether an entry's target is in its set: with `into_last`, the home as the folder others
    /// go into (`into`: the last operand, or a target option's value: `mv -t ~ x`) is a path
    /// inside it, not the home.
    fn in_target_set(&self, e: &HardCommand, set: &PathSet, path: &str, into: bool) -> bool {
        let folder = path.trim_end_matches('/');
        let home = self.place.home.map(|h| h.trim_end_matches('/'));
        if e.into_last && into && home == Some(folder) {
            self.in_set(set, &format!("{folder}/x"))
        } else {
            self.in_set(set, path)
        }
    }

    /// Whether a path (a glob) can name a path of the set, or all of a protected folder's
    /// contents (`~/*`, `/usr/.*`).
    pub(super) fn in_set(&self, set: &PathSet, path: &str) -> bool {
        let home = self
            .place
            .home
            .map(|h| h.trim_end_matches('/'))
            .filter(|h| !h.is_empty());
        // The path, and the folder a glob naming all its entries stands for.
        let candidates = std::iter::once(path).chain(broad_contents(path));
        candidates.map(Segments::of).any(|candidate| {
            set.exact.iter().any(|glob| candidate.meets_glob(glob))
                || home.is_some_and(|home| candidate.meets(home))
                || set.patterns.iter().any(|glob| candidate.meets_glob(glob))
                || home.is_some_and(|home| {
                    set.home_patterns
                        .iter()
                        .any(|rest| candidate.meets(&format!("{home}/{rest}")))
                })
        })
    }
}

/// Whether a pattern (a regular expression or a name) matches every name: an alternative of it
/// (between `|`) holds no character that stands for itself — `.`, `.*`, `^`, `[a-z]+`, `x|`.
fn matches_every_name(pattern: &str) -> bool {
    pattern.split('|').any(|alternative| {
        let mut bracket = false;
        let mut brace = false;
        let mut escaped = false;
        !alternative.chars().any(|c| {
            if escaped {
                escaped = false;
                return true;
            }
            match c {
                '\\' => {
                    escaped = true;
                    false
                }
                '[' => {
                    bracket = true;
                    false
                }
                ']' => {
                    bracket = false;
                    false
                }
                '{' => {
                    brace = true;
                    false
                }
                '}' => {
                    brace = false;
                    false
                }
                _ if bracket => false,
                '0'..='9' | ',' if brace => false,
                '.' | '*' | '+' | '?' | '^' | '$' | '(' | ')' => false,
                _ => true,
            }
        })
    })
}

/// The source a volume value names: before its first `:`, or a `--mount` list's `source=` or
/// `src=`.
fn volume_source(value: &str, mount: bool) -> Option<&str> {
    let source = if mount {
        value.split(',').find_map(|kv| {
            kv.strip_prefix("source=")
                .or_else(|| kv.strip_prefix("src="))
        })
    } else {
        value.split(':').next()
    };
    source.filter(|s| !s.is_empty())
}
