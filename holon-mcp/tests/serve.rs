//! The HTTP server as a host runs it: on a listener the host bound, so a client may
//! connect before the server is awaited; a generated token handed back rather than
//! printed; an end when the host's shutdown signal comes; and a typed error for an
//! address in use.

// Tests set their fixtures up with sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod support;

use std::time::Duration;

use holon_core::Registry;
use holon_core::prelude::*;
use holon_mcp::{HttpOptions, HttpServer, McpServer, ServeError, ServerInfo};
use hyper::{Method, StatusCode};
use tokio::net::TcpListener;

/// The server's and the client's name.
const NAME: &str = "serve-test";

/// A guard against a hang only: what is tested happens long before.
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

fn without_token() -> HttpOptions {
    HttpOptions {
        no_auth: true,
        ..HttpOptions::new()
    }
}

async fn loopback() -> TcpListener {
    TcpListener::bind("127.0.0.1:0").await.unwrap()
}

#[tokio::test]
async fn a_client_that_connects_before_the_server_is_awaited_is_answered() {
    let http = HttpServer::new(loopback().await, server(), without_token())
        .await
        .unwrap();
    let addr = http.local_addr();
    // The request goes out while nothing accepts yet: the bound socket queues it.
    let initialize = support::initialize(NAME);
    let exchange =
        tokio::spawn(
            async move { support::send(addr, Method::POST, &[], Some(&initialize)).await },
        );
    tokio::spawn(http.into_future());
    let (status, session, answer) = tokio::time::timeout(HANG, exchange)
        .await
        .expect("an answer")
        .unwrap();
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert!(session.is_some(), "{answer}");
    assert_eq!(answer["result"]["serverInfo"]["name"], NAME, "{answer}");
}

#[tokio::test]
async fn the_generated_token_is_handed_back_announced_and_the_one_the_server_asks_for() {
    let http = HttpServer::new(loopback().await, server(), HttpOptions::new())
        .await
        .unwrap();
    let addr = http.local_addr();
    let token = http
        .generated_token()
        .expect("a generated token")
        .to_string();
    assert_eq!(token.len(), 64, "256 bits in hex: {token}");
    let announcement = http.announcement();
    let mut lines = announcement.lines();
    assert_eq!(
        lines.next(),
        Some(format!("{NAME}: serving MCP over streamable HTTP at http://{addr}/mcp").as_str())
    );
    assert!(
        lines.next().unwrap().ends_with(&format!(": {token}")),
        "{announcement}"
    );
    assert_eq!(lines.next(), None, "loopback: no warning");
    tokio::spawn(http.into_future());

    let initialize = support::initialize(NAME);
    let (status, _, _) = support::send(addr, Method::POST, &[], Some(&initialize)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let bearer = format!("Bearer {token}");
    let headers = [("authorization", bearer.as_str())];
    let (status, _, answer) = support::send(addr, Method::POST, &headers, Some(&initialize)).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
}

#[tokio::test]
async fn the_server_returns_when_its_shutdown_signal_comes_and_then_accepts_nothing() {
    let http = HttpServer::new(loopback().await, server(), without_token())
        .await
        .unwrap();
    let addr = http.local_addr();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(
        http.with_graceful_shutdown(async {
            let _ = stopped.await;
        })
        .into_future(),
    );
    let initialize = support::initialize(NAME);
    let (status, _, _) = support::send(addr, Method::POST, &[], Some(&initialize)).await;
    assert_eq!(status, StatusCode::OK);

    stop.send(()).unwrap();
    let served = tokio::time::timeout(HANG, serving)
        .await
        .expect("the server returns once the signal came")
        .unwrap();
    assert!(served.is_ok(), "{served:?}");
    // It returned with its listener, which is closed: nothing listens there now.
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[tokio::test]
async fn binding_an_address_in_use_is_an_error_that_names_it() {
    let taken = loopback().await;
    let addr = taken.local_addr().unwrap();
    let error = HttpServer::bind(addr, server(), without_token())
        .await
        .unwrap_err();
    assert!(matches!(error, ServeError::Listen { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.starts_with(&format!("cannot listen on {addr}: ")),
        "{message}"
    );
}
