//! Which input surface a tool is exported with, and the JSON fallback of freeform tools.
//!
//! A tool declared with `freeform(...)` takes raw text constrained by its grammar, and
//! also a JSON object of its argument type (the dispatcher accepts both). Providers with
//! custom grammar tools get the freeform surface; every other provider gets the JSON
//! surface: the tool's own input schema, so a call through it parses into the same
//! argument type. The framework makes this choice, never an individual tool.

use serde::Serialize;

use super::Provider;
use holon_core::ToolDefinition;

/// How a tool's input is presented to a provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InputSurface {
    /// A JSON object described by the tool's input schema (a tool without a grammar).
    Json,
    /// Raw text constrained by the tool's freeform grammar (an OpenAI custom tool).
    Freeform,
    /// A freeform tool exported with its JSON surface, because the provider has no
    /// custom grammar tools. Calls arrive as JSON objects of the argument type.
    JsonFallback,
}

impl InputSurface {
    /// The snake_case name used in reports.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Json => "json",
            Self::Freeform => "freeform",
            Self::JsonFallback => "json_fallback",
        }
    }
}

/// The surface `definition` is exported with for `provider`.
pub fn input_surface(definition: &ToolDefinition, provider: Provider) -> InputSurface {
    match (
        &definition.spec.freeform_grammar,
        provider.has_custom_tools(),
    ) {
        (None, _) => InputSurface::Json,
        (Some(_), true) => InputSurface::Freeform,
        (Some(_), false) => InputSurface::JsonFallback,
    }
}
