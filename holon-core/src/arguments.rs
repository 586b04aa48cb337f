//! Typed parsing of a tool's arguments, with the exact field path on error.
//!
//! The input is moved into the deserializer, never cloned. Serde's messages are turned
//! into typed errors: an unknown field names the closest valid one, a missing field is
//! named in the path, a wrong enum value lists the valid ones.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Value, json};

use crate::context::ToolInput;
use crate::error::{ToolError, ToolErrorKind};
use crate::hints::closest;
use crate::tool::{FromFreeform, ToolArgs};

/// Parses a JSON input into `T`.
pub fn parse_arguments<T: ToolArgs>(input: ToolInput) -> Result<T, ToolError> {
    match input {
        ToolInput::Json(value) => parse_json(value),
        ToolInput::Freeform(_) => Err(ToolError::invalid_input(
            "this tool takes a JSON object, not raw text",
        )),
    }
}

/// Parses a JSON input or the raw text of a freeform call into `T`.
pub fn parse_freeform_arguments<T: ToolArgs + FromFreeform>(
    input: ToolInput,
) -> Result<T, ToolError> {
    match input {
        ToolInput::Json(value) => parse_json(value),
        ToolInput::Freeform(text) => T::from_freeform(text),
    }
}

/// Checks the input of a tool without arguments: an empty object.
pub fn parse_no_arguments(input: ToolInput) -> Result<(), ToolError> {
    match input {
        ToolInput::Json(Value::Object(map)) => match map.keys().next() {
            None => Ok(()),
            Some(field) => Err(unknown_field(field, "", &[])),
        },
        ToolInput::Json(_) | ToolInput::Freeform(_) => Err(ToolError::invalid_input(
            "this tool takes no arguments: send an empty object `{}`",
        )),
    }
}

/// The input schema of `T`.
pub fn arguments_schema<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.root_schema_for::<T>()
}

/// The schema of a tool without arguments.
pub fn empty_arguments_schema() -> Schema {
    Schema::try_from(crate::schema::empty_object_schema()).unwrap_or_default()
}

/// The field names `#[derive(ToolArgs)]` recorded.
pub fn argument_fields<T: ToolArgs>() -> &'static [&'static str] {
    T::FIELDS
}

fn parse_json<T: ToolArgs>(value: Value) -> Result<T, ToolError> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        let path = if path == "." { String::new() } else { path };
        classify(&path, &error.inner().to_string())
    })
}

/// Joins a parent path and a field name: `todo_list[2]` + `state`.
pub(crate) fn join_path(parent: &str, field: &str) -> String {
    if parent.is_empty() {
        field.to_string()
    } else {
        format!("{parent}.{field}")
    }
}

fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// Builds an `unknown_field` error; `expected` are the valid fields at that level.
pub(crate) fn unknown_field(field: &str, parent: &str, expected: &[&str]) -> ToolError {
    let path = join_path(parent, field);
    let mut error = ToolError::new(
        ToolErrorKind::UNKNOWN_FIELD,
        format!("unknown field `{path}`: this tool does not accept it"),
    )
    .with_field(path)
    .with_details(json!({ "unknown": field, "expected": expected }));
    error.recovery_hint = Some(match closest(field, expected.iter().copied()) {
        Some(best) => format!("did you mean `{best}`?"),
        None if expected.is_empty() => "remove it: no fields are accepted here".to_string(),
        None => format!("remove it; valid fields here: {}", expected.join(", ")),
    });
    error
}

/// Turns serde's message at `path` into a typed error.
fn classify(path: &str, message: &str) -> ToolError {
    let names = backticked(message);
    if message.starts_with("unknown field") {
        if let Some((field, expected)) = names.split_first() {
            // serde_path_to_error's path ends with the unknown field itself.
            let parent = path
                .strip_suffix(field)
                .map(|p| p.trim_end_matches('.'))
                .unwrap_or(path);
            return unknown_field(field, parent, expected);
        }
    }
    if message.starts_with("missing field") {
        if let Some(field) = names.first() {
            let full = join_path(path, field);
            return ToolError::invalid_input(format!("missing required field `{full}`"))
                .with_field(full.clone())
                .with_hint(format!("add `{full}` to the input"));
        }
    }
    if message.starts_with("unknown variant") {
        if let Some((value, expected)) = names.split_first() {
            let mut error = ToolError::invalid_input(format!(
                "`{path}` has the value `{value}`, which is not one of: {}",
                expected.join(", ")
            ))
            .with_field(path)
            .with_details(json!({ "value": value, "expected": expected }));
            error.recovery_hint = Some(match closest(value, expected.iter().copied()) {
                Some(best) => format!("did you mean `{best}`?"),
                None => format!("use one of: {}", expected.join(", ")),
            });
            return error;
        }
    }
    let subject = if path.is_empty() {
        "the input".to_string()
    } else {
        format!("`{path}`")
    };
    let mut error = ToolError::invalid_input(format!("{subject}: {message}"));
    if !path.is_empty() {
        error = error.with_field(path);
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_serde_messages() {
        let error = classify(
            "todo_list[2].state",
            "unknown variant `don`, expected one of `pending`, `done`",
        );
        assert_eq!(error.kind, ToolErrorKind::INVALID_TOOL_INPUT);
        assert_eq!(error.field.as_deref(), Some("todo_list[2].state"));
        assert_eq!(error.recovery_hint.as_deref(), Some("did you mean `done`?"));

        let error = classify("items[0]", "missing field `cmd`");
        assert_eq!(error.field.as_deref(), Some("items[0].cmd"));

        let error = classify(
            "reasn",
            "unknown field `reasn`, expected one of `reason`, `wake`",
        );
        assert_eq!(error.kind, ToolErrorKind::UNKNOWN_FIELD);
        assert_eq!(error.field.as_deref(), Some("reasn"));
        assert_eq!(
            error.recovery_hint.as_deref(),
            Some("did you mean `reason`?")
        );
    }
}
