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
use holon_core::{Elicitation, ElicitationResponse, Registry};
use holon_mcp::tasks::{PostgresTaskStore, TaskRecord, TaskState, TaskStoreError};
use holon_mcp::{HttpOptions, HttpServer, McpServer, StoreUrl, Stores};
use hyper::{Method, StatusCode};
use serde_json::{Value, json};
use support::postgres::TestPostgres;
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

/// A task store that counts the calls of each kind it passes to the one it wraps:
/// each call of the PostgreSQL store is one SQL statement, one round trip.
struct Counting {
    inner: PostgresTaskStore,
    calls: std::sync::Mutex<std::collections::BTreeMap<&'static str, usize>>,
}

impl Counting {
    fn count(&self, kind: &'static str) {
        *self.calls.lock().unwrap().entry(kind).or_default() += 1;
    }

    /// The calls since the last `take`, by kind.
    fn take(&self) -> std::collections::BTreeMap<&'static str, usize> {
        std::mem::take(&mut *self.calls.lock().unwrap())
    }
}

impl holon_mcp::tasks::TaskStore for Counting {
    fn create(&self, record: &TaskRecord) -> Result<(), TaskStoreError> {
        self.count("create");
        self.inner.create(record)
    }
    fn get(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        self.count("get");
        self.inner.get(id)
    }
    fn advance(&self, id: &str, state: &TaskState, now_ms: u64) -> Result<bool, TaskStoreError> {
        self.count("advance");
        self.inner.advance(id, state, now_ms)
    }
    fn remove_expired(&self, now_ms: u64) -> Result<usize, TaskStoreError> {
        self.count("remove_expired");
        self.inner.remove_expired(now_ms)
    }
    fn renew(&self, id: &str, lease_until_ms: u64) -> Result<bool, TaskStoreError> {
        self.count("renew");
        self.inner.renew(id, lease_until_ms)
    }
    fn fail_abandoned(&self, state: &TaskState, now_ms: u64) -> Result<usize, TaskStoreError> {
        self.count("fail_abandoned");
        self.inner.fail_abandoned(state, now_ms)
    }
    fn ask(
        &self,
        id: &str,
        key: &str,
        request: &Value,
        now_ms: u64,
    ) -> Result<bool, TaskStoreError> {
        self.count("ask");
        self.inner.ask(id, key, request, now_ms)
    }
    fn answer(
        &self,
        id: &str,
        responses: &serde_json::Map<String, Value>,
        now_ms: u64,
    ) -> Result<Vec<String>, TaskStoreError> {
        self.count("answer");
        self.inner.answer(id, responses, now_ms)
    }
    fn take_answers(&self, id: &str) -> Result<serde_json::Map<String, Value>, TaskStoreError> {
        self.count("take_answers");
        self.inner.take_answers(id)
    }
}

static QUICK_RELEASE: Notify = Notify::const_new();

/// Ends when the test releases it.
#[holon_tool(family = CoreAgent, task = required)]
async fn quick_job() -> String {
    QUICK_RELEASE.notified().await;
    "done".to_string()
}

/// The database round trips of a task's life through the server: created (a
/// `tools/call`), read (`tasks/get`), completed (the tool's end).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_costs_two_round_trips_to_create_one_to_read_and_one_to_complete() {
    let database = TestPostgres::start();
    let store = Arc::new(Counting {
        inner: PostgresTaskStore::open(database.url()).unwrap(),
        calls: std::sync::Mutex::default(),
    });
    let registry = Registry::of_module(module_path!()).expect("the test's tools");
    // A lease longer than the test: no renewal is counted.
    let server = McpServer::new(registry, holon_mcp::server_info!())
        .with_task_lease(Duration::from_secs(600))
        .with_task_store(store.clone());
    let addr = support::serve_without_token(server).await;
    let call = json!({ "name": "QuickJob", "arguments": {} });
    // The first task of a server also sweeps the store for abandoned tasks.
    let first = request(addr, "tools/call", call.clone()).await;
    assert_eq!(first["result"]["resultType"], "task", "{first}");
    let created = store.take();
    assert_eq!(
        created,
        [("create", 1), ("fail_abandoned", 1), ("remove_expired", 1)].into()
    );
    QUICK_RELEASE.notify_one();
    let first_id = first["result"]["taskId"].as_str().unwrap().to_string();
    poll_until(addr, &first_id, |task| task["status"] == "completed").await;
    store.take();
    // Later ones: the expiry sweep and the insert.
    let second = request(addr, "tools/call", call).await;
    let id = second["result"]["taskId"].as_str().unwrap().to_string();
    assert_eq!(store.take(), [("create", 1), ("remove_expired", 1)].into());
    assert_eq!(task(addr, &id).await["status"], "working");
    assert_eq!(store.take(), [("get", 1)].into());
    QUICK_RELEASE.notify_one();
    let done = poll_until(addr, &id, |task| task["status"] == "completed").await;
    assert_eq!(done["result"]["structuredContent"]["result"], "done");
    let polled = store.take();
    assert_eq!(polled.get("advance"), Some(&1), "completing: {polled:?}");
    assert_eq!(
        polled.keys().copied().collect::<Vec<_>>(),
        ["advance", "get"],
        "{polled:?}"
    );
}
