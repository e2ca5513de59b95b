//! The rules' answers as JSON values: one writer per type ([`ToJson`]). serde's `Serialize` of
//! each of these types is that writer too (`serialize_as_json!`), so the npm package's answers,
//! the conformance runner's actual values and the harness's events are written by one piece of
//! code each — and the `.wasm` holds no generic serde serializer for them (derived ones were
//! 18 KB of it). Keys are snake_case as the spec writes them; the npm API turns them to camelCase.

use serde_json::{Map, Value};

/// A value as the spec's JSON writes it.
pub trait ToJson {
    fn to_json(&self) -> Value;
}

impl ToJson for str {
    fn to_json(&self) -> Value {
        Value::String(self.to_string())
    }
}

impl ToJson for String {
    fn to_json(&self) -> Value {
        Value::String(self.clone())
    }
}

impl ToJson for Value {
    fn to_json(&self) -> Value {
        self.clone()
    }
}

macro_rules! to_json_number {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn to_json(&self) -> Value {
                Value::from(*self)
            }
        }
    )*};
}
to_json_number!(bool, u32, u64, i64, usize, f64);

impl<T: ToJson> ToJson for Option<T> {
    fn to_json(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToJson::to_json)
    }
}

impl<T: ToJson> ToJson for [T] {
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(ToJson::to_json).collect())
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn to_json(&self) -> Value {
        self.as_slice().to_json()
    }
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn to_json(&self) -> Value {
        (**self).to_json()
    }
}

/// A JSON object written field by field.
#[derive(Debug, Default)]
pub struct Object(Map<String, Value>);

impl Object {
    pub fn new() -> Object {
        Object(Map::new())
    }

    /// `key: value`.
    pub fn with(mut self, key: &str, value: impl ToJson) -> Object {
        self.0.insert(key.to_string(), value.to_json());
        self
    }

    /// `key: value`, the value moved in.
    pub fn with_value(mut self, key: &str, value: Value) -> Object {
        self.0.insert(key.to_string(), value);
        self
    }

    /// `key: value` when there is a value; no key otherwise.
    pub fn with_some<T: ToJson>(self, key: &str, value: &Option<T>) -> Object {
        match value {
            Some(v) => self.with(key, v),
            None => self,
        }
    }

    /// Every key of `object` (an object value), as if written here.
    pub fn with_all(mut self, object: Value) -> Object {
        if let Value::Object(m) = object {
            self.0.extend(m);
        }
        self
    }

    pub fn done(self) -> Value {
        Value::Object(self.0)
    }
}

/// A JSON object from pairs, keys sorted (the conformance areas write their actual values so).
pub fn object<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    object_of(pairs.into_iter().map(|(k, v)| (k.to_string(), v)))
}

/// A JSON object from pairs, inserted one by one: collecting into a map sorts the pairs first,
/// and that sort is 6 KB of the `.wasm` for nothing.
pub fn object_of(pairs: impl IntoIterator<Item = (String, Value)>) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k, v);
    }
    Value::Object(m)
}

/// `Serialize` for types with a [`ToJson`]: the value it writes.
#[macro_export]
macro_rules! serialize_as_json {
    ($($t:ty),* $(,)?) => {$(
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                serde::Serialize::serialize(&$crate::json::ToJson::to_json(self), s)
            }
        }
    )*};
}

/// `as_str`, `parse`, [`ToJson`] and `Serialize` of an enum of words (the spec's names for its
/// values): each word written once.
#[macro_export]
macro_rules! words {
    ($t:ty { $($v:ident => $w:literal),* $(,)? }) => {
        impl $t {
            /// The spec's word for it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(<$t>::$v => $w),*
                }
            }

            /// The value a word names, if it names one.
            pub fn parse(word: &str) -> Option<$t> {
                match word {
                    $($w => Some(<$t>::$v),)*
                    _ => None,
                }
            }
        }

        impl $crate::json::ToJson for $t {
            fn to_json(&self) -> serde_json::Value {
                serde_json::Value::from(self.as_str())
            }
        }

        $crate::serialize_as_json!($t);
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delegation::Answer;
    use crate::permission::{evaluate, Context, Mode, Request};
    use serde_json::json;

    #[test]
    fn an_object_is_written_field_by_field_and_leaves_out_what_is_not_there() {
        let none: Option<u64> = None;
        let v = Object::new()
            .with("a", 1u64)
            .with_some("b", &none)
            .with_some("c", &Some("x"))
            .with("d", none)
            .with_value("e", json!([true]))
            .with_all(json!({"f": 2, "a": 3}))
            .done();
        assert_eq!(v, json!({"a": 3, "c": "x", "d": null, "e": [true], "f": 2}));
    }

    #[test]
    fn a_word_reads_back_what_it_writes() {
        for mode in Mode::ALL {
            assert_eq!(Mode::parse(mode.as_str()), Some(mode));
        }
        assert_eq!(Answer::parse("person"), Some(Answer::Person));
        assert_eq!(Mode::parse("Auto"), None);
        assert_eq!(Mode::parse(""), None);
    }

    #[test]
    fn serialize_writes_what_to_json_writes() {
        let request =
            Request::from_json("r", &json!({"tool": "bash", "line": "git push"})).unwrap();
        let context = Context::from_json("c", &json!({"mode": "edit"})).unwrap();
        let decision = evaluate(&request, &context);
        let written = decision.to_json();
        assert_eq!(written["decided_by"]["by"], "mode");
        assert_eq!(serde_json::to_value(&decision).unwrap(), written);
        assert_eq!(
            serde_json::to_value(Answer::Refused).unwrap(),
            json!("refused")
        );
        assert_eq!(Mode::Plan.to_json(), json!("plan"));
    }
}
