//! A call approved out of band (`holon-tools approvals approve ID`) runs where it was
//! asked: in the runtime of the `serve` or `session` whose model asked, as its
//! principal, when the model makes the call again; never in the approving command,
//! whose background commands would die with it and where the model's tasks do not
//! exist. Each runs `serve` or `session` with the built-in policy, as a model meets it.

use std::io::Write;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::approvals::json_of;
use crate::cli_support::{holon, holon_command};
use crate::serve::{handshake, lines, send, spawn};

const TIMEOUT: Duration = Duration::from_secs(60);

/// How a model speaks to the process that runs its calls.
trait Model {
    /// Calls `name` with `arguments`; the result envelope as the model reads it.
    fn call(&mut self, name: &str, arguments: Value) -> Envelope;
}

/// The parts of a result every transport carries.
struct Envelope {
    /// The whole answer, for messages.
    raw: Value,
    /// The structured result.
    structured: Value,
    /// The deferral, when the call was asked.
    deferral: Option<Value>,
    /// The typed error's kind, when the call failed.
    error_kind: Option<String>,
}

/// `holon-tools serve` on stdio, to a client without elicitation.
struct Served {
    child: Child,
    stdin: ChildStdin,
    stdout: Receiver<String>,
    next_id: u64,
}

impl Served {
    fn start(workspace: &std::path::Path) -> Self {
        let mut child = spawn(workspace, &[]);
        let mut stdin = child.stdin.take().unwrap();
        let stdout = lines(child.stdout.take().unwrap());
        let answer = handshake(&mut stdin, &stdout);
        assert!(answer["result"].is_object(), "{answer}");
        Self {
            child,
            stdin,
            stdout,
            next_id: 100,
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Model for Served {
    fn call(&mut self, name: &str, arguments: Value) -> Envelope {
        let id = self.next_id;
        self.next_id += 1;
        send(
            &mut self.stdin,
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": { "name": name, "arguments": arguments }}),
        );
        let answer = loop {
            let line = self.stdout.recv_timeout(TIMEOUT).expect("serve answers");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                break message;
            }
        };
        let result = &answer["result"];
        Envelope {
            structured: result["structuredContent"].clone(),
            deferral: result["_meta"].get("holon/deferral").cloned(),
            error_kind: result["_meta"]["holon/error"]["kind"]
                .as_str()
                .map(str::to_string),
            raw: answer,
        }
    }
}

/// `holon-tools session` off a terminal: one call a line in, one envelope a line out.
struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: Receiver<String>,
}

impl Session {
    fn start(workspace: &std::path::Path) -> Self {
        let mut child = holon_command(workspace)
            .arg("session")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = lines(child.stdout.take().unwrap());
        Self {
            child,
            stdin,
            stdout,
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Model for Session {
    fn call(&mut self, name: &str, arguments: Value) -> Envelope {
        writeln!(
            self.stdin,
            "{}",
            json!({ "name": name, "input": arguments })
        )
        .unwrap();
        self.stdin.flush().unwrap();
        let line = self.stdout.recv_timeout(TIMEOUT).expect("session answers");
        let envelope: Value = serde_json::from_str(&line).unwrap();
        Envelope {
            structured: envelope["structured"].clone(),
            deferral: envelope.get("deferral").cloned(),
            error_kind: envelope["error"]["kind"].as_str().map(str::to_string),
            raw: envelope,
        }
    }
}

/// The model calls `name`; the policy asks; the operator approves with `holon-tools
/// approvals approve`, which exits; the model makes the same call again, and that
/// call's envelope is returned. Also returns the approval as stored once decided.
fn asked_approved_and_retried(
    workspace: &std::path::Path,
    model: &mut dyn Model,
    name: &str,
    arguments: Value,
) -> (Envelope, Value) {
    let asked = model.call(name, arguments.clone());
    let deferral = asked
        .deferral
        .unwrap_or_else(|| panic!("the built-in policy asks before {name}: {}", asked.raw));
    assert_eq!(deferral["kind"], "approval_required", "{deferral}");
    let id = deferral["approval_id"].as_str().unwrap().to_string();

    let approved = holon(workspace, &["approvals", "approve", &id]);
    let printed = String::from_utf8_lossy(&approved.stdout);
    assert!(
        approved.status.success(),
        "{printed}{}",
        String::from_utf8_lossy(&approved.stderr)
    );
    assert!(
        printed.contains("runs when the model makes the same call again"),
        "{printed}"
    );
    let waiting = json_of(&holon(workspace, &["approvals", "show", &id, "--json"]));
    assert_eq!(waiting["state"], "pending", "nothing ran yet: {waiting}");
    assert_eq!(waiting["approval"]["approve"], true, "{waiting}");

    let ran = model.call(name, arguments);
    assert!(ran.deferral.is_none(), "the retry ran: {}", ran.raw);
    let decided = json_of(&holon(workspace, &["approvals", "show", &id, "--json"]));
    assert_eq!(decided["state"], "approved", "{decided}");
    (ran, decided)
}

/// Starts an interactive `sh` for `model`, approved out of band; its task id.
fn approved_shell(workspace: &std::path::Path, model: &mut dyn Model) -> String {
    let start = json!({"cmd": "sh", "accepts_input": true, "yield_time_ms": 0});
    let (started, _) = asked_approved_and_retried(workspace, model, "ExecCommand", start);
    assert_eq!(
        started.structured["disposition"], "promoted_to_task",
        "{}",
        started.raw
    );
    started.structured["task_handle"]["task_id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Types a command into the model's shell `task_id`, approved out of band, and waits
/// (bounded) until the shell printed what only that command prints.
fn typed_into_own_shell(workspace: &std::path::Path, model: &mut dyn Model, task_id: &str) {
    let input = json!({"task_id": task_id, "input": "echo typed-$((6 * 7))\n"});
    let (typed, decided) = asked_approved_and_retried(workspace, model, "TaskInput", input);
    // A task belongs to the principal who started it: only the model's own runtime,
    // as the model's principal, finds it (elsewhere it is `unknown_task`).
    assert_eq!(typed.error_kind, None, "{}", typed.raw);
    assert_eq!(typed.structured["accepted_input"], true, "{}", typed.raw);
    // The run is recorded on the approval: the model's call ran it, accepted.
    assert_eq!(decided["outcome"]["status"], "success", "{decided}");
    assert_eq!(
        decided["outcome"]["structured"]["accepted_input"], true,
        "{decided}"
    );

    let deadline = Instant::now() + TIMEOUT;
    let mut seen = String::new();
    while !seen.contains("typed-42") {
        assert!(Instant::now() < deadline, "no typed-42 in {seen}");
        let output = model.call(
            "TaskOutput",
            json!({"task_id": task_id, "timeout_ms": 1000}),
        );
        seen.push_str(output.structured["output"]["stdout"].as_str().unwrap_or(""));
    }
    let stopped = model.call("TaskStop", json!({"task_id": task_id}));
    assert_eq!(stopped.structured["stopped"], true, "{}", stopped.raw);
}

#[test]
fn a_background_command_approved_out_of_band_runs_in_serve_and_outlives_the_approval() {
    let workspace = tempfile::tempdir().unwrap();
    let ws = workspace.path();
    let mut served = Served::start(ws);
    let command = json!({"cmd": "sleep 30; echo done", "yield_time_ms": 0});
    let (started, _) = asked_approved_and_retried(ws, &mut served, "ExecCommand", command);
    assert_eq!(
        started.structured["disposition"], "promoted_to_task",
        "{}",
        started.raw
    );
    let task_id = started.structured["task_handle"]["task_id"]
        .as_str()
        .unwrap()
        .to_string();

    // `approvals approve` has exited; the task lives in the server, for its model.
    let output = served.call("TaskOutput", json!({"task_id": task_id, "block": false}));
    assert_eq!(output.error_kind, None, "{}", output.raw);
    assert_eq!(
        output.structured["task"]["status"], "running",
        "{}",
        output.raw
    );
    let stopped = served.call("TaskStop", json!({"task_id": task_id}));
    assert_eq!(stopped.structured["stopped"], true, "{}", stopped.raw);
    let output = served.call("TaskOutput", json!({"task_id": task_id, "block": false}));
    assert_eq!(
        output.structured["task"]["status"], "stopped",
        "{}",
        output.raw
    );
}

#[test]
fn task_input_approved_out_of_band_reaches_the_models_own_shell_in_serve() {
    let workspace = tempfile::tempdir().unwrap();
    let ws = workspace.path();
    let mut served = Served::start(ws);
    let task_id = approved_shell(ws, &mut served);
    typed_into_own_shell(ws, &mut served, &task_id);
}

#[test]
fn task_input_approved_out_of_band_reaches_the_models_own_shell_in_a_session() {
    let workspace = tempfile::tempdir().unwrap();
    let ws = workspace.path();
    let mut session = Session::start(ws);
    let task_id = approved_shell(ws, &mut session);
    typed_into_own_shell(ws, &mut session, &task_id);
}

#[test]
fn two_identical_retries_of_one_approved_call_run_it_once() {
    let workspace = tempfile::tempdir().unwrap();
    let ws = workspace.path();
    let ran = ws.join("ran");
    let command = json!({"cmd": format!("echo once >> {}", ran.display())});
    let mut first = Served::start(ws);
    let mut second = Served::start(ws);
    let asked = first.call("ExecCommand", command.clone());
    let id = asked.deferral.expect("asked")["approval_id"]
        .as_str()
        .unwrap()
        .to_string();
    // Two servers on one state directory and workspace: the same principal asks the
    // same call, which binds to the same pending approval.
    let again = second.call("ExecCommand", command.clone());
    assert_eq!(again.deferral.expect("asked")["approval_id"], id.as_str());
    let approved = holon(ws, &["approvals", "approve", &id]);
    assert!(approved.status.success(), "{approved:?}");
    let replayed = holon(ws, &["approvals", "approve", &id]);
    assert!(!replayed.status.success(), "an approval is stored once");
    assert!(
        String::from_utf8_lossy(&replayed.stderr).contains("approval_already_decided"),
        "{replayed:?}"
    );

    // Both retry at once: one claims the approval and runs it; the other is told.
    let (one, other) = std::thread::scope(|scope| {
        let one = scope.spawn(|| first.call("ExecCommand", command.clone()));
        let other = scope.spawn(|| second.call("ExecCommand", command.clone()));
        (one.join().unwrap(), other.join().unwrap())
    });
    let answers = [&one, &other];
    let ran_here = answers
        .iter()
        .filter(|answer| answer.error_kind.is_none() && answer.deferral.is_none())
        .count();
    assert_eq!(ran_here, 1, "{} / {}", one.raw, other.raw);
    let told = answers.iter().any(|answer| {
        answer.error_kind.as_deref() == Some("approval_already_decided")
            || answer
                .deferral
                .as_ref()
                .is_some_and(|d| d["approval_id"] != id.as_str())
    });
    assert!(told, "{} / {}", one.raw, other.raw);
    assert_eq!(std::fs::read_to_string(&ran).unwrap(), "once\n");
}
