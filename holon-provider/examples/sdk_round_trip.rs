//! The Rust half of the SDK oracle (`.ci/provider-sdks`): reads the responses the
//! providers' Python SDKs built (on stdin, `{"<provider>": [{"case", "response"}]}`),
//! runs one turn of each through [`run_loop`] with the test tools, and writes what
//! came out (on stdout, in the same shape) for the SDKs' request types to check.

#[path = "../tests/common/tools.rs"]
#[allow(dead_code)]
mod tools;

use std::time::Duration;

use holon_core::{FamilyPolicy, Registry, ToolContext};
use holon_export::{ExportOptions, export};
use holon_provider::testing::ScriptedModel;
use holon_provider::{Provider, run_loop};
use serde_json::{Value, json};

const PROVIDERS: [Provider; 4] = [
    Provider::OpenAiChat,
    Provider::OpenAiResponses,
    Provider::Anthropic,
    Provider::Gemini,
];

/// The request a conversation starts with: a user message and the registry's tools.
fn first_request(provider: Provider) -> Value {
    let tools = export(Registry::global(), provider, ExportOptions::default()).payload();
    let ask = "Use the tools.";
    match provider {
        Provider::OpenAiChat => json!({ "model": "gpt-5", "tools": tools,
            "messages": [{ "role": "user", "content": ask }] }),
        Provider::OpenAiResponses => json!({ "model": "gpt-5", "tools": tools,
            "input": [{ "role": "user", "content": ask }] }),
        Provider::Anthropic => json!({ "model": "claude-sonnet-4-5", "max_tokens": 1024,
            "tools": tools, "messages": [{ "role": "user", "content": ask }] }),
        Provider::Gemini | Provider::Mcp => json!({ "tools": tools,
            "contents": [{ "role": "user", "parts": [{ "text": ask }] }] }),
    }
}

async fn round_trip(provider: Provider, cases: &[Value]) -> Result<Vec<Value>, String> {
    // A time limit short enough that the `timeout` case ends quickly.
    let context = ToolContext::new(FamilyPolicy::all()).with_timeout(Duration::from_millis(500));
    let mut out = Vec::new();
    for case in cases {
        let model = ScriptedModel::new([case["response"].clone()]);
        let transcript = run_loop(
            Registry::global(),
            &context,
            provider,
            first_request(provider),
            1,
            |request| model.send(request),
        )
        .await
        .map_err(|error| format!("{provider} {}: {error}", case["case"]))?;
        let (_, turn) = &transcript.turns[0];
        let results: Vec<Value> = turn
            .results
            .iter()
            .zip(&turn.calls)
            .map(|(result, call)| {
                json!({ "id": call.id, "name": call.name, "call_id": result.call_id,
                    "status": result.status.as_str(), "error_kind": result.error_kind() })
            })
            .collect();
        out.push(json!({
            "case": case["case"],
            "results": results,
            "model_items": turn.model_items,
            "result_items": turn.result_items,
            "request": transcript.request,
        }));
    }
    Ok(out)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), String> {
    // The panicking tool's panic is caught and becomes its result; its message on
    // stderr would only be noise.
    std::panic::set_hook(Box::new(|_| {}));
    let input: Value =
        serde_json::from_reader(std::io::stdin().lock()).map_err(|e| format!("stdin: {e}"))?;
    let mut out = serde_json::Map::new();
    for provider in PROVIDERS {
        let cases = input[provider.as_str()]
            .as_array()
            .ok_or_else(|| format!("stdin has no `{provider}` cases"))?;
        let turns = round_trip(provider, cases).await?;
        eprintln!("{provider}: {} turns dispatched", turns.len());
        out.insert(provider.as_str().to_string(), Value::Array(turns));
    }
    serde_json::to_writer(std::io::stdout().lock(), &out).map_err(|e| e.to_string())
}
