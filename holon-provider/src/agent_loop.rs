//! The loop: send the request, dispatch the response's calls, append the model's
//! output and the results the provider's way, until the model stops calling tools or
//! the turn limit is reached.

use std::future::Future;

use holon_core::{Registry, ToolContext};
use holon_export::Provider;
use serde_json::{Value, json};

use crate::error::ResponseError;
use crate::turn::{Turn, conversation_field, respond};

/// The error a request sender returns.
pub type SendError = Box<dyn std::error::Error + Send + Sync>;

/// Why [`run_loop`] stopped early.
#[derive(Debug, thiserror::Error)]
pub enum LoopError {
    /// Sending a request failed.
    #[error("sending the request of turn {turn} failed: {source}")]
    Send {
        /// The turn, from 1.
        turn: usize,
        /// The sender's error.
        source: SendError,
    },
    /// A response could not be read.
    #[error("the response of turn {turn} is malformed: {source}")]
    Response {
        /// The turn, from 1.
        turn: usize,
        /// What was wrong with it.
        source: ResponseError,
    },
    /// The request body has no conversation to append to.
    #[error("the request body is not a {provider} request: {message}")]
    Request {
        /// The provider.
        provider: Provider,
        /// What was wrong.
        message: String,
    },
}

/// Why the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The model answered without calling a tool.
    Finished,
    /// The turn limit was reached while the model was still calling tools; the last
    /// turn's results are in the request, ready for another turn.
    TurnLimit,
}

/// What a loop did: each turn, why it stopped, and the request as it stands (the
/// original with every turn's model output and results appended).
#[derive(Debug, Clone, PartialEq)]
pub struct Transcript {
    /// Each turn's response body and its dispatched calls.
    pub turns: Vec<(Value, Turn)>,
    /// Why the loop ended.
    pub stop: StopReason,
    /// The request with everything appended.
    pub request: Value,
}

impl Transcript {
    /// The last response's body (the model's final answer when it finished).
    pub fn last_response(&self) -> Option<&Value> {
        self.turns.last().map(|(response, _)| response)
    }
}

/// Runs turns of `provider`'s API: sends `request` (the provider's JSON request body,
/// with its tools) with `send`, dispatches the response's tool calls on `registry`
/// under `context`, appends the model's output and the results to the request's
/// conversation (`messages`, `input` or `contents`), and sends again, until a response
/// calls no tool or `max_turns` responses were handled.
pub async fn run_loop<F, Fut>(
    registry: &Registry,
    context: &ToolContext,
    provider: Provider,
    mut request: Value,
    max_turns: usize,
    mut send: F,
) -> Result<Transcript, LoopError>
where
    F: FnMut(Value) -> Fut,
    Fut: Future<Output = Result<Value, SendError>>,
{
    conversation(provider, &mut request)?;
    let mut turns = Vec::new();
    for number in 1..=max_turns {
        let response = send(request.clone())
            .await
            .map_err(|source| LoopError::Send {
                turn: number,
                source,
            })?;
        let turn = respond(registry, context, provider, &response)
            .await
            .map_err(|source| LoopError::Response {
                turn: number,
                source,
            })?;
        conversation(provider, &mut request)?.extend(turn.items().cloned());
        let finished = turn.calls.is_empty();
        turns.push((response, turn));
        if finished {
            return Ok(Transcript {
                turns,
                stop: StopReason::Finished,
                request,
            });
        }
    }
    Ok(Transcript {
        turns,
        stop: StopReason::TurnLimit,
        request,
    })
}

/// The request's conversation array; a Responses `input` given as a string becomes
/// the one user message it stands for.
fn conversation(provider: Provider, request: &mut Value) -> Result<&mut Vec<Value>, LoopError> {
    let refuse = |message: String| LoopError::Request { provider, message };
    let field = conversation_field(provider)
        .ok_or_else(|| refuse("MCP has no model requests".to_string()))?;
    let body = request
        .as_object_mut()
        .ok_or_else(|| refuse("the request body must be a JSON object".to_string()))?;
    let slot = body.entry(field).or_insert_with(|| json!([]));
    if let Value::String(text) = slot {
        *slot = json!([{ "role": "user", "content": text }]);
    }
    match slot {
        Value::Array(items) => Ok(items),
        _ => Err(refuse(format!("`{field}` must be an array"))),
    }
}
