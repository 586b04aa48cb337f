//! Reading strict arguments back into canonical ones (see
//! [`restore_omitted`](super::strict::restore_omitted)).

use holon_core::schema::resolve_local_ref;
use serde_json::{Map, Value};

/// Guards against a cycle of `$ref`s and against deep inputs.
const MAX_DEPTH: usize = 128;

/// Removes, from `value` at `schema`, every `null` of an optional property whose
/// canonical schema does not accept `null`.
pub(super) fn restore(root: &Value, schema: &Value, value: &mut Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let schema = resolve_local_ref(root, schema);
    match value {
        Value::Object(map) => {
            let Some(object) = object_branch(root, schema, map) else {
                return;
            };
            let required: Vec<&str> = object
                .get("required")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let Some(properties) = object.get("properties").and_then(Value::as_object) else {
                return;
            };
            map.retain(|key, value| {
                let omitted = value.is_null()
                    && !required.contains(&key.as_str())
                    && properties
                        .get(key)
                        .is_some_and(|property| !accepts_null(root, property, 0));
                !omitted
            });
            for (key, inner) in map.iter_mut() {
                if let Some(property) = properties.get(key) {
                    restore(root, property, inner, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = items_schema(root, schema) {
                for item in items {
                    restore(root, item_schema, item, depth + 1);
                }
            }
        }
        _ => {}
    }
}

fn branches(schema: &Value) -> impl Iterator<Item = &Value> {
    ["anyOf", "oneOf"]
        .into_iter()
        .filter_map(|keyword| schema.get(keyword).and_then(Value::as_array))
        .flatten()
}

/// The object schema that describes `value`: the schema itself, or the union branch
/// whose `const` properties (a tag) match the value.
fn object_branch<'s>(
    root: &'s Value,
    schema: &'s Value,
    value: &Map<String, Value>,
) -> Option<&'s Value> {
    if schema.get("properties").is_some() {
        return Some(schema);
    }
    let candidates: Vec<&Value> = branches(schema)
        .map(|branch| resolve_local_ref(root, branch))
        .filter(|branch| branch.get("properties").is_some())
        .collect();
    let tag_matches = |branch: &&Value| {
        branch
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|properties| {
                properties
                    .iter()
                    .all(|(key, property)| match property.get("const") {
                        Some(tag) => value.get(key) == Some(tag),
                        None => true,
                    })
            })
    };
    candidates
        .iter()
        .copied()
        .find(tag_matches)
        .or(candidates.first().copied())
}

fn items_schema<'s>(root: &'s Value, schema: &'s Value) -> Option<&'s Value> {
    schema.get("items").or_else(|| {
        branches(schema)
            .map(|branch| resolve_local_ref(root, branch))
            .find_map(|branch| branch.get("items"))
    })
}

/// Whether `schema` accepts `null`, following references.
fn accepts_null(root: &Value, schema: &Value, depth: usize) -> bool {
    if depth > 16 {
        return false;
    }
    let schema = resolve_local_ref(root, schema);
    let Some(map) = schema.as_object() else {
        return schema == &Value::Bool(true);
    };
    let typed = match map.get("type") {
        Some(Value::String(name)) => name == "null",
        Some(Value::Array(names)) => names.iter().any(|name| name == "null"),
        _ => false,
    };
    let unconstrained = ![
        "type", "anyOf", "oneOf", "enum", "const", "$ref", "not", "allOf",
    ]
    .iter()
    .any(|keyword| map.contains_key(*keyword));
    typed
        || unconstrained
        || map.get("const") == Some(&Value::Null)
        || map
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| values.contains(&Value::Null))
        || branches(schema).any(|branch| accepts_null(root, branch, depth + 1))
}
