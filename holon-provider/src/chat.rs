//! OpenAI Chat Completions: `choices[0].message.tool_calls` in (`function` calls with
//! `arguments` as JSON text, `custom` calls with raw `input`), `role: tool` messages
//! out, one per call, with its `tool_call_id`.
//!
//! A tool message carries text only: an image is replaced by a note saying so.
//! Source: OpenAI API reference, Chat Completions, the chat completion object and the
//! tool message (<https://platform.openai.com/docs/api-reference/chat/object>).

use holon_core::ToolResult;
use serde_json::{Map, Value, json};

use crate::call::{CallInput, ProviderCall};
use crate::content::{Carries, Part, parts};
use crate::error::ResponseError;
use crate::read::{At, without_nulls};

const CARRIES: Carries = Carries {
    provider: "openai-chat",
    image_types: &[],
};

/// The first choice's message: the one a conversation continues with.
fn message<R>(
    body: &Value,
    then: impl FnOnce(At<'_>) -> Result<R, ResponseError>,
) -> Result<R, ResponseError> {
    At::root(body).field("choices", |choices| {
        choices.index(0, |choice| choice.field("message", then))
    })
}

pub(crate) fn calls(body: &Value) -> Result<Vec<ProviderCall>, ResponseError> {
    message(body, |message| {
        message.optional("tool_calls", |tool_calls| {
            let mut calls = Vec::new();
            if let Some(tool_calls) = tool_calls {
                tool_calls.each(|_, call| {
                    calls.push(read_call(call)?);
                    Ok(())
                })?;
            }
            Ok(calls)
        })
    })
}

fn read_call(call: At<'_>) -> Result<ProviderCall, ResponseError> {
    let id = call.string("id")?;
    let kind = call.field("type", |kind| kind.str().map(str::to_string))?;
    match kind.as_str() {
        "function" => call.field("function", |function| {
            Ok(ProviderCall {
                id: Some(id),
                name: function.string("name")?,
                input: CallInput::JsonText(function.string("arguments")?),
            })
        }),
        "custom" => call.field("custom", |custom| {
            Ok(ProviderCall {
                id: Some(id),
                name: custom.string("name")?,
                input: CallInput::Freeform(custom.string("input")?),
            })
        }),
        _ => call.field("type", |kind| Err(kind.wrong("`function` or `custom`"))),
    }
}

/// The assistant message to append: the response's message in the request's form
/// (the response-only fields, `annotations` and `audio`, left out).
pub(crate) fn model_items(body: &Value) -> Result<Vec<Value>, ResponseError> {
    message(body, |message| {
        let map = message.object()?;
        let mut out = Map::new();
        out.insert("role".into(), json!("assistant"));
        for key in ["content", "refusal", "name", "tool_calls"] {
            if let Some(value) = map.get(key).filter(|value| !value.is_null()) {
                out.insert(key.into(), without_nulls(value));
            }
        }
        Ok(vec![Value::Object(out)])
    })
}

pub(crate) fn result_items(calls: &[ProviderCall], results: &[ToolResult]) -> Vec<Value> {
    calls
        .iter()
        .zip(results)
        .map(|(call, result)| {
            let parts = parts(result, &CARRIES);
            let content = match parts.as_slice() {
                [Part::Text(text)] => json!(text),
                _ => Value::Array(
                    parts
                        .iter()
                        .filter_map(|part| match part {
                            Part::Text(text) => Some(json!({ "type": "text", "text": text })),
                            Part::Image { .. } => None, // never: CARRIES takes no image
                        })
                        .collect(),
                ),
            };
            json!({
                "role": "tool",
                "tool_call_id": call.id.as_deref().unwrap_or_default(),
                "content": content,
            })
        })
        .collect()
}
