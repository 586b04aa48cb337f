//! What a handler returns, and how it becomes the envelope's parts.

use crate::result::error::{ToolError, ToolErrorKind};
use crate::result::structured::Structured;
use crate::result::{Artifact, ContentBlock, ResultExtras};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;

/// A handler's success value plus what the envelope carries besides it: content blocks
/// (an image), artifacts, a summary, a custom receipt, or a deferral.
///
/// A handler that returns a plain `T: Serialize + JsonSchema` gets the defaults; return
/// `ToolOutput<T>` to set more. Either way the tool's result schema is `T`'s.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput<T = Structured> {
    /// The structured result.
    pub value: T,
    /// Everything else, set by the `with_*` methods; `None` while all of it is empty.
    pub extras: Option<Box<ResultExtras>>,
}

impl<T> ToolOutput<T> {
    /// An output holding `value` and nothing else.
    pub fn new(value: T) -> Self {
        Self {
            value,
            extras: None,
        }
    }

    /// The extras, created empty on first use.
    fn extras_mut(&mut self) -> &mut ResultExtras {
        ResultExtras::in_slot(&mut self.extras)
    }

    /// Adds a content block.
    pub fn with_content(mut self, block: ContentBlock) -> Self {
        self.extras_mut().content.push(block);
        self
    }

    /// Adds an artifact.
    pub fn with_artifact(mut self, path: impl Into<String>, role: impl Into<String>) -> Self {
        self.extras_mut().artifacts.push(Artifact {
            path: path.into(),
            role: role.into(),
        });
        self
    }

    /// Sets the one-line summary.
    pub fn with_summary(mut self, summary: impl Into<String>) -> Self {
        self.extras_mut().summary = Some(summary.into());
        self
    }

    /// Replaces the default receipt.
    pub fn with_receipt(mut self, receipt: impl Into<String>) -> Self {
        self.extras_mut().receipt = Some(receipt.into());
        self
    }

    /// Marks the call deferred: the runtime waits for what `directive` says.
    pub fn deferred(mut self, directive: impl Into<String>) -> Self {
        self.extras_mut().directive = Some(directive.into());
        self
    }
}

/// What a handler may return on success. Implemented for every
/// `T: Serialize + JsonSchema` (the default receipt) and for [`ToolOutput<T>`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's result",
    label = "a tool's result must implement `Serialize` and `JsonSchema`",
    note = "derive them: `#[derive(Serialize, JsonSchema)]`; the result schema is derived from this type"
)]
pub trait IntoToolOutput {
    /// The JSON Schema of the structured result.
    fn result_schema(generator: &mut SchemaGenerator) -> Schema;

    /// Converts into the erased output the dispatcher wraps into the envelope.
    fn into_tool_output(self) -> Result<ToolOutput, ToolError>;
}

/// The structured result of `value`: its JSON.
fn to_structured<T: Serialize>(value: &T) -> Result<Structured, ToolError> {
    Structured::new(value).map_err(|error| {
        ToolError::new(
            ToolErrorKind::new("invalid_tool_result"),
            format!("the tool's result could not be serialized: {error}"),
        )
    })
}

/// The schema of a result of type `T`.
pub(crate) fn result_schema<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.root_schema_for::<T>()
}

/// A plain success value, as the output of a call.
pub(crate) fn plain_output<T: Serialize>(value: &T) -> Result<ToolOutput, ToolError> {
    to_structured(value).map(ToolOutput::new)
}

/// A `ToolOutput<T>`, as the output of a call.
pub(crate) fn wrapped_output<T: Serialize>(output: ToolOutput<T>) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput {
        value: to_structured(&output.value)?,
        extras: output.extras,
    })
}

impl<T: Serialize + JsonSchema> IntoToolOutput for T {
    fn result_schema(generator: &mut SchemaGenerator) -> Schema {
        result_schema::<T>(generator)
    }

    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        plain_output(&self)
    }
}

impl<T: Serialize + JsonSchema> IntoToolOutput for ToolOutput<T> {
    fn result_schema(generator: &mut SchemaGenerator) -> Schema {
        result_schema::<T>(generator)
    }

    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        wrapped_output(self)
    }
}
