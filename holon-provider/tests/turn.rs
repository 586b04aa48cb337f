//! One turn per provider: calls read with their ids, dispatched, results written in
//! the provider's form.

mod common;

use common::tools::{PIXEL_PNG, take_events};
use holon_core::{FamilyPolicy, Registry, ToolContext};
use holon_provider::{CallInput, Provider, ResponseErrorKind, read_calls, respond};
use serde_json::{Value, json};

fn context() -> ToolContext {
    ToolContext::new(FamilyPolicy::all())
}

async fn turn(provider: Provider, body: Value) -> holon_provider::Turn {
    respond(Registry::global(), &context(), provider, &body)
        .await
        .expect("a well-formed response")
}

fn chat(calls: Value) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt",
        "choices": [{ "index": 0, "finish_reason": "tool_calls",
            "message": { "role": "assistant", "content": null, "refusal": null,
                         "annotations": [], "tool_calls": calls } }],
    })
}

fn chat_call(id: &str, name: &str, arguments: &str) -> Value {
    json!({ "id": id, "type": "function", "function": { "name": name, "arguments": arguments } })
}

#[tokio::test]
async fn chat_calls_keep_their_ids_and_results_are_tool_messages() {
    let body = chat(json!([
        chat_call("call_a", "Echo", r#"{"text":"hi"}"#),
        { "id": "call_b", "type": "custom", "custom": { "name": "Shout", "input": "hey you" } },
        chat_call("call_c", "Lookup", r#"{"key":"k"}"#),
    ]));
    let turn = turn(Provider::OpenAiChat, body).await;
    let ids: Vec<_> = turn
        .calls
        .iter()
        .map(|c| c.id.as_deref().unwrap())
        .collect();
    assert_eq!(ids, ["call_a", "call_b", "call_c"]);
    assert_eq!(turn.calls[1].input, CallInput::Freeform("hey you".into()));
    assert_eq!(turn.result_items.len(), 3);
    for (item, id) in turn.result_items.iter().zip(ids) {
        assert_eq!(item["role"], "tool");
        assert_eq!(item["tool_call_id"], id);
    }
    assert!(
        turn.result_items[0]["content"]
            .as_str()
            .unwrap()
            .contains("text: hi")
    );
    assert!(
        turn.result_items[1]["content"]
            .as_str()
            .unwrap()
            .contains("HEY YOU")
    );
    let error = turn.result_items[2]["content"].as_str().unwrap();
    assert!(
        error.contains("not_found") && error.contains("there is no key `k`"),
        "{error}"
    );
    // The assistant message goes back without the response-only fields.
    assert_eq!(turn.model_items.len(), 1);
    assert_eq!(turn.model_items[0]["role"], "assistant");
    assert!(turn.model_items[0].get("annotations").is_none());
    assert_eq!(
        turn.model_items[0]["tool_calls"][1]["custom"]["input"],
        "hey you"
    );
}

#[tokio::test]
async fn a_key_given_twice_in_chat_arguments_is_refused() {
    let body = chat(json!([chat_call(
        "call_d",
        "Echo",
        r#"{"text":"a","text":"b"}"#
    )]));
    let turn = turn(Provider::OpenAiChat, body).await;
    assert_eq!(turn.results[0].error_kind(), Some("duplicate_field"));
    assert_eq!(turn.results[0].call_id.as_deref(), Some("call_d"));
}

#[tokio::test]
async fn an_image_in_a_chat_tool_message_is_replaced_by_a_note() {
    let body = chat(json!([chat_call("call_i", "Snapshot", "{}")]));
    let turn = turn(Provider::OpenAiChat, body).await;
    let content = &turn.result_items[0]["content"];
    let parts = content.as_array().expect("receipt and note as text parts");
    assert_eq!(parts.len(), 2);
    let note = parts[1]["text"].as_str().unwrap();
    assert!(
        note.contains("image/png") && note.contains("cannot carry"),
        "{note}"
    );
    assert!(parts.iter().all(|part| part["type"] == "text"));
}

#[tokio::test]
async fn responses_function_and_custom_calls_get_their_own_output_items() {
    let body = json!({ "id": "resp_1", "object": "response", "output": [
        { "type": "reasoning", "id": "rs_1", "summary": [] },
        { "type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "Echo",
          "arguments": "{\"text\":\"x\"}", "status": "completed" },
        { "type": "custom_tool_call", "id": "ctc_1", "call_id": "call_2", "name": "Shout",
          "input": "abc" },
        { "type": "function_call", "id": "fc_3", "call_id": "call_3", "name": "Snapshot",
          "arguments": "{}" },
    ]});
    let turn = turn(Provider::OpenAiResponses, body).await;
    assert_eq!(turn.model_items.len(), 4);
    let items = &turn.result_items;
    assert_eq!(items[0]["type"], "function_call_output");
    assert_eq!(items[0]["call_id"], "call_1");
    assert_eq!(items[1]["type"], "custom_tool_call_output");
    assert_eq!(items[1]["call_id"], "call_2");
    assert!(items[1]["output"].as_str().unwrap().contains("ABC"));
    let image = &items[2]["output"][1];
    assert_eq!(image["type"], "input_image");
    assert_eq!(
        image["image_url"],
        format!("data:image/png;base64,{PIXEL_PNG}")
    );
}

#[tokio::test]
async fn anthropic_results_are_one_user_message_with_errors_flagged_and_images_as_blocks() {
    let body = json!({ "id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
    "stop_reason": "tool_use", "content": [
        { "type": "text", "text": "Let me look.", "citations": null },
        { "type": "tool_use", "id": "toolu_1", "name": "Lookup", "input": { "key": "k" } },
        { "type": "tool_use", "id": "toolu_2", "name": "Snapshot", "input": {} },
        { "type": "tool_use", "id": "toolu_3", "name": "Explode", "input": { "reason": "r" } },
    ]});
    let turn = turn(Provider::Anthropic, body).await;
    assert_eq!(turn.model_items[0]["role"], "assistant");
    assert!(turn.model_items[0]["content"][0].get("citations").is_none());
    assert_eq!(turn.result_items.len(), 1);
    let message = &turn.result_items[0];
    assert_eq!(message["role"], "user");
    let blocks = message["content"].as_array().unwrap();
    assert_eq!(blocks[0]["tool_use_id"], "toolu_1");
    assert_eq!(blocks[0]["is_error"], true);
    assert_eq!(blocks[1]["is_error"], false);
    assert_eq!(blocks[1]["content"][1]["type"], "image");
    assert_eq!(blocks[1]["content"][1]["source"]["data"], PIXEL_PNG);
    assert_eq!(blocks[2]["is_error"], true);
    assert!(
        blocks[2]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("tool_panicked")
    );
}

#[tokio::test]
async fn gemini_function_responses_carry_id_name_and_output_or_error() {
    let body = json!({ "candidates": [{ "finishReason": "STOP", "content": { "role": "model",
        "parts": [
            { "text": "calling" },
            { "functionCall": { "id": "g1", "name": "Echo", "args": { "text": "t" } } },
            { "functionCall": { "name": "Lookup", "args": { "key": "k" } } },
            { "functionCall": { "id": "g3", "name": "Snapshot" } },
        ] } }] });
    let turn = turn(Provider::Gemini, body).await;
    assert_eq!(turn.calls[1].id, None);
    let parts = turn.result_items[0]["parts"].as_array().unwrap();
    assert_eq!(turn.result_items[0]["role"], "user");
    assert_eq!(parts[0]["functionResponse"]["id"], "g1");
    assert_eq!(parts[0]["functionResponse"]["name"], "Echo");
    assert!(
        parts[0]["functionResponse"]["response"]["output"]
            .as_str()
            .unwrap()
            .contains("text: t")
    );
    assert!(parts[1]["functionResponse"].get("id").is_none());
    assert!(
        parts[1]["functionResponse"]["response"]["error"]
            .as_str()
            .unwrap()
            .contains("not_found")
    );
    let image = &parts[2]["functionResponse"]["parts"][0]["inlineData"];
    assert_eq!(image["mimeType"], "image/png");
    assert_eq!(image["data"], PIXEL_PNG);
}

#[tokio::test]
async fn an_unknown_tool_is_an_error_result_not_a_refused_turn() {
    let body = chat(json!([chat_call("call_u", "Ecko", "{}")]));
    let turn = turn(Provider::OpenAiChat, body).await;
    assert_eq!(turn.results[0].error_kind(), Some("unknown_tool"));
    assert!(
        turn.result_items[0]["content"]
            .as_str()
            .unwrap()
            .contains("Echo")
    );
}

fn sleeps(tool: &str, count: usize, ms: u64) -> Value {
    chat(Value::Array(
        (0..count)
            .map(|i| {
                chat_call(
                    &format!("c{i}"),
                    tool,
                    &format!(r#"{{"ms":{ms},"label":"{i}"}}"#),
                )
            })
            .collect(),
    ))
}

// One test for both orders: the event log is shared by the process's tests.
#[tokio::test]
async fn read_only_calls_overlap_and_other_calls_run_in_the_models_order() {
    take_events();
    turn(Provider::OpenAiChat, sleeps("Sleep", 8, 20)).await;
    let events = take_events();
    let first_end = events.iter().position(|e| e.starts_with("end")).unwrap();
    assert_eq!(
        first_end, 8,
        "every read-only call started before any ended: {events:?}"
    );

    turn(Provider::OpenAiChat, sleeps("Record", 3, 5)).await;
    let expected = ["start 0", "end 0", "start 1", "end 1", "start 2", "end 2"];
    assert_eq!(take_events(), expected);
}

#[tokio::test]
async fn each_call_runs_under_the_callers_time_limit_and_cancellation() {
    let limited = context().with_timeout(std::time::Duration::from_millis(5));
    let body = chat(json!([
        chat_call("c", "Echo", r#"{"text":"x"}"#),
        chat_call("s", "Sleep", r#"{"ms":60000,"label":"t"}"#)
    ]));
    let turn = respond(Registry::global(), &limited, Provider::OpenAiChat, &body)
        .await
        .unwrap();
    assert!(turn.results[0].is_success());
    assert_eq!(turn.results[1].error_kind(), Some("tool_timed_out"));

    let token = holon_core::CancellationToken::new();
    token.cancel();
    let cancelled = context().with_cancellation(token);
    let turn = respond(Registry::global(), &cancelled, Provider::OpenAiChat, &body)
        .await
        .unwrap();
    assert_eq!(turn.results[1].error_kind(), Some("cancelled"));
}

fn refused(provider: Provider, body: Value) -> (ResponseErrorKind, String) {
    let error = read_calls(provider, &body).expect_err("a malformed response");
    (error.kind, error.path)
}

#[test]
fn malformed_chat_responses_are_refused_with_the_path() {
    use ResponseErrorKind::*;
    let cases = [
        (json!({}), MissingField, "choices"),
        (json!({ "choices": [] }), Empty, "choices"),
        (
            json!({ "choices": [{}] }),
            MissingField,
            "choices[0].message",
        ),
        (
            json!({ "choices": [{ "message": { "tool_calls": {} } }] }),
            WrongType,
            "choices[0].message.tool_calls",
        ),
        (
            chat(json!([{ "type": "function", "function": {} }])),
            MissingField,
            "choices[0].message.tool_calls[0].id",
        ),
        (
            chat(json!([{ "id": "a", "type": "web" }])),
            WrongType,
            "choices[0].message.tool_calls[0].type",
        ),
        (
            chat(
                json!([{ "id": "a", "type": "function", "function": { "name": "Echo", "arguments": {} } }]),
            ),
            WrongType,
            "choices[0].message.tool_calls[0].function.arguments",
        ),
        (
            chat(json!([{ "id": "a", "type": "custom", "custom": { "name": "Shout" } }])),
            MissingField,
            "choices[0].message.tool_calls[0].custom.input",
        ),
        (json!([]), WrongType, "$"),
    ];
    for (body, kind, path) in cases {
        assert_eq!(
            refused(Provider::OpenAiChat, body.clone()),
            (kind, path.to_string()),
            "{body}"
        );
    }
}

#[test]
fn malformed_responses_api_bodies_are_refused_with_the_path() {
    use ResponseErrorKind::*;
    let cases = [
        (json!({ "output": null }), MissingField, "output"),
        (json!({ "output": [{}] }), MissingField, "output[0].type"),
        (
            json!({ "output": [{ "type": "function_call", "name": "Echo", "arguments": "{}" }] }),
            MissingField,
            "output[0].call_id",
        ),
        (
            json!({ "output": [{ "type": "function_call", "call_id": "c", "name": "Echo", "arguments": {} }] }),
            WrongType,
            "output[0].arguments",
        ),
        (
            json!({ "output": [{ "type": "custom_tool_call", "call_id": "c", "name": 3, "input": "x" }] }),
            WrongType,
            "output[0].name",
        ),
    ];
    for (body, kind, path) in cases {
        assert_eq!(
            refused(Provider::OpenAiResponses, body.clone()),
            (kind, path.to_string()),
            "{body}"
        );
    }
}

#[test]
fn malformed_anthropic_messages_are_refused_with_the_path() {
    use ResponseErrorKind::*;
    let cases = [
        (json!({ "content": "text" }), WrongType, "content"),
        (
            json!({ "content": [{ "type": "tool_use", "id": "t", "name": "Echo", "input": "{}" }] }),
            WrongType,
            "content[0].input",
        ),
        (
            json!({ "content": [{ "type": "tool_use", "name": "Echo", "input": {} }] }),
            MissingField,
            "content[0].id",
        ),
        (
            json!({ "content": [{ "type": "tool_use", "id": "t", "input": {} }] }),
            MissingField,
            "content[0].name",
        ),
    ];
    for (body, kind, path) in cases {
        assert_eq!(
            refused(Provider::Anthropic, body.clone()),
            (kind, path.to_string()),
            "{body}"
        );
    }
}

#[test]
fn malformed_gemini_responses_are_refused_with_the_path() {
    use ResponseErrorKind::*;
    let cases = [
        (json!({}), MissingField, "candidates"),
        (json!({ "candidates": [] }), Empty, "candidates"),
        (
            json!({ "candidates": [{ "content": { "parts": {} } }] }),
            WrongType,
            "candidates[0].content.parts",
        ),
        (
            json!({ "candidates": [{ "content": { "parts": [{ "functionCall": { "name": "Echo", "args": [] } }] } }] }),
            WrongType,
            "candidates[0].content.parts[0].functionCall.args",
        ),
        (
            json!({ "candidates": [{ "content": { "parts": [{ "functionCall": { "args": {} } }] } }] }),
            MissingField,
            "candidates[0].content.parts[0].functionCall.name",
        ),
        (
            json!({ "candidates": [{ "content": { "parts": [{ "functionCall": { "id": 7, "name": "Echo" } }] } }] }),
            WrongType,
            "candidates[0].content.parts[0].functionCall.id",
        ),
    ];
    for (body, kind, path) in cases {
        assert_eq!(
            refused(Provider::Gemini, body.clone()),
            (kind, path.to_string()),
            "{body}"
        );
    }
}

#[test]
fn a_body_that_is_not_json_or_a_provider_that_is_not_a_model_api_is_refused() {
    let error = holon_provider::parse_body("{\"choices\": [").unwrap_err();
    assert_eq!(error.kind, ResponseErrorKind::InvalidJson);
    let error = read_calls(Provider::Mcp, &json!({})).unwrap_err();
    assert_eq!(error.kind, ResponseErrorKind::UnsupportedProvider);
}
