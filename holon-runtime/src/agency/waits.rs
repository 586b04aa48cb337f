//! The `waits` table and WaitFor's request: validate what is awaited, record the wait
//! with what it was reported against (the agent's newest wake and interjection, the
//! work item's revision, the turn and its execution), then settle it at once
//! (`delivery = silent`) or leave it pending until the turn's final brief
//! (`delivery = final`). The settlement itself is in [`super::settlement`].

use holon_core::ToolError;
use holon_core::prelude::*;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::errors::{self, TASK_NOT_OWNED, TASK_OWNERSHIP_MISMATCH, UNKNOWN_TASK};
use super::turns::{self, TurnState};
use super::wakes::WakeKind;
use super::{evidence, ids, ownership, queue, settlement, timers, triggers, wakes, work_items};

/// When the wait's report reaches the operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case")]
pub enum Delivery {
    /// The turn first publishes an operator-facing final brief; the wait is entered
    /// when it arrives, and nothing else runs in the turn before that.
    Final,
    /// No brief: the wait is entered at once and the turn ends quietly.
    Silent,
}

impl Delivery {
    fn as_str(self) -> &'static str {
        match self {
            Self::Final => "final",
            Self::Silent => "silent",
        }
    }

    fn parse(text: &str) -> Self {
        if text == "final" {
            Self::Final
        } else {
            Self::Silent
        }
    }
}

/// A wait as reported to the model and the host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct WaitView {
    /// Its id, `wait-<n>`.
    pub wait_id: String,
    /// `pending_final` (until the final brief), `active`, `woken`, `cancelled` or
    /// `expired`.
    pub state: String,
    /// Why the agent waits.
    pub reason: String,
    /// What wakes it.
    pub wake: WakeKind,
    /// `final` or `silent`.
    pub delivery: Delivery,
    /// The task handle, timer id or trigger id awaited.
    pub resource: Option<String>,
    /// The work item the wait belongs to (for a task, the task owner's).
    pub work_item_id: Option<String>,
    /// The turn that reported it, `turn-<n>`.
    pub turn_id: String,
    /// When the runtime wakes it anyway to recheck, in milliseconds since the epoch.
    pub recheck_at_unix_ms: Option<i64>,
}

/// A wait as stored, with what it was reported against.
#[derive(Debug, Clone)]
pub struct WaitRecord {
    /// Its row in `waits`.
    pub row: i64,
    /// The waiting agent.
    pub agent_id: String,
    /// The turn that reported it.
    pub turn: i64,
    /// The execution binding it was reported under.
    pub execution: Option<i64>,
    /// The work item it blocks.
    pub work_item: Option<i64>,
    /// That work item's revision when the wait was reported.
    pub work_item_revision: Option<i64>,
    /// The agent's wake counter when the wait was reported.
    pub wake_mark: i64,
    /// The agent's interjection counter when the wait was reported.
    pub interjection_mark: i64,
    /// What a caller sees of it.
    pub view: WaitView,
}

const COLUMNS: &str = "id, agent_id, turn_id, execution_id, reason, wake, delivery, resource, work_item_id, work_item_revision, wake_mark, interjection_mark, recheck_at_ms, state";

fn from_row(row: &Row<'_>) -> rusqlite::Result<WaitRecord> {
    let id: i64 = row.get(0)?;
    let turn: i64 = row.get(2)?;
    let work_item: Option<i64> = row.get(8)?;
    Ok(WaitRecord {
        row: id,
        agent_id: row.get(1)?,
        turn,
        execution: row.get(3)?,
        work_item,
        work_item_revision: row.get(9)?,
        wake_mark: row.get(10)?,
        interjection_mark: row.get(11)?,
        view: WaitView {
            wait_id: ids::format(ids::WAIT, id),
            state: row.get(13)?,
            reason: row.get(4)?,
            wake: WakeKind::parse(&row.get::<_, String>(5)?),
            delivery: Delivery::parse(&row.get::<_, String>(6)?),
            resource: row.get(7)?,
            work_item_id: work_item.map(|r| ids::format(ids::WORK_ITEM, r)),
            turn_id: ids::format(ids::TURN, turn),
            recheck_at_unix_ms: row.get(12)?,
        },
    })
}

/// The wait in row `row`.
pub fn load(conn: &Connection, row: i64) -> Result<Option<WaitRecord>, ToolError> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM waits WHERE id = ?1"),
        [row],
        from_row,
    )
    .optional()
    .map_err(errors::store("reading a wait"))
}

/// `agent`'s waits in `pending_final` or `active` state, oldest first.
pub fn open_waits(conn: &Connection, agent: &str) -> Result<Vec<WaitView>, ToolError> {
    let mut statement = conn
        .prepare(&format!(
            "SELECT {COLUMNS} FROM waits WHERE agent_id = ?1 AND state IN ('pending_final', 'active') ORDER BY id"
        ))
        .map_err(errors::store("reading waits"))?;
    let rows = statement
        .query_map([agent], from_row)
        .map_err(errors::store("reading waits"))?;
    rows.map(|r| r.map(|w| w.view))
        .collect::<Result<_, _>>()
        .map_err(errors::store("reading waits"))
}

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
fn resolve_work_item(
    conn: &Connection,
    agent: &str,
    request: &WaitRequest<'_>,
) -> Result<Option<i64>, ToolError> {
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
            if ownership::task_state(conn, handle)?.is_none() {
                return Err(errors::error(
                    UNKNOWN_TASK,
                    format!("there is no task `{handle}`"),
                    "use a task handle from ExecCommand (`task-<n>`) or SpawnAgent (`agent:<id>`)",
                )
                .with_field("resource"));
            }
            let owner = ownership::owner(conn, handle)?.filter(|o| o.agent_id == agent);
            let Some(owner) = owner else {
                return Err(errors::error(
                    TASK_NOT_OWNED,
                    format!("task `{handle}` is not yours: its owner was captured when it was created, and it is another agent (or none)"),
                    "wait only for tasks you created",
                )
                .with_field("resource"));
            };
            if named.is_some() && named != owner.work_item {
                return Err(errors::error(
                    TASK_OWNERSHIP_MISMATCH,
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

/// Runs WaitFor for `agent` in one transaction: the wait is recorded and, with
/// `delivery = silent`, settled; with `final` its turn awaits the final brief.
pub fn request(
    conn: &mut Connection,
    agent: &str,
    request: &WaitRequest<'_>,
    now_ms: i64,
) -> Result<WaitReport, ToolError> {
    let reason = errors::non_empty(request.reason, "reason", "reason")?;
    let tx = crate::begin_write(conn).map_err(errors::store("starting a wait"))?;
    let turn = turns::for_call(&tx, agent, now_ms)?;
    let work_item = resolve_work_item(&tx, agent, request)?;
    let revision = match work_item {
        Some(row) => work_items::revision(&tx, row)?.map(|(revision, _)| revision),
        None => None,
    };
    let recheck_at = request
        .recheck_after_ms
        .map(|ms| now_ms.saturating_add(i64::try_from(ms).unwrap_or(i64::MAX)));
    let resource = request.resource.map(str::trim).filter(|r| !r.is_empty());
    tx.execute(
        "INSERT INTO waits (agent_id, turn_id, reason, wake, delivery, resource, work_item_id, work_item_revision,
                            wake_mark, interjection_mark, recheck_at_ms, state, created_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![
            agent,
            turn.row,
            reason,
            request.wake.as_str(),
            request.delivery.as_str(),
            resource,
            work_item,
            revision,
            wakes::mark(&tx, agent)?,
            queue::interjection_mark(&tx, agent)?,
            recheck_at,
            match request.delivery {
                Delivery::Final => "pending_final",
                Delivery::Silent => "pending",
            },
            now_ms,
        ],
    )
    .map_err(errors::store("recording a wait"))?;
    let row = tx.last_insert_rowid();
    let input = serde_json::to_string(request).unwrap_or_default();
    let settled = match request.delivery {
        Delivery::Silent => {
            settlement::settle(&tx, row, None, &input, now_ms)?;
            true
        }
        Delivery::Final => {
            // The final path must pass the same checks now, so that a report that is
            // already stale is refused before the turn commits to a brief.
            let wait = settlement::require_wait(&tx, row)?;
            settlement::check(&tx, &wait, TurnState::Open)?;
            let execution = evidence::insert(&tx, "WaitFor", &input, "deferred", now_ms)?;
            tx.execute(
                "UPDATE waits SET execution_id = ?2 WHERE id = ?1",
                params![row, execution],
            )
            .map_err(errors::store("recording a wait"))?;
            turns::await_final(&tx, turn.row, row)?;
            false
        }
    };
    let wait = settlement::require_wait(&tx, row)?.view;
    tx.commit().map_err(errors::store("recording a wait"))?;
    Ok(WaitReport { wait, settled })
}
