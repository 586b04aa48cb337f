//! GetWorkspaceState, AttachWorkspace, DetachWorkspace and SwitchWorkspace through
//! `registry.dispatch`, on real directories.

use holon_core::{FamilyPolicy, Registry, ToolCapabilityFamily};
use holon_runtime::Runtime;
use holon_tool_fixtures::workspace::{Fixture, call_with};
use serde_json::{Value, json};

fn add_file(path: &str, line: &str) -> String {
    format!("*** Begin Patch\n*** Add File: {path}\n+{line}\n*** End Patch\n")
}

#[tokio::test]
async fn a_fresh_runtime_has_only_its_home_active() {
    let fx = Fixture::new();
    let state = fx.ok("GetWorkspaceState", json!({})).await;
    assert_eq!(state["home_workspace_id"], "home");
    assert_eq!(state["active_execution_root_id"], "home");
    assert_eq!(state["active_root"], fx.home().to_str().unwrap());
    assert_eq!(state["working_directory"], state["active_root"]);
    let workspaces = state["workspaces"].as_array().unwrap();
    assert_eq!(workspaces.len(), 1);
    assert_eq!(workspaces[0]["kind"], "home");
    assert_eq!(workspaces[0]["is_active"], true);
    assert_eq!(workspaces[0]["is_git_repository"], false);
    assert_eq!(state["worktrees"], json!([]));
    assert_eq!(state["running_task_count"], 0);
    fx.fails(
        "GetWorkspaceState",
        json!({"verbose": true}),
        "unknown_field",
    )
    .await;
}

#[tokio::test]
async fn attaching_widens_confinement_and_detaching_narrows_it() {
    let fx = Fixture::new();
    let other = fx.mkdir("other");
    let target = other.join("notes.txt");
    // ApplyPatch takes relative paths only; this one climbs out of home.
    let patch = add_file("../other/notes.txt", "outside");

    fx.fails(
        "ApplyPatch",
        json!({"patch": patch}),
        "path_outside_workspace",
    )
    .await;
    let attached = fx
        .ok("AttachWorkspace", json!({"path": other.to_str().unwrap()}))
        .await;
    assert_eq!(attached["attached_workspace_id"], "ws-other");
    assert_eq!(attached["already_attached"], false);
    assert_eq!(attached["workspace_count"], 2);
    assert!(fx.runtime.workspace_roots().roots().contains(&other));

    // The same path leads into the attached workspace now.
    fx.ok("ApplyPatch", json!({"patch": patch})).await;
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "outside\n");

    // Attaching again (here by a relative path) is idempotent.
    let again = fx.ok("AttachWorkspace", json!({"path": "../other"})).await;
    assert_eq!(again["attached_workspace_id"], "ws-other");
    assert_eq!(again["already_attached"], true);

    let detached = fx
        .ok("DetachWorkspace", json!({"workspace_id": "ws-other"}))
        .await;
    assert_eq!(detached["fell_back_to_home"], false);
    assert_eq!(detached["active_execution_root_id"], "home");
    let patch = add_file("../other/more.txt", "x");
    fx.fails(
        "ApplyPatch",
        json!({"patch": patch}),
        "path_outside_workspace",
    )
    .await;
    assert!(target.exists(), "detaching leaves the directory alone");
}

#[tokio::test]
async fn attach_refuses_missing_files_nested_and_overlapping_directories() {
    let fx = Fixture::new();
    let file = fx.write("a-file.txt", "x");
    fx.mkdir("home/sub");
    let cases = [
        (
            json!({"path": fx.path("missing").to_str().unwrap()}),
            "workspace_path_not_found",
        ),
        (json!({"path": file.to_str().unwrap()}), "not_a_directory"),
        (json!({"path": "sub"}), "workspace_overlaps"),
        (
            json!({"path": fx.dir.path().to_str().unwrap()}),
            "workspace_overlaps",
        ),
        (json!({"path": "/"}), "workspace_overlaps"),
        (json!({"path": ""}), "invalid_tool_input"),
        (json!({}), "invalid_tool_input"),
        (json!({"path": "x", "workspace_id": "y"}), "unknown_field"),
    ];
    for (input, kind) in cases {
        let error = fx.fails("AttachWorkspace", input.clone(), kind).await;
        assert!(!error["message"].as_str().unwrap().is_empty(), "{input}");
    }
    let overlap = fx
        .fails(
            "AttachWorkspace",
            json!({"path": "sub"}),
            "workspace_overlaps",
        )
        .await;
    assert!(
        overlap["recovery_hint"]
            .as_str()
            .unwrap()
            .contains("SwitchWorkspace")
    );
    let state = fx.ok("GetWorkspaceState", json!({})).await;
    assert_eq!(state["workspaces"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn attach_and_detach_need_the_authority_expanding_family() {
    let fx = Fixture::new();
    let other = fx.mkdir("other");
    let policy = FamilyPolicy::all().without(ToolCapabilityFamily::AuthorityExpanding);
    for (name, input) in [
        ("AttachWorkspace", json!({"path": other.to_str().unwrap()})),
        ("DetachWorkspace", json!({"workspace_id": "home"})),
        ("RemoveWorktree", json!({"execution_root_id": "wt-x"})),
    ] {
        let envelope = call_with(&fx.runtime, policy, name, input).await;
        assert_eq!(
            envelope["error"]["kind"], "family_not_allowed",
            "{envelope}"
        );
    }
    for name in ["AttachWorkspace", "DetachWorkspace", "RemoveWorktree"] {
        let definition = Registry::global().get(name).unwrap();
        assert_eq!(definition.family, ToolCapabilityFamily::AuthorityExpanding);
    }
    for name in ["GetWorkspaceState", "SwitchWorkspace", "CreateWorktree"] {
        let definition = Registry::global().get(name).unwrap();
        assert_eq!(definition.family, ToolCapabilityFamily::LocalEnvironment);
    }
}

#[tokio::test]
async fn detach_refuses_home_and_unknown_ids_and_falls_back_to_home() {
    let fx = Fixture::new();
    fx.fails(
        "DetachWorkspace",
        json!({"workspace_id": "home"}),
        "cannot_detach_home",
    )
    .await;
    let other = fx.mkdir("other");
    fx.ok("AttachWorkspace", json!({"path": other.to_str().unwrap()}))
        .await;
    let unknown = fx
        .fails(
            "DetachWorkspace",
            json!({"workspace_id": "ws-othr"}),
            "unknown_workspace",
        )
        .await;
    assert!(
        unknown["recovery_hint"]
            .as_str()
            .unwrap()
            .contains("ws-other")
    );

    fx.ok("SwitchWorkspace", json!({"workspace_id": "ws-other"}))
        .await;
    assert_eq!(fx.runtime.workspace_roots().active_root(), other);
    let detached = fx
        .ok("DetachWorkspace", json!({"workspace_id": "ws-other"}))
        .await;
    assert_eq!(detached["fell_back_to_home"], true);
    assert_eq!(detached["active_execution_root_id"], "home");
    assert_eq!(fx.runtime.workspace_roots().active_root(), fx.home());
    let state = fx.ok("GetWorkspaceState", json!({})).await;
    assert_eq!(state["active_execution_root_id"], "home");
}

#[tokio::test]
async fn switch_takes_exactly_one_target_as_its_schema_says() {
    let fx = Fixture::new();
    let schema = &Registry::global()
        .get("SwitchWorkspace")
        .unwrap()
        .spec
        .input_schema;
    // Providers refuse combinators at the root of a tool schema: the rule is an
    // `if`/`then`/`else` chain instead.
    for keyword in ["oneOf", "anyOf", "allOf", "not", "enum"] {
        assert!(
            schema.get(keyword).is_none(),
            "{keyword} at the root: {schema}"
        );
    }
    assert!(schema.get("if").is_some() && schema.get("else").is_some());

    let bad = [
        json!({}),
        json!({"cwd": "x"}),
        json!({"workspace_id": null}),
        json!({"workspace_id": "home", "execution_root_id": "home"}),
        json!({"workspace_id": "home", "path": "."}),
        json!({"execution_root_id": "home", "path": "."}),
        json!({"workspace_id": "home", "execution_root_id": "home", "path": "."}),
        json!({"workspace_id": ""}),
        json!({"workspace_id": 7}),
    ];
    for input in bad {
        let envelope = fx.call("SwitchWorkspace", input.clone()).await;
        assert_eq!(
            envelope["error"]["kind"], "invalid_tool_input",
            "{input}: {envelope}"
        );
    }
    // A null counts as absent, as a strict-mode model sends it.
    fx.ok(
        "SwitchWorkspace",
        json!({"workspace_id": "home", "execution_root_id": null, "path": null, "cwd": null}),
    )
    .await;
    fx.ok("SwitchWorkspace", json!({"execution_root_id": "home"}))
        .await;
    fx.ok("SwitchWorkspace", json!({"path": "."})).await;
}

#[tokio::test]
async fn switch_moves_the_working_directory_that_other_tools_resolve_against() {
    let fx = Fixture::new();
    fx.mkdir("home/docs/guides");
    let other = fx.mkdir("other/src");
    let other = other.parent().unwrap().to_path_buf();
    fx.ok("AttachWorkspace", json!({"path": other.to_str().unwrap()}))
        .await;

    let switched = fx
        .ok(
            "SwitchWorkspace",
            json!({"workspace_id": "ws-other", "cwd": "src"}),
        )
        .await;
    assert_eq!(switched["active_execution_root_id"], "ws-other");
    assert_eq!(switched["previous_execution_root_id"], "home");
    assert_eq!(
        switched["working_directory"],
        other.join("src").to_str().unwrap()
    );
    fx.ok("ApplyPatch", json!({"patch": add_file("lib.md", "in src")}))
        .await;
    assert!(other.join("src/lib.md").is_file());
    // `..` may climb to the root of the active workspace, not out of it.
    fx.ok("ApplyPatch", json!({"patch": add_file("../top.md", "top")}))
        .await;
    assert!(other.join("top.md").is_file());

    let by_path = fx
        .ok(
            "SwitchWorkspace",
            json!({"path": fx.home().join("docs").to_str().unwrap(), "cwd": "guides"}),
        )
        .await;
    assert_eq!(by_path["active_execution_root_id"], "home");
    assert_eq!(
        by_path["working_directory"],
        fx.home().join("docs/guides").to_str().unwrap()
    );
    let state = fx.ok("GetWorkspaceState", json!({})).await;
    assert_eq!(state["working_directory"], by_path["working_directory"]);
    assert_eq!(state["active_root"], fx.home().to_str().unwrap());
}

#[tokio::test]
async fn switch_refuses_unknown_targets_and_directories_outside_them() {
    let fx = Fixture::new();
    fx.write("home/file.md", "x");
    let outside = fx.mkdir("outside");
    let cases = [
        (
            json!({"workspace_id": "hom"}),
            "unknown_workspace",
            "workspace_id",
        ),
        (
            json!({"execution_root_id": "wt-nope"}),
            "unknown_execution_root",
            "execution_root_id",
        ),
        (
            json!({"path": outside.to_str().unwrap()}),
            "path_outside_workspace",
            "path",
        ),
        (
            json!({"path": "../outside"}),
            "path_outside_workspace",
            "path",
        ),
        (json!({"path": "missing"}), "directory_not_found", "path"),
        (json!({"path": "file.md"}), "not_a_directory", "path"),
        (
            json!({"workspace_id": "home", "cwd": "../outside"}),
            "path_outside_workspace",
            "cwd",
        ),
        (
            json!({"workspace_id": "home", "cwd": "nope"}),
            "directory_not_found",
            "cwd",
        ),
    ];
    for (input, kind, field) in cases {
        let error = fx.fails("SwitchWorkspace", input.clone(), kind).await;
        assert_eq!(error["field"], field, "{input}: {error}");
    }
    let hint = fx
        .fails(
            "SwitchWorkspace",
            json!({"workspace_id": "hom"}),
            "unknown_workspace",
        )
        .await;
    assert!(hint["recovery_hint"].as_str().unwrap().contains("`home`"));
    assert_eq!(fx.runtime.workspace_roots().active(), fx.home());
}

#[tokio::test]
async fn bindings_and_the_active_root_survive_a_restart() {
    let fx = Fixture::on_disk();
    let other = fx.mkdir("other/sub");
    let other = other.parent().unwrap().to_path_buf();
    fx.ok("AttachWorkspace", json!({"path": other.to_str().unwrap()}))
        .await;
    fx.ok(
        "SwitchWorkspace",
        json!({"workspace_id": "ws-other", "cwd": "sub"}),
    )
    .await;
    let home = fx.home();
    drop(fx.runtime);

    let reopened = Runtime::open(holon_tool_fixtures::runtime::config_with_state_in(
        fx.dir.path().join("home"),
    ))
    .unwrap();
    assert_eq!(reopened.workspace_roots().active(), other.join("sub"));
    assert_eq!(reopened.workspace_roots().active_root(), other);
    let state = call_with(
        &reopened,
        FamilyPolicy::all(),
        "GetWorkspaceState",
        json!({}),
    )
    .await;
    let ids: Vec<&Value> = state["structured"]["workspaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| &w["workspace_id"])
        .collect();
    assert_eq!(ids, [&json!("home"), &json!("ws-other")]);

    // A workspace whose directory vanished is reported missing; home takes over.
    drop(reopened);
    std::fs::remove_dir_all(&other).unwrap();
    let reopened = Runtime::open(holon_tool_fixtures::runtime::config_with_state_in(
        fx.dir.path().join("home"),
    ))
    .unwrap();
    assert_eq!(reopened.workspace_roots().active_root(), home);
    let state = call_with(
        &reopened,
        FamilyPolicy::all(),
        "GetWorkspaceState",
        json!({}),
    )
    .await;
    assert_eq!(state["structured"]["workspaces"][1]["available"], false);
    assert_eq!(state["structured"]["active_execution_root_id"], "home");
}

#[tokio::test]
async fn occupancy_counts_running_tasks_per_root() {
    let fx = Fixture::new();
    let other = fx.mkdir("other");
    fx.ok("AttachWorkspace", json!({"path": other.to_str().unwrap()}))
        .await;
    let started = fx
        .ok(
            "ExecCommand",
            json!({"cmd": "sleep 300", "yield_time_ms": 0, "workdir": other.to_str().unwrap()}),
        )
        .await;
    assert_eq!(started["disposition"], "promoted_to_task", "{started}");
    let state = fx.ok("GetWorkspaceState", json!({})).await;
    assert_eq!(state["running_task_count"], 1);
    assert_eq!(state["workspaces"][0]["running_tasks"], 0);
    assert_eq!(state["workspaces"][1]["running_tasks"], 1);

    let detached = fx
        .ok("DetachWorkspace", json!({"workspace_id": "ws-other"}))
        .await;
    assert_eq!(detached["running_tasks"], 1);
    let task_id = started["task_handle"]["task_id"].clone();
    fx.ok("TaskStop", json!({"task_id": task_id})).await;
    let state = fx.ok("GetWorkspaceState", json!({})).await;
    assert_eq!(state["running_task_count"], 0);
}
