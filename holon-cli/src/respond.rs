//! `holon-tools respond --provider P`: one model API response body on stdin, its tool
//! calls dispatched on the runtime, and the items to append to the next request
//! (the model's output, then the results, in the provider's form) as JSON on stdout.

use std::process::ExitCode;
use std::sync::Arc;

use holon_core::{FamilyPolicy, Registry, ToolResult};
use holon_export::Provider;
use holon_provider::{
    ProviderCall, dispatch_calls, model_items, parse_body, read_calls, result_items,
};
use holon_runtime::Runtime;
use holon_runtime::agency::ROOT_AGENT_ID;
use serde_json::Value;

use super::EXIT_TOOL_ERROR;
use super::output::emit_json;

/// Parses a provider name: a model API (`mcp` has no responses to answer).
pub(crate) fn parse_provider(name: &str) -> Result<Provider, String> {
    match name.parse::<Provider>() {
        Ok(Provider::Mcp) | Err(_) => Err(format!(
            "unknown provider `{name}`; expected one of: openai-chat, openai-responses, anthropic, gemini"
        )),
        Ok(provider) => Ok(provider),
    }
}

/// Reads the body, dispatches its calls of the default agent through the runtime's
/// turn gate, prints the items to append. A malformed body is said on stderr with the
/// path of what is wrong (exit 2); failed calls are results, printed like the others.
pub(crate) async fn respond(
    runtime: Arc<Runtime>,
    policy: FamilyPolicy,
    provider: Provider,
) -> ExitCode {
    let text = match std::io::read_to_string(std::io::stdin()) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("holon-tools: cannot read the response body from stdin: {error}");
            return ExitCode::from(EXIT_TOOL_ERROR);
        }
    };
    let read = parse_body(&text).and_then(|body| {
        let calls = read_calls(provider, &body)?;
        Ok((model_items(provider, &body)?, calls))
    });
    let (mut items, calls) = match read {
        Ok(read) => read,
        Err(error) => {
            eprintln!("holon-tools: the {provider} response cannot be read: {error}");
            return ExitCode::from(EXIT_TOOL_ERROR);
        }
    };
    let results = dispatch_admitted(&runtime, policy, &calls).await;
    items.extend(result_items(provider, &calls, &results));
    emit_json(Ok(Value::Array(items)))
}

/// The results of `calls`: a call the turn gate refuses has its refusal, the others
/// are dispatched together (so read-only ones still run concurrently).
async fn dispatch_admitted(
    runtime: &Arc<Runtime>,
    policy: FamilyPolicy,
    calls: &[ProviderCall],
) -> Vec<ToolResult> {
    let refusals: Vec<Option<ToolResult>> = calls
        .iter()
        .map(|call| {
            let input = || serde_json::to_string(&call.input).unwrap_or_default();
            runtime.admit(ROOT_AGENT_ID, &call.name, input, call.id.as_deref())
        })
        .collect();
    let admitted: Vec<ProviderCall> = calls
        .iter()
        .zip(&refusals)
        .filter(|(_, refusal)| refusal.is_none())
        .map(|(call, _)| call.clone())
        .collect();
    let context = runtime.context(policy);
    let mut dispatched = dispatch_calls(Registry::global(), &context, &admitted)
        .await
        .into_iter();
    refusals
        .into_iter()
        .map(|refusal| {
            refusal
                .or_else(|| dispatched.next())
                .unwrap_or_else(unreachable_result)
        })
        .collect()
}

/// Never built: each admitted call has its dispatched result.
fn unreachable_result() -> ToolResult {
    ToolResult::from_error(
        "",
        holon_core::ToolError::new(
            holon_core::ToolErrorKind::new("internal"),
            "a call was neither refused nor dispatched",
        ),
    )
}
