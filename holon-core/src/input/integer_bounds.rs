//! The lean build's stand-in for a schema validator: without holon-core's `validate`
//! feature, the one bound holon adds to schemas itself, ±2^53 - 1 on a 64-bit integer
//! (see [`crate::schema::MAX_SAFE_INTEGER`]), is checked by walking the input along
//! its schema. Every other constraint serde does not check makes the registry refuse
//! the tool (see [`crate::schema::unchecked`]), so this is all a lean entry checks.
//!
//! Hand-written rather than a validator crate: the only one that checks JSON Schema is
//! `jsonschema`, which is exactly what a lean build leaves out, and this checks one
//! keyword pair (`minimum`, `maximum`) where the input's value meets it.

// A default build compiles it for its tests only.
#![cfg_attr(feature = "validate", allow(dead_code))]

use serde_json::Value;

use crate::input::problems::{Category, Problem, Problems, join_path};
use crate::result::error::ToolError;
use crate::schema::resolve_local_ref;

/// The most subschema visits one check makes: a hostile input nested in a recursive
/// untagged enum must not cost time exponential in its depth. Past it the input is
/// let through to the typed parse, which still holds every value in its Rust type
/// exactly: the bound is about what JSON clients hold, not about memory safety.
const MAX_VISITS: usize = 100_000;

/// Checks the integer bounds of an input schema (a lean build's "validator").
pub(crate) struct Validator {
    schema: Value,
}

/// How a value fits one subschema.
enum Fit {
    Fits,
    /// The value is not of this subschema's shape (another branch of an `anyOf` is meant).
    Mismatch,
    /// Of this shape, but a number is out of its bound: the error says which.
    OutOfRange(ToolError),
}

impl Validator {
    /// The validator of `schema`, an input schema whose only constraints serde does
    /// not check are integer bounds.
    pub(crate) fn new(schema: &Value) -> Self {
        Self {
            schema: schema.clone(),
        }
    }

    /// Whether `value` keeps within every bound of the schema.
    pub(crate) fn is_valid(&self, value: &Value) -> bool {
        self.out_of_range(value).is_none()
    }

    /// The first number of `value` outside its bound, as an input error naming it.
    pub(crate) fn out_of_range(&self, value: &Value) -> Option<ToolError> {
        let mut walk = Walk {
            root: &self.schema,
            visits: 0,
        };
        match walk.fit(&self.schema, value, "") {
            Fit::OutOfRange(error) => Some(error),
            Fit::Fits | Fit::Mismatch => None,
        }
    }

    /// Adds the number outside its bound, if any, to `out`.
    pub(crate) fn collect(&self, value: &Value, out: &mut Problems) {
        if let Some(error) = self.out_of_range(value) {
            out.push(Problem::new(Category::Constraint, error));
        }
    }
}

struct Walk<'s> {
    root: &'s Value,
    visits: usize,
}

impl Walk<'_> {
    fn fit(&mut self, schema: &Value, value: &Value, path: &str) -> Fit {
        self.visits += 1;
        if self.visits > MAX_VISITS {
            return Fit::Fits;
        }
        let schema = resolve_local_ref(self.root, schema);
        let Some(map) = schema.as_object() else {
            return match schema {
                Value::Bool(false) => Fit::Mismatch,
                _ => Fit::Fits,
            };
        };
        if !shape_fits(map, value) {
            return Fit::Mismatch;
        }
        let mut found = Fit::Fits;
        let mut add = |fit: Fit| match (&found, fit) {
            (Fit::Mismatch, _) | (_, Fit::Fits) => {}
            (_, Fit::Mismatch) => found = Fit::Mismatch,
            (Fit::Fits, out_of_range) => found = out_of_range,
            (Fit::OutOfRange(_), Fit::OutOfRange(_)) => {}
        };
        if let Value::Number(number) = value {
            add(bounds(map, number, path));
        }
        match value {
            Value::Object(fields) => {
                let properties = map.get("properties").and_then(Value::as_object);
                for (key, inner) in fields {
                    let sub = properties
                        .and_then(|properties| properties.get(key))
                        .or_else(|| map.get("additionalProperties"));
                    if let Some(sub) = sub {
                        add(self.fit(sub, inner, &join_path(path, key)));
                    }
                }
            }
            Value::Array(items) => {
                let prefix = map.get("prefixItems").and_then(Value::as_array);
                for (index, item) in items.iter().enumerate() {
                    let sub = prefix
                        .and_then(|prefix| prefix.get(index))
                        .or_else(|| map.get("items"));
                    if let Some(sub) = sub {
                        add(self.fit(sub, item, &format!("{path}[{index}]")));
                    }
                }
            }
            _ => {}
        }
        for branch in map
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            add(self.fit(branch, value, path));
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = map.get(key).and_then(Value::as_array) {
                add(self.any_branch(branches, value, path));
            }
        }
        found
    }

    /// The fit of the branch `value` fits, else of one it is out of range in.
    fn any_branch(&mut self, branches: &[Value], value: &Value, path: &str) -> Fit {
        let mut out_of_range = None;
        for branch in branches {
            match self.fit(branch, value, path) {
                Fit::Fits => return Fit::Fits,
                Fit::OutOfRange(error) => {
                    out_of_range.get_or_insert(error);
                }
                Fit::Mismatch => {}
            }
        }
        out_of_range.map_or(Fit::Mismatch, Fit::OutOfRange)
    }
}

/// Whether `value` has the kind, constant, enum value and required fields `schema`
/// asks for: what tells the branches of an enum apart.
fn shape_fits(schema: &serde_json::Map<String, Value>, value: &Value) -> bool {
    let kind_fits = |kind: &Value| match (kind.as_str(), value) {
        (Some("null"), Value::Null)
        | (Some("boolean"), Value::Bool(_))
        | (Some("string"), Value::String(_))
        | (Some("array"), Value::Array(_))
        | (Some("object"), Value::Object(_))
        | (Some("number"), Value::Number(_)) => true,
        (Some("integer"), Value::Number(number)) => {
            number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|n| n.fract() == 0.0)
        }
        _ => false,
    };
    let type_fits = match schema.get("type") {
        Some(Value::Array(kinds)) => kinds.iter().any(kind_fits),
        Some(kind) => kind_fits(kind),
        None => true,
    };
    let const_fits = schema.get("const").is_none_or(|constant| constant == value);
    let enum_fits = schema
        .get("enum")
        .and_then(Value::as_array)
        .is_none_or(|options| options.contains(value));
    let required_fits = match (schema.get("required").and_then(Value::as_array), value) {
        (Some(required), Value::Object(fields)) => required
            .iter()
            .filter_map(Value::as_str)
            .all(|name| fields.contains_key(name)),
        _ => true,
    };
    type_fits && const_fits && enum_fits && required_fits
}

/// The error of `number` outside the schema's `minimum` or `maximum`, worded as the
/// validator of a default build words it.
fn bounds(schema: &serde_json::Map<String, Value>, number: &serde_json::Number, path: &str) -> Fit {
    let as_wide = |number: &serde_json::Number| {
        number
            .as_i64()
            .map(i128::from)
            .or_else(|| number.as_u64().map(i128::from))
    };
    let compare = |bound: &serde_json::Number| match (as_wide(number), as_wide(bound)) {
        (Some(value), Some(bound)) => value.partial_cmp(&bound),
        _ => number.as_f64()?.partial_cmp(&bound.as_f64()?),
    };
    let violated = [
        (
            "maximum",
            std::cmp::Ordering::Greater,
            "greater than the maximum",
        ),
        ("minimum", std::cmp::Ordering::Less, "less than the minimum"),
    ]
    .into_iter()
    .find_map(|(keyword, beyond, words)| {
        let bound = schema.get(keyword).and_then(Value::as_number)?;
        (compare(bound)? == beyond).then_some((keyword, words, bound))
    });
    let Some((keyword, words, bound)) = violated else {
        return Fit::Fits;
    };
    let subject = if path.is_empty() {
        "the input".to_string()
    } else {
        format!("`{path}`")
    };
    let mut error = ToolError::invalid_input(format!("{subject}: {number} is {words} of {bound}"))
        .with_details(serde_json::json!({ "keyword": keyword }));
    if !path.is_empty() {
        error = error.with_field(path);
    }
    Fit::OutOfRange(error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field(error: Option<ToolError>) -> Option<String> {
        error.and_then(|error| error.field)
    }

    #[test]
    fn finds_a_bound_where_the_value_meets_it() {
        let schema = json!({
            "type": "object", "additionalProperties": false,
            "properties": {
                "n": {"type": "integer", "minimum": 0, "maximum": 10},
                "list": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                "maybe": {"type": ["integer", "null"], "minimum": -5, "maximum": 5},
                "ratio": {"type": "number"}
            },
            "$defs": {"Item": {"type": "object", "properties": {"m": {"type": "integer", "maximum": 3}}}}
        });
        let validator = Validator::new(&schema);
        assert!(
            validator
                .is_valid(&json!({"n": 10, "list": [{"m": 3}], "maybe": null, "ratio": 1e300}))
        );
        let error = validator.out_of_range(&json!({"n": 11})).unwrap();
        assert_eq!(error.message, "`n`: 11 is greater than the maximum of 10");
        assert_eq!(error.kind.as_str(), "invalid_tool_input");
        assert_eq!(
            field(validator.out_of_range(&json!({"list": [{"m": 1}, {"m": 4}]}))),
            Some("list[1].m".to_string())
        );
        assert_eq!(
            field(validator.out_of_range(&json!({"maybe": -6}))),
            Some("maybe".to_string())
        );
    }

    #[test]
    fn an_enum_is_checked_in_the_branch_its_value_is_of() {
        // A tagged enum: `{"op": "big", "n": u64}` or `{"op": "small", "n": u8}`.
        let schema = json!({"oneOf": [
            {"type": "object", "properties": {"op": {"const": "big"}, "n": {"type": "integer", "maximum": 1000}}, "required": ["op"]},
            {"type": "object", "properties": {"op": {"const": "small"}, "n": {"type": "integer", "maximum": 10}}, "required": ["op"]},
        ]});
        let validator = Validator::new(&schema);
        assert!(validator.is_valid(&json!({"op": "big", "n": 500})));
        let error = validator
            .out_of_range(&json!({"op": "small", "n": 500}))
            .unwrap();
        assert!(error.message.contains("maximum of 10"), "{error:?}");
        let error = validator
            .out_of_range(&json!({"op": "big", "n": 5000}))
            .unwrap();
        assert!(error.message.contains("maximum of 1000"), "{error:?}");
        // An externally tagged one: the branch is the one whose key the value has.
        let schema = json!({"oneOf": [
            {"type": "object", "properties": {"Add": {"type": "integer", "maximum": 1}}, "required": ["Add"]},
            {"type": "object", "properties": {"Sub": {"type": "integer"}}, "required": ["Sub"]},
        ]});
        let validator = Validator::new(&schema);
        assert_eq!(
            field(validator.out_of_range(&json!({"Add": 2}))),
            Some("Add".to_string())
        );
        assert!(validator.is_valid(&json!({"Sub": 2})));
    }
}
