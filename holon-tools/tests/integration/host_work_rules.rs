//! The host's work item calls (`Runtime::edit_work_item`, `Runtime::set_focus`) and
//! the tools (UpdateWorkItem, PickWorkItem) apply one set of rules: two runtimes in the
//! same state get the same generated changes, one through the host and one through
//! the tools, and must answer alike (the same error, field and hint, or the same item
//! at the same revision).

use std::sync::Arc;

use holon_core::ToolError;
use holon_runtime::Runtime;
use holon_runtime::agency::WorkItemEdit;
use holon_runtime::agency::{PlanStatus, TodoItem, TodoState};
use serde_json::{Value, json};

use holon_tool_fixtures::runtime::{call, ok, runtime};

/// A small deterministic generator (xorshift64*), so that a failing case reproduces.
struct Cases(u64);

impl Cases {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// A runtime with `wi-1` open and in focus, and `wi-2` completed.
async fn prepared() -> Arc<Runtime> {
    let rt = runtime();
    ok(&call(&rt, "CreateWorkItem", json!({"objective": "open item"})).await);
    ok(&call(
        &rt,
        "CreateWorkItem",
        json!({"objective": "done item", "focus": false}),
    )
    .await);
    call(&rt, "CompleteWorkItem", json!({"work_item_id": "wi-2"})).await;
    let turn = rt.current_turn("root").unwrap().unwrap();
    assert_eq!(
        rt.supply_completion_report(&turn.turn_id, "done").unwrap(),
        ["wi-2"]
    );
    rt
}

/// An edit, as the host's struct and as UpdateWorkItem's input. An empty objective
/// is left out: the input schema refuses it before any rule runs.
fn edit(cases: &mut Cases, n: u64) -> (String, WorkItemEdit, Value) {
    let target = ["wi-1", "wi-1", "wi-1", "wi-2", "wi-9", "x"][cases.below(6) as usize];
    let edit = WorkItemEdit {
        objective: match cases.below(4) {
            0 => Some("   ".to_string()),
            1 => Some(format!("  objective {n} ")),
            _ => None,
        },
        plan: (cases.below(3) == 0).then(|| format!("plan {n}")),
        plan_status: [
            None,
            None,
            Some(PlanStatus::Ready),
            Some(PlanStatus::NeedsInput),
        ][cases.below(4) as usize],
        todo_list: match cases.below(4) {
            0 => Some(Vec::new()),
            1 => Some(vec![TodoItem {
                text: format!("step {n}"),
                state: TodoState::InProgress,
            }]),
            _ => None,
        },
        expected_revision: [None, None, Some(cases.below(40) + 1)][cases.below(3) as usize],
    };
    let mut input = json!({ "work_item_id": target });
    if let Some(objective) = &edit.objective {
        input["objective"] = json!(objective);
    }
    if let Some(plan) = &edit.plan {
        input["plan"] = json!(plan);
    }
    if let Some(status) = edit.plan_status {
        input["plan_status"] = json!(status);
    }
    if let Some(todo) = &edit.todo_list {
        input["todo_list"] = json!(todo);
    }
    if let Some(revision) = edit.expected_revision {
        input["expected_revision"] = json!(revision);
    }
    (target.to_string(), edit, input)
}

/// The error a host call returned, as a model would see it.
fn seen(error: impl Into<ToolError>) -> Value {
    serde_json::to_value(error.into()).unwrap()
}

#[tokio::test]
async fn host_edits_and_update_work_item_apply_the_same_rules() {
    let (host, tools) = (prepared().await, prepared().await);
    let mut cases = Cases(0x9E37_79B9_7F4A_7C15);
    let mut refused_kinds = std::collections::BTreeSet::new();
    let mut applied = 0;
    for n in 0..300 {
        let (target, edit, input) = edit(&mut cases, n);
        let by_tool = call(&tools, "UpdateWorkItem", input.clone()).await;
        match host.edit_work_item("root", &target, &edit) {
            Ok(item) => {
                let view = &ok(&by_tool)["work_item"];
                assert_eq!(view["revision"], item.revision, "case {n}: {input}");
                assert_eq!(view["objective"], item.objective, "case {n}: {input}");
                assert_eq!(view["plan"], json!(item.plan), "case {n}: {input}");
                assert_eq!(view["plan_status"], json!(item.plan_status), "case {n}");
                assert_eq!(view["todo_list"], json!(item.todo_list), "case {n}");
                applied += 1;
            }
            Err(error) => {
                let error = seen(error);
                assert_eq!(by_tool["error"], error, "case {n}: {input}");
                refused_kinds.insert(error["kind"].as_str().unwrap().to_string());
            }
        }
    }
    assert!(applied >= 30, "only {applied} edits applied");
    // The generator reaches every rule an edit can break.
    assert_eq!(
        refused_kinds.into_iter().collect::<Vec<_>>(),
        [
            "empty_text",
            "nothing_to_update",
            "stale_revision",
            "unknown_work_item",
            "work_item_completed"
        ]
    );
}

#[tokio::test]
async fn an_empty_host_edit_is_refused_like_an_empty_update() {
    let rt = prepared().await;
    let before = rt.work_item("root", "wi-1").unwrap().revision;
    let error = seen(
        rt.edit_work_item("root", "wi-1", &WorkItemEdit::default())
            .unwrap_err(),
    );
    let by_tool = call(&rt, "UpdateWorkItem", json!({"work_item_id": "wi-1"})).await;
    assert_eq!(error["kind"], "nothing_to_update");
    assert_eq!(by_tool["error"], error);
    assert_eq!(
        rt.work_item("root", "wi-1").unwrap().revision,
        before,
        "a refused edit writes nothing"
    );
}

#[tokio::test]
async fn the_host_cannot_focus_what_pick_work_item_refuses() {
    let rt = prepared().await;
    for target in ["wi-2", "wi-9", "nope"] {
        let by_host = seen(rt.set_focus("root", Some(target)).unwrap_err());
        let by_tool = call(&rt, "PickWorkItem", json!({"work_item_id": target})).await;
        assert_eq!(by_tool["error"], by_host, "{target}");
    }
    let focus = ok(&call(&rt, "GetWorkItem", json!({"work_item_id": "wi-1"})).await)["work_item"]
        ["focused"]
        .clone();
    assert_eq!(focus, true, "a refused focus move keeps the focus");
    rt.set_focus("root", Some("wi-1")).unwrap();
    rt.set_focus("root", None).unwrap();
}
