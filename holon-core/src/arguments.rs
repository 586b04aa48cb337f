//! What the code `#[holon_tool]` generates calls to parse a tool's arguments, and
//! their schema.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;

use crate::input::ToolInput;
use crate::result::error::ToolError;
use crate::tool::{FromFreeform, ToolArgs};

/// The JSON arguments of an input (not generic: its code is compiled once).
pub(crate) fn json_arguments(
    input: ToolInput<'_>,
) -> Result<crate::input::JsonArguments<'_>, ToolError> {
    match input {
        ToolInput::Json(arguments) => Ok(arguments),
        ToolInput::Freeform(_) => Err(ToolError::invalid_input(
            "this tool takes a JSON object, not raw text",
        )),
    }
}

/// Parses a JSON input or the raw text of a freeform call into `T`.
pub fn parse_freeform_arguments<T: ToolArgs + FromFreeform>(
    input: ToolInput<'_>,
) -> Result<T, ToolError> {
    match input {
        ToolInput::Json(arguments) => arguments.parse(),
        ToolInput::Freeform(text) => T::from_freeform(text),
    }
}

/// The arguments of a tool that takes none: an empty object.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoArguments {}

/// Checks the input of a tool without arguments: an empty object.
pub fn parse_no_arguments(input: ToolInput<'_>) -> Result<(), ToolError> {
    match input {
        ToolInput::Json(arguments) => arguments.parse::<NoArguments>().map(|_| ()),
        ToolInput::Freeform(_) => Err(ToolError::invalid_input(
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
