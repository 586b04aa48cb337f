//! Cancelled, timed-out and dropped calls of the command tools leave no process
//! behind, and the command tools report progress: ExecCommand its output lines,
//! ExecCommandBatch its items.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use holon_core::{CancellationToken, FamilyPolicy, ProgressLog, Registry, ToolCall, ToolContext};
use holon_runtime::Runtime;
use serde_json::{Value, json};

use crate::task_support::{alive, gone, runtime, sleeper, written_pids};

async fn call_in(context: &ToolContext, name: &str, input: Value) -> Value {
    let result = Registry::global()
        .dispatch(context, ToolCall::new(name, input))
        .await;
    serde_json::to_value(&result).unwrap()
}

/// The pids a [`sleeper`] wrote, once it wrote them.
async fn pids_of(path: &Path) -> Vec<u64> {
    loop {
        if let Some(pids) = written_pids(path) {
            return pids;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn context(runtime: &Arc<Runtime>) -> ToolContext {
    runtime.context(FamilyPolicy::all())
}

/// Starts `name` with `input` under a fresh token; cancels it once the command wrote
/// its pids; returns the result and the pids.
async fn cancel_midway(
    runtime: &Arc<Runtime>,
    name: &str,
    input: Value,
    pids: &Path,
) -> (Value, Vec<u64>) {
    let token = CancellationToken::new();
    let context = context(runtime).with_cancellation(token.clone());
    let name = name.to_string();
    let call = tokio::spawn(async move { call_in(&context, &name, input).await });
    let pids = pids_of(pids).await;
    assert!(
        pids.iter().all(|pid| alive(*pid)),
        "running before the cancel"
    );
    token.cancel();
    (call.await.unwrap(), pids)
}

#[tokio::test]
async fn a_cancelled_exec_command_kills_its_process_group() {
    let (runtime, workspace) = runtime();
    let pids = workspace.path().join("pids");
    let input = json!({ "cmd": sleeper(&pids), "yield_time_ms": 600_000 });
    let (result, pids) = cancel_midway(&runtime, "ExecCommand", input, &pids).await;
    assert_eq!(result["error"]["kind"], "cancelled", "{result}");
    for pid in pids {
        assert!(gone(pid), "process {pid} survived the cancelled call");
    }
}

#[tokio::test]
async fn a_cancelled_batch_kills_the_running_item() {
    let (runtime, workspace) = runtime();
    let pids = workspace.path().join("pids");
    let input = json!({ "items": [{ "cmd": sleeper(&pids) }, { "cmd": "touch never" }] });
    let (result, pids) = cancel_midway(&runtime, "ExecCommandBatch", input, &pids).await;
    assert_eq!(result["error"]["kind"], "cancelled", "{result}");
    for pid in pids {
        assert!(gone(pid), "process {pid} survived the cancelled batch");
    }
    assert!(!workspace.path().join("never").exists());
}

#[tokio::test]
async fn a_dropped_exec_command_kills_its_process_group() {
    let (runtime, workspace) = runtime();
    let pids = workspace.path().join("pids");
    let context = context(&runtime);
    let input = json!({ "cmd": sleeper(&pids), "yield_time_ms": 600_000 });
    let pids = tokio::select! {
        result = call_in(&context, "ExecCommand", input) => panic!("ExecCommand returned {result}"),
        pids = pids_of(&pids) => pids,
    };
    for pid in pids {
        assert!(gone(pid), "process {pid} survived the dropped call");
    }
}

#[tokio::test]
async fn a_timed_out_exec_command_kills_its_process_group() {
    let (runtime, workspace) = runtime();
    let pids_path = workspace.path().join("pids");
    // The limit is the host's, far below the command's yield time.
    let context = context(&runtime).with_timeout(Duration::from_millis(300));
    let input = json!({ "cmd": sleeper(&pids_path), "yield_time_ms": 600_000 });
    let result = call_in(&context, "ExecCommand", input).await;
    assert_eq!(result["error"]["kind"], "tool_timed_out", "{result}");
    assert_eq!(result["error"]["retryable"], true, "{result}");
    // The command may not have got to write its pids within the limit.
    if let Ok(text) = std::fs::read_to_string(&pids_path) {
        for pid in text.split_whitespace() {
            assert!(
                gone(pid.parse().unwrap()),
                "process {pid} survived the timeout"
            );
        }
    }
}

#[tokio::test]
async fn a_command_handed_over_as_a_task_is_not_killed() {
    let (runtime, workspace) = runtime();
    let pids_path = workspace.path().join("pids");
    let token = CancellationToken::new();
    let context = context(&runtime).with_cancellation(token.clone());
    let input = json!({ "cmd": sleeper(&pids_path), "yield_time_ms": 0 });
    let result = call_in(&context, "ExecCommand", input).await;
    assert_eq!(
        result["structured"]["disposition"], "promoted_to_task",
        "{result}"
    );
    token.cancel();
    let pids = pids_of(&pids_path).await;
    assert!(pids.iter().all(|pid| alive(*pid)), "the task keeps running");
    let task_id = result["structured"]["task_handle"]["task_id"].clone();
    let stopped = call_in(&context, "TaskStop", json!({ "task_id": task_id })).await;
    assert_eq!(
        stopped["status"], "error",
        "a cancelled token refuses new calls: {stopped}"
    );
    let stopped = call_in(
        &runtime.context(FamilyPolicy::all()),
        "TaskStop",
        json!({ "task_id": task_id }),
    )
    .await;
    assert_eq!(stopped["status"], "success", "{stopped}");
    for pid in pids {
        assert!(gone(pid), "process {pid} survived TaskStop");
    }
}

#[tokio::test]
async fn exec_command_reports_its_output_lines() {
    let (runtime, _workspace) = runtime();
    let log = Arc::new(ProgressLog::default());
    let context = context(&runtime).with_progress(log.clone());
    let input = json!({ "cmd": "for i in 1 2 3 4 5; do echo line $i; done; echo oops >&2" });
    let result = call_in(&context, "ExecCommand", input).await;
    assert_eq!(result["structured"]["disposition"], "completed", "{result}");
    let reports = log.reports();
    assert!(!reports.is_empty(), "no progress reported");
    let counts: Vec<f64> = reports.iter().map(|report| report.progress).collect();
    assert!(
        counts.windows(2).all(|pair| pair[0] < pair[1]),
        "{reports:?}"
    );
    let last = reports.last().unwrap();
    assert_eq!(last.progress, 6.0, "{reports:?}");
    assert!(
        ["line 5", "oops"].contains(&last.message.as_deref().unwrap_or_default()),
        "{reports:?}"
    );
    for report in &reports {
        assert_eq!(report.total, None);
        let message = report.message.as_deref().unwrap();
        assert!(
            message.starts_with("line ") || message == "oops",
            "{message}"
        );
    }
}

#[tokio::test]
async fn exec_command_batch_reports_its_items() {
    let (runtime, _workspace) = runtime();
    let log = Arc::new(ProgressLog::default());
    let context = context(&runtime).with_progress(log.clone());
    let input = json!({ "items": [{ "cmd": "true" }, { "cmd": "false" }, { "cmd": "echo hi" }] });
    let result = call_in(&context, "ExecCommandBatch", input).await;
    assert_eq!(result["status"], "success", "{result}");
    let reports: Vec<(f64, Option<f64>, Option<String>)> = log
        .reports()
        .into_iter()
        .map(|report| (report.progress, report.total, report.message))
        .collect();
    let item = |done: f64, message: &str| (done, Some(3.0), Some(message.to_string()));
    assert_eq!(
        reports,
        vec![
            item(1.0, "item 0 completed: true"),
            item(2.0, "item 1 failed: false"),
            item(3.0, "item 2 completed: echo hi"),
        ]
    );
}

/// A server that takes one request and never answers; it reports when the request
/// arrived and when the client closed the connection.
async fn silent_server() -> (
    String,
    tokio::sync::oneshot::Receiver<()>,
    tokio::sync::oneshot::Receiver<()>,
) {
    use tokio::io::AsyncReadExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/slow", listener.local_addr().unwrap());
    let (arrived, arrived_rx) = tokio::sync::oneshot::channel();
    let (closed, closed_rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut request = Vec::new();
        let mut buffer = [0u8; 4096];
        while !request.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = socket.read(&mut buffer).await.unwrap();
            assert!(n > 0, "the client closed before sending its request");
            request.extend_from_slice(&buffer[..n]);
        }
        let _ = arrived.send(());
        // Only the client's close (end of file, or a reset) ends this read.
        while matches!(socket.read(&mut buffer).await, Ok(n) if n > 0) {}
        let _ = closed.send(());
    });
    (url, arrived_rx, closed_rx)
}

#[tokio::test]
async fn a_cancelled_web_fetch_closes_its_connection() {
    use holon_gates::net::PrivateAddresses;
    use holon_runtime::{RuntimeConfig, WebConfig};
    let dir = tempfile::tempdir().unwrap();
    let mut config = RuntimeConfig::in_memory(dir.path());
    config.web = WebConfig {
        private_addresses: PrivateAddresses::Allow,
        ..WebConfig::default()
    };
    let runtime = Runtime::open(config).unwrap();
    let (url, arrived, closed) = silent_server().await;
    let token = CancellationToken::new();
    let context = context(&runtime).with_cancellation(token.clone());
    let call =
        tokio::spawn(async move { call_in(&context, "WebFetch", json!({ "url": url })).await });
    arrived.await.expect("the request reaches the server");
    token.cancel();
    let result = call.await.unwrap();
    assert_eq!(result["error"]["kind"], "cancelled", "{result}");
    // Bounded only so that a regression fails instead of hanging the suite.
    tokio::time::timeout(Duration::from_secs(10), closed)
        .await
        .expect("the cancelled fetch closed its connection")
        .unwrap();
}

/// Runs `name` with `input` under a token cancelled once `ready` holds; the result.
async fn cancel_when(
    context: ToolContext,
    name: &'static str,
    input: Value,
    ready: impl Fn() -> bool,
) -> Value {
    let token = CancellationToken::new();
    let context = context.with_cancellation(token.clone());
    let call = tokio::spawn(async move { call_in(&context, name, input).await });
    while !ready() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    token.cancel();
    call.await.unwrap()
}

#[tokio::test]
async fn a_cancelled_sleep_and_a_cancelled_blocking_task_output_stop_waiting() {
    let (runtime, workspace) = runtime();
    // Sleep: the pause is dropped with the call (a ten-minute sleep ends at the cancel).
    let started = std::time::Instant::now();
    let result = cancel_when(
        context(&runtime),
        "Sleep",
        json!({ "duration_ms": 600_000 }),
        || started.elapsed() > Duration::from_millis(50),
    )
    .await;
    assert_eq!(result["error"]["kind"], "cancelled", "{result}");

    // TaskOutput with `block`: the wait ends, the task it waited on goes on.
    let pids_path = workspace.path().join("pids");
    let launched = call_in(
        &context(&runtime),
        "ExecCommand",
        json!({ "cmd": sleeper(&pids_path), "yield_time_ms": 0 }),
    )
    .await;
    let task_id = launched["structured"]["task_handle"]["task_id"].clone();
    let pids = pids_of(&pids_path).await;
    let waiting = json!({ "task_id": task_id, "block": true, "timeout_ms": 600_000 });
    let seen = std::time::Instant::now();
    let result = cancel_when(context(&runtime), "TaskOutput", waiting, || {
        seen.elapsed() > Duration::from_millis(50)
    })
    .await;
    assert_eq!(result["error"]["kind"], "cancelled", "{result}");
    assert!(
        pids.iter().all(|pid| alive(*pid)),
        "the task is not the call's"
    );
    let stopped = call_in(
        &context(&runtime),
        "TaskStop",
        json!({ "task_id": task_id }),
    )
    .await;
    assert_eq!(stopped["status"], "success", "{stopped}");
}
