//! Attacks on the HTTP server's resources, each answered by a limit: a half-sent
//! request and an idle connection are closed, a connection past the cap is refused
//! with 503, and a session past the cap is refused with a JSON-RPC error. The attacks
//! write their bytes on a raw socket (malformed and partial on purpose); the sessions
//! are opened by holon-test-support's HTTP client.

// Tests set their fixtures up with processes and sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;

use common::{Server, TIMEOUT, TOKEN, over_http};
use holon_test_support::http::{block_on, exchange};
use holon_test_support::initialize::Client;
use hyper::{Method, StatusCode};

/// The downstream server on a free loopback port with `limits` flags, and its
/// authority.
fn serve(limits: &[&str]) -> (Server, String) {
    let (server, _, authority) = over_http(limits);
    (server, authority)
}

fn connect(authority: &str) -> TcpStream {
    let stream = TcpStream::connect(authority).unwrap();
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    stream
}

/// Everything the server sends until it closes the connection; `None` when it keeps
/// it open past the test's patience.
fn read_to_close(stream: &mut TcpStream) -> Option<String> {
    let mut reply = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => return Some(String::from_utf8_lossy(&reply).into_owned()),
            Ok(n) => reply.extend_from_slice(&buffer[..n]),
            Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => {
                return Some(String::from_utf8_lossy(&reply).into_owned());
            }
            Err(_) => return None,
        }
    }
}

#[test]
fn a_half_sent_request_is_closed_without_the_token() {
    let (_server, authority) = serve(&["--header-timeout-ms", "300"]);
    let mut stream = connect(&authority);
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nX-Slow: "
    )
    .unwrap();
    assert!(
        read_to_close(&mut stream).is_some(),
        "the server kept a half-sent request open"
    );
}

#[test]
fn an_idle_connection_is_closed() {
    let (_server, authority) = serve(&["--header-timeout-ms", "300"]);
    let mut stream = connect(&authority);
    assert!(
        read_to_close(&mut stream).is_some(),
        "the server kept an idle connection open"
    );
}

#[test]
fn a_connection_past_the_cap_is_refused_with_503() {
    let (_server, authority) = serve(&["--max-connections", "2"]);
    let held: Vec<TcpStream> = (0..2).map(|_| connect(&authority)).collect();
    let mut third = connect(&authority);
    let reply = read_to_close(&mut third).expect("the server answers and closes");
    assert!(reply.starts_with("HTTP/1.1 503"), "{reply:?}");
    assert!(reply.contains("too many connections"), "{reply}");
    drop(held);
}

/// The answer to a 2025-11-25 `initialize` with the token: its status and body.
fn initialize(authority: &str) -> (StatusCode, String) {
    let addr = authority.parse().expect("a socket address");
    let request = Client::new("limits-test").version("1").initialize(1);
    let bearer = format!("Bearer {TOKEN}");
    let headers = [("authorization", bearer.as_str())];
    let (status, _, body) = block_on(exchange(
        addr,
        Method::POST,
        "/mcp",
        &headers,
        Some(&request),
    ));
    (status, body)
}

#[test]
fn a_session_past_the_cap_is_refused_with_a_json_rpc_error() {
    let (_server, authority) = serve(&["--max-sessions", "2"]);
    for _ in 0..2 {
        let (status, reply) = initialize(&authority);
        assert_eq!(status, StatusCode::OK, "{reply}");
    }
    let (status, reply) = initialize(&authority);
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{reply}");
    assert!(reply.contains("\"too_many_sessions\""), "{reply}");
}
