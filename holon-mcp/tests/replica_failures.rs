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
use std::time::Duration;

use holon_core::prelude::*;
use holon_core::{DispatchObserver, Execution, FamilyPolicy, Registry, ToolContext};
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
    let registry = Registry::of_module(module_path!()).expect("the test's tools");
    let stores = Stores::open(&url.parse::<StoreUrl>().unwrap()).unwrap();
    let mut server = McpServer::new(registry, holon_mcp::server_info!())
        .with_stores(&stores)
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
