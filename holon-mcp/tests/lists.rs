//! `tools/list` as a client reads it: in the same order every time (by name, whatever
//! order the tools are declared in) and, under MCP 2026-07-28, with the caching hints
//! the host configured (SEP-2549). The server runs in-process, spoken to in raw
//! JSON-RPC lines over an in-memory pipe.

use holon_core::Registry;
use holon_core::prelude::*;
use holon_mcp::rmcp::ServiceExt;
use holon_mcp::rmcp::model::CacheScope;
use holon_mcp::{ListCaching, McpServer, ServerInfo};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Says zeta.
#[holon_tool(family = CoreAgent)]
fn zeta() -> String {
    "zeta".into()
}

/// Says alpha.
#[holon_tool(family = CoreAgent)]
fn alpha() -> String {
    "alpha".into()
}

/// Says mid.
#[holon_tool(family = CoreAgent)]
fn mid() -> String {
    "mid".into()
}

/// The `_meta` of a stateless (2026-07-28) request.
fn stateless_meta() -> Value {
    holon_test_support::initialize::Client::new("lists-test")
        .version("1")
        .stateless_meta()
}

/// The answer of `server` to one stateless `tools/list`.
async fn list_tools(server: McpServer) -> Value {
    let (client, transport) = tokio::io::duplex(1 << 20);
    let running = tokio::spawn(async move {
        let service = server.serve(transport).await.expect("the server starts");
        let _ = service.waiting().await;
    });
    let (read, mut write) = tokio::io::split(client);
    let request = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": { "_meta": stateless_meta() } });
    write
        .write_all(format!("{request}\n").as_bytes())
        .await
        .unwrap();
    let mut lines = BufReader::new(read).lines();
    let answer = loop {
        let line = lines
            .next_line()
            .await
            .unwrap()
            .expect("the server answers");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 1 {
            break message;
        }
    };
    drop(write);
    running.abort();
    answer
}

fn server() -> McpServer {
    let registry = Registry::of_module(module_path!()).expect("the test's tools");
    McpServer::new(registry, ServerInfo::new("lists-test", "1.0.0"))
}

#[tokio::test]
async fn tools_are_listed_by_name_whatever_their_declaration_order() {
    let answer = list_tools(server()).await;
    let names: Vec<&str> = answer["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("a tool list: {answer}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Alpha", "Mid", "Zeta"], "{answer}");
}

#[tokio::test]
async fn a_stateless_tools_list_carries_the_default_caching_hints() {
    let answer = list_tools(server()).await;
    let result = &answer["result"];
    assert_eq!(result["ttlMs"], json!(300_000), "{answer}");
    assert_eq!(result["cacheScope"], json!("private"), "{answer}");
}

#[tokio::test]
async fn a_stateless_tools_list_carries_the_hints_the_host_configured() {
    let caching = ListCaching {
        ttl_ms: 1234,
        scope: CacheScope::Public,
    };
    let answer = list_tools(server().with_list_caching(caching)).await;
    let result = &answer["result"];
    assert_eq!(result["ttlMs"], json!(1234), "{answer}");
    assert_eq!(result["cacheScope"], json!("public"), "{answer}");
}
