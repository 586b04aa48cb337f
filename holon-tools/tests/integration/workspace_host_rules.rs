//! A host calling the workspace service (`Runtime::workspaces`) and a model calling
//! the workspace tools get the same answers: two runtimes on the same directories get
//! the same generated AttachWorkspace, DetachWorkspace and SwitchWorkspace calls, one
//! through the service and one through the tools, and must answer alike (the same
//! record, or the same error with its kind, message, field, details and hint), with
//! the same GetWorkspaceState after every call.

use std::path::Path;
use std::sync::Arc;

use holon_core::{FamilyPolicy, ToolError};
use holon_runtime::workspace::{
    Attached, Detached, SwitchTarget, Switched, WorkspaceError, WorkspaceOverview,
};
use holon_runtime::{Runtime, RuntimeConfig};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use serde_json::{Value, json};

use holon_tool_fixtures::workspace::{call_with, git, init_repo};

/// Paths to attach or switch to, relative to the working directory (which a switch
/// with `cwd` moves): directories beside home, inside it, around it, a file, a
/// symlink, nothing.
const PATHS: &[&str] = &[
    "../a",
    "../b",
    "../a/inner",
    "../link",
    "../file.txt",
    "../missing",
    "sub",
    ".",
    "..",
    "/",
    "../../a",
];

/// Ids to detach or switch to: bound ones, ones that may be, and unknown ones.
const IDS: &[&str] = &["home", "ws-a", "ws-b", "ws-inner", "ws-x", "wt-none"];

/// Working directories to switch into, relative to the target.
const CWDS: &[&str] = &["sub", "inner", "..", "missing", "."];

#[derive(Debug, Clone)]
enum Op {
    Attach(&'static str),
    Detach(&'static str),
    Switch(Target, Option<&'static str>),
}

#[derive(Debug, Clone, Copy)]
enum Target {
    Workspace(&'static str),
    Root(&'static str),
    Path(&'static str),
}

fn op() -> impl Strategy<Value = Op> {
    let path = proptest::sample::select(PATHS);
    let id = proptest::sample::select(IDS);
    let target = prop_oneof![
        id.clone().prop_map(Target::Workspace),
        id.clone().prop_map(Target::Root),
        path.clone().prop_map(Target::Path),
    ];
    prop_oneof![
        3 => path.prop_map(Op::Attach),
        2 => id.prop_map(Op::Detach),
        3 => (target, proptest::option::of(proptest::sample::select(CWDS)))
            .prop_map(|(target, cwd)| Op::Switch(target, cwd)),
    ]
}

/// The error a service call returned, as a model would see it.
fn seen(error: WorkspaceError) -> Value {
    serde_json::to_value(ToolError::from(error)).unwrap()
}

fn text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// What AttachWorkspace answers for the service's record.
fn attached(a: Attached) -> Value {
    json!({
        "attached_workspace_id": a.workspace.workspace_id,
        "root_path": text(&a.workspace.path),
        "already_attached": a.already_attached,
        "is_git_repository": a.is_git_repository,
        "workspace_count": a.workspace_count,
    })
}

/// What DetachWorkspace answers for the service's record.
fn detached(d: Detached) -> Value {
    json!({
        "detached_workspace_id": d.workspace.workspace_id,
        "detached_path": text(&d.workspace.path),
        "active_execution_root_id": d.active_execution_root_id,
        "fell_back_to_home": d.fell_back_to_home,
        "running_tasks": d.running_tasks,
    })
}

/// What SwitchWorkspace answers for the service's record.
fn switched(s: Switched) -> Value {
    json!({
        "active_workspace_id": s.active_workspace_id,
        "active_execution_root_id": s.active_execution_root_id,
        "active_root": text(&s.active_root),
        "working_directory": text(&s.working_directory),
        "previous_execution_root_id": s.previous_execution_root_id,
    })
}

/// What GetWorkspaceState answers for the service's overview.
fn overview(o: WorkspaceOverview) -> Value {
    let workspaces: Vec<Value> = o
        .workspaces
        .into_iter()
        .map(|w| {
            json!({
                "workspace_id": w.binding.workspace_id,
                "path": text(&w.binding.path),
                "kind": w.binding.kind,
                "available": w.available,
                "is_git_repository": w.is_git_repository,
                "is_active": w.is_active,
                "running_tasks": w.running_tasks,
            })
        })
        .collect();
    assert!(o.worktrees.is_empty(), "no operation here makes a worktree");
    json!({
        "home_workspace_id": "home",
        "active_workspace_id": o.active_workspace_id,
        "active_execution_root_id": o.active_execution_root_id,
        "active_root": text(&o.active_root),
        "working_directory": text(&o.working_directory),
        "workspaces": workspaces,
        "worktrees": [],
        "running_task_count": o.running_task_count,
    })
}

/// The tool's answer: its structured result, or its error.
async fn by_tool(rt: &Arc<Runtime>, name: &str, input: Value) -> Result<Value, Value> {
    let envelope = call_with(rt, FamilyPolicy::all(), name, input).await;
    match envelope["status"].as_str() {
        Some("success") => Ok(envelope["structured"].clone()),
        _ => Err(envelope["error"].clone()),
    }
}

/// Applies `op` to `host` through the service and to `tools` through the tools.
async fn both(
    host: &Runtime,
    tools: &Arc<Runtime>,
    op: &Op,
) -> (Result<Value, Value>, Result<Value, Value>) {
    let service = host.workspaces();
    match *op {
        Op::Attach(path) => (
            service.attach(path).map(attached).map_err(seen),
            by_tool(tools, "AttachWorkspace", json!({ "path": path })).await,
        ),
        Op::Detach(id) => (
            service.detach(id).map(detached).map_err(seen),
            by_tool(tools, "DetachWorkspace", json!({ "workspace_id": id })).await,
        ),
        Op::Switch(target, cwd) => {
            let (field, value, target) = match target {
                Target::Workspace(id) => ("workspace_id", id, SwitchTarget::Workspace(id)),
                Target::Root(id) => ("execution_root_id", id, SwitchTarget::ExecutionRoot(id)),
                Target::Path(path) => ("path", path, SwitchTarget::Path(path)),
            };
            let mut input = json!({ field: value });
            if let Some(cwd) = cwd {
                input["cwd"] = json!(cwd);
            }
            (
                service.switch(target, cwd).map(switched).map_err(seen),
                by_tool(tools, "SwitchWorkspace", input).await,
            )
        }
    }
}

/// Directories beside home (`a` with `inner`, `b` a git repository, `link` to `a`, a
/// file) and inside it (`sub`).
fn layout(dir: &Path) {
    for sub in ["home/sub", "a/inner", "b"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    std::fs::write(dir.join("file.txt"), "not a directory\n").unwrap();
    std::os::unix::fs::symlink(dir.join("a"), dir.join("link")).unwrap();
    init_repo(&dir.join("b"));
}

/// Runs `ops` on twin runtimes; the outcome of each: `ok` or the error's kind.
async fn run(ops: Vec<Op>) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    layout(dir.path());
    let open = || Runtime::open(RuntimeConfig::in_memory(dir.path().join("home"))).unwrap();
    let (host, tools) = (open(), open());
    let mut outcomes = Vec::new();
    for (n, op) in ops.iter().enumerate() {
        let (by_service, by_tool) = both(&host, &tools, op).await;
        assert_eq!(by_service, by_tool, "step {n} of {ops:?}");
        outcomes.push(match &by_service {
            Ok(_) => "ok".to_string(),
            Err(error) => error["kind"].as_str().unwrap_or("?").to_string(),
        });
        let state = host.workspaces().state().map(overview).map_err(seen);
        assert_eq!(
            state,
            by_tool_state(&tools).await,
            "state after step {n} of {ops:?}"
        );
    }
    outcomes
}

async fn by_tool_state(tools: &Arc<Runtime>) -> Result<Value, Value> {
    by_tool(tools, "GetWorkspaceState", json!({})).await
}

/// The generated calls reach the rules that matter: successes of each operation and
/// the refusals they share with the tools.
#[tokio::test]
async fn a_fixed_sequence_reaches_successes_and_refusals_of_each_operation() {
    let ops = vec![
        Op::Attach("../a"),
        Op::Attach("../link"),
        Op::Attach("../a/inner"),
        Op::Attach("../file.txt"),
        Op::Attach("../missing"),
        Op::Attach("sub"),
        Op::Attach("../b"),
        Op::Switch(Target::Workspace("ws-a"), Some("inner")),
        Op::Attach("../../b"),
        Op::Switch(Target::Path("../missing"), None),
        Op::Switch(Target::Root("ws-b"), Some("..")),
        Op::Detach("ws-a"),
        Op::Detach("home"),
        Op::Detach("ws-x"),
        Op::Switch(Target::Path("/"), None),
        Op::Switch(Target::Path("../file.txt"), None),
    ];
    let outcomes = run(ops).await;
    assert_eq!(
        outcomes,
        [
            "ok",
            "ok",
            "workspace_overlaps",
            "not_a_directory",
            "workspace_path_not_found",
            "workspace_overlaps",
            "ok",
            "ok",
            "ok",
            "directory_not_found",
            "path_outside_workspace",
            "ok",
            "cannot_detach_home",
            "unknown_workspace",
            "path_outside_workspace",
            "not_a_directory",
        ]
    );
}

/// A runtime on a fresh `home/`, a git checkout when `repo`.
fn spawn_twin(repo: bool) -> (tempfile::TempDir, Arc<Runtime>) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    if repo {
        init_repo(&home);
    }
    let rt = Runtime::open(RuntimeConfig::in_memory(&home)).unwrap();
    (dir, rt)
}

/// `value` with what is the twin's own (its temporary directory, its worktrees
/// directory, its first commit) written as placeholders, so that two twins compare.
fn placeholders(value: &Value, dir: &Path, rt: &Runtime) -> Value {
    let worktrees = rt.bindings().worktrees_dir().unwrap();
    let mut text = value
        .to_string()
        .replace(&text(&worktrees.canonicalize().unwrap()), "<worktrees>")
        .replace(&text(&dir.canonicalize().unwrap()), "<dir>");
    if dir.join("home/.git").is_dir() {
        let head = git(&dir.join("home"), &["rev-parse", "HEAD"]);
        text = text.replace(head.trim(), "<head>");
    }
    serde_json::from_str(&text).unwrap()
}

/// An answer with the twin's own parts as placeholders ([`placeholders`]).
fn placeheld(answer: &Result<Value, Value>, dir: &Path, rt: &Runtime) -> Result<Value, Value> {
    match answer {
        Ok(value) => Ok(placeholders(value, dir, rt)),
        Err(error) => Err(placeholders(error, dir, rt)),
    }
}

/// SpawnAgent in worktree mode and `rt.agents().spawn` make the same agent and the
/// same worktree, bound alike; outside a git checkout both refuse alike and spawn
/// nothing.
#[tokio::test]
async fn a_host_spawn_in_worktree_mode_matches_spawn_agent() {
    use holon_runtime::agency::ROOT_AGENT_ID;
    use holon_runtime::agency::services::{SpawnRequest, WORKTREE_MODE};

    for repo in [true, false] {
        let ((host_dir, host), (tool_dir, tools)) = (spawn_twin(repo), spawn_twin(repo));
        let request = SpawnRequest {
            profile: holon_runtime::agency::AgentProfile::PrivateChild,
            agent_id: None,
            initial_message: Some("fix the docs"),
            model: None,
            template: None,
            workspace_mode: WORKTREE_MODE,
        };
        let by_service = host
            .agents()
            .spawn(ROOT_AGENT_ID, &request)
            .map(|spawned| {
                let worktree = spawned.worktree.unwrap();
                json!({
                    "agent_id": spawned.agent.id,
                    "task_handle": spawned.task_handle,
                    "queued_message_id": spawned.queued_message_id,
                    "worktree": {
                        "execution_root_id": worktree.execution_root_id,
                        "root_path": text(&worktree.path),
                        "branch_name": worktree.branch,
                    },
                })
            })
            .map_err(|e| serde_json::to_value(ToolError::from(e)).unwrap());
        let by_tool = by_tool(
            &tools,
            "SpawnAgent",
            json!({"initial_message": "fix the docs", "workspace_mode": "worktree"}),
        )
        .await
        .map(|spawned| {
            json!({
                "agent_id": spawned["spawned"]["agent_id"],
                "task_handle": spawned["spawned"]["task_handle"],
                "queued_message_id": spawned["queued_message_id"],
                "worktree": spawned["worktree"],
            })
        });
        let by_service = placeheld(&by_service, host_dir.path(), &host);
        assert_eq!(by_service, placeheld(&by_tool, tool_dir.path(), &tools));
        assert_eq!(by_service.is_ok(), repo, "{by_service:?}");
        let state = |rt: &Runtime, dir: &Path| {
            placeholders(
                &overview_with_worktrees(rt.workspaces().state().unwrap()),
                dir,
                rt,
            )
        };
        let tool_state = by_tool_state(&tools).await.unwrap();
        assert_eq!(
            state(&host, host_dir.path()),
            placeholders(&tool_state, tool_dir.path(), &tools)
        );
    }
}

/// What GetWorkspaceState answers for an overview that may hold worktrees.
fn overview_with_worktrees(mut o: WorkspaceOverview) -> Value {
    let worktrees: Vec<Value> = std::mem::take(&mut o.worktrees)
        .into_iter()
        .map(|w| {
            json!({
                "execution_root_id": w.binding.execution_root_id,
                "workspace_id": w.binding.workspace_id,
                "path": text(&w.binding.path),
                "branch": w.binding.branch,
                "base_ref": w.binding.base_ref,
                "label": w.binding.label,
                "available": w.available,
                "is_active": w.is_active,
                "running_tasks": w.running_tasks,
            })
        })
        .collect();
    let mut value = overview(o);
    value["worktrees"] = json!(worktrees);
    value
}

/// A CreateWorktree, RemoveWorktree or SwitchWorkspace call on a checkout.
#[derive(Debug, Clone)]
enum WorktreeOp {
    Create {
        workspace_id: &'static str,
        branch: &'static str,
        base_ref: &'static str,
        label: Option<&'static str>,
        reuse: Option<bool>,
        activate: bool,
    },
    Remove {
        id: &'static str,
        delete_if_merged: Option<bool>,
        merged_into: Option<&'static str>,
        return_to: Option<&'static str>,
    },
    Switch(&'static str),
}

/// Worktree ids the generated calls make, and ones they never do.
const WORKTREE_IDS: &[&str] = &[
    "wt-feature-a",
    "wt-feature-b",
    "wt-feature-a",
    "wt-feature-b",
    "wt-lbl",
    "home",
    "wt-x",
];

/// Workspaces to make worktrees of: mostly home, the checkout.
const WORKSPACE_IDS: &[&str] = &[
    "home", "home", "home", "home", "home", "home", "home", "home", "ws-x",
];

/// Branches: new ones (again and again), the checked-out one, and invalid names.
const BRANCHES: &[&str] = &[
    "feature/a",
    "feature/b",
    "feature/a",
    "feature/b",
    "feature/a",
    "feature/b",
    "main",
    "bad name",
    "-x",
];

/// Refs a new branch starts from: existing ones, mostly, and one that is not.
const BASE_REFS: &[&str] = &["HEAD", "HEAD", "HEAD", "main", "nope"];

fn worktree_op() -> impl Strategy<Value = WorktreeOp> {
    use proptest::option::of;
    use proptest::sample::select;
    let create = (
        select(WORKSPACE_IDS),
        select(BRANCHES),
        select(BASE_REFS),
        proptest::option::weighted(0.2, Just("lbl")),
        of(any::<bool>()),
        any::<bool>(),
    )
        .prop_map(|(workspace_id, branch, base_ref, label, reuse, activate)| {
            WorktreeOp::Create {
                workspace_id,
                branch,
                base_ref,
                label,
                reuse,
                activate,
            }
        });
    let remove = (
        select(WORKTREE_IDS),
        of(any::<bool>()),
        of(select(&["main", "nope", "feature/a"][..])),
        of(select(
            &["home", "home", "wt-feature-b", "wt-feature-a", "wt-x"][..],
        )),
    )
        .prop_map(
            |(id, delete_if_merged, merged_into, return_to)| WorktreeOp::Remove {
                id,
                delete_if_merged,
                merged_into,
                return_to,
            },
        );
    prop_oneof![
        3 => create,
        3 => remove,
        1 => select(WORKTREE_IDS).prop_map(WorktreeOp::Switch),
    ]
}

/// Applies `op` to `host` through the service and to `tools` through the tools.
async fn both_worktree(
    host: &Runtime,
    tools: &Arc<Runtime>,
    op: &WorktreeOp,
) -> (Result<Value, Value>, Result<Value, Value>) {
    use holon_runtime::workspace::{
        CreatedWorktree, NewWorktree, RemovedWorktree, WorktreeRemoval,
    };
    let created = |c: CreatedWorktree| {
        json!({
            "execution_root_id": c.worktree.execution_root_id,
            "root_path": text(&c.worktree.path),
            "owner_workspace_id": c.worktree.workspace_id,
            "branch_name": c.worktree.branch,
            "branch_created": c.branch_created,
            "reused": c.reused,
            "head_commit": c.head_commit,
            "is_active": c.is_active,
        })
    };
    let removed = |r: RemovedWorktree| {
        json!({
            "removed_execution_root_id": r.worktree.execution_root_id,
            "removed_path": text(&r.worktree.path),
            "branch_name": r.worktree.branch,
            "branch_deleted": r.branch_deleted,
            "branch_kept_reason": r.branch_kept_reason,
            "directory_was_missing": r.directory_was_missing,
            "active_execution_root_id": r.active_execution_root_id,
            "switched_active": r.switched_active,
        })
    };
    let service = host.workspaces();
    match *op {
        WorktreeOp::Create {
            workspace_id,
            branch,
            base_ref,
            label,
            reuse,
            activate,
        } => {
            let mut input = json!({
                "workspace_id": workspace_id,
                "branch": branch,
                "base_ref": base_ref,
                "activate": activate,
            });
            if let Some(label) = label {
                input["label"] = json!(label);
            }
            if let Some(reuse) = reuse {
                input["on_existing"] = json!(if reuse { "reuse" } else { "error" });
            }
            let request = NewWorktree {
                workspace_id,
                branch,
                base_ref,
                label,
                reuse_existing: reuse == Some(true),
                activate,
            };
            (
                service.create_worktree(&request).map(created).map_err(seen),
                by_tool(tools, "CreateWorktree", input).await,
            )
        }
        WorktreeOp::Remove {
            id,
            delete_if_merged,
            merged_into,
            return_to,
        } => {
            let mut input = json!({ "execution_root_id": id });
            if let Some(delete) = delete_if_merged {
                input["branch_policy"] = json!(if delete { "delete_if_merged" } else { "keep" });
            }
            if let Some(merged_into) = merged_into {
                input["merged_into"] = json!(merged_into);
            }
            if let Some(return_to) = return_to {
                input["return_to"] = json!(return_to);
            }
            let request = WorktreeRemoval {
                execution_root_id: id,
                delete_branch_if_merged: delete_if_merged == Some(true),
                merged_into,
                return_to,
            };
            (
                service.remove_worktree(&request).map(removed).map_err(seen),
                by_tool(tools, "RemoveWorktree", input).await,
            )
        }
        WorktreeOp::Switch(id) => (
            service
                .switch(SwitchTarget::ExecutionRoot(id), None)
                .map(switched)
                .map_err(seen),
            by_tool(tools, "SwitchWorkspace", json!({ "execution_root_id": id })).await,
        ),
    }
}

/// Runs `ops` on twin runtimes, each on a checkout of its own.
async fn run_worktrees(ops: Vec<WorktreeOp>) {
    let ((host_dir, host), (tool_dir, tools)) = (spawn_twin(true), spawn_twin(true));
    for (n, op) in ops.iter().enumerate() {
        let (by_service, by_tool) = both_worktree(&host, &tools, op).await;
        assert_eq!(
            placeheld(&by_service, host_dir.path(), &host),
            placeheld(&by_tool, tool_dir.path(), &tools),
            "step {n} of {ops:?}"
        );
        let state = overview_with_worktrees(host.workspaces().state().unwrap());
        assert_eq!(
            placeholders(&state, host_dir.path(), &host),
            placeholders(
                &by_tool_state(&tools).await.unwrap(),
                tool_dir.path(),
                &tools
            ),
            "state after step {n} of {ops:?}"
        );
    }
}

/// Runs `run` to its end on a runtime of its own.
fn block_on<T>(run: impl std::future::Future<Output = T>) -> T {
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    tokio.block_on(run)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 50,
        rng_seed: RngSeed::Fixed(0x5EED_0011),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_workspace_service_and_the_tools_apply_the_same_rules(
        ops in proptest::collection::vec(op(), 1..10)
    ) {
        block_on(run(ops));
    }

    #[test]
    fn the_worktree_operations_of_the_service_and_the_tools_agree(
        ops in proptest::collection::vec(worktree_op(), 3..9)
    ) {
        block_on(run_worktrees(ops));
    }
}
