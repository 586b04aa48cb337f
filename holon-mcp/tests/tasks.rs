//! The tasks extension end to end: a server of this file's tools, spoken to in raw
//! JSON-RPC over an in-process pipe (or streamable HTTP) by a client that declares
//! (or not) the `io.modelcontextprotocol/tasks` extension; and the cancellation of a
//! call while it runs within its request, a task's or not.

// Tests set their fixtures up with sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use holon_core::prelude::*;
use holon_core::{
    Cancellation, Elicitation, ElicitationRequest, ElicitationResponse, Registry, TaskEscalation,
};
use holon_mcp::McpServer;
use holon_mcp::rmcp::ServiceExt;
use hyper::{Method, StatusCode};
use serde_json::{Map, Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use tokio::sync::Notify;

/// How long a test waits for what must happen before it gives up (a hang guard,
/// not a measure: everything here happens in milliseconds).
const PATIENCE: Duration = Duration::from_secs(30);

static GATED_RUNS: AtomicUsize = AtomicUsize::new(0);

/// Runs as a task only.
#[holon_tool(family = CoreAgent, task = required)]
fn gated_job() -> String {
    GATED_RUNS.fetch_add(1, Ordering::SeqCst);
    "ran".to_string()
}

/// Never a task.
#[holon_tool(family = CoreAgent)]
fn plain_job() -> String {
    "plain".to_string()
}

/// Answers at once; a task when the client supports tasks.
#[holon_tool(family = CoreAgent, task = optional)]
fn quick_job() -> String {
    "inline".to_string()
}

/// Waits forever (the durable-store test cancels it).
#[holon_tool(family = CoreAgent, task = optional)]
async fn durable_job() -> String {
    std::future::pending::<()>().await;
    "never".to_string()
}

static RELEASE_HELD: Notify = Notify::const_new();

/// Works until the test releases it.
#[holon_tool(family = CoreAgent, task = optional)]
async fn held_job() -> String {
    RELEASE_HELD.notified().await;
    "released".to_string()
}

static CANCEL_STARTED: Notify = Notify::const_new();
static CANCEL_SEEN: Notify = Notify::const_new();

/// Waits forever; tells the test when its cancellation fires.
#[holon_tool(family = CoreAgent, task = optional)]
async fn endless_job(context: &ToolContext) -> String {
    let token = context.cancellation().token().clone();
    tokio::spawn(async move {
        token.cancelled().await;
        CANCEL_SEEN.notify_one();
    });
    CANCEL_STARTED.notify_one();
    std::future::pending::<()>().await;
    "never".to_string()
}

/// Asks the user to confirm.
#[holon_tool(family = CoreAgent, task = optional)]
async fn asking_job(elicitation: Elicitation) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": { "confirm": { "type": "boolean" } },
        "required": ["confirm"]
    });
    let Value::Object(schema) = schema else {
        unreachable!("an object literal")
    };
    let answer = elicitation.ask("Go ahead?", schema).await?;
    Ok(match answer {
        ElicitationResponse::Accept(content) => format!("confirmed: {}", Value::Object(content)),
        other => format!("not confirmed: {other:?}"),
    })
}

/// Asks the user's name within the request, goes on as a task, and there asks
/// again (as a task asks: `input_required`).
#[holon_tool(family = CoreAgent, task = required)]
async fn naming_job(elicitation: Elicitation, task: TaskEscalation) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": { "name": { "type": "string" } },
        "required": ["name"]
    });
    let Value::Object(schema) = schema else {
        unreachable!("an object literal")
    };
    let asked = ElicitationRequest::new("Your name?", schema.clone()).with_key("user_name");
    let name = match elicitation.request(asked).await? {
        ElicitationResponse::Accept(content) => content["name"].as_str().unwrap_or("?").to_string(),
        other => format!("{other:?}"),
    };
    task.escalate().await?;
    let again = elicitation.ask("Your name, again?", schema).await?;
    let again = match again {
        ElicitationResponse::Accept(content) => content["name"].as_str().unwrap_or("?").to_string(),
        other => format!("{other:?}"),
    };
    Ok(format!("hello {name} and {again}"))
}

/// What a lingering tool tells the test: that it started, and that the
/// cancellation it handed to spawned work fired.
struct Signals {
    started: Notify,
    cancelled: Notify,
}

impl Signals {
    const fn new() -> Self {
        Self {
            started: Notify::const_new(),
            cancelled: Notify::const_new(),
        }
    }

    /// Waits until the tool started.
    async fn started(&self) {
        tokio::time::timeout(PATIENCE, self.started.notified())
            .await
            .expect("the tool starts");
    }

    /// Waits until the tool's spawned work saw its cancellation.
    async fn cancelled(&self, how: &str) {
        tokio::time::timeout(PATIENCE, self.cancelled.notified())
            .await
            .unwrap_or_else(|_| panic!("{how}: the handler's Cancellation never fired"));
    }
}

/// Hands `cancel` to spawned work that reports when it fires (as a handler's
/// background work would stop), says it started, and waits forever.
async fn linger(cancel: Cancellation, signals: &'static Signals) -> String {
    tokio::spawn(async move {
        cancel.cancelled().await;
        signals.cancelled.notify_one();
    });
    signals.started.notify_one();
    std::future::pending::<()>().await;
    "never".to_string()
}

static ESCALATING_CANCELLED: Signals = Signals::new();
static ESCALATING_DISCONNECTED: Signals = Signals::new();
static PLAIN_CANCELLED: Signals = Signals::new();
static PLAIN_CLOSED: Signals = Signals::new();
static PLAIN_DISCONNECTED: Signals = Signals::new();
static ASKING_ENDED: Signals = Signals::new();

/// Runs within the request (it could escalate there, and never does).
#[holon_tool(family = CoreAgent, task = required)]
async fn escalating_linger(_task: TaskEscalation, cancel: Cancellation) -> String {
    linger(cancel, &ESCALATING_CANCELLED).await
}

/// Runs within the request (it could escalate there, and never does).
#[holon_tool(family = CoreAgent, task = required)]
async fn escalating_linger_http(_task: TaskEscalation, cancel: Cancellation) -> String {
    linger(cancel, &ESCALATING_DISCONNECTED).await
}

/// Never a task.
#[holon_tool(family = CoreAgent)]
async fn plain_linger(cancel: Cancellation) -> String {
    linger(cancel, &PLAIN_CANCELLED).await
}

/// Never a task.
#[holon_tool(family = CoreAgent)]
async fn plain_linger_closed(cancel: Cancellation) -> String {
    linger(cancel, &PLAIN_CLOSED).await
}

/// Never a task.
#[holon_tool(family = CoreAgent)]
async fn plain_linger_http(cancel: Cancellation) -> String {
    linger(cancel, &PLAIN_DISCONNECTED).await
}

/// Asks within the request before it would escalate; its spawned work reports
/// when its cancellation fires.
#[holon_tool(family = CoreAgent, task = required)]
async fn asking_before_escalation(
    elicitation: Elicitation,
    _task: TaskEscalation,
    cancel: Cancellation,
) -> Result<String, ToolError> {
    tokio::spawn(async move {
        cancel.cancelled().await;
        ASKING_ENDED.cancelled.notify_one();
    });
    let schema = json!({ "type": "object", "properties": {} });
    let Value::Object(schema) = schema else {
        unreachable!("an object literal")
    };
    elicitation.ask("Go on?", schema).await?;
    Ok("asked".to_string())
}

/// A client on a pipe to `server`.
struct Client {
    writer: WriteHalf<DuplexStream>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    next_id: u64,
}

const TASKS: &str = "io.modelcontextprotocol/tasks";

impl Client {
    /// A session with `server`, initialized by a client of `capabilities`.
    async fn start(server: McpServer, capabilities: Value) -> Self {
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(tokio::io::split(theirs)).await {
                let _ = running.waiting().await;
            }
        });
        let (reader, writer) = tokio::io::split(ours);
        let mut client = Self {
            writer,
            lines: BufReader::new(reader).lines(),
            next_id: 0,
        };
        let initialize = holon_test_support::initialize::Client::new("tasks-test")
            .version("1")
            .capabilities(capabilities)
            .initialize(0);
        let init = client
            .request("initialize", initialize["params"].clone())
            .await;
        assert!(init.get("result").is_some(), "initialize: {init}");
        client
            .send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
            .await;
        client
    }

    /// A client of MCP 2026-07-28 (stateless: no `initialize`), each request's
    /// `_meta` declaring `capabilities`.
    async fn stateless(server: McpServer) -> Self {
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(tokio::io::split(theirs)).await {
                let _ = running.waiting().await;
            }
        });
        let (reader, writer) = tokio::io::split(ours);
        Self {
            writer,
            lines: BufReader::new(reader).lines(),
            next_id: 0,
        }
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.writer.write_all(line.as_bytes()).await.unwrap();
    }

    /// The response to a `method` request with `params` (its `result` or `error`).
    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
            .await;
        loop {
            let line = tokio::time::timeout(PATIENCE, self.lines.next_line())
                .await
                .expect("the server answers")
                .unwrap()
                .expect("the server keeps the pipe open");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == json!(id) && message.get("method").is_none() {
                return message;
            }
        }
    }

    async fn call(&mut self, tool: &str) -> Value {
        self.request("tools/call", json!({ "name": tool, "arguments": {} }))
            .await
    }

    async fn task(&mut self, id: &str) -> Value {
        let answer = self.request("tasks/get", json!({ "taskId": id })).await;
        answer["result"].clone()
    }

    /// Polls the task until `done` says so.
    async fn poll_until(&mut self, id: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let task = self.task(id).await;
            if done(&task) {
                return task;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "task never got there: {task}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

fn server() -> McpServer {
    let registry = Registry::of_module(module_path!()).expect("the tools are valid");
    McpServer::new(registry, holon_mcp::server_info!())
}

fn with_tasks() -> Value {
    json!({ "extensions": { TASKS: {} }, "elicitation": {} })
}

fn task_id(answer: &Value) -> String {
    assert_eq!(
        answer["result"]["resultType"], "task",
        "a task handle: {answer}"
    );
    answer["result"]["taskId"]
        .as_str()
        .expect("a task id")
        .to_string()
}

#[tokio::test]
async fn a_required_task_tool_is_refused_to_a_client_without_the_extension() {
    let mut client = Client::start(server(), json!({})).await;
    let answer = client.call("GatedJob").await;
    assert_eq!(answer["error"]["code"], -32021, "{answer}");
    assert_eq!(
        answer["error"]["data"]["requiredCapabilities"]["extensions"][TASKS],
        json!({})
    );
    assert_eq!(GATED_RUNS.load(Ordering::SeqCst), 0, "the tool never ran");
    // With the extension, it runs as a task.
    let mut client = Client::start(server(), with_tasks()).await;
    let id = task_id(&client.call("GatedJob").await);
    let done = client
        .poll_until(&id, |task| task["status"] == "completed")
        .await;
    assert_eq!(done["result"]["structuredContent"]["result"], "ran");
}

#[tokio::test]
async fn an_optional_task_tool_runs_within_the_request_for_a_client_without_the_extension() {
    let mut client = Client::start(server(), json!({})).await;
    let answer = client.call("QuickJob").await;
    assert_eq!(
        answer["result"]["structuredContent"]["result"], "inline",
        "{answer}"
    );
    assert!(answer["result"].get("taskId").is_none());
    // Nor are the tasks methods open to it.
    let answer = client
        .request("tasks/get", json!({ "taskId": "any" }))
        .await;
    assert_eq!(answer["error"]["code"], -32021, "{answer}");
    // A client with the extension gets a task of the same tool.
    let mut client = Client::start(server(), with_tasks()).await;
    let id = task_id(&client.call("QuickJob").await);
    let done = client
        .poll_until(&id, |task| task["status"] == "completed")
        .await;
    assert_eq!(done["result"]["structuredContent"]["result"], "inline");
}

#[tokio::test]
async fn a_task_is_stored_and_answered_before_its_tool_ends_and_polled_to_its_result() {
    let mut client = Client::start(server(), with_tasks()).await;
    let answer = client.call("HeldJob").await;
    let id = task_id(&answer);
    // The tool is still waiting for its release: the handle came first.
    assert_eq!(answer["result"]["status"], "working");
    assert!(
        answer["result"]["createdAt"]
            .as_str()
            .is_some_and(|at| at.ends_with('Z'))
    );
    assert!(
        answer["result"]["ttlMs"]
            .as_u64()
            .is_some_and(|ttl| ttl > 0)
    );
    let task = client.task(&id).await;
    assert_eq!(
        (task["taskId"].as_str(), task["status"].as_str()),
        (Some(&*id), Some("working"))
    );
    assert_eq!(task["resultType"], "complete");
    assert!(task.get("result").is_none());
    RELEASE_HELD.notify_one();
    let done = client
        .poll_until(&id, |task| task["status"] == "completed")
        .await;
    assert_eq!(
        done["result"]["structuredContent"]["result"], "released",
        "{done}"
    );
    assert_eq!(done["result"]["isError"], false);
    // The v1 method that fetched a result is gone in the extension.
    let removed = client
        .request("tasks/result", json!({ "taskId": id }))
        .await;
    assert_eq!(removed["error"]["code"], -32601, "{removed}");
}

#[tokio::test]
async fn cancelling_a_task_fires_its_tools_cancellation_and_the_status_says_cancelled() {
    let mut client = Client::start(server(), with_tasks()).await;
    let started = CANCEL_STARTED.notified();
    let id = task_id(&client.call("EndlessJob").await);
    tokio::time::timeout(PATIENCE, started)
        .await
        .expect("the tool starts");
    let seen = CANCEL_SEEN.notified();
    let ack = client
        .request("tasks/cancel", json!({ "taskId": id }))
        .await;
    assert_eq!(ack["result"], json!({ "resultType": "complete" }), "{ack}");
    tokio::time::timeout(PATIENCE, seen)
        .await
        .expect("the tool's cancellation fires");
    assert_eq!(client.task(&id).await["status"], "cancelled");
    // Cancelling an ended task changes nothing and is acknowledged the same.
    let again = client
        .request("tasks/cancel", json!({ "taskId": id }))
        .await;
    assert_eq!(again["result"], json!({ "resultType": "complete" }));
    assert_eq!(client.task(&id).await["status"], "cancelled");
}

#[tokio::test]
async fn a_tool_that_asks_the_client_parks_its_task_as_input_required_until_answered() {
    let mut client = Client::start(server(), with_tasks()).await;
    let id = task_id(&client.call("AskingJob").await);
    let parked = client
        .poll_until(&id, |task| task["status"] == "input_required")
        .await;
    let requests = parked["inputRequests"].as_object().expect("input requests");
    assert_eq!(requests.len(), 1, "{parked}");
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "Go ahead?");
    let mut responses = Map::new();
    responses.insert(
        key.clone(),
        json!({ "action": "accept", "content": { "confirm": true } }),
    );
    let ack = client
        .request(
            "tasks/update",
            json!({ "taskId": id, "inputResponses": responses }),
        )
        .await;
    assert_eq!(ack["result"], json!({ "resultType": "complete" }), "{ack}");
    let done = client
        .poll_until(&id, |task| task["status"] == "completed")
        .await;
    assert_eq!(
        done["result"]["structuredContent"]["result"],
        r#"confirmed: {"confirm":true}"#
    );
}

#[tokio::test]
async fn an_unknown_task_id_is_the_typed_invalid_params_error() {
    let mut client = Client::start(server(), with_tasks()).await;
    for method in ["tasks/get", "tasks/cancel"] {
        let answer = client
            .request(method, json!({ "taskId": "no-such-task" }))
            .await;
        assert_eq!(answer["error"]["code"], -32602, "{method}: {answer}");
        assert_eq!(answer["error"]["data"]["kind"], "unknown_task");
    }
    let answer = client
        .request(
            "tasks/update",
            json!({ "taskId": "no-such-task", "inputResponses": {} }),
        )
        .await;
    assert_eq!(answer["error"]["data"]["kind"], "unknown_task", "{answer}");
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn a_task_is_on_disk_before_its_handle_is_answered() {
    use std::sync::Arc;

    use holon_mcp::tasks::{SqliteTaskStore, TaskState, TaskStore};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.db");
    let store = SqliteTaskStore::open(&path).unwrap();
    let mut client = Client::start(server().with_task_store(Arc::new(store)), with_tasks()).await;
    let id = task_id(&client.call("DurableJob").await);
    // Another connection to the file (as a restarted server would open it).
    let reopened = SqliteTaskStore::open(&path).unwrap();
    let record = reopened.get(&id).unwrap().expect("the task is on disk");
    assert_eq!(
        (record.tool.as_str(), &record.state),
        ("DurableJob", &TaskState::Working)
    );
    client
        .request("tasks/cancel", json!({ "taskId": id }))
        .await;
    let record = reopened.get(&id).unwrap().expect("still there");
    assert_eq!(record.state, TaskState::Cancelled);
}

#[test]
fn the_mcp_export_names_each_tools_task_support() {
    let registry = Registry::of_module(module_path!()).expect("the tools are valid");
    let tool = |name: &str| holon_export::mcp::tool(registry.get(name).expect("declared"));
    assert_eq!(
        tool("GatedJob")["execution"],
        json!({ "taskSupport": "required" })
    );
    assert_eq!(
        tool("HeldJob")["execution"],
        json!({ "taskSupport": "optional" })
    );
    assert!(
        tool("PlainJob").get("execution").is_none(),
        "the default is left out"
    );
}

/// The `_meta` of a 2026-07-28 request from a client of `capabilities`.
fn stateless_meta(capabilities: &Value) -> Value {
    holon_test_support::initialize::Client::new("tasks-test")
        .version("1")
        .capabilities(capabilities.clone())
        .stateless_meta()
}

#[tokio::test]
async fn a_task_that_gathers_input_first_asks_in_rounds_then_answers_with_its_handle() {
    let capabilities = with_tasks();
    let meta = stateless_meta(&capabilities);
    let mut client = Client::stateless(server()).await;
    let call = |more: Value| {
        let mut params = json!({ "name": "NamingJob", "arguments": {}, "_meta": meta });
        if let (Some(params), Value::Object(more)) = (params.as_object_mut(), more) {
            params.extend(more);
        }
        params
    };
    // Round 1: the question, within the request; no task yet.
    let round = client.request("tools/call", call(json!({}))).await;
    let result = &round["result"];
    assert_eq!(result["resultType"], "input_required", "{round}");
    assert!(result.get("taskId").is_none(), "{round}");
    let request = &result["inputRequests"]["user_name"];
    assert_eq!(request["method"], "elicitation/create", "{round}");
    assert_eq!(request["params"]["message"], "Your name?");
    // Round 2: answered, the handler escalates: the answer is the task's handle,
    // without the rounds' state.
    let answered = json!({
        "inputResponses": { "user_name": { "action": "accept", "content": { "name": "Alice" } } },
        "requestState": result["requestState"],
    });
    let answer = client.request("tools/call", call(answered)).await;
    let id = task_id(&answer);
    assert!(answer["result"].get("requestState").is_none(), "{answer}");
    assert!(answer["result"].get("inputRequests").is_none(), "{answer}");
    // In the task, the handler's next question parks it as input_required.
    let get = |id: &str| json!({ "taskId": id, "_meta": meta });
    let parked = loop {
        let task = client.request("tasks/get", get(&id)).await["result"].clone();
        if task["status"] == "input_required" {
            break task;
        }
        assert_eq!(task["status"], "working", "{task}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let requests = parked["inputRequests"].as_object().expect("input requests");
    let (key, request) = requests.iter().next().expect("one request");
    assert_eq!(request["params"]["message"], "Your name, again?");
    let mut responses = Map::new();
    responses.insert(
        key.clone(),
        json!({ "action": "accept", "content": { "name": "Bob" } }),
    );
    let ack = client
        .request(
            "tasks/update",
            json!({ "taskId": id, "inputResponses": responses, "_meta": meta }),
        )
        .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let done = loop {
        let task = client.request("tasks/get", get(&id)).await["result"].clone();
        if task["status"] != "working" && task["status"] != "input_required" {
            break task;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["structuredContent"]["result"],
        "hello Alice and Bob"
    );
}

#[tokio::test]
async fn under_2026_07_28_a_task_tool_without_escalation_is_a_task_even_when_done_at_once() {
    let meta = stateless_meta(&with_tasks());
    let mut client = Client::stateless(server()).await;
    let params = json!({ "name": "QuickJob", "arguments": {}, "_meta": meta });
    let id = task_id(&client.request("tools/call", params).await);
    let get = json!({ "taskId": id, "_meta": meta });
    let task = loop {
        let task = client.request("tasks/get", get.clone()).await["result"].clone();
        if task["status"] != "working" {
            break task;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(task["result"]["structuredContent"]["result"], "inline");
}

/// Sends a 2026-07-28 `tools/call` of `tool` over HTTP to `addr` and hangs up once
/// the tool has started (as a client that gives up on the request does).
async fn call_and_hang_up(addr: std::net::SocketAddr, tool: &str, signals: &Signals) {
    use tokio::io::AsyncWriteExt as _;
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": tool, "arguments": {}, "_meta": stateless_meta(&with_tasks()) },
    })
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\naccept: application/json, text/event-stream\r\n\
         content-type: application/json\r\nmcp-protocol-version: 2026-07-28\r\n\
         mcp-method: tools/call\r\nmcp-name: {tool}\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    signals.started().await;
    drop(stream);
}

/// A server of this file's tools on streamable HTTP, without a token (loopback).
async fn http_server() -> std::net::SocketAddr {
    support::serve_without_token(server()).await
}

/// The server still answers a 2026-07-28 request over HTTP.
async fn still_serves(addr: std::net::SocketAddr) {
    let meta = stateless_meta(&json!({}));
    let body = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "QuickJob", "arguments": {}, "_meta": meta },
    });
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "QuickJob"),
    ];
    let (status, _, answer) = support::send(addr, Method::POST, &headers, Some(&body)).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["result"]["structuredContent"]["result"], "inline");
}

#[tokio::test]
async fn a_call_cancelled_while_it_runs_within_the_request_before_its_task_fires_its_cancellation()
{
    let meta = stateless_meta(&with_tasks());
    let mut client = Client::stateless(server()).await;
    let params = json!({ "name": "EscalatingLinger", "arguments": {}, "_meta": meta });
    client
        .send(json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params }))
        .await;
    ESCALATING_CANCELLED.started().await;
    client
        .send(json!({
            "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": { "requestId": 7, "reason": "the user gave up" },
        }))
        .await;
    ESCALATING_CANCELLED
        .cancelled("notifications/cancelled")
        .await;
}

#[tokio::test]
async fn a_call_within_the_request_before_its_task_whose_client_hangs_up_fires_its_cancellation() {
    let addr = http_server().await;
    call_and_hang_up(addr, "EscalatingLingerHttp", &ESCALATING_DISCONNECTED).await;
    ESCALATING_DISCONNECTED
        .cancelled("the connection closed")
        .await;
    still_serves(addr).await;
}

#[tokio::test]
async fn a_call_whose_request_ends_in_an_input_round_before_its_task_fires_its_cancellation() {
    let meta = stateless_meta(&with_tasks());
    let mut client = Client::stateless(server()).await;
    let params = json!({ "name": "AskingBeforeEscalation", "arguments": {}, "_meta": meta });
    let round = client.request("tools/call", params).await;
    assert_eq!(round["result"]["resultType"], "input_required", "{round}");
    // The round's answer ended the request, and with it this run of the handler.
    ASKING_ENDED.cancelled("the input round").await;
}

#[tokio::test]
async fn a_call_that_is_no_task_is_cancelled_by_notifications_cancelled() {
    let mut client = Client::start(server(), json!({})).await;
    client
        .send(json!({
            "jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": { "name": "PlainLinger", "arguments": {} },
        }))
        .await;
    PLAIN_CANCELLED.started().await;
    client
        .send(json!({
            "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": { "requestId": 7 },
        }))
        .await;
    PLAIN_CANCELLED.cancelled("notifications/cancelled").await;
}

#[tokio::test]
async fn a_call_that_is_no_task_is_cancelled_when_its_stdio_client_goes_away() {
    let mut client = Client::start(server(), json!({})).await;
    client
        .send(json!({
            "jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": { "name": "PlainLingerClosed", "arguments": {} },
        }))
        .await;
    PLAIN_CLOSED.started().await;
    drop(client);
    // rmcp lets running handlers finish for a few seconds, then cancels them.
    PLAIN_CLOSED.cancelled("the pipe closed").await;
}

#[tokio::test]
async fn a_call_that_is_no_task_is_cancelled_when_its_stateless_http_client_hangs_up() {
    let addr = http_server().await;
    call_and_hang_up(addr, "PlainLingerHttp", &PLAIN_DISCONNECTED).await;
    PLAIN_DISCONNECTED.cancelled("the connection closed").await;
    still_serves(addr).await;
}
