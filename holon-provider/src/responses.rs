//! OpenAI Responses: `output[]` items of type `function_call` (`arguments` as JSON
//! text) and `custom_tool_call` (raw `input`) in, `function_call_output` and
//! `custom_tool_call_output` items out, each with the call's `call_id`.
//!
//! An output is a string, or a list of `input_text` and `input_image` parts (an image
//! as a base64 data URL) when the result has an image.
//! Source: OpenAI API reference, Responses, the response object's `output` and the
//! input items (<https://platform.openai.com/docs/api-reference/responses/object>).

use holon_core::ToolResult;
use serde_json::{Value, json};

use crate::call::{CallInput, ProviderCall};
use crate::content::{Carries, Part, parts, receipt_only};
use crate::error::ResponseError;
use crate::read::{At, without_nulls};

const CARRIES: Carries = Carries {
    provider: "openai-responses",
    image_types: &["image/png", "image/jpeg", "image/gif", "image/webp"],
};

pub(crate) fn calls(body: &Value) -> Result<Vec<ProviderCall>, ResponseError> {
    let mut calls = Vec::new();
    At::root(body).field("output", |output| {
        output.each(|_, item| {
            let kind = item.string("type")?;
            let input = match kind.as_str() {
                "function_call" => CallInput::JsonText(item.string("arguments")?),
                "custom_tool_call" => CallInput::Freeform(item.string("input")?),
                _ => return Ok(()),
            };
            calls.push(ProviderCall {
                id: Some(item.string("call_id")?),
                name: item.string("name")?,
                input,
            });
            Ok(())
        })
    })?;
    Ok(calls)
}

/// Every output item, to append to `input` as it came (unset fields left out): the
/// API wants reasoning and messages back with the calls.
pub(crate) fn model_items(body: &Value) -> Result<Vec<Value>, ResponseError> {
    At::root(body).field("output", |output| {
        Ok(output.array()?.iter().map(without_nulls).collect())
    })
}

pub(crate) fn result_items(calls: &[ProviderCall], results: &[ToolResult]) -> Vec<Value> {
    calls
        .iter()
        .zip(results)
        .map(|(call, result)| {
            let output = match receipt_only(result) {
                Some(receipt) => Value::String(receipt),
                None => Value::Array(parts(result, &CARRIES).iter().map(part).collect()),
            };
            let kind = if call.is_freeform() {
                "custom_tool_call_output"
            } else {
                "function_call_output"
            };
            json!({
                "type": kind,
                "call_id": call.id.as_deref().unwrap_or_default(),
                "output": output,
            })
        })
        .collect()
}

fn part(part: &Part) -> Value {
    match part {
        Part::Text(text) => json!({ "type": "input_text", "text": text }),
        Part::Image { mime_type, data } => json!({
            "type": "input_image",
            "image_url": format!("data:{mime_type};base64,{data}"),
        }),
    }
}
