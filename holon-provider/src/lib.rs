//! # holon-provider
//!
//! The other half of the loop with a model API: the tool calls of a response body in,
//! dispatched on a [`Registry`](holon_core::Registry), the results out in the form the
//! provider's next request takes. No HTTP client: the caller sends requests.
//!
//! | provider | calls read from | results written as |
//! |---|---|---|
//! | `openai-chat` | `choices[0].message.tool_calls` (`function`, `custom`) | `role: tool` messages with `tool_call_id` |
//! | `openai-responses` | `output[]` `function_call`, `custom_tool_call` | `function_call_output`, `custom_tool_call_output` with `call_id` |
//! | `anthropic` | `content[]` `tool_use` | one user message of `tool_result` blocks (`is_error`, image blocks) |
//! | `gemini` | `candidates[0].content.parts[].functionCall` | one user content of `functionResponse` parts |
//!
//! [`respond`] does one turn; [`run_loop`] runs turns with a request sender until the
//! model stops calling tools; [`testing::ScriptedModel`] is a sender that replays a
//! script, for tests.

mod agent_loop;
mod anthropic;
mod call;
mod chat;
mod content;
mod dispatch;
mod error;
mod gemini;
mod read;
mod responses;
pub mod testing;
mod turn;

pub use agent_loop::{LoopError, SendError, StopReason, Transcript, run_loop};
pub use call::{CallInput, ProviderCall};
pub use dispatch::{all_read_only, dispatch_calls};
pub use error::{ResponseError, ResponseErrorKind};
pub use holon_export::Provider;
pub use turn::{
    Turn, conversation_field, model_items, parse_body, read_calls, respond, result_items,
};
