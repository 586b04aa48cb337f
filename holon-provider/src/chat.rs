//! OpenAI Chat Completions: `choices[0].message.tool_calls` in (`function` calls with
//! `arguments` as JSON text, `custom` calls with raw `input`), `role: tool` messages
//! out, one per call, with its `tool_call_id`.
//!
//! A tool message carries text only: an image is replaced by a note saying so.
//! Source: OpenAI API reference, Chat Completions, the chat completion object and the
//! tool message (<https://platform.openai.com/docs/api-reference/chat/object>).

use holon_core::ToolResult;
use serde_json::{Value, json};

use crate::call::{CallInput, ProviderCall};
use crate::content::{Carries, Part, parts, receipt_only};
use crate::error::ResponseError;
use crate::read::{At, drop_nulls};

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
    call.field("type", |kind| match kind.str()? {
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
        _ => Err(kind.wrong("`function` or `custom`")),
    })
}

/// The assistant message to append: the response's message in the request's form
/// (the response-only fields, `annotations` and `audio`, left out).
pub(crate) fn model_items(body: &Value) -> Result<Vec<Value>, ResponseError> {
    message(body, |message| {
        // The message cloned whole and pruned: cheaper than building it key by key.
        let mut out = message.object()?.clone();
        out.retain(|key, value| REQUEST_FIELDS.contains(&key.as_str()) && !value.is_null());
        out.values_mut().for_each(drop_nulls);
        if out.get("role").and_then(Value::as_str) != Some("assistant") {
            out.insert("role".into(), json!("assistant"));
        }
        Ok(vec![Value::Object(out)])
    })
}

/// The fields of a response's message that an assistant message of a request takes.
const REQUEST_FIELDS: [&str; 5] = ["role", "content", "refusal", "name", "tool_calls"];

pub(crate) fn result_items(calls: &[ProviderCall], results: &[ToolResult]) -> Vec<Value> {
    calls
        .iter()
        .zip(results)
        .map(|(call, result)| {
            let content = match receipt_only(result) {
                Some(receipt) => Value::String(receipt),
                None => Value::Array(
                    parts(result, &CARRIES)
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
