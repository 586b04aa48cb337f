//! Tasks in PostgreSQL: one database that every replica of a server shares.
//!
//! Each write that changes a task's status notifies the channel `holon_tasks` with
//! the task's id in the same statement (`RETURNING pg_notify`: delivered at commit,
//! never without it), a hint to the listen streams of every replica at no round trip
//! of its own.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::record::{TaskRecord, TaskState, answering, asking};
use super::sql::{TaskRow, object_of, object_text, payload_text, to_sql};
use super::store::{TaskStore, TaskStoreError};
use crate::postgres::{Database, DbError, db_failed, failed, unavailable};

/// A [`TaskStore`] in a PostgreSQL database: a task is committed before its
/// `tools/call` is answered, and every server on the database sees it.
pub struct PostgresTaskStore {
    database: Arc<Database>,
}

impl std::fmt::Debug for PostgresTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresTaskStore").finish_non_exhaustive()
    }
}

impl PostgresTaskStore {
    /// The store in the database `url` names (`postgres://USER:PASSWORD@HOST:PORT/DATABASE`,
    /// or libpq's key-value form; a Unix socket is `host=/run/postgresql`), its
    /// tables created or migrated to this version if needed. Fails when the
    /// database cannot be reached within 10 seconds, or has a newer schema.
    pub fn open(url: &str) -> Result<Self, TaskStoreError> {
        let database = Database::open(url).map_err(TaskStoreError::from)?;
        Ok(Self::on(Arc::new(database)))
    }

    /// The store in `database`, whose pool it shares with the server's other stores.
    pub(crate) fn on(database: Arc<Database>) -> Self {
        Self { database }
    }

    /// Runs `work` on the database and waits for its end.
    fn call<T, F>(
        &self,
        work: impl FnOnce(deadpool_postgres::Pool) -> F,
    ) -> Result<T, TaskStoreError>
    where
        T: Send + 'static,
        F: std::future::Future<Output = Result<T, DbError>> + Send + 'static,
    {
        self.database.call(work).map_err(TaskStoreError::from)
    }
}

/// A database call's error as the store's: unavailable when the call could not
/// reach the database.
impl From<DbError> for TaskStoreError {
    fn from(error: DbError) -> Self {
        match error {
            DbError::Unavailable(message) => TaskStoreError::unavailable(message),
            DbError::Failed(message) => TaskStoreError::new(message),
        }
    }
}

/// When a task created at `created_at_ms` with `ttl_ms` expires; `None` when it
/// never does, a time past what a `BIGINT` holds included (no clock reaches it).
fn expires_at(created_at_ms: u64, ttl_ms: Option<u64>) -> Option<i64> {
    let expires = created_at_ms.checked_add(ttl_ms?)?;
    i64::try_from(expires).ok()
}

impl TaskStore for PostgresTaskStore {
    fn create(&self, record: &TaskRecord) -> Result<(), TaskStoreError> {
        let record = record.clone();
        let payload = payload_text(&record.state)?;
        self.call(|pool| async move {
            let client = pool.get().await.map_err(unavailable)?;
            let statement = client
                .prepare_cached(
                    "INSERT INTO holon_mcp_tasks
                     (id, owner, tool, status, payload, created_at_ms, updated_at_ms, ttl_ms,
                      expires_at_ms, lease_until_ms)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                     RETURNING pg_notify('holon_tasks', id)",
                )
                .await
                .map_err(db_failed)?;
            client
                .execute(
                    &statement,
                    &[
                        &record.id,
                        &record.owner.as_str(),
                        &record.tool,
                        &record.state.status(),
                        &payload,
                        &to_sql(record.created_at_ms),
                        &to_sql(record.updated_at_ms),
                        &record.ttl_ms.map(to_sql),
                        &expires_at(record.created_at_ms, record.ttl_ms),
                        &to_sql(record.lease_until_ms),
                    ],
                )
                .await
                .map_err(db_failed)?;
            Ok(())
        })
    }

    fn get(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        let id = id.to_string();
        let row = self.call(|pool| async move {
            let client = pool.get().await.map_err(unavailable)?;
            let statement = client
                .prepare_cached(
                    "SELECT owner, tool, status, payload, created_at_ms, updated_at_ms, ttl_ms,
                            lease_until_ms
                     FROM holon_mcp_tasks WHERE id = $1",
                )
                .await
                .map_err(db_failed)?;
            let row = client
                .query_opt(&statement, &[&id])
                .await
                .map_err(db_failed)?;
            Ok(row.map(|row| TaskRow {
                id,
                owner: row.get(0),
                tool: row.get(1),
                status: row.get(2),
                payload: row.get(3),
                created: row.get(4),
                updated: row.get(5),
                ttl: row.get(6),
                lease: row.get(7),
            }))
        })?;
        row.map(|row| row.into_record(|error| TaskStoreError::new(failed(error).to_string())))
            .transpose()
    }

    fn advance(&self, id: &str, state: &TaskState, now_ms: u64) -> Result<bool, TaskStoreError> {
        let id = id.to_string();
        let status = state.status();
        let payload = payload_text(state)?;
        self.call(|pool| async move {
            let client = pool.get().await.map_err(unavailable)?;
            // One statement: of concurrent advances of one task, the row lock
            // orders them and each sees the status the one before wrote, so an
            // ended task never changes (first terminal state wins).
            let statement = client
                .prepare_cached(
                    "UPDATE holon_mcp_tasks SET status = $2, payload = $3, updated_at_ms = $4
                     WHERE id = $1 AND status IN ('working', 'input_required')
                     RETURNING pg_notify('holon_tasks', id)",
                )
                .await
                .map_err(db_failed)?;
            let changed = client
                .execute(&statement, &[&id, &status, &payload, &to_sql(now_ms)])
                .await
                .map_err(db_failed)?;
            Ok(changed == 1)
        })
    }

    fn remove_expired(&self, now_ms: u64) -> Result<usize, TaskStoreError> {
        self.call(|pool| async move {
            let client = pool.get().await.map_err(unavailable)?;
            let statement = client
                .prepare_cached(
                    "DELETE FROM holon_mcp_tasks
                     WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= $1",
                )
                .await
                .map_err(db_failed)?;
            let removed = client
                .execute(&statement, &[&to_sql(now_ms)])
                .await
                .map_err(db_failed)?;
            Ok(usize::try_from(removed).unwrap_or(usize::MAX))
        })
    }

    fn renew(&self, id: &str, lease_until_ms: u64) -> Result<bool, TaskStoreError> {
        let id = id.to_string();
        self.call(|pool| async move {
            let client = pool.get().await.map_err(unavailable)?;
            let statement = client
                .prepare_cached(
                    "UPDATE holon_mcp_tasks SET lease_until_ms = $2
                     WHERE id = $1 AND status IN ('working', 'input_required')",
                )
                .await
                .map_err(db_failed)?;
            let changed = client
                .execute(&statement, &[&id, &to_sql(lease_until_ms)])
                .await
                .map_err(db_failed)?;
            Ok(changed == 1)
        })
    }

    fn fail_abandoned(&self, state: &TaskState, now_ms: u64) -> Result<usize, TaskStoreError> {
        let status = state.status();
        let payload = payload_text(state)?;
        self.call(|pool| async move {
            let client = pool.get().await.map_err(unavailable)?;
            let statement = client
                .prepare_cached(
                    "UPDATE holon_mcp_tasks SET status = $1, payload = $2, updated_at_ms = $3
                     WHERE status IN ('working', 'input_required') AND lease_until_ms < $3
                     RETURNING pg_notify('holon_tasks', id)",
                )
                .await
                .map_err(db_failed)?;
            let failed_tasks = client
                .execute(&statement, &[&status, &payload, &to_sql(now_ms)])
                .await
                .map_err(db_failed)?;
            Ok(usize::try_from(failed_tasks).unwrap_or(usize::MAX))
        })
    }

    fn ask(
        &self,
        id: &str,
        key: &str,
        request: &Value,
        now_ms: u64,
    ) -> Result<bool, TaskStoreError> {
        let id = id.to_string();
        let key = key.to_string();
        let request = request.clone();
        self.call(|pool| async move {
            let mut client = pool.get().await.map_err(unavailable)?;
            // The row locked from the read to the commit: a concurrent `ask` or
            // `answer` of the task waits, then reads what this one wrote.
            let transaction = client.transaction().await.map_err(db_failed)?;
            let Some((state, _)) = locked(&transaction, &id).await? else {
                return Ok(false);
            };
            let Some(state) = asking(&state, &key, &request) else {
                return Ok(false);
            };
            let payload = payload_text(&state).map_err(|error| error.to_string())?;
            let statement = transaction
                .prepare_cached(
                    "UPDATE holon_mcp_tasks SET status = $2, payload = $3, updated_at_ms = $4
                     WHERE id = $1
                     RETURNING pg_notify('holon_tasks', id)",
                )
                .await
                .map_err(db_failed)?;
            transaction
                .execute(
                    &statement,
                    &[&id, &state.status(), &payload, &to_sql(now_ms)],
                )
                .await
                .map_err(db_failed)?;
            transaction.commit().await.map_err(db_failed)?;
            Ok(true)
        })
    }

    fn answer(
        &self,
        id: &str,
        responses: &Map<String, Value>,
        now_ms: u64,
    ) -> Result<Vec<String>, TaskStoreError> {
        let id = id.to_string();
        let responses = responses.clone();
        self.call(|pool| async move {
            let mut client = pool.get().await.map_err(unavailable)?;
            // Of racing answers, the row lock orders them: each reads the requests
            // the one before left waiting, so the first answer to a request wins.
            let transaction = client.transaction().await.map_err(db_failed)?;
            let Some((state, recorded)) = locked(&transaction, &id).await? else {
                return Ok(Vec::new());
            };
            let Some((state, answers, keys)) = answering(&state, &recorded, &responses) else {
                return Ok(Vec::new());
            };
            let payload = payload_text(&state).map_err(|error| error.to_string())?;
            let answers = object_text(&answers).map_err(|error| error.to_string())?;
            let statement = transaction
                .prepare_cached(
                    "UPDATE holon_mcp_tasks
                     SET status = $2, payload = $3, answers = $4, updated_at_ms = $5
                     WHERE id = $1
                     RETURNING pg_notify('holon_tasks', id)",
                )
                .await
                .map_err(db_failed)?;
            transaction
                .execute(
                    &statement,
                    &[&id, &state.status(), &payload, &answers, &to_sql(now_ms)],
                )
                .await
                .map_err(db_failed)?;
            transaction.commit().await.map_err(db_failed)?;
            Ok(keys)
        })
    }

    fn take_answers(&self, id: &str) -> Result<Map<String, Value>, TaskStoreError> {
        let id = id.to_string();
        let taken: Option<String> = self.call(|pool| async move {
            let client = pool.get().await.map_err(unavailable)?;
            // One statement, the row locked by its subquery: an answer recorded
            // meanwhile waits and is taken by the next call. A task with no
            // answer is one index lookup and no write (the running server polls).
            let statement = client
                .prepare_cached(
                    "UPDATE holon_mcp_tasks AS task SET answers = NULL
                     FROM (SELECT id, answers FROM holon_mcp_tasks
                           WHERE id = $1 AND answers IS NOT NULL FOR UPDATE) AS taken
                     WHERE task.id = taken.id
                     RETURNING taken.answers",
                )
                .await
                .map_err(db_failed)?;
            let row = client
                .query_opt(&statement, &[&id])
                .await
                .map_err(db_failed)?;
            Ok(row.and_then(|row| row.get(0)))
        })?;
        object_of(taken, |error| {
            TaskStoreError::new(failed(error).to_string())
        })
    }
}

/// The state and the answers not yet taken of task `id`, its row locked until
/// `transaction` ends; `None` when there is none.
async fn locked(
    transaction: &deadpool_postgres::Transaction<'_>,
    id: &str,
) -> Result<Option<(TaskState, Map<String, Value>)>, DbError> {
    let statement = transaction
        .prepare_cached(
            "SELECT status, payload, answers FROM holon_mcp_tasks WHERE id = $1 FOR UPDATE",
        )
        .await
        .map_err(db_failed)?;
    let Some(row) = transaction
        .query_opt(&statement, &[&id])
        .await
        .map_err(db_failed)?
    else {
        return Ok(None);
    };
    let status: String = row.get(0);
    let payload: Option<String> = row.get(1);
    let answers: Option<String> = row.get(2);
    let payload = payload
        .map(|text| serde_json::from_str::<Value>(&text).map_err(failed))
        .transpose()?;
    let state = TaskState::from_parts(&status, payload).map_err(|error| error.to_string())?;
    let answers = object_of(answers, |error| {
        TaskStoreError::new(failed(error).to_string())
    })
    .map_err(|error| error.to_string())?;
    Ok(Some((state, answers)))
}
