//! The downstream crate's server, spoken to in raw JSON-RPC over stdio and streamable
//! HTTP: it calls itself by its own package, lists exactly its own tools, and each call
//! gets what the transport knows of its request.

// Tests set their fixtures up with processes and sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::ChildStdin;
use std::sync::mpsc::Receiver;

use common::{TIMEOUT, TOKEN, over_http, over_stdio};
use holon_core::{FamilyPolicy, Registry, ToolCall, ToolContext, ToolStatus};
// Links the library, whose tool the in-process registries find.
use holon_mcp_downstream as _;
use serde_json::{Value, json};

const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "downstream-test", "version": "1"}}})
}

fn echo_call(id: u64, header: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "RequestEcho", "arguments": {"header": header},
        "_meta": {"traceparent": TRACEPARENT}}})
}

fn send(stdin: &mut ChildStdin, message: &Value) {
    writeln!(stdin, "{message}").unwrap();
    stdin.flush().unwrap();
}

fn next(stdout: &Receiver<String>) -> Value {
    serde_json::from_str(&stdout.recv_timeout(TIMEOUT).expect("the server answers")).unwrap()
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
    let (_server, mut stdin, stdout) = over_stdio();
    send(&mut stdin, &initialize());
    assert_identity(&next(&stdout));
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    let listed = next(&stdout);
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
    send(&mut stdin, &echo_call(3, "x-tenant"));
    let called = next(&stdout);
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

/// The answer to `request`, a JSON-RPC body POSTed with `headers`: the response
/// head, and the JSON-RPC message of its body (plain or the SSE event's data).
fn post(authority: &str, headers: &[String], request: &Value) -> (String, Value) {
    let body = request.to_string();
    let extra: String = headers.iter().map(|h| format!("{h}\r\n")).collect();
    let mut stream = TcpStream::connect(authority).unwrap();
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = common::read_until_answer(&mut stream);
    let mut buffer = [0u8; 4096];
    // The event may come in more than one read: read on to the end of its line.
    while !reply.trim_end_matches(['\r', '\n']).ends_with('}') || !reply.ends_with('\n') {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => reply.push_str(&String::from_utf8_lossy(&buffer[..n])),
        }
    }
    let (head, rest) = reply.split_once("\r\n\r\n").unwrap_or((&reply, ""));
    let message = rest
        .lines()
        .find_map(|line| {
            let line = line.strip_prefix("data: ").unwrap_or(line);
            serde_json::from_str::<Value>(line)
                .ok()
                .filter(Value::is_object)
        })
        .unwrap_or(Value::Null);
    (head.to_string(), message)
}

#[test]
fn over_http_each_call_gets_its_headers_principal_session_and_revision() {
    let (_server, line, authority) = over_http(&[]);
    assert!(line.starts_with("holon-mcp-downstream: "), "{line}");
    let bearer = format!("Authorization: Bearer {TOKEN}");

    let (head, refused) = post(&authority, &[], &initialize());
    assert!(head.starts_with("HTTP/1.1 401"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("bearer realm=\"holon-mcp-downstream\""),
        "{head}"
    );
    assert_eq!(refused, Value::Null);

    let (head, initialized) = post(&authority, std::slice::from_ref(&bearer), &initialize());
    assert_identity(&initialized);
    let session = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_string())
        })
        .unwrap_or_else(|| panic!("no session in {head}"));
    let in_session = [
        bearer.clone(),
        format!("Mcp-Session-Id: {session}"),
        "MCP-Protocol-Version: 2025-11-25".to_string(),
        "X-Tenant: acme".to_string(),
    ];
    post(
        &authority,
        &in_session,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    let (_, called) = post(&authority, &in_session, &echo_call(2, "X-TENANT"));
    let echo = &called["result"]["structuredContent"];
    assert_eq!(echo["traceparent"], TRACEPARENT, "{called}");
    assert_eq!(echo["header"], "acme");
    assert_eq!(echo["principal"], "static-bearer-token");
    assert_eq!(echo["session"], session.as_str());
    assert_eq!(echo["protocol_version"], "2025-11-25");
    // The credential stays with the server: a handler does not see it.
    let (_, called) = post(&authority, &in_session, &echo_call(3, "authorization"));
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
    let (_server, mut stdin, stdout) = over_stdio();
    send(&mut stdin, &initialize());
    next(&stdout);
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    // A valid request, one byte over the limit once its padding is in.
    let pad = "a".repeat(holon_mcp::DEFAULT_MAX_LINE_BYTES);
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list",
                "params": {"_meta": {"pad": pad}}}),
    );
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}),
    );
    let refused = next(&stdout);
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(refused["error"]["data"]["kind"], "message_too_long");
    assert_eq!(refused["id"], Value::Null);
    let listed = next(&stdout);
    assert_eq!(listed["id"], 6, "{listed}");
    assert!(listed["result"]["tools"].is_array());
}
