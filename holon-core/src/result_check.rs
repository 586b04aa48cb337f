//! Debug builds check every structured result against the tool's result schema: a
//! result type whose `Serialize` disagrees with its `JsonSchema` (a custom impl, a
//! `serialize_with`) would otherwise publish a schema the results break. Only with
//! holon-core's `validate` feature: without it there is no validator to check with.

use serde_json::{Value, json};

use crate::registry::Entry;
use crate::result::error::{ToolError, ToolErrorKind};
use crate::result::structured::Structured;

/// `Ok` when `value` fits the result schema of `entry`'s tool, or the checks are off
/// (a release build). The validator is compiled on the tool's first result.
pub(crate) fn check_result(entry: &Entry, result: &Structured) -> Result<(), ToolError> {
    if !cfg!(debug_assertions) {
        return Ok(());
    }
    let mismatches = mismatches(entry, result);
    let Some((first_path, first_message)) = mismatches.first() else {
        return Ok(());
    };
    let name = &entry.definition.spec.name;
    let at = if first_path.is_empty() {
        "the result itself".to_string()
    } else {
        format!("`{first_path}`")
    };
    let problems: Vec<Value> = mismatches
        .iter()
        .map(|(path, message)| json!({ "instance_path": path, "message": message }))
        .collect();
    Err(ToolError::new(
        ToolErrorKind::RESULT_SCHEMA_MISMATCH,
        format!(
            "the result of `{name}` does not match its result schema at {at}: {first_message}"
        ),
    )
    .with_details(json!({ "tool": name.as_ref(), "problems": problems }))
    .with_hint(
        "this is a bug in the tool, not in the call: its result type's `Serialize` and `JsonSchema` disagree",
    ))
}

/// Every place `result` breaks the result schema, as (instance path, message).
#[cfg(feature = "validate")]
fn mismatches(entry: &Entry, result: &Structured) -> Vec<(String, String)> {
    let Some(validator) = entry.result_validator() else {
        return Vec::new();
    };
    validator
        .iter_errors(result.as_value())
        .map(|error| (error.instance_path().to_string(), error.to_string()))
        .collect()
}

/// Without the `validate` feature results are not checked (there is no validator).
#[cfg(not(feature = "validate"))]
fn mismatches(_entry: &Entry, _result: &Structured) -> Vec<(String, String)> {
    Vec::new()
}
