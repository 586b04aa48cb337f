//! WaitFor: its schema rules, the final-brief gate, atomic settlement with stale
//! checks and injected failures, timers, and task-result wait ownership.

use holon_runtime::agency::{FailPoint, Priority, SettlementStep, WakeKind};
use holon_tool_fixtures::runtime::{
    SETTLEMENT_TABLES, call, count, error_kind, gated, ok, runtime, scalar, snapshot,
};
use rusqlite::types::Value as Sql;
use serde_json::{Value, json};

fn final_wait(extra: Value) -> Value {
    let mut input =
        json!({"reason": "the build must finish", "wake": "operator_input", "delivery": "final"});
    input
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    input
}

#[tokio::test]
async fn resource_is_required_for_task_results_and_timers() {
    let rt = runtime();
    let schema = &holon_core::Registry::global()
        .get("WaitFor")
        .unwrap()
        .spec
        .input_schema;
    assert_eq!(
        schema["if"]["properties"]["wake"]["enum"],
        json!(["task_result", "timer"])
    );
    assert_eq!(schema["then"]["required"], json!(["resource"]));
    for wake in ["task_result", "timer"] {
        let envelope = call(
            &rt,
            "WaitFor",
            json!({"reason": "r", "wake": wake, "delivery": "silent"}),
        )
        .await;
        assert_eq!(error_kind(&envelope), "invalid_tool_input", "{envelope}");
        assert_eq!(envelope["error"]["field"], "resource");
    }
    let empty = call(
        &rt,
        "WaitFor",
        json!({"reason": "", "wake": "system", "delivery": "silent"}),
    )
    .await;
    assert_eq!(empty["error"]["field"], "reason");
    let unknown = call(
        &rt,
        "WaitFor",
        json!({"reason": "r", "wake": "timer", "resource": "timer-7", "delivery": "silent"}),
    )
    .await;
    assert_eq!(error_kind(&unknown), "unknown_timer");
    let bad_wake = call(
        &rt,
        "WaitFor",
        json!({"reason": "r", "wake": "timr", "delivery": "silent"}),
    )
    .await;
    assert_eq!(bad_wake["error"]["recovery_hint"], "did you mean `timer`?");
}

#[tokio::test]
async fn a_silent_wait_settles_at_once_with_one_execution_record() {
    let rt = runtime();
    ok(&call(&rt, "CreateWorkItem", json!({"objective": "w"})).await);
    let before = count(&rt, "SELECT COUNT(*) FROM tool_executions");
    let envelope = call(
        &rt,
        "WaitFor",
        json!({"reason": "nothing to do until the operator answers", "wake": "operator_input", "delivery": "silent", "work_item_id": "wi-1"}),
    )
    .await;
    let outcome = ok(&envelope);
    assert_eq!(outcome["settled"], true);
    assert_eq!(outcome["wait"]["state"], "active");
    assert_eq!(
        count(&rt, "SELECT COUNT(*) FROM tool_executions"),
        before + 1,
        "one record, completed by the recorder"
    );
    assert_eq!(
        scalar(
            &rt,
            "SELECT e.requested_name || ':' || e.status FROM waits w JOIN tool_executions e ON e.id = w.execution_id"
        ),
        Sql::Text("WaitFor:success".into())
    );
    assert_eq!(
        scalar(
            &rt,
            "SELECT state || ':' || outcome FROM turns WHERE id = 1"
        ),
        Sql::Text("closed:waiting".into())
    );
    let agent = ok(&call(&rt, "AgentGet", json!({})).await)["agent"].clone();
    assert_eq!(agent["waiting_on"][0]["wait_id"], "wait-1");
    assert_eq!(
        count(&rt, "SELECT revision FROM work_items WHERE id = 1"),
        2,
        "the blocker is a change"
    );

    // Operator input wakes it and clears the blocker.
    let wake = rt.operator_input("root", "go ahead").unwrap();
    assert_eq!(wake.woke_waits, ["wait-1"]);
    assert_eq!(
        scalar(&rt, "SELECT state FROM waits WHERE id = 1"),
        Sql::Text("woken".into())
    );
    assert_eq!(
        count(
            &rt,
            "SELECT COUNT(*) FROM work_items WHERE blocker_wait_id IS NOT NULL"
        ),
        0
    );
    let start = rt.begin_turn("root").unwrap();
    assert_eq!(start.messages[0].text, "go ahead");
    assert_eq!(start.wakes[0].kind, WakeKind::OperatorInput);
}

#[tokio::test]
async fn a_final_wait_gates_the_turn_until_the_brief_settles_it() {
    let rt = runtime();
    rt.enqueue_message(
        "root",
        "operator",
        Priority::Normal,
        "please wait for the build",
    )
    .unwrap();
    let turn = rt.begin_turn("root").unwrap();
    assert_eq!(turn.messages.len(), 1);
    let envelope = gated(&rt, "WaitFor", final_wait(json!({}))).await;
    assert_eq!(envelope["status"], "deferred", "{envelope}");
    assert!(
        envelope["directive"]
            .as_str()
            .unwrap()
            .contains("final brief")
    );
    assert_eq!(envelope["structured"]["wait"]["state"], "pending_final");

    // Any further call of the turn is refused, through the gate and through the registry.
    for name in ["Sleep", "AgentGet", "ListModelProviders", "Sleeep"] {
        let refused = gated(&rt, name, json!({})).await;
        assert_eq!(
            error_kind(&refused),
            "turn_awaiting_final",
            "{name}: {refused}"
        );
    }
    let refused = call(&rt, "CreateWorkItem", json!({"objective": "x"})).await;
    assert_eq!(error_kind(&refused), "turn_awaiting_final");
    assert_eq!(count(&rt, "SELECT COUNT(*) FROM work_items"), 0);

    let turn_id = turn.turn.turn_id.as_str();
    assert_eq!(
        rt.publish_final(turn_id, " ").unwrap_err().kind.as_str(),
        "empty_text"
    );
    let wait = rt
        .publish_final(turn_id, "The build runs; I will report when it ends.")
        .unwrap();
    assert_eq!(wait.state, "active");
    let closed = rt.turn(turn_id).unwrap();
    assert_eq!(
        closed.final_brief.as_deref(),
        Some("The build runs; I will report when it ends.")
    );
    assert_eq!(closed.outcome.as_deref(), Some("waiting"));
    assert_eq!(
        scalar(&rt, "SELECT state FROM queue WHERE id = 1"),
        Sql::Text("settled".into())
    );
    assert_eq!(
        scalar(
            &rt,
            "SELECT status FROM tool_executions WHERE tool_name = 'WaitFor'"
        ),
        Sql::Text("success".into())
    );
    assert_eq!(
        count(
            &rt,
            "SELECT COUNT(*) FROM tool_executions WHERE tool_name = 'WaitFor'"
        ),
        1
    );
    // The next call opens a new turn.
    ok(&gated(&rt, "AgentGet", json!({})).await);
    assert_eq!(
        rt.publish_final(turn_id, "again")
            .unwrap_err()
            .kind
            .as_str(),
        "turn_not_active"
    );
}

/// Prepares a final wait on wi-1 (revision captured) and returns the turn id.
async fn pending_final(rt: &std::sync::Arc<holon_runtime::Runtime>) -> String {
    ok(&call(rt, "CreateWorkItem", json!({"objective": "w"})).await);
    let envelope = call(rt, "WaitFor", final_wait(json!({"work_item_id": "wi-1"}))).await;
    assert_eq!(envelope["status"], "deferred", "{envelope}");
    rt.current_turn("root").unwrap().unwrap().turn_id
}

#[tokio::test]
async fn a_stale_report_writes_nothing() {
    type Change = fn(&holon_runtime::Runtime);
    let changes: [(&str, Change); 4] = [
        ("interjection", |rt| {
            rt.enqueue_message("root", "operator", Priority::Interject, "stop")
                .unwrap();
        }),
        ("wake", |rt| {
            rt.deliver_wake("root", WakeKind::System, None, Some("shutdown soon"))
                .unwrap();
        }),
        ("work_item_revision", |rt| {
            let edit = holon_runtime::agency::WorkItemEdit {
                objective: Some("changed".into()),
                ..Default::default()
            };
            rt.edit_work_item("root", "wi-1", &edit).unwrap();
        }),
        ("execution_binding", |rt| {
            let turn = rt.current_turn("root").unwrap().unwrap().turn_id;
            rt.reopen_turn(&turn).unwrap();
        }),
    ];
    for (dimension, change) in changes {
        let rt = runtime();
        let turn = pending_final(&rt).await;
        change(&rt);
        let before = snapshot(&rt, SETTLEMENT_TABLES);
        // The brief was written for wait-1: settling it checks every binding.
        let error = rt.publish_final_for("wait-1", "brief").unwrap_err();
        assert_eq!(
            error.kind.as_str(),
            "stale_wait_settlement",
            "{dimension}: {error:?}"
        );
        let stale = error.details.as_ref().unwrap()["stale"].clone();
        assert_eq!(stale, json!([dimension]), "{dimension}");
        if dimension != "execution_binding" {
            let error = rt.publish_final(&turn, "brief").unwrap_err();
            assert_eq!(error.kind.as_str(), "stale_wait_settlement", "{dimension}");
        }
        assert_eq!(
            snapshot(&rt, SETTLEMENT_TABLES),
            before,
            "{dimension}: nothing written"
        );
    }
    // A brief for a replaced wait: the turn was reopened and waits again (wait-2).
    let rt = runtime();
    let turn = pending_final(&rt).await;
    rt.reopen_turn(&turn).unwrap();
    assert_eq!(
        call(&rt, "WaitFor", final_wait(json!({}))).await["status"],
        "deferred"
    );
    let before = snapshot(&rt, SETTLEMENT_TABLES);
    let error = rt.publish_final_for("wait-1", "old brief").unwrap_err();
    assert_eq!(
        error.details.unwrap()["stale"],
        json!(["execution_binding"])
    );
    assert_eq!(snapshot(&rt, SETTLEMENT_TABLES), before);
    assert_eq!(
        rt.publish_final_for("wait-2", "new brief").unwrap().wait_id,
        "wait-2"
    );

    // A harmless interjection: the agent's own message does not make it stale.
    let rt = runtime();
    let turn = pending_final(&rt).await;
    rt.enqueue_message("root", "root", Priority::Interject, "note to self")
        .unwrap();
    rt.publish_final(&turn, "brief").unwrap();
}

#[tokio::test]
async fn a_reopened_turn_delivers_what_made_the_report_stale() {
    let rt = runtime();
    let turn = pending_final(&rt).await;
    rt.enqueue_message("root", "operator", Priority::Interject, "change of plan")
        .unwrap();
    assert_eq!(
        rt.publish_final(&turn, "brief").unwrap_err().kind.as_str(),
        "stale_wait_settlement"
    );
    let reopened = rt.reopen_turn(&turn).unwrap();
    assert_eq!(reopened.messages[0].text, "change of plan");
    assert_eq!(
        scalar(&rt, "SELECT state FROM waits WHERE id = 1"),
        Sql::Text("expired".into())
    );
    ok(&gated(&rt, "GetWorkItem", json!({"work_item_id": "wi-1"})).await);
}

#[tokio::test]
async fn an_injected_failure_between_steps_leaves_none_of_the_settlement() {
    for step in [
        SettlementStep::WaitRegistered,
        SettlementStep::EvidenceWritten,
        SettlementStep::TurnClosed,
        SettlementStep::QueueSettled,
    ] {
        // The final path: publish_final.
        let rt = runtime();
        rt.enqueue_message("root", "operator", Priority::Normal, "hello")
            .unwrap();
        rt.begin_turn("root").unwrap();
        let turn = pending_final(&rt).await;
        let before = snapshot(&rt, SETTLEMENT_TABLES);
        FailPoint::arm(step);
        let error = rt.publish_final(&turn, "brief").unwrap_err();
        assert_eq!(error.kind.as_str(), "injected_failure", "{step:?}");
        assert_eq!(
            snapshot(&rt, SETTLEMENT_TABLES),
            before,
            "{step:?}: nothing kept"
        );
        rt.publish_final(&turn, "brief").unwrap();
        assert_eq!(
            scalar(&rt, "SELECT state FROM queue WHERE id = 1"),
            Sql::Text("settled".into())
        );

        // The silent path: the WaitFor call itself.
        let rt = runtime();
        let before = snapshot(&rt, &["turns", "queue", "waits", "wakes", "work_items"]);
        FailPoint::arm(step);
        let envelope = call(
            &rt,
            "WaitFor",
            json!({"reason": "r", "wake": "system", "delivery": "silent"}),
        )
        .await;
        assert_eq!(error_kind(&envelope), "injected_failure", "{step:?}");
        assert_eq!(
            snapshot(&rt, &["turns", "queue", "waits", "wakes", "work_items"]),
            before
        );
        assert_eq!(
            count(
                &rt,
                "SELECT COUNT(*) FROM tool_executions WHERE status <> 'error'"
            ),
            0,
            "{step:?}: no evidence of a settlement"
        );
    }
}
