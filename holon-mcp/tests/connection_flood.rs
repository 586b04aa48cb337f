//! Connections without a token cannot hold the server: a peer that opens more than the
//! connection cap of half-open connections, and reopens each one the server closes,
//! leaves room for a token holder, whose `initialize` and `tools/call` succeed.

// Tests set their fixtures up with sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use holon_core::Registry;
use holon_core::prelude::*;
use holon_mcp::{HttpLimits, HttpOptions, HttpServer, McpServer, ServerInfo};
use hyper::{Method, StatusCode};
use serde_json::json;
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpSocket};
use tokio::sync::Notify;

/// The server's and the client's name.
const NAME: &str = "flood-test";

/// A guard against a hang only: what is tested happens long before.
const HANG: Duration = Duration::from_secs(60);

/// The connection cap of the server under attack.
const CAP: usize = 32;

/// Half-open connections the attacker keeps open: well past the cap.
const ATTACKERS: usize = 3 * CAP;

/// Answers "pong".
#[holon_tool(family = CoreAgent)]
fn flood_ping() -> String {
    "pong".to_string()
}

/// Counts the attacker's connections the server refused, and wakes the test at the first.
#[derive(Default)]
struct Refusals {
    count: AtomicUsize,
    first: Notify,
}

/// Holds a connection from `from` to `addr` that never sends a byte, until the server
/// closes it; then opens the next one, for good.
async fn hold_half_open(from: SocketAddr, addr: SocketAddr, refusals: Arc<Refusals>) {
    loop {
        let socket = TcpSocket::new_v4().unwrap();
        socket.bind(from).unwrap();
        let Ok(mut stream) = socket.connect(addr).await else {
            tokio::time::sleep(Duration::from_millis(5)).await;
            continue;
        };
        let mut reply = Vec::new();
        let _ = stream.read_to_end(&mut reply).await;
        if reply.starts_with(b"HTTP/1.1 503") {
            refusals.count.fetch_add(1, Ordering::SeqCst);
            refusals.first.notify_one();
        }
        // Reopen at once, but let the runtime breathe while the server refuses.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_holder_is_served_while_a_peer_without_one_holds_more_than_the_cap() {
    let registry = Registry::of_module(module_path!()).expect("the test's tool");
    let server = McpServer::new(registry, ServerInfo::new(NAME, "1.0.0"));
    let options = HttpOptions {
        limits: HttpLimits {
            max_connections: CAP,
            // No half-open connection ends on its own while the test runs: only the
            // limits can make room.
            header_read_timeout: HANG * 2,
            ..HttpLimits::default()
        },
        ..HttpOptions::new()
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let http = HttpServer::new(listener, server, options).await.unwrap();
    let addr = http.local_addr();
    let token = http
        .generated_token()
        .expect("a generated token")
        .to_string();
    tokio::spawn(http.into_future());

    // The attacker comes from another loopback address than the token holder.
    let attacker: SocketAddr = "127.0.0.2:0".parse().unwrap();
    let refusals = Arc::new(Refusals::default());
    let attackers: Vec<_> = (0..ATTACKERS)
        .map(|_| tokio::spawn(hold_half_open(attacker, addr, refusals.clone())))
        .collect();
    // A refusal means the attacker holds all the server lets it hold.
    tokio::time::timeout(HANG, refusals.first.notified())
        .await
        .expect("the server refuses some of the attacker's connections");

    let bearer = format!("Bearer {token}");
    let served = tokio::time::timeout(HANG, async {
        let auth = [("authorization", bearer.as_str())];
        let initialize = support::initialize(NAME);
        let (status, session, answer) =
            support::send(addr, Method::POST, &auth, Some(&initialize)).await;
        assert_eq!(status, StatusCode::OK, "initialize: {answer}");
        let session = session.expect("a session id");
        let headers = [
            ("authorization", bearer.as_str()),
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", "2025-11-25"),
        ];
        let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        let (status, _, _) = support::send(addr, Method::POST, &headers, Some(&initialized)).await;
        assert_eq!(status, StatusCode::ACCEPTED);
        let call = json!({
            "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": { "name": "FloodPing", "arguments": {} },
        });
        support::send(addr, Method::POST, &headers, Some(&call)).await
    })
    .await
    .expect("the token holder is answered");
    let (status, _, answer) = served;
    assert_eq!(status, StatusCode::OK, "tools/call: {answer}");
    assert_eq!(
        answer["result"]["structuredContent"]["result"], "pong",
        "{answer}"
    );
    assert!(
        refusals.count.load(Ordering::SeqCst) > 0,
        "the attacker was refused"
    );
    for attacker in attackers {
        attacker.abort();
    }
}
