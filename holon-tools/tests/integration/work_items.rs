//! The work item plane through `Registry::dispatch` on an in-memory runtime.

use holon_tool_fixtures::runtime::{call, error_kind, gated, ok, runtime};
use serde_json::json;

#[tokio::test]
async fn every_change_increments_the_revision() {
    let rt = runtime();
    let created = call(
        &rt,
        "CreateWorkItem",
        json!({"objective": "Ship 1.0", "plan": "build, test, tag",
               "todo_list": [{"text": "build", "state": "in_progress"}, {"text": "tag", "state": "pending"}]}),
    )
    .await;
    let item = &ok(&created)["work_item"];
    assert_eq!(item["work_item_id"], "wi-1");
    assert_eq!(item["revision"], 1);
    assert_eq!(item["focused"], true);
    assert_eq!(item["plan_status"], "draft");
    assert_eq!(
        item["todo_counts"],
        json!({"pending": 1, "in_progress": 1, "completed": 0})
    );

    let updated = call(
        &rt,
        "UpdateWorkItem",
        json!({"work_item_id": "wi-1", "plan_status": "ready", "expected_revision": 1,
               "todo_list": [{"text": "tag", "state": "pending"}]}),
    )
    .await;
    let updated = ok(&updated);
    assert_eq!(updated["work_item"]["revision"], 2);
    assert_eq!(
        updated["changed_fields"],
        json!(["plan_status", "todo_list"])
    );
    assert_eq!(
        updated["work_item"]["todo_list"],
        json!([{"text": "tag", "state": "pending"}]),
        "the todo list is replaced whole"
    );

    let stale = call(
        &rt,
        "UpdateWorkItem",
        json!({"work_item_id": "wi-1", "objective": "Ship 2.0", "expected_revision": 1}),
    )
    .await;
    assert_eq!(error_kind(&stale), "stale_revision", "{stale}");
    let nothing = call(&rt, "UpdateWorkItem", json!({"work_item_id": "wi-1"})).await;
    assert_eq!(error_kind(&nothing), "nothing_to_update");
    let unknown = call(&rt, "GetWorkItem", json!({"work_item_id": "wi-9"})).await;
    assert_eq!(error_kind(&unknown), "unknown_work_item");
    assert_eq!(unknown["error"]["field"], "work_item_id");

    let got = call(&rt, "GetWorkItem", json!({"work_item_id": "wi-1"})).await;
    assert_eq!(ok(&got)["work_item"]["revision"], 2);
    assert!(
        ok(&got)["work_item"]["todo_list"].is_null(),
        "counts only by default"
    );
    let got = call(
        &rt,
        "GetWorkItem",
        json!({"work_item_id": "wi-1", "include_todo_list": true}),
    )
    .await;
    assert_eq!(
        ok(&got)["work_item"]["todo_list"].as_array().unwrap().len(),
        1
    );
}

#[tokio::test]
async fn list_filters_follow_focus_blockers_and_state() {
    let rt = runtime();
    for objective in ["first", "second", "third"] {
        ok(&call(
            &rt,
            "CreateWorkItem",
            json!({"objective": objective, "focus": objective != "third"}),
        )
        .await);
    }
    ok(&call(
        &rt,
        "UpdateWorkItem",
        json!({"work_item_id": "wi-2", "plan_status": "needs_input"}),
    )
    .await);
    let ids = |envelope: &serde_json::Value| -> Vec<String> {
        ok(envelope)["work_items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item["work_item_id"].as_str().unwrap().to_string())
            .collect()
    };
    let list = |filter: &'static str| {
        let rt = rt.clone();
        async move { call(&rt, "ListWorkItems", json!({"filter": filter})).await }
    };
    assert_eq!(ids(&list("current").await), ["wi-2"]);
    assert_eq!(
        ids(&list("open").await),
        ["wi-2", "wi-1", "wi-3"],
        "focus first"
    );
    assert_eq!(ids(&list("yielded").await), ["wi-1"]);
    assert_eq!(ids(&list("queued").await), ["wi-3"]);
    assert_eq!(ids(&list("waiting_for_operator").await), ["wi-2"]);
    assert_eq!(ids(&list("runnable").await), ["wi-1", "wi-3"]);
    assert!(ids(&list("completed").await).is_empty());

    let limited = call(&rt, "ListWorkItems", json!({"filter": "all", "limit": 1})).await;
    assert_eq!(ids(&limited).len(), 1);
    assert_eq!(ok(&limited)["total_matching"], 3);
    for bad in [0, 101] {
        let envelope = call(&rt, "ListWorkItems", json!({"limit": bad})).await;
        assert_eq!(error_kind(&envelope), "invalid_tool_input", "{envelope}");
        assert_eq!(envelope["error"]["field"], "limit");
    }
    let schema = &holon_core::Registry::global()
        .get("ListWorkItems")
        .unwrap()
        .spec
        .input_schema;
    assert_eq!(schema["properties"]["limit"]["maximum"], 100);
}

#[tokio::test]
async fn clear_blocker_needs_a_reason_in_the_schema_and_at_runtime() {
    let rt = runtime();
    ok(&call(&rt, "CreateWorkItem", json!({"objective": "a"})).await);
    let schema = &holon_core::Registry::global()
        .get("PickWorkItem")
        .unwrap()
        .spec
        .input_schema;
    assert_eq!(schema["then"]["required"], json!(["reason"]), "{schema:#}");

    let missing = call(
        &rt,
        "PickWorkItem",
        json!({"work_item_id": "wi-1", "clear_blocker": true}),
    )
    .await;
    assert_eq!(error_kind(&missing), "invalid_tool_input", "{missing}");
    assert_eq!(missing["error"]["field"], "reason");
    let empty = call(
        &rt,
        "PickWorkItem",
        json!({"work_item_id": "wi-1", "clear_blocker": true, "reason": ""}),
    )
    .await;
    assert_eq!(error_kind(&empty), "invalid_tool_input");
    let blank = call(
        &rt,
        "PickWorkItem",
        json!({"work_item_id": "wi-1", "clear_blocker": true, "reason": "   "}),
    )
    .await;
    assert_eq!(
        error_kind(&blank),
        "empty_text",
        "the handler checks what the schema cannot: {blank}"
    );

    // A wait on wi-1 blocks it; picking it then needs clear_blocker.
    ok(&call(&rt, "CreateWorkItem", json!({"objective": "b"})).await);
    let wait = call(
        &rt,
        "WaitFor",
        json!({"reason": "need the operator's answer", "wake": "operator_input", "delivery": "silent", "work_item_id": "wi-1"}),
    )
    .await;
    assert_eq!(ok(&wait)["wait"]["state"], "active");
    let blocked = call(&rt, "ListWorkItems", json!({"filter": "blocked"})).await;
    assert_eq!(ok(&blocked)["work_items"][0]["work_item_id"], "wi-1");
    let waiting = call(
        &rt,
        "ListWorkItems",
        json!({"filter": "waiting_for_operator"}),
    )
    .await;
    assert_eq!(ok(&waiting)["total_matching"], 1);

    let refused = call(&rt, "PickWorkItem", json!({"work_item_id": "wi-1"})).await;
    assert_eq!(error_kind(&refused), "work_item_blocked", "{refused}");
    let picked = call(
        &rt,
        "PickWorkItem",
        json!({"work_item_id": "wi-1", "clear_blocker": true, "reason": "answered on the phone"}),
    )
    .await;
    let picked = ok(&picked);
    assert_eq!(picked["blocker_cleared"]["wait_id"], "wait-1");
    assert_eq!(picked["previous_focus_id"], "wi-2");
    assert!(picked["work_item"]["blocker"].is_null());
    assert_eq!(
        holon_tool_fixtures::runtime::scalar(&rt, "SELECT state FROM waits WHERE id = 1"),
        rusqlite::types::Value::Text("cancelled".into())
    );
}

#[tokio::test]
async fn completion_waits_for_the_turns_report() {
    let rt = runtime();
    ok(&call(
        &rt,
        "CreateWorkItem",
        json!({"objective": "a", "todo_list": [{"text": "x", "state": "pending"}]}),
    )
    .await);
    let unfinished = call(&rt, "CompleteWorkItem", json!({"work_item_id": "wi-1"})).await;
    assert_eq!(error_kind(&unfinished), "unfinished_todo_items");
    ok(&call(
        &rt,
        "UpdateWorkItem",
        json!({"work_item_id": "wi-1", "todo_list": []}),
    )
    .await);

    let deferred = call(&rt, "CompleteWorkItem", json!({"work_item_id": "wi-1"})).await;
    assert_eq!(deferred["status"], "deferred", "{deferred}");
    let directive = deferred["directive"].as_str().unwrap();
    assert!(directive.contains("completion report"), "{directive}");
    assert_eq!(deferred["structured"]["work_item"]["state"], "completing");
    let listed = call(&rt, "ListWorkItems", json!({"filter": "completing"})).await;
    assert_eq!(ok(&listed)["total_matching"], 1);

    let turn = rt.current_turn("root").unwrap().unwrap();
    let empty = rt
        .supply_completion_report(&turn.turn_id, "  ")
        .unwrap_err();
    assert_eq!(empty.kind.as_str(), "empty_text");
    let completed = rt
        .supply_completion_report(&turn.turn_id, "Shipped; nothing left.")
        .unwrap();
    assert_eq!(completed, ["wi-1"]);
    let item = rt.work_item("root", "wi-1").unwrap();
    assert_eq!(
        item.completion_report.as_deref(),
        Some("Shipped; nothing left.")
    );
    assert_eq!(item.revision, 4, "create, update, completing, completed");
    let again = call(
        &rt,
        "UpdateWorkItem",
        json!({"work_item_id": "wi-1", "objective": "more"}),
    )
    .await;
    assert_eq!(error_kind(&again), "work_item_completed");

    // With the report already there, completion is immediate.
    ok(&call(&rt, "CreateWorkItem", json!({"objective": "b"})).await);
    let done = call(&rt, "CompleteWorkItem", json!({"work_item_id": "wi-2"})).await;
    assert_eq!(ok(&done)["work_item"]["state"], "completed");
    assert_eq!(
        ok(&done)["work_item"]["focused"],
        false,
        "a completed item leaves the focus"
    );
}

#[tokio::test]
async fn work_items_persist_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let config = holon_tool_fixtures::runtime::config_with_state_in(dir.path());
    {
        let rt = holon_runtime::Runtime::open(config.clone()).unwrap();
        ok(&gated(&rt, "CreateWorkItem", json!({"objective": "survive"})).await);
    }
    let rt = holon_runtime::Runtime::open(config).unwrap();
    let got = gated(&rt, "GetWorkItem", json!({"work_item_id": "wi-1"})).await;
    assert_eq!(ok(&got)["work_item"]["objective"], "survive");
    assert_eq!(ok(&got)["work_item"]["focused"], true);
}
