//! What a new operator trips over on the command line: each test is one papercut seen
//! by a first user of `holon-tools`.

use std::process::Output;

use crate::cli_support::{holon, holon_with_stdin};
use serde_json::Value;

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `holon-tools call NAME - --json` with `input` on stdin.
fn call_with_stdin(workspace: &std::path::Path, name: &str, input: &str) -> Output {
    holon_with_stdin(workspace, &["call", name, "-", "--json"], input)
}

fn envelope(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}{}", stdout(output), stderr(output)))
}

#[test]
fn raw_patch_text_on_stdin_is_the_freeform_input_of_apply_patch() {
    let dir = tempfile::tempdir().unwrap();
    let patch = "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n";
    let output = call_with_stdin(dir.path(), "ApplyPatch", patch);
    assert!(
        output.status.success(),
        "{}{}",
        stdout(&output),
        stderr(&output)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("hello.txt")).unwrap(),
        "hello\n"
    );
}

#[test]
fn text_that_is_not_json_for_a_json_tool_is_told_about_that_tool() {
    let dir = tempfile::tempdir().unwrap();
    let output = holon(dir.path(), &["call", "ExecCommand", "echo hi"]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(!message.contains("duration_ms"), "Sleep's field: {message}");
    assert!(
        message.contains("holon-tools schema ExecCommand"),
        "{message}"
    );
    assert!(
        message.contains("cmd"),
        "names the tool's own field: {message}"
    );
    assert!(message.contains("on stdin"), "{message}");
}

#[test]
fn a_subcommand_help_shows_its_own_options_not_the_runtime_settings() {
    let dir = tempfile::tempdir().unwrap();
    for command in ["list", "schema", "export", "call"] {
        let output = holon(dir.path(), &[command, "--help"]);
        assert!(output.status.success(), "{}", stderr(&output));
        let help = stdout(&output);
        for global in [
            "--state-dir",
            "--search-url",
            "--command-limits",
            "--ca-file",
        ] {
            assert!(
                !help.contains(global),
                "`{command} --help` lists {global}:\n{help}"
            );
        }
    }
    let output = holon(dir.path(), &["--help"]);
    let help = stdout(&output);
    for global in [
        "--state-dir",
        "--search-url",
        "--command-limits",
        "--ca-file",
    ] {
        assert!(help.contains(global), "`--help` lacks {global}:\n{help}");
    }
    // An option of the whole program given after the command says where it goes.
    let output = holon(dir.path(), &["list", "--state-dir", "x"]);
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(message.contains("before the command"), "{message}");
}

#[test]
fn a_string_given_for_an_integer_gets_a_hint_with_the_type_and_an_example() {
    let dir = tempfile::tempdir().unwrap();
    let output = holon(
        dir.path(),
        &["call", "Sleep", r#"{"duration_ms": "250"}"#, "--json"],
    );
    assert_eq!(output.status.code(), Some(2));
    let result = envelope(&output);
    assert_eq!(result["error"]["field"], "duration_ms", "{result}");
    let hint = result["error"]["recovery_hint"]
        .as_str()
        .unwrap_or_default();
    // The type is said once, in the message; the hint shows the value to send.
    let message = result["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("integer"), "{result}");
    assert!(
        hint.contains("250"),
        "the value as it should be sent: {result}"
    );
}

#[test]
fn a_field_named_by_its_meaning_is_matched_to_the_one_missing_field() {
    let dir = tempfile::tempdir().unwrap();
    let output = holon(
        dir.path(),
        &[
            "call",
            "ExecCommandBatch",
            r#"{"commands": [{"cmd": "true"}]}"#,
            "--json",
        ],
    );
    let result = envelope(&output);
    assert_eq!(result["error"]["kind"], "unknown_field", "{result}");
    let hint = result["error"]["recovery_hint"]
        .as_str()
        .unwrap_or_default();
    assert!(hint.contains("did you mean `items`"), "{result}");
}

#[test]
fn the_task_handle_of_exec_command_leads_to_the_task_tools_task_id() {
    let dir = tempfile::tempdir().unwrap();
    let output = holon(
        dir.path(),
        &[
            "call",
            "TaskStatus",
            r#"{"task_handle": "task-1"}"#,
            "--json",
        ],
    );
    let result = envelope(&output);
    let hint = result["error"]["recovery_hint"]
        .as_str()
        .unwrap_or_default();
    assert!(hint.contains("did you mean `task_id`"), "{result}");

    let output = holon(
        dir.path(),
        &[
            "call",
            "ExecCommand",
            r#"{"cmd": "sleep 5", "yield_time_ms": 50}"#,
            "--json",
        ],
    );
    let result = envelope(&output);
    assert_eq!(
        result["structured"]["disposition"], "promoted_to_task",
        "{result}"
    );
    let task_id = result["structured"]["task_handle"]["task_id"]
        .as_str()
        .unwrap();
    let hint = result["structured"]["hint"].as_str().unwrap();
    assert!(
        hint.contains(&format!(r#"{{"task_id": "{task_id}"}}"#)),
        "the hint shows the task tools' input: {hint}"
    );
    holon(
        dir.path(),
        &[
            "call",
            "TaskStop",
            &format!(r#"{{"task_id": "{task_id}"}}"#),
        ],
    );
}

#[test]
fn a_runtime_that_cannot_open_names_the_option_that_fixes_it() {
    let dir = tempfile::tempdir().unwrap();
    // A state directory beneath a file cannot be created.
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let state_dir = file.join("state");
    let output = holon(
        dir.path(),
        &[
            "--state-dir",
            state_dir.to_str().unwrap(),
            "call",
            "Sleep",
            r#"{"duration_ms": 1}"#,
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(
        text.contains("holon-tools: cannot create the state directory"),
        "{text}"
    );
    assert!(
        text.contains("; choose another with --state-dir or HOLON_HOME"),
        "{text}"
    );

    let missing = dir.path().join("missing");
    let output = holon(&missing, &["call", "Sleep", r#"{"duration_ms": 1}"#]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(text.contains("holon-tools: the workspace root"), "{text}");
    assert!(
        text.contains("; pass an existing directory with --workspace"),
        "{text}"
    );

    let missing_ca = dir.path().join("missing-ca.pem");
    let output = holon(
        dir.path(),
        &[
            "--ca-file",
            missing_ca.to_str().unwrap(),
            "call",
            "Sleep",
            r#"{"duration_ms": 1}"#,
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(
        text.contains("holon-tools: the extra certificate authorities cannot be used"),
        "{text}"
    );
    assert!(
        text.contains("; fix or drop --ca-file (HOLON_CA_FILE)"),
        "{text}"
    );
}
