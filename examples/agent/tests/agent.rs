//! The agent binary against a loopback server that replays provider-shaped responses
//! and records the requests it received: the tool results must come back in the
//! provider's exact form, the final answer must be printed, and every failure of the
//! exchange must end the run with a clear message and a non-zero exit.

// The test runs the binary and listens on a loopback port.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::process::{Command, Output};

// The loopback server that replays provider responses and records the requests.
use holon_test_support::loopback::{LoopbackServer, Recorded};
use serde_json::{Value, json};

const KEY: &str = "sk-test-0123456789-secret";

/// Runs the agent binary against `base_url` with the key in its environment.
fn agent(provider: &str, base_url: &str) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_agent"))
        .args(["--provider", provider, "--base-url", base_url])
        .args([
            "--model",
            "test-model",
            "How many words has 'a b c', times 7?",
        ])
        .env_remove("OPENAI_BASE_URL")
        .env_remove("ANTHROPIC_BASE_URL")
        .env("OPENAI_API_KEY", KEY)
        .env("ANTHROPIC_API_KEY", KEY)
        .output()
        .expect("the agent runs");
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(
        !stdout.contains(KEY) && !stderr.contains(KEY),
        "the key was printed:\n{stdout}\n{stderr}"
    );
    output
}

/// Writes the request bodies of `provider` for the SDK oracle (`.ci/provider-sdks`),
/// which holds each to the provider SDK's request type, when it asks for them.
fn dump_for_oracle(provider: &str, requests: &[Recorded]) {
    if let Some(dir) = std::env::var_os("HOLON_AGENT_REQUESTS_OUT") {
        let bodies: Vec<&Value> = requests.iter().map(|request| &request.body).collect();
        let path = std::path::Path::new(&dir).join(format!("{provider}.json"));
        std::fs::write(path, serde_json::to_string(&bodies).unwrap()).unwrap();
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ok(body: Value) -> (u16, String) {
    (200, body.to_string())
}

#[test]
fn a_chat_agent_sends_the_tool_messages_and_prints_the_answer() {
    let server = LoopbackServer::scripted(vec![
        ok(
            json!({ "id": "c1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{ "index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": null, "refusal": null, "tool_calls": [
                { "id": "call_words", "type": "function", "function": {
                    "name": "CountWords", "arguments": "{\"text\":\"a b c\"}" } },
                { "id": "call_times", "type": "function", "function": {
                    "name": "Calculate", "arguments": "{\"a\":3,\"op\":\"multiply\",\"b\":7}" } }] } }] }),
        ),
        ok(
            json!({ "id": "c2", "object": "chat.completion", "created": 2, "model": "m",
            "choices": [{ "index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": "It is 21.", "refusal": null } }] }),
        ),
    ]);
    let output = agent("openai-chat", &format!("http://{}/v1", server.address()));
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "It is 21.\n");

    let requests = server.requests();
    dump_for_oracle("openai-chat", &requests);
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(request.path, "/v1/chat/completions");
        assert_eq!(
            request.header("authorization"),
            Some(&*format!("Bearer {KEY}"))
        );
        let names: Vec<&str> = request.body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["Calculate", "CountWords"]);
    }
    let messages = requests[1].body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["tool_calls"][1]["id"], "call_times");
    for (message, id, value) in [
        (&messages[2], "call_words", "words: 3"),
        (&messages[3], "call_times", "result: 21"),
    ] {
        assert_eq!(message["role"], "tool");
        assert_eq!(message["tool_call_id"], id);
        let content = message["content"].as_str().unwrap();
        assert!(content.contains(value), "{content}");
        assert_eq!(message.as_object().unwrap().len(), 3, "{message}");
    }
}

#[test]
fn a_responses_agent_sends_function_call_outputs_and_prints_the_answer() {
    let server = LoopbackServer::scripted(vec![
        ok(
            json!({ "id": "r1", "object": "response", "status": "completed", "output": [
            { "type": "function_call", "id": "fc_1", "call_id": "call_div", "name": "Calculate",
              "arguments": "{\"a\":1,\"op\":\"divide\",\"b\":0}", "status": "completed" }] }),
        ),
        ok(
            json!({ "id": "r2", "object": "response", "status": "completed", "output": [
            { "type": "message", "id": "m1", "role": "assistant", "status": "completed",
              "content": [{ "type": "output_text", "text": "Division by zero.", "annotations": [] }] }] }),
        ),
    ]);
    let output = agent(
        "openai-responses",
        &format!("http://{}/v1/", server.address()),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "Division by zero.\n");
    assert!(text(&output.stderr).contains("division_by_zero"));

    let requests = server.requests();
    dump_for_oracle("openai-responses", &requests);
    assert_eq!(requests[1].path, "/v1/responses");
    let input = requests[1].body["input"].as_array().unwrap();
    assert_eq!(input.len(), 3);
    assert_eq!(input[1]["type"], "function_call");
    assert_eq!(input[2]["type"], "function_call_output");
    assert_eq!(input[2]["call_id"], "call_div");
    assert!(
        input[2]["output"]
            .as_str()
            .unwrap()
            .contains("division_by_zero")
    );
}

#[test]
fn an_anthropic_agent_sends_tool_result_blocks_and_prints_the_answer() {
    let server = LoopbackServer::scripted(vec![
        ok(
            json!({ "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": { "input_tokens": 1, "output_tokens": 1 }, "content": [
            { "type": "text", "text": "Counting." },
            { "type": "tool_use", "id": "toolu_1", "name": "CountWords", "input": { "text": "a b c" } }] }),
        ),
        ok(
            json!({ "id": "msg_2", "type": "message", "role": "assistant", "model": "m",
            "stop_reason": "end_turn", "stop_sequence": null,
            "usage": { "input_tokens": 1, "output_tokens": 1 },
            "content": [{ "type": "text", "text": "Three words." }] }),
        ),
    ]);
    let output = agent("anthropic", &format!("http://{}", server.address()));
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "Three words.\n");

    let requests = server.requests();
    dump_for_oracle("anthropic", &requests);
    assert_eq!(requests[1].path, "/v1/messages");
    assert_eq!(requests[1].header("x-api-key"), Some(KEY));
    assert_eq!(requests[1].header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(requests[1].header("authorization"), None);
    let messages = requests[1].body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[2]["role"], "user");
    let result = &messages[2]["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(result["tool_use_id"], "toolu_1");
    assert_eq!(result["is_error"], false);
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("words: 3")
    );
}

/// Runs the chat agent against a server answering `status` and `body` once.
fn failed_run(status: u16, body: &str) -> String {
    let server = LoopbackServer::scripted(vec![(status, body.to_string())]);
    let output = agent("openai-chat", &format!("http://{}/v1", server.address()));
    assert!(!output.status.success(), "HTTP {status} ended in success");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(text(&output.stdout), "", "nothing is printed as an answer");
    text(&output.stderr)
}

#[test]
fn http_error_statuses_end_the_run_with_the_status_the_api_message_and_a_hint() {
    let error = |message: &str| json!({ "error": { "message": message, "type": "x" } }).to_string();
    let stderr = failed_run(401, &error("Incorrect API key provided: sk-te***cret."));
    assert!(stderr.contains("HTTP 401 Unauthorized"), "{stderr}");
    assert!(stderr.contains("Incorrect API key provided"), "{stderr}");
    assert!(
        stderr.contains("check the key in OPENAI_API_KEY"),
        "{stderr}"
    );

    let stderr = failed_run(429, &error("Rate limit reached"));
    assert!(stderr.contains("HTTP 429 Too Many Requests"), "{stderr}");
    assert!(stderr.contains("rate limited"), "{stderr}");

    let stderr = failed_run(500, "<html>upstream exploded</html>");
    assert!(
        stderr.contains("HTTP 500 Internal Server Error"),
        "{stderr}"
    );
    assert!(stderr.contains("upstream exploded"), "{stderr}");
    assert!(stderr.contains("try again later"), "{stderr}");
}

#[test]
fn a_malformed_body_ends_the_run_with_what_is_wrong_with_it() {
    let stderr = failed_run(200, "{\"choices\": [");
    assert!(stderr.contains("not JSON"), "{stderr}");

    let stderr = failed_run(
        200,
        &json!({ "choices": [{ "message": { "role": "assistant", "tool_calls": [
            { "id": "c", "type": "function", "function": { "name": "Calculate", "arguments": 7 } }] } }] })
        .to_string(),
    );
    assert!(stderr.contains("malformed"), "{stderr}");
    assert!(
        stderr.contains("choices[0].message.tool_calls[0].function.arguments"),
        "{stderr}"
    );
}

#[test]
fn a_refused_connection_ends_the_run_naming_the_url() {
    // A port that was just free: nothing listens on it any more.
    let address = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let output = agent("openai-chat", &format!("http://{address}/v1"));
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "cannot reach http://{address}/v1/chat/completions"
        )),
        "{stderr}"
    );
    assert!(
        stderr.to_lowercase().contains("connection refused"),
        "{stderr}"
    );
}

#[test]
fn a_missing_key_is_named_before_anything_is_sent() {
    let output = Command::new(env!("CARGO_BIN_EXE_agent"))
        .args([
            "--provider",
            "anthropic",
            "--base-url",
            "http://127.0.0.1:9",
            "--model",
            "m",
            "hi",
        ])
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("set ANTHROPIC_API_KEY"));
}
