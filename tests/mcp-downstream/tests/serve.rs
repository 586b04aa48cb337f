//! The downstream crate's server, spoken to in raw JSON-RPC over stdio and streamable
//! HTTP: it calls itself by its own package, lists exactly its own tools, and each call
//! gets what the transport knows of its request.

// Tests set their fixtures up with processes and sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod common;

use common::{TOKEN, initialize, over_http, over_stdio};
use holon_core::{FamilyPolicy, Registry, ToolCall, ToolContext, ToolStatus};
// Links the library, whose tool the in-process registries find.
use holon_mcp_downstream as _;
use holon_test_support::http::{self, block_on};
use holon_test_support::initialize::initialized;
use hyper::{HeaderMap, Method, StatusCode};
use serde_json::{Value, json};

const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

fn echo_call(id: u64, header: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "RequestEcho", "arguments": {"header": header},
        "_meta": {"traceparent": TRACEPARENT}}})
}

fn assert_identity(initialized: &Value) {
    let info = &initialized["result"]["serverInfo"];
    assert_eq!(info["name"], "holon-mcp-downstream", "{initialized}");
    assert_eq!(info["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(info["description"], env!("CARGO_PKG_DESCRIPTION"));
    assert!(initialized["result"].get("instructions").is_none());
}

#[test]
fn over_stdio_it_is_its_own_server_with_exactly_its_tools() {
    let mut server = over_stdio();
    server.send(&initialize());
    assert_identity(&server.next());
    server.send(&initialized());
    server.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let listed = server.next();
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["Add", "FormatNumber", "Repeat", "RequestEcho"],
        "{listed}"
    );
    server.send(&echo_call(3, "x-tenant"));
    let called = server.next();
    assert_eq!(called["result"]["isError"], false, "{called}");
    assert_eq!(
        called["result"]["structuredContent"],
        // What stdio does not know is left out: a portable `structuredContent` omits a
        // member that is `null`, as its listed `outputSchema` allows.
        json!({
            "traceparent": TRACEPARENT, "protocol_version": "2025-11-25"
        })
    );
}

/// The answer to `request`, a JSON-RPC body POSTed with `headers`: the status, the
/// headers, and the JSON-RPC message of its body (plain or the SSE event's data).
fn post(
    authority: &str,
    headers: &[(&str, &str)],
    request: &Value,
) -> (StatusCode, HeaderMap, Value) {
    let addr = authority.parse().expect("a socket address");
    let (status, headers, body) = block_on(http::exchange(
        addr,
        Method::POST,
        "/mcp",
        headers,
        Some(request),
    ));
    (status, headers, http::message(&body))
}

#[test]
fn over_http_each_call_gets_its_headers_principal_session_and_revision() {
    let (_server, line, authority) = over_http(&[]);
    assert!(line.starts_with("holon-mcp-downstream: "), "{line}");
    let bearer = format!("Bearer {TOKEN}");

    let (status, headers, refused) = post(&authority, &[], &initialize());
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{headers:?}");
    assert!(
        headers.get_all("www-authenticate").iter().any(|value| value
            .to_str()
            .unwrap_or_default()
            .to_ascii_lowercase()
            .contains("bearer realm=\"holon-mcp-downstream\"")),
        "{headers:?}"
    );
    assert_eq!(refused, Value::Null);

    let authorized = [("authorization", bearer.as_str())];
    let (_, headers, opened) = post(&authority, &authorized, &initialize());
    assert_identity(&opened);
    let session = http::session_id(&headers).unwrap_or_else(|| panic!("no session in {headers:?}"));
    let in_session = [
        ("authorization", bearer.as_str()),
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
        ("x-tenant", "acme"),
    ];
    post(&authority, &in_session, &initialized());
    let (_, _, called) = post(&authority, &in_session, &echo_call(2, "X-TENANT"));
    let echo = &called["result"]["structuredContent"];
    assert_eq!(echo["traceparent"], TRACEPARENT, "{called}");
    assert_eq!(echo["header"], "acme");
    assert_eq!(echo["principal"], "static-bearer-token");
    assert_eq!(echo["session"], session.as_str());
    assert_eq!(echo["protocol_version"], "2025-11-25");
    // The credential stays with the server: a handler does not see it.
    let (_, _, called) = post(&authority, &in_session, &echo_call(3, "authorization"));
    assert_eq!(
        called["result"]["structuredContent"]["header"],
        Value::Null,
        "{called}"
    );
}

#[test]
fn outside_mcp_the_request_meta_is_missing_context() {
    let registry = Registry::of_module("holon_mcp_downstream").unwrap();
    let context = ToolContext::new(FamilyPolicy::all());
    let call = ToolCall::new("RequestEcho", json!({"header": "x"}));
    let mut future = std::pin::pin!(registry.dispatch(&context, call));
    let mut waker = std::task::Context::from_waker(std::task::Waker::noop());
    let std::task::Poll::Ready(result) = future.as_mut().poll(&mut waker) else {
        panic!("a synchronous handler's call is ready at once");
    };
    assert_eq!(result.status, ToolStatus::Error);
    let error = result.error.unwrap();
    assert_eq!(error.kind.as_str(), "missing_context");
    assert!(error.message.contains("`RequestMeta`"), "{}", error.message);
}

#[test]
fn a_registry_of_names_refuses_a_name_no_linked_tool_has() {
    let error = Registry::of_names(&["RequestEchoo"]).unwrap_err();
    assert!(
        error.problems[0].contains("did you mean `RequestEcho`"),
        "{error}"
    );
    let registry = Registry::of_names(&["RequestEcho"]).unwrap();
    assert_eq!(registry.len(), 1);
}

#[test]
fn over_stdio_an_over_long_line_is_answered_with_an_error_and_the_session_goes_on() {
    let mut server = over_stdio();
    server.send(&initialize());
    server.next();
    server.send(&initialized());
    // A valid request, one byte over the limit once its padding is in.
    let pad = "a".repeat(holon_mcp::DEFAULT_MAX_LINE_BYTES);
    server.send(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list",
                "params": {"_meta": {"pad": pad}}}));
    server.send(&json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}));
    let refused = server.next();
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(refused["error"]["data"]["kind"], "message_too_long");
    assert_eq!(refused["id"], Value::Null);
    let listed = server.next();
    assert_eq!(listed["id"], 6, "{listed}");
    assert!(listed["result"]["tools"].is_array());
}
