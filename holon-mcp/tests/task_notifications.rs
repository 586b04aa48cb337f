//! `notifications/tasks` on a `subscriptions/listen` stream (MCP 2026-07-28,
//! SEP-2663): while a host's handler keeps a listen stream open, the stream carries
//! the status of each task of its owner as it changes (the terminal one with its
//! result), read from the store as `tasks/get` reads it: through one replica, across
//! two replicas on one PostgreSQL database, and never another principal's task.

// The test is the client: it connects to the servers it started, on loopback; the
// PostgreSQL fixture starts its server with `initdb` and `pg_ctl`.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use holon_core::prelude::*;
use holon_core::{Principal, Registry};
use holon_mcp::rmcp::model::{ServerCapabilities, ServerConfig, SubscriptionFilter};
use holon_mcp::rmcp::service::SubscriptionContext;
use holon_mcp::rmcp::{ErrorData, ServerHandler};
use holon_mcp::{HttpOptions, KeySource, McpServer, OAuthConfig, StoreUrl, Stores};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Method, StatusCode};
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use p256::elliptic_curve::Generate;
use p256::pkcs8::EncodePrivateKey;
use serde_json::{Value, json};
use support::postgres::TestPostgres;
use tokio::sync::Notify;

/// How long a test waits for what must happen before it gives up (a hang guard,
/// not a measure).
const PATIENCE: Duration = Duration::from_secs(30);

const WATCHED: &str = "test://watched";

static ALONE_RELEASE: Notify = Notify::const_new();
static ACROSS_RELEASE: Notify = Notify::const_new();

/// Ends when the one-replica test releases it.
#[holon_tool(family = CoreAgent, task = required)]
async fn held_alone() -> String {
    ALONE_RELEASE.notified().await;
    "released alone".to_string()
}

/// Ends when the two-replica test releases it.
#[holon_tool(family = CoreAgent, task = required)]
async fn held_across() -> String {
    ACROSS_RELEASE.notified().await;
    "released across".to_string()
}

/// Ends at once, as a task.
#[holon_tool(family = CoreAgent, task = required)]
async fn quick_task(principal: Principal) -> String {
    format!("done for {}", principal.id())
}

/// A host's handler with a resource subscription: it accepts a listen stream and
/// holds it open, saying when it starts.
#[derive(Clone)]
struct Host {
    listening: Arc<Notify>,
}

impl ServerHandler for Host {
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
        let mut accepted = SubscriptionFilter::new();
        accepted.resource_subscriptions = requested.resource_subscriptions.clone();
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.listening.notify_one();
        context.cancelled().await;
        Ok(())
    }
}

/// A server of this file's tools with the host's handler, and what tells when its
/// handler listens.
fn server() -> (McpServer, Arc<Notify>) {
    let listening = Arc::new(Notify::new());
    let host = Host {
        listening: listening.clone(),
    };
    let registry = Registry::of_module(module_path!()).expect("the test's tools");
    let server = McpServer::new(registry, holon_mcp::server_info!()).with_handler(host);
    (server, listening)
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": { "io.modelcontextprotocol/tasks": {} }
        },
        "io.modelcontextprotocol/clientInfo": { "name": "notifications-test", "version": "1" }
    })
}

/// The headers of a 2026-07-28 `method` request, with `token` when given.
fn headers<'a>(method: &'a str, authorization: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut headers = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
    ];
    if let Some(authorization) = authorization {
        headers.push(("authorization", authorization));
    }
    headers
}

/// Calls `tool` (as a task) on `addr` with `authorization`: the task's id.
async fn start_task(addr: SocketAddr, tool: &str, authorization: Option<&str>) -> String {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": tool, "arguments": {}, "_meta": meta() },
    });
    let mut headers = headers("tools/call", authorization);
    headers.push(("mcp-name", tool));
    let (status, _, answer) = support::send(addr, Method::POST, &headers, Some(&body)).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["result"]["resultType"], "task", "{answer}");
    answer["result"]["taskId"].as_str().unwrap().to_string()
}

/// The JSON-RPC messages of a listen stream, one at a time as they arrive.
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

    /// The next `notifications/tasks`, within PATIENCE.
    async fn next_task(&mut self) -> Value {
        tokio::time::timeout(PATIENCE, async {
            loop {
                let message = self.next().await;
                if message["method"] == "notifications/tasks" {
                    return message;
                }
            }
        })
        .await
        .expect("a task notification comes")
    }

    /// The task notifications until one says task `id` ended: all of them.
    async fn until_ended(&mut self, id: &str) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let notification = self.next_task().await;
            let ended = notification["params"]["taskId"] == id
                && ["completed", "failed", "cancelled"].contains(
                    &notification["params"]["status"]
                        .as_str()
                        .unwrap_or_default(),
                );
            seen.push(notification);
            if ended {
                return seen;
            }
        }
    }
}

/// Opens a listen stream (id 9) on `addr` with `authorization`, once the host's
/// handler listens (`listening`): the server watches the tasks from then on.
async fn listen(addr: SocketAddr, authorization: Option<&str>, listening: &Notify) -> Events {
    let body = json!({
        "jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen",
        "params": {
            "notifications": { "resourceSubscriptions": [WATCHED] },
            "_meta": meta(),
        },
    });
    let headers = headers("subscriptions/listen", authorization);
    let response = support::open(addr, Method::POST, "/mcp", &headers, Some(&body)).await;
    assert_eq!(response.status(), StatusCode::OK);
    tokio::time::timeout(PATIENCE, listening.notified())
        .await
        .expect("the host's handler listens");
    Events {
        body: response.into_body(),
        pending: String::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_carries_the_status_of_its_tasks_then_their_result() {
    let (server, listening) = server();
    let addr = support::serve_without_token(server).await;
    let mut events = listen(addr, None, &listening).await;
    let id = start_task(addr, "HeldAlone", None).await;

    let working = events.next_task().await;
    assert_eq!(working["params"]["taskId"], id, "{working}");
    assert_eq!(working["params"]["status"], "working", "{working}");
    assert_eq!(
        working["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 9,
        "tagged as the sink tags what it sends: {working}"
    );

    ALONE_RELEASE.notify_one();
    let completed = events.next_task().await;
    assert_eq!(completed["params"]["taskId"], id, "{completed}");
    assert_eq!(completed["params"]["status"], "completed", "{completed}");
    assert_eq!(
        completed["params"]["result"]["structuredContent"]["result"], "released alone",
        "{completed}"
    );
}

/// A replica of this file's tools with the host's handler, on the database of `url`.
async fn replica(url: &str) -> (SocketAddr, Arc<Notify>) {
    let stores = Stores::open(&url.parse::<StoreUrl>().unwrap()).unwrap();
    let (server, listening) = server();
    let addr = support::serve_without_token(server.with_stores(&stores)).await;
    (addr, listening)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_run_on_one_replica_is_notified_on_the_listen_stream_of_the_other() {
    let database = TestPostgres::start();
    let (a, _) = replica(database.url()).await;
    let (b, listening_on_b) = replica(database.url()).await;
    let mut events = listen(b, None, &listening_on_b).await;
    let id = start_task(a, "HeldAcross", None).await;
    ACROSS_RELEASE.notify_one();

    let seen = events.until_ended(&id).await;
    let ended = seen.last().unwrap();
    assert_eq!(ended["params"]["status"], "completed", "{seen:?}");
    assert_eq!(
        ended["params"]["result"]["structuredContent"]["result"], "released across",
        "{ended}"
    );
    assert!(
        seen.iter().all(|seen| seen["params"]["taskId"] == id),
        "only the task run on A: {seen:?}"
    );
}

const ISSUER: &str = "https://auth.example";

/// A server of this file's tools taking access tokens signed by `key` (its JWKS in
/// `jwks`): its address, and the resource its tokens name.
async fn oauth_server(
    key: &EncodingKey,
    jwks: &tempfile::TempDir,
) -> (SocketAddr, String, Arc<Notify>) {
    let mut jwk = Jwk::from_encoding_key(key, Algorithm::ES256).unwrap();
    jwk.common.key_id = Some("key-1".into());
    let path = jwks.path().join("jwks.json");
    std::fs::write(
        &path,
        serde_json::to_string(&JwkSet { keys: vec![jwk] }).unwrap(),
    )
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
    let config = OAuthConfig::new(&resource, ISSUER, KeySource::JwksFile(path)).unwrap();
    let (server, listening) = server();
    let addr = support::serve(listener, server, HttpOptions::new().with_oauth(config)).await;
    (addr, resource, listening)
}

/// `Bearer` and a token of `subject` for `resource`, signed by `key`.
fn bearer(key: &EncodingKey, resource: &str, subject: &str) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let claims = json!({
        "iss": ISSUER, "aud": resource, "sub": subject, "client_id": "client-7",
        "scope": "tools:core_agent",
        "iat": now, "exp": now + 300,
    });
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some("key-1".into());
    format!("Bearer {}", encode(&header, &claims, key).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_never_carries_another_principals_task() {
    let secret = p256::SecretKey::generate();
    let key = EncodingKey::from_ec_der(secret.to_pkcs8_der().unwrap().as_bytes());
    let jwks = tempfile::tempdir().unwrap();
    let (addr, resource, listening) = oauth_server(&key, &jwks).await;
    let (alice, bob) = (
        bearer(&key, &resource, "alice"),
        bearer(&key, &resource, "bob"),
    );
    let mut bobs_stream = listen(addr, Some(&bob), &listening).await;

    // Alice's task runs to its end first, then Bob's: Bob's stream, which hears
    // the hints in order, would carry Alice's before Bob's ended.
    let alices = start_task(addr, "QuickTask", Some(&alice)).await;
    let mut alices_stream = listen(addr, Some(&alice), &listening).await;
    let bobs = start_task(addr, "QuickTask", Some(&bob)).await;
    let seen = bobs_stream.until_ended(&bobs).await;
    assert!(
        seen.iter().all(|seen| seen["params"]["taskId"] != alices),
        "Bob's stream carried Alice's task {alices}: {seen:?}"
    );
    let ended = seen.last().unwrap();
    assert_eq!(
        ended["params"]["result"]["structuredContent"]["result"], "done for bob",
        "{ended}"
    );
    // And Alice's stream (opened after her task) hears none of Bob's either.
    let again = start_task(addr, "QuickTask", Some(&alice)).await;
    let seen = alices_stream.until_ended(&again).await;
    assert!(
        seen.iter().all(|seen| seen["params"]["taskId"] != bobs),
        "Alice's stream carried Bob's task {bobs}: {seen:?}"
    );
}

/// How many connections of the database are `LISTEN`ing for task hints.
async fn listening_connections(url: &str) -> i64 {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    let connection = tokio::spawn(connection);
    let count = client
        .query_one(
            "SELECT count(*) FROM pg_stat_activity
             WHERE datname = current_database() AND query = 'LISTEN holon_tasks'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    drop(client);
    let _ = connection.await;
    count
}

/// Polls the number of listening connections until it is `count`, within PATIENCE.
async fn until_listening(url: &str, count: i64) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let now = listening_connections(url).await;
        if now == count {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{now} connections listen, not {count}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_listens_on_one_connection_only_while_a_stream_is_open_and_again_after_a_restart()
{
    let database = TestPostgres::start_own();
    let url = database.url();
    let (a, _) = replica(url).await;
    let (b, listening_on_b) = replica(url).await;
    // Tasks alone open no listening connection.
    let id = start_task(a, "QuickTask", None).await;
    assert_eq!(
        listening_connections(url).await,
        0,
        "no stream, no listening"
    );

    // Two streams on B share one connection.
    let mut first = listen(b, None, &listening_on_b).await;
    let second = listen(b, None, &listening_on_b).await;
    assert_eq!(listening_connections(url).await, 1, "one for both streams");

    // The database restarts: B listens again once it is back, and hears A's tasks.
    database.stop();
    database.start_again();
    until_listening(url, 1).await;
    let after = start_task(a, "QuickTask", None).await;
    let seen = first.until_ended(&after).await;
    assert_eq!(
        seen.last().unwrap()["params"]["status"],
        "completed",
        "{seen:?}"
    );
    assert!(
        seen.iter().all(|seen| seen["params"]["taskId"] != id),
        "the task of before the streams is not sent: {seen:?}"
    );

    // The last stream closed closes the connection.
    drop((first, second));
    until_listening(url, 0).await;
}
