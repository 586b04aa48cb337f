//! The atomic settlement of a wait. In one transaction, and only if nothing the wait
//! was reported against has changed, it writes: the delivery mode and the wait's
//! registration (`active`), the tool evidence (the execution record of the WaitFor
//! call), the turn's terminal state (`closed`, with the final brief) and the queue's
//! terminal state (the turn's delivered messages become `settled`); then it blocks the
//! wait's work item and updates the agent's lifecycle.
//!
//! A stale report writes nothing and fails with `stale_wait_settlement`. Stale means:
//! the turn is no longer the agent's current turn in the expected state, or no longer
//! bound to this wait and its execution record (execution binding); a wake or an
//! interjection from someone else arrived after the wait was reported; the work item's
//! revision changed or it completed; the awaited task ended or changed owner; the
//! awaited timer fired or was cancelled; the awaited trigger was cancelled.
//!
//! [`FailPoint`] injects a failure between the steps, so tests can show that a failed
//! settlement leaves none of itself behind.

use std::cell::Cell;

use super::errors::AgencyError;
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::json;

use super::errors::{self, AgencyErrorKind};
use super::turns::{self, TurnState};
use super::waits::{self, WaitRecord};
use super::wakes::WakeKind;
use super::{agents, evidence, ids, ownership, queue, timers, triggers, wakes, work_items};

/// A point between two steps of a settlement, after the named step was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettlementStep {
    /// The wait is registered (`active`) with its delivery mode.
    WaitRegistered,
    /// The execution record of the WaitFor call is written.
    EvidenceWritten,
    /// The turn is closed.
    TurnClosed,
    /// The turn's messages are settled.
    QueueSettled,
}

thread_local! {
    static ARMED: Cell<Option<SettlementStep>> = const { Cell::new(None) };
}

/// A failure a test can inject into the next settlement on the current thread, after
/// a chosen step: the settlement then returns an `injected_failure` error from inside
/// its transaction, which rolls back. One-shot: it disarms when it fires. Production
/// code never arms it, and an unarmed fail point costs one thread-local read per step.
#[derive(Debug)]
pub struct FailPoint;

impl FailPoint {
    /// Arms the fail point after `step` for the next settlement on this thread.
    pub fn arm(step: SettlementStep) {
        ARMED.with(|armed| armed.set(Some(step)));
    }

    /// Disarms it.
    pub fn disarm() {
        ARMED.with(|armed| armed.set(None));
    }

    fn hit(step: SettlementStep) -> Result<(), AgencyError> {
        if ARMED.with(|armed| armed.get()) != Some(step) {
            return Ok(());
        }
        Self::disarm();
        Err(errors::error(
            AgencyErrorKind::InjectedFailure,
            format!("a failure was injected after the settlement step {step:?}"),
            "nothing of the settlement was kept; retry",
        ))
    }
}

/// The wait in row `row`, which must exist.
pub fn require_wait(conn: &Connection, row: i64) -> Result<WaitRecord, AgencyError> {
    waits::load(conn, row)?.ok_or_else(|| {
        stale(
            &ids::format(ids::WAIT, row),
            &["execution_binding: the wait is gone".to_string()],
        )
    })
}

fn stale(wait_id: &str, reasons: &[String]) -> AgencyError {
    let dimensions: Vec<&str> = reasons
        .iter()
        .map(|reason| reason.split(':').next().unwrap_or_default())
        .collect();
    errors::error(
        AgencyErrorKind::StaleWaitSettlement,
        format!(
            "the report of {wait_id} expired before it could settle ({}); nothing was written",
            reasons.join("; ")
        ),
        "look at what changed (new messages, wakes, the work item, the task) and decide again; a turn that awaits its final brief must be reopened first",
    )
    .with_details(json!({ "wait_id": wait_id, "stale": dimensions }))
}

/// Checks that nothing `wait` was reported against changed, its turn being in
/// `expected` state; returns every stale dimension at once.
pub fn check(conn: &Connection, wait: &WaitRecord, expected: TurnState) -> Result<(), AgencyError> {
    let mut reasons = Vec::new();
    let agent = wait.agent_id.as_str();
    let turn = turns::current(conn, agent)?;
    let bound = match &turn {
        Some(turn) if turn.row == wait.turn && turn.state == expected => match expected {
            TurnState::AwaitingFinal => {
                turn.pending_wait == Some(wait.row)
                    && wait.view.state == "pending_final"
                    && wait
                        .execution
                        .is_some_and(|row| evidence::exists(conn, row).unwrap_or(false))
            }
            _ => matches!(wait.view.state.as_str(), "pending" | "pending_final"),
        },
        _ => false,
    };
    if !bound {
        reasons.push(format!(
            "execution_binding: {} is no longer the current {} turn bound to this wait",
            ids::format(ids::TURN, wait.turn),
            expected.as_str()
        ));
    }
    if queue::interjection_mark(conn, agent)? != wait.interjection_mark {
        reasons.push("interjection: a message was interjected after the wait was reported".into());
    }
    if wakes::mark(conn, agent)? != wait.wake_mark {
        reasons.push("wake: the agent was woken after the wait was reported".into());
    }
    if let (Some(row), Some(revision)) = (wait.work_item, wait.work_item_revision) {
        match work_items::revision(conn, row)? {
            Some((now, false)) if now == revision => {}
            Some((_, true)) => reasons.push(format!("work_item_revision: wi-{row} completed")),
            _ => reasons.push(format!(
                "work_item_revision: wi-{row} changed since revision {revision}"
            )),
        }
    }
    if let Some(resource) = wait.view.resource.as_deref() {
        check_resource(conn, wait, resource, &mut reasons)?;
    }
    if reasons.is_empty() {
        Ok(())
    } else {
        Err(stale(&wait.view.wait_id, &reasons))
    }
}

fn check_resource(
    conn: &Connection,
    wait: &WaitRecord,
    resource: &str,
    reasons: &mut Vec<String>,
) -> Result<(), AgencyError> {
    match wait.view.wake {
        WakeKind::TaskResult => {
            let state = ownership::task_state(conn, resource)?;
            if state.as_deref() != Some("running") {
                reasons.push(format!(
                    "task: `{resource}` is {} already; its result is there to read",
                    state.as_deref().unwrap_or("gone")
                ));
            }
            let owner = ownership::owner(conn, resource)?;
            let owned =
                owner.is_some_and(|o| o.agent_id == wait.agent_id && o.work_item == wait.work_item);
            if !owned {
                reasons.push(format!(
                    "task: `{resource}` is not owned by this wait's agent and work item"
                ));
            }
        }
        WakeKind::Timer => {
            let state = ids::parse(ids::TIMER, resource)
                .map(|row| timers::load(conn, row))
                .transpose()?
                .flatten()
                .map(|timer| timer.state);
            if state.as_deref() != Some("scheduled") {
                reasons.push(format!(
                    "wake: timer `{resource}` is {} already and will not wake the wait",
                    state.as_deref().unwrap_or("gone")
                ));
            }
        }
        WakeKind::External => {
            if !triggers::is_active(conn, resource)? {
                reasons.push(format!("wake: trigger `{resource}` is cancelled"));
            }
        }
        WakeKind::OperatorInput | WakeKind::System => {}
    }
    Ok(())
}

/// Settles wait `row`: with `final_brief` for a turn that awaits it, without one for
/// a silent wait of an open turn (then `input` is the WaitFor input for the evidence).
/// Must run inside a transaction the caller commits.
pub fn settle(
    conn: &Connection,
    row: i64,
    final_brief: Option<&str>,
    input: &str,
    now_ms: i64,
) -> Result<WaitRecord, AgencyError> {
    let wait = require_wait(conn, row)?;
    let expected = if final_brief.is_some() {
        TurnState::AwaitingFinal
    } else {
        TurnState::Open
    };
    check(conn, &wait, expected)?;

    conn.execute(
        "UPDATE waits SET state = 'active', delivery = ?2, settled_at_ms = ?3 WHERE id = ?1",
        params![
            row,
            if final_brief.is_some() {
                "final"
            } else {
                "silent"
            },
            now_ms
        ],
    )
    .map_err(errors::store("registering a wait"))?;
    FailPoint::hit(SettlementStep::WaitRegistered)?;

    match wait.execution {
        Some(execution) => evidence::set_status(conn, execution, "success")?,
        None => {
            let execution = evidence::insert(conn, "WaitFor", input, "success", now_ms)?;
            conn.execute(
                "UPDATE waits SET execution_id = ?2 WHERE id = ?1",
                params![row, execution],
            )
            .map_err(errors::store("binding a wait to its execution"))?;
        }
    }
    FailPoint::hit(SettlementStep::EvidenceWritten)?;

    turns::close(conn, wait.turn, "waiting", final_brief, now_ms)?;
    FailPoint::hit(SettlementStep::TurnClosed)?;

    queue::settle_turn(conn, wait.turn)?;
    FailPoint::hit(SettlementStep::QueueSettled)?;

    if let Some(item) = wait.work_item {
        let reason = format!(
            "waiting ({}): {}",
            wait.view.wake.as_str(),
            wait.view.reason
        );
        work_items::set_blocker(conn, item, row, &reason, now_ms)?;
    }
    agents::refresh_lifecycle(conn, &wait.agent_id)?;
    require_wait(conn, row)
}

/// The wait the turn `turn` awaits its final brief for.
pub fn pending_wait_of(conn: &Connection, turn: i64) -> Result<Option<i64>, AgencyError> {
    conn.query_row(
        "SELECT pending_wait_id FROM turns WHERE id = ?1 AND state = 'awaiting_final'",
        [turn],
        |row| row.get(0),
    )
    .optional()
    .map(Option::flatten)
    .map_err(errors::store("reading a turn's pending wait"))
}
