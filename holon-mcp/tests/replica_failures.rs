//! What clients of replicas on one PostgreSQL see when something fails: a replica
//! killed (SIGKILL) in the middle of a task, and the database stopped under load
//! and started again.

// The PostgreSQL fixture runs `initdb` and `pg_ctl`; the killed replica is a process.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod support;

use std::io::BufRead as _;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use holon_core::Registry;
use holon_core::prelude::*;
use holon_mcp::{HttpOptions, HttpServer, McpServer, StoreUrl, Stores};
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
        let mut child = Command::new(std::env::current_exe().unwrap())
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
    let (addr, serving) = replica(&url, Duration::from_millis(lease)).await;
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
    let (a, _serving_a) = replica(database.url(), lease).await;
    let (b, _serving_b) = replica(database.url(), lease).await;
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
    let (a, _serving_a) = replica(database.url(), lease).await;
    let (b, _serving_b) = replica(database.url(), lease).await;
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
