//! Typed parsing of a tool's arguments, with the exact field path on error.
//!
//! The input is moved into the deserializer, never cloned. Serde's messages are turned
//! into typed errors: an unknown field names the closest valid one, a missing field is
//! named in the path, a wrong enum value lists the valid ones.

use std::borrow::Cow;

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
    crate::value_de::from_value(value).map_err(|error| classify(&error.path(), error.message()))
}

/// Joins a parent path and a field name: `todo_list[2]` + `state`.
pub(crate) fn join_path(parent: &str, field: &str) -> String {
    if parent.is_empty() {
        field.to_string()
    } else {
        format!("{parent}.{field}")
    }
}

/// The longest input text (a field name, a value, a serde message) an error quotes
/// whole; longer ones are cut in the middle, so that an error about a huge input stays
/// small enough to show to a model.
pub(crate) const MAX_QUOTED_CHARS: usize = 200;

/// `text`, cut in the middle when it has more than [`MAX_QUOTED_CHARS`] characters.
pub(crate) fn shorten(text: &str) -> Cow<'_, str> {
    if text.char_indices().nth(MAX_QUOTED_CHARS).is_none() {
        return Cow::Borrowed(text);
    }
    let half = MAX_QUOTED_CHARS / 2;
    let head_end = text.char_indices().nth(half).map_or(0, |(i, _)| i);
    let tail_start = text
        .char_indices()
        .rev()
        .nth(half - 1)
        .map_or(0, |(i, _)| i);
    Cow::Owned(format!(
        "{}…[{} bytes omitted]…{}",
        &text[..head_end],
        tail_start - head_end,
        &text[tail_start..]
    ))
}

fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// Builds an `unknown_field` error; `expected` are the valid fields at that level.
pub(crate) fn unknown_field(field: &str, parent: &str, expected: &[&str]) -> ToolError {
    let hint = closest(field, expected.iter().copied());
    let field = shorten(field);
    let field = field.as_ref();
    let path = join_path(parent, field);
    let mut error = ToolError::new(
        ToolErrorKind::UNKNOWN_FIELD,
        format!("unknown field `{path}`: this tool does not accept it"),
    )
    .with_field(path)
    .with_details(json!({ "unknown": field, "expected": expected }));
    error.recovery_hint = Some(match hint {
        Some(best) => format!("did you mean `{best}`?"),
        None if expected.is_empty() => "remove it: no fields are accepted here".to_string(),
        None => format!("remove it; valid fields here: {}", expected.join(", ")),
    });
    error
}

/// Turns serde's message at `path` into a typed error.
fn classify(path: &str, message: &str) -> ToolError {
    let names = backticked(message);
    if message.starts_with("unknown field")
        && let Some((field, expected)) = names.split_first()
    {
        // The error's path ends with the unknown field itself.
        let parent = path
            .strip_suffix(field)
            .map(|p| p.trim_end_matches('.'))
            .unwrap_or(path);
        return unknown_field(field, parent, expected);
    }
    if message.starts_with("missing field")
        && let Some(field) = names.first()
    {
        let full = join_path(path, field);
        return ToolError::invalid_input(format!("missing required field `{full}`"))
            .with_field(full.clone())
            .with_hint(format!("add `{full}` to the input"));
    }
    if message.starts_with("unknown variant")
        && let Some((value, expected)) = names.split_first()
    {
        let hint = closest(value, expected.iter().copied());
        let value = shorten(value);
        let mut error = ToolError::invalid_input(format!(
            "`{path}` has the value `{value}`, which is not one of: {}",
            expected.join(", ")
        ))
        .with_field(path)
        .with_details(json!({ "value": value, "expected": expected }));
        error.recovery_hint = Some(match hint {
            Some(best) => format!("did you mean `{best}`?"),
            None => format!("use one of: {}", expected.join(", ")),
        });
        return error;
    }
    let subject = if path.is_empty() {
        "the input".to_string()
    } else {
        format!("`{path}`")
    };
    // serde quotes the offending value (`invalid type: string "...", expected u32`).
    let message = shorten(message);
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
    fn shortens_huge_quotes_in_the_middle() {
        assert_eq!(shorten("short"), "short");
        let exact = "é".repeat(MAX_QUOTED_CHARS);
        assert_eq!(shorten(&exact), exact);

        let huge = format!(
            "{}{}{}",
            "a".repeat(150),
            "é".repeat(1_000_000),
            "z".repeat(150)
        );
        let short = shorten(&huge);
        assert!(
            short.starts_with(&"a".repeat(MAX_QUOTED_CHARS / 2)),
            "{short}"
        );
        assert!(
            short.ends_with(&"z".repeat(MAX_QUOTED_CHARS / 2)),
            "{short}"
        );
        assert!(short.contains("bytes omitted"), "{short}");
        assert!(short.chars().count() < MAX_QUOTED_CHARS + 40, "{short}");

        // No string distance is computed for a huge name.
        assert_eq!(closest(&huge, ["a"]), None);
        let error = unknown_field(&huge, "items[0]", &["name"]);
        assert!(error.message.len() < 2 * MAX_QUOTED_CHARS + 100);
        assert!(
            error
                .field
                .is_some_and(|field| field.starts_with("items[0].aaa"))
        );
    }

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
