//! Schema generation: JSON Schema 2020-12 from schemars, subschemas inlined unless
//! recursive, no `$schema` or `title` noise, keys in a stable (sorted) order.

use schemars::Schema;
use schemars::generate::{Contract, SchemaGenerator, SchemaSettings};
use schemars::transform::{Transform, transform_subschemas};
use serde_json::{Map, Value};

/// A generator with the framework's settings for what a tool reads (its arguments).
/// Use one per root schema.
pub fn generator() -> SchemaGenerator {
    settings().into_generator()
}

/// A generator for what a tool writes (its result, the envelope): the schema
/// describes the serialized form, so `Option` fields are required and may be null.
pub fn result_generator() -> SchemaGenerator {
    settings()
        .with(|settings| settings.contract = Contract::Serialize)
        .into_generator()
}

fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().with(|settings| {
        settings.meta_schema = None;
        settings.inline_subschemas = true;
    })
}

/// Removes the root `description` of an argument schema: it is the Rust doc of the
/// argument type, while the model reads the tool's own description.
pub fn strip_root_description(schema: &mut Value) {
    if let Some(object) = schema.as_object_mut() {
        object.remove("description");
    }
}

struct StripTitles;

impl Transform for StripTitles {
    fn transform(&mut self, schema: &mut Schema) {
        schema.remove("title");
        transform_subschemas(self, schema);
    }
}

/// Turns a generated schema into its canonical JSON: titles removed, keys sorted.
pub fn finish(mut schema: Schema) -> Value {
    StripTitles.transform(&mut schema);
    if let Some(definitions) = schema.get_mut("$defs").and_then(Value::as_object_mut) {
        for definition in definitions.values_mut() {
            if let Ok(sub) = <&mut Schema>::try_from(definition) {
                StripTitles.transform(sub);
            }
        }
    }
    sort_keys(schema.to_value())
}

/// Rebuilds every object of `value` with its keys in sorted order, whatever map type
/// `serde_json` was built with.
pub fn sort_keys(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(key, value)| (key, sort_keys(value)))
                    .collect::<Map<String, Value>>(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sort_keys).collect()),
        other => other,
    }
}

/// The schema of a tool without arguments: an empty closed object.
pub fn empty_object_schema() -> Value {
    serde_json::json!({
        "additionalProperties": false,
        "properties": {},
        "type": "object",
    })
}

/// Whether `schema` is an object schema that rejects unknown properties.
pub fn is_closed_object(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
        && schema.get("additionalProperties") == Some(&Value::Bool(false))
}

/// The names of the top-level properties of an object schema.
pub fn property_names(schema: &Value) -> Vec<&str> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// Keywords that constrain values beyond what serde's typed parse checks.
const CONSTRAINT_KEYWORDS: &[&str] = &[
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "contains",
    "if",
    "not",
    "dependentRequired",
    "dependentSchemas",
    "const",
    "oneOf",
];

/// Whether `branches` is a list of `{"const": ...}` schemas (how schemars writes a
/// unit-variant enum whose variants have doc comments).
fn is_enum_of_constants(branches: &Value) -> bool {
    branches.as_array().is_some_and(|branches| {
        branches.iter().all(|branch| {
            branch.get("const").is_some()
                && branch.as_object().is_some_and(|b| {
                    b.keys()
                        .all(|k| matches!(k.as_str(), "const" | "type" | "description"))
                })
        })
    })
}

/// Whether the dispatcher must run schema validation for `schema`: true when any
/// subschema uses a keyword serde does not check. Unsigned integers' `minimum: 0` is
/// checked by serde and does not count.
pub fn needs_validation(schema: &Value) -> bool {
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                for (key, inner) in map {
                    // A unit-variant enum with documented variants: serde checks it.
                    if key == "oneOf" && is_enum_of_constants(inner) {
                        continue;
                    }
                    let unsigned_floor = key == "minimum"
                        && inner.as_f64() == Some(0.0)
                        && map
                            .get("format")
                            .and_then(Value::as_str)
                            .is_some_and(|format| format.starts_with("uint"));
                    if CONSTRAINT_KEYWORDS.contains(&key.as_str()) && !unsigned_floor {
                        return true;
                    }
                    stack.push(inner);
                }
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    false
}
