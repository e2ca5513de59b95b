//! The case format as data: each type the conformance runner reads describes its own shape
//! ([`Shape`], beside its reader: `Request::shape`, `Progress::shape`, `TeamStep::shape`, …), and
//! this module writes those shapes as JSON Schemas (draft 2020-12): one per area — a case file of
//! that area — and one for any case file (conformance/README.md).
//!
//! A shape says what its reader accepts, no more and no less: a field the reader reads with `get`
//! takes `null` as absent, so an optional field's schema allows `null` too; an object the reader
//! checks with `only` is closed. The schemas are checked against the readers in this module's
//! tests: every case of `conformance/` validates, and every case mutated (a field removed, a field
//! of the wrong type, a field too many, a word no list has, a field set to `null`) is refused by
//! both, with the same field named. Two things a schema cannot say: a team tool's arguments,
//! which only the tool judges (described, never refused), and a whole number written `1.0`, which
//! JSON Schema counts as an integer and the readers refuse.

mod write;

#[cfg(test)]
mod tests;

use crate::conformance::Area;
use serde_json::Value;

/// What a JSON value of the case format may be.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// Any string.
    Text,
    /// A whole number (`i64`).
    Integer,
    /// A whole number of at least 0.
    Count,
    /// A whole number of at least 1.
    Positive,
    /// Any number.
    Number,
    /// `true` or `false`.
    Bool,
    /// One of a fixed list of words (a mode, a phase, an op).
    Word {
        /// What kind of word it is, for people (`mode`).
        what: &'static str,
        /// The words, in their list's order.
        words: Vec<String>,
    },
    /// Any string, with the words an editor offers for it (a tool's name: another tool may be
    /// given too).
    Suggested {
        /// What kind of word it is, for people (`tool`).
        what: &'static str,
        /// The words offered.
        words: Vec<String>,
    },
    /// An array whose items each have a shape.
    List(Box<Shape>),
    /// An object with these fields and no others.
    Object(Vec<Field>),
    /// An object of some of these fields and no others, at least one (a case's `expect`: it
    /// names what it compares, and an empty one compares nothing).
    Named(Vec<Field>),
    /// An object of any keys, each value of one shape (`{ "<served id>": model }`).
    Map {
        /// What a key is, for people (`a model's served id`).
        key: &'static str,
        /// The shape of each value.
        value: Box<Shape>,
    },
    /// An object whose fields depend on the word of one of them (`op`, `phase`).
    Variants(Variants),
    /// `null`.
    Null,
    /// Anything at all.
    Any,
    /// A JSON Schema the spec data holds as it is (a tool's `parameters`).
    Written(Value),
}

/// A field of an object.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Its key.
    pub name: String,
    /// Its value's shape.
    pub shape: Shape,
    /// Whether the object must have it (an optional field may also be `null`).
    pub required: bool,
    /// What it is, in a sentence (the editor's hover).
    pub doc: String,
    /// An optional field that must be there when another field of the object has a word.
    pub required_when: Option<Condition>,
    /// The shape it has besides, by another field's word (a call's `args` by its `tool`).
    pub shaped_by: Option<ShapedBy>,
}

/// A field's shape by the word of another field of the same object.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapedBy {
    /// The other field.
    pub field: String,
    /// Each word with the shape it gives.
    pub shapes: Vec<(String, Shape)>,
}

/// Another field of the same object having one word.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    /// The other field.
    pub field: String,
    /// Its word.
    pub word: String,
}

impl Field {
    /// A field the object must have.
    pub fn required(name: &str, shape: Shape, doc: &str) -> Field {
        Field {
            name: name.to_string(),
            shape,
            required: true,
            doc: doc.to_string(),
            required_when: None,
            shaped_by: None,
        }
    }

    /// A field the object may have.
    pub fn optional(name: &str, shape: Shape, doc: &str) -> Field {
        Field {
            required: false,
            ..Field::required(name, shape, doc)
        }
    }

    /// The field, shaped besides by `field`'s word: `shapes` names each word's shape.
    pub fn shaped_by(mut self, field: &str, shapes: Vec<(String, Shape)>) -> Field {
        self.shaped_by = Some(ShapedBy {
            field: field.to_string(),
            shapes,
        });
        self
    }

    /// The field, required when `field` is `word` (bash's `line`).
    pub fn required_when(mut self, field: &str, word: &str) -> Field {
        self.required_when = Some(Condition {
            field: field.to_string(),
            word: word.to_string(),
        });
        self
    }
}

/// An object whose fields depend on the word of its `key` field.
#[derive(Debug, Clone, PartialEq)]
pub struct Variants {
    /// The field whose word picks the variant (`op`).
    pub key: String,
    /// What the key is, for people.
    pub key_doc: String,
    /// The variant taken when the key is absent; none: the key must be there.
    pub default: Option<String>,
    /// Fields every variant has.
    pub common: Vec<Field>,
    /// The variants, in their list's order.
    pub variants: Vec<Variant>,
}

/// One variant of a [`Variants`] object.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    /// Its key's word (`call`).
    pub word: String,
    /// What it is, in a sentence.
    pub doc: String,
    /// Its own fields, besides the common ones.
    pub fields: Vec<Field>,
}

impl Shape {
    /// One of `words`, a kind of word named `what`.
    pub fn word(what: &'static str, words: &[&str]) -> Shape {
        Shape::Word {
            what,
            words: words.iter().map(|w| (*w).to_string()).collect(),
        }
    }

    /// An array of items of `item`'s shape.
    pub fn list(item: Shape) -> Shape {
        Shape::List(Box::new(item))
    }
}

/// The JSON Schema of a case file of `area`: `{ area?, about, cases: [case] }`, its case shape
/// under `$defs.case`.
pub fn area_schema(area: Area) -> Value {
    write::file_schema(Some(area))
}

/// The JSON Schema of any case file: its `area` picks its cases' shape; a file without one (its
/// area its file's name) has cases of any area.
pub fn case_file_schema() -> Value {
    write::file_schema(None)
}

/// The shape of one case of `area`.
pub fn case_shape(area: Area) -> Shape {
    crate::conformance::case_shape(area)
}
