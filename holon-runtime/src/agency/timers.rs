//! The `timers` table: durable timers. A timer is `scheduled` until it fires at its
//! due time (waking the agent's waits on it) or is cancelled (and then never wakes
//! anything). Sleep records its pauses here too, as timers of kind `sleep`, which
//! wake nobody.

use super::errors::AgencyError;
use holon_core::prelude::*;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::errors::{self, AgencyErrorKind};
use super::{ids, wakes};

/// A timer as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TimerRecord {
    /// Its id, `timer-<n>`: WaitFor's `resource` with `wake = timer`.
    pub timer_id: String,
    /// The agent it wakes.
    pub owner_agent_id: String,
    /// `timer`, or `sleep` for a pause of Sleep.
    pub kind: String,
    /// Why it was set.
    pub reason: Option<String>,
    /// When it is due, in milliseconds since the Unix epoch.
    pub due_at_unix_ms: i64,
    /// `scheduled`, `fired` or `cancelled`.
    pub state: String,
}

impl TimerRecord {
    fn row(&self) -> i64 {
        ids::parse(ids::TIMER, &self.timer_id).unwrap_or_default()
    }
}

const COLUMNS: &str = "id, agent_id, kind, reason, due_at_ms, state";

fn from_row(row: &Row<'_>) -> rusqlite::Result<TimerRecord> {
    Ok(TimerRecord {
        timer_id: ids::format(ids::TIMER, row.get(0)?),
        owner_agent_id: row.get(1)?,
        kind: row.get(2)?,
        reason: row.get(3)?,
        due_at_unix_ms: row.get(4)?,
        state: row.get(5)?,
    })
}

/// Schedules a timer of `kind` for `agent`, due `delay_ms` after `now_ms`.
pub fn create(
    conn: &Connection,
    agent: &str,
    kind: &str,
    delay_ms: u64,
    reason: Option<&str>,
    now_ms: i64,
) -> Result<TimerRecord, AgencyError> {
    let due = now_ms.saturating_add(i64::try_from(delay_ms).unwrap_or(i64::MAX));
    conn.execute(
        "INSERT INTO timers (agent_id, kind, reason, due_at_ms, state, created_at_ms)
         VALUES (?1, ?2, ?3, ?4, 'scheduled', ?5)",
        params![agent, kind, reason, due, now_ms],
    )
    .map_err(errors::store("creating a timer"))?;
    let row = conn.last_insert_rowid();
    load(conn, row)?.ok_or_else(|| unknown(&ids::format(ids::TIMER, row)))
}

/// The timer in row `row`.
pub fn load(conn: &Connection, row: i64) -> Result<Option<TimerRecord>, AgencyError> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM timers WHERE id = ?1"),
        [row],
        from_row,
    )
    .optional()
    .map_err(errors::store("reading a timer"))
}

fn unknown(id: &str) -> AgencyError {
    errors::error(
        AgencyErrorKind::UnknownTimer,
        format!("you have no timer `{id}`"),
        "use the `timer_id` CreateTimer returned, such as `timer-2`",
    )
}

/// The timer `id` (`timer-<n>`) of `agent`, or an `unknown_timer` error for `field`.
pub fn require_owned(
    conn: &Connection,
    agent: &str,
    id: &str,
    field: &str,
) -> Result<TimerRecord, AgencyError> {
    let found = match ids::parse(ids::TIMER, id) {
        Some(row) => load(conn, row)?.filter(|t| t.owner_agent_id == agent && t.kind == "timer"),
        None => None,
    };
    found.ok_or_else(|| unknown(id).with_field(field.to_string()))
}

/// Cancels `timer` if it is still scheduled; returns the timer as it is now.
pub fn cancel(
    conn: &Connection,
    timer: &TimerRecord,
    now_ms: i64,
) -> Result<TimerRecord, AgencyError> {
    let row = timer.row();
    conn.execute(
        "UPDATE timers SET state = 'cancelled', settled_at_ms = ?2 WHERE id = ?1 AND state = 'scheduled'",
        params![row, now_ms],
    )
    .map_err(errors::store("cancelling a timer"))?;
    load(conn, row)?.ok_or_else(|| unknown(&timer.timer_id))
}

/// Marks the sleep timer `row` over.
pub fn finish_sleep(conn: &Connection, row: i64, now_ms: i64) -> Result<(), AgencyError> {
    conn.execute(
        "UPDATE timers SET state = 'fired', settled_at_ms = ?2 WHERE id = ?1 AND state = 'scheduled'",
        params![row, now_ms],
    )
    .map(|_| ())
    .map_err(errors::store("ending a sleep"))
}

/// How many active waits wait for the timer `timer_id`.
pub fn waiters(conn: &Connection, timer_id: &str) -> Result<i64, AgencyError> {
    conn.query_row(
        "SELECT COUNT(*) FROM waits WHERE wake = 'timer' AND resource = ?1 AND state IN ('active', 'pending_final')",
        [timer_id],
        |r| r.get(0),
    )
    .map_err(errors::store("counting a timer's waiters"))
}

/// Fires every scheduled timer due at `now_ms`: each wakes its agent (resolving the
/// waits on it); a due sleep record is just marked over. Returns the wakes.
pub fn fire_due(conn: &Connection, now_ms: i64) -> Result<Vec<(String, wakes::Wake)>, AgencyError> {
    let mut statement = conn
        .prepare(&format!(
            "UPDATE timers SET state = 'fired', settled_at_ms = ?1
             WHERE state = 'scheduled' AND due_at_ms <= ?1
             RETURNING {COLUMNS}"
        ))
        .map_err(errors::store("firing timers"))?;
    let mut fired: Vec<TimerRecord> = statement
        .query_map([now_ms], from_row)
        .map_err(errors::store("firing timers"))?
        .collect::<Result<_, _>>()
        .map_err(errors::store("firing timers"))?;
    fired.sort_by_key(TimerRecord::row);
    let mut woken = Vec::new();
    for timer in fired.into_iter().filter(|t| t.kind == "timer") {
        let detail = match &timer.reason {
            Some(reason) => format!("{} fired ({reason})", timer.timer_id),
            None => format!("{} fired", timer.timer_id),
        };
        let wake = wakes::deliver(
            conn,
            &timer.owner_agent_id,
            wakes::WakeKind::Timer,
            Some(&timer.timer_id),
            Some(&detail),
            now_ms,
        )?;
        woken.push((timer.owner_agent_id, wake));
    }
    Ok(woken)
}

/// Active waits of any agent whose recheck time has come: `(agent, wait row)`.
pub fn due_rechecks(conn: &Connection, now_ms: i64) -> Result<Vec<(String, i64)>, AgencyError> {
    let mut statement = conn
        .prepare(
            "SELECT agent_id, id FROM waits WHERE state = 'active' AND recheck_at_ms IS NOT NULL AND recheck_at_ms <= ?1 ORDER BY id",
        )
        .map_err(errors::store("reading rechecks"))?;
    let rows = statement
        .query_map([now_ms], |row| Ok((row.get(0)?, row.get(1)?)))
        .map_err(errors::store("reading rechecks"))?;
    rows.collect::<Result<_, _>>()
        .map_err(errors::store("reading rechecks"))
}
