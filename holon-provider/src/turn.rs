//! One turn: a response body in, its calls dispatched, the items to append out.

use holon_core::{Registry, ToolContext, ToolResult};
use holon_export::Provider;
use serde_json::Value;

use crate::call::ProviderCall;
use crate::dispatch::dispatch_calls;
use crate::error::{ResponseError, ResponseErrorKind};
use crate::{anthropic, chat, gemini, responses};

fn unsupported(provider: Provider) -> ResponseError {
    ResponseError::new(
        ResponseErrorKind::UnsupportedProvider,
        "$",
        format!(
            "`{provider}` is not a model API; use one of openai-chat, openai-responses, anthropic, gemini"
        ),
    )
}

/// Parses a response body, refusing text that is not JSON with `invalid_json`.
pub fn parse_body(text: &str) -> Result<Value, ResponseError> {
    serde_json::from_str(text).map_err(|error| {
        ResponseError::new(
            ResponseErrorKind::InvalidJson,
            "$",
            format!("the response body is not JSON: {error}"),
        )
    })
}

/// The tool calls of a response body, in the model's order, each with its id.
/// A body that is not the provider's response shape is refused with the path of the
/// first value that is wrong.
pub fn read_calls(provider: Provider, body: &Value) -> Result<Vec<ProviderCall>, ResponseError> {
    match provider {
        Provider::OpenAiChat => chat::calls(body),
        Provider::OpenAiResponses => responses::calls(body),
        Provider::Anthropic => anthropic::calls(body),
        Provider::Gemini => gemini::calls(body),
        Provider::Mcp => Err(unsupported(provider)),
    }
}

/// The model's output in the form the next request takes it: the Chat assistant
/// message, the Responses output items, the Anthropic assistant message, the Gemini
/// model content.
pub fn model_items(provider: Provider, body: &Value) -> Result<Vec<Value>, ResponseError> {
    match provider {
        Provider::OpenAiChat => chat::model_items(body),
        Provider::OpenAiResponses => responses::model_items(body),
        Provider::Anthropic => anthropic::model_items(body),
        Provider::Gemini => gemini::model_items(body),
        Provider::Mcp => Err(unsupported(provider)),
    }
}

/// The results of `calls` (one per call, in order) in the provider's form for the
/// next request: Chat `tool` messages, Responses `function_call_output` /
/// `custom_tool_call_output` items, one Anthropic user message of `tool_result`
/// blocks, one Gemini user content of `functionResponse` parts. Empty for MCP.
pub fn result_items(
    provider: Provider,
    calls: &[ProviderCall],
    results: &[ToolResult],
) -> Vec<Value> {
    match provider {
        Provider::OpenAiChat => chat::result_items(calls, results),
        Provider::OpenAiResponses => responses::result_items(calls, results),
        Provider::Anthropic => anthropic::result_items(calls, results),
        Provider::Gemini => gemini::result_items(calls, results),
        Provider::Mcp => Vec::new(),
    }
}

/// The field of the provider's request body that holds the conversation.
pub fn conversation_field(provider: Provider) -> Option<&'static str> {
    match provider {
        Provider::OpenAiChat | Provider::Anthropic => Some("messages"),
        Provider::OpenAiResponses => Some("input"),
        Provider::Gemini => Some("contents"),
        Provider::Mcp => None,
    }
}

/// One turn's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The calls the response made.
    pub calls: Vec<ProviderCall>,
    /// Their results, in the same order.
    pub results: Vec<ToolResult>,
    /// The model's output as the next request takes it.
    pub model_items: Vec<Value>,
    /// The results as the next request takes them.
    pub result_items: Vec<Value>,
}

impl Turn {
    /// Everything to append to the conversation, the model's output first.
    pub fn items(&self) -> impl Iterator<Item = &Value> {
        self.model_items.iter().chain(&self.result_items)
    }
}

/// Reads the calls of `body`, dispatches them on `registry` under `context` (see
/// [`dispatch_calls`]) and writes what the next request appends.
pub async fn respond(
    registry: &Registry,
    context: &ToolContext,
    provider: Provider,
    body: &Value,
) -> Result<Turn, ResponseError> {
    let calls = read_calls(provider, body)?;
    let model_items = model_items(provider, body)?;
    let results = dispatch_calls(registry, context, &calls).await;
    let result_items = result_items(provider, &calls, &results);
    Ok(Turn {
        calls,
        results,
        model_items,
        result_items,
    })
}
