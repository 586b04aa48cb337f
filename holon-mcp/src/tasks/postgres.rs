//! Tasks in PostgreSQL: one database that every replica of a server shares.
//!
//! The [`TaskStore`] trait is synchronous (its calls are short, as SQLite's are);
//! the driver is async. So the store runs the driver on a small runtime of its own
//! and waits for each statement's answer: a call works from any thread, inside a
//! host's runtime (of either flavour) or outside one, and never blocks the tasks of
//! the host's runtime behind one another's statements.

use std::future::Future;
use std::str::FromStr;
use std::sync::mpsc;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio_postgres::NoTls;

use super::record::{TaskRecord, TaskState};
use super::sql::{TaskRow, payload_text, to_sql};
use super::store::{TaskStore, TaskStoreError};
use crate::stores::masked;

/// The schema, one migration per version (version `n` is `MIGRATIONS[n - 1]`). A
/// migration is never edited once released: a change is a new one at the end.
const MIGRATIONS: &[&str] = &[
    // 1: the tasks. `expires_at_ms` is `created_at_ms + ttl_ms`, computed by the
    // server (PostgreSQL's integers fail on overflow), so the expiry sweep is one
    // range scan of its index.
    "CREATE TABLE holon_mcp_tasks (
        id TEXT PRIMARY KEY NOT NULL,
        owner TEXT NOT NULL,
        tool TEXT NOT NULL,
        status TEXT NOT NULL,
        payload TEXT,
        created_at_ms BIGINT NOT NULL,
        updated_at_ms BIGINT NOT NULL,
        ttl_ms BIGINT,
        expires_at_ms BIGINT
    );
    CREATE INDEX holon_mcp_tasks_expiry ON holon_mcp_tasks (expires_at_ms)
        WHERE expires_at_ms IS NOT NULL;",
    // 2: the lease of the server that runs a task (0 in a task of before: its
    // server is gone, so it reads as abandoned), and the index the sweep of
    // abandoned tasks scans.
    "ALTER TABLE holon_mcp_tasks ADD COLUMN lease_until_ms BIGINT NOT NULL DEFAULT 0;
    CREATE INDEX holon_mcp_tasks_lease ON holon_mcp_tasks (lease_until_ms)
        WHERE status IN ('working', 'input_required');",
];

/// The advisory lock replicas that start together take while they migrate, so
/// that one of them applies each migration and the others see it applied.
const MIGRATION_LOCK: i64 = 0x686f_6c6f_6e5f_6d63; // "holon_mc"

/// How long a call waits for a connection, or for the server to accept one.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// At most this many connections per store (per server process).
const MAX_CONNECTIONS: usize = 16;

/// A [`TaskStore`] in a PostgreSQL database: a task is committed before its
/// `tools/call` is answered, and every server on the database sees it.
pub struct PostgresTaskStore {
    pool: Pool,
    /// The driver's runtime; `None` only while the store is dropped.
    runtime: Option<tokio::runtime::Runtime>,
}

impl std::fmt::Debug for PostgresTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresTaskStore").finish_non_exhaustive()
    }
}

fn failed(error: impl std::fmt::Display) -> TaskStoreError {
    TaskStoreError::new(format!("PostgreSQL: {error}"))
}

/// A driver error, with the server's own message when it sent one (the driver's
/// `Display` says only "db error").
fn db_failed(error: tokio_postgres::Error) -> TaskStoreError {
    match error.as_db_error() {
        Some(db) => failed(db),
        None => failed(error),
    }
}

impl PostgresTaskStore {
    /// The store in the database `url` names (`postgres://USER:PASSWORD@HOST:PORT/DATABASE`,
    /// or libpq's key-value form; a Unix socket is `host=/run/postgresql`), its
    /// tables created or migrated to this version if needed. Fails when the
    /// database cannot be reached within 10 seconds, or has a newer schema.
    pub fn open(url: &str) -> Result<Self, TaskStoreError> {
        let mut config = tokio_postgres::Config::from_str(url).map_err(|error| {
            failed(format!(
                "`{}` is not a connection URL ({error}); write postgres://USER:PASSWORD@HOST:PORT/DATABASE",
                masked(url)
            ))
        })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("holon-mcp-postgres")
            .enable_all()
            .build()
            .map_err(failed)?;
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                // A broken connection fails its statement, and the pool drops it:
                // no test query before each use (a round trip per call).
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(MAX_CONNECTIONS)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .wait_timeout(Some(CONNECT_TIMEOUT))
            .create_timeout(Some(CONNECT_TIMEOUT))
            .build()
            .map_err(failed)?;
        let store = Self {
            pool,
            runtime: Some(runtime),
        };
        store.call(|pool| async move {
            let mut client = pool.get().await.map_err(failed)?;
            migrate(&mut client).await
        })?;
        Ok(store)
    }

    /// Runs `work` on the store's runtime and waits for its end.
    fn call<T, F>(&self, work: impl FnOnce(Pool) -> F) -> Result<T, TaskStoreError>
    where
        T: Send + 'static,
        F: Future<Output = Result<T, TaskStoreError>> + Send + 'static,
    {
        let runtime = self
            .runtime
            .as_ref()
            .ok_or_else(|| failed("the store is closed"))?;
        let (answer, answered) = mpsc::sync_channel(1);
        let work = work(self.pool.clone());
        runtime.spawn(async move {
            // The caller waits on the other end until it gets the answer.
            let _ = answer.send(work.await);
        });
        answered
            .recv()
            .map_err(|_| failed("the store's runtime stopped"))?
    }
}

impl Drop for PostgresTaskStore {
    fn drop(&mut self) {
        // Dropping a runtime waits for its threads, which a host's async context
        // must not do: they are left to stop on their own.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Brings the schema to the last version, in one transaction under the migration
/// lock: replicas that start at once apply each migration once.
async fn migrate(client: &mut deadpool_postgres::Client) -> Result<(), TaskStoreError> {
    let transaction = client.transaction().await.map_err(db_failed)?;
    transaction
        .execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(db_failed)?;
    transaction
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS holon_mcp_schema_version (
                version INTEGER PRIMARY KEY NOT NULL,
                applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
            )",
        )
        .await
        .map_err(db_failed)?;
    let current: i32 = transaction
        .query_one(
            "SELECT COALESCE(MAX(version), 0) FROM holon_mcp_schema_version",
            &[],
        )
        .await
        .map_err(db_failed)?
        .get(0);
    let known = MIGRATIONS.len();
    let current = usize::try_from(current).unwrap_or(0);
    if current > known {
        return Err(failed(format!(
            "the database's task schema is version {current}, newer than this server's {known}: upgrade the server, or give it a database of its own"
        )));
    }
    for (index, migration) in MIGRATIONS.iter().enumerate().skip(current) {
        let version = i32::try_from(index + 1).map_err(failed)?;
        transaction
            .batch_execute(migration)
            .await
            .map_err(db_failed)?;
        transaction
            .execute(
                "INSERT INTO holon_mcp_schema_version (version) VALUES ($1)",
                &[&version],
            )
            .await
            .map_err(db_failed)?;
    }
    transaction.commit().await.map_err(db_failed)
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
            let client = pool.get().await.map_err(failed)?;
            let statement = client
                .prepare_cached(
                    "INSERT INTO holon_mcp_tasks
                     (id, owner, tool, status, payload, created_at_ms, updated_at_ms, ttl_ms,
                      expires_at_ms, lease_until_ms)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
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
            let client = pool.get().await.map_err(failed)?;
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
        row.map(|row| row.into_record(failed)).transpose()
    }

    fn advance(&self, id: &str, state: &TaskState, now_ms: u64) -> Result<bool, TaskStoreError> {
        let id = id.to_string();
        let status = state.status();
        let payload = payload_text(state)?;
        self.call(|pool| async move {
            let client = pool.get().await.map_err(failed)?;
            // One statement: of concurrent advances of one task, the row lock
            // orders them and each sees the status the one before wrote, so an
            // ended task never changes (first terminal state wins).
            let statement = client
                .prepare_cached(
                    "UPDATE holon_mcp_tasks SET status = $2, payload = $3, updated_at_ms = $4
                     WHERE id = $1 AND status IN ('working', 'input_required')",
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
            let client = pool.get().await.map_err(failed)?;
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
            let client = pool.get().await.map_err(failed)?;
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
            let client = pool.get().await.map_err(failed)?;
            let statement = client
                .prepare_cached(
                    "UPDATE holon_mcp_tasks SET status = $1, payload = $2, updated_at_ms = $3
                     WHERE status IN ('working', 'input_required') AND lease_until_ms < $3",
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
}
