//! Tasks in SQLite: they outlive the server process.

// The store opens the database file its host names: the MCP server's own state, not
// a tool's effect (holon-gates' gates are for tools).
#![allow(clippy::disallowed_methods)]

use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use serde_json::{Map, Value};

use super::record::{TaskRecord, TaskState, answering, asking};
use super::sql::{TaskRow, object_of, object_text, payload_text, to_sql};
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

/// The changes to [`SCHEMA`], in order: the database's `user_version` counts those
/// applied. Never edited once released: a change is a new one at the end.
const MIGRATIONS: &[&str] = &[
    // 1: the lease of the server that runs a task (0 in a task of before: its
    // server is gone, so it reads as abandoned).
    "ALTER TABLE holon_mcp_tasks ADD COLUMN lease_until_ms INTEGER NOT NULL DEFAULT 0;",
    // 2: the client's answers to a task's requests (a JSON object by request key),
    // recorded by `tasks/update` until the server running the task takes them.
    "ALTER TABLE holon_mcp_tasks ADD COLUMN answers TEXT;",
];

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

    fn with_connection(mut connection: Connection) -> Result<Self, TaskStoreError> {
        crate::sqlite::prepare(&connection).map_err(failed)?;
        migrate(&mut connection)?;
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

/// Creates the table if needed and applies the migrations it lacks, in one
/// transaction that holds the write lock: two servers opening one file apply each
/// migration once.
fn migrate(connection: &mut Connection) -> Result<(), TaskStoreError> {
    let transaction = connection
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(failed)?;
    transaction.execute_batch(SCHEMA).map_err(failed)?;
    let applied: i64 = transaction
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .map_err(failed)?;
    let applied = usize::try_from(applied).unwrap_or(0);
    if applied > MIGRATIONS.len() {
        return Err(failed(format!(
            "the database's task schema is version {applied}, newer than this server's {}: upgrade the server",
            MIGRATIONS.len()
        )));
    }
    for migration in &MIGRATIONS[applied..] {
        transaction.execute_batch(migration).map_err(failed)?;
    }
    transaction
        .pragma_update(None, "user_version", to_sql(MIGRATIONS.len() as u64))
        .map_err(failed)?;
    transaction.commit().map_err(failed)
}

impl TaskStore for SqliteTaskStore {
    fn create(&self, record: &TaskRecord) -> Result<(), TaskStoreError> {
        self.connection()
            .execute(
                "INSERT INTO holon_mcp_tasks
                 (id, owner, tool, status, payload, created_at_ms, updated_at_ms, ttl_ms, lease_until_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    record.id,
                    record.owner.as_str(),
                    record.tool,
                    record.state.status(),
                    payload_text(&record.state)?,
                    to_sql(record.created_at_ms),
                    to_sql(record.updated_at_ms),
                    record.ttl_ms.map(to_sql),
                    to_sql(record.lease_until_ms),
                ],
            )
            .map_err(failed)?;
        Ok(())
    }

    fn get(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        let row = self
            .connection()
            .query_row(
                "SELECT owner, tool, status, payload, created_at_ms, updated_at_ms, ttl_ms,
                        lease_until_ms
                 FROM holon_mcp_tasks WHERE id = ?1",
                params![id],
                |row| {
                    Ok(TaskRow {
                        id: id.to_string(),
                        owner: row.get(0)?,
                        tool: row.get(1)?,
                        status: row.get(2)?,
                        payload: row.get(3)?,
                        created: row.get(4)?,
                        updated: row.get(5)?,
                        ttl: row.get(6)?,
                        lease: row.get(7)?,
                    })
                },
            )
            .optional()
            .map_err(failed)?;
        row.map(|row| row.into_record(failed)).transpose()
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

    fn renew(&self, id: &str, lease_until_ms: u64) -> Result<bool, TaskStoreError> {
        let changed = self
            .connection()
            .execute(
                "UPDATE holon_mcp_tasks SET lease_until_ms = ?2
                 WHERE id = ?1 AND status IN ('working', 'input_required')",
                params![id, to_sql(lease_until_ms)],
            )
            .map_err(failed)?;
        Ok(changed == 1)
    }

    fn fail_abandoned(&self, state: &TaskState, now_ms: u64) -> Result<usize, TaskStoreError> {
        self.connection()
            .execute(
                "UPDATE holon_mcp_tasks SET status = ?1, payload = ?2, updated_at_ms = ?3
                 WHERE status IN ('working', 'input_required') AND lease_until_ms < ?3",
                params![state.status(), payload_text(state)?, to_sql(now_ms)],
            )
            .map_err(failed)
    }

    fn ask(
        &self,
        id: &str,
        key: &str,
        request: &Value,
        now_ms: u64,
    ) -> Result<bool, TaskStoreError> {
        let mut connection = self.connection();
        // Read and written under the database's write lock: another process's
        // `answer` cannot come between.
        let transaction = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(failed)?;
        let Some(state) = state_of(&transaction, id)? else {
            return Ok(false);
        };
        let Some(state) = asking(&state, key, request) else {
            return Ok(false);
        };
        transaction
            .execute(
                "UPDATE holon_mcp_tasks SET status = ?2, payload = ?3, updated_at_ms = ?4
                 WHERE id = ?1",
                params![id, state.status(), payload_text(&state)?, to_sql(now_ms)],
            )
            .map_err(failed)?;
        transaction.commit().map_err(failed)?;
        Ok(true)
    }

    fn answer(
        &self,
        id: &str,
        responses: &Map<String, Value>,
        now_ms: u64,
    ) -> Result<Vec<String>, TaskStoreError> {
        let mut connection = self.connection();
        let transaction = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(failed)?;
        let Some(state) = state_of(&transaction, id)? else {
            return Ok(Vec::new());
        };
        let recorded: Option<String> = transaction
            .query_row(
                "SELECT answers FROM holon_mcp_tasks WHERE id = ?1",
                params![id],
                |row| row.get(0),
            )
            .map_err(failed)?;
        let recorded = object_of(recorded, failed)?;
        let Some((state, answers, keys)) = answering(&state, &recorded, responses) else {
            return Ok(Vec::new());
        };
        transaction
            .execute(
                "UPDATE holon_mcp_tasks
                 SET status = ?2, payload = ?3, answers = ?4, updated_at_ms = ?5
                 WHERE id = ?1",
                params![
                    id,
                    state.status(),
                    payload_text(&state)?,
                    object_text(&answers)?,
                    to_sql(now_ms)
                ],
            )
            .map_err(failed)?;
        transaction.commit().map_err(failed)?;
        Ok(keys)
    }

    fn take_answers(&self, id: &str) -> Result<Map<String, Value>, TaskStoreError> {
        let mut connection = self.connection();
        let transaction = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(failed)?;
        let recorded: Option<String> = transaction
            .query_row(
                "SELECT answers FROM holon_mcp_tasks WHERE id = ?1 AND answers IS NOT NULL",
                params![id],
                |row| row.get(0),
            )
            .optional()
            .map_err(failed)?
            .flatten();
        if recorded.is_none() {
            return Ok(Map::new());
        }
        transaction
            .execute(
                "UPDATE holon_mcp_tasks SET answers = NULL WHERE id = ?1",
                params![id],
            )
            .map_err(failed)?;
        transaction.commit().map_err(failed)?;
        object_of(recorded, failed)
    }
}

/// The state of task `id` as `connection` reads it; `None` when there is none.
fn state_of(connection: &Connection, id: &str) -> Result<Option<TaskState>, TaskStoreError> {
    let row: Option<(String, Option<String>)> = connection
        .query_row(
            "SELECT status, payload FROM holon_mcp_tasks WHERE id = ?1",
            params![id],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()
        .map_err(failed)?;
    let Some((status, payload)) = row else {
        return Ok(None);
    };
    let payload = payload
        .map(|text| serde_json::from_str::<Value>(&text).map_err(failed))
        .transpose()?;
    TaskState::from_parts(&status, payload).map(Some)
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, json};

    use super::*;
    use crate::tasks::record::TaskOwner;

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

    #[test]
    fn a_database_of_the_first_schema_gains_the_lease_and_its_tasks_read_as_abandoned() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tasks.db");
        let old = Connection::open(&path).unwrap();
        old.execute_batch(SCHEMA).unwrap();
        old.execute(
            "INSERT INTO holon_mcp_tasks
             (id, owner, tool, status, payload, created_at_ms, updated_at_ms, ttl_ms)
             VALUES ('old', 'anonymous', 'Tool', 'working', NULL, 1000, 1000, NULL)",
            [],
        )
        .unwrap();
        drop(old);
        let store = SqliteTaskStore::open(&path).unwrap();
        let task = store.get("old").unwrap().expect("kept");
        assert_eq!(task.lease_until_ms, 0);
        assert!(task.is_abandoned(1_001), "its server is gone");
        drop(store);
        // Opened again: the migrations are not applied twice.
        let store = SqliteTaskStore::open(&path).unwrap();
        assert!(store.renew("old", 5_000).unwrap());
        // The answers' column is there too.
        let request = json!({ "method": "elicitation/create", "params": {} });
        assert!(store.ask("old", "input-1", &request, 5_000).unwrap());
        let answers = json!({ "input-1": { "action": "decline" } });
        let Value::Object(answers) = answers else {
            unreachable!("an object literal")
        };
        assert_eq!(store.answer("old", &answers, 5_001).unwrap(), ["input-1"]);
        assert_eq!(store.take_answers("old").unwrap(), answers);
    }
}
