//! CreateWorktree and RemoveWorktree through `registry.dispatch`, against real git
//! repositories made in temporary directories.

use holon_tool_fixtures::workspace::{Fixture, git, has_branch, init_repo};
use serde_json::json;

fn repo_fixture() -> Fixture {
    let fx = Fixture::new();
    init_repo(&fx.home());
    fx
}

fn create(branch: &str) -> serde_json::Value {
    json!({"workspace_id": "home", "branch": branch, "base_ref": "main"})
}

#[tokio::test]
async fn create_worktree_adds_a_real_worktree_on_a_new_branch_and_activates_it() {
    let fx = repo_fixture();
    let created = fx.ok("CreateWorktree", create("feature/login")).await;
    assert_eq!(created["execution_root_id"], "wt-feature-login");
    assert_eq!(created["branch_name"], "feature/login");
    assert_eq!(created["branch_created"], true);
    assert_eq!(created["reused"], false);
    assert_eq!(created["is_active"], true);
    assert_eq!(created["owner_workspace_id"], "home");
    let path = std::path::PathBuf::from(created["root_path"].as_str().unwrap());
    assert!(path.join("README.md").is_file());
    assert!(has_branch(&fx.home(), "feature/login"));
    let head = git(&fx.home(), &["rev-parse", "main"]);
    assert_eq!(created["head_commit"], head.trim());
    let listed = git(&fx.home(), &["worktree", "list", "--porcelain"]);
    assert!(
        listed.contains("branch refs/heads/feature/login"),
        "{listed}"
    );

    // Relative paths now land in the worktree, not in the workspace's own checkout.
    let patch = "*** Begin Patch\n*** Add File: new.md\n+in the worktree\n*** End Patch\n";
    fx.ok("ApplyPatch", json!({"patch": patch})).await;
    assert!(path.join("new.md").is_file());
    assert!(!fx.home().join("new.md").exists());

    let state = fx.ok("GetWorkspaceState", json!({})).await;
    assert_eq!(state["active_execution_root_id"], "wt-feature-login");
    assert_eq!(state["active_workspace_id"], "home");
    assert_eq!(state["worktrees"][0]["branch"], "feature/login");
    assert_eq!(state["worktrees"][0]["base_ref"], "main");
    assert_eq!(state["worktrees"][0]["is_active"], true);
    assert_eq!(state["workspaces"][0]["is_git_repository"], true);

    // A label names the worktree; `activate: false` leaves the active root alone.
    let labelled = fx
        .ok(
            "CreateWorktree",
            json!({"workspace_id": "home", "branch": "fix-1", "base_ref": "HEAD", "label": "Hot Fix", "activate": false}),
        )
        .await;
    assert_eq!(labelled["execution_root_id"], "wt-hot-fix");
    assert_eq!(labelled["is_active"], false);
    let state = fx.ok("GetWorkspaceState", json!({})).await;
    assert_eq!(state["active_execution_root_id"], "wt-feature-login");
    assert_eq!(state["worktrees"][1]["label"], "Hot Fix");
    fx.ok(
        "SwitchWorkspace",
        json!({"execution_root_id": "wt-hot-fix"}),
    )
    .await;
}

#[tokio::test]
async fn an_existing_branch_is_an_error_unless_reused() {
    let fx = repo_fixture();
    git(&fx.home(), &["branch", "topic"]);
    let error = fx
        .fails("CreateWorktree", create("topic"), "branch_exists")
        .await;
    assert_eq!(error["field"], "branch");
    assert!(error["recovery_hint"].as_str().unwrap().contains("reuse"));
    let mut explicit = create("topic");
    explicit["on_existing"] = json!("error");
    fx.fails("CreateWorktree", explicit, "branch_exists").await;

    let mut reuse = create("topic");
    reuse["on_existing"] = json!("reuse");
    let first = fx.ok("CreateWorktree", reuse.clone()).await;
    assert_eq!(first["branch_created"], false);
    assert_eq!(first["reused"], false);
    // The same call again returns the worktree that has the branch.
    let again = fx.ok("CreateWorktree", reuse).await;
    assert_eq!(again["reused"], true);
    assert_eq!(again["execution_root_id"], first["execution_root_id"]);
    let state = fx.ok("GetWorkspaceState", json!({})).await;
    assert_eq!(state["worktrees"].as_array().unwrap().len(), 1);

    // The branch of the main working tree cannot be checked out a second time.
    let mut main = create("main");
    main["on_existing"] = json!("reuse");
    fx.fails("CreateWorktree", main, "branch_checked_out").await;
}

#[tokio::test]
async fn create_worktree_refuses_bad_inputs_with_typed_errors() {
    let fx = Fixture::new();
    // The home workspace is not a repository yet.
    let error = fx
        .fails("CreateWorktree", create("x"), "not_a_git_repository")
        .await;
    assert_eq!(error["field"], "workspace_id");
    init_repo(&fx.home());
    let cases = [
        (
            json!({"workspace_id": "nope", "branch": "x", "base_ref": "main"}),
            "unknown_workspace",
        ),
        (create("bad..name"), "invalid_branch_name"),
        (create("-x"), "invalid_branch_name"),
        (create("with space"), "invalid_branch_name"),
        (
            json!({"workspace_id": "home", "branch": "x", "base_ref": "no-such-ref"}),
            "unknown_base_ref",
        ),
        (
            json!({"workspace_id": "home", "branch": "x", "base_ref": "--all"}),
            "unknown_base_ref",
        ),
        (
            json!({"workspace_id": "home", "branch": "x", "base_ref": "main", "on_existing": "replace"}),
            "invalid_tool_input",
        ),
        (
            json!({"workspace_id": "home", "branch": "", "base_ref": "main"}),
            "invalid_tool_input",
        ),
        (
            json!({"workspace_id": "home", "branch": "x"}),
            "invalid_tool_input",
        ),
        (
            json!({"workspace_id": "home", "branch": "x", "base_ref": "main", "path": "/tmp"}),
            "unknown_field",
        ),
    ];
    for (input, kind) in cases {
        fx.fails("CreateWorktree", input, kind).await;
    }
    assert!(!has_branch(&fx.home(), "x"));
    let state = fx.ok("GetWorkspaceState", json!({})).await;
    assert_eq!(state["worktrees"], json!([]));
}

#[tokio::test]
async fn remove_worktree_refuses_uncommitted_changes() {
    let fx = repo_fixture();
    let created = fx.ok("CreateWorktree", create("wip")).await;
    let path = std::path::PathBuf::from(created["root_path"].as_str().unwrap());
    let remove = json!({"execution_root_id": "wt-wip"});

    std::fs::write(path.join("README.md"), "changed\n").unwrap();
    let error = fx
        .fails("RemoveWorktree", remove.clone(), "worktree_dirty")
        .await;
    assert!(
        error["message"].as_str().unwrap().contains("README.md"),
        "{error}"
    );
    assert_eq!(error["details"]["change_count"], 1);
    git(&path, &["checkout", "--", "README.md"]);

    std::fs::write(path.join("untracked.txt"), "new\n").unwrap();
    fx.fails("RemoveWorktree", remove.clone(), "worktree_dirty")
        .await;
    assert!(path.is_dir(), "nothing was removed");

    git(&path, &["add", "untracked.txt"]);
    git(&path, &["commit", "-q", "-m", "work"]);
    let removed = fx.ok("RemoveWorktree", remove).await;
    assert_eq!(removed["branch_deleted"], false);
    assert_eq!(removed["switched_active"], true, "{removed}");
    assert_eq!(removed["active_execution_root_id"], "home");
    assert!(!path.exists());
    assert!(
        has_branch(&fx.home(), "wip"),
        "the default policy keeps the branch"
    );
    assert_eq!(fx.runtime.workspace_roots().active_root(), fx.home());
}

#[tokio::test]
async fn delete_if_merged_deletes_only_merged_branches() {
    let fx = repo_fixture();
    // `merged` has no commit of its own: it is merged into main.
    fx.ok("CreateWorktree", create("merged")).await;
    let removed = fx
        .ok(
            "RemoveWorktree",
            json!({"execution_root_id": "wt-merged", "branch_policy": "delete_if_merged"}),
        )
        .await;
    assert_eq!(removed["branch_deleted"], true, "{removed}");
    assert!(!has_branch(&fx.home(), "merged"));

    // `ahead` has a commit main lacks: kept, with the reason.
    let created = fx.ok("CreateWorktree", create("ahead")).await;
    let path = std::path::PathBuf::from(created["root_path"].as_str().unwrap());
    std::fs::write(path.join("f.txt"), "x\n").unwrap();
    git(&path, &["add", "f.txt"]);
    git(&path, &["commit", "-q", "-m", "ahead"]);
    let removed = fx
        .ok(
            "RemoveWorktree",
            json!({"execution_root_id": "wt-ahead", "branch_policy": "delete_if_merged", "merged_into": "main"}),
        )
        .await;
    assert_eq!(removed["branch_deleted"], false);
    assert!(
        removed["branch_kept_reason"]
            .as_str()
            .unwrap()
            .contains("not merged")
    );
    assert!(has_branch(&fx.home(), "ahead"));
}

#[tokio::test]
async fn remove_worktree_refuses_unknown_ids_workspaces_and_bad_return_targets() {
    let fx = repo_fixture();
    fx.ok("CreateWorktree", create("one")).await;
    let cases = [
        (
            json!({"execution_root_id": "wt-onee"}),
            "worktree_not_found",
        ),
        (json!({"execution_root_id": "home"}), "not_a_worktree"),
        (
            json!({"execution_root_id": "wt-one", "return_to": "nowhere"}),
            "unknown_execution_root",
        ),
        (
            json!({"execution_root_id": "wt-one", "return_to": "wt-one"}),
            "invalid_return_to",
        ),
        (
            json!({"execution_root_id": "wt-one", "branch_policy": "delete_if_merged", "merged_into": "no-such"}),
            "unknown_ref",
        ),
        (
            json!({"execution_root_id": "wt-one", "branch_policy": "delete"}),
            "invalid_tool_input",
        ),
        (
            json!({"execution_root_id": "wt-one", "force": true}),
            "unknown_field",
        ),
    ];
    for (input, kind) in cases {
        fx.fails("RemoveWorktree", input, kind).await;
    }
    let hint = fx
        .fails(
            "RemoveWorktree",
            json!({"execution_root_id": "wt-onee"}),
            "worktree_not_found",
        )
        .await;
    assert!(hint["recovery_hint"].as_str().unwrap().contains("wt-one"));
    assert!(has_branch(&fx.home(), "one"));
    let state = fx.ok("GetWorkspaceState", json!({})).await;
    assert_eq!(state["worktrees"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn removing_the_active_worktree_returns_where_asked() {
    let fx = repo_fixture();
    let other = fx.mkdir("other");
    init_repo(&other);
    fx.ok("AttachWorkspace", json!({"path": other.to_str().unwrap()}))
        .await;
    fx.ok(
        "CreateWorktree",
        json!({"workspace_id": "ws-other", "branch": "b", "base_ref": "main"}),
    )
    .await;
    // A workspace with worktrees cannot be detached.
    fx.fails(
        "DetachWorkspace",
        json!({"workspace_id": "ws-other"}),
        "workspace_has_worktrees",
    )
    .await;
    let removed = fx
        .ok(
            "RemoveWorktree",
            json!({"execution_root_id": "wt-b", "return_to": "home"}),
        )
        .await;
    assert_eq!(removed["active_execution_root_id"], "home");
    fx.ok("DetachWorkspace", json!({"workspace_id": "ws-other"}))
        .await;
}

#[tokio::test]
async fn a_worktree_deleted_behind_the_runtimes_back_is_pruned() {
    let fx = repo_fixture();
    let created = fx.ok("CreateWorktree", create("gone")).await;
    let path = std::path::PathBuf::from(created["root_path"].as_str().unwrap());
    std::fs::remove_dir_all(&path).unwrap();
    let state = fx.ok("GetWorkspaceState", json!({})).await;
    assert_eq!(state["worktrees"][0]["available"], false);
    let removed = fx
        .ok("RemoveWorktree", json!({"execution_root_id": "wt-gone"}))
        .await;
    assert_eq!(removed["directory_was_missing"], true);
    let listed = git(&fx.home(), &["worktree", "list", "--porcelain"]);
    assert!(!listed.contains("refs/heads/gone"), "{listed}");
}

#[tokio::test]
async fn a_worktree_with_a_running_task_is_in_use() {
    // On disk, worktrees live in `<home>/.holon/worktrees/`, inside the home workspace.
    let fx = Fixture::on_disk();
    init_repo(&fx.home());
    let created = fx.ok("CreateWorktree", create("busy")).await;
    assert!(
        created["root_path"]
            .as_str()
            .unwrap()
            .starts_with(fx.home().join(".holon/worktrees").to_str().unwrap())
    );
    let started = fx
        .ok(
            "ExecCommand",
            json!({"cmd": "sleep 300", "yield_time_ms": 0}),
        )
        .await;
    assert_eq!(started["disposition"], "promoted_to_task", "{started}");
    let state = fx.ok("GetWorkspaceState", json!({})).await;
    assert_eq!(state["worktrees"][0]["running_tasks"], 1);
    assert_eq!(
        state["workspaces"][0]["running_tasks"], 0,
        "the deepest root counts it"
    );
    fx.fails(
        "RemoveWorktree",
        json!({"execution_root_id": "wt-busy"}),
        "worktree_in_use",
    )
    .await;
    fx.ok(
        "TaskStop",
        json!({"task_id": started["task_handle"]["task_id"].clone()}),
    )
    .await;
    fx.ok("RemoveWorktree", json!({"execution_root_id": "wt-busy"}))
        .await;
    assert!(!std::path::Path::new(created["root_path"].as_str().unwrap()).exists());
}

#[tokio::test]
async fn a_private_child_in_worktree_mode_gets_a_git_worktree_of_its_own() {
    let fx = repo_fixture();
    let head = git(&fx.home(), &["rev-parse", "HEAD"]);
    let spawned = fx
        .ok(
            "SpawnAgent",
            json!({"initial_message": "fix the docs", "workspace_mode": "worktree"}),
        )
        .await;
    let id = spawned["spawned"]["agent_id"].as_str().unwrap().to_string();
    let worktree = &spawned["worktree"];
    let branch = format!("holon/{id}");
    assert_eq!(worktree["branch_name"], branch, "{spawned}");
    let root = std::path::PathBuf::from(worktree["root_path"].as_str().unwrap());
    assert!(root.join("README.md").is_file(), "a real checkout");
    assert_eq!(
        git(&root, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(),
        branch
    );
    assert_eq!(
        git(&root, &["rev-parse", "HEAD"]),
        head,
        "made from the parent's HEAD"
    );
    assert!(has_branch(&fx.home(), &branch));

    let root_id = worktree["execution_root_id"].clone();
    let state = fx.ok("GetWorkspaceState", json!({})).await;
    assert_eq!(
        state["worktrees"][0]["execution_root_id"], root_id,
        "{state}"
    );
    assert_eq!(
        state["worktrees"][0]["is_active"], false,
        "the parent stays where it was"
    );
    let child = fx.ok("AgentGet", json!({"agent_id": id})).await;
    assert_eq!(child["agent"]["workspace"], "worktree");
    assert_eq!(child["agent"]["worktree_root_id"], root_id);

    fx.ok("RemoveWorktree", json!({"execution_root_id": root_id}))
        .await;
    assert!(!root.exists());
}

#[tokio::test]
async fn worktree_mode_outside_a_git_checkout_spawns_nothing() {
    let fx = Fixture::new();
    let error = fx
        .fails(
            "SpawnAgent",
            json!({"initial_message": "fix the docs", "workspace_mode": "worktree"}),
            "not_a_git_repository",
        )
        .await;
    assert_eq!(error["field"], "workspace_mode");
    assert!(
        error["recovery_hint"].as_str().unwrap().contains("inherit"),
        "{error}"
    );
    let root = fx.ok("AgentGet", json!({})).await;
    assert_eq!(root["agent"]["children"], json!([]), "no agent was created");

    // A repository without a commit has no HEAD to branch from.
    git(&fx.home(), &["init", "-q"]);
    fx.fails(
        "SpawnAgent",
        json!({"initial_message": "fix the docs", "workspace_mode": "worktree"}),
        "unknown_base_ref",
    )
    .await;
    let root = fx.ok("AgentGet", json!({})).await;
    assert_eq!(root["agent"]["children"], json!([]));
}
