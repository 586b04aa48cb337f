//! The loop over a scripted model: turns until the model stops calling tools or the
//! turn limit, the request grown the provider's way.

mod common;

use holon_core::{FamilyPolicy, Registry, ToolContext};
use holon_export::{ExportOptions, export};
use holon_provider::testing::ScriptedModel;
use holon_provider::{LoopError, Provider, StopReason, run_loop};
use serde_json::{Value, json};

fn context() -> ToolContext {
    ToolContext::new(FamilyPolicy::all())
}

fn tools(provider: Provider) -> Value {
    export(Registry::global(), provider, ExportOptions::default()).payload()
}

#[tokio::test]
async fn a_chat_loop_runs_until_the_model_answers_and_appends_each_turn() {
    let model = ScriptedModel::new([
        json!({ "choices": [{ "index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null, "tool_calls": [
                { "id": "call_1", "type": "function", "function": { "name": "Echo", "arguments": "{\"text\":\"one\"}" } },
                { "id": "call_2", "type": "function", "function": { "name": "Lookup", "arguments": "{\"key\":\"k\"}" } },
            ] } }] }),
        json!({ "choices": [{ "index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": "done", "refusal": null } }] }),
    ]);
    let request = json!({ "model": "gpt", "tools": tools(Provider::OpenAiChat),
        "messages": [{ "role": "user", "content": "go" }] });
    let transcript = run_loop(
        Registry::global(),
        &context(),
        Provider::OpenAiChat,
        request,
        5,
        |r| model.send(r),
    )
    .await
    .unwrap();
    assert_eq!(transcript.stop, StopReason::Finished);
    assert_eq!(transcript.turns.len(), 2);
    assert_eq!(model.remaining(), 0);

    let requests = model.requests();
    assert_eq!(requests[0]["messages"].as_array().unwrap().len(), 1);
    let second = requests[1]["messages"].as_array().unwrap();
    let roles: Vec<&str> = second.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "tool"]);
    assert_eq!(second[2]["tool_call_id"], "call_1");
    assert_eq!(second[3]["tool_call_id"], "call_2");
    assert!(second[3]["content"].as_str().unwrap().contains("not_found"));
    assert_eq!(requests[1]["tools"], requests[0]["tools"]);
    // The final answer is appended too: the request is the whole conversation.
    let last = transcript.request["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last, json!({ "role": "assistant", "content": "done" }));
}

fn tool_use(id: &str) -> Value {
    json!({ "id": "msg", "type": "message", "role": "assistant", "stop_reason": "tool_use",
        "content": [{ "type": "tool_use", "id": id, "name": "Echo", "input": { "text": id } }] })
}

#[tokio::test]
async fn an_anthropic_loop_stops_at_the_turn_limit_with_the_last_results_appended() {
    let model = ScriptedModel::new([tool_use("t1"), tool_use("t2"), tool_use("t3")]);
    let request = json!({ "model": "claude", "max_tokens": 100, "messages": [{ "role": "user", "content": "go" }] });
    let transcript = run_loop(
        Registry::global(),
        &context(),
        Provider::Anthropic,
        request,
        2,
        |r| model.send(r),
    )
    .await
    .unwrap();
    assert_eq!(transcript.stop, StopReason::TurnLimit);
    assert_eq!(model.requests().len(), 2);
    assert_eq!(model.remaining(), 1);
    let messages = transcript.request["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 5);
    assert_eq!(messages[4]["content"][0]["tool_use_id"], "t2");
}

#[tokio::test]
async fn a_responses_loop_turns_a_string_input_into_a_message_and_appends_items() {
    let model = ScriptedModel::new([
        json!({ "output": [{ "type": "custom_tool_call", "call_id": "c1", "name": "Shout", "input": "hey" }] }),
        json!({ "output": [{ "type": "message", "id": "m", "role": "assistant", "status": "completed",
            "content": [{ "type": "output_text", "text": "HEY", "annotations": [] }] }] }),
    ]);
    let request = json!({ "model": "gpt", "input": "shout hey" });
    let transcript = run_loop(
        Registry::global(),
        &context(),
        Provider::OpenAiResponses,
        request,
        3,
        |r| model.send(r),
    )
    .await
    .unwrap();
    assert_eq!(transcript.stop, StopReason::Finished);
    let input = model.requests()[1]["input"].as_array().unwrap().clone();
    assert_eq!(input[0], json!({ "role": "user", "content": "shout hey" }));
    assert_eq!(input[1]["type"], "custom_tool_call");
    assert_eq!(input[2]["type"], "custom_tool_call_output");
    assert_eq!(input[2]["call_id"], "c1");
}

#[tokio::test]
async fn a_gemini_loop_appends_model_and_user_contents() {
    let model = ScriptedModel::new([
        json!({ "candidates": [{ "content": { "role": "model", "parts": [
            { "functionCall": { "id": "f1", "name": "Echo", "args": { "text": "x" } } }] } }] }),
        json!({ "candidates": [{ "content": { "role": "model", "parts": [{ "text": "ok" }] } }] }),
    ]);
    let request = json!({ "contents": [{ "role": "user", "parts": [{ "text": "go" }] }] });
    let transcript = run_loop(
        Registry::global(),
        &context(),
        Provider::Gemini,
        request,
        3,
        |r| model.send(r),
    )
    .await
    .unwrap();
    let roles: Vec<&str> = transcript.request["contents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "model", "user", "model"]);
}

#[tokio::test]
async fn a_malformed_response_or_an_exhausted_script_ends_the_loop_with_the_turn() {
    let model = ScriptedModel::new([
        tool_use("t1"),
        json!({ "content": [{ "type": "tool_use", "id": "t" }] }),
    ]);
    let request = json!({ "messages": [] });
    let error = run_loop(
        Registry::global(),
        &context(),
        Provider::Anthropic,
        request.clone(),
        5,
        |r| model.send(r),
    )
    .await
    .unwrap_err();
    match error {
        LoopError::Response { turn, source } => {
            assert_eq!(turn, 2);
            assert_eq!(source.path, "content[0].input");
        }
        other => panic!("expected a response error, got {other}"),
    }
    let empty = ScriptedModel::new([]);
    let error = run_loop(
        Registry::global(),
        &context(),
        Provider::Anthropic,
        request,
        5,
        |r| empty.send(r),
    )
    .await
    .unwrap_err();
    assert!(matches!(error, LoopError::Send { turn: 1, .. }), "{error}");
    let error = run_loop(
        Registry::global(),
        &context(),
        Provider::Anthropic,
        json!({ "messages": {} }),
        5,
        |r| empty.send(r),
    )
    .await
    .unwrap_err();
    assert!(matches!(error, LoopError::Request { .. }), "{error}");
}
