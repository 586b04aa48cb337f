//! Two replicas of one server (two `McpServer`s, each on its own HTTP listener and
//! its own connection pool) on one PostgreSQL database: a task created through one
//! is read and cancelled through the other, and a task whose replica stopped
//! mid-run reads as failed, never as working for ever; a task that asks the client
//! is answered through either.

// The PostgreSQL fixture starts its server with `initdb` and `pg_ctl`.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use holon_core::prelude::*;
use holon_core::{
    DispatchObserver, Elicitation, ElicitationResponse, Execution, FamilyPolicy, Registry,
    ToolContext,
};
use holon_mcp::tasks::PostgresTaskStore;
use holon_mcp::{HttpOptions, HttpServer, McpServer, StoreUrl, Stores};
use holon_runtime::audit_log::postgres::PostgresAuditLog;
use hyper::{Method, StatusCode};
use serde_json::{Value, json};
use support::postgres::TestPostgres;
use support::wire::WireCounter;
use tokio::sync::Notify;

/// How long a test waits for what must happen before it gives up (a hang guard,
/// not a measure).
const PATIENCE: Duration = Duration::from_secs(30);

static HELD_STARTED: Notify = Notify::const_new();
static HELD_CANCELLED: Notify = Notify::const_new();

/// Works until its task is cancelled, and tells the test when its cancellation
/// fires (the dispatcher drops the tool's future then: a task of its own watches).
#[holon_tool(family = CoreAgent, task = required)]
async fn held_job(context: &ToolContext) -> String {
    let token = context.cancellation().token().clone();
    tokio::spawn(async move {
        token.cancelled().await;
        HELD_CANCELLED.notify_one();
    });
    HELD_STARTED.notify_one();
    std::future::pending::<()>().await;
    "never".to_string()
}

/// A replica: a server of this file's tools on the database of `url`, with tasks
/// leased for `lease`, served on a loopback listener bound first.
async fn replica(url: &str, lease: Duration) -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let registry = Registry::of_module(module_path!()).expect("the test's tools");
    let stores = Stores::open(&url.parse::<StoreUrl>().unwrap()).unwrap();
    let server = McpServer::new(registry, holon_mcp::server_info!())
        .with_stores(&stores)
        .with_task_lease(lease);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let options = HttpOptions {
        no_auth: true,
        ..HttpOptions::new()
    };
    let http = HttpServer::new(listener, server, options).await.unwrap();
    let addr = http.local_addr();
    let serving = tokio::spawn(async move {
        let _ = http.into_future().await;
    });
    (addr, serving)
}

/// Sends the 2026-07-28 request `method` with `params` (no session: any replica
/// may answer it): the JSON-RPC answer.
async fn request(addr: SocketAddr, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {},
            "extensions": { "io.modelcontextprotocol/tasks": {} }
        },
        "io.modelcontextprotocol/clientInfo": { "name": "replicas-test", "version": "1" }
    });
    let mut headers = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
    ];
    // A call names its tool, a tasks/* request its task (SEP-2243's `Mcp-Name`).
    let name = params["name"]
        .as_str()
        .or(params["taskId"].as_str())
        .map(str::to_string);
    if let Some(name) = &name {
        headers.push(("mcp-name", name));
    }
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let (status, _, answer) = support::send(addr, Method::POST, &headers, Some(&body)).await;
    assert_eq!(status, StatusCode::OK, "{method}: {answer}");
    answer
}

async fn task(addr: SocketAddr, id: &str) -> Value {
    request(addr, "tasks/get", json!({ "taskId": id })).await["result"].clone()
}

/// Polls `tasks/get` on `addr` until `done` holds, within PATIENCE.
async fn poll_until(addr: SocketAddr, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let task = task(addr, id).await;
        if done(&task) {
            return task;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the task never got there: {task}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_created_through_one_replica_is_read_and_cancelled_through_the_other() {
    let database = TestPostgres::start();
    let (a, _serving_a) = replica(database.url(), Duration::from_millis(300)).await;
    let (b, _serving_b) = replica(database.url(), Duration::from_millis(300)).await;
    let started = HELD_STARTED.notified();
    let created = request(
        a,
        "tools/call",
        json!({ "name": "HeldJob", "arguments": {} }),
    )
    .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_string();
    tokio::time::timeout(PATIENCE, started)
        .await
        .expect("the tool starts on A");
    // B reads it as working, also after several of A's lease renewals: B does not
    // take a task another replica runs for an abandoned one.
    assert_eq!(task(b, &id).await["status"], "working");
    let renewed = PostgresTaskStore::open(database.url()).unwrap();
    let first_lease = renewed_lease(&renewed, &id);
    tokio::time::timeout(PATIENCE, async {
        while renewed_lease(&renewed, &id) == first_lease {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("A renews the task's lease");
    assert_eq!(task(b, &id).await["status"], "working");
    // Cancelled through B: the tool running on A sees its cancellation fire.
    let cancelled = HELD_CANCELLED.notified();
    let ack = request(b, "tasks/cancel", json!({ "taskId": id })).await;
    assert_eq!(ack["result"], json!({ "resultType": "complete" }), "{ack}");
    tokio::time::timeout(PATIENCE, cancelled)
        .await
        .expect("the tool on A is cancelled");
    for replica in [a, b] {
        assert_eq!(task(replica, &id).await["status"], "cancelled");
    }
}

/// Asks the client who answers, and says so.
#[holon_tool(family = CoreAgent, task = required)]
async fn asking_job(elicitation: Elicitation) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": { "name": { "type": "string" } },
        "required": ["name"]
    });
    let Value::Object(schema) = schema else {
        unreachable!("an object literal")
    };
    Ok(match elicitation.ask("Who answers?", schema).await? {
        ElicitationResponse::Accept(content) => format!("answered by {}", content["name"]),
        other => format!("not answered: {other:?}"),
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_started_through_one_replica_is_answered_through_the_other() {
    let database = TestPostgres::start();
    let (a, _serving_a) = replica(database.url(), Duration::from_secs(30)).await;
    let (b, _serving_b) = replica(database.url(), Duration::from_secs(30)).await;
    let created = request(
        a,
        "tools/call",
        json!({ "name": "AskingJob", "arguments": {} }),
    )
    .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_string();
    // B shows the request the tool on A waits on, as A does.
    let parked = poll_until(b, &id, |task| task["status"] == "input_required").await;
    let requests = parked["inputRequests"].as_object().expect("input requests");
    assert_eq!(requests.len(), 1, "{parked}");
    let (key, asked) = requests.iter().next().unwrap();
    assert_eq!(asked["method"], "elicitation/create", "{parked}");
    assert_eq!(asked["params"]["message"], "Who answers?", "{parked}");
    let on_a = task(a, &id).await;
    assert_eq!(
        (&on_a["status"], &on_a["inputRequests"]),
        (&parked["status"], &parked["inputRequests"]),
        "A and B read the task alike"
    );
    // Answered through B: the tool on A goes on with the answer.
    let answer = |name: &str| {
        let mut responses = serde_json::Map::new();
        responses.insert(
            key.clone(),
            json!({ "action": "accept", "content": { "name": name } }),
        );
        json!({ "taskId": id, "inputResponses": responses })
    };
    let ack = request(b, "tasks/update", answer("B")).await;
    assert_eq!(ack["result"], json!({ "resultType": "complete" }), "{ack}");
    // A second answer to the same request, through A, is too late: ignored.
    let late = request(a, "tasks/update", answer("A")).await;
    assert_eq!(
        late["result"],
        json!({ "resultType": "complete" }),
        "{late}"
    );
    let done = poll_until(a, &id, |task| task["status"] == "completed").await;
    assert_eq!(
        done["result"]["structuredContent"]["result"], r#"answered by "B""#,
        "{done}"
    );
    assert_eq!(task(b, &id).await["result"], done["result"]);
}

fn renewed_lease(store: &PostgresTaskStore, id: &str) -> u64 {
    use holon_mcp::tasks::TaskStore as _;
    store.get(id).unwrap().expect("the task").lease_until_ms
}

#[test]
fn a_task_whose_replica_stopped_mid_run_reads_as_failed_on_the_other() {
    let database = TestPostgres::start();
    let lease = Duration::from_millis(300);
    // Each replica on a runtime of its own: shutting A's down drops everything A
    // runs (its HTTP server, the task's tool and the renewal of its lease), as the
    // end of its process would.
    let runtime = || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap()
    };
    let (runtime_a, runtime_b) = (runtime(), runtime());
    let (a, _serving_a) = runtime_a.block_on(replica(database.url(), lease));
    let (b, _serving_b) = runtime_b.block_on(replica(database.url(), lease));
    let id = runtime_b.block_on(async {
        let started = HELD_STARTED.notified();
        let created = request(
            a,
            "tools/call",
            json!({ "name": "HeldJob", "arguments": {} }),
        )
        .await;
        let id = created["result"]["taskId"].as_str().unwrap().to_string();
        tokio::time::timeout(PATIENCE, started)
            .await
            .expect("the tool starts on A");
        id
    });
    runtime_a.shutdown_background();
    runtime_b.block_on(async {
        // Working until A's last lease runs out, then failed: never working for ever.
        let failed = poll_until(b, &id, |task| task["status"] != "working").await;
        assert_eq!(failed["status"], "failed", "{failed}");
        let message = failed["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("lease ran out"), "{failed}");
    });
}

static QUICK_RELEASE: Notify = Notify::const_new();

/// Ends when the test releases it.
#[holon_tool(family = CoreAgent, task = required)]
async fn quick_job() -> String {
    QUICK_RELEASE.notified().await;
    "done".to_string()
}

/// Answers at once, never as a task.
#[holon_tool(family = CoreAgent)]
fn plain_job() -> String {
    "plain".to_string()
}

/// Appends every call to the database's audit chain, as `serve --audit` does.
struct AuditChain(PostgresAuditLog);

impl DispatchObserver for AuditChain {
    fn record(&self, execution: &Execution<'_>) {
        self.0.append(execution).expect("the record is appended");
    }
}

/// Each round trip as the first three words of its SQL, a prepare left out: it is
/// once per pooled connection and statement.
fn labels(trips: Vec<String>) -> impl Iterator<Item = String> {
    trips
        .into_iter()
        .filter(|trip| !trip.starts_with("prepare: "))
        .map(|trip| trip.split(' ').take(3).collect::<Vec<_>>().join(" "))
}

/// The round trips the proxy saw until none came for a while (the background work
/// a call left, such as a sweep, has ended).
async fn settled(wire: &WireCounter) -> Vec<String> {
    let mut trips = Vec::new();
    loop {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let new = wire.take();
        if new.is_empty() {
            return trips;
        }
        trips.extend(labels(new));
    }
}

/// The round trips the proxy saw until `done` holds of them, within PATIENCE.
async fn until(wire: &WireCounter, done: impl Fn(&[String]) -> bool) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let mut trips = Vec::new();
    while !done(&trips) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the round trips never got there: {trips:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
        trips.extend(labels(wire.take()));
    }
    trips
}

/// The round trips `trips` holds other than the running replica's polls for answers
/// (one every 100 ms while its tool waits) and the test's own `tasks/get` polls.
fn without_polls(trips: Vec<String>) -> Vec<String> {
    trips
        .into_iter()
        .filter(|trip| trip != "UPDATE holon_mcp_tasks AS" && trip != "SELECT owner, tool,")
        .collect()
}

/// The database round trips of each call through the server, counted on the wire
/// (a proxy between the server and PostgreSQL): a call that runs no task makes
/// none, one with the audit chain in the database its append; creating, reading and completing a task one each; a tool's request to the
/// client (`ask`) and the client's answer (`tasks/update`) a transaction of four.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn round_trips_to_the_database_of_each_call_counted_on_the_wire() {
    let database = TestPostgres::start();
    let wire = WireCounter::start(database.url());
    let stores = Stores::open(&wire.url().parse::<StoreUrl>().unwrap()).unwrap();
    let registry = Registry::of_module(module_path!()).expect("the test's tools");
    // A lease longer than the test: no renewal, and one sweep (at the first task).
    let server = McpServer::new(registry, holon_mcp::server_info!())
        .with_stores(&stores)
        .with_task_lease(Duration::from_secs(600));
    let addr = support::serve_without_token(server).await;
    let quick = json!({ "name": "QuickJob", "arguments": {} });
    // Warm-up: a task's whole life, so that the sweep of the first task has run and
    // the pool's connections have prepared the statements.
    let first = request(addr, "tools/call", quick.clone()).await;
    let first_id = first["result"]["taskId"].as_str().unwrap().to_string();
    QUICK_RELEASE.notify_one();
    poll_until(addr, &first_id, |task| task["status"] == "completed").await;
    let warm_up = settled(&wire).await;
    assert!(
        warm_up.contains(&"DELETE FROM holon_mcp_tasks".to_string()),
        "the first task sweeps expired tasks: {warm_up:?}"
    );

    let plain = request(
        addr,
        "tools/call",
        json!({ "name": "PlainJob", "arguments": {} }),
    )
    .await;
    assert_eq!(
        plain["result"]["structuredContent"]["result"], "plain",
        "{plain}"
    );
    assert_eq!(settled(&wire).await, Vec::<String>::new(), "a plain call");

    // The same call on a server that appends each call to the audit chain in the
    // database (audit on, policy off): the append is its one round trip.
    let log = PostgresAuditLog::open(wire.url(), false).expect("the audit chain opens");
    let context = ToolContext::new(FamilyPolicy::all()).with_observer(Arc::new(AuditChain(log)));
    let audited = McpServer::new(
        Registry::of_module(module_path!()).expect("the test's tools"),
        holon_mcp::server_info!(),
    )
    .with_stores(&stores)
    .with_context(context);
    let audited = support::serve_without_token(audited).await;
    let plain = json!({ "name": "PlainJob", "arguments": {} });
    // Warm-up: the pooled connection prepares the append.
    request(audited, "tools/call", plain.clone()).await;
    settled(&wire).await;
    let answer = request(audited, "tools/call", plain).await;
    assert_eq!(
        answer["result"]["structuredContent"]["result"], "plain",
        "{answer}"
    );
    assert_eq!(
        settled(&wire).await,
        ["SELECT appended, head_seq,"],
        "a plain call, audited"
    );
    let chain = PostgresAuditLog::existing(database.url(), false)
        .unwrap()
        .verify()
        .unwrap()
        .expect("the chain verifies");
    assert_eq!(chain.records, 2);

    // Creating a task: its insert is the one round trip before the answer.
    let created = request(addr, "tools/call", quick).await;
    let id = created["result"]["taskId"].as_str().unwrap().to_string();
    assert_eq!(
        settled(&wire).await,
        ["INSERT INTO holon_mcp_tasks"],
        "creating"
    );
    assert_eq!(task(addr, &id).await["status"], "working");
    assert_eq!(settled(&wire).await, ["SELECT owner, tool,"], "tasks/get");
    QUICK_RELEASE.notify_one();
    assert_eq!(
        settled(&wire).await,
        ["UPDATE holon_mcp_tasks SET"],
        "completing"
    );

    // A tool that asks: the request, then the answer through tasks/update.
    let asking = request(
        addr,
        "tools/call",
        json!({ "name": "AskingJob", "arguments": {} }),
    )
    .await;
    let id = asking["result"]["taskId"].as_str().unwrap().to_string();
    let transaction = [
        "START TRANSACTION",
        "SELECT status, payload,",
        "UPDATE holon_mcp_tasks SET",
        "COMMIT",
    ];
    // The tool polls for answers as long as it waits: no quiet to wait for.
    let asked =
        without_polls(until(&wire, |trips| trips.iter().any(|trip| trip == "COMMIT")).await);
    assert_eq!(asked[0], "INSERT INTO holon_mcp_tasks", "{asked:?}");
    assert_eq!(asked[1..], transaction, "ask");
    let parked = poll_until(addr, &id, |task| task["status"] == "input_required").await;
    wire.take();
    let key = parked["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let mut responses = serde_json::Map::new();
    responses.insert(
        key,
        json!({ "action": "accept", "content": { "name": "C" } }),
    );
    let update = json!({ "taskId": id, "inputResponses": responses });
    // The read of the task (`tasks/get`'s statement) is left out with the polls.
    let ack = request(addr, "tasks/update", update).await;
    assert_eq!(ack["result"], json!({ "resultType": "complete" }), "{ack}");
    let answered = without_polls(settled(&wire).await);
    assert_eq!(answered[..4], transaction, "the answer: {answered:?}");
    assert_eq!(
        answered[4..],
        ["UPDATE holon_mcp_tasks SET"],
        "the end: {answered:?}"
    );
}
