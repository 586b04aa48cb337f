//! Gemini function declarations.
//!
//! A declaration is `{"name", "description", "parametersJsonSchema"}`:
//! `parametersJsonSchema` takes standard JSON Schema describing an object whose
//! properties are the parameters (unlike `parameters`, which takes Google's OpenAPI
//! subset), so the canonical schema goes through unchanged. Gemini has no custom grammar
//! tools, so a freeform tool is exported with its JSON surface.
//! Source: Gemini API reference, `FunctionDeclaration`
//! (<https://ai.google.dev/api/caching#FunctionDeclaration>).

use serde_json::{Value, json};

use holon_core::ToolDefinition;

/// The tool as one entry of a Gemini tool's `functionDeclarations`.
pub(super) fn tool(definition: &ToolDefinition) -> Value {
    json!({
        "name": &*definition.spec.name,
        "description": &*definition.spec.description,
        "parametersJsonSchema": &*definition.spec.input_schema,
    })
}
