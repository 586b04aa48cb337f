//! Worktree records planted in `.git/worktrees/`: CreateWorktree with
//! `on_existing: reuse` must not adopt a directory outside the runtime's worktree
//! directory, however `git worktree list` prints it.

use serde_json::json;

use holon_tool_fixtures::workspace::{Fixture, git, init_repo};

/// A record in `home/.git/worktrees/<name>/` claiming `branch` is checked out at the
/// directory whose `.git` is `gitdir`.
fn plant_record(fx: &Fixture, name: &str, gitdir: &str, branch: &str) {
    let record = fx.mkdir(&format!("home/.git/worktrees/{name}"));
    std::fs::write(record.join("gitdir"), format!("{gitdir}\n")).unwrap();
    std::fs::write(record.join("HEAD"), format!("ref: refs/heads/{branch}\n")).unwrap();
    std::fs::write(record.join("commondir"), "../..\n").unwrap();
}

fn reuse(branch: &str) -> serde_json::Value {
    json!({
        "workspace_id": "home",
        "branch": branch,
        "base_ref": "main",
        "on_existing": "reuse",
    })
}

#[tokio::test]
async fn a_worktree_record_pointing_at_the_root_is_not_adopted() {
    let fx = Fixture::new();
    init_repo(&fx.home());
    git(&fx.home(), &["branch", "topic"]);
    // `git worktree list` prints `worktree /` for this record.
    plant_record(&fx, "evil", "//.git", "topic");
    let listed = git(&fx.home(), &["worktree", "list", "--porcelain"]);
    assert!(listed.contains("worktree /\n"), "{listed}");

    let error = fx
        .fails("CreateWorktree", reuse("topic"), "worktree_outside_allowed")
        .await;
    assert!(error["recovery_hint"].is_string(), "{error}");
    let state = fx.ok("GetWorkspaceState", json!({})).await;
    assert_eq!(state["worktrees"], json!([]), "bound: {state}");
    assert!(fx.runtime.workspace_roots().active_root() == fx.home());
}

#[tokio::test]
async fn a_worktree_record_pointing_at_another_checkout_is_not_adopted() {
    let fx = Fixture::new();
    init_repo(&fx.home());
    git(&fx.home(), &["branch", "topic"]);
    let elsewhere = fx.mkdir("elsewhere");
    std::fs::write(elsewhere.join(".git"), "gitdir: nowhere\n").unwrap();
    plant_record(
        &fx,
        "other",
        &elsewhere.join(".git").to_string_lossy(),
        "topic",
    );
    fx.fails("CreateWorktree", reuse("topic"), "worktree_outside_allowed")
        .await;
    assert!(fx.runtime.workspace_roots().active_root() == fx.home());
    // A worktree the runtime made itself is still reused.
    fx.ok(
        "CreateWorktree",
        json!({"workspace_id": "home", "branch": "fresh", "base_ref": "main"}),
    )
    .await;
    let again = fx.ok("CreateWorktree", reuse("fresh")).await;
    assert_eq!(again["reused"], true, "{again}");
}
