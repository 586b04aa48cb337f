//! What a wait waits for: durable timers (fired, cancelled, rechecks, Sleep's records)
//! and tasks, whose owner is captured at creation and never follows the focus.

use holon_runtime::agency::WakeKind;
use holon_tool_fixtures::runtime::{call, count, error_kind, ok, runtime, scalar};
use rusqlite::types::Value as Sql;
use serde_json::json;

#[tokio::test]
async fn a_fired_timer_wakes_its_waiter_and_a_cancelled_one_never_does() {
    let rt = runtime();
    let created = call(
        &rt,
        "CreateTimer",
        json!({"delay_ms": 50, "reason": "poll"}),
    )
    .await;
    let timer = ok(&created)["timer"].clone();
    assert_eq!(timer["timer_id"], "timer-1");
    let due = timer["due_at_unix_ms"].as_i64().unwrap();
    let wait = call(&rt, "WaitFor", json!({"reason": "poll later", "wake": "timer", "resource": "timer-1", "delivery": "silent"})).await;
    assert_eq!(ok(&wait)["wait"]["state"], "active");
    assert!(
        rt.fire_due_timers(due - 1).unwrap().is_empty(),
        "not due yet"
    );
    let wakes = rt.fire_due_timers(due).unwrap();
    assert_eq!(wakes.len(), 1);
    assert_eq!(wakes[0].woke_waits, ["wait-1"]);
    let agent = ok(&call(&rt, "AgentGet", json!({})).await)["agent"].clone();
    assert!(agent["waiting_on"].as_array().unwrap().is_empty());

    // Cancelled: the wait on it is never woken by it.
    let second = ok(&call(&rt, "CreateTimer", json!({"delay_ms": 50})).await)["timer"].clone();
    ok(&call(
        &rt,
        "WaitFor",
        json!({"reason": "r", "wake": "timer", "resource": "timer-2", "delivery": "silent"}),
    )
    .await);
    let cancelled = call(&rt, "CancelTimer", json!({"timer_id": "timer-2"})).await;
    assert_eq!(ok(&cancelled)["timer"]["state"], "cancelled");
    assert_eq!(ok(&cancelled)["waiter_count"], 1);
    let later = second["due_at_unix_ms"].as_i64().unwrap() + 1_000_000;
    assert!(rt.fire_due_timers(later).unwrap().is_empty());
    assert_eq!(
        scalar(&rt, "SELECT state FROM waits WHERE id = 2"),
        Sql::Text("active".into())
    );
    // Waiting on a cancelled timer is stale: it would never wake.
    let stale = call(
        &rt,
        "WaitFor",
        json!({"reason": "r", "wake": "timer", "resource": "timer-2", "delivery": "silent"}),
    )
    .await;
    assert_eq!(error_kind(&stale), "stale_wait_settlement", "{stale}");

    // The runtime API makes timers too, and a recheck wakes a wait anyway.
    let timer = rt.create_timer("root", 10, Some("api")).unwrap();
    assert_eq!(timer.timer_id, "timer-3");
    ok(&call(&rt, "WaitFor", json!({"reason": "r", "wake": "operator_input", "delivery": "silent", "recheck_after_ms": 5})).await);
    let wakes = rt.fire_due_timers(later).unwrap();
    assert!(
        wakes
            .iter()
            .any(|w| w.kind == WakeKind::System && w.woke_waits == ["wait-3"]),
        "{wakes:?}"
    );
}

#[tokio::test]
async fn focus_switches_never_move_a_task_or_let_its_wait_cross_over() {
    let rt = runtime();
    ok(&call(&rt, "CreateWorkItem", json!({"objective": "owner"})).await);
    let spawned = call(
        &rt,
        "SpawnAgent",
        json!({"initial_message": "run the suite"}),
    )
    .await;
    let handle = ok(&spawned)["spawned"]["task_handle"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(handle, "agent:child-1");
    assert_eq!(
        rt.task_owner(&handle)
            .unwrap()
            .unwrap()
            .work_item_id()
            .as_deref(),
        Some("wi-1")
    );

    // Focus moves twice: by CreateWorkItem and by PickWorkItem.
    ok(&call(&rt, "CreateWorkItem", json!({"objective": "other"})).await);
    ok(&call(&rt, "CreateWorkItem", json!({"objective": "third"})).await);
    ok(&call(&rt, "PickWorkItem", json!({"work_item_id": "wi-2"})).await);
    let owner = rt.task_owner(&handle).unwrap().unwrap();
    assert_eq!(
        (owner.agent_id.as_str(), owner.work_item_id().as_deref()),
        ("root", Some("wi-1"))
    );

    let crossing = call(
        &rt,
        "WaitFor",
        json!({"reason": "r", "wake": "task_result", "resource": handle, "delivery": "silent", "work_item_id": "wi-2"}),
    )
    .await;
    assert_eq!(
        error_kind(&crossing),
        "task_ownership_mismatch",
        "{crossing}"
    );
    let other_agent = holon_tool_fixtures::runtime::call_as(
        &rt,
        "child-1",
        "WaitFor",
        json!({"reason": "r", "wake": "task_result", "resource": handle, "delivery": "silent"}),
    )
    .await;
    assert_eq!(error_kind(&other_agent), "task_not_owned", "{other_agent}");

    let wait = call(&rt, "WaitFor", json!({"reason": "until the suite ends", "wake": "task_result", "resource": handle, "delivery": "silent"})).await;
    assert_eq!(
        ok(&wait)["wait"]["work_item_id"],
        "wi-1",
        "the task's work item, not the focus (wi-2)"
    );
    let blocked = call(&rt, "ListWorkItems", json!({"filter": "blocked"})).await;
    assert_eq!(ok(&blocked)["work_items"][0]["work_item_id"], "wi-1");
    let focus =
        ok(&call(&rt, "AgentGet", json!({})).await)["agent"]["focus"]["work_item_id"].clone();
    assert_eq!(focus, "wi-2", "the wait did not move the focus either");

    // The child finishing wakes the wait; a wait on an ended task is stale.
    let wake = rt
        .finish_agent(
            "child-1",
            holon_runtime::agency::AgentOutcome::Completed,
            Some("all green"),
        )
        .unwrap()
        .unwrap();
    assert_eq!(wake.woke_waits, ["wait-1"]);
    let again = call(
        &rt,
        "WaitFor",
        json!({"reason": "r", "wake": "task_result", "resource": handle, "delivery": "silent"}),
    )
    .await;
    assert_eq!(error_kind(&again), "stale_wait_settlement");
    assert_eq!(again["error"]["details"]["stale"], json!(["task"]));
}

#[tokio::test]
async fn sleep_keeps_its_fields_and_is_recorded_in_the_store() {
    let rt = runtime();
    let slept = call(
        &rt,
        "Sleep",
        json!({"duration_ms": 5, "reason": "let it settle"}),
    )
    .await;
    assert!(ok(&slept)["slept_ms"].as_u64().unwrap() >= 5);
    assert_eq!(
        scalar(
            &rt,
            "SELECT kind || ':' || state || ':' || reason FROM timers"
        ),
        Sql::Text("sleep:fired:let it settle".into())
    );
    assert_eq!(
        count(&rt, "SELECT COUNT(*) FROM wakes"),
        0,
        "a pause wakes nobody"
    );
    // Without a runtime in the context Sleep still works, unrecorded.
    let bare = holon_core::ToolContext::new(holon_core::FamilyPolicy::all());
    let result = holon_core::Registry::global()
        .dispatch(
            &bare,
            holon_core::ToolCall::new("Sleep", json!({"duration_ms": 1})),
        )
        .await;
    assert!(result.is_success(), "{result:?}");
}

#[tokio::test]
async fn a_command_task_wait_needs_its_captured_owner_and_wakes_when_the_task_ends() {
    use holon_runtime::tasks::{LaunchSpec, TaskCaller};
    use holon_runtime::{Runtime, RuntimeConfig};

    let dir = tempfile::tempdir().unwrap();
    let rt = Runtime::open(RuntimeConfig::in_memory(dir.path())).unwrap();
    ok(&call(&rt, "CreateWorkItem", json!({"objective": "build"})).await);
    let task = rt
        .tasks()
        .launch(
            LaunchSpec {
                cmd: "sleep 0.3".into(),
                workdir: holon_gates::process::WorkingDir::open(dir.path()).unwrap(),
                shell: "/bin/sh".into(),
                login: false,
                tty: false,
                accepts_input: false,
                confinement: rt.confinement(false),
            },
            &TaskCaller::of(&rt.context(holon_core::FamilyPolicy::all())),
        )
        .unwrap();
    let handle = task.id().to_string();
    let wait = json!({"reason": "until the build ends", "wake": "task_result", "resource": handle, "delivery": "silent"});
    let unowned = call(&rt, "WaitFor", wait.clone()).await;
    assert_eq!(
        error_kind(&unowned),
        "task_not_owned",
        "no owner was captured: {unowned}"
    );

    let owner = rt.capture_task_owner("root", &handle).unwrap();
    assert_eq!(owner.work_item_id().as_deref(), Some("wi-1"));
    ok(&call(&rt, "CreateWorkItem", json!({"objective": "meanwhile"})).await);
    assert_eq!(
        rt.capture_task_owner("root", &handle).unwrap(),
        owner,
        "the first capture wins"
    );
    let entered = call(&rt, "WaitFor", wait).await;
    assert_eq!(ok(&entered)["wait"]["work_item_id"], "wi-1");

    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let wakes = loop {
        let wakes = rt.sync_task_wakes().unwrap();
        if !wakes.is_empty() || std::time::Instant::now() > deadline {
            break wakes;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert_eq!(wakes.len(), 1, "the task's end wakes the wait");
    assert_eq!(wakes[0].kind, WakeKind::TaskResult);
    assert_eq!(wakes[0].woke_waits, ["wait-1"]);
    assert!(rt.sync_task_wakes().unwrap().is_empty(), "once");
}

#[tokio::test]
async fn a_command_task_is_owned_by_the_agent_that_launched_it() {
    let dir = tempfile::tempdir().unwrap();
    let rt =
        holon_runtime::Runtime::open(holon_runtime::RuntimeConfig::in_memory(dir.path())).unwrap();
    ok(&call(&rt, "CreateWorkItem", json!({"objective": "build"})).await);
    let launched = call(
        &rt,
        "ExecCommand",
        json!({"cmd": "sleep 5", "yield_time_ms": 0}),
    )
    .await;
    let handle = ok(&launched)["task_handle"]["task_id"]
        .as_str()
        .unwrap()
        .to_string();
    let owner = rt.task_owner(&handle).unwrap().expect("captured at launch");
    assert_eq!(owner.work_item_id().as_deref(), Some("wi-1"));
    let entered = call(
        &rt,
        "WaitFor",
        json!({"reason": "until it ends", "wake": "task_result", "resource": handle, "delivery": "silent"}),
    )
    .await;
    assert_eq!(ok(&entered)["wait"]["work_item_id"], "wi-1", "{entered}");
    ok(&call(&rt, "TaskStop", json!({"task_id": handle})).await);
}
