//! A refusal that comes before the request's body is read (a wrong token, a foreign
//! origin) says `Connection: close`. When the body has not all arrived by then, the
//! server closes the connection after the answer; without the header a client that
//! sent its next request there (its retry with a token) found it closed (the official
//! Python SDK's OAuth test failed so, now and then, with `httpx.ReadError`).

// Tests set their fixtures up with processes and sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;

use common::{TIMEOUT, TOKEN, over_http};

const BODY: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

/// Sends the head of a POST of `BODY` with `headers` and holds the body back: the
/// head of the answer, lowercase.
fn answer_before_the_body(authority: &str, headers: &str) -> String {
    let mut stream = TcpStream::connect(authority).unwrap();
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\n\r\n",
        BODY.len()
    )
    .unwrap();
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    while !answer.windows(4).any(|window| window == b"\r\n\r\n") {
        let read = stream.read(&mut buffer).expect("an answer");
        assert!(read > 0, "the server closed without an answer");
        answer.extend_from_slice(&buffer[..read]);
    }
    String::from_utf8_lossy(&answer).to_lowercase()
}

#[test]
fn a_wrong_token_is_refused_as_the_last_answer_on_its_connection() {
    let (_server, _, authority) = over_http(&[]);
    let answer = answer_before_the_body(&authority, "Authorization: Bearer not-the-token-0000\r\n");
    assert!(answer.starts_with("http/1.1 401"), "{answer}");
    assert!(answer.contains("\r\nconnection: close\r\n"), "{answer}");
}

#[test]
fn a_foreign_origin_is_refused_as_the_last_answer_on_its_connection() {
    let (_server, _, authority) = over_http(&[]);
    let headers = format!("Authorization: Bearer {TOKEN}\r\nOrigin: https://evil.example\r\n");
    let answer = answer_before_the_body(&authority, &headers);
    assert!(answer.starts_with("http/1.1 403"), "{answer}");
    assert!(answer.contains("\r\nconnection: close\r\n"), "{answer}");
}
