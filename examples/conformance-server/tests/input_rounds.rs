//! MCP 2026-07-28 over stdio, end to end, in raw JSON-RPC: stateless requests (each
//! names its revision and the client's capabilities in `_meta`, no `initialize`), and
//! the multi-round `InputRequiredResult` through which a handler's requests to the
//! client go, the handler's code the same as under 2025-11-25 (`test_elicitation`,
//! `test_sampling` are the tools the 2025-11-25 scenarios call).

// Tests set their fixtures up with std::fs, processes and sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod common;

use common::Server;
use holon_test_support::initialize::Client;
use serde_json::{Value, json};

/// The `_meta` of a stateless request from a client of `capabilities`, plus `extra`.
fn meta(capabilities: &Value, extra: Value) -> Value {
    let mut meta = Client::new("input-rounds-test")
        .version("1")
        .capabilities(capabilities.clone())
        .stateless_meta();
    if let (Some(meta), Value::Object(extra)) = (meta.as_object_mut(), extra) {
        meta.extend(extra);
    }
    meta
}

impl Server {
    /// Calls `tool` as a client of `capabilities`, with `more` params (the answers of a
    /// round); the messages before the answer, and the answer.
    fn call(&mut self, tool: &str, capabilities: &Value, more: Value) -> (Vec<Value>, Value) {
        let mut params =
            json!({ "name": tool, "arguments": {}, "_meta": meta(capabilities, json!({})) });
        if let (Some(params), Value::Object(more)) = (params.as_object_mut(), more) {
            params.extend(more);
        }
        self.request("tools/call", params)
    }
}

fn accept(content: Value) -> Value {
    json!({ "action": "accept", "content": content })
}

/// The string a complete tool result carries.
fn text(answer: &Value) -> &str {
    let result = &answer["result"];
    assert_ne!(result["resultType"], "input_required", "{answer}");
    result["structuredContent"]["result"]
        .as_str()
        .unwrap_or_else(|| panic!("a string result: {answer}"))
}

#[test]
fn a_handler_asking_its_user_ends_the_call_with_the_request_then_runs_again_with_the_answer() {
    let mut server = Server::stateless();
    let capabilities = json!({ "elicitation": {} });
    let (before, first) = server.call(
        "test_elicitation",
        &capabilities,
        json!({ "arguments": { "message": "Who are you?" } }),
    );
    // No request of the server to the client: the revision has none.
    assert!(
        before.iter().all(|message| message.get("id").is_none()),
        "{before:?}"
    );
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let asked = &result["inputRequests"]["elicitation-1"];
    assert_eq!(asked["method"], "elicitation/create", "{first}");
    assert_eq!(asked["params"]["message"], "Who are you?", "{first}");
    assert_eq!(
        asked["params"]["requestedSchema"]["required"],
        json!(["username", "email"]),
        "{first}"
    );
    let state = result["requestState"].as_str().expect("a request state");

    let (_, second) = server.call(
        "test_elicitation",
        &capabilities,
        json!({
            "arguments": { "message": "Who are you?" },
            "inputResponses": { "elicitation-1": accept(json!({ "username": "ada", "email": "ada@example.org" })) },
            "requestState": state
        }),
    );
    // The content is JSON whose key order follows serde_json's features, which Cargo
    // unifies differently for this crate alone and for the workspace: compare values.
    let content = text(&second)
        .strip_prefix("User response: action=accept, content=")
        .unwrap_or_else(|| panic!("an accepted response: {second}"));
    let content: Value = serde_json::from_str(content)
        .unwrap_or_else(|error| panic!("JSON content ({error}): {second}"));
    assert_eq!(
        content,
        json!({ "username": "ada", "email": "ada@example.org" }),
        "{second}"
    );
}

#[test]
fn a_sampling_handler_gets_the_clients_reply_through_a_round() {
    let mut server = Server::stateless();
    let capabilities = json!({ "sampling": {} });
    let arguments = json!({ "prompt": "Capital of France?" });
    let (_, first) = server.call(
        "test_sampling",
        &capabilities,
        json!({ "arguments": arguments }),
    );
    let asked = &first["result"]["inputRequests"]["sampling-1"];
    assert_eq!(asked["method"], "sampling/createMessage", "{first}");
    assert_eq!(
        asked["params"]["messages"][0]["content"]["text"], "Capital of France?",
        "{first}"
    );
    let reply = json!({ "role": "assistant", "model": "m", "stopReason": "endTurn",
        "content": { "type": "text", "text": "Paris" } });
    let (_, second) = server.call(
        "test_sampling",
        &capabilities,
        json!({ "arguments": arguments, "inputResponses": { "sampling-1": reply },
                "requestState": first["result"]["requestState"] }),
    );
    assert_eq!(text(&second), "LLM response: Paris", "{second}");
}

#[test]
fn requests_made_together_come_in_one_round_and_requests_in_turn_in_rounds_of_their_own() {
    let mut server = Server::stateless();
    let all = json!({ "elicitation": {}, "sampling": {}, "roots": {} });
    let (_, joined) = server.call(
        "test_input_required_result_multiple_inputs",
        &all,
        json!({}),
    );
    let mut keys: Vec<&String> = joined["result"]["inputRequests"]
        .as_object()
        .unwrap_or_else(|| panic!("input requests: {joined}"))
        .keys()
        .collect();
    // Sorted: the map's order depends on serde_json's unified features.
    keys.sort();
    assert_eq!(keys, ["client_roots", "greeting", "user_name"], "{joined}");

    let (_, first) = server.call("test_input_required_result_multi_round", &all, json!({}));
    let asked: Vec<&String> = first["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(asked, ["step1"], "{first}");
    let (_, second) = server.call(
        "test_input_required_result_multi_round",
        &all,
        json!({ "inputResponses": { "step1": accept(json!({ "name": "Ada" })) },
                "requestState": first["result"]["requestState"] }),
    );
    let asked: Vec<&String> = second["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(asked, ["step2"], "{second}");
    // The second round's state carries the first answer: only the new one is sent.
    let (_, third) = server.call(
        "test_input_required_result_multi_round",
        &all,
        json!({ "inputResponses": { "step2": accept(json!({ "color": "blue" })) },
                "requestState": second["result"]["requestState"] }),
    );
    assert_eq!(text(&third), "Ada likes blue", "{third}");
}

#[test]
fn a_request_state_that_was_tampered_with_or_is_for_another_call_is_refused() {
    let mut server = Server::stateless();
    let capabilities = json!({ "elicitation": {} });
    let (_, first) = server.call(
        "test_input_required_result_multi_round",
        &capabilities,
        json!({}),
    );
    let state = first["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let answers = json!({ "step1": accept(json!({ "name": "Ada" })) });
    for (tool, state) in [
        (
            "test_input_required_result_multi_round",
            format!("{state}x"),
        ),
        ("test_input_required_result_request_state", state.clone()),
    ] {
        let (_, refused) = server.call(
            tool,
            &capabilities,
            json!({ "inputResponses": answers, "requestState": state }),
        );
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        assert_eq!(
            refused["error"]["data"]["kind"], "invalid_request_state",
            "{refused}"
        );
    }
}

#[test]
fn an_answer_that_does_not_parse_is_asked_again() {
    let mut server = Server::stateless();
    let capabilities = json!({ "elicitation": {} });
    let (_, again) = server.call(
        "test_input_required_result_elicitation",
        &capabilities,
        json!({ "inputResponses": { "user_name": 12345 } }),
    );
    assert_eq!(again["result"]["resultType"], "input_required", "{again}");
    assert!(
        again["result"]["inputRequests"]["user_name"].is_object(),
        "{again}"
    );
}

#[test]
fn a_call_needing_a_capability_the_request_does_not_declare_is_the_protocols_error() {
    let mut server = Server::stateless();
    let (_, refused) = server.call("test_missing_capability", &json!({}), json!({}));
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert!(
        refused["error"]["data"]["requiredCapabilities"]["sampling"].is_object(),
        "{refused}"
    );
}

#[test]
fn log_messages_go_only_to_a_request_that_names_a_log_level() {
    let mut server = Server::stateless();
    let (before, answer) = server.call("test_logging_tool", &json!({}), json!({}));
    text(&answer);
    let logs = |messages: &[Value]| {
        messages
            .iter()
            .filter(|message| message["method"] == "notifications/message")
            .count()
    };
    assert_eq!(logs(&before), 0, "{before:?}");
    let level = meta(
        &json!({}),
        json!({ "io.modelcontextprotocol/logLevel": "info" }),
    );
    let (before, _) = server.request(
        "tools/call",
        json!({ "name": "test_logging_tool", "arguments": {}, "_meta": level }),
    );
    assert_eq!(logs(&before), 1, "{before:?}");
}

#[test]
fn servers_given_one_key_file_open_one_anothers_rounds() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("request-state.keys");
    std::fs::write(
        &key,
        "# current first\nk2 XwyOGpt9PC5PaosMHS4/QF8MjhqbfTwuT2qLDB0uP0A=\n",
    )
    .unwrap();
    let with_key = [std::ffi::OsStr::new("--key-file"), key.as_os_str()];
    let mut sealing = Server::stateless_with(&with_key);
    let mut opening = Server::stateless_with(&with_key);
    // A replica with a key of its own, drawn at start.
    let mut stranger = Server::stateless();
    let capabilities = json!({ "sampling": {} });
    let arguments = json!({ "prompt": "Capital of France?" });
    let (_, first) = sealing.call(
        "test_sampling",
        &capabilities,
        json!({ "arguments": arguments }),
    );
    let reply = json!({ "role": "assistant", "model": "m", "stopReason": "endTurn",
        "content": { "type": "text", "text": "Paris" } });
    let answer = json!({ "arguments": arguments, "inputResponses": { "sampling-1": reply },
        "requestState": first["result"]["requestState"] });

    let (_, refused) = stranger.call("test_sampling", &capabilities, answer.clone());
    assert_eq!(
        refused["error"]["data"]["kind"], "invalid_request_state",
        "{refused}"
    );
    let (_, second) = opening.call("test_sampling", &capabilities, answer);
    assert_eq!(text(&second), "LLM response: Paris", "{second}");
}

#[test]
fn a_key_file_that_is_short_or_missing_is_refused_with_how_to_make_one() {
    let dir = tempfile::tempdir().unwrap();
    let short = dir.path().join("short.keys");
    std::fs::write(&short, "k1 MDEyMzQ1Njc4OWFiY2RlZg==\n").unwrap();
    for (file, says) in [
        (short, "openssl rand -base64 32"),
        (dir.path().join("missing"), "cannot be read"),
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_conformance-server"))
            .arg("--stdio")
            .arg("--key-file")
            .arg(&file)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{}", file.display());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("--key-file") && stderr.contains(says),
            "{stderr}"
        );
    }
}
