//! The portable form of a schema, for clients that read a schema strictly
//! (the MCP Inspector warns, LangGraph refuses): an optional field is advertised as
//! its type alone, without `null`.
//!
//! The canonical schema says `"type": ["integer", "null"]` for an `Option<u32>` field,
//! because the dispatcher accepts an explicit `null` there. An optional field may also
//! be left out, which every client understands, so the advertised form drops the
//! `null` alternative: a type list becomes its one other type, `anyOf: [X, {"type":
//! "null"}]` becomes `X`, `null` leaves `enum` and `default`, and a lone `{"type":
//! "null"}` (a conditional's "only as null") becomes `false` (not given). Nothing is
//! added, so the portable schema accepts a subset of what the dispatcher accepts.

use serde_json::{Map, Value};

pub mod output;

pub use output::{output_without_null, without_null_members};

/// `schema` without `null` alternatives, at every depth.
pub fn without_null(schema: &Value) -> Value {
    let mut schema = schema.clone();
    strip(&mut schema);
    schema
}

/// How many `null` alternatives `schema` holds: a `type` list, a `{"type": "null"}`
/// branch, `null` in an `enum` or a `null` default. The portable form has none.
pub fn null_alternatives(schema: &Value) -> usize {
    match schema {
        Value::Object(map) => {
            let null = Value::String("null".into());
            let own = usize::from(
                matches!(map.get("type"), Some(Value::Array(types)) if types.contains(&null)),
            ) + usize::from(map.get("type") == Some(&Value::String("null".into())))
                + usize::from(
                    matches!(map.get("enum"), Some(Value::Array(values)) if values.contains(&Value::Null)),
                )
                + usize::from(map.get("default") == Some(&Value::Null));
            own + subschemas(map).map(null_alternatives).sum::<usize>()
        }
        Value::Array(items) => items.iter().map(null_alternatives).sum(),
        _ => 0,
    }
}

/// Keys whose values are data, not subschemas.
fn is_data(key: &str) -> bool {
    matches!(
        key,
        "enum" | "const" | "default" | "examples" | "required" | "description" | "title"
    )
}

/// Keywords whose value maps names (of properties, of definitions) to subschemas: a
/// name there is never a keyword, not even `title`, `description` or `default`.
fn names_subschemas(key: &str) -> bool {
    matches!(
        key,
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
    )
}

/// The values of an object schema that are schemas (or arrays of them): each
/// property's, each definition's, each branch's, not the data's.
fn subschemas(map: &Map<String, Value>) -> impl Iterator<Item = &Value> {
    map.iter()
        .filter(|(key, _)| !is_data(key))
        .flat_map(|(key, value)| {
            let (named, other) = match value.as_object() {
                Some(named) if names_subschemas(key) => (Some(named), None),
                _ => (None, Some(value)),
            };
            named.into_iter().flat_map(Map::values).chain(other)
        })
}

/// [`subschemas`], to change them.
pub(crate) fn subschemas_mut(map: &mut Map<String, Value>) -> impl Iterator<Item = &mut Value> {
    map.iter_mut()
        .filter(|(key, _)| !is_data(key))
        .flat_map(|(key, value)| {
            let (named, other) = if names_subschemas(key) && value.is_object() {
                (value.as_object_mut(), None)
            } else {
                (None, Some(value))
            };
            named.into_iter().flat_map(Map::values_mut).chain(other)
        })
}

fn is_null_schema(value: &Value) -> bool {
    value.get("type") == Some(&Value::String("null".into()))
        && value.as_object().is_some_and(|map| map.len() == 1)
}

fn strip(schema: &mut Value) {
    // A lone `{"type": "null"}` (a conditional's "this field only as null") becomes
    // `false`: the field is not given at all.
    if is_null_schema(schema) {
        *schema = Value::Bool(false);
        return;
    }
    match schema {
        Value::Object(map) => {
            strip_object(map);
            subschemas_mut(map).for_each(strip);
        }
        Value::Array(items) => items.iter_mut().for_each(strip),
        _ => {}
    }
}

fn strip_object(map: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|name| name != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            map.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|value| !value.is_null());
    }
    if map.get("default") == Some(&Value::Null) {
        map.remove("default");
    }
    for keyword in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = map.get_mut(keyword) else {
            continue;
        };
        branches.retain(|branch| !is_null_schema(branch));
        if branches.len() != 1 {
            continue;
        }
        // One branch left: it is the schema; its keys join the parent's (a
        // description or default beside the `anyOf` stays).
        let Some(Value::Object(only)) = branches.pop() else {
            continue;
        };
        map.remove(keyword);
        for (key, value) in only {
            map.entry(key).or_insert(value);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn optional_fields_lose_their_null_alternative_and_nothing_else() {
        let schema = json!({
            "type": "object",
            "properties": {
                "small": {"type": ["integer", "null"], "format": "uint32", "minimum": 0},
                "mode": {
                    "description": "The mode.",
                    "anyOf": [{"$ref": "#/$defs/Mode"}, {"type": "null"}],
                    "default": null
                },
                "kind": {"type": ["string", "null"], "enum": ["a", "b", null]},
                "either": {"type": ["string", "integer", "null"]}
            },
            "additionalProperties": false,
            "if": {"properties": {"kind": {"enum": ["a", null]}}},
            "then": {"properties": {"small": {"type": "null"}}},
            "$defs": {"Mode": {"type": "string", "enum": ["fast", "slow"]}}
        });
        assert_eq!(null_alternatives(&schema), 8);
        let portable = without_null(&schema);
        assert_eq!(null_alternatives(&portable), 0, "{portable:#}");
        assert_eq!(
            portable["properties"],
            json!({
                "small": {"type": "integer", "format": "uint32", "minimum": 0},
                "mode": {"description": "The mode.", "$ref": "#/$defs/Mode"},
                "kind": {"type": "string", "enum": ["a", "b"]},
                "either": {"type": ["string", "integer"]}
            })
        );
        assert_eq!(portable["$defs"], schema["$defs"]);
        assert_eq!(
            portable["if"],
            json!({"properties": {"kind": {"enum": ["a"]}}})
        );
        assert_eq!(portable["then"], json!({"properties": {"small": false}}));
    }

    #[test]
    fn fields_named_like_keywords_are_fields() {
        // A property is a schema whatever its name; so is a definition.
        let optional = json!({"type": ["string", "null"], "default": null});
        let schema = json!({
            "type": "object",
            "properties": {
                "title": optional,
                "description": optional,
                "default": optional,
                "examples": {"$ref": "#/$defs/default"},
            },
            "$defs": {"default": {"type": ["integer", "null"]}}
        });
        assert_eq!(null_alternatives(&schema), 7);
        let portable = without_null(&schema);
        assert_eq!(null_alternatives(&portable), 0, "{portable:#}");
        assert_eq!(portable["properties"]["title"], json!({"type": "string"}));
        assert_eq!(portable["$defs"]["default"], json!({"type": "integer"}));

        let output = output::output_without_null(&json!({
            "type": "object",
            "properties": {"title": {"type": "object", "properties": {"default": optional}, "required": ["default"]}},
            "required": ["title"],
        }));
        assert_eq!(
            output["properties"]["title"],
            json!({"type": "object", "properties": {"default": {"type": "string"}}, "required": []}),
            "{output:#}"
        );
    }
}
