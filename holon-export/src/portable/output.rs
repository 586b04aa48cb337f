//! The portable form of a result schema (MCP's `outputSchema`), and the result that
//! fits it.
//!
//! A result's `Option` field is always written, as `null` when empty, so the
//! canonical result schema lists it as required and `"type": [T, "null"]`. The
//! portable form lists such a property as its type alone and not required, and the
//! result sent beside it ([`without_null_members`]) leaves the `null` member out:
//! an absent member says the same, and a client that checks the result against the
//! schema (the MCP SDKs do) still finds it fits. Only properties change: a `null`
//! among an array's items or a map's values is data the schema keeps describing,
//! and so is any `null` inside a free-form value.

use holon_core::schema::resolve_local_ref;
use serde_json::{Map, Value};

use super::{is_null_schema, strip_object, subschemas_mut};

/// How deep `anyOf`/`oneOf`/`allOf` branches and `$ref`s are followed to find a
/// property's schema (a recursive type's schema refers to itself).
const MAX_BRANCH_DEPTH: usize = 8;

/// `schema` with every property that may be `null` listed as its type alone and
/// not required, at every depth.
pub fn output_without_null(schema: &Value) -> Value {
    let mut schema = schema.clone();
    unrequire_nullable(&mut schema);
    schema
}

/// Whether a property's schema takes `null` itself (not only inside it): a type
/// list with `null`, `{"type": "null"}`, `null` in `enum`, or a `null` branch.
pub fn is_nullable(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return false;
    };
    let null = Value::String("null".into());
    match map.get("type") {
        Some(Value::Array(types)) if types.contains(&null) => return true,
        Some(name) if *name == null => return true,
        _ => {}
    }
    map.get("enum")
        .and_then(Value::as_array)
        .is_some_and(|values| values.contains(&Value::Null))
        || ["anyOf", "oneOf"].iter().any(|keyword| {
            map.get(*keyword)
                .and_then(Value::as_array)
                .is_some_and(|branches| branches.iter().any(is_null_schema))
        })
}

fn unrequire_nullable(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            portable_properties(map);
            subschemas_mut(map).for_each(unrequire_nullable);
        }
        Value::Array(items) => items.iter_mut().for_each(unrequire_nullable),
        _ => {}
    }
}

/// The properties of one object schema that may be `null`: out of `required`, and
/// without their `null` alternative (a property that is only ever `null` is never
/// sent: `false`).
fn portable_properties(map: &mut Map<String, Value>) {
    let Some(Value::Object(properties)) = map.get_mut("properties") else {
        return;
    };
    let mut nullable = Vec::new();
    for (name, property) in properties.iter_mut() {
        if !is_nullable(property) {
            continue;
        }
        nullable.push(name.clone());
        if is_null_schema(property) {
            *property = Value::Bool(false);
        } else if let Value::Object(property) = property {
            strip_object(property);
        }
    }
    if let Some(Value::Array(required)) = map.get_mut("required") {
        required.retain(|name| !nullable.iter().any(|n| Some(n.as_str()) == name.as_str()));
    }
}

/// `value`, a result that fits `schema`, without the `null` members that
/// [`output_without_null`] leaves out of `schema`'s `required`.
pub fn without_null_members(value: &mut Value, schema: &Value) {
    // Only a `null` member can be left out: most results have none, and then the
    // schema is not walked at all.
    if has_null_member(value) {
        leave_out_nulls(value, schema, schema);
    }
}

/// Whether `value` has a `null` object member at any depth.
fn has_null_member(value: &Value) -> bool {
    match value {
        Value::Object(members) => members
            .values()
            .any(|member| member.is_null() || has_null_member(member)),
        Value::Array(items) => items.iter().any(has_null_member),
        _ => false,
    }
}

fn leave_out_nulls(value: &mut Value, schema: &Value, root: &Value) {
    let mut branches = Vec::new();
    collect_branches(schema, root, 0, &mut branches);
    match value {
        Value::Object(members) => {
            let schemas_of = |key: &str| -> Vec<&Value> {
                let properties: Vec<&Value> = branches
                    .iter()
                    .filter_map(|branch| branch.get("properties")?.get(key))
                    .collect();
                if !properties.is_empty() {
                    return properties;
                }
                // A map's values.
                branches
                    .iter()
                    .filter_map(|branch| branch.get("additionalProperties"))
                    .collect()
            };
            members.retain(|key, member| {
                !(member.is_null()
                    && branches.iter().any(|branch| {
                        branch
                            .get("properties")
                            .and_then(|properties| properties.get(key))
                            .is_some_and(is_nullable)
                    }))
            });
            for (key, member) in members.iter_mut() {
                for property in schemas_of(key) {
                    leave_out_nulls(member, property, root);
                }
            }
        }
        Value::Array(items) => {
            for item_schema in branches.iter().filter_map(|branch| branch.get("items")) {
                for item in items.iter_mut() {
                    leave_out_nulls(item, item_schema, root);
                }
            }
        }
        _ => {}
    }
}

/// `schema` (its `$ref` followed) and the branches of its `anyOf`, `oneOf` and
/// `allOf`, at every depth: each may hold the properties a value has.
fn collect_branches<'s>(
    schema: &'s Value,
    root: &'s Value,
    depth: usize,
    out: &mut Vec<&'s Value>,
) {
    if depth > MAX_BRANCH_DEPTH {
        return;
    }
    let schema = resolve_local_ref(root, schema);
    out.push(schema);
    for keyword in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = schema.get(keyword) {
            for branch in branches {
                collect_branches(branch, root, depth + 1, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::portable::null_alternatives;

    #[test]
    fn nullable_properties_are_optional_and_their_nulls_are_left_out() {
        let schema = json!({
            "type": "object",
            "properties": {
                "owner": {"type": ["string", "null"]},
                "current": {"anyOf": [{"$ref": "#/$defs/Step"}, {"type": "null"}]},
                "steps": {"type": "array", "items": {"$ref": "#/$defs/Step"}},
                "slots": {"type": "array", "items": {"type": ["integer", "null"]}},
                "nothing": {"type": "null"}
            },
            "required": ["owner", "current", "steps", "slots", "nothing"],
            "$defs": {"Step": {
                "type": "object",
                "properties": {"done_at": {"type": ["integer", "null"]}, "data": true},
                "required": ["done_at", "data"]
            }}
        });
        let portable = output_without_null(&schema);
        // The array's items keep theirs: an item cannot be left out.
        assert_eq!(null_alternatives(&portable), 1, "{portable:#}");
        assert_eq!(portable["required"], json!(["steps", "slots"]));
        assert_eq!(portable["properties"]["nothing"], json!(false));
        assert_eq!(portable["$defs"]["Step"]["required"], json!(["data"]));

        let mut value = json!({
            "owner": null, "current": null, "nothing": null, "slots": [null, 1],
            "steps": [{"done_at": null, "data": {"kept": null}}, {"done_at": 3, "data": null}]
        });
        without_null_members(&mut value, &schema);
        assert_eq!(
            value,
            json!({
                "slots": [null, 1],
                "steps": [{"data": {"kept": null}}, {"done_at": 3, "data": null}]
            })
        );
        let validator = jsonschema::draft202012::new(&portable).unwrap();
        assert!(validator.is_valid(&value));

        // A null member only deep down (in an array's item) is found too.
        let mut nested =
            json!({"steps": [{"done_at": 3, "data": 1}, {"done_at": null, "data": 2}]});
        without_null_members(&mut nested, &schema);
        assert_eq!(
            nested,
            json!({"steps": [{"done_at": 3, "data": 1}, {"data": 2}]})
        );
    }
}
