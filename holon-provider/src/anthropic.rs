//! Anthropic Messages: `content[]` blocks of type `tool_use` in (`input` an object),
//! one user message of `tool_result` blocks out, each with the call's `tool_use_id`,
//! `is_error` when the call failed, and images as `image` blocks with a base64 source.
//!
//! Source: Anthropic API reference, Messages, and the tool use guide, "Handling tool
//! use and tool result content blocks"
//! (<https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use>).

use holon_core::{ToolResult, ToolStatus};
use serde_json::{Value, json};

use crate::call::{CallInput, ProviderCall};
use crate::content::{Carries, Part, parts};
use crate::error::ResponseError;
use crate::read::{At, without_nulls};

const CARRIES: Carries = Carries {
    provider: "anthropic",
    image_types: &["image/png", "image/jpeg", "image/gif", "image/webp"],
};

pub(crate) fn calls(body: &Value) -> Result<Vec<ProviderCall>, ResponseError> {
    let mut calls = Vec::new();
    At::root(body).field("content", |content| {
        content.each(|_, block| {
            if block.string("type")? != "tool_use" {
                return Ok(());
            }
            let input = block.field("input", |input| {
                input.object()?;
                Ok(input.value.clone())
            })?;
            calls.push(ProviderCall {
                id: Some(block.string("id")?),
                name: block.string("name")?,
                input: CallInput::Object(input),
            });
            Ok(())
        })
    })?;
    Ok(calls)
}

/// The assistant message to append: the response's content blocks as they came
/// (thinking blocks must go back unchanged), unset fields left out.
pub(crate) fn model_items(body: &Value) -> Result<Vec<Value>, ResponseError> {
    At::root(body).field("content", |content| {
        let blocks: Vec<Value> = content.array()?.iter().map(without_nulls).collect();
        Ok(vec![json!({ "role": "assistant", "content": blocks })])
    })
}

pub(crate) fn result_items(calls: &[ProviderCall], results: &[ToolResult]) -> Vec<Value> {
    if calls.is_empty() {
        return Vec::new();
    }
    let blocks: Vec<Value> = calls
        .iter()
        .zip(results)
        .map(|(call, result)| {
            let content: Vec<Value> = parts(result, &CARRIES).iter().map(part).collect();
            json!({
                "type": "tool_result",
                "tool_use_id": call.id.as_deref().unwrap_or_default(),
                "content": content,
                "is_error": result.status == ToolStatus::Error,
            })
        })
        .collect();
    vec![json!({ "role": "user", "content": blocks })]
}

fn part(part: &Part) -> Value {
    match part {
        Part::Text(text) => json!({ "type": "text", "text": text }),
        Part::Image { mime_type, data } => json!({
            "type": "image",
            "source": { "type": "base64", "media_type": mime_type, "data": data },
        }),
    }
}
