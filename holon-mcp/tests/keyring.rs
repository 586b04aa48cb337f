//! The `requestState` keyring across replicas: servers on one store (a PostgreSQL
//! database, or a SQLite file) seal their 2026-07-28 rounds with the store's ring,
//! so a round one seals is answered through another; a rotation keeps the old key
//! as the previous one, and a second rotation retires it.

// The PostgreSQL fixture starts its server with `initdb` and `pg_ctl`.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod support;

use std::net::SocketAddr;

use holon_core::prelude::*;
use holon_core::{Elicitation, ElicitationResponse, Registry};
use holon_mcp::{McpServer, StoreUrl, Stores};
use hyper::{Method, StatusCode};
use serde_json::{Value, json};
use support::postgres::TestPostgres;

/// Asks the user to go ahead, and says what they answered.
#[holon_tool(family = CoreAgent)]
async fn confirm_job(elicitation: Elicitation) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": { "go": { "type": "boolean" } },
        "required": ["go"]
    });
    let Value::Object(schema) = schema else {
        unreachable!("an object literal")
    };
    Ok(match elicitation.ask("Go ahead?", schema).await? {
        ElicitationResponse::Accept(content) => format!("go: {}", content["go"]),
        other => format!("not accepted: {other:?}"),
    })
}

/// A server of this file's tools on the stores of `url`, served on loopback.
async fn replica(url: &str) -> SocketAddr {
    let stores = Stores::open(&url.parse::<StoreUrl>().unwrap()).unwrap();
    replica_on(&stores).await
}

/// A server of this file's tools on `stores`, served on loopback.
async fn replica_on(stores: &Stores) -> SocketAddr {
    let registry = Registry::of_module(module_path!()).expect("the test's tools");
    let server = McpServer::new(registry, holon_mcp::server_info!()).with_stores(stores);
    support::serve_without_token(server).await
}

/// A stateless 2026-07-28 `tools/call` of ConfirmJob on `addr`, `more` merged into
/// its params: the JSON-RPC answer.
async fn call(addr: SocketAddr, more: Value) -> Value {
    let mut params = json!({
        "name": "ConfirmJob",
        "arguments": {},
        "_meta": holon_test_support::initialize::Client::new("keyring-test")
            .version("1")
            .capabilities(json!({ "elicitation": {} }))
            .stateless_meta(),
    });
    if let (Some(params), Value::Object(more)) = (params.as_object_mut(), more) {
        params.extend(more);
    }
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "ConfirmJob"),
    ];
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params });
    let (status, _, answer) = support::send(addr, Method::POST, &headers, Some(&body)).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    answer
}

/// Round 1 on `addr`: the question, and the sealed state to answer it with.
async fn asked(addr: SocketAddr) -> Value {
    let round = call(addr, json!({})).await;
    assert_eq!(round["result"]["resultType"], "input_required", "{round}");
    let state = round["result"]["requestState"].clone();
    assert!(state.is_string(), "{round}");
    state
}

/// Round 2 on `addr`: the answer to the question, with `state`.
async fn answered(addr: SocketAddr, state: &Value) -> Value {
    let key = "elicitation-1";
    let more = json!({
        "inputResponses": { key: { "action": "accept", "content": { "go": true } } },
        "requestState": state,
    });
    call(addr, more).await
}

/// The answer of a call that ran to its end with the user's yes.
fn assert_went_ahead(answer: &Value) {
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(
        answer["result"]["structuredContent"]["result"], "go: true",
        "{answer}"
    );
}

/// A round sealed by one server on `url` is answered through another.
async fn a_round_crosses_replicas(url: &str) {
    let (a, b) = (replica(url).await, replica(url).await);
    let state = asked(a).await;
    assert_went_ahead(&answered(b, &state).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_sealed_by_one_postgres_replica_is_answered_through_another() {
    let database = TestPostgres::start();
    a_round_crosses_replicas(database.url()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_sealed_by_one_sqlite_server_is_answered_through_another() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("state.db").display());
    a_round_crosses_replicas(&url).await;
}

/// On `url`: a round sealed before a rotation is answered after it (its key is the
/// previous one), by a server that started after the rotation; after a second
/// rotation it is refused with the error of a forged state, which says why. A
/// server that started before a rotation opens a state sealed by the new key (it
/// reads the ring again).
async fn a_rotation_keeps_the_old_key_until_the_next_one(url: &str) {
    let stores = Stores::open(&url.parse::<StoreUrl>().unwrap()).unwrap();
    let before = replica_on(&stores).await;
    let first_key = stores.keyring().unwrap();
    let old_state = asked(before).await;

    let rotated = stores.rotate_keys().unwrap();
    assert_eq!(
        rotated.previous_ids().collect::<Vec<_>>(),
        [first_key.current_id()]
    );
    let after = replica(url).await;
    assert_went_ahead(&answered(after, &old_state).await);
    // Sealed by the new key, answered through the server that holds the old ring.
    let new_state = asked(after).await;
    assert_went_ahead(&answered(before, &new_state).await);

    let twice = stores.rotate_keys().unwrap();
    assert_eq!(
        twice.previous_ids().collect::<Vec<_>>(),
        [rotated.current_id()]
    );
    let latest = replica(url).await;
    let refused = answered(latest, &old_state).await;
    assert_eq!(
        refused["error"]["data"]["kind"], "invalid_request_state",
        "{refused}"
    );
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("rotated out"), "{refused}");
    assert!(message.contains("call again without it"), "{refused}");
    // The state sealed by the key that is now the previous one still opens.
    assert_went_ahead(&answered(latest, &new_state).await);
}

/// On `url`: a server that reads its ring again at every seal and open (a refresh
/// period of zero, where the default is 30 s) refuses, without a restart, a state
/// whose key was rotated out after it started.
async fn a_running_server_follows_rotations(url: &str) {
    let stores = Stores::open(&url.parse::<StoreUrl>().unwrap()).unwrap();
    let registry = Registry::of_module(module_path!()).expect("the test's tools");
    // After `with_stores`: the order does not matter.
    let server = McpServer::new(registry, holon_mcp::server_info!())
        .with_stores(&stores)
        .with_keyring_refresh(std::time::Duration::ZERO);
    let running = support::serve_without_token(server).await;
    let old_state = asked(running).await;
    stores.rotate_keys().unwrap();
    stores.rotate_keys().unwrap();
    let refused = answered(running, &old_state).await;
    assert_eq!(
        refused["error"]["data"]["kind"], "invalid_request_state",
        "{refused}"
    );
    // And it seals with the current key: another server on the store opens it.
    let new_state = asked(running).await;
    assert_went_ahead(&answered(replica(url).await, &new_state).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_running_server_follows_rotations() {
    let database = TestPostgres::start();
    a_running_server_follows_rotations(database.url()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_running_server_follows_rotations() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("state.db").display());
    a_running_server_follows_rotations(&url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_rotation_keeps_the_old_key_until_the_next_one() {
    let database = TestPostgres::start();
    a_rotation_keeps_the_old_key_until_the_next_one(database.url()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_rotation_keeps_the_old_key_until_the_next_one() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("state.db").display());
    a_rotation_keeps_the_old_key_until_the_next_one(&url).await;
}

/// Servers that open `url`'s empty store at once end up with one key: the same
/// current key, and no previous one (a second key would show as one).
fn servers_that_start_together_share_one_key(url: &str) {
    const SERVERS: usize = 8;
    let url: StoreUrl = url.parse().unwrap();
    let start = std::sync::Barrier::new(SERVERS);
    let rings: Vec<_> = std::thread::scope(|scope| {
        let opening: Vec<_> = (0..SERVERS)
            .map(|_| {
                scope.spawn(|| {
                    start.wait();
                    Stores::open(&url).unwrap().keyring().unwrap()
                })
            })
            .collect();
        opening.into_iter().map(|o| o.join().unwrap()).collect()
    });
    for ring in &rings {
        assert_eq!(ring.current_id(), rings[0].current_id(), "{rings:?}");
        assert_eq!(ring.previous_ids().count(), 0, "{rings:?}");
    }
}

#[test]
fn postgres_servers_that_start_together_on_an_empty_database_share_one_key() {
    let database = TestPostgres::start();
    // The schema first (a task store makes no key), so the servers' starts meet
    // at the ring rather than one after the other at the migration lock.
    drop(holon_mcp::tasks::PostgresTaskStore::open(database.url()).unwrap());
    servers_that_start_together_share_one_key(database.url());
}

#[test]
fn sqlite_servers_that_start_together_on_an_empty_file_share_one_key() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("state.db").display());
    servers_that_start_together_share_one_key(&url);
}

/// A key file's ring wins over the store's: servers on different stores, given the
/// same file, open each other's rounds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_given_one_key_file_open_each_others_rounds_whatever_their_stores() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("keys");
    let secret = base64::engine::general_purpose::STANDARD.encode([7u8; 32]);
    std::fs::write(&file, format!("current {secret}\n")).unwrap();
    let ring = holon_mcp::Keyring::from_file(&file).unwrap();
    let on_own_store = || async {
        let stores = Stores::open(&StoreUrl::Memory).unwrap();
        let registry = Registry::of_module(module_path!()).expect("the test's tools");
        let server = McpServer::new(registry, holon_mcp::server_info!())
            .with_keyring(&ring)
            .with_stores(&stores);
        support::serve_without_token(server).await
    };
    let (a, b) = (on_own_store().await, on_own_store().await);
    let state = asked(a).await;
    assert_went_ahead(&answered(b, &state).await);
}
