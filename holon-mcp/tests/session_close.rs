//! A client closing its streamable HTTP session with `DELETE` (MCP 2025-11-25,
//! transports, session management): the server answers 200, as the official Python
//! SDK's server does and as its client expects (it logs any answer but 200, 204 or
//! 405 as a failed termination), and the closed session is gone (404): a request
//! naming it, a second `DELETE` included, gets 404 ("Session Management": a server
//! answers 404 to a request with a session id it no longer has).

// Tests set their fixtures up with sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod support;

use std::net::SocketAddr;

use holon_core::Registry;
use holon_core::prelude::*;
use holon_mcp::{McpServer, ServerInfo};
use hyper::{Method, StatusCode};
use serde_json::{Value, json};

/// The client and server name of these tests.
const CLIENT: &str = "session-close-test";

/// Answers "pong".
#[holon_tool(family = CoreAgent)]
fn ping_job() -> String {
    "pong".to_string()
}

/// A server of this file's tool on streamable HTTP, without a token (loopback).
async fn http_server() -> SocketAddr {
    let registry = Registry::of_module(module_path!()).expect("the test's tool");
    let server = McpServer::new(registry, ServerInfo::new(CLIENT, "1.0.0"));
    support::serve_without_token(server).await
}

/// Sends `method` to the MCP endpoint with `headers` and `body`: the status and the
/// session id answered.
async fn send(
    addr: SocketAddr,
    method: Method,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> (StatusCode, Option<String>) {
    let (status, session, _) = support::send(addr, method, headers, body).await;
    (status, session)
}

#[tokio::test]
async fn a_session_closed_with_delete_is_answered_200_and_is_gone() {
    let addr = http_server().await;
    let session = support::open_session(addr, CLIENT).await;
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];

    let (status, _) = send(addr, Method::DELETE, &headers, None).await;
    assert_eq!(status, StatusCode::OK, "the session's close");

    let list = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {} });
    let (status, _) = send(addr, Method::POST, &headers, Some(&list)).await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "a request of the closed session"
    );
}

#[tokio::test]
async fn a_delete_of_a_closed_or_unknown_session_is_answered_404() {
    let addr = http_server().await;
    let session = support::open_session(addr, CLIENT).await;
    let other = support::open_session(addr, CLIENT).await;
    fn headers(session: &str) -> [(&str, &str); 2] {
        [
            ("mcp-session-id", session),
            ("mcp-protocol-version", "2025-11-25"),
        ]
    }
    let (status, _) = send(addr, Method::DELETE, &headers(&session), None).await;
    assert_eq!(status, StatusCode::OK, "the first close");
    let (status, _) = send(addr, Method::DELETE, &headers(&session), None).await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "a second close of the session"
    );
    let (status, _) = send(addr, Method::DELETE, &headers("no-such-session"), None).await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "a close of a session never opened"
    );
    // The other session lives on: its own close is the first.
    let list = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {} });
    let (status, _) = send(addr, Method::POST, &headers(&other), Some(&list)).await;
    assert_eq!(status, StatusCode::OK, "a request of the other session");
    let (status, _) = send(addr, Method::DELETE, &headers(&other), None).await;
    assert_eq!(status, StatusCode::OK, "the other session's close");
}

#[tokio::test]
async fn of_two_deletes_of_a_session_at_once_one_closes_it_and_the_other_is_answered_404() {
    let addr = http_server().await;
    for _ in 0..20 {
        let session = support::open_session(addr, CLIENT).await;
        let headers = [
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", "2025-11-25"),
        ];
        let (first, second) = tokio::join!(
            send(addr, Method::DELETE, &headers, None),
            send(addr, Method::DELETE, &headers, None),
        );
        let mut statuses = [first.0, second.0];
        statuses.sort();
        assert_eq!(statuses, [StatusCode::OK, StatusCode::NOT_FOUND]);
    }
}
