//! What clients of replicas on one PostgreSQL see when something fails: a replica
//! killed (SIGKILL) in the middle of a task, or with tasks and calls in flight and
//! the audit chain on, and the database stopped under load and started again.

// The PostgreSQL fixture runs `initdb` and `pg_ctl`; the killed replica is a process.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod support;

use std::collections::BTreeMap;
use std::io::BufRead as _;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use holon_core::prelude::*;
use holon_core::{DispatchObserver, Execution, FamilyPolicy, Registry, ToolContext};
use holon_mcp::tasks::{TaskRecord, TaskState, TaskStore, TaskStoreError};
use holon_mcp::{HttpOptions, HttpServer, McpServer, StoreUrl, Stores};
use holon_runtime::audit_log::postgres::PostgresAuditLog;
use hyper::{Method, StatusCode};
use serde_json::{Value, json};
use support::postgres::TestPostgres;

/// How long a test waits for what must happen before it gives up (a hang guard,
/// not a measure).
const PATIENCE: Duration = Duration::from_secs(30);

/// The store URL a replica process serves on (set only for the child process).
const REPLICA_STORE_ENV: &str = "HOLON_TEST_REPLICA_STORE";
/// The task lease of a replica process, in milliseconds.
const REPLICA_LEASE_ENV: &str = "HOLON_TEST_REPLICA_LEASE_MS";
/// Set for a replica process that appends every call to the database's audit chain.
const REPLICA_AUDIT_ENV: &str = "HOLON_TEST_REPLICA_AUDIT";
/// What a replica process writes on stdout once it listens, before its address.
const LISTENING: &str = "replica listening on ";

/// Works until its process ends.
#[holon_tool(family = CoreAgent, task = required)]
async fn endless_job() -> String {
    std::future::pending::<()>().await;
    "never".to_string()
}

/// Ends after a moment.
#[holon_tool(family = CoreAgent, task = required)]
async fn brief_job() -> String {
    tokio::time::sleep(Duration::from_millis(50)).await;
    "done".to_string()
}

/// Answers at once, never as a task: a call that needs no store.
#[holon_tool(family = CoreAgent)]
async fn ping() -> String {
    "pong".to_string()
}

/// Ends after a while: long enough to be in flight when a replica is killed.
#[holon_tool(family = CoreAgent, task = required)]
async fn slow_job() -> String {
    tokio::time::sleep(Duration::from_millis(300)).await;
    "done".to_string()
}

/// Arguments of Numbered.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct NumberedArgs {
    /// The call's number.
    n: u32,
}

/// Answers with its number at once, never as a task: a call told apart from the
/// others in the audit chain.
#[holon_tool(family = CoreAgent)]
async fn numbered(args: NumberedArgs) -> String {
    format!("call {}", args.n)
}

/// Appends every call to the database's audit chain, as `serve --audit` does.
struct AuditChain(PostgresAuditLog);

impl DispatchObserver for AuditChain {
    fn record(&self, execution: &Execution<'_>) {
        self.0.append(execution).expect("the record is appended");
    }
}

/// A replica: a server of this file's tools on the database of `url`, with tasks
/// leased for `lease`, served on a loopback listener bound first; with `audit`, each
/// call is appended to the database's audit chain.
async fn replica(
    url: &str,
    lease: Duration,
    audit: bool,
) -> (SocketAddr, tokio::task::JoinHandle<()>) {
    replica_on(url, lease, audit, |tasks| tasks).await
}

/// A replica as [`replica`]'s (no audit), its task store the [`Watched`] one this returns.
async fn watched_replica(
    url: &str,
    lease: Duration,
) -> (SocketAddr, tokio::task::JoinHandle<()>, Arc<Watched>) {
    let mut watched = None;
    let (addr, serving) = replica_on(url, lease, false, |tasks| {
        let store = Arc::new(Watched::new(tasks));
        watched = Some(store.clone());
        store
    })
    .await;
    (addr, serving, watched.unwrap())
}

/// A replica whose task store is what `tasks` makes of the database's.
async fn replica_on(
    url: &str,
    lease: Duration,
    audit: bool,
    tasks: impl FnOnce(Arc<dyn TaskStore>) -> Arc<dyn TaskStore>,
) -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let registry = Registry::of_module(module_path!()).expect("the test's tools");
    let stores = Stores::open(&url.parse::<StoreUrl>().unwrap()).unwrap();
    let mut server = McpServer::new(registry, holon_mcp::server_info!())
        .with_stores(&stores)
        .with_task_store(tasks(stores.tasks().clone()))
        .with_task_lease(lease);
    if audit {
        let log = PostgresAuditLog::open(url, true).expect("the audit chain opens");
        let context =
            ToolContext::new(FamilyPolicy::all()).with_observer(Arc::new(AuditChain(log)));
        server = server.with_context(context);
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mut options = HttpOptions {
        no_auth: true,
        ..HttpOptions::new()
    };
    // Every client is on 127.0.0.1, as behind a balancer: the per-peer cap on
    // connections that have not sent a request yet would answer a burst with 503.
    options.limits.max_unauthenticated_per_peer = 128;
    let http = HttpServer::new(listener, server, options).await.unwrap();
    let addr = http.local_addr();
    let serving = tokio::spawn(async move {
        let _ = http.into_future().await;
    });
    (addr, serving)
}

/// Sends the 2026-07-28 request `method` with `params` (no session: any replica
/// may answer it): the JSON-RPC answer, within PATIENCE.
async fn request(addr: SocketAddr, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": { "io.modelcontextprotocol/tasks": {} }
        },
        "io.modelcontextprotocol/clientInfo": { "name": "replica-failures-test", "version": "1" }
    });
    let mut headers = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
    ];
    let name = params["name"]
        .as_str()
        .or(params["taskId"].as_str())
        .map(str::to_string);
    if let Some(name) = &name {
        headers.push(("mcp-name", name));
    }
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let sent = support::send(addr, Method::POST, &headers, Some(&body));
    let (status, _, answer) = tokio::time::timeout(PATIENCE, sent)
        .await
        .unwrap_or_else(|_| panic!("{method} was never answered"));
    assert_eq!(status, StatusCode::OK, "{method}: {answer}");
    answer
}

async fn call(addr: SocketAddr, tool: &str) -> Value {
    request(addr, "tools/call", json!({ "name": tool, "arguments": {} })).await
}

async fn task(addr: SocketAddr, id: &str) -> Value {
    request(addr, "tasks/get", json!({ "taskId": id })).await
}

/// The id of the task a `tools/call` answered with.
fn task_id(created: &Value) -> String {
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    created["result"]["taskId"].as_str().unwrap().to_string()
}

/// Polls `tasks/get` on `addr` until `done` holds of the task, within PATIENCE.
async fn poll_until(addr: SocketAddr, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let answer = task(addr, id).await;
        let task = &answer["result"];
        if done(task) {
            return task.clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the task never got there: {answer}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A replica in a process of its own: this test binary run again as
/// [`replica_process`], so that it can be killed as a crashed server is.
struct ReplicaProcess {
    child: Child,
    addr: SocketAddr,
}

impl ReplicaProcess {
    fn spawn(url: &str, lease: Duration) -> Self {
        Self::spawn_with(url, lease, false)
    }

    /// As [`spawn`](Self::spawn), appending every call to the audit chain.
    fn spawn_audited(url: &str, lease: Duration) -> Self {
        Self::spawn_with(url, lease, true)
    }

    fn spawn_with(url: &str, lease: Duration, audit: bool) -> Self {
        let mut command = Command::new(std::env::current_exe().unwrap());
        if audit {
            command.env(REPLICA_AUDIT_ENV, "1");
        }
        let mut child = command
            .args([
                "replica_process",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(REPLICA_STORE_ENV, url)
            .env(REPLICA_LEASE_ENV, lease.as_millis().to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the test binary runs again as a replica");
        let stdout = child.stdout.take().unwrap();
        let (announced, announcement) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                // After the test harness's `test replica_process ... `.
                if let Some((_, addr)) = line.split_once(LISTENING) {
                    let _ = announced.send(addr.parse::<SocketAddr>().unwrap());
                }
            }
        });
        let addr = announcement
            .recv_timeout(PATIENCE)
            .expect("the replica process says where it listens");
        Self { child, addr }
    }

    /// Kills the process with SIGKILL (nothing of it runs on: no shutdown, no
    /// last write to the store) and waits for its end.
    fn kill(&mut self) {
        use std::os::unix::process::ExitStatusExt as _;
        self.child.kill().unwrap();
        let status = self.child.wait().unwrap();
        assert_eq!(status.signal(), Some(9), "killed by SIGKILL: {status}");
    }
}

impl Drop for ReplicaProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The replica process [`ReplicaProcess`] starts: serves until it is killed. Run
/// alone (without the test's variables) it returns at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a replica process that the SIGKILL test starts"]
async fn replica_process() {
    let Ok(url) = std::env::var(REPLICA_STORE_ENV) else {
        return;
    };
    let lease: u64 = std::env::var(REPLICA_LEASE_ENV).unwrap().parse().unwrap();
    let audit = std::env::var_os(REPLICA_AUDIT_ENV).is_some();
    let (addr, serving) = replica(&url, Duration::from_millis(lease), audit).await;
    {
        use std::io::Write as _;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{LISTENING}{addr}").unwrap();
        stdout.flush().unwrap();
    }
    serving.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_killed_mid_task_leaves_it_failed_and_the_other_serving() {
    let database = TestPostgres::start();
    let lease = Duration::from_millis(600);
    let mut a = ReplicaProcess::spawn(database.url(), lease);
    let b = ReplicaProcess::spawn(database.url(), lease);
    let id = task_id(&call(a.addr, "EndlessJob").await);
    let working = task(b.addr, &id).await;
    assert_eq!(working["result"]["status"], "working", "{working}");
    a.kill();
    // Working until A's last lease runs out, then failed: never working for ever.
    let failed = poll_until(b.addr, &id, |task| task["status"] != "working").await;
    assert_eq!(failed["status"], "failed", "{failed}");
    let message = failed["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("lease ran out"), "{failed}");
    // Cancelling an ended task changes nothing, and is acknowledged.
    let ack = request(b.addr, "tasks/cancel", json!({ "taskId": id })).await;
    assert_eq!(ack["result"], json!({ "resultType": "complete" }), "{ack}");
    let after = task(b.addr, &id).await;
    assert_eq!(after["result"]["status"], "failed", "{after}");
    assert_eq!(after["result"]["error"], failed["error"], "{after}");
    // B runs a new task to its end.
    let next = task_id(&call(b.addr, "BriefJob").await);
    let done = poll_until(b.addr, &next, |task| task["status"] == "completed").await;
    assert_eq!(done["result"]["structuredContent"]["result"], "done");
}

/// Sends `tools/call` of `tool` with `arguments` through `addr` in a task of its
/// own: the answer, or `None` when the replica died before it answered.
fn call_in_flight(
    addr: SocketAddr,
    tool: &'static str,
    arguments: Value,
) -> tokio::task::JoinHandle<Value> {
    tokio::spawn(async move {
        request(
            addr,
            "tools/call",
            json!({ "name": tool, "arguments": arguments }),
        )
        .await
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_killed_with_tasks_and_calls_in_flight_ends_every_task_and_keeps_one_chain() {
    let database = TestPostgres::start();
    let lease = Duration::from_millis(600);
    let mut a = ReplicaProcess::spawn_audited(database.url(), lease);
    let b = ReplicaProcess::spawn_audited(database.url(), lease);
    // 20 tasks and 50 plain calls at once, every other one through each replica.
    let through = |i: u32| if i.is_multiple_of(2) { a.addr } else { b.addr };
    let tasks: Vec<_> = (0..20)
        .map(|i| call_in_flight(through(i), "SlowJob", json!({})))
        .collect();
    let calls: Vec<_> = (0..50)
        .map(|n| (n, call_in_flight(through(n), "Numbered", json!({ "n": n }))))
        .collect();
    tokio::time::sleep(Duration::from_millis(100)).await;
    a.kill();
    // A request A had not answered fails in its client (the connection is gone).
    let mut handles = Vec::new();
    for (i, created) in (0..).zip(tasks) {
        match created.await {
            Ok(created) => handles.push(task_id(&created)),
            Err(_) => assert_eq!(i % 2, 0, "B left a task call unanswered"),
        }
    }
    let mut answered = Vec::new();
    for (n, answer) in calls {
        match answer.await {
            Ok(answer) => {
                let result = &answer["result"]["structuredContent"]["result"];
                assert_eq!(*result, format!("call {n}"), "{answer}");
                answered.push(n);
            }
            Err(_) => assert_eq!(n % 2, 0, "B left call {n} unanswered"),
        }
    }
    assert!(
        handles.len() >= 10 && answered.len() >= 25,
        "B answered all its own"
    );
    // Every task with a handle ends, read through the survivor: completed where it
    // ran on B, failed once A's lease ran out where it ran on A; and it stays so.
    for id in &handles {
        let ended = poll_until(b.addr, id, |task| task["status"] != "working").await;
        match ended["status"].as_str() {
            Some("completed") => {
                assert_eq!(ended["result"]["structuredContent"]["result"], "done")
            }
            Some("failed") => {
                let message = ended["error"]["message"].as_str().unwrap_or_default();
                assert!(message.contains("lease ran out"), "{ended}");
            }
            _ => panic!("a task ended neither completed nor failed: {ended}"),
        }
        let again = task(b.addr, id).await;
        assert_eq!(again["result"], ended, "an ended task changed");
    }
    // One chain for both replicas, whole, though A died holding appends: each
    // answered call is in it once, and no call twice.
    let log = PostgresAuditLog::existing(database.url(), true).unwrap();
    assert!(log.verify().unwrap().is_ok(), "the audit chain verifies");
    let (rows, _) = log.rows().unwrap();
    let mut recorded: BTreeMap<u32, usize> = BTreeMap::new();
    for row in &rows {
        let record: Value = serde_json::from_str(&row.line).unwrap();
        if record["tool"] == "Numbered" {
            let arguments: Value =
                serde_json::from_str(record["arguments"].as_str().unwrap()).unwrap();
            let n = u32::try_from(arguments["n"].as_u64().unwrap()).unwrap();
            *recorded.entry(n).or_default() += 1;
        }
    }
    assert!(recorded.values().all(|&count| count == 1), "{recorded:?}");
    for n in &answered {
        assert!(
            recorded.contains_key(n),
            "answered call {n} is not in the chain"
        );
    }
}

/// Asserts that `answer` is the JSON-RPC error of a task store that cannot be
/// reached.
fn assert_store_unavailable(answer: &Value) {
    let error = &answer["error"];
    assert_eq!(error["code"], -32603, "{answer}");
    assert_eq!(error["data"]["kind"], "task_store_unavailable", "{answer}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains("unavailable"), "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_answer_store_unavailable_while_the_database_is_stopped_and_recover_after_it() {
    let database = TestPostgres::start_own();
    let lease = Duration::from_secs(30);
    let (a, _serving_a) = replica(database.url(), lease, false).await;
    let (b, _serving_b) = replica(database.url(), lease, false).await;
    let before = task_id(&call(a, "BriefJob").await);
    poll_until(b, &before, |task| task["status"] == "completed").await;

    database.stop();
    for _ in 0..3 {
        for replica in [a, b] {
            assert_store_unavailable(&call(replica, "BriefJob").await);
            assert_store_unavailable(&task(replica, &before).await);
            let pong = call(replica, "Ping").await;
            assert_eq!(
                pong["result"]["structuredContent"]["result"], "pong",
                "{pong}"
            );
        }
    }

    database.start_again();
    // The replicas were not restarted: their pools connect again.
    for replica in [a, b] {
        let next = task_id(&call(replica, "BriefJob").await);
        let done = poll_until(replica, &next, |task| task["status"] == "completed").await;
        assert_eq!(done["result"]["structuredContent"]["result"], "done");
        let kept = task(replica, &before).await;
        assert_eq!(kept["result"]["status"], "completed", "{kept}");
    }
}

static OUTLASTING_RELEASE: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Ends when the test releases it.
#[holon_tool(family = CoreAgent, task = required)]
async fn outlasting_job() -> String {
    OUTLASTING_RELEASE.notified().await;
    "outlasted".to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_running_while_the_database_is_stopped_ends_once_it_is_back() {
    let database = TestPostgres::start_own();
    // A lease far longer than the outage: the task must not read as abandoned.
    let lease = Duration::from_secs(30);
    let (a, _serving_a) = replica(database.url(), lease, false).await;
    let (b, _serving_b) = replica(database.url(), lease, false).await;
    let id = task_id(&call(a, "OutlastingJob").await);
    database.stop();
    assert_store_unavailable(&task(b, &id).await);
    database.start_again();
    let working = task(b, &id).await;
    assert_eq!(working["result"]["status"], "working", "{working}");
    // The tool on A ran through the outage; its end is written to the store.
    OUTLASTING_RELEASE.notify_one();
    let done = poll_until(b, &id, |task| task["status"] == "completed").await;
    assert_eq!(done["result"]["structuredContent"]["result"], "outlasted");
}

/// A replica's task store as the test sees it: the database's, its outcomes
/// counted; and a hold under which every call fails as unreachable, as for a
/// replica whose connections come back later than its peer's after an outage.
struct Watched {
    inner: Arc<dyn TaskStore>,
    held: AtomicBool,
    /// While set, the writes of a task's end alone fail as unreachable.
    ends_held: AtomicBool,
    /// Renewals that found the task unfinished.
    renewed: AtomicUsize,
    /// Writes of a task's end that could not reach the store.
    unwritten: AtomicUsize,
    /// Renewals or writes of an end that found the task ended already.
    refused: AtomicUsize,
}

impl Watched {
    fn new(inner: Arc<dyn TaskStore>) -> Self {
        Self {
            inner,
            held: AtomicBool::new(false),
            ends_held: AtomicBool::new(false),
            renewed: AtomicUsize::new(0),
            unwritten: AtomicUsize::new(0),
            refused: AtomicUsize::new(0),
        }
    }

    fn hold(&self, held: bool) {
        self.held.store(held, Ordering::SeqCst);
    }

    fn reach(&self) -> Result<&dyn TaskStore, TaskStoreError> {
        if self.held.load(Ordering::SeqCst) {
            return Err(TaskStoreError::unavailable("held off by the test"));
        }
        Ok(&*self.inner)
    }

    /// Waits until `count` of this store goes past `above`, within PATIENCE.
    async fn past(&self, count: impl Fn(&Self) -> &AtomicUsize, above: usize, what: &str) {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        while count(self).load(Ordering::SeqCst) <= above {
            assert!(tokio::time::Instant::now() < deadline, "never: {what}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

impl TaskStore for Watched {
    fn create(&self, record: &TaskRecord) -> Result<(), TaskStoreError> {
        self.reach()?.create(record)
    }

    fn get(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        self.reach()?.get(id)
    }

    fn advance(&self, id: &str, state: &TaskState, now_ms: u64) -> Result<bool, TaskStoreError> {
        let outcome = self.reach().and_then(|store| {
            if state.is_terminal() && self.ends_held.load(Ordering::SeqCst) {
                return Err(TaskStoreError::unavailable("ends held off by the test"));
            }
            store.advance(id, state, now_ms)
        });
        if state.is_terminal() {
            match outcome {
                Ok(false) => self.refused.fetch_add(1, Ordering::SeqCst),
                Err(_) => self.unwritten.fetch_add(1, Ordering::SeqCst),
                Ok(true) => 0,
            };
        }
        outcome
    }

    fn remove_expired(&self, now_ms: u64) -> Result<usize, TaskStoreError> {
        self.reach()?.remove_expired(now_ms)
    }

    fn renew(&self, id: &str, lease_until_ms: u64) -> Result<bool, TaskStoreError> {
        let outcome = self.reach()?.renew(id, lease_until_ms);
        match outcome {
            Ok(true) => self.renewed.fetch_add(1, Ordering::SeqCst),
            Ok(false) => self.refused.fetch_add(1, Ordering::SeqCst),
            Err(_) => 0,
        };
        outcome
    }

    fn fail_abandoned(&self, state: &TaskState, now_ms: u64) -> Result<usize, TaskStoreError> {
        self.reach()?.fail_abandoned(state, now_ms)
    }

    fn ask(
        &self,
        id: &str,
        key: &str,
        request: &Value,
        now_ms: u64,
    ) -> Result<bool, TaskStoreError> {
        self.reach()?.ask(id, key, request, now_ms)
    }

    fn answer(
        &self,
        id: &str,
        responses: &serde_json::Map<String, Value>,
        now_ms: u64,
    ) -> Result<Vec<String>, TaskStoreError> {
        self.reach()?.answer(id, responses, now_ms)
    }

    fn take_answers(&self, id: &str) -> Result<serde_json::Map<String, Value>, TaskStoreError> {
        self.reach()?.take_answers(id)
    }
}

/// Reads task `id` a few times, a renewal period apart, through each of `replicas`:
/// every read is `ended`, whole.
async fn stays(replicas: [SocketAddr; 2], id: &str, ended: &Value, lease: Duration) {
    for _ in 0..3 {
        for replica in replicas {
            let again = task(replica, id).await;
            assert_eq!(again["result"], *ended, "an ended task changed");
        }
        tokio::time::sleep(lease / 3).await;
    }
}

static ENDING_RELEASE: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Ends when the test releases it.
#[holon_tool(family = CoreAgent, task = required)]
async fn ending_job() -> String {
    ENDING_RELEASE.notified().await;
    "ended in the outage".to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_tool_ends_while_the_database_is_stopped_completes_once_it_is_back() {
    let database = TestPostgres::start_own();
    // A lease far longer than the outage: only the final write is at stake.
    let lease = Duration::from_secs(30);
    let (a, _serving_a, watched) = watched_replica(database.url(), lease).await;
    let (b, _serving_b) = replica(database.url(), lease, false).await;
    let id = task_id(&call(a, "EndingJob").await);
    database.stop();
    ENDING_RELEASE.notify_one();
    watched
        .past(
            |w| &w.unwritten,
            0,
            "A tries to write the end while the database is stopped",
        )
        .await;
    database.start_again();
    let ended = poll_until(b, &id, |task| task["status"] != "working").await;
    assert_eq!(ended["status"], "completed", "{ended}");
    assert_eq!(
        ended["result"]["structuredContent"]["result"], "ended in the outage",
        "{ended}"
    );
    stays([a, b], &id, &ended, Duration::from_millis(300)).await;
}

static LEASED_STARTED: tokio::sync::Notify = tokio::sync::Notify::const_new();
static LEASED_CANCELLED: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Works until its task is cancelled, and tells the test when its cancellation
/// fires (a task of its own watches: the dispatcher drops the tool's future).
#[holon_tool(family = CoreAgent, task = required)]
async fn leased_job(context: &ToolContext) -> String {
    let token = context.cancellation().token().clone();
    tokio::spawn(async move {
        token.cancelled().await;
        LEASED_CANCELLED.notify_one();
    });
    LEASED_STARTED.notify_one();
    std::future::pending::<()>().await;
    "never".to_string()
}

/// A lease short enough for an outage to outlast it in a test.
const SHORT_LEASE: Duration = Duration::from_millis(1500);

/// Waits out the rest of an outage begun with `database.stop()`: A is held off the
/// store (it will reach it only when the test says), the outage lasts twice
/// `lease` (past the last lease renewed before it), then the database starts again.
async fn outlast_the_lease(database: &TestPostgres, a: &Watched, lease: Duration) {
    a.hold(true);
    tokio::time::sleep(lease * 2).await;
    database.start_again();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_an_outage_longer_than_the_lease_a_task_read_first_elsewhere_is_failed_and_its_tool_cancelled()
 {
    let database = TestPostgres::start_own();
    let (a, _serving_a, watched) = watched_replica(database.url(), SHORT_LEASE).await;
    let (b, _serving_b) = replica(database.url(), SHORT_LEASE, false).await;
    let started = LEASED_STARTED.notified();
    let id = task_id(&call(a, "LeasedJob").await);
    tokio::time::timeout(PATIENCE, started)
        .await
        .expect("the tool starts on A");
    database.stop();
    outlast_the_lease(&database, &watched, SHORT_LEASE).await;
    // B reads it first: nobody vouched for it past its lease, so it is failed.
    let failed = task(b, &id).await["result"].clone();
    assert_eq!(failed["status"], "failed", "{failed}");
    let message = failed["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("lease ran out"), "{failed}");
    // A is back: its renewal finds the task ended and cancels the tool; the
    // cancelled end it writes then changes nothing.
    let cancelled = LEASED_CANCELLED.notified();
    watched.hold(false);
    tokio::time::timeout(PATIENCE, cancelled)
        .await
        .expect("A's tool is cancelled");
    watched
        .past(
            |w| &w.refused,
            1,
            "A's renewal and its end find the task ended",
        )
        .await;
    stays([a, b], &id, &failed, SHORT_LEASE).await;
}

static LATE_RELEASE: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Ends when the test releases it.
#[holon_tool(family = CoreAgent, task = required)]
async fn late_job() -> String {
    LATE_RELEASE.notified().await;
    "too late".to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_an_outage_longer_than_the_lease_a_late_result_does_not_overwrite_the_failure() {
    let database = TestPostgres::start_own();
    let (a, _serving_a, watched) = watched_replica(database.url(), SHORT_LEASE).await;
    let (b, _serving_b) = replica(database.url(), SHORT_LEASE, false).await;
    let id = task_id(&call(a, "LateJob").await);
    // The tool ends in the outage: A holds its result, unwritten.
    database.stop();
    LATE_RELEASE.notify_one();
    watched
        .past(
            |w| &w.unwritten,
            0,
            "A tries to write the end while the database is stopped",
        )
        .await;
    outlast_the_lease(&database, &watched, SHORT_LEASE).await;
    let failed = task(b, &id).await["result"].clone();
    assert_eq!(failed["status"], "failed", "{failed}");
    // A is back with its result: the store refuses it, and A stops trying.
    watched.hold(false);
    watched
        .past(|w| &w.refused, 0, "A's late end finds the task failed")
        .await;
    stays([a, b], &id, &failed, SHORT_LEASE).await;
}

static KEPT_RELEASE: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Ends when the test releases it.
#[holon_tool(family = CoreAgent, task = required)]
async fn kept_job() -> String {
    KEPT_RELEASE.notified().await;
    "kept".to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_an_outage_longer_than_the_lease_a_task_its_replica_renews_first_runs_to_its_end() {
    let database = TestPostgres::start_own();
    let (a, _serving_a, watched) = watched_replica(database.url(), SHORT_LEASE).await;
    let (b, _serving_b) = replica(database.url(), SHORT_LEASE, false).await;
    let id = task_id(&call(a, "KeptJob").await);
    database.stop();
    outlast_the_lease(&database, &watched, SHORT_LEASE).await;
    // A is back first: its next renewal vouches for the task again.
    let renewed = watched.renewed.load(Ordering::SeqCst);
    watched.hold(false);
    watched
        .past(|w| &w.renewed, renewed, "A renews the lease")
        .await;
    let working = task(b, &id).await;
    assert_eq!(working["result"]["status"], "working", "{working}");
    KEPT_RELEASE.notify_one();
    let done = poll_until(b, &id, |task| task["status"] != "working").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["structuredContent"]["result"], "kept");
    stays([a, b], &id, &done, SHORT_LEASE).await;
}

static RETRIED_RELEASE: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Ends when the test releases it.
#[holon_tool(family = CoreAgent, task = required)]
async fn retried_job() -> String {
    RETRIED_RELEASE.notified().await;
    "retried".to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_retrying_the_end_of_a_task_keeps_its_lease_past_the_first() {
    let database = TestPostgres::start_own();
    let lease = Duration::from_secs(2);
    let (a, _serving_a, watched) = watched_replica(database.url(), lease).await;
    let (b, _serving_b) = replica(database.url(), lease, false).await;
    // A's writes of the end fail as if the store were unreachable; its renewals land.
    watched.ends_held.store(true, Ordering::SeqCst);
    let id = task_id(&call(a, "RetriedJob").await);
    RETRIED_RELEASE.notify_one();
    watched
        .past(|w| &w.unwritten, 0, "A tries to write the end")
        .await;
    // Past the lease A held when the tool ended, B still reads it working.
    let until = tokio::time::Instant::now() + lease * 2;
    while tokio::time::Instant::now() < until {
        let working = task(b, &id).await;
        assert_eq!(working["result"]["status"], "working", "{working}");
        tokio::time::sleep(lease / 8).await;
    }
    watched.ends_held.store(false, Ordering::SeqCst);
    let done = poll_until(b, &id, |task| task["status"] != "working").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["structuredContent"]["result"], "retried");
    stays([a, b], &id, &done, lease).await;
}
