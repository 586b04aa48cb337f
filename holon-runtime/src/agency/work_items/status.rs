//! The transitions of a work item's status: blocked by a wait and unblocked, and
//! completing and completed. Each is a change of the item and increments its revision.

use crate::agency::errors::AgencyError;
use rusqlite::{Connection, params};

use super::{WorkItemRecord, reload};
use crate::agency::errors;

/// Blocks `row` on wait `wait` for `reason`.
pub fn set_blocker(
    conn: &Connection,
    row: i64,
    wait: i64,
    reason: &str,
    now_ms: i64,
) -> Result<(), AgencyError> {
    conn.execute(
        "UPDATE work_items SET blocker_wait_id = ?2, blocker_reason = ?3, revision = revision + 1, updated_at_ms = ?4
         WHERE id = ?1",
        params![row, wait, reason, now_ms],
    )
    .map(|_| ())
    .map_err(errors::store("blocking a work item"))
}

/// Clears the blocker of `row`, if it has one.
pub fn clear_blocker(conn: &Connection, row: i64, now_ms: i64) -> Result<(), AgencyError> {
    conn.execute(
        "UPDATE work_items SET blocker_wait_id = NULL, blocker_reason = NULL, revision = revision + 1, updated_at_ms = ?2
         WHERE id = ?1 AND blocker_wait_id IS NOT NULL",
        params![row, now_ms],
    )
    .map(|_| ())
    .map_err(errors::store("clearing a blocker"))
}

/// Clears the blocker of the work item blocked by wait `wait`.
pub fn clear_blocker_of_wait(conn: &Connection, wait: i64, now_ms: i64) -> Result<(), AgencyError> {
    conn.execute(
        "UPDATE work_items SET blocker_wait_id = NULL, blocker_reason = NULL, revision = revision + 1, updated_at_ms = ?2
         WHERE blocker_wait_id = ?1",
        params![wait, now_ms],
    )
    .map(|_| ())
    .map_err(errors::store("clearing a blocker"))
}

/// Puts `row` into `completing`, bound to `turn`'s completion report.
pub fn begin_completion(
    conn: &Connection,
    row: i64,
    turn: i64,
    now_ms: i64,
) -> Result<WorkItemRecord, AgencyError> {
    conn.execute(
        "UPDATE work_items SET state = 'completing', completing_turn_id = ?2,
                revision = revision + CASE WHEN state = 'completing' THEN 0 ELSE 1 END, updated_at_ms = ?3
         WHERE id = ?1",
        params![row, turn, now_ms],
    )
    .map_err(errors::store("completing a work item"))?;
    reload(conn, row)
}

/// Completes `row` with `report`.
pub fn complete(
    conn: &Connection,
    row: i64,
    report: &str,
    now_ms: i64,
) -> Result<WorkItemRecord, AgencyError> {
    conn.execute(
        "UPDATE work_items SET state = 'completed', completion_report = ?2, completing_turn_id = NULL,
                revision = revision + 1, updated_at_ms = ?3, completed_at_ms = ?3
         WHERE id = ?1",
        params![row, report, now_ms],
    )
    .map_err(errors::store("completing a work item"))?;
    reload(conn, row)
}

/// The work items waiting in `completing` for `turn`'s completion report.
pub fn completing_in_turn(conn: &Connection, turn: i64) -> Result<Vec<i64>, AgencyError> {
    let mut statement = conn
        .prepare("SELECT id FROM work_items WHERE state = 'completing' AND completing_turn_id = ?1 ORDER BY id")
        .map_err(errors::store("reading completing work items"))?;
    let rows = statement
        .query_map([turn], |row| row.get(0))
        .map_err(errors::store("reading completing work items"))?;
    rows.collect::<Result<_, _>>()
        .map_err(errors::store("reading completing work items"))
}
