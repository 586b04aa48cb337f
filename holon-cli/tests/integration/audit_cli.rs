//! The audit log of `holon-tools`: off by default; with `--audit` (or `HOLON_AUDIT`)
//! `call` and `session` append one chained record per call, `audit` lists and exports
//! them, and `audit verify` finds a removed, edited, reordered or cut-short record.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::cli_support::{holon, holon_command};

const CALLS: [&str; 3] = [
    r#"{"name": "Sleep", "input": {"duration_ms": 1}, "call_id": "a"}"#,
    r#"{"name": "Sleeep", "input": {}}"#,
    r#"{"name": "Sleep", "input": {"duration_ms": "soon"}}"#,
];

fn audit_file(workspace: &Path) -> PathBuf {
    workspace.join(".holon").join("audit.jsonl")
}

/// A session of `CALLS` and one `call`, audited; the log's lines.
fn audited(workspace: &Path) -> Vec<String> {
    let mut child = holon_command(workspace)
        .env("HOLON_AUDIT", "true")
        .arg("session")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let stdin = child.stdin.as_mut().unwrap();
        for line in CALLS {
            writeln!(stdin, "{line}").unwrap();
        }
    }
    assert!(child.wait_with_output().unwrap().status.success());
    let output = audited_call(workspace);
    assert!(output.status.success(), "{output:?}");
    lines(workspace)
}

fn lines(workspace: &Path) -> Vec<String> {
    std::fs::read_to_string(audit_file(workspace))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn verify(workspace: &Path) -> (bool, String) {
    let output = holon(workspace, &["audit", "verify"]);
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// One audited Sleep call by `call`.
fn audited_call(workspace: &Path) -> std::process::Output {
    holon(
        workspace,
        &["--audit", "call", "Sleep", r#"{"duration_ms": 1}"#],
    )
}

fn rewrite(workspace: &Path, lines: &[String]) {
    std::fs::write(audit_file(workspace), lines.join("\n") + "\n").unwrap();
}

#[test]
fn the_audit_log_is_off_unless_the_operator_turns_it_on() {
    let dir = tempfile::tempdir().unwrap();
    let output = holon(dir.path(), &["call", "Sleep", r#"{"duration_ms": 1}"#]);
    assert!(output.status.success(), "{output:?}");
    assert!(!audit_file(dir.path()).exists());
}

#[test]
fn each_call_is_one_chained_record_that_lists_exports_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let lines = audited(dir.path());
    assert_eq!(lines.len(), 4, "{lines:#?}");
    let records: Vec<Value> = lines
        .iter()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(records[0]["outcome"], "success");
    assert_eq!(records[0]["call_id"], "a");
    assert_eq!(records[0]["caller"], "root");
    assert_eq!(
        records[0]["arguments"],
        Value::Null,
        "digest only by default"
    );
    assert_eq!(records[1]["kind"], "unknown_tool");
    assert_eq!(records[2]["outcome"], "error");
    assert_eq!(records[1]["prev_hash"], records[0]["hash"]);
    // The second process chained after the first's last record.
    assert_eq!(records[3]["prev_hash"], records[2]["hash"]);

    let (ok, report) = verify(dir.path());
    assert!(ok, "{report}");
    assert!(report.starts_with("ok: 4 records"), "{report}");

    let output = holon(dir.path(), &["audit", "--json", "--tool", "Sleeep"]);
    let exported = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        exported.lines().collect::<Vec<_>>(),
        vec![lines[1].as_str()]
    );
    let since = records[3]["time_unix_ms"].as_u64().unwrap();
    let output = holon(dir.path(), &["audit", "--since", &since.to_string()]);
    let listed = String::from_utf8(output.stdout).unwrap();
    assert!(
        listed.lines().count() >= 1 && listed.lines().count() <= 4,
        "{listed}"
    );
    assert!(
        listed.lines().all(|line| line.contains("Sleep")),
        "{listed}"
    );
}

#[test]
fn verify_finds_a_deleted_record() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = audited(dir.path());
    lines.remove(1);
    rewrite(dir.path(), &lines);
    let (ok, report) = verify(dir.path());
    assert!(!ok);
    assert!(report.contains("record 2 does not follow"), "{report}");
}

#[test]
fn verify_finds_an_edited_record() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = audited(dir.path());
    lines[2] = lines[2].replace("\"outcome\":\"error\"", "\"outcome\":\"success\"");
    rewrite(dir.path(), &lines);
    let (ok, report) = verify(dir.path());
    assert!(!ok);
    assert!(report.contains("record 3 was edited"), "{report}");
}

#[test]
fn verify_finds_reordered_records() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = audited(dir.path());
    lines.swap(0, 1);
    rewrite(dir.path(), &lines);
    let (ok, report) = verify(dir.path());
    assert!(!ok);
    assert!(report.contains("record 1 does not follow"), "{report}");
}

#[test]
fn verify_finds_a_record_cut_short_and_the_runtime_will_not_append_to_it() {
    let dir = tempfile::tempdir().unwrap();
    audited(dir.path());
    let file = audit_file(dir.path());
    let length = std::fs::metadata(&file).unwrap().len();
    let log = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
    log.set_len(length - 20).unwrap();
    let (ok, report) = verify(dir.path());
    assert!(!ok);
    assert!(report.contains("line 4 is not an audit record"), "{report}");
    let output = audited_call(dir.path());
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("does not verify"), "{stderr}");
}

/// Runs a `session` of `calls` Sleep calls on the audited log of `workspace`.
fn audited_session(workspace: &Path, calls: usize) -> std::process::Child {
    let mut child = holon_command(workspace)
        .env("HOLON_AUDIT", "true")
        .arg("session")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::thread::spawn(move || {
        use std::io::Write;
        for call in 0..calls {
            let line = format!(
                r#"{{"name": "Sleep", "input": {{"duration_ms": 1}}, "call_id": "{call}"}}"#
            );
            if writeln!(stdin, "{line}").is_err() {
                break;
            }
        }
    });
    child
}

#[test]
fn processes_writing_one_log_at_once_keep_one_chain() {
    let dir = tempfile::tempdir().unwrap();
    // The first record makes the log, so that every session opens the same file.
    let output = audited_call(dir.path());
    assert!(output.status.success(), "{output:?}");
    let sessions: Vec<_> = (0..4).map(|_| audited_session(dir.path(), 200)).collect();
    for session in sessions {
        let output = session.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        assert!(!stderr.contains("audit log"), "{stderr}");
    }
    let (ok, report) = verify(dir.path());
    assert!(ok, "{report}");
    assert!(report.starts_with("ok: 801 records"), "{report}");
    // And a later runtime opens the log and chains on.
    let output = audited_call(dir.path());
    assert!(output.status.success(), "{output:?}");
    let (ok, report) = verify(dir.path());
    assert!(ok && report.starts_with("ok: 802 records"), "{report}");
}

#[test]
fn verify_finds_a_record_rewritten_with_its_hash_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = audited(dir.path());
    lines[1] = lines[1].replacen('{', r#"{"approved_by":"nobody","#, 1);
    rewrite(dir.path(), &lines);
    let (ok, report) = verify(dir.path());
    assert!(!ok);
    assert!(report.contains("record 2 was rewritten"), "{report}");
}

#[test]
fn a_log_whose_last_line_lost_its_line_end_is_not_appended_to() {
    let dir = tempfile::tempdir().unwrap();
    audited(dir.path());
    let file = audit_file(dir.path());
    let length = std::fs::metadata(&file).unwrap().len();
    let log = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
    log.set_len(length - 1).unwrap();
    let output = audited_call(dir.path());
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("line 4 is not an audit record"), "{stderr}");
    assert_eq!(std::fs::metadata(&file).unwrap().len(), length - 1);
}

#[test]
fn a_serve_and_an_out_of_band_approval_keep_one_chain() {
    use crate::approvals::{ASK_CREATE, CREATE, with_policy};
    use crate::serve::{lines, response, send, spawn_stdio};
    use serde_json::json;

    let workspace = with_policy(ASK_CREATE);
    let ws = workspace.path();
    let mut command = holon_command(ws);
    command.env("HOLON_AUDIT", "true").arg("serve");
    let mut served = spawn_stdio(command);
    let mut stdin = served.stdin.take().unwrap();
    let stdout = lines(served.stdout.take().unwrap());
    let mut call = |id: u64, method: &str, params: Value| {
        send(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
        response(&stdout, id)
    };
    let initialized = call(
        1,
        "initialize",
        json!({ "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": { "name": "audit-test", "version": "1" } }),
    );
    assert!(initialized["result"].is_object(), "{initialized}");
    let arguments: Value = serde_json::from_str(CREATE).unwrap();
    let deferred = call(
        2,
        "tools/call",
        json!({ "name": "CreateWorkItem", "arguments": arguments }),
    );
    let id = deferred["result"]["_meta"]["holon/deferral"]["approval_id"]
        .as_str()
        .unwrap_or_else(|| panic!("a deferral: {deferred}"))
        .to_string();
    let approved = holon(ws, &["--audit", "approvals", "approve", &id]);
    assert!(approved.status.success(), "{approved:?}");
    // The server runs the approved call when it is made again; the operator's
    // process writes the record of a denial between the server's records.
    let ran = call(
        3,
        "tools/call",
        json!({ "name": "CreateWorkItem", "arguments": arguments }),
    );
    assert_eq!(ran["result"]["isError"], false, "{ran}");
    let deferred = call(
        4,
        "tools/call",
        json!({ "name": "CreateWorkItem", "arguments": arguments }),
    );
    let id = deferred["result"]["_meta"]["holon/deferral"]["approval_id"]
        .as_str()
        .unwrap_or_else(|| panic!("a deferral: {deferred}"))
        .to_string();
    let denied = holon(ws, &["--audit", "approvals", "deny", &id]);
    assert_eq!(denied.status.code(), Some(2), "{denied:?}");
    let slept = call(
        5,
        "tools/call",
        json!({ "name": "Sleep", "arguments": { "duration_ms": 1 } }),
    );
    assert_eq!(slept["result"]["isError"], false, "{slept}");
    let _ = served.kill();
    let _ = served.wait();

    let (ok, report) = verify(ws);
    assert!(ok, "{report}");
    assert!(report.starts_with("ok: 5 records"), "{report}");
}

/// The signed checkpoint files in the state directory.
fn checkpoints(workspace: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(workspace.join(".holon"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("audit-checkpoint-"))
        })
        .collect()
}

#[test]
fn a_runtime_verifies_the_log_from_its_signed_checkpoint_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = audited(dir.path());
    assert_eq!(
        checkpoints(dir.path()).len(),
        1,
        "one checkpoint, in the state directory"
    );
    // An edit before the checkpoint: a runtime does not read that far back ...
    lines[0] = lines[0].replace(r#""call_id":"a""#, r#""call_id":"b""#);
    rewrite(dir.path(), &lines);
    let output = audited_call(dir.path());
    assert!(output.status.success(), "{output:?}");
    // ... and `audit verify` reads it all.
    let (ok, report) = verify(dir.path());
    assert!(!ok);
    assert!(report.contains("record 1 was edited"), "{report}");
}

#[test]
fn a_log_rewritten_whole_is_found_by_its_signed_checkpoint() {
    use holon_policy::audit::{AuditRecord, GENESIS_HASH, Outcome};
    let dir = tempfile::tempdir().unwrap();
    let lines = audited(dir.path());
    let (ok, report) = verify(dir.path());
    assert!(ok && report.contains("as signed at record 3"), "{report}");
    // Every hash recomputed after an edit: the chain alone verifies.
    let mut prev = GENESIS_HASH.to_string();
    let rewritten: Vec<String> = lines
        .iter()
        .map(|line| {
            let mut record: AuditRecord = serde_json::from_str(line).unwrap();
            if record.tool == "Sleeep" {
                record.outcome = Outcome::Success;
            }
            record.seal(&prev);
            prev = record.hash.clone();
            serde_json::to_string(&record).unwrap()
        })
        .collect();
    rewrite(dir.path(), &rewritten);
    let (ok, report) = verify(dir.path());
    assert!(!ok, "{report}");
    assert!(
        report.contains("does not match its signed checkpoint at record 3"),
        "{report}"
    );
    let output = audited_call(dir.path());
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("does not verify against its signed checkpoint"),
        "{stderr}"
    );
}

#[test]
fn a_checkpoint_not_signed_with_the_operator_key_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    audited(dir.path());
    let file = checkpoints(dir.path()).remove(0);
    let mut checkpoint: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    checkpoint["records"] = Value::from(2);
    std::fs::write(&file, checkpoint.to_string()).unwrap();
    let (ok, report) = verify(dir.path());
    assert!(!ok);
    assert!(
        report.contains("not signed with the operator's key"),
        "{report}"
    );
    let output = audited_call(dir.path());
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("not signed with the operator's key"),
        "{stderr}"
    );
}
