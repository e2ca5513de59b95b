//! The rules' answers as JSON: one writer per type ([`ToJson`]), writing into a JSON value
//! ([`Value`]: the spec's cases, the conformance runner's actual values, the harness's events) or
//! straight into JSON text ([`Text`]: the npm package's answers, with no value made between).
//! serde's `Serialize` of each of these types is that writer too (`serialize_as_json!`), so each
//! answer is written by one piece of code — and the `.wasm` holds no generic serde serializer for
//! them (derived ones were 18 KB of it). Keys are written snake_case as the spec writes them, and
//! spelled when written: snake_case for the spec's cases and the harness, camelCase for the npm
//! API ([`Keys`]), with no second pass over an answer. Text is byte for byte serde_json's text of
//! the value: compact, each object's keys in the order its map gives them.

mod float_text;

use serde_json::{Map, Value};

/// A value's compact JSON text, as serde_json's `to_string` writes it (its floats by ryu: see
/// `json/float_text.rs`).
pub fn to_text(value: &impl serde::Serialize) -> Result<String, NotWritten> {
    written(value, float_text::compact())
}

/// A value's JSON text laid out as serde_json's `to_string_pretty` writes it (two spaces of
/// indent; its floats by ryu).
pub fn to_pretty_text(value: &impl serde::Serialize) -> Result<String, NotWritten> {
    written(value, float_text::pretty())
}

/// `value` written with `formatter` (serde_json refuses only a map whose keys are not texts).
fn written(
    value: &impl serde::Serialize,
    formatter: impl serde_json::ser::Formatter,
) -> Result<String, NotWritten> {
    let mut out = Vec::with_capacity(128);
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    value.serialize(&mut serializer).map_err(|_| NotWritten)?;
    String::from_utf8(out).map_err(|_| NotWritten)
}

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

/// Where a value is written: a JSON value ([`Value`], for the cases, the conformance runner and
/// the harness) or JSON text ([`Text`], the npm package's answers, written with no value
/// between). A [`ToJson`] writer is one piece of code for both; [`Fields`] writes an object.
pub trait Json {
    /// An object's state while its fields are written.
    type Fields;
    /// `null`.
    fn null(&mut self);
    /// `true` or `false`.
    fn bool(&mut self, value: bool);
    /// A whole number that is not negative.
    fn unsigned(&mut self, value: u64);
    /// A whole number.
    fn signed(&mut self, value: i64);
    /// A number (`null` when it is not finite, as serde_json writes it).
    fn float(&mut self, value: f64);
    /// A string.
    fn string(&mut self, text: &str);
    /// A value from elsewhere (a case's own, a whole object), its keys spelled `keys`.
    fn value(&mut self, value: Value, keys: Keys);
    /// An array of the items.
    fn array<T: ToJson>(&mut self, items: &[T], keys: Keys);
    /// An array of values written one by one, moved in (a file's results).
    fn array_of<T>(&mut self, items: Vec<T>, write: impl FnMut(T, &mut Self));
    /// An object begins.
    fn begin(&mut self) -> Self::Fields;
    /// A field of the object begins: `key` (written snake_case) spelled `keys`. Its value is
    /// written next, then [`Json::end_field`]. A key given twice keeps the later value, as a map
    /// does. (Not generic over the value, so that one copy of it serves every field.)
    fn begin_field(&mut self, fields: &mut Self::Fields, key: &str, keys: Keys);
    /// The field's value has been written.
    fn end_field(&mut self, fields: &mut Self::Fields);
    /// The object ends, its keys in the order serde_json's map gives them (sorted, unless a
    /// crate of the build asks the map to keep them in the order they came).
    fn end(&mut self, fields: Self::Fields);
}

/// The fields of an object being written as a value: those written, and the key of the one
/// being written (its value is written into the object's own place meanwhile).
#[derive(Debug, Default)]
pub struct ValueFields {
    map: Map<String, Value>,
    key: String,
}

impl Json for Value {
    type Fields = ValueFields;

    fn null(&mut self) {
        *self = Value::Null;
    }
    fn bool(&mut self, value: bool) {
        *self = Value::Bool(value);
    }
    fn unsigned(&mut self, value: u64) {
        *self = Value::from(value);
    }
    fn signed(&mut self, value: i64) {
        *self = Value::from(value);
    }
    fn float(&mut self, value: f64) {
        *self = Value::from(value);
    }
    fn string(&mut self, text: &str) {
        *self = Value::String(text.to_string());
    }
    fn value(&mut self, value: Value, keys: Keys) {
        *self = keys.respell(value);
    }
    fn array<T: ToJson>(&mut self, items: &[T], keys: Keys) {
        *self = Value::Array(items.iter().map(|item| item.write_json(keys)).collect());
    }
    fn array_of<T>(&mut self, items: Vec<T>, mut write: impl FnMut(T, &mut Value)) {
        let written = items
            .into_iter()
            .map(|item| value_of(|out| write(item, out)));
        *self = Value::Array(written.collect());
    }
    fn begin(&mut self) -> ValueFields {
        ValueFields::default()
    }
    #[inline(never)]
    fn begin_field(&mut self, fields: &mut ValueFields, key: &str, keys: Keys) {
        fields.key = keys.spell(key);
    }
    #[inline(never)]
    fn end_field(&mut self, fields: &mut ValueFields) {
        let value = std::mem::take(self);
        fields.map.insert(std::mem::take(&mut fields.key), value);
    }
    fn end(&mut self, fields: ValueFields) {
        *self = Value::Object(fields.map);
    }
}

/// A value as JSON text, byte for byte what serde_json writes of the same value as a
/// [`Value`] (compact, an object's keys in its map's order, strings escaped by serde_json
/// itself), written into one buffer.
#[derive(Debug)]
pub struct Text {
    bytes: Vec<u8>,
    /// The fields of the objects being written, innermost last: where each one's key begins in
    /// `bytes` and where its value ends.
    fields: Vec<Field>,
    /// False when serde_json refused a piece of it (it never does: it writes into a vector, and
    /// these values' maps have string keys); a text missing a piece is never given out.
    whole: bool,
}

/// A field of an object being written as text: `"key":value` at `start..end` of the text.
#[derive(Debug, Clone, Copy)]
struct Field {
    start: usize,
    key_end: usize,
    end: usize,
}

/// The fields of an object being written as text: where they begin in [`Text`]'s list, and
/// whether they have come as serde_json's map would hold them (in its order, no key twice).
#[derive(Debug)]
pub struct TextFields {
    first: usize,
    opened_at: usize,
    as_map: bool,
}

/// JSON text that serde_json could not write whole (which it never fails to).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the answer could not be written as JSON")]
pub struct NotWritten;

impl Default for Text {
    fn default() -> Text {
        Text::with_capacity(0)
    }
}

impl Text {
    /// An empty text with room for `bytes`.
    pub fn with_capacity(bytes: usize) -> Text {
        Text {
            bytes: Vec::with_capacity(bytes),
            fields: Vec::with_capacity(if bytes > 0 { 8 } else { 0 }),
            whole: true,
        }
    }

    /// A value's text written by serde_json (a string, a number, a value from elsewhere), its
    /// floats by [`float_text`].
    fn serialized(&mut self, value: &impl serde::Serialize) {
        let mut serializer =
            serde_json::Serializer::with_formatter(&mut self.bytes, float_text::compact());
        if value.serialize(&mut serializer).is_err() {
            self.whole = false;
        }
    }

    /// The text, as a string.
    pub fn into_string(self) -> Result<String, NotWritten> {
        if !self.whole {
            return Err(NotWritten);
        }
        String::from_utf8(self.bytes).map_err(|_| NotWritten)
    }

    /// A field's key, as written without its quotes: the key itself, for the writers' keys are
    /// their own names, with nothing in them to escape (so they sort as the map sorts them).
    fn key(&self, field: &Field) -> &[u8] {
        let quoted = self.bytes.get(field.start..field.key_end).unwrap_or(&[]);
        quoted
            .strip_prefix(b"\"")
            .and_then(|k| k.strip_suffix(b"\""))
            .unwrap_or(quoted)
    }
}

impl Json for Text {
    type Fields = TextFields;

    fn null(&mut self) {
        self.bytes.extend_from_slice(b"null");
    }
    fn bool(&mut self, value: bool) {
        self.bytes
            .extend_from_slice(if value { b"true" } else { b"false" });
    }
    fn unsigned(&mut self, value: u64) {
        self.serialized(&value);
    }
    fn signed(&mut self, value: i64) {
        self.serialized(&value);
    }
    fn float(&mut self, value: f64) {
        self.serialized(&Value::from(value));
    }
    fn string(&mut self, text: &str) {
        self.serialized(&text);
    }
    fn value(&mut self, value: Value, keys: Keys) {
        self.serialized(&keys.respell(value));
    }
    fn array<T: ToJson>(&mut self, items: &[T], keys: Keys) {
        self.bytes.push(b'[');
        for (at, item) in items.iter().enumerate() {
            if at > 0 {
                self.bytes.push(b',');
            }
            item.write(keys, self);
        }
        self.bytes.push(b']');
    }
    fn array_of<T>(&mut self, items: Vec<T>, mut write: impl FnMut(T, &mut Text)) {
        self.bytes.push(b'[');
        for (at, item) in items.into_iter().enumerate() {
            if at > 0 {
                self.bytes.push(b',');
            }
            write(item, self);
        }
        self.bytes.push(b']');
    }
    fn begin(&mut self) -> TextFields {
        self.bytes.push(b'{');
        TextFields {
            first: self.fields.len(),
            opened_at: self.bytes.len(),
            as_map: true,
        }
    }
    #[inline(never)]
    fn begin_field(&mut self, fields: &mut TextFields, key: &str, keys: Keys) {
        if self.fields.len() > fields.first {
            self.bytes.push(b',');
        }
        let start = self.bytes.len();
        if key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        {
            // A key of the spec's (letters, digits and `_`): nothing in it to escape, so spelled
            // straight into the text.
            self.bytes.push(b'"');
            spell_into(key, keys, &mut self.bytes);
            self.bytes.push(b'"');
        } else {
            self.serialized(&keys.spell(key));
        }
        let key_end = self.bytes.len();
        self.bytes.push(b':');
        // The field's place; its end is set when its value has been written.
        self.fields.push(Field {
            start,
            key_end,
            end: key_end,
        });
    }
    #[inline(never)]
    fn end_field(&mut self, fields: &mut TextFields) {
        let end = self.bytes.len();
        let Some(mut field) = self.fields.pop() else {
            return;
        };
        field.end = end;
        let before = self.fields.get(fields.first..).unwrap_or(&[]);
        fields.as_map &= if map_sorts_keys() {
            // In order only when strictly after the key before (a key twice is not in order).
            before
                .last()
                .is_none_or(|last| self.key(last) < self.key(&field))
        } else {
            before
                .iter()
                .all(|other| self.key(other) != self.key(&field))
        };
        self.fields.push(field);
    }
    fn end(&mut self, fields: TextFields) {
        if !fields.as_map {
            // Not as the map would hold them: the object's fields again, in the map's order, the
            // later value of a key given twice kept (where the map keeps it).
            let given = self.fields.get(fields.first..).unwrap_or(&[]);
            let mut list: Vec<Field> = Vec::with_capacity(given.len());
            if map_sorts_keys() {
                list.extend_from_slice(given);
                // A stable sort: of a key given twice, the later one is after.
                list.sort_by(|a, b| self.key(a).cmp(self.key(b)));
                let mut kept: Vec<Field> = Vec::with_capacity(list.len());
                for field in list {
                    match kept.last_mut() {
                        Some(last) if self.key(last) == self.key(&field) => *last = field,
                        _ => kept.push(field),
                    }
                }
                list = kept;
            } else {
                // In the order first given, each key's last value in the first one's place.
                for field in given {
                    match list.iter_mut().find(|f| self.key(f) == self.key(field)) {
                        Some(first) => *first = *field,
                        None => list.push(*field),
                    }
                }
            }
            let mut rewritten = Vec::with_capacity(self.bytes.len() - fields.opened_at);
            for field in &list {
                if !rewritten.is_empty() {
                    rewritten.push(b',');
                }
                rewritten.extend_from_slice(self.bytes.get(field.start..field.end).unwrap_or(&[]));
            }
            self.bytes.truncate(fields.opened_at);
            self.bytes.extend_from_slice(&rewritten);
        }
        self.fields.truncate(fields.first);
        self.bytes.push(b'}');
    }
}

/// Whether serde_json's map sorts its keys in this build, as it does unless a crate built with
/// the rules asks for its `preserve_order` feature (the harness's ACP library and the playground
/// do: there a map keeps its keys in the order they came). Text orders an object's keys as the
/// map would, so that it is serde_json's text of the value in every build. Read once.
fn map_sorts_keys() -> bool {
    static SORTS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SORTS.get_or_init(|| {
        let mut probe = Map::new();
        probe.insert("b".to_string(), Value::Null);
        probe.insert("a".to_string(), Value::Null);
        probe.keys().next().is_some_and(|first| first == "a")
    })
}

/// The JSON value `write` writes (a writer that takes its value by move, as the results do).
pub fn value_of(write: impl FnOnce(&mut Value)) -> Value {
    let mut value = Value::Null;
    write(&mut value);
    value
}

/// A value as the spec's JSON writes it.
pub trait ToJson {
    /// The value written into `out` (a JSON value or JSON text), its keys spelled `keys`: each
    /// key written once, in the spelling asked for (no second pass over the value).
    fn write<J: Json>(&self, keys: Keys, out: &mut J);

    /// The value as a JSON value, its keys spelled `keys`.
    fn write_json(&self, keys: Keys) -> Value {
        value_of(|out| self.write(keys, out))
    }

    /// The value as JSON text, its keys spelled `keys`: the same bytes as serde_json's text of
    /// [`ToJson::write_json`]'s value, with no value written between.
    fn write_text(&self, keys: Keys) -> Text {
        // Room for most answers of one call (a decision by a rule, with its reason, is about
        // 250 bytes): growing the text was a copy of it and two calls to the allocator.
        let mut text = Text::with_capacity(512);
        self.write(keys, &mut text);
        text
    }

    /// The value as JSON, its keys snake_case as the spec writes them.
    fn to_json(&self) -> Value {
        self.write_json(Keys::Snake)
    }
}

impl ToJson for str {
    fn write<J: Json>(&self, _keys: Keys, out: &mut J) {
        out.string(self);
    }
}

impl ToJson for String {
    fn write<J: Json>(&self, _keys: Keys, out: &mut J) {
        out.string(self);
    }
}

impl ToJson for Value {
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        out.value(self.clone(), keys);
    }
}

impl ToJson for bool {
    fn write<J: Json>(&self, _keys: Keys, out: &mut J) {
        out.bool(*self);
    }
}

macro_rules! to_json_number {
    ($how:ident as $as:ty: $($t:ty),*) => {$(
        impl ToJson for $t {
            fn write<J: Json>(&self, _keys: Keys, out: &mut J) {
                out.$how(*self as $as);
            }
        }
    )*};
}
to_json_number!(unsigned as u64: u32, u64, usize);
to_json_number!(signed as i64: i64);
to_json_number!(float as f64: f64);

impl<T: ToJson> ToJson for Option<T> {
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        match self {
            Some(v) => v.write(keys, out),
            None => out.null(),
        }
    }
}

impl<T: ToJson> ToJson for [T] {
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        out.array(self, keys);
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        out.array(self, keys);
    }
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        (**self).write(keys, out);
    }
}

/// An object written field by field into a [`Json`] (a value or text), its keys (written
/// snake_case) spelled as asked: what every [`ToJson`] of an object writes with.
#[must_use = "an object is written whole only when `done` ends it"]
pub struct Fields<'a, J: Json> {
    out: &'a mut J,
    fields: J::Fields,
    keys: Keys,
}

impl<'a, J: Json> Fields<'a, J> {
    /// An object begins in `out`, its keys (and its values' keys) spelled `keys`.
    pub fn of(out: &'a mut J, keys: Keys) -> Fields<'a, J> {
        let fields = out.begin();
        Fields { out, fields, keys }
    }

    /// `key: value`. Not inlined: one copy for each type of value, not one for each field
    /// (which made the `.wasm` 6 KB larger for the tree's agents alone).
    #[inline(never)]
    pub fn with(mut self, key: &str, value: impl ToJson) -> Fields<'a, J> {
        self.out.begin_field(&mut self.fields, key, self.keys);
        value.write(self.keys, self.out);
        self.out.end_field(&mut self.fields);
        self
    }

    /// `key: value`, the value moved in (its keys spelled as this object's).
    pub fn with_value(mut self, key: &str, value: Value) -> Fields<'a, J> {
        self.out.begin_field(&mut self.fields, key, self.keys);
        self.out.value(value, self.keys);
        self.out.end_field(&mut self.fields);
        self
    }

    /// `key: […]`, each item moved in and written by `write`.
    pub fn with_each<T>(
        mut self,
        key: &str,
        items: Vec<T>,
        mut write: impl FnMut(T, Keys, &mut J),
    ) -> Fields<'a, J> {
        let keys = self.keys;
        self.out.begin_field(&mut self.fields, key, keys);
        self.out.array_of(items, |item, out| write(item, keys, out));
        self.out.end_field(&mut self.fields);
        self
    }

    /// `key: value` when there is a value; no key otherwise.
    pub fn with_some<T: ToJson>(self, key: &str, value: &Option<T>) -> Fields<'a, J> {
        match value {
            Some(v) => self.with(key, v),
            None => self,
        }
    }

    /// The object ends.
    pub fn done(self) {
        self.out.end(self.fields);
    }
}

/// A JSON object value written field by field, its keys (written snake_case) spelled as asked:
/// for code that makes values only (the team's answers to a case).
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
    pub fn with_value(self, key: &str, value: Value) -> Object {
        let value = self.keys.respell(value);
        self.put(key, value)
    }

    /// `key: value` when there is a value; no key otherwise.
    pub fn with_some<T: ToJson>(self, key: &str, value: &Option<T>) -> Object {
        match value {
            Some(v) => self.with(key, v),
            None => self,
        }
    }

    /// The object as a JSON value.
    pub fn done(self) -> Value {
        Value::Object(self.map)
    }
}

/// `snake_case` → `camelCase` (the keys are ASCII: no Unicode case tables for them).
pub fn camel(key: &str) -> String {
    camel_chars(key).collect()
}

/// The characters of `key` (written snake_case) in camelCase: each `_` left out and the letter
/// after it in capitals. The one spelling of a camelCase key, for [`camel`] and for keys written
/// straight into text.
fn camel_chars(key: &str) -> impl Iterator<Item = char> + '_ {
    let mut up = false;
    key.chars().filter_map(move |c| {
        if c == '_' {
            up = true;
            None
        } else if std::mem::take(&mut up) {
            Some(c.to_ascii_uppercase())
        } else {
            Some(c)
        }
    })
}

/// `key` (written snake_case) spelled `keys`, added to `out`.
fn spell_into(key: &str, keys: Keys, out: &mut Vec<u8>) {
    if keys == Keys::Snake || !key.contains('_') {
        out.extend_from_slice(key.as_bytes());
        return;
    }
    if key.is_ascii() {
        // Byte by byte, as [`camel_chars`] spells it (every key of the spec is ASCII).
        let mut up = false;
        for &b in key.as_bytes() {
            if b == b'_' {
                up = true;
            } else if std::mem::take(&mut up) {
                out.push(b.to_ascii_uppercase());
            } else {
                out.push(b);
            }
        }
        return;
    }
    let mut utf8 = [0; 4];
    for c in camel_chars(key) {
        out.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
    }
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
            fn write<J: $crate::json::Json>(&self, _keys: $crate::json::Keys, out: &mut J) {
                out.string(self.as_str());
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
        // snake_case or not, as a value and as text.
        let taken = serde_json::json!({"open_slots": 2, "in": {"in_secs": 3}, "doneAt": 4});
        let merged: Value = Object::keyed(Keys::Camel)
            .with("since", 1u64)
            .with_value("all_of_it", taken.clone())
            .done();
        let expected = serde_json::json!(
            {"since": 1, "allOfIt": {"openSlots": 2, "in": {"inSecs": 3}, "doneAt": 4}}
        );
        assert_eq!(merged, expected);
        let mut text = Text::default();
        Fields::of(&mut text, Keys::Camel)
            .with("since", 1u64)
            .with_value("all_of_it", taken)
            .done();
        assert_eq!(text.into_string().unwrap(), merged.to_string());
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
        fn written<J: Json>(none: Option<u64>, out: &mut J) {
            Fields::of(out, Keys::Snake)
                .with("ab", 5u64)
                .with("a", 1u64)
                .with_some("b", &none)
                .with_some("c", &Some("x"))
                .with("d", none)
                .with_value("e", json!([true, {"z": 1, "y": [2]}]))
                .with("f", 2u64)
                .with("a", 3u64)
                .with_each("g", vec![2u64, 1], |n, keys, out| {
                    Fields::of(out, keys).with("n", n).with("m", n + 1).done()
                })
                .done();
        }
        let mut value = Value::Null;
        written(none, &mut value);
        let expected = json!({"a": 3, "ab": 5, "c": "x", "d": null, "e": [true, {"y": [2], "z": 1}], "f": 2,
            "g": [{"m": 3, "n": 2}, {"m": 2, "n": 1}]});
        assert_eq!(value, expected);
        // As text: the same bytes as the value's text (in the map's order, sorted or as given,
        // whichever this build's serde_json keeps), a key given twice keeping the later value.
        let mut text = Text::default();
        written(none, &mut text);
        assert_eq!(text.into_string().unwrap(), value.to_string());
    }

    /// An object's fields in any order, keys given twice, objects within them: what one
    /// field holds.
    #[derive(Debug, Clone)]
    enum Member {
        Number(u64),
        Words(Vec<String>),
        Object(Vec<(String, Member)>),
    }

    impl ToJson for Member {
        fn write<J: Json>(&self, keys: Keys, out: &mut J) {
            match self {
                Member::Number(n) => n.write(keys, out),
                Member::Words(words) => words.write(keys, out),
                Member::Object(fields) => fields
                    .iter()
                    .fold(Fields::of(out, keys), |o, (key, value)| o.with(key, value))
                    .done(),
            }
        }
    }

    fn member() -> impl proptest::strategy::Strategy<Value = Member> {
        use proptest::prelude::*;
        let key = prop::sample::select(vec!["a", "ab", "a_b", "b", "in", "open_slots", "z"]);
        let leaf = prop_oneof![
            any::<u64>().prop_map(Member::Number),
            prop::collection::vec("[a-z\"\\\u{1}\u{1f}\u{7f}é ]{0,4}", 0..3)
                .prop_map(Member::Words),
        ];
        leaf.prop_recursive(3, 24, 6, move |inner| {
            prop::collection::vec((key.clone().prop_map(String::from), inner), 0..7)
                .prop_map(Member::Object)
        })
    }

    proptest::proptest! {
        /// Written as text, any object is serde_json's text of it written as a value, in either
        /// spelling of its keys: fields out of order, keys twice, objects within objects.
        #[test]
        fn text_is_the_value_s_text(member in member()) {
            for keys in [Keys::Snake, Keys::Camel] {
                let text = member.write_text(keys).into_string().unwrap();
                proptest::prop_assert_eq!(text, member.write_json(keys).to_string());
            }
        }
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
