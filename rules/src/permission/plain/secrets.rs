//! Secrets a command may read (hardline.json `paths` with the class `read`): keys and a process's
//! environment, named plainly, through a glob or through a value known only when the line runs.

use super::super::glob::{hidden_names_spelled, may_match_under, tokens};
use super::super::hardline::{self, lower, Hit, HomeGlob, LowerPath, LowerPattern};
use super::super::path::SOME_HOME;
use super::super::shell::{Reading, RedirectOp, Word};
use super::super::RiskClass;
use super::addresses::spells_an_address;
use super::known::Known;
use super::values::{shape, strip_word_prefix, values_inside, Scope};
use super::walk::Walker;
use crate::spec::spec;
use crate::spec::types::Str;
use std::borrow::Cow;

impl Walker<'_> {
    /// Operands that name a path no tool may read (keys, a process's environment): a command
    /// reading them is refused as the read tool would be.
    pub(super) fn secret_reads(
        &mut self,
        program: &str,
        known: &Known,
        args: &[Word],
        scope: &Scope<'_>,
    ) {
        // A file an option makes it read (`curl -n`: `~/.netrc`), in any spelling of the option.
        if let Some(reads) = known.option_reads {
            let opts = super::walk::Options::read(args, |_| None, &[], &[]);
            // An option the line gives through a variable (`F=-n; curl $F`) may be any of them;
            // a value the line does not give is the person's (`curl $URL`).
            let given_in_a_variable = args.iter().any(|w| {
                w.dynamic()
                    && self
                        .values(w, scope)
                        .is_some_and(|values| values.iter().any(|v| v.starts_with('-')))
            });
            for (option, file) in reads.iter() {
                if opts.has(option) || given_in_a_variable {
                    self.secret_read(&Word::unquoted(file), scope);
                }
            }
        }
        // Most commands name nothing that may be secret: nothing more to read.
        let may_name_one = args.iter().any(|w| {
            w.dynamic()
                || self.in_a_variable_folder(w)
                || w.glob()
                || secret_may(&w.text)
                || values_inside(&w.text).any(|v| secret_may(v) || v.contains(['*', '?', '[']))
                || spells_an_address(&w.text)
        });
        if !may_name_one {
            return;
        }
        // A program that only writes its words out (`echo`) reads none of them — but a glob
        // among them (or a variable's value that is one: `for f in ~/.ssh/*; do echo $f`) is
        // written out as the names it matches, which `ls` of its folder would show: judged as
        // that listing is (`echo ~/.ssh/*` as `ls ~/.ssh`; `echo ~/.*` as `ls ~`).
        if self
            .hardline
            .plain
            .text_programs
            .iter()
            .any(|p| *p == program)
        {
            let globs = |w: &&Word| {
                w.glob()
                    || (w.dynamic()
                        && self.values(w, scope).is_some_and(|values| {
                            values.iter().any(|v| v.contains(['*', '?', '[']))
                        }))
            };
            let listed: Vec<String> = args
                .iter()
                .filter(globs)
                .filter_map(|w| self.targets(w, scope))
                .flatten()
                .filter_map(|path| {
                    let first = path.find(['*', '?', '['])?;
                    let folder = path.get(..first)?.rsplit_once('/')?.0;
                    Some(if folder.is_empty() { "/" } else { folder }.to_string())
                })
                .collect();
            for folder in listed {
                self.secret_read(&Word::literal(&folder), scope);
            }
            return;
        }
        // A pattern (`grep -rn '.ssh/id_rsa' src`) is text; its files are read as operands.
        let patterns = super::forms::pattern_words(program, args);
        // A key it signs in with (`scp -i KEY`, `-iKEY`) is used, not shown: that word only.
        let key_options = self.hardline.plain.key_options.get(program);
        let mut key_next = false;
        let mut ended = false;
        for w in args {
            if std::mem::take(&mut key_next) || patterns.iter().any(|p| std::ptr::eq(*p, w)) {
                continue;
            }
            // After `--` every word is a file (`scp -- -i ~/.ssh/id_rsa x`).
            ended = ended || (w.text == "--" && !w.dynamic());
            if let Some(options) = key_options.filter(|_| !w.dynamic() && !ended) {
                if options.iter().any(|o| *o == w.text) {
                    key_next = true;
                    continue;
                }
                if options.iter().any(|o| w.text.starts_with(o.as_ref())) {
                    continue;
                }
            }
            self.secret_read(w, scope);
            if w.dynamic() {
                // A value inside a word spelled with a variable naming an account file
                // (`-d @$KUBECONFIG`, `--post-file=$NETRC`): read as that file.
                for spelled in super::variable_paths::spellings(w, scope, &self.too_many_values) {
                    for value in values_inside(&spelled).filter(|v| secret_may(v)) {
                        self.secret_read(&Word::unquoted(value), scope);
                    }
                }
                continue;
            }
            let t = w.text.as_str();
            // `REV:path` of any of its commands (`git archive HEAD:.config/gh`), from every
            // folder the repository's top may be.
            let revision = super::addresses::revision_path(t)
                .filter(|_| super::forms::names_revisions(program));
            if let Some(path) = revision {
                let skip = t.chars().count() - path.chars().count();
                if !path.is_empty() {
                    self.secret_at_repository_top(&strip_word_prefix(w, skip, path), scope);
                }
            }
            for value in values_inside(t) {
                if !value.is_empty() && (secret_may(value) || value.contains(['*', '?', '['])) {
                    let skip = t.chars().count() - value.chars().count();
                    self.secret_read(&strip_word_prefix(w, skip, value), scope);
                }
            }
        }
    }

    /// Whether a word is a path relative to a folder not known that a `cd` to a variable
    /// naming an account folder may have gone to (`cd $GNUPGHOME && cat private-keys-v1.d/k`).
    pub(super) fn in_a_variable_folder(&self, w: &Word) -> bool {
        self.cwds.is_none()
            && !self.variable_folders.is_empty()
            && !w.dynamic()
            && !w.text.starts_with(['/', '~'])
    }

    pub(super) fn secret_read(&mut self, w: &Word, scope: &Scope<'_>) {
        // find's `{}` joined to more text (`{}/.git`): what it reads is judged as `{}`'s, the
        // found files', as their tree is (what it writes is judged as written).
        if w.text != super::values::FOUND && super::values::joins_found(w) {
            return self.secret_read(&super::values::found_word(), scope);
        }
        // Most words name nothing secret: look closer only at those that may. A glob may name
        // one without spelling it (`/proc/self/envi*`).
        if !w.dynamic()
            && !w.glob()
            && !spells_an_address(&w.text)
            && !secret_may(&w.text)
            && !self.in_a_variable_folder(w)
        {
            return;
        }
        if !w.dynamic() && text_not_path(&w.text) {
            return;
        }
        // A value known only when it runs, between known text (`/proc/$(pgrep x)/environ`),
        // stands for any name there: the word is read as that glob.
        // A `file:` address whose path is known only when it runs (curl's own globs:
        // `file:///home/u/.ss{h}/id_rsa`) may name any file: the line is not read exactly.
        if !w.dynamic()
            && spells_an_address(&w.text)
            && super::addresses::file_address(&w.text) == super::addresses::FileAddress::Unreadable
        {
            self.opaque(super::super::shell::Construct::BraceExpansion);
            return;
        }
        // A value a command substitution makes, whose text spells a secret's path
        // (`$(echo ~/.ssh/id_rsa)`, `cd $(echo ~/.aws)`): judged as the paths it spells.
        if w.dynamic() {
            for piece in spelled_in_substitution(&w.text) {
                self.secret_read(&Word::unquoted(&piece), scope);
            }
            // A folder a lister in a substitution names (`cat $(find ~ -name id_rsa)`): what is
            // under it may be what it makes.
            for folder in listed_in_substitution(&w.text) {
                for path in self.resolve_all(&folder).unwrap_or_default() {
                    self.secret_tree(&path);
                }
            }
            // A variable of the person's environment naming an account file (`cat $KUBECONFIG`,
            // `cat $(printenv KUBECONFIG)`): read as the path it names when not set too.
            for path in super::variable_paths::spellings(w, scope, &self.too_many_values)
                .iter()
                .map(String::as_str)
                .chain(super::variable_paths::named_in_substitution(w))
            {
                self.secret_read(&Word::unquoted(path), scope);
            }
        }
        let paths = match self.targets(w, scope) {
            Some(paths) => paths,
            None => {
                let Some(glob) = shape(w) else {
                    return;
                };
                let mut paths = Vec::new();
                // Relative to a folder not known that a `cd` to a variable naming an account
                // folder may have gone to (`cd $DOCKER_CONFIG && cat config.json`): there too.
                if self.in_a_variable_folder(w) {
                    paths.extend(
                        self.variable_folders
                            .iter()
                            .map(|folder| format!("{}/{glob}", folder.trim_end_matches('/'))),
                    );
                }
                // Its start known only when it runs (`$X/.docker/config.json`, `~-/.ssh/id_rsa`:
                // the folder before), or relative to a folder a `cd` went to that is not known
                // (`cd -; cat .ssh/id_rsa`), and its own path naming a folder or a file of an
                // account file's path (`gh/hosts.yml`, `.ssh/…`; not `src/main.rs`, nor a bare
                // word, which may be no path at all): it may be under any folder, the home's and
                // the system's.
                let start_not_known = glob.starts_with('*')
                    || (self.cwds.is_none() && !glob.starts_with(['/', '~']))
                    || glob
                        .strip_prefix("~-")
                        .is_some_and(|r| r.is_empty() || r.starts_with('/'));
                if start_not_known && names_a_secret_segment(&glob) {
                    paths.extend(anywhere(&glob, self.place.home));
                } else if let Some(resolved) = self.resolve_all(&glob) {
                    paths.extend(resolved);
                }
                if paths.is_empty() {
                    return;
                }
                paths
            }
        };
        for p in &paths {
            if p.contains(['*', '?', '[']) {
                if let Some(hit) = secret_glob(p, self.place.home) {
                    self.out.hits.push(hit);
                    return;
                }
            }
        }
        for p in paths.iter().filter(|p| secret_may(p)) {
            if let Some(found) =
                hardline::check_path(p, RiskClass::Read, self.place.home, self.place.root)
                    .filter(|f| !f.ask)
            {
                self.out.hits.push(found.hit);
                return;
            }
        }
    }
}

/// Whether a line turns text into a command's arguments or a variable's value where the reader
/// does not follow it: a wrapper that takes operands from its input (`xargs`, `parallel`), or a
/// program of `input_values` (`read`, `mapfile`, `printf -v`), named by any word of it (a word
/// may be a wrapper's command: `env xargs`).
pub(super) fn turns_text_into_values(reading: &Reading) -> bool {
    let names = InputNames::get();
    reading.commands.iter().any(|cmd| {
        let words = cmd.argv();
        words.iter().enumerate().any(|(at, w)| {
            let name = crate::permission::path::last_name(&w.text);
            let Some(options) = names.options(name) else {
                return false;
            };
            let later = words.get(at + 1..).unwrap_or(&[]);
            !w.dynamic()
                && (options.is_empty()
                    || later
                        .iter()
                        .any(|word| options.iter().any(|o| word.text.starts_with(o.as_ref()))))
        })
    })
}

/// The programs that turn text into values ([`turns_text_into_values`]), with the options that
/// make them do it (none: always), found once. Every word of every command is looked up, and
/// nearly none is one of them: a word whose first letter and length, or last letter and length,
/// no name has is passed over by a bit.
struct InputNames {
    names: Vec<(&'static str, &'static [Str])>,
    /// A bit for each first byte and length (under 64) a name has.
    shapes: Vec<u64>,
    /// A bit for each last byte and length (under 64) a name has.
    ends: Vec<u64>,
}

impl InputNames {
    fn get() -> &'static InputNames {
        static NAMES: std::sync::OnceLock<InputNames> = std::sync::OnceLock::new();
        NAMES.get_or_init(|| {
            let plain = &crate::spec::spec().hardline.plain;
            let wrappers = plain
                .wrappers
                .iter()
                .filter(|(_, spec)| spec.input)
                .map(|(name, _)| (name, &[][..]));
            let values = plain
                .input_values
                .iter()
                .map(|(name, options)| (name, &options[..]));
            let names: Vec<(&'static str, &'static [Str])> = wrappers.chain(values).collect();
            let mut shapes = vec![0u64; 256];
            let mut ends = vec![0u64; 256];
            for (name, _) in &names {
                let bytes = name.as_bytes();
                match (bytes.first(), bytes.last(), name.len()) {
                    (Some(&first), Some(&last), len) if len < 64 => {
                        if let Some(bits) = shapes.get_mut(usize::from(first)) {
                            *bits |= 1 << len;
                        }
                        if let Some(bits) = ends.get_mut(usize::from(last)) {
                            *bits |= 1 << len;
                        }
                    }
                    // A name of 64 bytes or more: every word is looked at.
                    _ => {
                        shapes.iter_mut().for_each(|bits| *bits = u64::MAX);
                        ends.iter_mut().for_each(|bits| *bits = u64::MAX);
                    }
                }
            }
            InputNames {
                names,
                shapes,
                ends,
            }
        })
    }

    /// The options that make `name` turn text into values, when it is one of the programs.
    fn options(&self, name: &str) -> Option<&'static [Str]> {
        let bytes = name.as_bytes();
        let has = |table: &[u64], byte: u8| {
            let bits = table.get(usize::from(byte)).copied().unwrap_or(0);
            if name.len() < 64 {
                bits & (1 << name.len()) != 0
            } else {
                bits == u64::MAX
            }
        };
        if !has(&self.shapes, *bytes.first()?) || !has(&self.ends, *bytes.last()?) {
            return None;
        }
        self.names
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, options)| *options)
    }
}

impl Walker<'_> {
    /// Every word of a line that spells a path no tool may read — its commands' words, its
    /// here-strings' text and its here-documents' bodies — judged as a read of it: for a line
    /// that turns text into paths where the reader does not follow it
    /// ([`turns_text_into_values`]: `echo ~/.ssh/id_rsa | xargs cat`).
    pub(super) fn spelled_secret_reads(&mut self, reading: &Reading, scope: &Scope<'_>) {
        for cmd in &reading.commands {
            let lists = cmd.argv().first().is_some_and(|program| {
                let name = crate::permission::path::last_name(&program.text);
                // ripgrep lists files only with `--files`; without it the first word is a pattern.
                self.hardline.plain.listers.get(name).is_some_and(|needs| {
                    needs.is_empty()
                        || cmd
                            .argv()
                            .iter()
                            .any(|w| needs.iter().any(|o| *o == w.text))
                })
            });
            if lists {
                self.listed_outside_the_root(cmd.argv());
            }
            let here_strings = cmd
                .redirects
                .iter()
                .filter(|r| r.op == RedirectOp::HereString)
                .map(|r| &r.target);
            for w in cmd.argv().iter().chain(here_strings) {
                // A value the line knows (`$HOME/.ssh/id_rsa`), one that spells a secret's path
                // from an unknown start, and a glob (`/home/u/.s[s]h/id_rsa`): read as any word
                // is, every path it may name.
                if w.dynamic() || w.glob() {
                    self.secret_read(w, scope);
                    continue;
                }
                // A folder a lister names plainly may be listed into the paths (`find ~ -name
                // 'id_*' | xargs cat`): what is under it is read whole.
                if lists && w.text.starts_with(['/', '~']) {
                    for path in self.targets(w, scope).unwrap_or_default() {
                        self.secret_tree(&path);
                    }
                }
                // Each piece the word's blanks part (`read a b <<< "x ~/.ssh/id_rsa"`).
                for piece in w.text.split_whitespace() {
                    if piece == w.text && secret_may(piece) {
                        self.secret_read(w, scope);
                        self.unescaped_pieces(piece, scope);
                    } else {
                        self.spelled_piece(piece, scope);
                    }
                }
            }
        }
        // Each piece of a here-document's body (`xargs cat <<EOF` with `~/.ssh/id_rsa` under it).
        for body in &reading.here_documents {
            for piece in body.split_whitespace() {
                self.spelled_piece(piece, scope);
            }
            self.folders_named_in_a_list(body.split_whitespace());
        }
        // A tar name list may change folder (`-C DIR`, `--directory=DIR`) before its names:
        // in the text a program writes out (`printf -- '--directory=/home/u\n.ssh\n'`) or a
        // here-string.
        for cmd in &reading.commands {
            let writes_text = cmd.argv().first().is_some_and(|program| {
                let name = crate::permission::path::last_name(&program.text);
                self.hardline.plain.text_programs.iter().any(|p| *p == name)
            });
            let words = cmd
                .argv()
                .iter()
                .filter(|_| writes_text)
                .map(|w| w.text.as_str());
            let here_strings = cmd
                .redirects
                .iter()
                .filter(|r| r.op == RedirectOp::HereString)
                .map(|r| r.target.text.as_str());
            let texts: Vec<String> = words
                .chain(here_strings)
                .flat_map(|t| {
                    let [_, escapes] = unescaped(t);
                    [t.to_string(), escapes]
                })
                .collect();
            self.folders_named_in_a_list(texts.iter().flat_map(|t| t.split_whitespace()));
        }
    }

    /// The folders a name list read by tar names to go to (`-C DIR`, `--directory=DIR`): what
    /// is under each may be read whole.
    fn folders_named_in_a_list<'t>(&mut self, pieces: impl Iterator<Item = &'t str>) {
        let mut after_c = false;
        let mut folders = Vec::new();
        for piece in pieces {
            if std::mem::take(&mut after_c) && !piece.starts_with('-') {
                folders.push(piece.to_string());
            }
            after_c = piece == "-C" || piece == "--directory";
            if let Some(folder) = piece.strip_prefix("--directory=") {
                folders.push(folder.to_string());
            }
        }
        for folder in folders.iter().filter(|f| f.starts_with(['/', '~'])) {
            for path in self.resolve_all(folder).unwrap_or_default() {
                self.secret_tree(&path);
            }
        }
    }

    /// The folders a lister lists by a relative name, or with none (`cd ~ && ls -A`, `find
    /// ..`), from each folder the line may be in, that are outside the project: read whole. `locate`
    /// lists the whole disk.
    fn listed_outside_the_root(&mut self, words: &[Word]) {
        let program = words
            .first()
            .map_or("", |w| crate::permission::path::last_name(&w.text));
        if matches!(program, "locate" | "plocate" | "mlocate") {
            self.secret_tree("/");
            return;
        }
        let args = words.get(1..).unwrap_or(&[]);
        let operands: Vec<&str> = if program == "find" {
            args.iter()
                .take_while(|w| !w.text.starts_with(['-', '(', '!']))
                .map(|w| w.text.as_str())
                .collect()
        } else {
            args.iter()
                .filter(|w| !w.text.starts_with('-'))
                .map(|w| w.text.as_str())
                .collect()
        };
        let mut relative: Vec<&str> = operands
            .into_iter()
            .filter(|o| !o.starts_with(['/', '~']))
            .collect();
        if relative.is_empty() && !args.iter().any(|w| w.text.starts_with(['/', '~'])) {
            relative.push(".");
        }
        let root = self.place.root.trim_end_matches('/');
        let cwds: Vec<String> = self
            .cwds
            .iter()
            .flat_map(|cwds| cwds.iter())
            .map(|cwd| cwd.to_string())
            .collect();
        for cwd in cwds {
            for name in &relative {
                let path = super::super::path::resolve(self.place, &cwd, name);
                let trimmed = path.trim_end_matches('/');
                if trimmed != root && !trimmed.starts_with(&format!("{root}/")) {
                    self.secret_tree(&path);
                }
            }
        }
    }

    /// A piece of text a program may turn into a path, judged as it is and as programs read
    /// its quotes and backslashes ([`unescaped`]: `.s\\sh`, `.s''sh`, tar's `\\056ssh`,
    /// `printf`'s `\\x2essh`).
    fn spelled_piece(&mut self, piece: &str, scope: &Scope<'_>) {
        if secret_may(piece) {
            self.secret_read(&Word::unquoted(piece), scope);
        }
        self.unescaped_pieces(piece, scope);
    }

    /// What a piece of text spells once its quotes and backslashes are read ([`unescaped`]), by
    /// one program or by `printf` and then xargs (`printf '.s\\\\sh' | xargs`).
    fn unescaped_pieces(&mut self, piece: &str, scope: &Scope<'_>) {
        if !piece.contains(['\\', '\'', '"']) {
            return;
        }
        let [dropped, escapes] = unescaped(piece);
        let [twice, _] = unescaped(&escapes);
        for text in [dropped, escapes, twice] {
            for part in text.split_whitespace().filter(|p| secret_may(p)) {
                self.secret_read(&Word::unquoted(part), scope);
            }
        }
    }
}

/// A text read as programs read its quotes and backslashes: xargs takes quotes off and a
/// backslash off the letter after it (`.s''sh`, `.s\\sh`: `.ssh`); `printf`, `echo -e` and GNU
/// tar's names (`-T`) read C's escapes (`\\x2e`, `\\056`, `\\0056`: `.`; `\\n`: a new line).
fn unescaped(text: &str) -> [String; 2] {
    let mut dropped = String::with_capacity(text.len());
    let mut escapes = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if matches!(c, '\'' | '"') {
            escapes.push(c);
            continue;
        }
        if c != '\\' {
            dropped.push(c);
            escapes.push(c);
            continue;
        }
        let Some(next) = chars.next() else {
            break;
        };
        dropped.push(next);
        let mut number = |radix: u32, most: usize, first: Option<char>| {
            let mut value = first.and_then(|d| d.to_digit(radix)).unwrap_or(0);
            let mut taken = 0;
            while let Some(digit) = chars.peek().and_then(|d| d.to_digit(radix)) {
                if taken == most {
                    break;
                }
                value = value * radix + digit;
                taken += 1;
                if let Some(d) = chars.next() {
                    dropped.push(d);
                }
            }
            char::from_u32(value).unwrap_or('?')
        };
        let decoded = match next {
            'n' | 't' | 'r' | 'v' | 'f' => ' ',
            'x' => number(16, 2, None),
            // `\0NNN` (echo -e) and `\NNN` (printf, tar).
            '0' => number(8, 3, Some('0')),
            d if d.is_digit(8) => number(8, 2, Some(d)),
            other => other,
        };
        escapes.push(decoded);
    }
    [dropped, escapes]
}

/// The words a command substitution's text spells that may name a secret's path
/// (`$(echo ~/.ssh/id_rsa)`: `~/.ssh/id_rsa`); none for a word with no substitution.
pub(super) fn spelled_in_substitution(text: &str) -> Vec<String> {
    if !text.contains(['$', '`']) || !secret_may(text) {
        return Vec::new();
    }
    substitution_pieces(text)
        .into_iter()
        .filter(|piece| secret_may(piece))
        .collect()
}

/// The folders a program that lists files (hardline.json `plain.listers`) names in a command
/// substitution's text (`$(find ~ -name id_rsa)`: `~`), named plainly from the root or the home.
fn listed_in_substitution(text: &str) -> Vec<String> {
    if !text.contains(['$', '`']) {
        return Vec::new();
    }
    let pieces = substitution_pieces(text);
    let mut folders = Vec::new();
    let mut listing = false;
    for piece in &pieces {
        match piece.as_str() {
            lister if spec().hardline.plain.listers.get(lister).is_some() => listing = true,
            folder if listing && folder.starts_with(['/', '~']) => folders.push(folder.to_string()),
            option if option.starts_with('-') => {}
            _ => listing = false,
        }
    }
    folders
}

/// The pieces of a command substitution's text that may be what it makes, cut at blanks and at
/// the shell's special characters (of its [`substitution_text`]).
pub(super) fn substitution_pieces(text: &str) -> Vec<String> {
    substitution_text(text)
        .split(|c: char| c.is_whitespace() || "()'\"`$;|&<>={}".contains(c))
        .filter(|piece| !piece.is_empty())
        .map(str::to_string)
        .collect()
}

/// The part of a command substitution's text that may be what it makes: all of it, but of a
/// here-document's body (`$(cat <<'EOF' … EOF)`, a commit message) only the lines that are one
/// word alone — a word among others on its line is text.
pub(super) fn substitution_text(text: &str) -> Cow<'_, str> {
    // Empty quotes join what is around them (`~/.ss''h`).
    if text.contains("''") || text.contains("\"\"") {
        let joined = text.replace("''", "").replace("\"\"", "");
        return Cow::Owned(substitution_text(&joined).into_owned());
    }
    if !text.contains("<<") {
        return Cow::Borrowed(text);
    }
    let mut lines = text.lines();
    let mut kept = lines.next().unwrap_or("").to_string();
    for line in lines.map(str::trim) {
        if !line.is_empty() && !line.contains(char::is_whitespace) {
            kept.push('\n');
            kept.push_str(line);
        }
    }
    Cow::Owned(kept)
}

/// Whether a path whose start is not known (after it: `gh/hosts.yml`, `.ssh/id_rsa`) names, by a
/// whole folder or file name of its own, one spelled in a path no tool may read: `gh` of
/// `~/.config/gh/*`, `.ssh` of `~/.ssh/*` — not `src/main.rs` (which `~/.ssh/*` would hold too,
/// by its `*`). A bare word (no `/`, no leading `.`: `config`, `test`) may be no path at all, and
/// is not judged so.
fn names_a_secret_segment(glob: &str) -> bool {
    use std::collections::HashSet;
    use std::sync::OnceLock;
    static NAMES: OnceLock<HashSet<String>> = OnceLock::new();
    let rest = glob
        .strip_prefix("~-")
        .unwrap_or(glob)
        .trim_start_matches(['*', '/']);
    if !rest.contains('/') && !rest.starts_with('.') {
        return false;
    }
    let names = NAMES.get_or_init(|| {
        refusing_reads()
            .flat_map(|e| e.entry.patterns.iter())
            .flat_map(|p| p.split('/'))
            .filter(|segment| {
                !segment.is_empty() && *segment != "~" && !segment.contains(['*', '?', '['])
            })
            .map(|segment| segment.to_lowercase())
            .collect()
    });
    rest.split('/').any(|segment| {
        let segment = segment.to_lowercase();
        names.contains(&segment)
            || (segment.contains(['*', '?', '['])
                && names
                    .iter()
                    .any(|name| super::super::wildcard::matches(&segment, name)))
    })
}

/// How deep under the home or the root a path whose start is not known is looked for: the
/// hardline's deepest pattern under the home is four folders down
/// (`~/.mozilla/firefox/*/key4.db`).
const ANYWHERE_DEPTH: usize = 5;

/// The globs a path whose start is not known stands for (`*/gh/hosts.yml`, `~-/.aws/config`,
/// `.ssh/id_rsa`): the
/// rest of it under the home and the root, and under every folder there to [`ANYWHERE_DEPTH`]
/// (`~/*/gh/hosts.yml` meets `~/.config/gh/hosts.yml`).
fn anywhere(glob: &str, home: Option<&str>) -> Vec<String> {
    let rest = glob
        .strip_prefix("~-")
        .unwrap_or(glob)
        .trim_start_matches(['*', '/']);
    let home = home.unwrap_or(SOME_HOME).trim_end_matches('/');
    let mut out = Vec::with_capacity(2 * ANYWHERE_DEPTH);
    for top in [home, ""] {
        let mut folder = top.to_string();
        for _ in 0..ANYWHERE_DEPTH {
            out.push(format!("{folder}/{rest}"));
            folder.push_str("/*");
        }
    }
    out
}

/// Whether a word is text rather than a path a secret may be at: its first segment holds a blank
/// (`see ~/.ssh/config`, `ssh -i ~/.ssh/key` in a setting), it starts at no root or home and never
/// climbs out with `..` — as a path it could only name a file under a project folder of that
/// name, not the home's keys.
fn text_not_path(text: &str) -> bool {
    let first = text.split('/').next().unwrap_or(text);
    !text.starts_with(['/', '~'])
        && first.contains(char::is_whitespace)
        && !text.split('/').any(|segment| segment == "..")
}

/// The hardline's path entries that refuse a read (keys, a process's environment), their
/// patterns in lower case.
fn refusing_reads() -> impl Iterator<Item = &'static LowerPath> {
    refusing(RiskClass::Read)
}

/// The hardline's path entries that refuse a call of `class`, their patterns in lower case.
fn refusing(class: RiskClass) -> impl Iterator<Item = &'static LowerPath> {
    hardline::lower_paths()
        .iter()
        .filter(move |e| !e.entry.ask && e.applies_to(class))
}

/// Whether a text holds a literal piece of a path no tool may read (no case): one that holds none
/// names no such path.
pub(super) fn secret_may(t: &str) -> bool {
    let lookup = fragment_lookup();
    let bytes = t.as_bytes();
    bytes.windows(2).enumerate().any(|(at, pair)| {
        let (Some(&first), Some(&second)) = (pair.first(), pair.get(1)) else {
            return false;
        };
        if !lookup.starts_a_piece(first, second) {
            return false;
        }
        let rest = bytes.get(at..).unwrap_or(&[]);
        let second = second.to_ascii_lowercase();
        lookup
            .by_first
            .get(usize::from(first.to_ascii_lowercase()))
            .is_some_and(|fragments| {
                // Shortest first: the pieces longer than the rest of the text cannot be in it.
                fragments
                    .iter()
                    .take_while(|f| f.len() <= rest.len())
                    .filter(|f| second_byte(f) == second)
                    .any(|f| {
                        rest.get(..f.len())
                            .is_some_and(|piece| piece.eq_ignore_ascii_case(f.as_bytes()))
                    })
            })
    })
}

/// A piece's second byte, in lower case (every piece has one: they are three bytes or more).
fn second_byte(piece: &str) -> u8 {
    piece.as_bytes().get(1).map_or(0, u8::to_ascii_lowercase)
}

/// [`secret_fragments`] arranged for [`secret_may`]: which pairs of bytes (in lower case) start a
/// piece, one bit a pair, and the pieces by their first byte. Every piece is three bytes or more
/// ([`secret_fragments`]), so each starts with a pair. Most of a command's words hold no pair that
/// starts a piece, so most bytes are one bit looked up and nothing compared.
struct FragmentLookup {
    /// Bit `first * 256 + second` is set when a piece starts with those two bytes.
    pairs: Vec<u64>,
    /// The pieces, by their first byte in lower case; each byte's shortest first.
    by_first: Vec<Vec<&'static str>>,
}

impl FragmentLookup {
    /// Whether a piece starts with the bytes `first` and `second` (in any case).
    fn starts_a_piece(&self, first: u8, second: u8) -> bool {
        let bit = usize::from(first.to_ascii_lowercase()) * 256
            + usize::from(second.to_ascii_lowercase());
        self.pairs
            .get(bit / 64)
            .is_some_and(|word| word & (1u64 << (bit % 64)) != 0)
    }
}

/// The lookup of [`secret_fragments`], made once.
fn fragment_lookup() -> &'static FragmentLookup {
    static LOOKUP: std::sync::OnceLock<FragmentLookup> = std::sync::OnceLock::new();
    LOOKUP.get_or_init(|| {
        let mut lookup = FragmentLookup {
            pairs: vec![0; 256 * 256 / 64],
            by_first: vec![Vec::new(); 256],
        };
        for f in secret_fragments() {
            let bytes = f.as_bytes();
            let first = bytes.first().map_or(0, u8::to_ascii_lowercase);
            let second = bytes.get(1).map_or(0, u8::to_ascii_lowercase);
            let bit = usize::from(first) * 256 + usize::from(second);
            if let Some(word) = lookup.pairs.get_mut(bit / 64) {
                *word |= 1u64 << (bit % 64);
            }
            if let Some(group) = lookup.by_first.get_mut(usize::from(first)) {
                group.push(f.as_str());
            }
        }
        // Each byte's pieces shortest first.
        for group in &mut lookup.by_first {
            group.sort_by_key(|f| f.len());
        }
        lookup
    })
}

/// The literal pieces (three characters or more) of the paths no tool may read, in lower case,
/// made once: a word holding none of them names no such path.
pub(super) fn secret_fragments() -> &'static [String] {
    static FRAGMENTS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    FRAGMENTS.get_or_init(|| {
        let mut out: Vec<String> = Vec::new();
        for e in refusing_reads() {
            for p in e.patterns.iter().map(LowerPattern::as_str) {
                // The longest literal piece of the pattern stands for it.
                let longest = p
                    .split(['*', '?', '/'])
                    .max_by_key(|f| f.len())
                    .unwrap_or("");
                if longest.len() >= 3 && !out.iter().any(|f| f == longest) {
                    out.push(longest.to_string());
                }
            }
        }
        out
    })
}

/// The refusing read entry (keys, a process's environment) a glob can name a path of, if any.
pub(super) fn secret_glob(path: &str, home: Option<&str>) -> Option<Hit> {
    let path_tokens = hidden_names_spelled(tokens(&lower(path)));
    let home = home.map(|h| lower(h.trim_end_matches('/')));
    let home = HomeGlob::new(home.as_deref().unwrap_or(SOME_HOME));
    let facts = home.facts(&path_tokens);
    for e in refusing_reads() {
        let found = e
            .patterns
            .iter()
            .any(|p| p.meets_glob(&path_tokens, &home, facts));
        if found {
            return Some(Hit {
                entry: e.entry.id.to_string(),
                reason: e.entry.reason.to_string(),
                part: path.to_string(),
            });
        }
    }
    None
}

impl Walker<'_> {
    /// A folder read whole (`git diff --no-index ~ x`): refused when a path no tool may read is
    /// anywhere under it (the home's keys under `~` or `/home`, a process's environment under
    /// `/proc`). Only entries anchored at a folder count: `*/.ssh/*` names keys wherever they
    /// are, which a folder of the project is not known to hold.
    pub(super) fn secret_tree(&mut self, path: &str) {
        self.protected_tree(path, RiskClass::Read);
    }

    /// A folder read or written whole — read with everything in it, or deleted or moved with
    /// everything in it (`rm -r ~/.config`, `mv ~/.local/state x`): refused when a path the
    /// hardline refuses to a call of `class` is anywhere under it, anchored at a folder as for
    /// [`Walker::secret_tree`].
    pub(super) fn protected_tree(&mut self, path: &str, class: RiskClass) {
        // A glob stands for every path it may name: the folder above its first wildcard holds
        // them all (`~/.conf*` is a folder of `~`).
        let path = match path.find(['*', '?', '[']) {
            Some(at) => path
                .get(..at)
                .and_then(|before| before.rsplit_once('/'))
                .map_or(
                    "/",
                    |(folder, _)| if folder.is_empty() { "/" } else { folder },
                ),
            None => path,
        };
        let folder = lower(path);
        let home = self.place.home.map(|h| lower(h.trim_end_matches('/')));
        // How the folder meets the home a pattern's `~` stands for, found once for every
        // pattern.
        let home_meeting = match &home {
            Some(h) => HomeMeeting::of(h, &folder),
            None if !folder.starts_with('~') => HomeMeeting::of(SOME_HOME, &folder),
            None => HomeMeeting::Unread,
        };
        let under = |e: &LowerPath| {
            e.patterns.iter().any(|p| {
                // The pattern's text before its first wildcard, its `~` as the home: unless it
                // and the folder start alike (one the other's start), nothing it names is
                // under the folder — found without making the anchored pattern.
                let literal = p.literal();
                let p = p.as_str();
                if !home_meeting.starts_alike(literal, &folder) {
                    return false;
                }
                let anchored = match (p.strip_prefix('~'), &home) {
                    (Some(rest), Some(h)) => Cow::Owned(format!("{h}{rest}")),
                    (Some(_), None) if folder.starts_with('~') => Cow::Borrowed(p),
                    (Some(rest), None) => Cow::Owned(format!("{SOME_HOME}{rest}")),
                    (None, _) if p.starts_with('/') => Cow::Borrowed(p),
                    _ => return false,
                };
                may_match_under(&anchored, &folder)
            })
        };
        let hit = |e: &LowerPath| Hit {
            entry: e.entry.id.to_string(),
            reason: e.entry.reason.to_string(),
            part: path.to_string(),
        };
        if let Some(e) = refusing(class).find(|e| under(e)) {
            self.out.hits.push(hit(e));
            return;
        }
        // A folder written whole under which a path the hardline asks before writing lies
        // (`cp -r h/. .githooks/`, `tar -xf h.tar -C ~/.config/autostart`): asked as a write of
        // that path is (and refused where its entry is refused in auto).
        if class == RiskClass::Write {
            let asking = hardline::lower_paths()
                .iter()
                .filter(|e| e.entry.ask && e.applies_to(class));
            // Or the folder is one an entry names anywhere (`*/.husky/*`), at the project's root
            // where it runs (a copy kept elsewhere, `backup/.husky`, runs nothing): what is
            // written into it is.
            let inside = format!("{}/x", folder.trim_end_matches('/'));
            let at_the_root = path
                .trim_end_matches('/')
                .rsplit_once('/')
                .is_some_and(|(parent, _)| parent == self.place.root.trim_end_matches('/'));
            let named_anywhere =
                |e: &LowerPath| at_the_root && e.patterns.iter().any(|p| p.matches(&inside));
            if let Some(e) = asking.into_iter().find(|e| under(e) || named_anywhere(e)) {
                self.out.guarded_trees.push(hit(e));
            }
        }
    }

    /// A folder deleted or moved away whole (`rm -rf "$PWD"`, `rm -rf ..`, `find . -delete`,
    /// `mv ~/proj /tmp`): when it is the project or a folder above it, the project's repository,
    /// `.git`, goes with it — judged as that write.
    pub(super) fn repository_goes_with(&mut self, path: &str) {
        let folder = lower(path.trim_end_matches('/'));
        let root = lower(self.place.root.trim_end_matches('/'));
        let holds_the_root = folder.is_empty()
            || root.as_ref() == folder.as_ref()
            || root.starts_with(&format!("{folder}/"));
        if !holds_the_root {
            return;
        }
        let repository = format!("{}/.git", self.place.root.trim_end_matches('/'));
        match hardline::check_path(
            &repository,
            RiskClass::Write,
            self.place.home,
            self.place.root,
        ) {
            Some(found) if found.ask => self.out.guarded_trees.push(found.hit),
            Some(found) => self.out.hits.push(found.hit),
            None => {}
        }
    }
}

impl Walker<'_> {
    /// A folder a copy or a move makes whole by a name of its own (`cp -r /tmp/s/.git .` makes
    /// `./.git`): refused when a path no tool may write lies under it by the shape of a pattern
    /// that may stand anywhere (`*/.git/hooks/*`) of a `planted` entry: the folder's last names
    /// are its first ones.
    /// (A folder deleted or read whole is judged by [`Walker::protected_tree`] alone: any folder
    /// may hold a repository somewhere below it.)
    /// Whether `folder` is a folder of the home on the way to a path no tool may write, named
    /// from the home (`~/.config` on the way to `~/.config/gh`): one that is there, so a copy
    /// or a move goes into it and does not become it.
    pub(super) fn home_folder_on_the_way(&self, folder: &str) -> bool {
        let Some(home) = self.place.home else {
            return false;
        };
        let folder = lower(folder.trim_end_matches('/'));
        let home = lower(home.trim_end_matches('/'));
        let Some(inside) = folder.strip_prefix(home.as_ref()) else {
            return false;
        };
        if inside.is_empty() {
            return true;
        }
        refusing(RiskClass::Write).any(|e| {
            e.patterns.iter().any(|p| {
                p.as_str()
                    .strip_prefix('~')
                    .and_then(|rest| rest.strip_prefix(inside))
                    .is_some_and(|after| after.starts_with('/'))
            })
        })
    }

    pub(super) fn planted_tree(&mut self, path: &str) {
        let folder = lower(path.trim_end_matches('/'));
        let names: Vec<&str> = folder.split('/').filter(|n| !n.is_empty()).collect();
        for e in refusing(RiskClass::Write).filter(|e| e.entry.planted) {
            let planted = e.patterns.iter().any(|p| {
                let Some(shape) = p.as_str().strip_prefix("*/") else {
                    return false;
                };
                let wanted: Vec<&str> = shape.split('/').collect();
                // The folder's last k names are the pattern's first k, with more to come below.
                (1..wanted.len()).any(|k| {
                    names.len() >= k
                        && names
                            .get(names.len() - k..)
                            .zip(wanted.get(..k))
                            .is_some_and(|(have, want)| {
                                have.iter().zip(want).all(|(name, glob)| {
                                    crate::permission::glob::wildcard_segment(glob, name)
                                })
                            })
                })
            });
            if planted {
                self.out.hits.push(Hit {
                    entry: e.entry.id.to_string(),
                    reason: e.entry.reason.to_string(),
                    part: path.to_string(),
                });
                return;
            }
        }
    }
}

/// Whether `first` then `rest`, as one text, and `other` start alike: one of them starts with
/// the other (what [`HomeMeeting::starts_alike`] finds with the home met once; kept as the
/// tests' reference).
#[cfg(test)]
fn starts_alike(first: &str, rest: &str, other: &str) -> bool {
    if other.len() <= first.len() {
        return first.starts_with(other);
    }
    other
        .strip_prefix(first)
        .is_some_and(|after| one_starts_the_other(rest, after))
}

/// Whether one text starts the other (either may be the longer), the first two bytes compared
/// before a call compares the rest (most part there: `/.ssh` and `/proj`).
fn one_starts_the_other(one: &str, other: &str) -> bool {
    let common = one.len().min(other.len());
    let (one, other) = (one.as_bytes(), other.as_bytes());
    one.iter().zip(other).take(2).all(|(a, b)| a == b) && one.get(..common) == other.get(..common)
}

/// How a folder meets a home (in lower case), for every pattern that starts with `~`: what
/// [`starts_alike`] finds of the home's part of the pattern's text, found once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HomeMeeting<'f> {
    /// The folder is the home or a folder above it: it starts alike with every such pattern.
    Holds,
    /// The folder is under the home: this follows the home in it, compared with what follows
    /// each pattern's `~`.
    After(&'f str),
    /// Neither starts the other: no such pattern starts alike with the folder.
    Parts,
    /// The pattern's `~` stands for no home (the folder is spelled from `~` and the home is not
    /// known): the pattern's text is compared as written.
    Unread,
}

impl<'f> HomeMeeting<'f> {
    fn of(home: &str, folder: &'f str) -> HomeMeeting<'f> {
        if folder.len() <= home.len() {
            return if home.starts_with(folder) {
                HomeMeeting::Holds
            } else {
                HomeMeeting::Parts
            };
        }
        match folder.strip_prefix(home) {
            Some(after) => HomeMeeting::After(after),
            None => HomeMeeting::Parts,
        }
    }

    /// Whether a pattern's text before its first wildcard (`literal`), its `~` read as this
    /// meeting says, and `folder` start alike: what [`starts_alike`] says of them.
    fn starts_alike(self, literal: &str, folder: &str) -> bool {
        match (literal.strip_prefix('~'), self) {
            (Some(_), HomeMeeting::Parts) => false,
            (Some(_), HomeMeeting::Holds) => true,
            (Some(rest), HomeMeeting::After(after)) => one_starts_the_other(rest, after),
            (Some(_), HomeMeeting::Unread) | (None, _) => one_starts_the_other(literal, folder),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A text may name a secret exactly when it holds one of the pieces, letter case aside:
        /// texts made of the pieces' own letters, cut from the pieces and joined, in any case.
        #[test]
        fn a_text_may_name_a_secret_when_it_holds_a_piece(
            picks in proptest::collection::vec((0usize..10_000, 0usize..8, 0usize..8, proptest::bool::ANY), 0..4),
            noise in "[a-zA-Z._/-]{0,6}",
        ) {
            let pieces = secret_fragments();
            let mut text = noise.clone();
            for (which, cut_front, cut_back, upper) in picks {
                let piece = &pieces[which % pieces.len()];
                let end = piece.len().saturating_sub(cut_back % 3);
                let part = piece.get((cut_front % 3).min(end)..end).unwrap_or("");
                text.push_str(&if upper { part.to_ascii_uppercase() } else { part.to_string() });
                text.push_str(&noise);
            }
            let lowered = text.to_ascii_lowercase();
            let holds = pieces.iter().any(|p| lowered.contains(p.as_str()));
            proptest::prop_assert_eq!(secret_may(&text), holds, "{:?}", text);
        }
    }

    #[test]
    fn text_with_a_blank_before_its_first_slash_is_no_path() {
        assert!(super::text_not_path("see ~/.ssh/config"));
        assert!(super::text_not_path("ssh -i ~/.ssh/deploy_key"));
        assert!(!super::text_not_path("~/.ssh/my key"));
        assert!(!super::text_not_path("/home/u/.ssh/id rsa"));
        assert!(!super::text_not_path("my dir/../../.ssh/id_rsa"));
        assert!(!super::text_not_path("../.ssh/id rsa"));
    }

    use super::{secret_fragments, secret_may, starts_alike, HomeMeeting, SOME_HOME};

    #[test]
    fn two_texts_start_alike_when_one_starts_the_other() {
        for (first, rest, other, alike) in [
            ("/home/u", "/.ssh", "/home/u", true),
            ("/home/u", "/.ssh", "/home/u/.ssh/keys", true),
            ("/home/u", "/.ssh", "/home", true),
            ("/home/u", "/.ssh", "/home/u/proj", false),
            ("/home/u", "/.config/gh", "/home/u/.conf", true),
            ("/home/u", "/.config/gh", "/home/v", false),
            ("", "/etc/", "/", true),
            ("", "/etc/", "/usr", false),
            ("", "", "/anything", true),
        ] {
            assert_eq!(
                starts_alike(first, rest, other),
                alike,
                "{first}{rest} {other}"
            );
        }
    }

    /// The home met once gives what comparing each pattern's text with the home spelled out
    /// gives: for every pattern, homes known and not, and folders above, at, under and beside
    /// the home.
    #[test]
    fn the_home_met_once_is_each_pattern_s_answer() {
        let folders = [
            "/",
            "/home",
            "/home/u",
            "/home/u/.ssh",
            "/home/u/.ssh/keys",
            "/home/u/proj",
            "/home/u/.config",
            "/home/u/.conf",
            "/home/v",
            "/etc",
            "/etc/ssh",
            "/proc/1",
            "~",
            "~/.ssh",
            "~/proj",
            "",
            "/home/uu",
        ];
        let mut alike = 0;
        for home in [Some("/home/u"), None] {
            for folder in folders {
                let meeting = match home {
                    Some(h) => HomeMeeting::of(h, folder),
                    None if !folder.starts_with('~') => HomeMeeting::of(SOME_HOME, folder),
                    None => HomeMeeting::Unread,
                };
                for e in crate::permission::hardline::lower_paths() {
                    for p in &e.patterns {
                        let literal = p.literal();
                        let (first, rest) = match (literal.strip_prefix('~'), home) {
                            (Some(rest), Some(h)) => (h, rest),
                            (Some(rest), None) if !folder.starts_with('~') => (SOME_HOME, rest),
                            _ => ("", literal),
                        };
                        let whole = starts_alike(first, rest, folder);
                        assert_eq!(
                            meeting.starts_alike(literal, folder),
                            whole,
                            "{literal} and {folder} (home {home:?})"
                        );
                        alike += usize::from(whole);
                    }
                }
            }
        }
        assert!(
            alike > 100,
            "only {alike} alike: the folders meet too few patterns"
        );
    }

    /// Every variable of `variable_paths` names, when not set, a path no tool may read or a
    /// folder holding one (an entry that names none would refuse nothing).
    #[test]
    fn each_variable_path_is_or_holds_a_secret() {
        let paths = &crate::spec::spec().hardline.plain.variable_paths;
        assert!(paths.keys().count() > 10);
        for (name, path) in paths.iter() {
            let home = "/home/u";
            let abs = format!("{home}{}", path.strip_prefix('~').unwrap_or(path));
            let refused = hardline::check_path(&abs, RiskClass::Read, Some(home), "/home/u/p")
                .is_some_and(|f| !f.ask);
            let folder = format!("{}/", path.to_lowercase());
            let holds_one = refusing_reads()
                .flat_map(|e| e.entry.patterns.iter())
                .any(|p| p.to_lowercase().starts_with(&folder) || path == "~");
            assert!(refused || holds_one, "{name}: {path}");
        }
    }

    /// What a scan of every piece at every place finds, for texts made of the pieces themselves
    /// (whole, cut, in other letter cases, inside other text) and of other words.
    #[test]
    fn finds_what_a_scan_of_every_piece_finds() {
        let scan = |t: &str| {
            secret_fragments().iter().any(|f| {
                t.as_bytes()
                    .windows(f.len())
                    .any(|w| w.eq_ignore_ascii_case(f.as_bytes()))
            })
        };
        let mut texts: Vec<String> = vec![
            String::new(),
            "git".into(),
            "push origin main".into(),
            "é/ü~".into(),
            "ǅx".into(),
        ];
        for f in secret_fragments() {
            texts.push(f.clone());
            texts.push(f.to_uppercase());
            texts.push(format!("x/{f}/y"));
            texts.push(format!("~/{}", f.to_ascii_uppercase()));
            for cut in 1..f.len() {
                if let (Some(head), Some(tail)) = (f.get(..cut), f.get(cut..)) {
                    texts.push(head.to_string());
                    texts.push(tail.to_string());
                    texts.push(format!("{head}-{tail}"));
                }
            }
        }
        let mut found = 0;
        for t in &texts {
            assert_eq!(secret_may(t), scan(t), "{t:?}");
            found += usize::from(scan(t));
        }
        assert!(
            found > secret_fragments().len(),
            "the texts hold pieces to find"
        );
        assert!(found < texts.len(), "and texts that hold none");
    }

    #[test]
    fn input_names_are_found_as_a_scan_finds_them() {
        let names = InputNames::get();
        let mut words: Vec<String> = names.names.iter().map(|(n, _)| n.to_string()).collect();
        for name in words.clone() {
            words.push(format!("{name}x"));
            words.push(name.get(1..).unwrap_or("").to_string());
            words.push(name.to_uppercase());
        }
        words.extend(["git", "push", "", "p", "x".repeat(70).as_str()].map(String::from));
        let mut found = 0;
        for word in &words {
            let scanned = names
                .names
                .iter()
                .find(|(known, _)| *known == word.as_str())
                .map(|(_, options)| *options);
            assert_eq!(names.options(word), scanned, "{word:?}");
            found += usize::from(scanned.is_some());
        }
        assert!(found >= 4, "xargs, read, tar, cpio are among them");
        assert!(found < words.len(), "and other words are not");
    }

    #[test]
    fn backslashes_are_read_as_xargs_and_tar_read_them() {
        for (text, wanted) in [
            ("/home/u/.s\\sh/id_rsa", "/home/u/.ssh/id_rsa"),
            ("/home/u/\\056ssh", "/home/u/.ssh"),
            ("/home/u/\\x2essh", "/home/u/.ssh"),
            ("/home/u/\\0056ssh", "/home/u/.ssh"),
            ("/home/u/.s''sh", "/home/u/.ssh"),
            ("/home/u/.s\"\"sh", "/home/u/.ssh"),
            ("a\\nb", "a b"),
        ] {
            assert!(
                unescaped(text).iter().any(|t| t == wanted),
                "{text}: {:?}",
                unescaped(text)
            );
        }
        assert_eq!(unescaped("plain"), ["plain", "plain"]);
    }
}
