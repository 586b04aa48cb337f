//! Tasks in SQLite: they outlive the server process.

// The store opens the database file its host names: the MCP server's own state, not
// a tool's effect (holon-runtime's gates are for tools).
#![allow(clippy::disallowed_methods)]

use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

use super::record::{TaskOwner, TaskRecord, TaskState};
use super::sql::{from_sql, payload_text, to_sql};
use super::store::{TaskStore, TaskStoreError};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS holon_mcp_tasks (
    id TEXT PRIMARY KEY NOT NULL,
    owner TEXT NOT NULL,
    tool TEXT NOT NULL,
    status TEXT NOT NULL,
    payload TEXT,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    ttl_ms INTEGER
);
CREATE INDEX IF NOT EXISTS holon_mcp_tasks_expiry
    ON holon_mcp_tasks (created_at_ms) WHERE ttl_ms IS NOT NULL;
";

/// A [`TaskStore`] in a SQLite database file: a task is on disk (committed, with
/// `synchronous = FULL`) before its `tools/call` is answered.
#[derive(Debug)]
pub struct SqliteTaskStore {
    connection: Mutex<Connection>,
}

fn failed(error: impl std::fmt::Display) -> TaskStoreError {
    TaskStoreError::new(format!("SQLite: {error}"))
}

impl SqliteTaskStore {
    /// The store in the database at `path`, created with its table if needed.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, TaskStoreError> {
        Self::with_connection(Connection::open(path).map_err(failed)?)
    }

    /// A store in a database of its own in memory (for tests: nothing is durable).
    pub fn open_in_memory() -> Result<Self, TaskStoreError> {
        Self::with_connection(Connection::open_in_memory().map_err(failed)?)
    }

    fn with_connection(connection: Connection) -> Result<Self, TaskStoreError> {
        connection
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(failed)?;
        connection
            .pragma_update(None, "synchronous", "FULL")
            .map_err(failed)?;
        connection.execute_batch(SCHEMA).map_err(failed)?;
        Ok(Self {
            connection: Mutex::new(connection),
        })
    }

    fn connection(&self) -> MutexGuard<'_, Connection> {
        // Every write is one statement: a panic elsewhere leaves nothing half-done.
        self.connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl TaskStore for SqliteTaskStore {
    fn create(&self, record: &TaskRecord) -> Result<(), TaskStoreError> {
        self.connection()
            .execute(
                "INSERT INTO holon_mcp_tasks
                 (id, owner, tool, status, payload, created_at_ms, updated_at_ms, ttl_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    record.id,
                    record.owner.as_str(),
                    record.tool,
                    record.state.status(),
                    payload_text(&record.state)?,
                    to_sql(record.created_at_ms),
                    to_sql(record.updated_at_ms),
                    record.ttl_ms.map(to_sql),
                ],
            )
            .map_err(failed)?;
        Ok(())
    }

    fn get(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        let row = self
            .connection()
            .query_row(
                "SELECT owner, tool, status, payload, created_at_ms, updated_at_ms, ttl_ms
                 FROM holon_mcp_tasks WHERE id = ?1",
                params![id],
                |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                        row.get::<_, Option<String>>(3)?,
                        row.get::<_, i64>(4)?,
                        row.get::<_, i64>(5)?,
                        row.get::<_, Option<i64>>(6)?,
                    ))
                },
            )
            .optional()
            .map_err(failed)?;
        let Some((owner, tool, status, payload, created, updated, ttl)) = row else {
            return Ok(None);
        };
        let payload = payload
            .map(|text| serde_json::from_str::<Value>(&text).map_err(failed))
            .transpose()?;
        Ok(Some(TaskRecord {
            id: id.to_string(),
            owner: TaskOwner::from_stored(owner),
            tool,
            state: TaskState::from_parts(&status, payload)?,
            created_at_ms: from_sql(created),
            updated_at_ms: from_sql(updated),
            ttl_ms: ttl.map(from_sql),
        }))
    }

    fn advance(&self, id: &str, state: &TaskState, now_ms: u64) -> Result<bool, TaskStoreError> {
        let changed = self
            .connection()
            .execute(
                "UPDATE holon_mcp_tasks SET status = ?2, payload = ?3, updated_at_ms = ?4
                 WHERE id = ?1 AND status IN ('working', 'input_required')",
                params![id, state.status(), payload_text(state)?, to_sql(now_ms)],
            )
            .map_err(failed)?;
        Ok(changed == 1)
    }

    fn remove_expired(&self, now_ms: u64) -> Result<usize, TaskStoreError> {
        // `TaskRecord::is_expired` in SQL: one statement, on the expiry index.
        self.connection()
            .execute(
                "DELETE FROM holon_mcp_tasks
                 WHERE ttl_ms IS NOT NULL AND created_at_ms + ttl_ms <= ?1",
                params![to_sql(now_ms)],
            )
            .map_err(failed)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, json};

    use super::*;

    fn record(id: &str, ttl_ms: Option<u64>) -> TaskRecord {
        TaskRecord::working(id, TaskOwner::principal("alice"), "Tool", 1_000, ttl_ms)
    }

    #[test]
    fn a_task_outlives_its_connection_and_an_ended_one_never_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tasks.db");
        let store = SqliteTaskStore::open(&path).unwrap();
        store.create(&record("a", Some(10))).unwrap();
        store.create(&record("b", None)).unwrap();
        assert!(store.create(&record("a", None)).is_err(), "ids are unique");
        let mut result = Map::new();
        result.insert("content".into(), json!([{ "type": "text", "text": "ok" }]));
        let done = TaskState::Completed(result);
        assert!(store.advance("a", &done, 1_005).unwrap());
        assert!(!store.advance("a", &TaskState::Cancelled, 1_006).unwrap());
        drop(store);
        let store = SqliteTaskStore::open(&path).unwrap();
        let a = store.get("a").unwrap().expect("kept on disk");
        assert_eq!((a.state, a.updated_at_ms), (done, 1_005));
        assert_eq!(a.owner, TaskOwner::principal("alice"));
        assert_eq!(store.remove_expired(1_010).unwrap(), 1);
        assert_eq!(store.get("a").unwrap(), None);
        assert!(store.get("b").unwrap().is_some());
    }
}
