//! The PostgreSQL database a server's stores share (feature `postgres`): one
//! connection pool, the driver's runtime, and the schema's migrations.
//!
//! The stores' traits are synchronous (their calls are short, as SQLite's are); the
//! driver is async. So the database runs the driver on a small runtime of its own
//! and waits for each statement's answer: a call works from any thread, inside a
//! host's runtime (of either flavour) or outside one, and never blocks the tasks of
//! the host's runtime behind one another's statements.

use std::future::Future;
use std::str::FromStr;
use std::sync::mpsc;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio_postgres::NoTls;

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
    // 3: the keyring that seals `requestState` (crate::keyring): the highest
    // generation is the current key, the one below it the previous.
    "CREATE TABLE holon_mcp_keys (
        generation BIGINT PRIMARY KEY NOT NULL,
        id TEXT NOT NULL UNIQUE,
        secret BYTEA NOT NULL,
        created_at_ms BIGINT NOT NULL
    );",
    // 4: the client's answers to a task's requests (a JSON object by request key),
    // recorded by `tasks/update` through any replica until the replica running the
    // task takes them.
    "ALTER TABLE holon_mcp_tasks ADD COLUMN answers TEXT;",
];

/// The advisory lock replicas that start together take while they migrate, so
/// that one of them applies each migration and the others see it applied.
const MIGRATION_LOCK: i64 = 0x686f_6c6f_6e5f_6d63; // "holon_mc"

/// How long a call waits for a connection, or for the server to accept one.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// At most this many connections per database (per server process).
const MAX_CONNECTIONS: usize = 16;

/// A PostgreSQL database, its schema migrated to this version.
pub(crate) struct Database {
    pool: Pool,
    /// How to connect, for a connection of its own outside the pool (the
    /// replica's `LISTEN` for task hints).
    config: tokio_postgres::Config,
    /// The driver's runtime; `None` only while the database is dropped.
    runtime: Option<tokio::runtime::Runtime>,
}

/// Why a call on the database failed, with the store's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DbError {
    /// The call could not reach the database: no connection could be had, or the
    /// one it had was closed or the server is shutting down. It may succeed later.
    #[error("{0}")]
    Unavailable(String),
    /// The database or the driver failed the call.
    #[error("{0}")]
    Failed(String),
}

impl From<String> for DbError {
    fn from(message: String) -> Self {
        DbError::Failed(message)
    }
}

/// `error` as a store's message.
pub(crate) fn failed(error: impl std::fmt::Display) -> DbError {
    DbError::Failed(format!("PostgreSQL: {error}"))
}

/// `error`, which kept a call from reaching the database (no connection could be
/// had, or the one it had was closed): the error and its causes.
pub(crate) fn unavailable(error: impl std::error::Error) -> DbError {
    let mut message = format!("PostgreSQL: {error}");
    let mut cause = error.source();
    while let Some(error) = cause {
        let text = error.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        cause = error.source();
    }
    DbError::Unavailable(message)
}

/// A driver error, with the server's own message when it sent one (the driver's
/// `Display` says only "db error"); a connection closed or refused, or a server
/// shutting down, is [`unavailable`].
pub(crate) fn db_failed(error: tokio_postgres::Error) -> DbError {
    use tokio_postgres::error::SqlState;
    match error.as_db_error() {
        Some(db)
            if [
                SqlState::ADMIN_SHUTDOWN,
                SqlState::CRASH_SHUTDOWN,
                SqlState::CANNOT_CONNECT_NOW,
            ]
            .contains(db.code()) =>
        {
            DbError::Unavailable(format!("PostgreSQL: {db}"))
        }
        Some(db) => failed(db),
        None if error.is_closed() || io_error(&error) => unavailable(error),
        None => failed(error),
    }
}

/// Whether `error` came from the connection's socket.
fn io_error(error: &tokio_postgres::Error) -> bool {
    let mut cause = std::error::Error::source(error);
    while let Some(error) = cause {
        if error.is::<std::io::Error>() {
            return true;
        }
        cause = error.source();
    }
    false
}

impl Database {
    /// The database `url` names (`postgres://USER:PASSWORD@HOST:PORT/DATABASE`, or
    /// libpq's key-value form; a Unix socket is `host=/run/postgresql`), its tables
    /// created or migrated to this version if needed. Fails when the database
    /// cannot be reached within 10 seconds, or has a newer schema.
    pub(crate) fn open(url: &str) -> Result<Self, DbError> {
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
            config.clone(),
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
        let database = Self {
            pool,
            config,
            runtime: Some(runtime),
        };
        database.call(|pool| async move {
            let mut client = pool.get().await.map_err(failed)?;
            migrate(&mut client).await
        })?;
        Ok(database)
    }

    /// Runs `work` on the database's runtime and waits for its end.
    pub(crate) fn call<T, F>(&self, work: impl FnOnce(Pool) -> F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: Future<Output = Result<T, DbError>> + Send + 'static,
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

impl Database {
    /// How to connect to the database.
    pub(crate) fn config(&self) -> &tokio_postgres::Config {
        &self.config
    }

    /// The driver's runtime, for a task that lives as long as the database.
    pub(crate) fn runtime(&self) -> Option<tokio::runtime::Handle> {
        self.runtime
            .as_ref()
            .map(|runtime| runtime.handle().clone())
    }
}

impl Drop for Database {
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
async fn migrate(client: &mut deadpool_postgres::Client) -> Result<(), DbError> {
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
            "the database's schema is version {current}, newer than this server's {known}: upgrade the server, or give it a database of its own"
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
