//! Lowering a canonical input schema to OpenAI's strict subset, and reading strict
//! arguments back.
//!
//! Strict mode constrains a model's arguments to the schema, but accepts only a subset
//! of JSON Schema. [`lower`] rewrites a canonical schema into it without changing which
//! calls succeed:
//!
//! - every property is listed in `required`; one that was optional becomes a union
//!   with `null` (a `null` then means "not given": see [`restore_omitted`]);
//! - every object gets `additionalProperties: false`;
//! - `oneOf` becomes `anyOf` (the framework's `oneOf` branches are disjoint);
//! - `$ref` with sibling keywords is inlined;
//! - keywords strict mode does not support but that only narrow values (`minLength`,
//!   `maxLength`, `default`, `uniqueItems`, unsupported string formats, ...) move into
//!   the description, and the dispatcher still enforces them;
//! - keywords whose meaning strict mode cannot express (`allOf`, `not`, `if`,
//!   `patternProperties`, an open object, a value without a type, ...) and schemas past
//!   the documented limits cannot be lowered: [`lower`] returns a [`LowerError`] that
//!   names the keyword, and the exporter sends the tool with `strict: false`.
//!
//! Source of the subset and of its limits (the constants re-exported here): OpenAI,
//! Structured Outputs guide, "Supported schemas"
//! (<https://platform.openai.com/docs/guides/structured-outputs#supported-schemas>),
//! which function calling with `strict: true` follows
//! (<https://platform.openai.com/docs/guides/function-calling#strict-mode>).
//! The limits as documented there: at most 5,000 object properties in total and 10
//! levels of nesting; at most 120,000 characters in all property names, definition
//! names, enum values and const values; at most 1,000 enum values; and, for a single
//! string enum of more than 250 values, at most 15,000 characters in its values.

use serde_json::{Map, Value, json};

pub use crate::lower_error::LowerError;
use crate::lower_error::{error, escape};
pub use crate::subset::{
    LARGE_ENUM_VALUES, MAX_ENUM_VALUES, MAX_LARGE_ENUM_STRING_LENGTH, MAX_NESTING_DEPTH,
    MAX_OBJECT_PROPERTIES, MAX_TOTAL_STRING_LENGTH, SUPPORTED_KEYWORDS, SUPPORTED_STRING_FORMATS,
    UNLOWERABLE_KEYWORDS,
};

/// Annotations without meaning for a model, dropped from the lowered schema.
const DROPPED_KEYWORDS: &[&str] = &["$schema", "$id", "$comment", "title"];

/// Guards `$ref` inlining against a cycle of references.
const MAX_DEPTH: usize = 64;

/// Lowers `schema` (a closed object schema, as every tool's input schema is) to the
/// strict subset, or says which keyword prevents it.
pub fn lower(schema: &Value) -> Result<Value, LowerError> {
    let Some(root) = schema.as_object() else {
        return Err(error("type", "", "the root must be an object schema"));
    };
    for keyword in ["anyOf", "oneOf"] {
        if root.contains_key(keyword) {
            return Err(error(
                keyword,
                "",
                "the root must be an object, not a union",
            ));
        }
    }
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return Err(error(
            "type",
            "",
            "the root must have `\"type\": \"object\"`",
        ));
    }
    let lowered = Lowerer { root: schema }.node(schema, "", 0)?;
    crate::subset::check_strict_limits(&lowered)?;
    Ok(lowered)
}

struct Lowerer<'a> {
    root: &'a Value,
}

impl Lowerer<'_> {
    fn node(&self, schema: &Value, path: &str, depth: usize) -> Result<Value, LowerError> {
        if depth > MAX_DEPTH {
            return Err(error("$ref", path, "the references nest without end"));
        }
        let map = match schema {
            Value::Object(map) => map,
            Value::Bool(true) => {
                return Err(error(
                    "type",
                    path,
                    "it accepts any value; strict mode needs a type",
                ));
            }
            _ => return Err(error("not", path, "it accepts no value at all")),
        };
        if map.contains_key("$ref") && map.len() > 1 {
            let merged = self.inline_ref(map, path)?;
            return self.node(&Value::Object(merged), path, depth + 1);
        }
        if map.contains_key("anyOf") && map.contains_key("oneOf") {
            return Err(error(
                "oneOf",
                path,
                "`oneOf` next to `anyOf` has no strict form",
            ));
        }
        let types = type_names(map);
        let mut out = Map::new();
        let mut moved = Vec::new();
        for (key, value) in map {
            let key = key.as_str();
            let at = format!("{path}/{key}");
            match key {
                _ if DROPPED_KEYWORDS.contains(&key) => {}
                _ if UNLOWERABLE_KEYWORDS.contains(&key) => {
                    return Err(error(key, path, "its meaning has no strict form"));
                }
                "anyOf" | "oneOf" => {
                    let branches = value
                        .as_array()
                        .ok_or_else(|| error(key, path, "it must be an array"))?;
                    let lowered = branches
                        .iter()
                        .enumerate()
                        .map(|(i, branch)| self.node(branch, &format!("{at}/{i}"), depth + 1))
                        .collect::<Result<Vec<_>, _>>()?;
                    out.insert("anyOf".to_string(), Value::Array(lowered));
                }
                "properties" | "$defs" | "definitions" => {
                    let entries = value
                        .as_object()
                        .ok_or_else(|| error(key, path, "it must be an object"))?;
                    let mut lowered = Map::new();
                    for (name, sub) in entries {
                        let sub_path = format!("{at}/{}", escape(name));
                        lowered.insert(name.clone(), self.node(sub, &sub_path, depth + 1)?);
                    }
                    out.insert(key.to_string(), Value::Object(lowered));
                }
                "items" if value.is_array() => {
                    return Err(error("items", path, "tuple arrays have no strict form"));
                }
                "items" => {
                    out.insert(key.to_string(), self.node(value, &at, depth + 1)?);
                }
                "additionalProperties" if *value == Value::Bool(false) => {
                    out.insert(key.to_string(), value.clone());
                }
                "additionalProperties" => {
                    return Err(error(
                        key,
                        path,
                        "an object that takes properties it does not name (a map) has no strict form",
                    ));
                }
                "required" => {}
                "format" => {
                    let supported = value
                        .as_str()
                        .is_some_and(|format| SUPPORTED_STRING_FORMATS.contains(&format));
                    let numeric = !types.is_empty()
                        && types
                            .iter()
                            .all(|t| matches!(*t, "integer" | "number" | "null"));
                    if supported && types.contains(&"string") {
                        out.insert(key.to_string(), value.clone());
                    } else if !numeric {
                        // A numeric format (`uint64`, `double`) only annotates what the
                        // type and range already say; other formats are told in words.
                        moved.push(describe(key, value));
                    }
                }
                "default" if value.is_null() => {}
                _ if SUPPORTED_KEYWORDS.contains(&key) => {
                    out.insert(key.to_string(), value.clone());
                }
                _ => moved.push(describe(key, value)),
            }
        }
        let constrained = ["type", "anyOf", "enum", "const", "$ref"]
            .iter()
            .any(|keyword| out.contains_key(*keyword));
        if !constrained {
            return Err(error(
                "type",
                path,
                "it accepts any value; strict mode needs a type",
            ));
        }
        if types.contains(&"object") {
            close_object(map, &mut out);
        }
        if types.contains(&"array") && !out.contains_key("items") {
            return Err(error("items", path, "an array must say what its items are"));
        }
        if !moved.is_empty() {
            let note = format!("({})", moved.join("; "));
            let description = match out.get("description").and_then(Value::as_str) {
                Some(text) if !text.is_empty() => format!("{text} {note}"),
                _ => note,
            };
            out.insert("description".to_string(), Value::String(description));
        }
        Ok(Value::Object(out))
    }

    /// `{"$ref": ..., more}`: the target with `more` laid over it.
    fn inline_ref(
        &self,
        map: &Map<String, Value>,
        path: &str,
    ) -> Result<Map<String, Value>, LowerError> {
        let target = map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix('#'))
            .and_then(|pointer| self.root.pointer(pointer))
            .and_then(Value::as_object)
            .ok_or_else(|| error("$ref", path, "it does not point into this schema"))?;
        let mut merged: Map<String, Value> = target
            .iter()
            .filter(|(key, _)| !matches!(key.as_str(), "$defs" | "definitions"))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        for (key, value) in map.iter().filter(|(key, _)| *key != "$ref") {
            merged.insert(key.clone(), value.clone());
        }
        Ok(merged)
    }
}

/// Every property required, the optional ones nullable, no other property allowed.
fn close_object(original: &Map<String, Value>, out: &mut Map<String, Value>) {
    let was_required: Vec<&str> = original
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    out.insert("additionalProperties".to_string(), Value::Bool(false));
    let properties = out
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    let mut required = Vec::new();
    if let Some(properties) = properties.as_object_mut() {
        for (name, schema) in properties.iter_mut() {
            if !was_required.contains(&name.as_str()) {
                *schema = nullable(std::mem::take(schema));
            }
            required.push(Value::String(name.clone()));
        }
    }
    out.insert("required".to_string(), Value::Array(required));
}

/// `schema`, also accepting `null`.
fn nullable(schema: Value) -> Value {
    if accepts_null(&schema) {
        return schema;
    }
    let Value::Object(mut map) = schema else {
        return schema;
    };
    let plain = !map.contains_key("anyOf") && !map.contains_key("const");
    if plain {
        let null_type = match map.get_mut("type") {
            Some(Value::String(name)) => {
                let name = std::mem::take(name);
                map.insert("type".to_string(), json!([name, "null"]));
                true
            }
            Some(Value::Array(names)) => {
                names.push(json!("null"));
                true
            }
            _ => false,
        };
        if null_type {
            if let Some(Value::Array(values)) = map.get_mut("enum") {
                values.push(Value::Null);
            }
            return Value::Object(map);
        }
    }
    let union_only = map
        .keys()
        .all(|key| matches!(key.as_str(), "anyOf" | "description"));
    if let (true, Some(Value::Array(branches))) = (union_only, map.get_mut("anyOf")) {
        branches.push(json!({ "type": "null" }));
        return Value::Object(map);
    }
    let description = holon_core::schema::remove_key(&mut map, "description");
    let mut wrapper = Map::new();
    wrapper.insert(
        "anyOf".to_string(),
        json!([Value::Object(map), { "type": "null" }]),
    );
    if let Some(description) = description {
        wrapper.insert("description".to_string(), description);
    }
    Value::Object(wrapper)
}

/// Whether `schema` itself (without following references) accepts `null`.
fn accepts_null(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return schema == &Value::Bool(true);
    };
    let typed_null = match map.get("type") {
        Some(Value::String(name)) => name == "null",
        Some(Value::Array(names)) => names.iter().any(|name| name == "null"),
        _ => false,
    };
    typed_null
        || map.get("const") == Some(&Value::Null)
        || map
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| values.contains(&Value::Null))
        || ["anyOf", "oneOf"].iter().any(|keyword| {
            map.get(*keyword)
                .and_then(Value::as_array)
                .is_some_and(|branches| branches.iter().any(accepts_null))
        })
}

fn type_names(map: &Map<String, Value>) -> Vec<&str> {
    match map.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn describe(keyword: &str, value: &Value) -> String {
    format!("{keyword}: {value}")
}

/// Turns arguments a model produced against the lowered schema back into the
/// arguments of the canonical one: a `null` for a property that was optional, and
/// whose canonical schema does not accept `null`, means "not given" and is removed.
/// A host that exported strict tools runs this on each call's arguments before
/// dispatching them.
pub fn restore_omitted(canonical: &Value, arguments: &mut Value) {
    crate::restore::restore(canonical, canonical, arguments, 0);
}
