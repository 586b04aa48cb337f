//! The agent planes through the `holon-tools` binary: the default agent's state is
//! shared by the calls of a session and survives a restart of the CLI; runtime-only
//! tools stay out of `list` and every export.

use crate::cli_support::{holon, session};
use serde_json::Value;

fn kind(envelope: &Value) -> &str {
    envelope["error"]["kind"].as_str().unwrap_or("")
}

#[test]
fn a_session_shares_state_and_a_restart_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let first = session(
        dir.path(),
        &[
            r#"{"name": "CreateWorkItem", "input": {"objective": "release 1.0"}}"#,
            r#"{"name": "CreateTimer", "input": {"delay_ms": 3600000, "reason": "nightly"}}"#,
            r#"{"name": "WaitFor", "input": {"reason": "until tonight", "wake": "timer", "resource": "timer-1", "delivery": "final", "work_item_id": "wi-1"}}"#,
            r#"{"name": "GetWorkItem", "input": {"work_item_id": "wi-1"}}"#,
        ],
    );
    assert_eq!(first[0]["status"], "success", "{}", first[0]);
    assert_eq!(first[2]["status"], "deferred", "{}", first[2]);
    assert_eq!(kind(&first[3]), "turn_awaiting_final");

    // A new process: the turn still awaits its brief, and the brief settles it.
    let second = session(
        dir.path(),
        &[
            r#"{"name": "AgentGet", "input": {}}"#,
            r#"{"host": "publish_final", "text": "Waiting for the nightly run."}"#,
            r#"{"name": "AgentGet", "input": {}}"#,
            r#"{"name": "ListWorkItems", "input": {"filter": "blocked"}}"#,
            r#"{"host": "publish_fnial", "text": "x"}"#,
        ],
    );
    assert_eq!(kind(&second[0]), "turn_awaiting_final", "{}", second[0]);
    assert_eq!(second[1]["tool_name"], "host:publish_final");
    assert_eq!(
        second[1]["structured"]["wait"]["state"], "active",
        "{}",
        second[1]
    );
    assert_eq!(
        second[1]["structured"]["turn"]["final_brief"],
        "Waiting for the nightly run."
    );
    let agent = &second[2]["structured"]["agent"];
    assert_eq!(agent["waiting_on"][0]["resource"], "timer-1");
    assert_eq!(agent["focus"]["work_item_id"], "wi-1");
    assert_eq!(
        second[3]["structured"]["work_items"][0]["work_item_id"],
        "wi-1"
    );
    assert_eq!(kind(&second[4]), "invalid_tool_input");

    // Host commands drive turns, messages and completion reports.
    let third = session(
        dir.path(),
        &[
            r#"{"name": "Enqueue", "input": {"text": "remember the changelog", "priority": "next"}}"#,
            r#"{"host": "begin_turn"}"#,
            r#"{"host": "tick"}"#,
            r#"{"name": "PickWorkItem", "input": {"work_item_id": "wi-1", "clear_blocker": true, "reason": "the nightly run is not needed"}}"#,
            r#"{"name": "CompleteWorkItem", "input": {"work_item_id": "wi-1"}}"#,
            r#"{"host": "completion_report", "text": "Released 1.0 without the nightly run."}"#,
            r#"{"host": "notifications"}"#,
            r#"{"host": "end_turn"}"#,
        ],
    );
    let start = &third[1]["structured"];
    assert_eq!(
        start["messages"][0]["text"], "remember the changelog",
        "{}",
        third[1]
    );
    assert_eq!(third[2]["status"], "success", "{}", third[2]);
    assert_eq!(
        third[3]["structured"]["blocker_cleared"]["wait_id"], "wait-1",
        "{}",
        third[3]
    );
    assert_eq!(third[4]["status"], "deferred", "{}", third[4]);
    assert_eq!(
        third[5]["structured"]["completed_work_items"][0], "wi-1",
        "{}",
        third[5]
    );
    assert_eq!(
        third[6]["structured"]["notifications"],
        serde_json::json!([])
    );
    assert_eq!(third[7]["structured"]["outcome"], "ended", "{}", third[7]);

    // Single calls share the same store.
    let output = holon(
        dir.path(),
        &[
            "call",
            "GetWorkItem",
            r#"{"work_item_id": "wi-1"}"#,
            "--json",
        ],
    );
    let envelope: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        envelope["structured"]["work_item"]["objective"],
        "release 1.0"
    );
}

#[test]
fn runtime_only_tools_are_listed_only_with_all_and_never_exported() {
    let dir = tempfile::tempdir().unwrap();
    let listed = String::from_utf8(holon(dir.path(), &["list"]).stdout).unwrap();
    let all = String::from_utf8(holon(dir.path(), &["list", "--all"]).stdout).unwrap();
    for name in ["CreateExternalTrigger", "CancelExternalTrigger"] {
        assert!(!listed.contains(name), "{name} in `list`");
        let line = all
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} missing from --all"));
        assert!(
            line.contains("external_trigger") && line.contains("runtime"),
            "{line}"
        );
    }
    for name in ["WaitFor", "SpawnAgent", "CreateWorkItem", "CreateTimer"] {
        assert!(listed.lines().any(|l| l.starts_with(name)), "{name}");
    }
    assert!(!all.contains("NotifyOperator"));
    for format in [
        "openai-chat",
        "openai-responses",
        "anthropic",
        "gemini",
        "mcp",
    ] {
        let output = holon(dir.path(), &["export", "--format", format]);
        assert!(
            output.status.success(),
            "{format}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(text.contains("WaitFor"), "{format}");
        for name in [
            "CreateExternalTrigger",
            "CancelExternalTrigger",
            "NotifyOperator",
        ] {
            assert!(!text.contains(name), "{name} in the {format} export");
        }
    }
    let inventory = String::from_utf8(holon(dir.path(), &["inventory"]).stdout).unwrap();
    for name in [
        "CreateExternalTrigger",
        "CancelExternalTrigger",
        "NotifyOperator",
    ] {
        assert!(!inventory.contains(name), "{name} in the inventory");
    }
    let refused = holon(
        dir.path(),
        &[
            "call",
            "CreateExternalTrigger",
            r#"{"delivery_mode": "wake_hint"}"#,
            "--json",
        ],
    );
    let envelope: Value = serde_json::from_slice(&refused.stdout).unwrap();
    assert_eq!(kind(&envelope), "unknown_tool");
}
