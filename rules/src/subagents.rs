//! Which model a subagent runs on, and when subagents are offered (subagents.md §2–§4, spec
//! 3.3.0; the rules the spec pack's README restates from the cases).
//!
//! - No model given, or the session's own: the session's — unless it serves one request at a time
//!   (`parallel: 1`): refused, and nothing else is picked.
//! - Another model only when the person named it in this session ([`names`]): refused when not
//!   named; refused when it is on the session model's one-model server (the same `group`);
//!   otherwise allowed, whatever its own capacity.
//! - Offered when subagents are enabled and the session's model serves more than one request at a
//!   time (`own`), or some other model is not on its one-model server.

use crate::input::{self, InputError, Obj};
use crate::json::{Fields, Json, Keys, ToJson};
use crate::schema::{Field, Shape};
use crate::spec::loop_spec;
use crate::text::fill;
use serde_json::Value;

/// What a model's server can do at once (models/schema.json `capacity`; `{}`: no limit).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capacity {
    /// Its one-model server: the models of a group share one server that holds one at a time.
    pub group: Option<String>,
    /// Requests it serves at once; none: no limit.
    pub parallel: Option<u64>,
}

impl ToJson for Capacity {
    /// What is not set is left out.
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        Fields::of(out, keys)
            .with_some("group", &self.group)
            .with_some("parallel", &self.parallel)
            .done()
    }
}

impl Capacity {
    /// A capacity as the spec writes it (`{ group?, parallel? }`), read at `path`.
    pub fn from_json(path: &str, value: &Value) -> Result<Capacity, InputError> {
        let o = Obj::new(path, value)?;
        o.only(&["group", "parallel"])?;
        let parallel = o.opt_count("parallel")?;
        if parallel == Some(0) {
            return Err(InputError::Invalid {
                path: o.at("parallel"),
                message: "0 requests at once serves nobody".into(),
            });
        }
        Ok(Capacity {
            group: o.opt_str("group")?.map(str::to_string),
            parallel,
        })
    }

    /// The shape [`Capacity::from_json`] reads.
    pub fn shape() -> Shape {
        Shape::Object(vec![
            Field::optional(
                "group",
                Shape::Text,
                "Its one-model server: the models of a group share one server that holds one at a time.",
            ),
            Field::optional(
                "parallel",
                Shape::Positive,
                "Requests it serves at once; absent: no limit.",
            ),
        ])
    }

    /// It serves one request at a time.
    pub fn one_at_a_time(&self) -> bool {
        self.parallel == Some(1)
    }
}

/// A model the person may use: its served id is the key it is listed under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    /// Its served id (`box/coder-30b`).
    pub served: String,
    /// Its id at its connection (`coder-30b`).
    pub id: String,
    /// Its display name (`Coder 30B`).
    pub name: String,
    /// How many requests it serves at once, and its one-model server group.
    pub capacity: Capacity,
}

/// The person's models, in the order given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Models(pub Vec<Model>);

impl Models {
    /// Reads `{ "<served id>": { id, name, capacity } }`.
    pub fn from_json(path: &str, value: &Value) -> Result<Models, InputError> {
        let Value::Object(map) = value else {
            return Err(InputError::Type {
                path: path.to_string(),
                expected: "an object of models by served id",
            });
        };
        let mut out = Vec::new();
        for (served, v) in map {
            let p = input::join(path, served);
            let o = Obj::new(&p, v)?;
            o.only(&["id", "name", "capacity"])?;
            let id = o
                .opt_str("id")?
                .unwrap_or_else(|| served.rsplit('/').next().unwrap_or(served));
            let capacity = match o.get("capacity") {
                Some(c) => Capacity::from_json(&o.at("capacity"), c)?,
                None => Capacity::default(),
            };
            out.push(Model {
                served: served.clone(),
                id: id.to_string(),
                name: o.opt_str("name")?.unwrap_or(id).to_string(),
                capacity,
            });
        }
        Ok(Models(out))
    }

    /// The shape [`Models::from_json`] reads.
    pub fn shape() -> Shape {
        Shape::Map {
            key: "a model's served id (box/coder-30b)",
            value: Box::new(Shape::Object(vec![
                Field::optional(
                    "id",
                    Shape::Text,
                    "Its id at its connection (default: the served id's last part).",
                ),
                Field::optional("name", Shape::Text, "Its display name (default: its id)."),
                Field::optional(
                    "capacity",
                    Capacity::shape(),
                    "What its server can do at once ({}: no limit).",
                ),
            ])),
        }
    }

    /// The model whose served id is `served`.
    pub fn get(&self, served: &str) -> Option<&Model> {
        self.0.iter().find(|m| m.served == served)
    }

    /// The model a call names in `model`: by served id, by id, or by display name (letter case and
    /// runs of white space aside).
    pub fn find(&self, model: &str) -> Option<&Model> {
        self.get(model)
            .or_else(|| {
                self.0
                    .iter()
                    .find(|m| case_folded(&m.served) == case_folded(model))
            })
            .or_else(|| {
                self.0
                    .iter()
                    .find(|m| case_folded(&m.id) == case_folded(model))
            })
            .or_else(|| self.0.iter().find(|m| same_words(&m.name, model)))
    }
}

fn same_words(a: &str, b: &str) -> bool {
    let a: Vec<String> = a.split_whitespace().map(case_folded).collect();
    let b: Vec<String> = b.split_whitespace().map(case_folded).collect();
    !a.is_empty() && a == b
}

/// A character with its letter case set aside: lower-cased, and a final sigma `ς` as `σ` — the
/// one letter whose lower case depends on where it stands, so `ΟΔΟΣ` names `οδος` (as a
/// comparison without letter case in JavaScript has it).
fn case_folded_char(c: char) -> impl Iterator<Item = char> {
    c.to_lowercase().map(|l| if l == 'ς' { 'σ' } else { l })
}

/// A text with its letter case set aside, character by character ([`case_folded_char`]).
fn case_folded(s: &str) -> String {
    s.chars().flat_map(case_folded_char).collect()
}

fn word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '/')
}

/// Whether `text` has `needle` at `start..end` (char indices) standing as a whole word: the
/// characters around it are not letters, digits, `-`, `_` or `/`, and not a `.` or `:` joining it
/// to a letter or digit on the other side.
fn whole_word(text: &[char], start: usize, end: usize) -> bool {
    let before = start.checked_sub(1).and_then(|i| text.get(i)).copied();
    let before2 = start.checked_sub(2).and_then(|i| text.get(i)).copied();
    let after = text.get(end).copied();
    let after2 = text.get(end + 1).copied();
    let joined = |sep: Option<char>, beyond: Option<char>| {
        matches!(sep, Some('.' | ':')) && beyond.is_some_and(char::is_alphanumeric)
    };
    !before.is_some_and(word_char)
        && !after.is_some_and(word_char)
        && !joined(before, before2)
        && !joined(after, after2)
}

/// Lower-cased characters; any run of white space as one `' '` when `fold_space`.
fn folded(s: &str, fold_space: bool) -> (Vec<char>, Vec<usize>) {
    // The characters, and for each the index of the original character it came from.
    let mut out = Vec::new();
    let mut at = Vec::new();
    let mut in_space = false;
    for (i, c) in s.chars().enumerate() {
        if fold_space && c.is_whitespace() {
            if !in_space {
                out.push(' ');
                at.push(i);
            }
            in_space = true;
            continue;
        }
        in_space = false;
        for l in case_folded_char(c) {
            out.push(l);
            at.push(i);
        }
    }
    (out, at)
}

/// Whether `text` names `needle` as a whole word, letter case aside; in a display name
/// (`fold_space`) any run of white space matches any run of white space.
fn names_word(text: &str, needle: &str, fold_space: bool) -> bool {
    let (n, _) = folded(needle.trim(), fold_space);
    if n.is_empty() {
        return false;
    }
    let original: Vec<char> = text.chars().collect();
    let (t, at) = folded(text, fold_space);
    (0..t.len()).any(|i| {
        t.get(i..i + n.len()).is_some_and(|w| w == n.as_slice()) && {
            // The needle is trimmed, so its last character is not a folded space run.
            let start = at.get(i).copied().unwrap_or(0);
            let end = at
                .get(i + n.len() - 1)
                .map_or(original.len(), |last| last + 1);
            whole_word(&original, start, end)
        }
    })
}

/// Whether the person named `model` in `text`: by its served id, its id or its display name.
pub fn names(text: &str, model: &Model) -> bool {
    names_word(text, &model.served, false)
        || names_word(text, &model.id, false)
        || names_word(text, &model.name, true)
}

/// Why a subagent cannot run on the model asked for (§2–§4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelRefusal {
    /// No model of the list is the one named (`unknown_model`).
    UnknownModel {
        /// The name given.
        model: String,
    },
    /// The session's model serves one request at a time (`one_request`).
    OneRequest,
    /// The person did not name the model (`not_named`).
    NotNamed,
    /// The model is on the session model's one-model server (`same_server`).
    SameServer,
}

impl ModelRefusal {
    /// The refusal's text, word for word (`loop.json` `subagents.texts`).
    pub fn text(&self) -> String {
        let texts = &loop_spec().subagents.texts;
        match self {
            ModelRefusal::UnknownModel { model } => fill(&texts.unknown_model, &[("model", model)]),
            ModelRefusal::OneRequest => texts.one_request.to_string(),
            ModelRefusal::NotNamed => texts.not_named.to_string(),
            ModelRefusal::SameServer => texts.same_server.to_string(),
        }
    }
}

/// Which model a subagent runs on: its served id, or the refusal. `said` are the person's
/// messages of this session (oldest first); nothing else names a model.
pub fn subagent_model(
    session: &Model,
    models: &Models,
    said: &[&str],
    model: Option<&str>,
) -> Result<String, ModelRefusal> {
    let chosen = match model {
        None => session,
        Some(m) => models.find(m).ok_or_else(|| ModelRefusal::UnknownModel {
            model: m.to_string(),
        })?,
    };
    if chosen.served == session.served {
        if session.capacity.one_at_a_time() {
            return Err(ModelRefusal::OneRequest);
        }
        return Ok(session.served.clone());
    }
    if !said.iter().any(|s| names(s, chosen)) {
        return Err(ModelRefusal::NotNamed);
    }
    if same_server(session, chosen) {
        return Err(ModelRefusal::SameServer);
    }
    Ok(chosen.served.clone())
}

/// Whether `other` is on `session`'s one-model server (the same group).
fn same_server(session: &Model, other: &Model) -> bool {
    matches!((&session.capacity.group, &other.capacity.group), (Some(a), Some(b)) if a == b)
}

/// Whether subagents are offered, whether the session's model serves its own, and the note that
/// says it cannot (`context.note.team_own`, only where they are offered).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    /// Whether subagents are offered at all.
    pub offered: bool,
    /// Whether the session's model can serve its own subagents.
    pub own: bool,
    /// The note that says it cannot, where they are offered (`context.note.team_own`).
    pub note: Option<String>,
}

impl ToJson for Model {
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        Fields::of(out, keys)
            .with("served", &self.served)
            .with("id", &self.id)
            .with("name", &self.name)
            .with("capacity", &self.capacity)
            .done()
    }
}

impl ToJson for Offer {
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        Fields::of(out, keys)
            .with("offered", self.offered)
            .with("own", self.own)
            .with("note", &self.note)
            .done()
    }
}

serialize_as_json!(Capacity, Model, Offer);

/// When subagents are offered (subagents.md §4).
pub fn offer(session: &Model, models: &Models, enabled: bool) -> Offer {
    let own = !session.capacity.one_at_a_time();
    let other = models
        .0
        .iter()
        .any(|m| m.served != session.served && !same_server(session, m));
    let offered = enabled && (own || other);
    Offer {
        offered,
        own,
        note: (offered && !own).then(|| loop_spec().context.note.team_own.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coder() -> Model {
        Model {
            served: "box/coder-30b".into(),
            id: "coder-30b".into(),
            name: "Coder 30B".into(),
            capacity: Capacity {
                group: None,
                parallel: Some(1),
            },
        }
    }

    #[test]
    fn a_model_is_named_as_a_whole_word() {
        let m = coder();
        for yes in [
            "Run it on coder-30b.",
            "coder-30b: go",
            "use box/coder-30b",
            "CODER 30B please",
            "coder\n  30b",
            "(coder-30b)",
            "coder-30b",
        ] {
            assert!(names(yes, &m), "{yes}");
        }
        for no in [
            "coder-30b-instruct",
            "coder-30b:q4",
            "coder-30b.gguf",
            "xcoder-30b",
            "mycoder 30b",
            "coder 30bx",
            "a.coder-30b",
            "coder30b",
        ] {
            assert!(!names(no, &m), "{no}");
        }
    }

    #[test]
    fn a_final_sigma_is_the_same_letter_as_any_other_sigma() {
        let m = Model {
            served: "x/m".into(),
            id: "m7".into(),
            name: "ΟΔΟΣ 7B".into(),
            capacity: Capacity::default(),
        };
        assert!(names("run it on οδος 7b", &m));
        assert!(names("run it on οδοσ 7b", &m));
        assert!(names("ΟΔΟΣ 7B", &m));
        assert!(Models(vec![m.clone()]).find("οδος 7b").is_some());
        assert!(!names("οδο 7b", &m));
    }

    #[test]
    fn a_model_argument_is_found_by_any_of_its_names() {
        let models = Models(vec![coder()]);
        assert!(models.find("box/coder-30b").is_some());
        assert!(models.find("coder-30b").is_some());
        assert!(models.find("coder  30b").is_some());
        assert!(models.find("coder").is_none());
    }
}
