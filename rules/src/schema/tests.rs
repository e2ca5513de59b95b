//! The schemas against the readers: every case of `conformance/` validates, and every case
//! mutated is refused by both, naming the same field.

use super::{area_schema, case_file_schema};
use crate::conformance::{read_error, run_area_case, Area};
use crate::input::InputError;
use jsonschema::error::ValidationErrorKind;
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// Every case file of `conformance/`: its name, its area, its value.
fn case_files() -> Vec<(String, Area, Value)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        let area = Area::parse(file["area"].as_str().unwrap_or(&stem)).unwrap();
        files.push((stem, area, file));
    }
    assert!(files.len() >= 7, "the case files were not found");
    files
}

/// A validator of one case of `area`: the area's file schema, its case under `$defs`.
fn case_validator(area: Area) -> jsonschema::Validator {
    let mut schema = area_schema(area);
    let name = format!("#/$defs/{}_case", area.as_str());
    schema["$ref"] = Value::from(name);
    for key in ["properties", "required", "type", "title"] {
        if let Value::Object(map) = &mut schema {
            map.remove(key);
        }
    }
    jsonschema::validator_for(&schema).unwrap()
}

/// The fields a schema's errors name, in the runner's spelling (`steps[2].args`, `context.mode`):
/// the value's own place, or the key a `required` or closed object names.
fn named_fields(validator: &jsonschema::Validator, case: &Value) -> BTreeSet<String> {
    validator
        .iter_errors(case)
        .map(|error| {
            let place = runner_path(case, error.instance_path().as_str());
            match error.kind() {
                ValidationErrorKind::Required { property } => {
                    crate::input::join(&place, property.as_str().unwrap_or(""))
                }
                ValidationErrorKind::AdditionalProperties { unexpected } => {
                    crate::input::join(&place, unexpected.first().map_or("", String::as_str))
                }
                _ => place,
            }
        })
        .collect()
}

/// A JSON pointer into `value` as the runner writes a path: `/steps/2/by` → `steps[2].by`.
fn runner_path(value: &Value, pointer: &str) -> String {
    let mut path = String::new();
    let mut at = value;
    for raw in pointer.split('/').skip(1) {
        let segment = raw.replace("~1", "/").replace("~0", "~");
        match at {
            Value::Array(items) => {
                let i: usize = segment.parse().unwrap();
                path = crate::input::index(&path, i);
                at = &items[i];
            }
            _ => {
                path = crate::input::join(&path, &segment);
                at = &at[segment.as_str()];
            }
        }
    }
    path
}

#[test]
fn every_case_of_conformance_validates() {
    let any_file = jsonschema::validator_for(&case_file_schema()).unwrap();
    let mut wrong = Vec::new();
    for (name, area, file) in case_files() {
        let schema = jsonschema::validator_for(&area_schema(area)).unwrap();
        for error in schema
            .iter_errors(&file)
            .chain(any_file.iter_errors(&file))
            .take(5)
        {
            wrong.push(format!("{name}.json {}: {error}", error.instance_path()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The words only a run can know: an agent of the team, a model of the case's `models`, a tool
/// rules/spec/tools/ lacks — a schema cannot list them.
const WORDS_OF_THE_RUN: [&str; 3] = ["agent", "model (not in models)", "tool (give its class)"];

/// Whether the runner's error says the case's form is wrong (what a schema says too), not
/// something only running it finds out.
fn is_about_form(error: &InputError) -> bool {
    match error {
        InputError::Missing { .. } | InputError::Type { .. } | InputError::Extra { .. } => true,
        InputError::Unknown { what, .. } => !WORDS_OF_THE_RUN.contains(what),
        InputError::Invalid { .. } => false,
    }
}

/// Whether a path is in a call's `args`: the model's arguments, which the tool judges (see
/// `offered_arguments` in team/operation.rs) and the schema only describes.
fn is_in_arguments(path: &str) -> bool {
    path.split('.').any(|part| part == "args")
}

/// Every mutation of `value` (each place of it): a field removed, a field of another type, a
/// field too many, a string no list has, a field set to `null`.
fn mutations(value: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    let mut places = Vec::new();
    places_of(value, String::new(), &mut places);
    for place in places {
        let Some(node) = value.pointer(&place) else {
            continue;
        };
        if let Value::Object(map) = node {
            let mut surplus = value.clone();
            if let Some(Value::Object(m)) = surplus.pointer_mut(&place) {
                m.insert("surplus_field".into(), json!(1));
            }
            out.push(surplus);
            for key in map.keys() {
                let mut removed = value.clone();
                if let Some(Value::Object(m)) = removed.pointer_mut(&place) {
                    m.remove(key);
                }
                out.push(removed);
            }
        }
        if place.is_empty() {
            continue;
        }
        let other = match node {
            Value::String(_) => Some(json!(7)),
            Value::Number(_) => Some(json!("7")),
            Value::Bool(_) => Some(json!("true")),
            Value::Object(_) | Value::Array(_) => Some(json!("x")),
            Value::Null => None,
        };
        let word = node.is_string().then(|| json!("no-such-word"));
        // `null`, which a reader takes as absent.
        let null = (!node.is_null()).then_some(Value::Null);
        for replacement in other.into_iter().chain(word).chain(null) {
            let mut changed = value.clone();
            if let Some(slot) = changed.pointer_mut(&place) {
                *slot = replacement;
            }
            out.push(changed);
        }
    }
    out
}

fn places_of(value: &Value, here: String, out: &mut Vec<String>) {
    out.push(here.clone());
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let key = key.replace('~', "~0").replace('/', "~1");
                places_of(child, format!("{here}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                places_of(child, format!("{here}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn a_mutated_case_is_refused_by_the_schema_where_the_runner_refuses_it() {
    let mut wrong = Vec::new();
    let mut checked = 0usize;
    for (name, area, file) in case_files() {
        let validator = case_validator(area);
        for (i, case) in file["cases"].as_array().unwrap().iter().enumerate() {
            for mutated in mutations(case) {
                checked += 1;
                let named = named_fields(&validator, &mutated);
                let runner = read_error(area, &mutated);
                let about = || format!("{name}.json case {i}: {mutated}");
                if let Some(error) = runner
                    .as_ref()
                    .filter(|e| is_about_form(e) && !is_in_arguments(e.path()))
                {
                    let field = error.path().strip_prefix("case.").unwrap_or(error.path());
                    if !named.contains(field) {
                        wrong.push(format!(
                            "{}\n  the runner: {error}\n  the schema: {named:?}",
                            about()
                        ));
                    }
                }
                if !named.is_empty() && runner.is_none() && run_area_case(area, &mutated).pass {
                    wrong.push(format!(
                        "{}\n  the runner passes it, the schema refuses {named:?}",
                        about()
                    ));
                }
                if wrong.len() >= 12 {
                    panic!("{}", wrong.join("\n"));
                }
            }
        }
    }
    assert!(checked > 10_000, "only {checked} mutations");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Cases written by hand where a reader and a schema could part: each refused by both, naming
/// the same field, or (a case that reads but can never pass) refused by the schema and failed
/// by the runner.
#[test]
fn the_edges_are_judged_alike() {
    let cases = [
        (
            Area::Permission,
            json!({"request": {"tool": "bash", "line": null}, "context": {"mode": "auto"}, "expect": {"action": "allow"}}),
            Some("request.line"),
        ),
        (
            Area::Team,
            json!({"start": {"min": 1, "max": 2}, "steps": [{"op": "state", "about": 5, "expect": {}}]}),
            Some("steps[0].about"),
        ),
        (
            Area::Progress,
            json!({"progress": {"phase": "thinking", "since": 0}, "now": 0, "expect": {}}),
            None,
        ),
        (
            Area::Team,
            json!({"start": {"min": 1, "max": 2}, "steps": [{"op": "tree"}]}),
            None,
        ),
    ];
    for (area, case, field) in cases {
        let named = named_fields(&case_validator(area), &case);
        assert!(!named.is_empty(), "the schema takes {case}");
        match field {
            Some(field) => {
                let error =
                    read_error(area, &case).unwrap_or_else(|| panic!("the runner reads {case}"));
                assert_eq!(
                    error.path().strip_prefix("case.").unwrap_or(error.path()),
                    field
                );
                assert!(named.contains(field), "{case}: the schema names {named:?}");
            }
            None => assert!(!run_area_case(area, &case).pass, "{case} passes"),
        }
    }
}
