//! Worktree records planted in the store, as a command that writes the SQLite file
//! would plant them: one that binds a `.git` directory or the state directory (or a
//! directory inside one) binds nothing, so ApplyPatch cannot write a git hook or
//! into the state directory through it.

use std::path::Path;
use std::sync::Arc;

use holon_core::{FamilyPolicy, Registry, ToolCall};
use holon_runtime::{Runtime, RuntimeConfig, STORE_FILE_NAME};
use serde_json::{Value, json};

fn open(workspace: &Path, state: &Path) -> Arc<Runtime> {
    Runtime::open(RuntimeConfig {
        state_dir: Some(state.to_path_buf()),
        ..RuntimeConfig::new(workspace)
    })
    .unwrap()
}

/// Plants a worktree of the home workspace at `path` and makes it the active root,
/// straight into the store.
fn plant(state: &Path, id: &str, path: &Path) {
    let connection = rusqlite::Connection::open(state.join(STORE_FILE_NAME)).unwrap();
    connection
        .execute(
            "INSERT INTO workspace_worktrees
               (execution_root_id, workspace_id, path, branch, base_ref, label, branch_created, created_at_ms)
             VALUES (?1, 'home', ?2, 'main', 'HEAD', NULL, 0, 0)",
            rusqlite::params![id, path.to_str().unwrap()],
        )
        .unwrap();
    connection
        .execute(
            "INSERT INTO workspace_active (slot, execution_root_id, cwd) VALUES (1, ?1, NULL)
             ON CONFLICT (slot) DO UPDATE SET execution_root_id = excluded.execution_root_id, cwd = NULL",
            rusqlite::params![id],
        )
        .unwrap();
}

async fn apply_patch(runtime: &Arc<Runtime>, patch: &str) -> Value {
    let context = runtime.context(FamilyPolicy::all());
    let result = Registry::global()
        .dispatch(
            &context,
            ToolCall::new("ApplyPatch", json!({ "patch": patch })),
        )
        .await;
    serde_json::to_value(&result).unwrap()
}

#[tokio::test]
async fn a_planted_worktree_in_git_or_the_state_directory_binds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws");
    let state = dir.path().join("state");
    std::fs::create_dir_all(workspace.join(".git/hooks")).unwrap();
    std::fs::write(workspace.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    drop(open(&workspace, &state));
    std::fs::create_dir_all(state.join("inside")).unwrap();
    let workspace = workspace.canonicalize().unwrap();
    let state = state.canonicalize().unwrap();

    let cases = [
        ("wt-git", workspace.join(".git")),
        ("wt-hooks", workspace.join(".git/hooks")),
        ("wt-state", state.clone()),
        ("wt-inside-state", state.join("inside")),
    ];
    let mut written = Vec::new();
    let mut bound = Vec::new();
    for (id, planted) in &cases {
        plant(&state, id, planted);
        // The next runtime on this state directory (a restart) reads the record.
        let runtime = open(&workspace, &state);
        let roots = runtime.workspace_roots();
        if roots
            .dirs()
            .iter()
            .any(|root| root.path() == planted.as_path())
        {
            bound.push(*id);
        }
        for (name, target) in [
            ("relative", "planted-by-relative".to_string()),
            (
                "absolute",
                planted.join("planted-by-absolute").display().to_string(),
            ),
        ] {
            let patch =
                format!("*** Begin Patch\n*** Add File: {target}\n+#!/bin/sh\n*** End Patch\n");
            let envelope = apply_patch(&runtime, &patch).await;
            let landed = ["planted-by-relative", "planted-by-absolute"]
                .iter()
                .any(|file| planted.join(file).exists());
            if landed {
                written.push(format!("{id} ({name})"));
                let _ = std::fs::remove_file(planted.join("planted-by-relative"));
                let _ = std::fs::remove_file(planted.join("planted-by-absolute"));
            }
            if name == "absolute" && envelope["status"] != "error" {
                written.push(format!("{id} ({name}): {}", envelope["status"]));
            }
        }
        let connection = rusqlite::Connection::open(state.join(STORE_FILE_NAME)).unwrap();
        connection
            .execute(
                "DELETE FROM workspace_worktrees WHERE execution_root_id = ?1",
                [id],
            )
            .unwrap();
    }
    assert!(
        bound.is_empty() && written.is_empty(),
        "{} of {} planted worktrees were bound ({bound:?}); ApplyPatch wrote through them: {written:?}",
        bound.len(),
        cases.len()
    );
}
