//! The client handles over rmcp, end to end: the example server on stdio, spoken to in
//! raw JSON-RPC by a client that answers the server's own requests. The conformance
//! suite checks that the messages arrive; this checks what it does not: that
//! `logging/setLevel` filters them, that a client without a capability gets the typed
//! error, and what the server sends in its requests.

// Tests set their fixtures up with std::fs, processes and sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod common;

use common::Server;
use serde_json::{Value, json};

impl Server {
    /// The server, initialized by a client of `capabilities`.
    fn start(capabilities: Value) -> Self {
        Self::initialized("client-handles-test", capabilities)
    }

    fn call(&mut self, id: u64, name: &str, arguments: Value) -> (Vec<Value>, Value) {
        self.call_answering(id, name, arguments, |_| None)
    }

    fn call_answering(
        &mut self,
        id: u64,
        name: &str,
        arguments: Value,
        reply: impl Fn(&Value) -> Option<Value>,
    ) -> (Vec<Value>, Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}));
        self.until_answer(id, reply)
    }
}

fn log_messages(messages: &[Value]) -> Vec<(String, String)> {
    messages
        .iter()
        .filter(|message| message["method"] == "notifications/message")
        .map(|message| {
            let params = &message["params"];
            (
                params["level"].as_str().unwrap_or_default().to_string(),
                params["data"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn log_messages_follow_the_level_the_client_sets() {
    let mut server = Server::start(json!({}));
    let (before, answer) = server.call(1, "test_tool_with_logging", json!({}));
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    let info = |text: &str| ("info".to_string(), text.to_string());
    let all = vec![
        info("Tool execution started"),
        info("Tool processing data"),
        info("Tool execution completed"),
    ];
    assert_eq!(
        log_messages(&before),
        all,
        "every level until the client sets one"
    );
    assert!(
        before
            .iter()
            .all(|message| message["params"]["logger"] == "test_tool_with_logging"),
        "{before:?}"
    );

    server.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel",
        "params": {"level": "warning"}}),
    );
    let (_, answer) = server.until_answer(2, |_| None);
    assert!(answer.get("error").is_none(), "{answer}");
    let (before, _) = server.call(3, "test_tool_with_logging", json!({}));
    assert_eq!(log_messages(&before), [], "info is below warning");

    server.send(
        json!({"jsonrpc": "2.0", "id": 4, "method": "logging/setLevel",
        "params": {"level": "info"}}),
    );
    server.until_answer(4, |_| None);
    let (before, _) = server.call(5, "test_tool_with_logging", json!({}));
    assert_eq!(log_messages(&before), all);
}

#[test]
fn a_client_without_sampling_or_elicitation_gets_the_typed_error_and_no_request() {
    let mut server = Server::start(json!({}));
    for (id, tool, arguments) in [
        (1, "test_sampling", json!({"prompt": "hi"})),
        (2, "test_elicitation", json!({"message": "who are you?"})),
    ] {
        let (before, answer) = server.call(id, tool, arguments);
        let result = &answer["result"];
        assert_eq!(result["isError"], true, "{answer}");
        assert_eq!(
            result["_meta"]["holon/error"]["kind"], "client_capability_missing",
            "{answer}"
        );
        assert!(
            before.iter().all(|message| message.get("id").is_none()),
            "the server sent a request: {before:?}"
        );
    }
}

#[test]
fn sampling_and_elicitation_requests_reach_a_capable_client_and_its_answers_the_tool() {
    let mut server = Server::start(json!({"sampling": {}, "elicitation": {}}));
    let (before, answer) =
        server.call_answering(1, "test_sampling", json!({"prompt": "Say hi"}), |request| {
            (request["method"] == "sampling/createMessage").then(|| {
                json!({"role": "assistant", "model": "test-model", "stopReason": "endTurn",
                    "content": {"type": "text", "text": "hi there"}})
            })
        });
    let request = before
        .iter()
        .find(|message| message["method"] == "sampling/createMessage")
        .expect("a sampling request");
    assert_eq!(
        request["params"]["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Say hi"}}])
    );
    assert_eq!(request["params"]["maxTokens"], 100);
    assert_eq!(
        answer["result"]["structuredContent"]["result"],
        "LLM response: hi there"
    );

    let (before, answer) =
        server.call_answering(2, "test_elicitation_sep1330_enums", json!({}), |request| {
            (request["method"] == "elicitation/create")
                .then(|| json!({"action": "accept", "content": {"titledMulti": ["value2"]}}))
        });
    let request = before
        .iter()
        .find(|message| message["method"] == "elicitation/create")
        .expect("an elicitation request");
    let properties = &request["params"]["requestedSchema"]["properties"];
    assert_eq!(
        properties["legacyEnum"]["enumNames"][1], "Option Two",
        "{request}"
    );
    assert_eq!(
        properties["titledSingle"]["oneOf"][0]["title"], "First Option",
        "{request}"
    );
    assert_eq!(
        properties["titledMulti"]["items"]["anyOf"][2]["const"], "value3",
        "{request}"
    );
    assert_eq!(
        answer["result"]["structuredContent"]["result"],
        r#"Elicitation completed: action=accept, content={"titledMulti":["value2"]}"#
    );

    let (_, answer) = server.call_answering(3, "test_elicitation", json!({"message": "?"}), |_| {
        Some(json!({"action": "decline"}))
    });
    assert_eq!(
        answer["result"]["structuredContent"]["result"],
        "User response: action=decline"
    );
}
