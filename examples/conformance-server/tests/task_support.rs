//! `execution.taskSupport` in `tools/list` over stdio, end to end, in raw JSON-RPC:
//! MCP 2025-11-25 gives each tool that may run as a task its `execution.taskSupport`
//! (absent means `forbidden`); the 2026-07-28 `Tool` has no `execution` (the tasks
//! extension's capability is its only handshake).

// Tests set their fixtures up with std::fs, processes and sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod common;

use common::Server;
use holon_test_support::initialize::Client;
use serde_json::{Value, json};

/// The listed tools that have an `execution`, with it, by name.
fn executions(answer: &Value) -> Vec<(String, Value)> {
    let tools = answer["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("a tools/list result: {answer}"));
    assert!(tools.len() > 4, "the example's tools: {answer}");
    tools
        .iter()
        .filter_map(|tool| {
            let execution = tool.get("execution")?.clone();
            Some((tool["name"].as_str().unwrap().to_string(), execution))
        })
        .collect()
}

#[test]
fn a_2025_11_25_session_lists_the_task_support_of_each_task_tool() {
    let mut server = Server::initialized("task-support-test", json!({}));
    let (_, answer) = server.request("tools/list", json!({}));
    let expected: Vec<(String, Value)> = [
        ("confirm_delete", "optional"),
        ("failing_job", "required"),
        ("multi_input", "optional"),
        ("protocol_error_job", "optional"),
        ("slow_compute", "optional"),
        ("test_tool_with_task", "required"),
    ]
    .into_iter()
    .map(|(name, support)| (name.to_string(), json!({ "taskSupport": support })))
    .collect();
    assert_eq!(executions(&answer), expected);
}

#[test]
fn a_2026_07_28_request_lists_no_execution() {
    let mut server = Server::stateless();
    let meta = Client::new("task-support-test")
        .version("1")
        .stateless_meta();
    let (_, answer) = server.request("tools/list", json!({ "_meta": meta }));
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    assert_eq!(executions(&answer), Vec::new());
}
