//! Shapes written as JSON Schema (draft 2020-12), each field's doc its `description`.

use super::{case_shape, Field, Shape, Variants};
use crate::conformance::Area;
use serde_json::{json, Map, Value};

/// The schemas' dialect.
const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// A case file's schema: of one area's cases, or (none) of any area's.
pub(super) fn file_schema(area: Option<Area>) -> Value {
    let mut defs = Map::new();
    let areas: Vec<Area> = area.map_or_else(|| Area::ALL.to_vec(), |a| vec![a]);
    for a in &areas {
        defs.insert(def_name(*a), schema(&case_shape(*a)));
    }
    let area_field = match area {
        Some(a) => json!({
            "enum": [a.as_str(), null],
            "description": "The file's area; absent, the file's name is (permission.json: permission).",
        }),
        None => json!({
            "enum": Area::ALL.iter().map(|a| Value::from(a.as_str())).chain([Value::Null]).collect::<Vec<_>>(),
            "description": "The file's area; absent, the file's name is (permission.json: permission).",
        }),
    };
    let mut cases = json!({
        "type": "array",
        "description": "The cases, each run on its own: one that cannot be read fails alone.",
    });
    if let (Some(a), Value::Object(map)) = (area, &mut cases) {
        map.insert("items".into(), reference(a));
    }
    let mut file = json!({
        "$schema": DIALECT,
        "title": match area {
            Some(a) => format!("A lembas conformance case file of the area {} (harness spec 3.4.0)", a.as_str()),
            None => "A lembas conformance case file (harness spec 3.4.0)".to_string(),
        },
        "type": "object",
        "properties": {
            "area": area_field,
            "about": { "type": ["string", "null"], "description": "What the file's cases show, in a sentence." },
            "cases": cases,
        },
        "required": ["cases"],
        "$defs": defs,
    });
    if let (None, Value::Object(map)) = (area, &mut file) {
        // A file that names its area has that area's cases; one that does not, any area's.
        let mut branches: Vec<Value> = Area::ALL
            .iter()
            .map(|a| {
                json!({
                    "if": { "properties": { "area": { "const": a.as_str() } }, "required": ["area"] },
                    "then": { "properties": { "cases": { "items": reference(*a) } } },
                })
            })
            .collect();
        branches.push(json!({
            "if": { "properties": { "area": { "type": "null" } } },
            "then": { "properties": { "cases": { "items": {
                "anyOf": Area::ALL.iter().map(|a| reference(*a)).collect::<Vec<_>>(),
            } } } },
        }));
        map.insert("allOf".into(), Value::Array(branches));
    }
    file
}

fn def_name(area: Area) -> String {
    format!("{}_case", area.as_str())
}

fn reference(area: Area) -> Value {
    json!({ "$ref": format!("#/$defs/{}", def_name(area)) })
}

/// A shape's schema.
pub(super) fn schema(shape: &Shape) -> Value {
    match shape {
        Shape::Text => json!({ "type": "string" }),
        Shape::Integer => json!({ "type": "integer", "minimum": i64::MIN, "maximum": i64::MAX }),
        Shape::Count => json!({ "type": "integer", "minimum": 0 }),
        Shape::Positive => json!({ "type": "integer", "minimum": 1 }),
        Shape::Number => json!({ "type": "number" }),
        Shape::Bool => json!({ "type": "boolean" }),
        Shape::Null => json!({ "type": "null" }),
        Shape::Any => json!({}),
        Shape::Written(schema) => schema.clone(),
        Shape::Word { what, words } => json!({ "type": "string", "enum": words, "title": what }),
        Shape::Suggested { what, words } => {
            json!({ "type": "string", "examples": words, "title": what })
        }
        Shape::List(item) => json!({ "type": "array", "items": schema(item) }),
        Shape::Object(fields) => closed_object(fields),
        Shape::Named(fields) => {
            let mut object = closed_object(fields);
            if let Value::Object(map) = &mut object {
                map.insert("minProperties".into(), Value::from(1));
            }
            object
        }
        Shape::Map { key, value } => json!({
            "type": "object",
            "propertyNames": { "description": key },
            "additionalProperties": schema(value),
        }),
        Shape::Variants(variants) => variants_schema(variants),
    }
}

/// `{ type: object, properties, required, additionalProperties: false }`.
fn closed_object(fields: &[Field]) -> Value {
    let mut object = open_object(fields.iter());
    object.insert("additionalProperties".into(), Value::Bool(false));
    Value::Object(object)
}

/// The properties and required keys of `fields`, as an object schema's members.
fn open_object<'a>(fields: impl Iterator<Item = &'a Field>) -> Map<String, Value> {
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut conditions = Vec::new();
    for field in fields {
        properties.insert(field.name.clone(), field_schema(field));
        if field.required {
            required.push(Value::from(field.name.as_str()));
        }
        if let Some(condition) = &field.required_when {
            conditions.push(json!({
                "if": {
                    "properties": { (condition.field.clone()): { "const": condition.word } },
                    "required": [condition.field],
                },
                // There, and not `null` (which a reader takes as absent).
                "then": {
                    "required": [field.name],
                    "properties": { (field.name.clone()): { "not": { "type": "null" } } },
                },
            }));
        }
        for (word, shape) in field
            .shaped_by
            .iter()
            .flat_map(|by| by.shapes.iter().map(move |(word, shape)| (by, word, shape)))
            .map(|(by, word, shape)| ((by.field.clone(), word), shape))
        {
            let (other, word) = word;
            conditions.push(json!({
                "if": {
                    "properties": { (other.clone()): { "const": word } },
                    "required": [other],
                },
                "then": { "properties": { (field.name.clone()): schema(shape) } },
            }));
        }
    }
    let mut object = Map::new();
    object.insert("type".into(), Value::from("object"));
    object.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        object.insert("required".into(), Value::Array(required));
    }
    if !conditions.is_empty() {
        object.insert("allOf".into(), Value::Array(conditions));
    }
    object
}

/// A field's schema with its doc; an optional field may also be `null` (read as absent).
fn field_schema(field: &Field) -> Value {
    let mut value = schema(&field.shape);
    if !field.required {
        value = nullable(value);
    }
    if let Value::Object(map) = &mut value {
        map.insert("description".into(), Value::from(field.doc.as_str()));
    }
    value
}

/// `value`, or `null`.
fn nullable(value: Value) -> Value {
    let Value::Object(mut map) = value else {
        return value;
    };
    if map.is_empty() {
        return Value::Object(map);
    }
    if let Some(Value::Array(words)) = map.get_mut("enum") {
        words.push(Value::Null);
    }
    match map.get("type").cloned() {
        Some(Value::String(one)) if one == "null" => Value::Object(map),
        Some(Value::String(one)) => {
            map.insert("type".into(), json!([one, "null"]));
            Value::Object(map)
        }
        _ => json!({ "anyOf": [Value::Object(map), { "type": "null" }] }),
    }
}

/// An object whose key's word picks its fields: each variant an `if`/`then` whose `then` is
/// closed over the key, the common fields and its own.
fn variants_schema(variants: &Variants) -> Value {
    let key = Field {
        name: variants.key.clone(),
        shape: Shape::Word {
            what: "word",
            words: variants.variants.iter().map(|v| v.word.clone()).collect(),
        },
        required: variants.default.is_none(),
        doc: variants.key_doc.clone(),
        required_when: None,
        shaped_by: None,
    };
    let mut top = open_object(std::iter::once(&key).chain(&variants.common));
    let mut one_of_words = field_schema(&key);
    // Each word's own doc, for an editor's completion.
    let documented = Value::Array(
        variants
            .variants
            .iter()
            .map(|v| json!({ "const": v.word, "description": v.doc }))
            .chain(variants.default.iter().map(|_| json!({ "type": "null" })))
            .collect(),
    );
    if let Value::Object(map) = &mut one_of_words {
        map.insert("oneOf".into(), documented);
    }
    if let Some(Value::Object(properties)) = top.get_mut("properties") {
        properties.insert(variants.key.clone(), one_of_words);
    }
    let branches: Vec<Value> = variants
        .variants
        .iter()
        .map(|variant| {
            let is_default = variants.default.as_deref() == Some(variant.word.as_str());
            let test = if is_default {
                json!({ "properties": { (variants.key.clone()): { "enum": [variant.word, null] } } })
            } else {
                json!({
                    "properties": { (variants.key.clone()): { "const": variant.word } },
                    "required": [variants.key],
                })
            };
            let mut then = open_object(variants.common.iter().chain(&variant.fields));
            if let Some(Value::Object(properties)) = then.get_mut("properties") {
                properties.insert(variants.key.clone(), json!({}));
            }
            then.insert("additionalProperties".into(), Value::Bool(false));
            then.insert("description".into(), Value::from(variant.doc.as_str()));
            json!({ "if": test, "then": Value::Object(then) })
        })
        .collect();
    match top.get_mut("allOf") {
        Some(Value::Array(conditions)) => conditions.extend(branches),
        _ => {
            top.insert("allOf".into(), Value::Array(branches));
        }
    }
    Value::Object(top)
}
