//! Tool evidence: the execution record of a call in `tool_executions`.
//!
//! WaitFor writes its own execution record inside its settlement transaction, so that
//! the evidence commits (or not) together with the wait. The row is written with an
//! empty `requested_name`, meaning "to be completed": when the call returns, the
//! runtime's recorder fills in what only the dispatcher knows (the name used, the call
//! id, the input as sent, the timing) instead of writing a second record.

use super::errors::AgencyError;
use holon_core::{ToolResult, ToolStatus};
use rusqlite::{Connection, OptionalExtension, params};

use super::{errors, ids};
use crate::{ExecutionRecord, Store, StoreError};

/// Writes an execution record of `tool_name` with `status`, to be completed by the
/// recorder; returns its row.
pub fn insert(
    conn: &Connection,
    tool_name: &str,
    input_json: &str,
    status: &str,
    now_ms: i64,
) -> Result<i64, AgencyError> {
    conn.execute(
        "INSERT INTO tool_executions (tool_name, requested_name, input_json, status, started_at_ms, duration_us)
         VALUES (?1, '', ?2, ?3, ?4, 0)",
        params![tool_name, input_json, status, now_ms],
    )
    .map_err(errors::store("writing the execution record"))?;
    Ok(conn.last_insert_rowid())
}

/// Sets the status of execution record `row`.
pub fn set_status(conn: &Connection, row: i64, status: &str) -> Result<(), AgencyError> {
    conn.execute(
        "UPDATE tool_executions SET status = ?2 WHERE id = ?1",
        params![row, status],
    )
    .map(|_| ())
    .map_err(errors::store("updating the execution record"))
}

/// Whether execution record `row` exists.
pub fn exists(conn: &Connection, row: i64) -> Result<bool, AgencyError> {
    conn.query_row("SELECT 1 FROM tool_executions WHERE id = ?1", [row], |_| {
        Ok(())
    })
    .optional()
    .map(|found| found.is_some())
    .map_err(errors::store("reading the execution record"))
}

/// The row of the execution record a handler wrote for `result`, if any: a WaitFor
/// result names its wait, and the wait its execution record.
fn written_by_handler(conn: &Connection, result: &ToolResult) -> rusqlite::Result<Option<i64>> {
    if &*result.tool_name != "WaitFor" || result.status == ToolStatus::Error {
        return Ok(None);
    }
    let wait = result
        .structured
        .as_ref()
        .and_then(|s| s.pointer("/wait/wait_id"))
        .and_then(serde_json::Value::as_str)
        .and_then(|id| ids::parse(ids::WAIT, id));
    let Some(wait) = wait else {
        return Ok(None);
    };
    conn.query_row(
        "SELECT w.execution_id FROM waits w JOIN tool_executions e ON e.id = w.execution_id
         WHERE w.id = ?1 AND e.requested_name = ''",
        [wait],
        |row| row.get(0),
    )
    .optional()
}

/// Records one dispatched call: completes the record its handler wrote, or writes a
/// new one.
pub fn record(
    store: &Store,
    record: &ExecutionRecord,
    result: &ToolResult,
) -> Result<(), StoreError> {
    {
        let conn = store.connection();
        let doing = |source| StoreError::Sqlite {
            doing: "completing an execution record".to_string(),
            source,
        };
        if let Some(row) = written_by_handler(&conn, result).map_err(doing)? {
            conn.execute(
                "UPDATE tool_executions SET requested_name = ?2, call_id = ?3, input_json = ?4,
                        started_at_ms = ?5, duration_us = ?6, input_bytes = ?7, input_sha1 = ?8
                 WHERE id = ?1",
                params![
                    row,
                    record.requested_name,
                    record.call_id,
                    record.input_json,
                    record.started_at_ms,
                    record.duration_us,
                    i64::try_from(record.input_bytes).unwrap_or(i64::MAX),
                    record.input_sha1,
                ],
            )
            .map_err(doing)?;
            return Ok(());
        }
    }
    store.record_execution(record)
}
