//! The approval policy from the command line: `--policy` and `STATE_DIR/policy.toml`,
//! `holon-tools approvals list|show|approve|deny`, and the prompt of an interactive
//! `session` (driven through a pseudo-terminal).

use std::io::{Read, Write};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::cli_support::{holon, holon_command};

/// A policy asking before CreateWorkItem, the tool whose effect the tests count.
pub(crate) const ASK_CREATE: &str = r#"
[[rule]]
tool = "CreateWorkItem"
decision = "ask"
reason = "work items are the operator's plan"
"#;

pub(crate) const CREATE: &str = r#"{"objective": "ship", "plan": "build, test"}"#;

pub(crate) fn with_policy(text: &str) -> tempfile::TempDir {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(workspace.path().join(".holon")).unwrap();
    std::fs::write(workspace.path().join(".holon/policy.toml"), text).unwrap();
    workspace
}

pub(crate) fn json_of(output: &std::process::Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "{error}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// How many work items exist: what the asked calls change.
pub(crate) fn work_items(workspace: &Path) -> usize {
    let output = holon(
        workspace,
        &[
            "--policy",
            "none",
            "call",
            "ListWorkItems",
            r#"{"filter": "all"}"#,
            "--json",
        ],
    );
    json_of(&output)["structured"]["work_items"]
        .as_array()
        .unwrap()
        .len()
}

/// The operator's CreateWorkItem made again after its approval: the envelope.
fn retry(workspace: &Path) -> Value {
    json_of(&holon(
        workspace,
        &["call", "CreateWorkItem", CREATE, "--json"],
    ))
}

/// Asks CreateWorkItem and returns the approval id.
fn ask(workspace: &Path) -> String {
    let output = holon(workspace, &["call", "CreateWorkItem", CREATE, "--json"]);
    assert!(output.status.success(), "{output:?}");
    let envelope = json_of(&output);
    assert_eq!(envelope["status"], "deferred");
    assert_eq!(envelope["deferral"]["kind"], "approval_required");
    assert_eq!(envelope["deferral"]["tool"], "CreateWorkItem");
    assert_eq!(envelope["deferral"]["principal"], "root");
    envelope["deferral"]["approval_id"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn approvals_approve_runs_an_asked_call_once_and_deny_refuses_it() {
    let workspace = with_policy(ASK_CREATE);
    let ws = workspace.path();
    let id = ask(ws);
    assert_eq!(
        work_items(ws),
        0,
        "nothing runs before the operator decides"
    );

    let listed = json_of(&holon(ws, &["approvals", "list", "--json"]));
    assert_eq!(listed[0]["id"], id.as_str());
    assert_eq!(listed[0]["state"], "pending");
    let shown = holon(ws, &["approvals", "show", &id]);
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.contains("work items are the operator's plan"),
        "{text}"
    );

    // Approving runs nothing: the call runs where it was asked, when it is made again.
    let approved = holon(ws, &["approvals", "approve", &id, "--json"]);
    assert!(approved.status.success(), "{approved:?}");
    let stored = json_of(&approved);
    assert_eq!(stored["state"], "pending", "{stored}");
    assert_eq!(stored["approval"]["approve"], true, "{stored}");
    assert_eq!(work_items(ws), 0);
    let replayed = holon(ws, &["approvals", "approve", &id]);
    assert_eq!(replayed.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&replayed.stderr).contains("approval_already_decided"));

    let result = retry(ws);
    assert_eq!(result["status"], "success", "{result}");
    assert_eq!(result["structured"]["work_item"]["objective"], "ship");
    assert_eq!(work_items(ws), 1);
    let replayed = holon(ws, &["approvals", "approve", &id]);
    assert_eq!(replayed.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&replayed.stderr).contains("approval_already_decided"));
    assert_eq!(work_items(ws), 1);

    let second = ask(ws);
    let denied = holon(
        ws,
        &[
            "approvals",
            "deny",
            &second,
            "--message",
            "one plan is enough",
            "--json",
        ],
    );
    assert_eq!(denied.status.code(), Some(2));
    let refusal = json_of(&denied);
    assert_eq!(refusal["error"]["kind"], "approval_denied");
    assert!(
        refusal["error"]["message"]
            .as_str()
            .unwrap()
            .contains("one plan is enough")
    );
    assert_eq!(work_items(ws), 1);
    let pending = json_of(&holon(ws, &["approvals", "list", "--json"]));
    assert_eq!(pending, Value::Array(Vec::new()));
    let all = json_of(&holon(ws, &["approvals", "list", "--all", "--json"]));
    assert_eq!(all.as_array().unwrap().len(), 2);
}

#[test]
fn show_and_list_name_who_decided() {
    let workspace = with_policy(ASK_CREATE);
    let ws = workspace.path();
    let approved = ask(ws);
    let pending = holon(ws, &["approvals", "show", &approved]);
    assert!(
        !String::from_utf8_lossy(&pending.stdout).contains("decided by"),
        "{pending:?}"
    );
    let ran = holon(ws, &["approvals", "approve", &approved, "--as", "ada"]);
    assert!(ran.status.success(), "{ran:?}");
    let ready = holon(ws, &["approvals", "show", &approved]);
    let text = String::from_utf8_lossy(&ready.stdout);
    assert!(
        text.contains("state: ready (approved by ada;"),
        "approved, waiting for the call: {text}"
    );
    assert_eq!(retry(ws)["status"], "success");
    let denied = ask(ws);
    let refused = holon(ws, &["approvals", "deny", &denied, "--as", "grace"]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");

    let shown = holon(ws, &["approvals", "show", &approved]);
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.contains("\ndecided by: ada\n"), "{text}");
    let shown = json_of(&holon(ws, &["approvals", "show", &denied, "--json"]));
    assert_eq!(shown["decided_by"], "grace", "{shown}");

    let listed = holon(ws, &["approvals", "list", "--all"]);
    let lines = String::from_utf8_lossy(&listed.stdout);
    let line_of = |id: &str| {
        lines
            .lines()
            .find(|line| line.starts_with(id))
            .unwrap_or_else(|| panic!("{id} listed: {lines}"))
            .to_string()
    };
    assert!(line_of(&approved).ends_with("  by=ada"), "{lines}");
    assert!(line_of(&denied).ends_with("  by=grace"), "{lines}");
    let listed = json_of(&holon(ws, &["approvals", "list", "--all", "--json"]));
    let by: Vec<&Value> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|call| &call["decided_by"])
        .collect();
    assert_eq!(by, [&json!("grace"), &json!("ada")], "{listed}");
}

#[test]
fn always_lets_the_principals_later_calls_run() {
    let workspace = with_policy(ASK_CREATE);
    let ws = workspace.path();
    let id = ask(ws);
    let approved = holon(ws, &["approvals", "approve", &id, "--always", "principal"]);
    assert!(approved.status.success(), "{approved:?}");
    // The approved call, made again, runs and adds the grant; the next runs by it.
    assert_eq!(retry(ws)["status"], "success");
    let again = holon(ws, &["call", "CreateWorkItem", CREATE, "--json"]);
    assert_eq!(json_of(&again)["status"], "success");
    assert_eq!(work_items(ws), 2);
}

#[test]
fn the_policy_option_takes_a_file_the_builtin_one_or_none_and_refuses_a_bad_one() {
    let workspace = tempfile::tempdir().unwrap();
    let ws = workspace.path();
    let file = ws.join("mine.toml");
    std::fs::write(&file, ASK_CREATE.replace("CreateWorkItem", "CreateWorkItm")).unwrap();
    let bad = holon(
        ws,
        &["--policy", file.to_str().unwrap(), "call", "ListWorkItems"],
    );
    assert_eq!(bad.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(stderr.contains("did you mean `CreateWorkItem`"), "{stderr}");

    let command = r#"{"cmd": "touch ran"}"#;
    let asked = holon(
        ws,
        &[
            "--policy",
            "builtin",
            "call",
            "ExecCommand",
            command,
            "--json",
        ],
    );
    assert_eq!(json_of(&asked)["deferral"]["kind"], "approval_required");
    assert!(!ws.join("ran").exists());
    // The environment variable sets it too.
    let asked = holon_command(ws)
        .env("HOLON_POLICY", "builtin")
        .args(["call", "ExecCommand", command, "--json"])
        .output()
        .unwrap();
    assert_eq!(json_of(&asked)["status"], "deferred");
    assert!(!ws.join("ran").exists());
    let ran = holon(
        ws,
        &["--policy", "none", "call", "ExecCommand", command, "--json"],
    );
    assert_eq!(json_of(&ran)["status"], "success", "{ran:?}");
    assert!(ws.join("ran").exists());
}

#[test]
fn the_builtin_policy_parses_and_asks_what_its_documentation_says() {
    let policy = holon_cli::policy::default_policy();
    let text = holon_cli::policy::DEFAULT_POLICY_TOML;
    let parsed = holon_cli::policy::parse(holon_core::Registry::global(), text).unwrap();
    assert_eq!(parsed, policy);
    assert_eq!(policy.rules.len(), 5);
}

/// Reads what the terminal shows, up to the first text holding `wanted`.
fn read_until(output: &mpsc::Receiver<Vec<u8>>, seen: &mut String, wanted: &str) {
    read_until_count(output, seen, wanted, 1);
}

/// Reads what the terminal shows until it has shown `wanted` `times` times.
fn read_until_count(
    output: &mpsc::Receiver<Vec<u8>>,
    seen: &mut String,
    wanted: &str,
    times: usize,
) {
    // A guard against a hang, not a measure: the session answers in milliseconds.
    let deadline = Instant::now() + Duration::from_secs(120);
    while seen.matches(wanted).count() < times {
        let left = deadline.saturating_duration_since(Instant::now());
        match output.recv_timeout(left) {
            Ok(bytes) => seen.push_str(&String::from_utf8_lossy(&bytes)),
            Err(_) => panic!("the terminal never showed {wanted:?}; it showed:\n{seen}"),
        }
    }
}

#[test]
fn an_interactive_session_asks_at_the_terminal_and_runs_the_approved_call() {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    let workspace = with_policy(ASK_CREATE);
    let ws = workspace.path();
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 200,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_holon-tools"));
    command.args(["--workspace", ws.to_str().unwrap(), "session"]);
    command.env("HOLON_HOME", ws.join(".holon"));
    command.env_remove("HOLON_MODEL_CATALOG");
    command.env_remove("HOLON_POLICY");
    let mut child = pair.slave.spawn_command(command).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let mut writer = pair.master.take_writer().unwrap();
    let (sender, output) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(read) = reader.read(&mut buffer) {
            if read == 0 || sender.send(buffer[..read].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut seen = String::new();
    let line = format!(r#"{{"name": "CreateWorkItem", "input": {CREATE}}}"#);
    writeln!(writer, "{line}").unwrap();
    read_until(&output, &mut seen, "approve? [y]es");
    assert!(
        seen.contains("work items are the operator's plan"),
        "{seen}"
    );
    assert_eq!(
        work_items(ws),
        0,
        "nothing runs before the operator answers"
    );
    writeln!(writer, "y").unwrap();
    read_until(&output, &mut seen, r#""status":"success""#);
    assert_eq!(work_items(ws), 1);

    writeln!(writer, "{line}").unwrap();
    read_until_count(&output, &mut seen, "approve? [y]es", 2);
    writeln!(writer, "n: not twice").unwrap();
    read_until(&output, &mut seen, "not twice\"");
    assert!(seen.contains("approval_denied"), "{seen}");
    assert_eq!(work_items(ws), 1);
    // Ctrl-D: the session ends.
    writer.write_all(&[4]).unwrap();
    drop(writer);
    assert!(child.wait().unwrap().success());
}

/// The audit log's records of an audited run, as JSON.
fn audit_records(workspace: &Path) -> Vec<Value> {
    std::fs::read_to_string(workspace.join(".holon").join("audit.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn the_audit_log_records_what_the_policy_and_the_operator_decided() {
    let workspace = with_policy(ASK_CREATE);
    let ws = workspace.path();
    let audited = |args: &[&str]| {
        let mut all = vec!["--audit"];
        all.extend_from_slice(args);
        holon(ws, &all)
    };
    let asked = audited(&["call", "CreateWorkItem", CREATE, "--json"]);
    let first = json_of(&asked)["deferral"]["approval_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        audited(&["approvals", "approve", &first, "--as", "ada"])
            .status
            .success()
    );
    // The approved call runs when it is made again: the record of that run names ada.
    assert!(
        audited(&["call", "CreateWorkItem", CREATE])
            .status
            .success()
    );
    let asked = audited(&["call", "CreateWorkItem", CREATE, "--json"]);
    let second = json_of(&asked)["deferral"]["approval_id"]
        .as_str()
        .unwrap()
        .to_string();
    // Without --as, the OS user decides.
    let denied = holon_command(ws)
        .args(["--audit", "approvals", "deny", &second, "--message", "no"])
        .env("USER", "grace")
        .env_remove("LOGNAME")
        .output()
        .unwrap();
    assert!(!denied.status.success(), "a denial exits as a tool error");
    assert!(
        audited(&["call", "Sleep", r#"{"duration_ms": 1}"#])
            .status
            .success()
    );

    let decided: Vec<[String; 4]> = audit_records(ws)
        .iter()
        .map(|record| {
            ["tool", "outcome", "decision", "decided_by"]
                .map(|field| record[field].as_str().unwrap_or("none").to_string())
        })
        .collect();
    let expected = [
        ["CreateWorkItem", "deferred", "asked", "none"],
        ["CreateWorkItem", "success", "approved", "ada"],
        ["CreateWorkItem", "deferred", "asked", "none"],
        ["CreateWorkItem", "error", "denied", "grace"],
        ["Sleep", "success", "allowed", "none"],
    ]
    .map(|fields| fields.map(String::from));
    assert_eq!(decided, expected);
    assert!(holon(ws, &["audit", "verify"]).status.success());
    let listed = holon(ws, &["audit", "--tool", "CreateWorkItem"]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 4, "{listed}");
    assert!(lines[1].ends_with("decision=approved by=ada"), "{listed}");
    assert!(lines[3].ends_with("decision=denied by=grace"), "{listed}");
}
