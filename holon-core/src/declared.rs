//! The tool `#[holon_tool]` declares, as data: its facts and the functions generated
//! for it. One [`Tool`] impl serves every declared tool, so a declaration adds a
//! `static` and two functions to the user's crate, not a type with a trait impl and a
//! vtable of its own, which the compiler checks and builds once per tool
//! (`scripts/compile-cost-200-tools` measures what a tool costs to compile).

use std::time::Duration;

use schemars::{Schema, SchemaGenerator};

use crate::arguments::{empty_arguments_schema, parse_no_arguments};
use crate::host::context::ToolContext;
use crate::input::ToolInput;
use crate::meta::ToolMeta;
use crate::params::ArgumentsInfo;
use crate::result::error::ToolError;
use crate::tool::{CallFuture, Tool};

/// A tool declared with `#[holon_tool]`.
pub struct DeclaredTool {
    /// Name, family, description and the other static facts.
    pub meta: &'static ToolMeta,
    /// The facts of the handler's arguments parameter, if it has one.
    pub arguments: fn() -> Option<ArgumentsInfo>,
    /// The JSON Schema of the structured result.
    pub result_schema: fn(&mut SchemaGenerator) -> Schema,
    /// Parses the input and runs the handler.
    pub call: for<'a> fn(&'a ToolContext, ToolInput<'a>) -> CallFuture<'a>,
    /// `timeout_ms`, when given.
    pub timeout: Option<Duration>,
    /// The input examples' JSON texts.
    pub examples: &'static [&'static str],
}

impl Tool for DeclaredTool {
    fn meta(&self) -> &'static ToolMeta {
        self.meta
    }

    fn input_fields(&self) -> &'static [&'static str] {
        (self.arguments)().map_or(&[], |arguments| arguments.fields)
    }

    fn input_schema(&self, generator: &mut SchemaGenerator) -> Schema {
        match (self.arguments)() {
            Some(arguments) => (arguments.schema)(generator),
            None => empty_arguments_schema(),
        }
    }

    fn result_schema(&self, generator: &mut SchemaGenerator) -> Schema {
        (self.result_schema)(generator)
    }

    fn input_examples(&self) -> &'static [&'static str] {
        self.examples
    }

    fn check_input(&self, input: ToolInput<'_>) -> Result<(), ToolError> {
        match (self.arguments)() {
            Some(arguments) => (arguments.check)(input),
            None => parse_no_arguments(input),
        }
    }

    fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    fn call<'a>(&'a self, context: &'a ToolContext, input: ToolInput<'a>) -> CallFuture<'a> {
        (self.call)(context, input)
    }
}
