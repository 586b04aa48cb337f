//! Anthropic Messages API tools.
//!
//! A client tool is `{"name", "description", "input_schema"}`; the schema is the tool's
//! canonical JSON Schema, whose root is an object as the API requires. Anthropic has no
//! custom grammar tools, so a freeform tool is exported with its JSON surface. A tool
//! with input examples has them as `input_examples` (an array of input objects; the
//! API takes it with the `advanced-tool-use-2025-11-20` beta header).
//! Source: Anthropic API reference, Messages, `tools`
//! (<https://docs.anthropic.com/en/api/messages>) and the tool use guide
//! (<https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use>).

use serde_json::{Value, json};

use holon_core::ToolDefinition;

/// The tool as Anthropic's `tools` array takes it.
pub(super) fn tool(definition: &ToolDefinition) -> Value {
    let mut tool = json!({
        "name": &*definition.spec.name,
        "description": &*definition.spec.description,
        "input_schema": &*definition.spec.input_schema,
    });
    if !definition.input_examples.is_empty() {
        tool["input_examples"] = json!(&*definition.input_examples);
    }
    tool
}
