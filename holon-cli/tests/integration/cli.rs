//! The `holon-tools` binary, run as a user runs it.

use std::path::Path;
use std::process::Output;

use crate::cli_support::{holon, holon_command, session};
use serde_json::Value;

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn list_shows_the_model_facing_tools() {
    let dir = tempfile::tempdir().unwrap();
    let output = holon(dir.path(), &["list"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let header = text.lines().next().unwrap();
    for column in ["NAME", "FAMILY", "PLANE", "STABILITY", "VISIBILITY"] {
        assert!(header.contains(column), "{header}");
    }
    assert!(
        text.lines()
            .any(|l| l.starts_with("Sleep ") && l.contains("core_agent") && l.contains("timer"))
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("ListProviderModels ") && l.contains("model"))
    );
    assert!(
        !dir.path().join(".holon").exists(),
        "listing must not create state"
    );
}

#[test]
fn every_command_has_help() {
    let dir = tempfile::tempdir().unwrap();
    for command in [
        &["--help"][..],
        &["list", "--help"],
        &["schema", "--help"],
        &["inventory", "--help"],
        &["call", "--help"],
        &["session", "--help"],
    ] {
        let output = holon(dir.path(), command);
        assert!(output.status.success(), "{command:?}");
        assert!(stdout(&output).contains("Usage:"), "{command:?}");
    }
}

#[test]
fn schema_prints_input_and_result_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let output = holon(dir.path(), &["schema", "Sleep"]);
    assert!(output.status.success());
    let schemas: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(schemas["input_schema"]["additionalProperties"], false);
    assert!(schemas["result_schema"]["properties"]["slept_ms"].is_object());
    // The exact text the model reads: the doc comment, one line per paragraph.
    let description = schemas["description"].as_str().expect("a description");
    assert!(
        description.starts_with("Pause for `duration_ms` milliseconds (default 1,000, at most 600,000), then return.\n\nUse it to give a background process time to make progress before checking on it again, or"),
        "{description}"
    );
    assert!(!description.contains("again,\n"), "{description}");

    let output = holon(dir.path(), &["schema", "Slep"]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("did you mean `Sleep`?"));
}

#[test]
fn call_prints_the_receipt_and_exits_by_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let output = holon(dir.path(), &["call", "Sleep", r#"{"duration_ms": 5}"#]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("slept_ms:"));

    let output = holon(
        dir.path(),
        &["call", "Sleep", r#"{"duration_ms": 5}"#, "--json"],
    );
    let envelope: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(envelope["status"], "success");

    let output = holon(dir.path(), &["call", "Sleep", r#"{"duration_ms": 0}"#]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stdout(&output).contains("`duration_ms`"),
        "{}",
        stdout(&output)
    );

    let output = holon(dir.path(), &["call", "Sleep", "{not json"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("not valid JSON"));

    // `-`: the input on stdin, here one longer than a command line may be.
    let with_stdin = |text: String| {
        let mut child = holon_command(dir.path())
            .args(["call", "ApplyPatch", "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(child.stdin.as_mut().unwrap(), text.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    };
    let added: String = (0..40_000).map(|i| format!("+line {i}\n")).collect();
    let patch = format!("*** Begin Patch\n*** Add File: long.txt\n{added}*** End Patch\n");
    let output = with_stdin(serde_json::to_string(&patch).unwrap());
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("add long.txt (+40000 -0)"),
        "{}",
        stdout(&output)
    );
    // Text that is not JSON is ApplyPatch's freeform input, judged as a patch
    // (cli_papercuts.rs: what a JSON-only tool says of it).
    let output = with_stdin("{not json".to_string());
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stdout(&output).contains("ApplyPatch failed"),
        "{}",
        stdout(&output)
    );

    let output = holon(dir.path(), &["call", "Sleep", "{}", "--families", "web"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stdout(&output).contains("family_not_allowed"));

    let output = holon(
        dir.path(),
        &["call", "Sleep", "{}", "--families", "core_agnt"],
    );
    assert!(!output.status.success());
    assert!(stderr(&output).contains("unknown capability family `core_agnt`"));
}

/// The files under `dir`, relative, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, found);
            } else {
                found.push(path.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    let mut found = Vec::new();
    walk(dir, dir, &mut found);
    found.sort();
    found
}

#[test]
fn state_dir_defaults_outside_the_workspace_under_the_data_dir_and_can_move() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("my project");
    std::fs::create_dir(&workspace).unwrap();
    let data = tempfile::tempdir().unwrap();
    let run = |env: &[(&str, &Path)], args: &[&str]| {
        let mut command = holon_command(&workspace);
        command.env_remove("HOLON_HOME").env_remove("XDG_DATA_HOME");
        for (name, value) in env {
            command.env(name, value);
        }
        let output = command.args(args).output().unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
    };
    let exec = ["call", "ExecCommand", r#"{"cmd": "echo hi"}"#];
    run(&[("XDG_DATA_HOME", data.path())], &exec);
    assert_eq!(
        files_under(&workspace),
        Vec::<String>::new(),
        "nothing in the workspace"
    );
    let states = data.path().join("holon/workspaces");
    let keys: Vec<_> = std::fs::read_dir(&states)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert!(keys[0].starts_with("my_project-"), "{keys:?}");
    let state = states.join(&keys[0]);
    assert!(state.join("state.sqlite3").is_file());
    assert_eq!(
        std::fs::read_to_string(state.join("tasks/task-1/stdout.log")).unwrap(),
        "hi\n"
    );

    // Without XDG_DATA_HOME: ~/.local/share.
    let home = tempfile::tempdir().unwrap();
    run(&[("HOME", home.path())], &exec);
    assert!(
        home.path()
            .join(".local/share/holon/workspaces")
            .join(&keys[0])
            .join("state.sqlite3")
            .is_file()
    );

    // HOLON_HOME, then --state-dir, choose another.
    let elsewhere = tempfile::tempdir().unwrap();
    run(&[("HOLON_HOME", elsewhere.path())], &exec);
    assert!(elsewhere.path().join("state.sqlite3").is_file());
    let chosen = tempfile::tempdir().unwrap();
    let chosen_arg = chosen.path().to_str().unwrap();
    run(
        &[("HOLON_HOME", elsewhere.path())],
        &[
            "--state-dir",
            chosen_arg,
            "call",
            "Sleep",
            r#"{"duration_ms": 1}"#,
        ],
    );
    assert!(chosen.path().join("state.sqlite3").is_file());
    assert_eq!(files_under(&workspace), Vec::<String>::new());
}

#[test]
fn session_answers_one_envelope_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let lines = session(
        dir.path(),
        &[
            r#"{"name": "Sleep", "input": {"duration_ms": 1}, "call_id": "a"}"#,
            "",
            "this is not json",
            r#"{"name": "ListProviderModels", "input": {"provider": "openai", "limit": 1}}"#,
            r#"{"name": "Sleeep", "input": {}}"#,
        ],
    );
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["status"], "success");
    assert_eq!(lines[0]["call_id"], "a");
    assert_eq!(lines[1]["error"]["kind"], "invalid_session_line");
    assert_eq!(
        lines[2]["structured"]["models"].as_array().unwrap().len(),
        1
    );
    assert_eq!(lines[3]["error"]["kind"], "unknown_tool");
    assert_eq!(lines[3]["error"]["recovery_hint"], "did you mean `Sleep`?");
}

#[test]
fn inventory_check_passes_on_the_checked_in_file_and_shows_drift() {
    let dir = tempfile::tempdir().unwrap();
    let checked_in = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../holon-tools/model-tool-schema-inventory.json");
    let output = holon(
        dir.path(),
        &["inventory", "--check", checked_in.to_str().unwrap()],
    );
    assert!(output.status.success(), "{}", stderr(&output));

    let printed = holon(dir.path(), &["inventory"]);
    assert_eq!(
        stdout(&printed),
        std::fs::read_to_string(&checked_in).unwrap()
    );

    let drifted = dir.path().join("drifted.json");
    let text = stdout(&printed).replace("How long to pause", "How long to wait");
    std::fs::write(&drifted, text).unwrap();
    let output = holon(
        dir.path(),
        &["inventory", "--check", drifted.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(1));
    let diff = stderr(&output);
    assert!(
        diff.contains("-") && diff.contains("How long to wait"),
        "{diff}"
    );
    assert!(
        diff.contains("+") && diff.contains("How long to pause"),
        "{diff}"
    );
}

#[test]
fn a_broken_model_catalog_override_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog.json");
    std::fs::write(&catalog, r#"{"version": 1, "providers": [{"id": "x"}]}"#).unwrap();
    let output = holon(
        dir.path(),
        &[
            "--model-catalog",
            catalog.to_str().unwrap(),
            "call",
            "ListModelProviders",
            "{}",
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("model catalog"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_repeated_key_is_refused_by_call_and_session_and_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let arguments = r#"{"cmd": "true", "cmd": "touch m"}"#;
    let output = holon(dir.path(), &["call", "ExecCommand", arguments, "--json"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let envelope: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(envelope["error"]["kind"], "duplicate_field", "{envelope:#}");
    assert_eq!(envelope["error"]["field"], "cmd");
    let receipt = stdout(&holon(dir.path(), &["call", "ExecCommand", arguments]));
    assert!(
        receipt.contains("the field `cmd` is given more than once"),
        "{receipt}"
    );

    let nested = r#"{"name": "ExecCommandBatch", "input": {"items": [{"cmd": "true", "cmd": "touch m"}]}, "call_id": "b"}"#;
    let line = format!(r#"{{"name": "ExecCommand", "input": {arguments}, "call_id": "a"}}"#);
    let lines = session(dir.path(), &[&line, nested]);
    assert_eq!(
        lines[0]["error"]["kind"], "duplicate_field",
        "{:#}",
        lines[0]
    );
    assert_eq!(lines[0]["call_id"], "a");
    assert_eq!(
        lines[1]["error"]["kind"], "duplicate_field",
        "{:#}",
        lines[1]
    );
    assert_eq!(lines[1]["error"]["field"], "items[0].cmd");
    assert!(
        !dir.path().join("m").exists(),
        "the last `cmd` must not run"
    );
}

/// Runs `holon-tools session ARGS` with `input` on stdin, byte for byte, and returns
/// the envelopes it wrote.
fn session_bytes(args: &[&str], input: &[u8]) -> Vec<Value> {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let mut child = holon_command(dir.path())
        .arg("session")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // Written from a thread: the session answers while it reads.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn a_line_of_invalid_utf8_is_answered_and_the_session_goes_on() {
    let mut input = b"{\"name\": \"Sleep\", \"input\": {\"duration_ms\": 1}}\n".to_vec();
    input.extend_from_slice(b"{\"name\": \"Sl\xffeep\"}\n");
    input.extend_from_slice(b"\xc3\x28\r\n");
    input.extend_from_slice(
        b"{\"name\": \"Sleep\", \"input\": {\"duration_ms\": 1}, \"call_id\": \"last\"}",
    );
    let lines = session_bytes(&[], &input);
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(lines[0]["status"], "success");
    for (line, at) in [(&lines[1], 12), (&lines[2], 0)] {
        assert_eq!(line["error"]["kind"], "invalid_session_line", "{line}");
        let message = line["error"]["message"].as_str().unwrap();
        assert!(message.contains(&format!("byte {at} is not")), "{message}");
    }
    assert_eq!(lines[3]["status"], "success");
    assert_eq!(lines[3]["call_id"], "last");
}

#[test]
fn a_line_over_the_cap_is_refused_and_dropped_whole_and_the_session_goes_on() {
    let call = r#"{"name": "Sleep", "input": {"duration_ms": 1}}"#;
    let long = format!(
        r#"{{"name": "Sleep", "input": {{"duration_ms": 1}}, "call_id": "{}"}}"#,
        "x".repeat(300_000)
    );
    let input = format!("{call}\n{long}\n{call}\n");
    let lines = session_bytes(&["--max-line-bytes", "1000"], input.as_bytes());
    assert_eq!(
        lines.len(),
        3,
        "one answer a line, none for the dropped rest: {lines:?}"
    );
    assert_eq!(lines[0]["status"], "success");
    assert_eq!(lines[1]["error"]["kind"], "session_line_too_long");
    let message = lines[1]["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("{} bytes", long.len())),
        "{message}"
    );
    assert_eq!(lines[2]["status"], "success");
    // A line at the cap is read.
    let lines = session_bytes(
        &["--max-line-bytes", &call.len().to_string()],
        input.as_bytes(),
    );
    assert_eq!(lines[0]["status"], "success");
}
