//! The operator's files out of the model's reach: a policy or audit file named on the
//! command line inside a workspace root is refused at start, and `doctor` says which
//! of the state directory, policy and audit log lie inside a workspace.

use std::path::Path;

use serde_json::{Value, json};

use crate::cli_support::{holon, holon_command};

const LIST: [&str; 3] = ["call", "ListWorkItems", r#"{"filter": "all"}"#];

fn same_dir(a: &Path, b: &Path) -> bool {
    a.canonicalize().unwrap() == b.canonicalize().unwrap()
}

#[test]
fn a_policy_file_inside_the_workspace_is_refused_at_start() {
    let workspace = tempfile::tempdir().unwrap();
    let ws = workspace.path();
    let inside = ws.join("policy.toml");
    std::fs::write(&inside, "default = \"allow\"\n").unwrap();
    let refused = holon(
        ws,
        &[&["--policy", inside.to_str().unwrap()][..], &LIST].concat(),
    );
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("--policy"), "{stderr}");
    assert!(stderr.contains("inside the workspace"), "{stderr}");
    assert!(stderr.contains("move it outside"), "{stderr}");
    // Through a link outside the workspace too: the file is still the model's.
    let outside = tempfile::tempdir().unwrap();
    let link = outside.path().join("policy.toml");
    std::os::unix::fs::symlink(&inside, &link).unwrap();
    let refused = holon(
        ws,
        &[&["--policy", link.to_str().unwrap()][..], &LIST].concat(),
    );
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");

    // Outside every workspace it applies.
    let file = outside.path().join("mine.toml");
    std::fs::write(&file, "default = \"allow\"\n").unwrap();
    let ran = holon(
        ws,
        &[&["--policy", file.to_str().unwrap()][..], &LIST].concat(),
    );
    assert!(ran.status.success(), "{ran:?}");
}

#[test]
fn an_audit_file_inside_the_workspace_is_refused_at_start() {
    let workspace = tempfile::tempdir().unwrap();
    let ws = workspace.path();
    let inside = ws.join("logs").join("audit.jsonl");
    std::fs::create_dir(ws.join("logs")).unwrap();
    let refused = holon(
        ws,
        &[&["--audit-file", inside.to_str().unwrap()][..], &LIST].concat(),
    );
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("--audit-file"), "{stderr}");
    assert!(stderr.contains("inside the workspace"), "{stderr}");
    assert!(!inside.exists(), "nothing was recorded there");

    let outside = tempfile::tempdir().unwrap();
    let file = outside.path().join("audit.jsonl");
    let ran = holon(
        ws,
        &[&["--audit-file", file.to_str().unwrap()][..], &LIST].concat(),
    );
    assert!(ran.status.success(), "{ran:?}");
    assert!(file.exists());
}

/// `doctor --json` of `ws` with the state directory `state` and `more` options.
fn doctor(ws: &Path, state: &Path, more: &[&str]) -> Value {
    let output = holon_command(ws)
        .env("HOLON_HOME", state)
        .args(more)
        .args(["doctor", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

fn file_of<'a>(report: &'a Value, what: &str) -> &'a Value {
    report["operator_files"]
        .as_array()
        .unwrap_or_else(|| panic!("no operator_files: {report}"))
        .iter()
        .find(|file| file["what"] == what)
        .unwrap_or_else(|| panic!("no {what}: {report}"))
}

#[test]
fn doctor_says_when_the_state_directory_policy_or_audit_log_lies_inside_a_workspace() {
    let workspace = tempfile::tempdir().unwrap();
    let ws = workspace.path();
    let state = ws.join(".holon");
    std::fs::create_dir(&state).unwrap();
    std::fs::write(state.join("policy.toml"), "default = \"allow\"\n").unwrap();
    let report = doctor(ws, &state, &["--audit"]);
    for what in ["state_directory", "policy", "audit_log"] {
        let inside = &file_of(&report, what)["inside_workspace"];
        assert!(
            inside
                .as_str()
                .is_some_and(|dir| same_dir(Path::new(dir), ws)),
            "{what}: {report:#}"
        );
    }
    let gaps = report["gaps"].to_string();
    assert!(gaps.contains("the state directory"), "{gaps}");
    assert!(gaps.contains("the audit log"), "{gaps}");

    let text = holon_command(ws)
        .env("HOLON_HOME", &state)
        .args(["doctor"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("the state directory inside the workspace included"),
        "{text}"
    );
    assert!(!text.contains("no state directory"), "{text}");
    assert!(text.contains("not protected"), "{text}");

    // Outside the workspace, each is said to be.
    let elsewhere = tempfile::tempdir().unwrap();
    let report = doctor(ws, elsewhere.path(), &["--audit"]);
    for what in ["state_directory", "audit_log"] {
        assert_eq!(
            file_of(&report, what)["inside_workspace"],
            Value::Null,
            "{what}: {report:#}"
        );
    }
    assert!(!report["gaps"].to_string().contains("state directory"));
}

#[test]
fn an_attached_workspace_counts_as_a_workspace() {
    let home = tempfile::tempdir().unwrap();
    let attached = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let attach = holon_command(home.path())
        .env("HOLON_HOME", state.path())
        .args(["--policy", "none", "call", "AttachWorkspace"])
        .arg(json!({ "path": attached.path() }).to_string())
        .output()
        .unwrap();
    assert!(attach.status.success(), "{attach:?}");
    let policy = attached.path().join("policy.toml");
    std::fs::write(&policy, "default = \"allow\"\n").unwrap();
    let named = ["--policy", policy.to_str().unwrap()];

    let report = doctor(home.path(), state.path(), &named);
    let inside = &file_of(&report, "policy")["inside_workspace"];
    assert!(
        inside
            .as_str()
            .is_some_and(|dir| same_dir(Path::new(dir), attached.path())),
        "{report:#}"
    );
    let refused = holon_command(home.path())
        .env("HOLON_HOME", state.path())
        .args(named)
        .args(LIST)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("--policy"),
        "{refused:?}"
    );
}
