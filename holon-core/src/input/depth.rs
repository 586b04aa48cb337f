//! The nesting limit of an input, and freeing a value without recursion.

use serde_json::Value;

/// Inputs nested deeper than this are refused before anything recurses into them.
pub const MAX_INPUT_DEPTH: usize = 128;

/// Whether `value` nests deeper than `limit`. Recursion stops at `limit`, so the
/// stack stays bounded whatever the input, and nothing is allocated.
pub(crate) fn exceeds_depth(value: &Value, limit: usize) -> bool {
    let Some(remaining) = limit.checked_sub(1) else {
        return true;
    };
    match value {
        Value::Array(items) => items.iter().any(|item| exceeds_depth(item, remaining)),
        Value::Object(map) => map.values().any(|item| exceeds_depth(item, remaining)),
        _ => false,
    }
}

/// Drops a value without recursion, so that a maliciously deep input cannot overflow
/// the stack when it is freed.
pub(crate) fn dispose(value: Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}
