//! An approval runs its call where it was asked only. Two workspaces share one state
//! directory (one store, one operator key); a call asked in workspace A through
//! `call`, `session` or `serve` and approved by `holon-tools approvals approve` run on
//! workspace B is refused and runs nowhere; approved on A, it runs in A when it is made
//! again there. A copy of the state directory (store and key) does not approve it
//! either.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::approvals::json_of;
use crate::cli_support::holon_command;
use crate::serve::{lines, send, spawn_stdio};

/// Asks before every command.
const ASK_COMMANDS: &str = r#"
[[rule]]
tool = "ExecCommand"
decision = "ask"
reason = "commands are the operator's"
"#;

/// The command asked: it leaves a file in the workspace it runs in.
const MARKER: &str = "approved-here";

/// Two workspaces on one state directory that asks before commands.
struct Shared {
    a: tempfile::TempDir,
    b: tempfile::TempDir,
    state: tempfile::TempDir,
}

impl Shared {
    fn new() -> Self {
        let state = tempfile::tempdir().unwrap();
        std::fs::write(state.path().join("policy.toml"), ASK_COMMANDS).unwrap();
        Self {
            a: tempfile::tempdir().unwrap(),
            b: tempfile::tempdir().unwrap(),
            state,
        }
    }

    /// `holon-tools` on `workspace` with the shared state directory.
    fn at(&self, workspace: &Path) -> Command {
        let mut command = holon_command(workspace);
        command.env("HOLON_HOME", self.state.path());
        command
    }

    /// `approvals approve ID --json` on `workspace` with the state directory `state`.
    fn approve(&self, workspace: &Path, state: &Path, id: &str) -> Output {
        let mut command = holon_command(workspace);
        command.env("HOLON_HOME", state);
        command
            .args(["approvals", "approve", id, "--json"])
            .output()
            .unwrap()
    }

    /// Approving `id` from B is refused, with a copy of the state directory too;
    /// from A it is approved, and runs nowhere until the call is made again.
    fn refused_elsewhere_and_approved_where_asked(&self, id: &str) {
        let from_b = self.approve(self.b.path(), self.state.path(), id);
        assert_eq!(from_b.status.code(), Some(2), "{from_b:?}");
        let stderr = String::from_utf8_lossy(&from_b.stderr);
        assert!(stderr.contains("approval_workspace_mismatch"), "{stderr}");
        assert!(stderr.contains("--workspace"), "the fix is named: {stderr}");
        assert!(!self.b.path().join(MARKER).exists(), "it ran in B");
        assert!(!self.a.path().join(MARKER).exists());

        let copy = tempfile::tempdir().unwrap();
        for entry in std::fs::read_dir(self.state.path()).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_file() {
                std::fs::copy(entry.path(), copy.path().join(entry.file_name())).unwrap();
            }
        }
        let copied = self.approve(self.a.path(), copy.path(), id);
        assert_eq!(copied.status.code(), Some(2), "{copied:?}");
        let stderr = String::from_utf8_lossy(&copied.stderr);
        assert!(stderr.contains("approval_state_dir_mismatch"), "{stderr}");
        assert!(!self.a.path().join(MARKER).exists(), "it ran with the copy");

        // Still pending: the operator approves it where it was asked.
        let here = self.approve(self.a.path(), self.state.path(), id);
        assert!(here.status.success(), "{here:?}");
        assert_eq!(json_of(&here)["approval"]["approve"], true, "{here:?}");
        assert!(
            !self.a.path().join(MARKER).exists(),
            "approving runs nothing"
        );
    }

    /// The approved call, made again, ran in A and nowhere else.
    fn ran_in_a_only(&self) {
        assert!(self.a.path().join(MARKER).exists(), "it did not run in A");
        assert!(!self.b.path().join(MARKER).exists(), "it ran in B");
    }
}

fn command_input() -> Value {
    json!({ "cmd": format!("touch {MARKER}") })
}

fn approval_id(deferral: &Value) -> String {
    assert_eq!(deferral["kind"], "approval_required", "{deferral}");
    deferral["approval_id"].as_str().unwrap().to_string()
}

#[test]
fn an_approval_asked_through_call_runs_in_its_own_workspace_only() {
    let shared = Shared::new();
    let call = || {
        shared
            .at(shared.a.path())
            .args([
                "call",
                "ExecCommand",
                &command_input().to_string(),
                "--json",
            ])
            .output()
            .unwrap()
    };
    let asked = call();
    assert!(asked.status.success(), "{asked:?}");
    let id = approval_id(&json_of(&asked)["deferral"]);
    shared.refused_elsewhere_and_approved_where_asked(&id);
    let ran = call();
    assert_eq!(json_of(&ran)["status"], "success", "{ran:?}");
    shared.ran_in_a_only();
}

#[test]
fn an_approval_asked_through_session_runs_in_its_own_workspace_only() {
    let shared = Shared::new();
    let mut child = shared
        .at(shared.a.path())
        .arg("session")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let line = json!({ "name": "ExecCommand", "input": command_input() });
    let mut stdin = child.stdin.take().unwrap();
    let stdout = lines(child.stdout.take().unwrap());
    // The closure owns stdin: dropping it ends the session.
    let mut call = move || -> Value {
        writeln!(stdin, "{line}").unwrap();
        let answer = stdout
            .recv_timeout(Duration::from_secs(60))
            .expect("the session answers");
        serde_json::from_str(&answer).unwrap()
    };
    let envelope = call();
    let id = approval_id(&envelope["deferral"]);
    shared.refused_elsewhere_and_approved_where_asked(&id);
    let ran = call();
    assert_eq!(ran["status"], "success", "{ran}");
    shared.ran_in_a_only();
    drop(call);
    assert!(child.wait().unwrap().success());
}

#[test]
fn an_approval_asked_through_serve_runs_in_its_own_workspace_only() {
    let shared = Shared::new();
    let mut command = shared.at(shared.a.path());
    command.arg("serve");
    let mut child = Killed(spawn_stdio(command));
    let mut stdin = child.0.stdin.take().unwrap();
    let stdout = lines(child.0.stdout.take().unwrap());
    let answer = |id: u64| -> Value {
        loop {
            let line = stdout
                .recv_timeout(Duration::from_secs(60))
                .expect("the server answers");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    };
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "site-test", "version": "1"}}}),
    );
    assert!(answer(1)["result"].is_object());
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "ExecCommand", "arguments": command_input()}}),
    );
    let deferred = answer(2);
    let id = approval_id(&deferred["result"]["_meta"]["holon/deferral"]);
    shared.refused_elsewhere_and_approved_where_asked(&id);
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "ExecCommand", "arguments": command_input()}}),
    );
    let ran = answer(3);
    assert_eq!(ran["result"]["isError"], false, "{ran}");
    shared.ran_in_a_only();
}

/// A server stopped when the test ends, however it ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
