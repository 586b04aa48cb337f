//! `execution.taskSupport` in the served `tools/list`, as a client reads it: MCP
//! 2025-11-25 gives a tool `execution.taskSupport` (`forbidden` when absent), which
//! rmcp's `Tool` model has no field for; MCP 2026-07-28's `Tool` has none (the tasks
//! extension's capability is its only handshake). Spoken to in raw JSON-RPC over
//! streamable HTTP (`HttpServer`); the example conformance server's tests do the same
//! over stdio.

// Tests set their fixtures up with sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod support;

use std::net::SocketAddr;

use holon_core::Registry;
use holon_core::prelude::*;
use holon_mcp::{McpServer, ServerInfo};
use hyper::{Method, StatusCode};
use serde_json::{Value, json};

/// Runs as a task only.
#[holon_tool(family = CoreAgent, task = required)]
fn required_job() -> String {
    "required".to_string()
}

/// A task when the client supports tasks.
#[holon_tool(family = CoreAgent, task = optional)]
fn optional_job() -> String {
    "optional".to_string()
}

/// Never a task.
#[holon_tool(family = CoreAgent)]
fn plain_job() -> String {
    "plain".to_string()
}

fn server() -> McpServer {
    let registry = Registry::of_module(module_path!()).expect("the test's tools");
    McpServer::new(registry, ServerInfo::new("task-support-test", "1.0.0"))
}

/// The `initialize` request of a 2025-11-25 session.
fn initialize() -> Value {
    support::initialize("task-support-test")
}

fn initialized() -> Value {
    json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })
}

/// A `tools/list` request, its `_meta` `meta` when given.
fn list_request(meta: Option<Value>) -> Value {
    let params = match meta {
        Some(meta) => json!({ "_meta": meta }),
        None => json!({}),
    };
    json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": params })
}

/// The `_meta` of a stateless (2026-07-28) request.
fn stateless_meta() -> Value {
    holon_test_support::initialize::stateless_meta("task-support-test")
}

/// Each listed tool's `execution` (`Null` when it has none), by name.
fn executions(answer: &Value) -> Vec<(String, Value)> {
    let tools = answer["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("a tools/list result: {answer}"));
    tools
        .iter()
        .map(|tool| {
            let name = tool["name"].as_str().unwrap().to_string();
            (name, tool.get("execution").cloned().unwrap_or(Value::Null))
        })
        .collect()
}

/// What MCP 2025-11-25 lists of the three tools.
fn as_2025_11_25_lists_them() -> Vec<(String, Value)> {
    vec![
        ("OptionalJob".into(), json!({ "taskSupport": "optional" })),
        ("PlainJob".into(), Value::Null),
        ("RequiredJob".into(), json!({ "taskSupport": "required" })),
    ]
}

/// A server of this file's tools on streamable HTTP, without a token (loopback).
async fn http_server() -> SocketAddr {
    support::serve_without_token(server()).await
}

/// POSTs `body` to the MCP endpoint with `headers`: the status, the session id
/// answered, and the JSON-RPC message.
async fn post(
    addr: SocketAddr,
    headers: &[(&str, &str)],
    body: &Value,
) -> (StatusCode, Option<String>, Value) {
    support::send(addr, Method::POST, headers, Some(body)).await
}

#[tokio::test]
async fn a_2025_11_25_session_over_http_lists_each_tools_task_support() {
    let addr = http_server().await;
    let (status, session, answer) = post(addr, &[], &initialize()).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let session = session.expect("a session id");
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let (status, _, _) = post(addr, &headers, &initialized()).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let (status, _, answer) = post(addr, &headers, &list_request(None)).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(executions(&answer), as_2025_11_25_lists_them());
}

#[tokio::test]
async fn a_2026_07_28_request_over_http_lists_no_execution() {
    let addr = http_server().await;
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/list"),
    ];
    let body = list_request(Some(stateless_meta()));
    let (status, _, answer) = post(addr, &headers, &body).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let listed: Vec<Value> = executions(&answer).into_iter().map(|(_, e)| e).collect();
    assert_eq!(listed, vec![Value::Null; 3]);
    assert_eq!(answer["result"]["resultType"], "complete");
}
