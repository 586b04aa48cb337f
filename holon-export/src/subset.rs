//! OpenAI's strict subset of JSON Schema as documented: the keywords and string
//! formats it supports, the keywords it cannot express, and its size limits.
//!
//! Source: OpenAI, Structured Outputs guide, "Supported schemas"
//! (<https://platform.openai.com/docs/guides/structured-outputs#supported-schemas>).

use serde_json::Value;

use crate::lower_error::{self, LowerError};

/// At most this many object properties in one schema, in total.
pub const MAX_OBJECT_PROPERTIES: usize = 5_000;
/// At most this many levels of nested objects.
pub const MAX_NESTING_DEPTH: usize = 10;
/// At most this many characters in all property names, definition names, enum values
/// and const values together.
pub const MAX_TOTAL_STRING_LENGTH: usize = 120_000;
/// At most this many enum values across the whole schema.
pub const MAX_ENUM_VALUES: usize = 1_000;
/// A single string enum with more values than this ...
pub const LARGE_ENUM_VALUES: usize = 250;
/// ... may have at most this many characters in all its values together.
pub const MAX_LARGE_ENUM_STRING_LENGTH: usize = 15_000;

/// The string formats strict mode supports.
pub const SUPPORTED_STRING_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// The keywords strict mode supports.
pub const SUPPORTED_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "$ref",
    "$defs",
    "definitions",
    "pattern",
    "format",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
];

/// Keywords that decide which values are valid in a way strict mode cannot express:
/// a schema that uses one cannot be lowered.
pub const UNLOWERABLE_KEYWORDS: &[&str] = &[
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "prefixItems",
    "contains",
    "minContains",
    "maxContains",
];

/// What the documented limits count, over a lowered schema.
#[derive(Debug, Default)]
struct Tally {
    properties: usize,
    string_length: usize,
    enum_values: usize,
}

/// Checks the documented size limits of a strict schema: total properties, nesting
/// depth, total string length, enum values.
pub fn check_strict_limits(schema: &Value) -> Result<(), LowerError> {
    let mut tally = Tally::default();
    walk(schema, "", 0, &mut tally)?;
    if tally.properties > MAX_OBJECT_PROPERTIES {
        return Err(lower_error::error(
            "properties",
            "",
            format!(
                "the schema has {} object properties; the limit is {MAX_OBJECT_PROPERTIES}",
                tally.properties
            ),
        ));
    }
    if tally.string_length > MAX_TOTAL_STRING_LENGTH {
        return Err(lower_error::error(
            "properties",
            "",
            format!(
                "its names and enum and const values have {} characters; the limit is {MAX_TOTAL_STRING_LENGTH}",
                tally.string_length
            ),
        ));
    }
    if tally.enum_values > MAX_ENUM_VALUES {
        return Err(lower_error::error(
            "enum",
            "",
            format!(
                "the schema has {} enum values; the limit is {MAX_ENUM_VALUES}",
                tally.enum_values
            ),
        ));
    }
    Ok(())
}

fn walk(schema: &Value, path: &str, depth: usize, tally: &mut Tally) -> Result<(), LowerError> {
    let Some(map) = schema.as_object() else {
        return Ok(());
    };
    let is_object = map.contains_key("properties");
    let depth = depth + usize::from(is_object);
    if depth > MAX_NESTING_DEPTH {
        return Err(lower_error::error(
            "properties",
            path,
            format!("objects nest {depth} levels deep; the limit is {MAX_NESTING_DEPTH}"),
        ));
    }
    if let Some(values) = map.get("enum").and_then(Value::as_array) {
        let length: usize = values.iter().filter_map(Value::as_str).map(str::len).sum();
        tally.enum_values += values.len();
        tally.string_length += length;
        if values.len() > LARGE_ENUM_VALUES && length > MAX_LARGE_ENUM_STRING_LENGTH {
            return Err(lower_error::error(
                "enum",
                path,
                format!(
                    "an enum of {} values has {length} characters; past {LARGE_ENUM_VALUES} values the limit is {MAX_LARGE_ENUM_STRING_LENGTH}",
                    values.len()
                ),
            ));
        }
    }
    if let Some(text) = map.get("const").and_then(Value::as_str) {
        tally.string_length += text.len();
    }
    for key in ["properties", "$defs", "definitions"] {
        if let Some(entries) = map.get(key).and_then(Value::as_object) {
            for (name, sub) in entries {
                if key == "properties" {
                    tally.properties += 1;
                }
                tally.string_length += name.len();
                let inner = if key == "properties" { depth } else { 0 };
                walk(
                    sub,
                    &format!("{path}/{key}/{}", lower_error::escape(name)),
                    inner,
                    tally,
                )?;
            }
        }
    }
    if let Some(items) = map.get("items") {
        walk(items, &format!("{path}/items"), depth, tally)?;
    }
    if let Some(branches) = map.get("anyOf").and_then(Value::as_array) {
        for (i, branch) in branches.iter().enumerate() {
            walk(branch, &format!("{path}/anyOf/{i}"), depth, tally)?;
        }
    }
    Ok(())
}
