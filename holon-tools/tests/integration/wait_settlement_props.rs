//! A property test of WaitFor's settlement: random interleavings of interjections,
//! wakes, focus switches, work item revisions, waits, settlements (some with an
//! injected failure), reopened turns and gated calls, checked against a small model.
//!
//! The model says, for every settlement, whether it must succeed (nothing the wait
//! was reported against changed) or fail; a failed settlement must leave the store
//! exactly as it was, and a successful one must hold all of itself.

use std::sync::Arc;

use holon_runtime::Runtime;
use holon_runtime::agency::{FailPoint, Priority, SettlementStep, WakeKind, WorkItemEdit};
use holon_tool_fixtures::runtime::{
    SETTLEMENT_TABLES, call, count, error_kind, gated, runtime, snapshot,
};
use proptest::prelude::*;
use serde_json::json;

/// What a final wait is reported on.
#[derive(Debug, Clone, Copy)]
enum Target {
    Nothing,
    Item(usize),
    /// The child's task, owned by wi-1.
    Task,
}

#[derive(Debug, Clone)]
enum Op {
    Interject,
    SelfInterject,
    Wake,
    FocusSwitch(usize),
    Bump(usize),
    WaitFinal(Target),
    WaitSilent(Option<usize>),
    Settle,
    SettleOld(usize),
    SettleFailing(usize),
    Reopen,
    GatedCall,
}

fn op() -> impl Strategy<Value = Op> {
    let item = 1usize..=3;
    prop_oneof![
        3 => Just(Op::Interject),
        1 => Just(Op::SelfInterject),
        3 => Just(Op::Wake),
        2 => item.clone().prop_map(Op::FocusSwitch),
        2 => item.clone().prop_map(Op::Bump),
        4 => prop_oneof![
            Just(Target::Nothing),
            item.clone().prop_map(Target::Item),
            Just(Target::Task)
        ]
        .prop_map(Op::WaitFinal),
        2 => proptest::option::of(item).prop_map(Op::WaitSilent),
        5 => Just(Op::Settle),
        1 => (0usize..4).prop_map(Op::SettleOld),
        1 => (0usize..4).prop_map(Op::SettleFailing),
        1 => Just(Op::Reopen),
        2 => Just(Op::GatedCall),
    ]
}

/// The pending final wait, and what changed since it was reported.
#[derive(Debug)]
struct Pending {
    wait_id: String,
    item: Option<usize>,
    stale: bool,
}

#[derive(Default)]
struct Model {
    pending: Option<Pending>,
    /// Every final wait reported, in order.
    final_waits: Vec<String>,
}

const STEPS: [SettlementStep; 4] = [
    SettlementStep::WaitRegistered,
    SettlementStep::EvidenceWritten,
    SettlementStep::TurnClosed,
    SettlementStep::QueueSettled,
];

fn wait_input(delivery: &str, target: Target) -> serde_json::Value {
    let mut input = json!({"reason": "r", "wake": "operator_input", "delivery": delivery});
    match target {
        Target::Nothing => {}
        Target::Item(i) => input["work_item_id"] = json!(format!("wi-{i}")),
        Target::Task => {
            input["wake"] = json!("task_result");
            input["resource"] = json!("agent:child-1");
        }
    }
    input
}

/// Settles `wait_id` (or the current turn's wait) and checks the outcome against
/// `model`; `step` arms an injected failure.
fn settle(rt: &Runtime, model: &mut Model, wait_id: Option<&str>, step: Option<SettlementStep>) {
    let before = snapshot(rt, SETTLEMENT_TABLES);
    if let Some(step) = step {
        FailPoint::arm(step);
    }
    let result = match wait_id {
        Some(wait_id) => rt.publish_final_for(wait_id, "brief"),
        None => match rt.current_turn("root").unwrap() {
            Some(turn) => rt.publish_final(&turn.turn_id, "brief"),
            None => {
                FailPoint::disarm();
                assert!(model.pending.is_none());
                return;
            }
        },
    };
    FailPoint::disarm();
    let targets_pending = match (&model.pending, wait_id) {
        (Some(pending), Some(id)) => pending.wait_id == id,
        (Some(_), None) => true,
        (None, _) => false,
    };
    let fresh = targets_pending && model.pending.as_ref().is_some_and(|p| !p.stale);
    if fresh && step.is_none() {
        let wait = result.unwrap_or_else(|e| panic!("a fresh settlement failed: {e:?}"));
        let pending = model.pending.take().unwrap();
        assert_eq!(wait.wait_id, pending.wait_id);
        assert_eq!(wait.state, "active");
        assert_eq!(
            wait.work_item_id,
            pending.item.map(|i| format!("wi-{i}")),
            "the wait never follows the focus"
        );
        assert!(
            rt.current_turn("root").unwrap().is_none(),
            "the turn closed"
        );
        return;
    }
    let error = result.expect_err("a stale, replaced or failing settlement must fail");
    let expected = if fresh {
        "injected_failure"
    } else if targets_pending || wait_id.is_some() {
        "stale_wait_settlement"
    } else {
        "turn_not_active"
    };
    assert_eq!(error.kind.as_str(), expected, "{error:?}");
    assert_eq!(
        snapshot(rt, SETTLEMENT_TABLES),
        before,
        "a failed settlement wrote something"
    );
}

async fn apply(rt: &Arc<Runtime>, model: &mut Model, op: &Op) {
    let awaiting = model.pending.is_some();
    match op {
        Op::Interject => {
            rt.enqueue_message("root", "operator", Priority::Interject, "news")
                .unwrap();
            if let Some(p) = &mut model.pending {
                p.stale = true;
            }
        }
        Op::SelfInterject => {
            rt.enqueue_message("root", "root", Priority::Interject, "note to self")
                .unwrap();
        }
        Op::Wake => {
            rt.deliver_wake("root", WakeKind::System, None, None)
                .unwrap();
            if let Some(p) = &mut model.pending {
                p.stale = true;
            }
        }
        Op::FocusSwitch(i) => rt.set_focus("root", Some(&format!("wi-{i}"))).unwrap(),
        Op::Bump(i) => {
            let edit = WorkItemEdit {
                plan: Some(format!("plan {}", rand_text())),
                ..Default::default()
            };
            rt.edit_work_item("root", &format!("wi-{i}"), &edit)
                .unwrap();
            let owner = |t: usize| Some(t) == Some(*i);
            if let Some(p) = &mut model.pending
                && p.item.is_some_and(owner)
            {
                p.stale = true;
            }
        }
        Op::WaitFinal(target) => {
            let envelope = gated(rt, "WaitFor", wait_input("final", *target)).await;
            if awaiting {
                assert_eq!(error_kind(&envelope), "turn_awaiting_final", "{envelope}");
                return;
            }
            assert_eq!(envelope["status"], "deferred", "{envelope}");
            let wait_id = envelope["structured"]["wait"]["wait_id"]
                .as_str()
                .unwrap()
                .to_string();
            let item = match target {
                Target::Nothing => None,
                Target::Item(i) => Some(*i),
                Target::Task => Some(1),
            };
            model.final_waits.push(wait_id.clone());
            model.pending = Some(Pending {
                wait_id,
                item,
                stale: false,
            });
        }
        Op::WaitSilent(item) => {
            let target = item.map_or(Target::Nothing, Target::Item);
            let envelope = gated(rt, "WaitFor", wait_input("silent", target)).await;
            if awaiting {
                assert_eq!(error_kind(&envelope), "turn_awaiting_final", "{envelope}");
            } else {
                assert_eq!(
                    envelope["structured"]["wait"]["state"], "active",
                    "{envelope}"
                );
            }
        }
        Op::Settle => settle(rt, model, None, None),
        Op::SettleOld(k) => {
            let Some(wait_id) = model.final_waits.get(*k).cloned() else {
                return;
            };
            settle(rt, model, Some(&wait_id), None);
        }
        Op::SettleFailing(k) => settle(rt, model, None, Some(STEPS[k % STEPS.len()])),
        Op::Reopen => match rt.current_turn("root").unwrap() {
            Some(turn) if awaiting => {
                rt.reopen_turn(&turn.turn_id).unwrap();
                model.pending = None;
            }
            Some(turn) => assert_eq!(
                rt.reopen_turn(&turn.turn_id).unwrap_err().kind.as_str(),
                "turn_not_active"
            ),
            None => {}
        },
        Op::GatedCall => {
            let envelope = gated(rt, "AgentGet", json!({})).await;
            if awaiting {
                assert_eq!(error_kind(&envelope), "turn_awaiting_final");
            } else {
                assert_eq!(envelope["status"], "success", "{envelope}");
            }
        }
    }
}

fn rand_text() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// The store's invariants, whatever happened.
fn check_invariants(rt: &Runtime, model: &Model) {
    assert!(
        count(
            rt,
            "SELECT COUNT(*) FROM turns WHERE agent_id = 'root' AND state <> 'closed'"
        ) <= 1
    );
    let awaiting = count(
        rt,
        "SELECT COUNT(*) FROM turns WHERE agent_id = 'root' AND state = 'awaiting_final'",
    );
    assert_eq!(awaiting == 1, model.pending.is_some());
    // Every entered wait has its evidence, completed and successful; every pending one
    // its deferred evidence.
    let unproven = count(
        rt,
        "SELECT COUNT(*) FROM waits w LEFT JOIN tool_executions e ON e.id = w.execution_id
         WHERE w.agent_id = 'root' AND (e.id IS NULL OR e.requested_name = ''
            OR (w.state = 'active' AND e.status <> 'success')
            OR (w.state = 'pending_final' AND e.status <> 'deferred'))",
    );
    assert_eq!(unproven, 0, "a wait without its execution record");
    let pending_waits = count(
        rt,
        "SELECT COUNT(*) FROM waits WHERE state = 'pending_final'",
    );
    assert_eq!(pending_waits == 1, model.pending.is_some());
    // Task waits stay with the task's work item.
    assert_eq!(
        count(
            rt,
            "SELECT COUNT(*) FROM waits WHERE wake = 'task_result' AND work_item_id IS NOT 1"
        ),
        0
    );
    // An entered wait closed its turn, with the messages the turn had.
    assert_eq!(
        count(
            rt,
            "SELECT COUNT(*) FROM waits w JOIN turns t ON t.id = w.turn_id WHERE w.state = 'active' AND t.state <> 'closed'"
        ),
        0
    );
    assert_eq!(
        count(
            rt,
            "SELECT COUNT(*) FROM queue q JOIN turns t ON t.id = q.turn_id WHERE t.state = 'closed' AND q.state = 'delivered'"
        ),
        0
    );
}

async fn run(ops: Vec<Op>) {
    let rt = runtime();
    for objective in ["one", "two", "three"] {
        holon_tool_fixtures::runtime::ok(
            &call(
                &rt,
                "CreateWorkItem",
                json!({"objective": objective, "focus": objective == "one"}),
            )
            .await,
        );
    }
    holon_tool_fixtures::runtime::ok(
        &call(&rt, "SpawnAgent", json!({"initial_message": "work"})).await,
    );
    rt.enqueue_message("root", "operator", Priority::Normal, "start")
        .unwrap();
    rt.begin_turn("root").unwrap();
    let mut model = Model::default();
    for op in &ops {
        apply(&rt, &mut model, op).await;
        check_invariants(&rt, &model);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn settlement_is_atomic_and_refuses_stale_reports(ops in proptest::collection::vec(op(), 1..32)) {
        let tokio = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        tokio.block_on(run(ops));
    }
}
