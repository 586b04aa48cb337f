//! Gemini: `candidates[0].content.parts[].functionCall` in (`args` an object, `id`
//! when the model gave one), one user content of `functionResponse` parts out, each
//! with the call's `id` and `name` and a `response` object: `{"output": receipt}`, or
//! `{"error": receipt}` when the call failed, as the API documents the two keys.
//! Images go in the function response's own `parts` as `inlineData`.
//!
//! Source: Gemini API reference, `GenerateContentResponse`, `FunctionCall` and
//! `FunctionResponse` (<https://ai.google.dev/api/caching#FunctionResponse>).

use holon_core::{ToolResult, ToolStatus};
use serde_json::{Map, Value, json};

use crate::call::{CallInput, ProviderCall};
use crate::content::{Carries, Part, joined_text, parts};
use crate::error::ResponseError;
use crate::read::{At, without_nulls};

const CARRIES: Carries = Carries {
    provider: "gemini",
    image_types: &["image/png", "image/jpeg", "image/webp"],
};

/// The first candidate's content, when it has one (a blocked candidate has none).
fn content<R>(
    body: &Value,
    then: impl FnOnce(Option<At<'_>>) -> Result<R, ResponseError>,
) -> Result<R, ResponseError> {
    At::root(body).field("candidates", |candidates| {
        candidates.index(0, |candidate| candidate.optional("content", then))
    })
}

pub(crate) fn calls(body: &Value) -> Result<Vec<ProviderCall>, ResponseError> {
    let mut calls = Vec::new();
    content(body, |content| {
        let Some(content) = content else {
            return Ok(());
        };
        content.optional("parts", |parts| {
            let Some(parts) = parts else {
                return Ok(());
            };
            parts.each(|_, part| {
                part.optional("functionCall", |call| {
                    let Some(call) = call else {
                        return Ok(());
                    };
                    let id = call.optional("id", |id| {
                        id.map(|id| id.str().map(str::to_string)).transpose()
                    })?;
                    let args = call.optional("args", |args| match args {
                        Some(args) => {
                            args.object()?;
                            Ok(args.value.clone())
                        }
                        None => Ok(Value::Object(Map::new())),
                    })?;
                    calls.push(ProviderCall {
                        id,
                        name: call.string("name")?,
                        input: CallInput::Object(args),
                    });
                    Ok(())
                })
            })
        })
    })?;
    Ok(calls)
}

/// The candidate's content to append (role `model`), unset fields left out.
pub(crate) fn model_items(body: &Value) -> Result<Vec<Value>, ResponseError> {
    content(body, |content| {
        Ok(match content {
            Some(content) => {
                content.object()?;
                vec![without_nulls(content.value)]
            }
            None => Vec::new(),
        })
    })
}

pub(crate) fn result_items(calls: &[ProviderCall], results: &[ToolResult]) -> Vec<Value> {
    if calls.is_empty() {
        return Vec::new();
    }
    let parts: Vec<Value> = calls
        .iter()
        .zip(results)
        .map(|(call, result)| {
            let carried = parts(result, &CARRIES);
            let key = if result.status == ToolStatus::Error {
                "error"
            } else {
                "output"
            };
            let mut response = Map::new();
            if let Some(id) = &call.id {
                response.insert("id".into(), json!(id));
            }
            response.insert("name".into(), json!(call.name));
            response.insert("response".into(), json!({ key: joined_text(&carried) }));
            let images: Vec<Value> = carried
                .iter()
                .filter_map(|part| match part {
                    Part::Image { mime_type, data } => {
                        Some(json!({ "inlineData": { "mimeType": mime_type, "data": data } }))
                    }
                    Part::Text(_) => None,
                })
                .collect();
            if !images.is_empty() {
                response.insert("parts".into(), Value::Array(images));
            }
            json!({ "functionResponse": response })
        })
        .collect();
    vec![json!({ "role": "user", "parts": parts })]
}
