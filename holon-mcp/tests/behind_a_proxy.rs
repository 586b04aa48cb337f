//! The HTTP server behind a load balancer or reverse proxy: event streams that a
//! proxy neither buffers (`X-Accel-Buffering: no`) nor closes as idle (keep-alive
//! comments at the interval of `HttpOptions::sse_keep_alive`), and the `Host` names
//! it answers to (`HttpOptions::allowed_hosts`: DNS rebinding protection), each with
//! real requests.

// Tests set their fixtures up with sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod support;

use std::net::SocketAddr;
use std::time::Duration;

use holon_core::Registry;
use holon_core::prelude::*;
use holon_mcp::{
    DEFAULT_SSE_KEEP_ALIVE, HttpOptions, HttpServer, McpServer, ServeError, ServerInfo,
};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

/// The server's and the client's name.
const NAME: &str = "proxy-test";

/// A guard against a hang only: what is awaited comes long before.
const HANG: Duration = Duration::from_secs(60);

/// Answers "pong".
#[holon_tool(family = CoreAgent)]
fn ping_job() -> String {
    "pong".to_string()
}

fn server() -> McpServer {
    let registry = Registry::of_module(module_path!()).expect("the test's tool");
    McpServer::new(registry, ServerInfo::new(NAME, "1.0.0"))
}

async fn serve_on_loopback(options: HttpOptions) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    support::serve(listener, server(), options).await
}

#[tokio::test]
async fn an_idle_event_stream_is_not_buffered_and_carries_keep_alive_comments() {
    let addr = serve_on_loopback(HttpOptions {
        no_auth: true,
        sse_keep_alive: Some(Duration::from_millis(50)),
        ..HttpOptions::new()
    })
    .await;
    let session = support::open_session(addr, NAME).await;
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
        ("accept", "text/event-stream"),
    ];
    // The session's stream of server messages: nothing is sent on it here.
    let response = support::open(addr, Method::GET, "/mcp", &headers, None).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    assert_eq!(
        response
            .headers()
            .get("x-accel-buffering")
            .map(|value| value.to_str().unwrap()),
        Some("no"),
        "nginx buffers an event stream without it"
    );
    let mut body = response.into_body();
    let mut received = String::new();
    // A comment line (`:`) is an SSE keep-alive; the priming event may come first.
    // Bounded by half the default interval, so the comment awaited is the option's
    // (50 ms), never one of the default's (15 s).
    let keep_alive = tokio::time::timeout(DEFAULT_SSE_KEEP_ALIVE / 2, async {
        while !received.lines().any(|line| line.starts_with(':')) {
            let frame = body.frame().await.expect("the stream stays open").unwrap();
            if let Some(data) = frame.data_ref() {
                received.push_str(&String::from_utf8_lossy(data));
            }
        }
    })
    .await;
    assert!(keep_alive.is_ok(), "no keep-alive arrived: {received:?}");
}

#[tokio::test]
async fn the_default_keep_alive_is_shorter_than_common_proxy_idle_timeouts() {
    // nginx's proxy_read_timeout is 60 s by default.
    assert_eq!(
        HttpOptions::new().sse_keep_alive,
        Some(DEFAULT_SSE_KEEP_ALIVE)
    );
    assert!(DEFAULT_SSE_KEEP_ALIVE < Duration::from_secs(60));
}

#[tokio::test]
async fn a_zero_keep_alive_or_a_host_that_is_no_host_name_is_refused_at_start() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let options = HttpOptions {
        no_auth: true,
        sse_keep_alive: Some(Duration::ZERO),
        ..HttpOptions::new()
    };
    let error = HttpServer::new(listener, server(), options)
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ServeError::Setting(message) if message.contains("sse_keep_alive")),
        "{error}"
    );

    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let options = HttpOptions {
        no_auth: true,
        allowed_hosts: vec!["https://mcp.example.com/mcp".to_string()],
        ..HttpOptions::new()
    };
    let error = HttpServer::new(listener, server(), options)
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ServeError::Setting(message)
            if message.contains("allowed_hosts") && message.contains("without scheme")),
        "{error}"
    );
}

/// Sends an `initialize` to `addr` with the `Host` header `host` (none when `None`):
/// the status and the body.
async fn initialize_as(
    addr: SocketAddr,
    host: Option<&str>,
    token: Option<&str>,
) -> (StatusCode, String) {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    let mut request = Request::builder()
        .method(Method::POST)
        .uri("/mcp")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json");
    if let Some(host) = host {
        request = request.header("host", host);
    }
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let body = support::initialize(NAME).to_string();
    let response = tokio::time::timeout(
        HANG,
        sender.send_request(request.body(Full::new(Bytes::from(body))).unwrap()),
    )
    .await
    .expect("an answer")
    .unwrap();
    let status = response.status();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test]
async fn a_loopback_bind_answers_to_loopback_names_and_the_allowed_hosts_only() {
    let addr = serve_on_loopback(HttpOptions {
        no_auth: true,
        allowed_hosts: vec![
            "mcp.example.com".to_string(),
            "lb.example.com:8443".to_string(),
        ],
        ..HttpOptions::new()
    })
    .await;
    let port = addr.port();
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        "mcp.example.com".to_string(),
        "MCP.Example.com:9000".to_string(),
        "lb.example.com:8443".to_string(),
    ] {
        let (status, body) = initialize_as(addr, Some(&host), None).await;
        assert_eq!(status, StatusCode::OK, "{host}: {body}");
        assert!(body.contains(NAME), "{host}: {body}");
    }
    for host in [
        Some("rebound.example"),
        Some("lb.example.com:8444"),
        Some("lb.example.com"),
        None,
    ] {
        let (status, body) = initialize_as(addr, host, None).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{host:?}: {body}");
        assert!(
            body.contains("--allowed-host") && body.contains("HttpOptions::allowed_hosts"),
            "the refusal names the setting: {body}"
        );
    }
}

#[tokio::test]
async fn a_public_bind_answers_to_any_host_until_hosts_are_named_then_to_those_only() {
    const TOKEN: &str = "0123456789abcdef0123456789abcdef";
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, TOKEN).unwrap();
    // Every address of this machine: reached here through loopback, named otherwise.
    let public = |allowed_hosts: Vec<String>| HttpOptions {
        token_file: Some(token_file.clone()),
        allowed_hosts,
        ..HttpOptions::new()
    };
    let listener = TcpListener::bind("0.0.0.0:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    support::serve(listener, server(), public(Vec::new())).await;
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let (status, body) = initialize_as(addr, Some("anything.example"), Some(TOKEN)).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let listener = TcpListener::bind("0.0.0.0:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    support::serve(
        listener,
        server(),
        public(vec!["mcp.example.com".to_string()]),
    )
    .await;
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let (status, body) = initialize_as(addr, Some("mcp.example.com"), Some(TOKEN)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // Loopback names are not the public server's own once hosts are named; the Host
    // is checked before the token, so a rebinding page learns nothing of it.
    for (host, token) in [
        (format!("127.0.0.1:{port}"), Some(TOKEN)),
        ("rebound.example".to_string(), None),
    ] {
        let (status, body) = initialize_as(addr, Some(&host), token).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{host}: {body}");
        assert!(body.contains("--allowed-host"), "{host}: {body}");
    }
}
