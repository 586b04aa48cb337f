//! WaitFor: validate what is awaited, record the wait, then settle it at once
//! (`delivery = silent`) or leave it pending until the turn's final brief
//! (`delivery = final`).

use rusqlite::Connection;
use serde::Serialize;

use crate::agency::errors::{self, AgencyError, AgencyErrorKind};
use crate::agency::turns::{self, TurnState};
use crate::agency::waits::{self, Delivery, NewWait, WaitView};
use crate::agency::wakes::WakeKind;
use crate::agency::{evidence, now_ms, ownership, settlement, timers, triggers, work_items, write};

/// What WaitFor asks for.
#[derive(Debug, Clone, Serialize)]
pub struct WaitRequest<'a> {
    /// Why the agent waits, for the operator.
    pub reason: &'a str,
    /// What wakes it.
    pub wake: WakeKind,
    /// How the turn ends.
    pub delivery: Delivery,
    /// The task or trigger it waits on.
    pub resource: Option<&'a str>,
    /// The work item the wait blocks.
    pub work_item_id: Option<&'a str>,
    /// When to wake anyway to recheck.
    pub recheck_after_ms: Option<u64>,
}

/// Checks what `request` awaits and returns the work item the wait belongs to: the
/// one named, or for a task the work item that owns the task (never the focus).
/// Another principal's command task is answered as a task that does not exist.
fn resolve_work_item(
    conn: &Connection,
    agent: &str,
    principal: &str,
    request: &WaitRequest<'_>,
) -> Result<Option<i64>, AgencyError> {
    let named = match request.work_item_id {
        Some(id) => {
            let item = work_items::require_owned(conn, agent, id, "work_item_id")?;
            if item.state == work_items::WorkItemState::Completed {
                return Err(work_items::completed_error(&item, "work_item_id"));
            }
            Some(item.row)
        }
        None => None,
    };
    let resource = request.resource.map(str::trim).filter(|r| !r.is_empty());
    match (request.wake, resource) {
        (WakeKind::TaskResult, Some(handle)) => {
            if ownership::task_state(conn, handle)?.is_none()
                || !ownership::task_visible_to(conn, handle, principal)?
            {
                return Err(errors::error(
                    AgencyErrorKind::UnknownTask,
                    format!("there is no task `{handle}`"),
                    "use a task handle from ExecCommand (`task-<n>`) or SpawnAgent (`agent:<id>`)",
                )
                .with_field("resource"));
            }
            let owner = ownership::owner(conn, handle)?.filter(|o| o.agent_id == agent);
            let Some(owner) = owner else {
                return Err(errors::error(
                    AgencyErrorKind::TaskNotOwned,
                    format!("task `{handle}` is not yours: its owner was captured when it was created, and it is another agent (or none)"),
                    "wait only for tasks you created",
                )
                .with_field("resource"));
            };
            if named.is_some() && named != owner.work_item {
                return Err(errors::error(
                    AgencyErrorKind::TaskOwnershipMismatch,
                    format!(
                        "task `{handle}` belongs to work item {}, not to {}: a wait on a task stays with the work item that owns the task",
                        owner.work_item_id().unwrap_or_else(|| "(none)".into()),
                        request.work_item_id.unwrap_or_default()
                    ),
                    "omit work_item_id (the wait then belongs to the task's work item) or name the task's own work item",
                )
                .with_field("work_item_id"));
            }
            Ok(owner.work_item)
        }
        (WakeKind::Timer, Some(id)) => {
            timers::require_owned(conn, agent, id, "resource")?;
            Ok(named)
        }
        (WakeKind::External, Some(id)) => {
            triggers::require_owned(conn, agent, id, "resource")?;
            Ok(named)
        }
        _ => Ok(named),
    }
}

/// What WaitFor did.
#[derive(Debug, Clone)]
pub struct WaitReport {
    /// The wait as stored.
    pub wait: WaitView,
    /// Whether it was already settled when reported.
    pub settled: bool,
}

impl super::Agents<'_> {
    /// Runs WaitFor for `agent`, calling for `principal` (whose command tasks alone
    /// it may await), in one transaction: the wait is recorded and, with
    /// `delivery = silent`, settled; with `final` its turn awaits the final brief.
    pub fn wait_for(
        &self,
        agent: &str,
        principal: &str,
        request: &WaitRequest<'_>,
    ) -> Result<WaitReport, AgencyError> {
        let reason = errors::non_empty(request.reason, "reason", "reason")?;
        let now_ms = now_ms();
        write(self.rt.store(), "recording a wait", |tx| {
            let turn = turns::for_call(tx, agent, now_ms)?;
            let work_item = resolve_work_item(tx, agent, principal, request)?;
            let revision = match work_item {
                Some(row) => work_items::revision(tx, row)?.map(|(revision, _)| revision),
                None => None,
            };
            let row = waits::insert(
                tx,
                &NewWait {
                    agent,
                    turn: turn.row,
                    reason,
                    wake: request.wake,
                    delivery: request.delivery,
                    resource: request.resource.map(str::trim).filter(|r| !r.is_empty()),
                    work_item,
                    work_item_revision: revision,
                    recheck_at_ms: request
                        .recheck_after_ms
                        .map(|ms| now_ms.saturating_add(i64::try_from(ms).unwrap_or(i64::MAX))),
                    now_ms,
                },
            )?;
            let input = serde_json::to_string(request).unwrap_or_default();
            let settled = match request.delivery {
                Delivery::Silent => {
                    settlement::settle(tx, row, None, &input, now_ms)?;
                    true
                }
                Delivery::Final => {
                    // The final path must pass the same checks now, so that a report
                    // that is already stale is refused before the turn commits to a brief.
                    let wait = settlement::require_wait(tx, row)?;
                    settlement::check(tx, &wait, TurnState::Open)?;
                    let execution = evidence::insert(tx, "WaitFor", &input, "deferred", now_ms)?;
                    waits::bind_execution(tx, row, execution)?;
                    turns::await_final(tx, turn.row, row)?;
                    false
                }
            };
            let wait = settlement::require_wait(tx, row)?.view;
            Ok(WaitReport { wait, settled })
        })
    }
}
