//! `subscriptions/listen` (MCP 2026-07-28): a host whose own handler declares resource
//! subscriptions delivers their updates on the stream, acknowledged first and each
//! tagged with the subscription's id, and only what the client asked for and the
//! server declares. A server without such a handler answers method-not-found.

// The test is the client: it connects to the server it started, on loopback.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::net::SocketAddr;

use holon_core::Registry;
use holon_core::prelude::*;
use holon_mcp::rmcp::model::{
    ResourceUpdatedNotification, ResourceUpdatedNotificationParam, ServerCapabilities,
    ServerConfig, ServerNotification, SubscriptionFilter,
};
use holon_mcp::rmcp::service::SubscriptionContext;
use holon_mcp::rmcp::{ErrorData, ServerHandler};
use holon_mcp::{McpServer, ServerInfo};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::sync::broadcast;

mod support;

const WATCHED: &str = "test://watched";

/// Says hello.
#[holon_tool(family = CoreAgent)]
fn hello() -> String {
    "hello".into()
}

/// A host's resources: they may be subscribed to, and `updates` says which changed.
#[derive(Clone)]
struct Watched {
    updates: broadcast::Sender<String>,
}

impl ServerHandler for Watched {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_resources()
                .enable_resources_subscribe()
                .build(),
        )
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // Updates of any resource asked for, and (wrongly, rmcp drops it: the server
        // does not declare it) the tools list too.
        let mut accepted = SubscriptionFilter::new();
        accepted.resource_subscriptions = requested.resource_subscriptions.clone();
        accepted.tools_list_changed = Some(true);
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let mut updates = self.updates.subscribe();
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                update = updates.recv() => {
                    let Ok(uri) = update else { return Ok(()) };
                    let notification = ResourceUpdatedNotification::new(
                        ResourceUpdatedNotificationParam::new(uri),
                    );
                    // The sink refuses what the client did not subscribe to.
                    let _ = context
                        .sink()
                        .send(ServerNotification::ResourceUpdatedNotification(notification))
                        .await;
                }
            }
        }
    }
}

fn server() -> McpServer {
    let registry = Registry::of_module(module_path!()).expect("the test's tool");
    McpServer::new(registry, ServerInfo::new("subscriptions-test", "1.0.0"))
}

/// The body of a 2026-07-28 `subscriptions/listen` (id 9) asking for `notifications`.
fn listen_request(notifications: Value) -> Value {
    json!({
        "jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen",
        "params": {
            "notifications": notifications,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    })
}

const HEADERS: [(&str, &str); 2] = [
    ("mcp-protocol-version", "2026-07-28"),
    ("mcp-method", "subscriptions/listen"),
];

/// The JSON-RPC messages of an SSE stream, one at a time as they arrive.
struct Events {
    body: Incoming,
    pending: String,
}

impl Events {
    async fn next(&mut self) -> Value {
        loop {
            if let Some(end) = self.pending.find("\n\n") {
                let event: String = self.pending.drain(..end + 2).collect();
                let data: String = event
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(str::trim)
                    .collect();
                if let Ok(message) = serde_json::from_str(&data) {
                    return message;
                }
                continue;
            }
            let frame = self
                .body
                .frame()
                .await
                .expect("the stream goes on")
                .unwrap();
            if let Ok(data) = frame.into_data() {
                self.pending.push_str(&String::from_utf8_lossy(&data));
            }
        }
    }
}

async fn listen(addr: SocketAddr, notifications: Value) -> Events {
    let body = listen_request(notifications);
    let response = support::open(addr, Method::POST, "/mcp", &HEADERS, Some(&body)).await;
    assert_eq!(response.status(), StatusCode::OK);
    Events {
        body: response.into_body(),
        pending: String::new(),
    }
}

#[tokio::test]
async fn a_subscriber_gets_the_updates_of_what_it_subscribed_to_tagged_with_its_id() {
    let (updates, _) = broadcast::channel(16);
    let host = Watched {
        updates: updates.clone(),
    };
    let addr = support::serve_without_token(server().with_handler(host)).await;
    let mut events = listen(
        addr,
        json!({ "resourceSubscriptions": [WATCHED], "toolsListChanged": true }),
    )
    .await;

    let ack = events.next().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        9
    );
    let accepted = &ack["params"]["notifications"];
    assert_eq!(accepted["resourceSubscriptions"], json!([WATCHED]));
    assert_eq!(accepted.get("toolsListChanged"), None, "{ack}");

    // Wait for the host's `listen` to subscribe to the updates before sending one.
    while updates.receiver_count() == 0 {
        tokio::task::yield_now().await;
    }
    updates.send("test://other".to_string()).unwrap();
    updates.send(WATCHED.to_string()).unwrap();
    let update = events.next().await;
    assert_eq!(
        update["method"], "notifications/resources/updated",
        "{update}"
    );
    assert_eq!(update["params"]["uri"], WATCHED);
    assert_eq!(
        update["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        9
    );
}

#[tokio::test]
async fn a_server_without_a_subscribable_handler_does_not_have_the_method() {
    let addr = support::serve_without_token(server()).await;
    let body = listen_request(json!({ "resourceSubscriptions": [WATCHED] }));
    let (_, _, answer) = support::send(addr, Method::POST, &HEADERS, Some(&body)).await;
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
}
