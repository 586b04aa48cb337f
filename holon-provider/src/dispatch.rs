//! Dispatching one turn's calls: all at once when every one is of a read-only tool,
//! one after another in the model's order otherwise.

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::Poll;

use holon_core::{Registry, ToolCall, ToolContext, ToolResult};

use crate::call::{CallInput, ProviderCall};

/// Whether every call is of a tool annotated `read_only` (an unknown tool is not).
pub fn all_read_only(registry: &Registry, calls: &[ProviderCall]) -> bool {
    calls.iter().all(|call| {
        registry
            .get(&call.name)
            .is_some_and(|definition| definition.annotations.read_only == Some(true))
    })
}

/// Dispatches `calls` under `context` (its cancellation and time limit apply to each
/// call) and returns their results in the calls' order, each with its call id.
///
/// JSON text arguments go through [`Registry::dispatch_text`] (a repeated key is
/// refused), a freeform input as the tool's raw text, an object through
/// [`Registry::dispatch`]. When every call is read-only they run concurrently on the
/// caller's task; otherwise each starts after the previous one finished, since a
/// later call may depend on an earlier one's effect.
pub async fn dispatch_calls(
    registry: &Registry,
    context: &ToolContext,
    calls: &[ProviderCall],
) -> Vec<ToolResult> {
    let mut results = if calls.len() > 1 && all_read_only(registry, calls) {
        concurrently(
            calls
                .iter()
                .map(|call| Box::pin(dispatch_one(registry, context, call)) as Dispatching<'_>)
                .collect(),
        )
        .await
    } else {
        // Awaited in place, unboxed: one call at a time needs no common future type.
        let mut results = Vec::with_capacity(calls.len());
        for call in calls {
            results.push(dispatch_one(registry, context, call).await);
        }
        results
    };
    for (result, call) in results.iter_mut().zip(calls) {
        result.call_id.clone_from(&call.id);
    }
    results
}

/// One call's dispatch, boxed, so that the calls of a batch poll side by side.
type Dispatching<'a> = Pin<Box<dyn Future<Output = ToolResult> + Send + 'a>>;

/// One call through the registry's entry point for its input's form.
async fn dispatch_one(
    registry: &Registry,
    context: &ToolContext,
    call: &ProviderCall,
) -> ToolResult {
    match &call.input {
        CallInput::JsonText(text) => registry.dispatch_text(context, &call.name, text).await,
        CallInput::Freeform(text) => {
            let call = ToolCall::freeform(call.name.as_str(), text.as_str());
            registry.dispatch(context, call).await
        }
        CallInput::Object(input) => {
            let call = ToolCall::new(call.name.as_str(), input.clone());
            registry.dispatch(context, call).await
        }
    }
}

/// Polls every dispatch until all are done; the results in the dispatches' order.
async fn concurrently(mut running: Vec<Dispatching<'_>>) -> Vec<ToolResult> {
    let mut done: Vec<Option<ToolResult>> = running.iter().map(|_| None).collect();
    poll_fn(|cx| {
        let mut pending = false;
        for (dispatch, slot) in running.iter_mut().zip(done.iter_mut()) {
            if slot.is_none() {
                match dispatch.as_mut().poll(cx) {
                    Poll::Ready(result) => *slot = Some(result),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    done.into_iter().flatten().collect()
}
