//! What the HTTP tests share: a server on loopback without a token, and one raw
//! request to its MCP endpoint.

use std::net::SocketAddr;
use std::time::Duration;

use holon_mcp::{HttpOptions, McpServer, serve_http};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;

/// Serves `server` on streamable HTTP on a free loopback port, without a token, and
/// waits until it accepts connections.
pub async fn serve_without_token(server: McpServer) -> SocketAddr {
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let options = HttpOptions {
        no_auth: true,
        ..HttpOptions::new(addr)
    };
    tokio::spawn(serve_http(server, options));
    for _ in 0..500 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    addr
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
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    let mut request = Request::builder()
        .method(method)
        .uri("/mcp")
        .header("host", addr.to_string())
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let body = body.map(Value::to_string).unwrap_or_default();
    let request = request.body(Full::new(Bytes::from(body))).unwrap();
    let response = sender.send_request(request).await.unwrap();
    let status = response.status();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|id| id.to_str().unwrap().to_string());
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let body = String::from_utf8_lossy(&body);
    let message = serde_json::from_str(&body).unwrap_or_else(|_| {
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|message| message.get("id").is_some())
            .unwrap_or(Value::Null)
    });
    (status, session, message)
}
