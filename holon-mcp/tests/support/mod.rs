//! What the HTTP tests share: a server on loopback without a token; the client side
//! (requests, sessions, `initialize`) and the PostgreSQL fixture are
//! holon-test-support's.

// Each test file takes the part it needs.
#![allow(dead_code, unused_imports)]

use std::net::SocketAddr;

use holon_mcp::{HttpOptions, HttpServer, McpServer};

pub use holon_test_support::http::{exchange, message, open, open_session, send};
pub use holon_test_support::initialize::initialize;
pub use holon_test_support::{postgres, wire};

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
