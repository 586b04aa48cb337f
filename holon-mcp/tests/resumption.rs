//! A 2025-11-25 client whose connection drops while a call runs (MCP 2025-11-25,
//! transports, "Resumability and Redelivery"): the disconnection does not cancel the
//! call ("Disconnection SHOULD NOT be interpreted as the client cancelling its
//! request"), and a `GET` with `Last-Event-ID` set to the last event it received
//! resumes the stream with the call's result.

// Tests set their fixtures up with sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod support;

use std::time::Duration;

use holon_core::Registry;
use holon_core::prelude::*;
use holon_mcp::{McpServer, ServerInfo};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Method, StatusCode};
use serde_json::json;
use tokio::sync::Notify;

/// A guard against a hang only: what is tested happens long before.
const HANG: Duration = Duration::from_secs(30);

/// What lets a running `WaitForRelease` answer.
static RELEASE: Notify = Notify::const_new();

/// Waits until the test releases it, then answers "released".
#[holon_tool(family = CoreAgent)]
async fn wait_for_release() -> String {
    RELEASE.notified().await;
    "released".to_string()
}

/// Reads `body` until its text so far holds an event that `done` accepts (given the
/// text), and returns that text.
async fn read_until(body: &mut Incoming, done: impl Fn(&str) -> bool) -> String {
    let mut text = String::new();
    tokio::time::timeout(HANG, async {
        while !done(&text) {
            let frame = body.frame().await.expect("more of the stream").unwrap();
            if let Ok(data) = frame.into_data() {
                text.push_str(&String::from_utf8_lossy(&data));
            }
        }
    })
    .await
    .expect("the awaited event");
    text
}

/// The `id:` of the last whole event of an SSE `text`.
fn last_event_id(text: &str) -> String {
    text.split("\n\n")
        .filter_map(|event| {
            event
                .lines()
                .find_map(|line| line.strip_prefix("id:"))
                .map(|id| id.trim().to_string())
        })
        .last()
        .expect("an event with an id")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_stream_does_not_cancel_the_call_and_resuming_it_delivers_the_result() {
    let registry = Registry::of_module(module_path!()).expect("the test's tool");
    let server = McpServer::new(registry, ServerInfo::new("resumption-test", "1.0.0"));
    let addr = support::serve_without_token(server).await;
    let session = support::open_session(addr, "resumption-test").await;
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                      "params": {"name": "WaitForRelease", "arguments": {}}});
    let posted = support::open(addr, Method::POST, "/mcp", &headers, Some(&call)).await;
    assert_eq!(posted.status(), StatusCode::OK);
    let mut stream = posted.into_body();
    // The priming event (an id, no data) comes first; then the connection drops.
    let primed = read_until(&mut stream, |text| text.contains("\n\n")).await;
    let resume_from = last_event_id(&primed);
    drop(stream);
    let resume = [
        headers[0],
        headers[1],
        ("last-event-id", resume_from.as_str()),
    ];
    let resumed = support::open(addr, Method::GET, "/mcp", &resume, None).await;
    assert_eq!(resumed.status(), StatusCode::OK);
    // The call still runs (the drop did not cancel it); it answers only now, once the
    // resumed stream has taken over. Released before the resume, its answer raced the
    // server noticing the drop, and the resumed stream once ended without it.
    RELEASE.notify_one();
    let mut resumed = resumed.into_body();
    let text = read_until(&mut resumed, |text| {
        support::message(text).get("id") == Some(&json!(7))
    })
    .await;
    let answer = support::message(&text);
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(
        answer["result"]["structuredContent"]["result"], "released",
        "{answer}"
    );
}
