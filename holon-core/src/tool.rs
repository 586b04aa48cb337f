//! The erased tool interface the macro implements, and the link-time registration.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;

use crate::host::context::ToolContext;
use crate::input::ToolInput;
use crate::input::closed::ClosedInput;
use crate::meta::ToolMeta;
use crate::result::error::ToolError;
use crate::result::output::ToolOutput;

/// A tool's argument type: a closed JSON object. Derive it with `#[derive(ToolArgs)]`,
/// which checks `#[serde(deny_unknown_fields)]`, refuses borrowed fields and
/// requires every field's type to be [`ClosedInput`] (closed at every depth).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool argument type: add `#[derive(ToolArgs)]` to it",
    label = "this type does not implement `ToolArgs`",
    note = "tool arguments are a struct with `#[derive(Deserialize, JsonSchema, ToolArgs)]` and `#[serde(deny_unknown_fields)]`"
)]
pub trait ToolArgs: DeserializeOwned + JsonSchema + ClosedInput {
    /// The wire names of the fields, for hints and registry checks.
    const FIELDS: &'static [&'static str];
}

/// Arguments that can also be built from the raw text of a freeform call. Required
/// of the argument type of a tool declared with `freeform(...)`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot take freeform input: implement `FromFreeform` for it",
    label = "a `freeform` tool's arguments must implement `FromFreeform`"
)]
pub trait FromFreeform: Sized {
    /// Builds the arguments from the raw text the model sent.
    fn from_freeform(text: String) -> Result<Self, ToolError>;
}

/// The future of one call of a tool: the handler's output, or why the call failed.
/// A synchronous handler's call has finished when it is returned, and is not boxed.
pub enum CallFuture<'a> {
    /// The call has finished.
    Ready(std::future::Ready<Result<ToolOutput, ToolError>>),
    /// The call is still running.
    Boxed(Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send + 'a>>),
}

impl<'a> CallFuture<'a> {
    /// A call that has finished with `result`.
    pub fn ready(result: Result<ToolOutput, ToolError>) -> Self {
        Self::Ready(std::future::ready(result))
    }

    /// A call that finishes with `future`.
    pub fn boxed(future: impl Future<Output = Result<ToolOutput, ToolError>> + Send + 'a) -> Self {
        Self::Boxed(Box::pin(future))
    }
}

impl Future for CallFuture<'_> {
    type Output = Result<ToolOutput, ToolError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            Self::Ready(ready) => Pin::new(ready).poll(cx),
            Self::Boxed(future) => future.as_mut().poll(cx),
        }
    }
}

/// A tool, type-erased. `#[holon_tool]` declares a tool as data (a hidden `static`
/// that one impl of this trait serves for every declared tool); it can
/// also be implemented by hand (for tools built at run time).
pub trait Tool: Send + Sync + 'static {
    /// Name, family, description and the other static facts.
    fn meta(&self) -> &'static ToolMeta;

    /// Wire names of the argument fields.
    fn input_fields(&self) -> &'static [&'static str];

    /// JSON Schema of the arguments, from the type that parses them.
    fn input_schema(&self, generator: &mut SchemaGenerator) -> Schema;

    /// JSON Schema of the structured result.
    fn result_schema(&self, generator: &mut SchemaGenerator) -> Schema;

    /// Input examples, from `#[holon_tool(example = ..., example_file = ...)]`: each
    /// the JSON text of one example's arguments (an object) or of an array of them.
    /// The registry refuses to start unless every example fits the input schema and
    /// parses into the argument type; exports hand them to the providers that take
    /// examples.
    fn input_examples(&self) -> &'static [&'static str] {
        &[]
    }

    /// Parses `input` into the argument type and drops it, without running the
    /// handler: what [`Registry::check`](crate::Registry::check) uses. A hand-written
    /// tool that cannot check its input without running accepts everything here.
    fn check_input(&self, input: ToolInput<'_>) -> Result<(), ToolError> {
        let _ = input;
        Ok(())
    }

    /// The tool's own time limit (`#[holon_tool(timeout_ms = N)]`), which a host's
    /// [`ToolContext::with_timeout`] replaces. `None`: no limit. Asked once, when the
    /// registry is built.
    fn timeout(&self) -> Option<std::time::Duration> {
        None
    }

    /// Parses `input` into the argument type and runs the handler. The dispatcher
    /// polls the future under the call's cancellation and time limit.
    fn call<'a>(&'a self, context: &'a ToolContext, input: ToolInput<'a>) -> CallFuture<'a>;
}

/// A tool submitted to the link-time inventory. The registry walks every registration
/// of every linked crate.
pub struct ToolRegistration {
    tool: &'static dyn Tool,
}

impl ToolRegistration {
    /// Registers `tool`.
    pub const fn new(tool: &'static dyn Tool) -> Self {
        Self { tool }
    }

    /// The registered tool.
    pub fn tool(&self) -> &'static dyn Tool {
        self.tool
    }
}

inventory::collect!(ToolRegistration);

/// Every tool registered by the crates linked into this program.
pub fn registered_tools() -> impl Iterator<Item = &'static dyn Tool> {
    inventory::iter::<ToolRegistration>().map(ToolRegistration::tool)
}
