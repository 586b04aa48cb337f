//! `holon-tools respond`: one provider response body on stdin, the items to append to
//! the next request on stdout.

use std::process::Output;

use serde_json::{Value, json};

use crate::cli_support::holon_with_stdin;

fn respond(provider: &str, body: &str) -> Output {
    let dir = tempfile::tempdir().unwrap();
    holon_with_stdin(dir.path(), &["respond", "--provider", provider], body)
}

#[test]
fn respond_prints_the_model_output_then_the_results_in_the_providers_form() {
    let body = json!({ "id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
        "stop_reason": "tool_use", "content": [
            { "type": "tool_use", "id": "toolu_1", "name": "ListModelProviders", "input": {} },
            { "type": "tool_use", "id": "toolu_2", "name": "ListModelProvider", "input": {} },
        ] });
    let output = respond("anthropic", &body.to_string());
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let items: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(items[0]["role"], "assistant");
    let results = &items[1]["content"];
    assert_eq!(items[1]["role"], "user");
    assert_eq!(results[0]["tool_use_id"], "toolu_1");
    assert_eq!(results[0]["is_error"], false);
    assert_eq!(results[1]["tool_use_id"], "toolu_2");
    assert_eq!(results[1]["is_error"], true);
    let hint = results[1]["content"][0]["text"].as_str().unwrap();
    assert!(
        hint.contains("unknown_tool") && hint.contains("ListModelProviders"),
        "{hint}"
    );
}

#[test]
fn respond_refuses_a_repeated_key_in_chat_arguments_and_a_malformed_body() {
    let body = json!({ "choices": [{ "index": 0, "message": { "role": "assistant", "tool_calls": [
        { "id": "call_1", "type": "function", "function": { "name": "ListModelProviders",
          "arguments": "{\"include_unavailable\":true,\"include_unavailable\":false}" } }] } }] });
    let output = respond("openai-chat", &body.to_string());
    assert!(output.status.success());
    let items: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(items[1]["tool_call_id"], "call_1");
    assert!(
        items[1]["content"]
            .as_str()
            .unwrap()
            .contains("duplicate_field")
    );

    let output = respond(
        "gemini",
        r#"{"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]}"#,
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("candidates[0].content.parts[0].functionCall.name"),
        "{stderr}"
    );

    let output = respond("mcp", "{}");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown provider `mcp`"));
}
