//! What the HTTP tests share: a server on loopback without a token, and one raw
//! request to it.

// Each test file takes the part it needs.
#![allow(dead_code)]

pub mod postgres;
pub mod wire;

use std::net::SocketAddr;

use holon_mcp::{HttpOptions, HttpServer, McpServer};
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{HeaderMap, Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

/// Serves `server` on streamable HTTP on a free loopback port, without a token: its
/// address. The port is bound before this returns, so a connection is queued until
/// the server accepts it.
pub async fn serve_without_token(server: McpServer) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let options = HttpOptions {
        no_auth: true,
        ..HttpOptions::new()
    };
    serve(listener, server, options).await
}

/// Serves `server` on `listener` as `options` say: its address.
pub async fn serve(
    listener: tokio::net::TcpListener,
    server: McpServer,
    options: HttpOptions,
) -> SocketAddr {
    let http = HttpServer::new(listener, server, options).await.unwrap();
    let addr = http.local_addr();
    tokio::spawn(http.into_future());
    addr
}

/// An MCP 2025-11-25 `initialize` request (id 1) of the client `name`.
pub fn initialize(name: &str) -> Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": { "name": name, "version": "0" },
        },
    })
}

/// A 2025-11-25 session of the client `name`, opened (`initialize`) and initialized on
/// `addr`: its id.
pub async fn open_session(addr: SocketAddr, name: &str) -> String {
    let (status, session, _) = send(addr, Method::POST, &[], Some(&initialize(name))).await;
    assert_eq!(status, StatusCode::OK);
    let session = session.expect("a session id");
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    let (status, _, _) = send(addr, Method::POST, &headers, Some(&initialized)).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    session
}

/// Sends `method` with `headers` and `body` to the MCP endpoint: the status, the
/// session id answered, and the JSON-RPC message (from JSON or an SSE stream; null
/// when there is none). The answer is read whole, so the exchange is over before the
/// next one.
pub async fn send(
    addr: SocketAddr,
    method: Method,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> (StatusCode, Option<String>, Value) {
    let (status, headers, body) = exchange(addr, method, "/mcp", headers, body).await;
    let session = headers
        .get("mcp-session-id")
        .map(|id| id.to_str().unwrap().to_string());
    (status, session, message(&body))
}

/// Sends `method` to `path` on `addr` with `headers` and `body`, on a connection of
/// its own: the status, headers and body of the answer, read whole.
pub async fn exchange(
    addr: SocketAddr,
    method: Method,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> (StatusCode, HeaderMap, String) {
    let response = open(addr, method, path, headers, body).await;
    let (parts, body) = response.into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    (
        parts.status,
        parts.headers,
        String::from_utf8_lossy(&body).into_owned(),
    )
}

/// Sends `method` to `path` on `addr` with `headers` and `body`, on a connection of
/// its own: the answer, its body still streaming in (the connection ends when the
/// body is dropped).
pub async fn open(
    addr: SocketAddr,
    method: Method,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> Response<Incoming> {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    let mut request = Request::builder()
        .method(method)
        .uri(path)
        .header("host", addr.to_string())
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let body = body.map(Value::to_string).unwrap_or_default();
    let request = request.body(Full::new(Bytes::from(body))).unwrap();
    sender.send_request(request).await.unwrap()
}

/// The JSON-RPC message of a response body, JSON or an SSE stream (null when there
/// is none).
pub fn message(body: &str) -> Value {
    if let Ok(value) = serde_json::from_str(body) {
        return value;
    }
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(|value| value.get("id").is_some())
        .unwrap_or(Value::Null)
}
