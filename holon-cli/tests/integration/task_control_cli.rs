//! The task control plane through the `holon-tools` binary: `call` and `session`.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::cli_support::{holon, holon_command};
use serde_json::Value;

/// A session fed by the test, under no approval policy: its subject is task control.
fn session(workspace: &Path) -> std::process::Child {
    holon_command(workspace)
        .args(["--policy", "none", "session"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap()
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Whether no process has this id now (a zombie counts as gone).
fn gone_now(pid: u64) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat[stat.rfind(')').unwrap() + 2..].starts_with('Z'),
    }
}

/// Waits (bounded) until no process has this id. A zombie waiting for init to reap
/// it counts as gone: nothing runs any more, and it is not this test's child.
fn gone(pid: u64) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return true;
        };
        if stat[stat.rfind(')').unwrap() + 2..].starts_with('Z') {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn call_prints_the_exit_code_then_stdout_then_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let output = holon(
        dir.path(),
        &[
            "call",
            "ExecCommand",
            r#"{"cmd": "echo hello; echo oops >&2; exit 4"}"#,
        ],
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "the tool call itself succeeded"
    );
    let receipt = String::from_utf8_lossy(&output.stdout);
    assert!(receipt.starts_with("exit code 4 after "), "{receipt}");
    let stdout = receipt.find("stdout:\nhello").unwrap();
    let stderr = receipt.find("stderr:\noops").unwrap();
    assert!(stdout < stderr, "{receipt}");
    let output = holon(
        dir.path(),
        &[
            "call",
            "ExecCommand",
            r#"{"cmd": "seq 1 100000", "max_output_tokens": 50}"#,
        ],
    );
    let receipt = String::from_utf8_lossy(&output.stdout);
    assert!(receipt.contains("bytes of stdout cut here"), "{receipt}");
    assert!(
        receipt.contains(".holon/tasks/task-2/stdout.log"),
        "a cut receipt says where the whole output is: {receipt}"
    );

    let output = holon(
        dir.path(),
        &["call", "ExecCommand", r#"{"cmd": "true", "items": []}"#],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stdout).contains("unknown_field"));
}

#[test]
fn a_task_promoted_by_call_is_not_left_running_when_the_call_exits() {
    let dir = tempfile::tempdir().unwrap();
    let output = holon(
        dir.path(),
        &[
            "call",
            "ExecCommand",
            r#"{"cmd": "sleep 300", "yield_time_ms": 0}"#,
            "--json",
        ],
    );
    let envelope = json(&output);
    assert_eq!(envelope["structured"]["disposition"], "promoted_to_task");
    let output = holon(dir.path(), &["call", "ListTasks", "{}", "--json"]);
    let task = &json(&output)["structured"]["tasks"][0];
    assert_eq!(task["status"], "interrupted", "{task}");
    assert!(gone(task["pid"].as_u64().unwrap()));
}

#[test]
fn a_session_runs_controls_and_stops_tasks() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = session(dir.path());
    {
        let stdin = child.stdin.as_mut().unwrap();
        for line in [
            r#"{"name": "ExecCommand", "input": {"cmd": "sleep 300", "yield_time_ms": 0}}"#,
            r#"{"name": "TaskList", "input": {}}"#,
            r#"{"name": "TaskStop", "input": {"task_id": "task-1"}}"#,
            r#"{"name": "TaskStatus", "input": {"task_id": "task-1"}}"#,
        ] {
            writeln!(stdin, "{line}").unwrap();
        }
    }
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let lines: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["structured"]["task_handle"]["task_id"], "task-1");
    assert_eq!(lines[1]["tool_name"], "ListTasks");
    assert_eq!(lines[1]["structured"]["tasks"][0]["status"], "running");
    assert_eq!(lines[2]["structured"]["stopped"], true);
    assert_eq!(lines[3]["structured"]["task"]["status"], "stopped");
    let pid = lines[3]["structured"]["task"]["pid"].as_u64().unwrap();
    assert!(gone(pid));
}

/// Starts `sleep 300` as a background task of a `holon-tools session` on `dir`, then
/// kills that runtime with SIGKILL: it cannot shut anything down. Returns the task's
/// process group id.
fn background_sleep_then_kill_the_runtime(dir: &Path) -> u64 {
    let mut child = session(dir);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    writeln!(
        stdin,
        r#"{{"name": "ExecCommand", "input": {{"cmd": "sleep 300", "yield_time_ms": 0}}}}"#
    )
    .unwrap();
    writeln!(
        stdin,
        r#"{{"name": "TaskStatus", "input": {{"task_id": "task-1"}}}}"#
    )
    .unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    line.clear();
    stdout.read_line(&mut line).unwrap();
    let status: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        status["structured"]["task"]["status"], "running",
        "{status}"
    );
    let pid = status["structured"]["task"]["pid"].as_u64().unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    pid
}

fn kill_group(pgid: u64) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .status();
}

#[test]
fn a_task_whose_runtime_was_killed_keeps_running_and_the_next_runtime_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    let pid = background_sleep_then_kill_the_runtime(dir.path());
    let output = holon(
        dir.path(),
        &["call", "TaskStatus", r#"{"task_id": "task-1"}"#, "--json"],
    );
    let task = json(&output)["structured"]["task"].clone();
    let alive_after_reopen = !gone_now(pid);
    let output = holon(
        dir.path(),
        &["call", "TaskStop", r#"{"task_id": "task-1"}"#, "--json"],
    );
    let stop = json(&output)["structured"].clone();
    let stopped_by_it = gone(pid);
    // Clean up whatever is left before asserting.
    kill_group(pid);
    assert!(
        alive_after_reopen,
        "the runtime's end killed nothing: {task}"
    );
    assert_eq!(task["status"], "running", "{task}");
    assert!(
        task["reason"]
            .as_str()
            .unwrap()
            .contains("TaskStop ends it"),
        "{task}"
    );
    assert_eq!(stop["stopped"], true, "{stop}");
    assert_eq!(stop["task"]["status"], "stopped", "{stop}");
    assert!(stopped_by_it, "TaskStop killed its process group");
}

#[test]
fn a_task_of_a_killed_runtime_whose_process_is_gone_is_reported_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let pid = background_sleep_then_kill_the_runtime(dir.path());
    kill_group(pid);
    assert!(gone(pid));
    let output = holon(
        dir.path(),
        &["call", "TaskStatus", r#"{"task_id": "task-1"}"#, "--json"],
    );
    let task = &json(&output)["structured"]["task"];
    assert_eq!(task["status"], "interrupted", "{task}");
    assert!(
        task["reason"]
            .as_str()
            .unwrap()
            .contains("its process is gone"),
        "{task}"
    );
    let output = holon(
        dir.path(),
        &["call", "TaskStop", r#"{"task_id": "task-1"}"#, "--json"],
    );
    let stop = &json(&output)["structured"];
    assert_eq!(stop["stopped"], false, "{stop}");
    assert!(
        stop["reason"].as_str().unwrap().contains("already ended"),
        "{stop}"
    );
}

#[test]
fn a_runtime_that_found_a_lost_task_running_sees_it_end() {
    let dir = tempfile::tempdir().unwrap();
    let pid = background_sleep_then_kill_the_runtime(dir.path());
    let mut child = session(dir.path());
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |line: &str| {
        writeln!(stdin, "{line}").unwrap();
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
        serde_json::from_str::<Value>(&answer).unwrap()
    };
    let before = ask(r#"{"name": "ListTasks", "input": {}}"#);
    kill_group(pid);
    let ended = gone(pid);
    let after = ask(r#"{"name": "ListTasks", "input": {}}"#);
    drop(stdin);
    child.wait().unwrap();
    assert!(ended);
    assert_eq!(
        before["structured"]["tasks"][0]["status"], "running",
        "{before}"
    );
    let task = &after["structured"]["tasks"][0];
    assert_eq!(task["status"], "interrupted", "{after}");
    assert!(
        task["reason"]
            .as_str()
            .unwrap()
            .contains("its process is gone"),
        "{task}"
    );
}
