//! The `waits` table: what an agent waits for, recorded with what it was reported
//! against (the agent's newest wake and interjection, the work item's revision, the
//! turn and its execution). WaitFor's request is a service
//! ([`super::services::WaitRequest`]); the settlement is in [`super::settlement`].

use holon_core::prelude::*;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::errors::{self, AgencyError};
use super::wakes::WakeKind;
use super::{ids, queue, wakes};

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
pub fn load(conn: &Connection, row: i64) -> Result<Option<WaitRecord>, AgencyError> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM waits WHERE id = ?1"),
        [row],
        from_row,
    )
    .optional()
    .map_err(errors::store("reading a wait"))
}

/// `agent`'s waits in `pending_final` or `active` state, oldest first.
pub fn open_waits(conn: &Connection, agent: &str) -> Result<Vec<WaitView>, AgencyError> {
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

/// Cancels the active wait `row` because the work item it blocked was picked with
/// `clear_blocker`: it will not wake its agent, and its reason keeps why it was cleared.
pub fn cancel_for_blocker_clear(
    conn: &Connection,
    row: i64,
    cleared_because: &str,
    now_ms: i64,
) -> Result<(), AgencyError> {
    conn.execute(
        "UPDATE waits SET state = 'cancelled', resolved_at_ms = ?2,
                reason = reason || ' [cleared: ' || ?3 || ']'
         WHERE id = ?1 AND state = 'active'",
        params![row, now_ms, cleared_because],
    )
    .map(|_| ())
    .map_err(errors::store("cancelling a wait"))
}

/// Records a new wait, `pending_final` or `pending`, against what the agent has seen;
/// returns its row.
pub fn insert(conn: &Connection, wait: &NewWait<'_>) -> Result<i64, AgencyError> {
    conn.execute(
        "INSERT INTO waits (agent_id, turn_id, reason, wake, delivery, resource, work_item_id, work_item_revision,
                            wake_mark, interjection_mark, recheck_at_ms, state, created_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![
            wait.agent,
            wait.turn,
            wait.reason,
            wait.wake.as_str(),
            wait.delivery.as_str(),
            wait.resource,
            wait.work_item,
            wait.work_item_revision,
            wakes::mark(conn, wait.agent)?,
            queue::interjection_mark(conn, wait.agent)?,
            wait.recheck_at_ms,
            match wait.delivery {
                Delivery::Final => "pending_final",
                Delivery::Silent => "pending",
            },
            wait.now_ms,
        ],
    )
    .map_err(errors::store("recording a wait"))?;
    Ok(conn.last_insert_rowid())
}

/// A wait to record.
pub struct NewWait<'a> {
    /// The waiting agent.
    pub agent: &'a str,
    /// The turn that reports it.
    pub turn: i64,
    /// Why the agent waits.
    pub reason: &'a str,
    /// What wakes it.
    pub wake: WakeKind,
    /// How the turn ends.
    pub delivery: Delivery,
    /// The task, timer or trigger awaited.
    pub resource: Option<&'a str>,
    /// The work item it blocks.
    pub work_item: Option<i64>,
    /// That work item's revision now.
    pub work_item_revision: Option<i64>,
    /// When to wake anyway to recheck.
    pub recheck_at_ms: Option<i64>,
    /// Now.
    pub now_ms: i64,
}

/// Binds wait `row` to its execution record `execution`.
pub fn bind_execution(conn: &Connection, row: i64, execution: i64) -> Result<(), AgencyError> {
    conn.execute(
        "UPDATE waits SET execution_id = ?2 WHERE id = ?1",
        params![row, execution],
    )
    .map(|_| ())
    .map_err(errors::store("binding a wait to its execution"))
}
