//! One tool call as a provider's response gave it.

use serde::Serialize;
use serde_json::Value;

/// The input of a call, in the form the provider gave it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "form", content = "value", rename_all = "snake_case")]
pub enum CallInput {
    /// The arguments as JSON text (OpenAI function calls): dispatched with
    /// [`holon_core::Registry::dispatch_text`], which refuses a key given twice.
    JsonText(String),
    /// The raw text of a custom (freeform) tool call (OpenAI custom tools).
    Freeform(String),
    /// The arguments as an object the provider already parsed (Anthropic, Gemini).
    Object(Value),
}

/// A tool call read from a response: its id, the tool's name and its input.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProviderCall {
    /// The provider's id of the call, echoed in its result. Gemini may leave it out.
    pub id: Option<String>,
    /// The tool name the model used.
    pub name: String,
    /// The input.
    pub input: CallInput,
}

impl ProviderCall {
    /// Whether the call is of a custom (freeform) tool, whose result the Responses API
    /// takes as a `custom_tool_call_output`.
    pub fn is_freeform(&self) -> bool {
        matches!(self.input, CallInput::Freeform(_))
    }
}
