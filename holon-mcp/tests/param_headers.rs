//! Tool arguments mirrored in `Mcp-Param-*` headers (SEP-2243, MCP 2026-07-28): a
//! property the tool's schema marks `x-mcp-header` is listed with its mark, and a
//! streamable HTTP call whose header disagrees with its body, or leaves the header
//! out, is refused (HTTP 400, JSON-RPC `-32020`) before the tool runs. A tool that
//! declares a header clients would drop keeps the server from starting.

// The test is the client: it connects to the server it started, on loopback.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::net::SocketAddr;
use std::sync::Mutex;

use holon_core::Registry;
use holon_core::prelude::*;
use holon_mcp::{McpServer, ServerInfo};
use hyper::{Method, StatusCode};
use serde_json::{Value, json};

mod support;

/// The regions `Route` ran in (the tests run at once: each refused call names a
/// region of its own).
static ROUTED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Arguments of `Route`.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct RouteArgs {
    /// Where to run.
    #[schemars(extend("x-mcp-header" = "Region"))]
    pub region: String,
    /// How many at most (optional: its header comes with it).
    #[serde(default)]
    #[schemars(with = "i64", extend("x-mcp-header" = "Limit"))]
    pub limit: Option<i64>,
    /// Whether to pretend only.
    #[serde(default)]
    #[schemars(extend("x-mcp-header" = "Dry-Run"))]
    pub dry_run: bool,
    /// Not in a header.
    #[serde(default)]
    pub note: String,
}

/// Routes a job.
#[holon_tool(family = CoreAgent)]
fn route(args: RouteArgs) -> String {
    ROUTED.lock().unwrap().push(args.region.clone());
    format!("{} {:?} {}", args.region, args.limit, args.dry_run)
}

/// Says hello (no header).
#[holon_tool(family = CoreAgent)]
fn hello() -> String {
    "hello".into()
}

/// A server of `Route` and `Hello` (not of the badly declared tool below).
fn server() -> McpServer {
    let registry = Registry::filtered(|meta| meta.defined_at.module == module_path!())
        .expect("the test's tools");
    McpServer::new(registry, ServerInfo::new("param-headers-test", "1.0.0"))
}

/// A 2026-07-28 `tools/call` of `tool` with `arguments` and the extra `headers`: the
/// status and the JSON-RPC answer.
async fn call(
    addr: SocketAddr,
    tool: &str,
    arguments: Value,
    headers: &[(&str, &str)],
) -> (StatusCode, Value) {
    let body = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {
            "name": tool, "arguments": arguments,
            "_meta": holon_test_support::initialize::Client::new("param-headers").version("1").stateless_meta(),
        },
    });
    let mut all = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
    ];
    all.extend_from_slice(headers);
    let (status, _, answer) = support::send(addr, Method::POST, &all, Some(&body)).await;
    (status, answer)
}

/// Asserts the call was refused as a header mismatch naming `expected`, and that
/// `Route` did not run.
async fn refused(addr: SocketAddr, arguments: Value, headers: &[(&str, &str)], expected: &str) {
    let region = arguments["region"].as_str().unwrap().to_string();
    let (status, answer) = call(addr, "Route", arguments, headers).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert_eq!(answer["error"]["code"], -32020, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(expected), "{message}");
    assert!(!ROUTED.lock().unwrap().contains(&region), "the tool ran");
}

#[tokio::test]
async fn the_marked_properties_are_listed_with_their_headers() {
    let addr = support::serve_without_token(server()).await;
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": { "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }},
    });
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/list"),
    ];
    let (status, _, answer) = support::send(addr, Method::POST, &headers, Some(&body)).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let tools = answer["result"]["tools"].as_array().unwrap();
    let route = tools.iter().find(|tool| tool["name"] == "Route").unwrap();
    let properties = &route["inputSchema"]["properties"];
    assert_eq!(properties["region"]["x-mcp-header"], "Region");
    assert_eq!(properties["limit"]["x-mcp-header"], "Limit");
    assert_eq!(properties["limit"]["type"], "integer");
    assert_eq!(properties["dry_run"]["x-mcp-header"], "Dry-Run");
    assert_eq!(properties["note"].get("x-mcp-header"), None);
}

#[tokio::test]
async fn a_call_whose_headers_match_its_body_runs() {
    let addr = support::serve_without_token(server()).await;
    let arguments = json!({ "region": "eu-west", "limit": 5, "dry_run": true, "note": "n" });
    let headers = [
        ("mcp-param-region", "eu-west"),
        ("mcp-param-limit", "5"),
        ("mcp-param-dry-run", "true"),
    ];
    let (status, answer) = call(addr, "Route", arguments, &headers).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(
        answer["result"]["structuredContent"]["result"],
        "eu-west Some(5) true"
    );

    // A value wrapped in Base64 is compared decoded (`é` cannot travel bare).
    let arguments = json!({ "region": "île-de-france", "dry_run": false });
    let headers = [
        ("mcp-param-region", "=?base64?w65sZS1kZS1mcmFuY2U=?="),
        ("mcp-param-dry-run", "false"),
    ];
    let (status, answer) = call(addr, "Route", arguments, &headers).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(
        answer["result"]["structuredContent"]["result"],
        "île-de-france None false"
    );
}

#[tokio::test]
async fn a_call_whose_headers_disagree_with_its_body_is_refused_before_the_tool_runs() {
    let addr = support::serve_without_token(server()).await;
    let region = |name: &str| json!({ "region": name });
    refused(
        addr,
        region("r1"),
        &[("mcp-param-region", "us-east")],
        "does not match",
    )
    .await;
    refused(addr, region("r2"), &[], "missing Mcp-Param-Region").await;
    // `cjM=` is "r3": without its padding it is not Base64.
    refused(
        addr,
        region("r3"),
        &[("mcp-param-region", "=?base64?cjM?=")],
        "Base64",
    )
    .await;
    refused(
        addr,
        region("r4"),
        &[("mcp-param-region", "r4"), ("mcp-param-limit", "5")],
        "unexpected Mcp-Param-Limit",
    )
    .await;
    refused(
        addr,
        json!({ "region": "r5", "limit": 5 }),
        &[("mcp-param-region", "r5"), ("mcp-param-limit", "6")],
        "does not match",
    )
    .await;
}

#[tokio::test]
async fn a_tool_without_marked_properties_needs_no_header() {
    let addr = support::serve_without_token(server()).await;
    let (status, answer) = call(addr, "Hello", json!({}), &[]).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["result"]["structuredContent"]["result"], "hello");
}

mod badly_declared {
    use holon_core::Registry;
    use holon_core::prelude::*;
    use holon_mcp::{McpServer, ServerInfo};

    /// Arguments with a header on a list, which no header can carry.
    #[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
    #[serde(deny_unknown_fields)]
    pub struct TagArgs {
        /// The tags.
        #[schemars(extend("x-mcp-header" = "Tags"))]
        pub tags: Vec<String>,
    }

    /// Tags a job.
    #[holon_tool(family = CoreAgent)]
    fn tag(args: TagArgs) -> usize {
        args.tags.len()
    }

    #[test]
    fn a_header_clients_would_drop_keeps_the_server_from_starting() {
        let registry = Registry::of_module(module_path!()).expect("the module's tool");
        let server = McpServer::new(registry, ServerInfo::new("bad", "1.0.0"));
        let error = server
            .check()
            .expect_err("a list cannot travel in a header");
        assert!(
            matches!(&error, holon_mcp::CatalogError::Header { tool, .. } if tool == "Tag"),
            "{error:?}"
        );
        let error = error.to_string();
        assert!(
            error.contains("tool `Tag`") && error.contains("property `tags`"),
            "{error}"
        );
        assert!(error.contains("has type \"array\""), "{error}");
    }
}
