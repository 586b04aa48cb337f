//! The kind of a JSON value, as an error message names it.

use serde_json::Value;

/// The kind of `value` with its article, for a message that says what was found
/// instead of what was expected: `null`, `a boolean`, `a number`, `a string`,
/// `an array` or `an object`.
///
/// ```
/// use serde_json::json;
///
/// assert_eq!(holon_core::json_kind(&json!([1, 2])), "an array");
/// assert_eq!(holon_core::json_kind(&json!(null)), "null");
/// ```
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
