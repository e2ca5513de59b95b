//! The rules' answers as JSON values: one writer per type ([`ToJson`]). serde's `Serialize` of
//! each of these types is that writer too (`serialize_as_json!`), so the npm package's answers,
//! the conformance runner's actual values and the harness's events are written by one piece of
//! code each — and the `.wasm` holds no generic serde serializer for them (derived ones were
//! 18 KB of it). Keys are written snake_case as the spec writes them, and spelled when written:
//! snake_case for the spec's cases and the harness, camelCase for the npm API ([`Keys`]), with no
//! second pass over an answer.

use serde_json::{Map, Value};

/// Reads a JSON text as serde_json does, except that an object holding one key twice is an
/// error naming the key (and, through serde_json, where it is): a case file or an argument is
/// never read with one of its values silently dropped.
pub fn parse_strict(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let Strict(value) = serde::Deserialize::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// A JSON value read with duplicate keys refused.
struct Strict(Value);

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            // One search of the map for the key: its place, or the key already there.
            match out.entry(key) {
                serde_json::map::Entry::Occupied(taken) => {
                    return Err(serde::de::Error::custom(format!(
                        "duplicate key \"{}\"",
                        taken.key()
                    )));
                }
                serde_json::map::Entry::Vacant(place) => {
                    let Strict(v) = map.next_value()?;
                    place.insert(v);
                }
            }
        }
        Ok(Value::Object(out))
    }
}

/// How a JSON object's keys are spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keys {
    /// snake_case, as the spec and its cases write them.
    Snake,
    /// camelCase, as the npm package answers JavaScript.
    Camel,
}

impl Keys {
    /// `key` (written snake_case) spelled so.
    pub fn spell(self, key: &str) -> String {
        match self {
            Keys::Snake => key.to_string(),
            Keys::Camel => camel(key),
        }
    }

    /// A value from elsewhere (a case's own, a whole object) with its keys spelled so.
    pub fn respell(self, value: Value) -> Value {
        match self {
            Keys::Snake => value,
            Keys::Camel => camel_keys(value),
        }
    }
}

/// A value as the spec's JSON writes it.
pub trait ToJson {
    /// The value as JSON, its keys spelled `keys`: each key written once, in the spelling asked
    /// for (no second pass over the value).
    fn write_json(&self, keys: Keys) -> Value;

    /// The value as JSON, its keys snake_case as the spec writes them.
    fn to_json(&self) -> Value {
        self.write_json(Keys::Snake)
    }
}

impl ToJson for str {
    fn write_json(&self, _keys: Keys) -> Value {
        Value::String(self.to_string())
    }
}

impl ToJson for String {
    fn write_json(&self, _keys: Keys) -> Value {
        Value::String(self.clone())
    }
}

impl ToJson for Value {
    fn write_json(&self, keys: Keys) -> Value {
        keys.respell(self.clone())
    }
}

macro_rules! to_json_number {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn write_json(&self, _keys: Keys) -> Value {
                Value::from(*self)
            }
        }
    )*};
}
to_json_number!(bool, u32, u64, i64, usize, f64);

impl<T: ToJson> ToJson for Option<T> {
    fn write_json(&self, keys: Keys) -> Value {
        self.as_ref().map_or(Value::Null, |v| v.write_json(keys))
    }
}

impl<T: ToJson> ToJson for [T] {
    fn write_json(&self, keys: Keys) -> Value {
        Value::Array(self.iter().map(|v| v.write_json(keys)).collect())
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn write_json(&self, keys: Keys) -> Value {
        self.as_slice().write_json(keys)
    }
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn write_json(&self, keys: Keys) -> Value {
        (**self).write_json(keys)
    }
}

/// A JSON object written field by field, its keys (written snake_case) spelled as asked.
#[derive(Debug)]
pub struct Object {
    map: Map<String, Value>,
    keys: Keys,
}

impl Default for Object {
    fn default() -> Object {
        Object::new()
    }
}

impl Object {
    /// An empty object, its keys snake_case.
    pub fn new() -> Object {
        Object::keyed(Keys::Snake)
    }

    /// An empty object, its keys (and its values' keys) spelled `keys`.
    pub fn keyed(keys: Keys) -> Object {
        Object {
            map: Map::new(),
            keys,
        }
    }

    /// `key: value`.
    pub fn with(self, key: &str, value: impl ToJson) -> Object {
        let value = value.write_json(self.keys);
        self.put(key, value)
    }

    /// `key`, spelled, with a value already written in this object's spelling: one copy of the
    /// code for every type [`Object::with`] writes.
    #[inline(never)]
    fn put(mut self, key: &str, value: Value) -> Object {
        self.map.insert(self.keys.spell(key), value);
        self
    }

    /// `key: value`, the value moved in (its keys spelled as this object's).
    pub fn with_value(mut self, key: &str, value: Value) -> Object {
        self.map
            .insert(self.keys.spell(key), self.keys.respell(value));
        self
    }

    /// `key: value` when there is a value; no key otherwise.
    pub fn with_some<T: ToJson>(self, key: &str, value: &Option<T>) -> Object {
        match value {
            Some(v) => self.with(key, v),
            None => self,
        }
    }

    /// Every key of `object` (an object value), as if written here: its keys spelled as this
    /// object's, whatever spelling it was written in.
    pub fn with_all(mut self, object: Value) -> Object {
        if let Value::Object(m) = self.keys.respell(object) {
            self.map.extend(m);
        }
        self
    }

    /// The object as a JSON value.
    pub fn done(self) -> Value {
        Value::Object(self.map)
    }
}

/// `snake_case` → `camelCase` (the keys are ASCII: no Unicode case tables for them).
pub fn camel(key: &str) -> String {
    // Most keys are one word: nothing to change.
    if !key.contains('_') {
        return key.to_string();
    }
    let mut out = String::with_capacity(key.len());
    let mut up = false;
    for c in key.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.push(c.to_ascii_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The value with every object key in camelCase (values untouched).
pub fn camel_keys(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            crate::json::object_of(m.into_iter().map(|(k, v)| (camel(&k), camel_keys(v))))
        }
        Value::Array(a) => Value::Array(a.into_iter().map(camel_keys).collect()),
        other => other,
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
            /// Every word, in the order they are listed.
            pub const WORDS: &'static [&'static str] = &[$($w),*];

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
            fn write_json(&self, _keys: $crate::json::Keys) -> serde_json::Value {
                serde_json::Value::from(self.as_str())
            }
        }

        $crate::serialize_as_json!($t);
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case_keys() {
        for (snake, camel_cased) in [
            ("decided_by", "decidedBy"),
            ("open_slots", "openSlots"),
            ("a_b_c", "aBC"),
            ("action", "action"),
            ("", ""),
            ("_x", "X"),
            ("x_", "x"),
        ] {
            assert_eq!(camel(snake), camel_cased);
            assert_eq!(Keys::Camel.spell(snake), camel_cased);
            assert_eq!(Keys::Snake.spell(snake), snake);
        }
        // A value taken whole into a camelCase object is spelled as the object, written
        // snake_case or not.
        let merged = Object::keyed(Keys::Camel)
            .with("since", 1u64)
            .with_all(serde_json::json!({"open_slots": 2, "in": {"in_secs": 3}, "doneAt": 4}))
            .done();
        assert_eq!(
            merged,
            serde_json::json!({"since": 1, "openSlots": 2, "in": {"inSecs": 3}, "doneAt": 4})
        );
    }

    #[test]
    fn a_duplicate_key_is_an_error_naming_it() {
        let e = parse_strict("{\"a\": 1,\n \"b\": {\"c\": 1, \"c\": 2}}").unwrap_err();
        assert!(e.to_string().contains("duplicate key \"c\""), "{e}");
        assert!(e.to_string().contains("line 2"), "{e}");
        assert_eq!(
            parse_strict("{\"a\": [1, 2.5, null, true, \"x\"]}").unwrap(),
            serde_json::json!({"a": [1, 2.5, null, true, "x"]})
        );
        assert!(parse_strict("{} x").is_err());
        assert!(parse_strict(&"[".repeat(1000)).is_err());
    }
    use crate::delegation::CallAnswer;
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
        assert_eq!(CallAnswer::parse("person"), Some(CallAnswer::Person));
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
            serde_json::to_value(CallAnswer::Refused).unwrap(),
            json!("refused")
        );
        assert_eq!(Mode::Plan.to_json(), json!("plan"));
    }
}
