//! Command tasks belong to who started them, in one runtime: a task of another
//! principal does not exist for the task tools, and typing into a task takes every
//! family its starter held. The callers here are contexts as hosts make them: two
//! principals (as an MCP server sets them), and one principal with two family sets
//! (as `holon-tools call` and `session` dispatch through [`Runtime::dispatch`]).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use holon_core::{FamilyPolicy, Principal, Registry, ToolCall, ToolCapabilityFamily, ToolContext};
use holon_runtime::Runtime;
use serde_json::{Value, json};

use crate::task_support::{runtime, text};

/// A context of `runtime` for calls of the authenticated principal `id`.
fn as_principal(runtime: &Arc<Runtime>, id: &str, families: FamilyPolicy) -> ToolContext {
    runtime
        .context(families)
        .with_state(Principal::new(id, [] as [&str; 0]))
}

async fn call_in(context: &ToolContext, name: &str, input: Value) -> Value {
    let result = Registry::global()
        .dispatch(context, ToolCall::new(name, input))
        .await;
    serde_json::to_value(&result).unwrap()
}

/// Starts an interactive `sh` reading its stdin; its task id.
async fn interactive_shell(context: &ToolContext) -> String {
    let started = call_in(
        context,
        "ExecCommand",
        json!({"cmd": "sh", "accepts_input": true, "yield_time_ms": 0}),
    )
    .await;
    assert_eq!(
        started["structured"]["disposition"], "promoted_to_task",
        "{started}"
    );
    text(&started["structured"]["task_handle"]["task_id"]).to_string()
}

/// Has the owner's shell `task_id` print `marker`, and waits (bounded) until it did:
/// every line written to the shell before ran by then.
async fn drain(owner: &ToolContext, task_id: &str, marker: &str) {
    let sent = call_in(
        owner,
        "TaskInput",
        json!({"task_id": task_id, "input": format!("echo {marker}\n")}),
    )
    .await;
    assert_eq!(sent["structured"]["accepted_input"], true, "{sent}");
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut seen = String::new();
    while !seen.contains(marker) {
        assert!(Instant::now() < deadline, "no {marker} in {seen}");
        let output = call_in(
            owner,
            "TaskOutput",
            json!({"task_id": task_id, "timeout_ms": 1000}),
        )
        .await;
        seen.push_str(text(&output["structured"]["output"]["stdout"]));
    }
}

/// The typed error of a call, with the id it names replaced by `ID`.
fn error_without_id(envelope: &Value, task_id: &str) -> Value {
    let error = serde_json::to_string(&envelope["error"]).unwrap();
    serde_json::from_str(&error.replace(task_id, "ID")).unwrap()
}

#[tokio::test]
async fn another_principals_task_is_unknown_to_every_task_tool() {
    let (runtime, workspace) = runtime();
    let alice = as_principal(&runtime, "alice", FamilyPolicy::all());
    let bob = as_principal(&runtime, "bob", FamilyPolicy::all());
    let task_id = interactive_shell(&alice).await;

    let listed = call_in(&bob, "ListTasks", json!({})).await;
    assert_eq!(listed["structured"]["tasks"], json!([]), "{listed}");
    assert_eq!(listed["structured"]["total_count"], 0, "{listed}");
    assert_eq!(listed["structured"]["running_count"], 0, "{listed}");

    let pwned = workspace.path().join("pwned");
    let probes = [
        ("TaskStatus", json!({})),
        ("TaskOutput", json!({"block": false})),
        (
            "TaskInput",
            json!({"input": format!("touch {}\n", pwned.display())}),
        ),
        ("TaskStop", json!({})),
    ];
    for (tool, extra) in probes {
        let with_id = |id: &str| {
            let mut input = extra.clone();
            input["task_id"] = json!(id);
            input
        };
        let theirs = call_in(&bob, tool, with_id(&task_id)).await;
        assert_eq!(theirs["status"], "error", "{tool}: {theirs}");
        assert_eq!(theirs["error"]["kind"], "unknown_task", "{tool}: {theirs}");
        // The same answer as for a task that does not exist: ids cannot be probed.
        let missing = call_in(&bob, tool, with_id("task-999999")).await;
        assert_eq!(
            error_without_id(&theirs, &task_id),
            error_without_id(&missing, "task-999999"),
            "{tool}"
        );
    }
    // A command of the same line does not hand bob alice's task either.
    let same = call_in(
        &bob,
        "ExecCommand",
        json!({"cmd": "sh", "accepts_input": true, "yield_time_ms": 0}),
    )
    .await;
    assert_eq!(
        same["structured"]["disposition"], "promoted_to_task",
        "{same}"
    );
    assert_ne!(
        same["structured"]["task_handle"]["task_id"],
        task_id.as_str()
    );

    // Alice's shell still runs, and bob's line never reached it.
    drain(&alice, &task_id, "alice-still-here").await;
    assert!(!pwned.exists(), "bob's input ran in alice's shell");
    let status = call_in(&alice, "TaskStatus", json!({"task_id": task_id})).await;
    assert_eq!(
        status["structured"]["task"]["status"], "running",
        "{status}"
    );
    let listed = call_in(&alice, "ListTasks", json!({})).await;
    let ids: Vec<&str> = listed["structured"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|task| text(&task["task_id"]))
        .collect();
    assert_eq!(ids, [task_id.as_str()], "{listed}");
    let stopped = call_in(&alice, "TaskStop", json!({"task_id": task_id})).await;
    assert_eq!(stopped["structured"]["stopped"], true, "{stopped}");
}

#[tokio::test]
async fn another_principals_task_is_unknown_to_wait_for() {
    let (runtime, _workspace) = runtime();
    let alice = as_principal(&runtime, "alice", FamilyPolicy::all());
    let bob = as_principal(&runtime, "bob", FamilyPolicy::all());
    let task_id = interactive_shell(&alice).await;

    let wait_on = |id: &str| json!({"reason": "until it ends", "wake": "task_result", "delivery": "silent", "resource": id});
    let theirs = call_in(&bob, "WaitFor", wait_on(&task_id)).await;
    assert_eq!(theirs["status"], "error", "{theirs}");
    assert_eq!(theirs["error"]["kind"], "unknown_task", "{theirs}");
    // The same answer as for a task that does not exist: ids cannot be probed.
    let missing = call_in(&bob, "WaitFor", wait_on("task-999999")).await;
    assert_eq!(
        error_without_id(&theirs, &task_id),
        error_without_id(&missing, "task-999999")
    );
    // The owner still waits on it.
    let own = call_in(&alice, "WaitFor", wait_on(&task_id)).await;
    assert_eq!(own["structured"]["settled"], true, "{own}");
    let stopped = call_in(&alice, "TaskStop", json!({"task_id": task_id})).await;
    assert_eq!(stopped["structured"]["stopped"], true, "{stopped}");
}

#[tokio::test]
async fn a_caller_without_the_starting_families_cannot_type_into_the_task() {
    let (runtime, workspace) = runtime();
    // One principal (the runtime's own agent), as `call` and `session` dispatch.
    let started_with = FamilyPolicy::all();
    let task_id = interactive_shell(&runtime.context(started_with)).await;
    let core_only = runtime.context(FamilyPolicy::none().with(ToolCapabilityFamily::CoreAgent));
    // Without `web` it would borrow the network the shell was started with.
    let without_web = runtime.context(started_with.without(ToolCapabilityFamily::Web));

    let ran = |name: &str| workspace.path().join(name);
    for (caller, file, missing) in [
        (&core_only, "core-only", "local_environment"),
        (&without_web, "without-web", "web"),
    ] {
        let input = format!("touch {}\n", ran(file).display());
        let refused = call_in(
            caller,
            "TaskInput",
            json!({"task_id": task_id, "input": input}),
        )
        .await;
        assert_eq!(refused["status"], "error", "{refused}");
        assert_eq!(refused["error"]["kind"], "family_not_allowed", "{refused}");
        let missing_listed = refused["error"]["details"]["missing"]
            .as_array()
            .unwrap()
            .iter()
            .any(|family| family == missing);
        assert!(missing_listed, "{refused}");
        // Reading is the principal's: the same caller still follows the task.
        let output = call_in(
            caller,
            "TaskOutput",
            json!({"task_id": task_id, "block": false}),
        )
        .await;
        assert_eq!(output["status"], "success", "{output}");
    }
    let owner = runtime.context(started_with);
    drain(&owner, &task_id, "owner-still-here").await;
    assert!(!ran("core-only").exists() && !ran("without-web").exists());
    let stopped = call_in(&owner, "TaskStop", json!({"task_id": task_id})).await;
    assert_eq!(stopped["structured"]["stopped"], true, "{stopped}");
}

#[tokio::test]
async fn the_builtin_policy_asks_before_task_input_as_it_does_before_exec_command() {
    let workspace = tempfile::tempdir().unwrap();
    let mut config = holon_runtime::RuntimeConfig::in_memory(workspace.path());
    config.commands.limiter = Some(env!("CARGO_BIN_EXE_holon-tools").into());
    config.policy = Some(holon_cli::policy::default_policy());
    let runtime = Runtime::open(config).unwrap();
    let context = runtime.context(FamilyPolicy::all());
    let start = json!({"cmd": "sh", "accepts_input": true, "yield_time_ms": 0});
    let asked = call_in(&context, "ExecCommand", start.clone()).await;
    assert_eq!(asked["status"], "deferred", "{asked}");

    // The operator approves the start; the shell runs.
    let approvals = runtime.approvals().unwrap();
    let decide = |envelope: &Value| {
        let id = text(&envelope["deferral"]["approval_id"]).to_string();
        approvals
            .sign(&id, true, holon_policy::Standing::Once, None, "operator")
            .unwrap()
    };
    let started = approvals
        .decide(Registry::global(), &context, &decide(&asked))
        .await
        .unwrap();
    let started = serde_json::to_value(&started).unwrap();
    let task_id = text(&started["structured"]["task_handle"]["task_id"]).to_string();
    assert!(task_id.starts_with("task-"), "{started}");

    let file = workspace.path().join("typed");
    let input = json!({"task_id": task_id, "input": format!("touch {}\n", file.display())});
    let asked = call_in(&context, "TaskInput", input).await;
    assert_eq!(asked["status"], "deferred", "{asked}");
    assert_eq!(asked["deferral"]["kind"], "approval_required", "{asked}");
    assert_eq!(asked["deferral"]["tool"], "TaskInput", "{asked}");
    assert!(
        !file.exists(),
        "nothing is typed before the operator decides"
    );
    let typed = approvals
        .decide(Registry::global(), &context, &decide(&asked))
        .await
        .unwrap();
    let typed = serde_json::to_value(&typed).unwrap();
    assert_eq!(typed["structured"]["accepted_input"], true, "{typed}");
    wait_for_file(&file).await;
}

async fn wait_for_file(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !path.exists() {
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
