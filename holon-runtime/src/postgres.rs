//! A PostgreSQL database as the runtime's synchronous stores use it: a pool of
//! connections, driven by a small runtime of its own, each call waited for. A call
//! works from any thread, inside a host's runtime or outside one.

use std::future::Future;
use std::str::FromStr;
use std::sync::mpsc;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio_postgres::NoTls;

/// How long a call waits for a connection, or for the server to accept one.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A pool on one database and the runtime that drives it.
pub(crate) struct Database {
    pool: Pool,
    /// `None` only while the database is dropped.
    runtime: Option<tokio::runtime::Runtime>,
}

/// A pool error with its causes: its own `Display` says only "error connecting to
/// server", not why.
pub(crate) fn pool_failed(error: deadpool_postgres::PoolError) -> String {
    let mut reason = format!("PostgreSQL: {error}");
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        reason.push_str(": ");
        reason.push_str(&cause.to_string());
        source = cause.source();
    }
    reason
}

/// A driver error, with the server's own message when it sent one (the driver's
/// `Display` says only "db error").
pub(crate) fn db_failed(error: tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("PostgreSQL: {db}"),
        None => format!("PostgreSQL: {error}"),
    }
}

impl Database {
    /// The database `url` names (`postgres://USER:PASSWORD@HOST:PORT/DATABASE`, or
    /// libpq's key-value form), with at most `connections` of its connections.
    /// Nothing is connected yet. The URL is never echoed: it may hold a password.
    pub(crate) fn open(url: &str, connections: usize, thread: &str) -> Result<Self, String> {
        let mut config = tokio_postgres::Config::from_str(url).map_err(|error| {
            format!(
                "the URL is not a connection URL ({error}); write postgres://USER:PASSWORD@HOST:PORT/DATABASE"
            )
        })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name(thread)
            .enable_all()
            .build()
            .map_err(|error| error.to_string())?;
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                // A broken connection fails its statement and the pool drops it.
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(connections)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .wait_timeout(Some(CONNECT_TIMEOUT))
            .create_timeout(Some(CONNECT_TIMEOUT))
            .build()
            .map_err(|error| error.to_string())?;
        Ok(Self {
            pool,
            runtime: Some(runtime),
        })
    }

    /// Runs `work` on the database's runtime and waits for its end.
    pub(crate) fn call<T, E, F>(&self, work: impl FnOnce(Pool) -> F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<Stopped> + Send + 'static,
        F: Future<Output = Result<T, E>> + Send + 'static,
    {
        let runtime = self.runtime.as_ref().ok_or(Stopped)?;
        let (answer, answered) = mpsc::sync_channel(1);
        let work = work(self.pool.clone());
        runtime.spawn(async move {
            // The caller waits on the other end until it gets the answer.
            let _ = answer.send(work.await);
        });
        answered.recv().map_err(|_| Stopped)?
    }
}

/// The database's runtime is gone: the database is being dropped.
#[derive(Debug)]
pub(crate) struct Stopped;

impl From<Stopped> for String {
    fn from(_: Stopped) -> Self {
        "the database's runtime stopped".to_string()
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

/// Brings a schema to its last version: `migrations` (version `n` is
/// `migrations[n - 1]`) not yet recorded in `version_table` are applied in one
/// transaction under the advisory lock `lock`, so replicas that start together apply
/// each once. A schema newer than `migrations` is refused.
pub(crate) async fn migrate(
    client: &mut deadpool_postgres::Client,
    version_table: &str,
    lock: i64,
    migrations: &[&str],
) -> Result<(), String> {
    let transaction = client.transaction().await.map_err(db_failed)?;
    transaction
        .execute("SELECT pg_advisory_xact_lock($1)", &[&lock])
        .await
        .map_err(db_failed)?;
    transaction
        .batch_execute(&format!(
            "CREATE TABLE IF NOT EXISTS {version_table} (
                version INTEGER PRIMARY KEY NOT NULL,
                applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
            )"
        ))
        .await
        .map_err(db_failed)?;
    let current: i32 = transaction
        .query_one(
            &format!("SELECT COALESCE(MAX(version), 0) FROM {version_table}"),
            &[],
        )
        .await
        .map_err(db_failed)?
        .get(0);
    let known = migrations.len();
    let current = usize::try_from(current).unwrap_or(0);
    if current > known {
        return Err(format!(
            "the database's schema ({version_table}) is version {current}, newer than this program's {known}: upgrade it"
        ));
    }
    for (index, migration) in migrations.iter().enumerate().skip(current) {
        let version = i32::try_from(index + 1).map_err(|error| error.to_string())?;
        transaction
            .batch_execute(migration)
            .await
            .map_err(db_failed)?;
        transaction
            .execute(
                &format!("INSERT INTO {version_table} (version) VALUES ($1)"),
                &[&version],
            )
            .await
            .map_err(db_failed)?;
    }
    transaction.commit().await.map_err(db_failed)
}
