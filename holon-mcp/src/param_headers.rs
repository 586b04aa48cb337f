//! The `x-mcp-header` annotations of a tool's input schema (SEP-2243, MCP
//! 2026-07-28): a property so marked travels twice on streamable HTTP, in the body
//! and in an `Mcp-Param-{Name}` header, so that a gateway can route on it without
//! parsing JSON-RPC. rmcp's transport checks the two agree for the tools the server
//! hands it ([`McpServer`](crate::McpServer)'s `get_tool`); this module decides
//! which tools those are, and refuses a declaration clients would drop.
//!
//! A conforming client leaves out of its `tools/list` a tool whose annotation
//! breaks a rule of the revision, with a warning nobody may read; so a server with
//! such a tool refuses to start, naming the tool, the property and the rule.

use http::HeaderName;
use rmcp::model::JsonObject;
use serde_json::Value;

/// The schema keyword that names a property's header.
const ANNOTATION: &str = "x-mcp-header";

/// Keywords whose values are instance data or property names, not schemas: an
/// annotation spelled there declares nothing.
const NOT_SCHEMAS: &[&str] = &[
    "default",
    "const",
    "enum",
    "examples",
    "required",
    "dependentRequired",
];

/// Whether the input schema `schema` has `x-mcp-header` annotations (`Ok(false)`
/// when it has none), or the rule one of them breaks:
///
/// - it marks a property reached from the root through `properties` alone (not the
///   root, not an array's items, a branch of `anyOf`, a definition);
/// - its value is a non-empty HTTP token (RFC 9110), unique in the tool whatever its
///   case;
/// - the property is a `string`, an `integer` or a `boolean` (one type, not a list
///   of them).
pub(crate) fn check(schema: &JsonObject) -> Result<bool, String> {
    if schema.contains_key(ANNOTATION) {
        return Err(format!(
            "the input schema itself has `{ANNOTATION}`: it marks a property"
        ));
    }
    let mut seen: Vec<String> = Vec::new();
    check_object(schema, &mut Vec::new(), &mut seen)?;
    Ok(!seen.is_empty())
}

/// Checks the properties of `schema` (reached through `path`) and, below, anything
/// else it holds.
fn check_object(
    schema: &JsonObject,
    path: &mut Vec<String>,
    seen: &mut Vec<String>,
) -> Result<(), String> {
    for (keyword, value) in schema {
        match keyword.as_str() {
            ANNOTATION => {} // the caller's property's own: checked there
            "properties" => {
                let Some(properties) = value.as_object() else {
                    continue;
                };
                for (name, property) in properties {
                    let Some(property) = property.as_object() else {
                        continue;
                    };
                    path.push(name.clone());
                    if let Some(header) = property.get(ANNOTATION) {
                        check_annotation(property, header, path, seen)?;
                    }
                    check_object(property, path, seen)?;
                    path.pop();
                }
            }
            keyword if NOT_SCHEMAS.contains(&keyword) => {}
            _ => {
                if let Some(off) = off_chain(value) {
                    let at = if path.is_empty() {
                        format!("under `{keyword}`")
                    } else {
                        format!("under `{}` of `{}`", keyword, path.join("."))
                    };
                    return Err(format!(
                        "`{ANNOTATION}: {off}` is {at}: it may mark only a property reached \
                         from the root through `properties` (not array items, a branch, a definition)"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Checks the annotation `header` of the property `property` at `path`.
fn check_annotation(
    property: &JsonObject,
    header: &Value,
    path: &[String],
    seen: &mut Vec<String>,
) -> Result<(), String> {
    let at = path.join(".");
    let Some(header) = header.as_str() else {
        return Err(format!(
            "property `{at}`: `{ANNOTATION}` is {header}, not a header name"
        ));
    };
    // A header name is an HTTP token (RFC 9110), as `http` checks it.
    if HeaderName::from_bytes(header.as_bytes()).is_err() {
        return Err(format!(
            "property `{at}`: `{ANNOTATION}: {header:?}` is not an HTTP header name; use \
             letters, digits and `-` (it becomes `Mcp-Param-{{name}}`)"
        ));
    }
    let folded = header.to_ascii_lowercase();
    if seen.contains(&folded) {
        return Err(format!(
            "property `{at}`: `{ANNOTATION}: {header}` names the header of another property \
             (header names ignore case)"
        ));
    }
    seen.push(folded);
    match property.get("type") {
        Some(Value::String(kind)) if matches!(kind.as_str(), "string" | "integer" | "boolean") => {
            Ok(())
        }
        kind => Err(format!(
            "property `{at}` (`{ANNOTATION}: {header}`) has type {}: a header carries a \
             `string`, an `integer` or a `boolean` only; for an optional one, give the field \
             the schema of its value (`#[schemars(with = \"String\")]` on an `Option<String>`)",
            kind.map_or_else(|| "none".to_string(), Value::to_string)
        )),
    }
}

/// The value of an annotation anywhere in `value` (a schema, or a list or map of
/// them), reached other than through `properties` alone.
fn off_chain(value: &Value) -> Option<&Value> {
    match value {
        Value::Object(map) => map
            .iter()
            .find_map(|(keyword, inner)| match keyword.as_str() {
                ANNOTATION => Some(inner),
                keyword if NOT_SCHEMAS.contains(&keyword) => None,
                _ => off_chain(inner),
            }),
        Value::Array(items) => items.iter().find_map(off_chain),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn checked(schema: Value) -> Result<bool, String> {
        check(schema.as_object().expect("an object schema"))
    }

    #[test]
    fn primitive_properties_on_the_properties_chain_may_carry_headers() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": { "type": "string", "x-mcp-header": "Region" },
                "limit": { "type": "integer", "x-mcp-header": "Limit" },
                "target": {
                    "type": "object",
                    "properties": { "dry": { "type": "boolean", "x-mcp-header": "Dry-Run" } }
                }
            }
        });
        assert_eq!(checked(schema), Ok(true));
        assert_eq!(
            checked(json!({ "type": "object", "properties": { "a": { "type": "string" } } })),
            Ok(false)
        );
    }

    #[test]
    fn a_declaration_clients_would_drop_is_refused_with_its_rule() {
        let refused = |schema: Value, expected: &str| {
            let error = checked(schema.clone()).expect_err(&schema.to_string());
            assert!(error.contains(expected), "{error}");
        };
        refused(
            json!({ "type": "object", "x-mcp-header": "All" }),
            "the input schema itself",
        );
        refused(
            json!({ "type": "object", "properties": {
                "tags": { "type": "array", "items": { "type": "string", "x-mcp-header": "Tag" } }
            }}),
            "under `items` of `tags`",
        );
        refused(
            json!({ "type": "object", "$defs": {
                "R": { "type": "string", "x-mcp-header": "R" }
            }}),
            "under `$defs`",
        );
        refused(
            json!({ "type": "object", "properties": {
                "a": { "anyOf": [{ "type": "string", "x-mcp-header": "A" }] }
            }}),
            "under `anyOf` of `a`",
        );
        refused(
            json!({ "type": "object", "properties": { "a": { "type": "string", "x-mcp-header": "" } } }),
            "not an HTTP header name",
        );
        refused(
            json!({ "type": "object", "properties": { "a": { "type": "string", "x-mcp-header": "A B" } } }),
            "not an HTTP header name",
        );
        refused(
            json!({ "type": "object", "properties": { "a": { "type": "string", "x-mcp-header": 7 } } }),
            "is 7, not a header name",
        );
        refused(
            json!({ "type": "object", "properties": {
                "a": { "type": "string", "x-mcp-header": "Region" },
                "b": { "type": "string", "x-mcp-header": "REGION" }
            }}),
            "another property",
        );
        refused(
            json!({ "type": "object", "properties": { "a": { "type": "number", "x-mcp-header": "A" } } }),
            "has type \"number\"",
        );
        refused(
            json!({ "type": "object", "properties": {
                "a": { "type": ["string", "null"], "x-mcp-header": "A" }
            }}),
            "with = \"String\"",
        );
    }

    #[test]
    fn instance_data_that_spells_the_keyword_is_not_a_declaration() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": { "type": "object", "default": { "x-mcp-header": "A" },
                       "examples": [{ "x-mcp-header": "B" }] }
            }
        });
        assert_eq!(checked(schema), Ok(false));
    }
}
