//! The embedded SQLite store: a file under the state directory (WAL mode), or in
//! memory for tests. Opening it applies the pending migrations.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};
use serde::Serialize;

use std::sync::atomic::{AtomicU64, Ordering};

use super::execution_log::{self, ExecutionRetention};
use super::migrations::MIGRATIONS;

/// How long a statement waits for another connection's write lock before it fails.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Why the store could not be opened or used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused an operation.
    #[error("the state store failed while {doing}: {source}{}", busy_advice(.source))]
    Sqlite {
        /// What the store was doing.
        doing: String,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// The database was written by a newer build.
    #[error(
        "the state store {} has schema version {found}, newer than this build knows ({known})",
        .path.display()
    )]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// The newest version this build knows.
        known: i64,
    },
}

impl StoreError {
    /// Whether another connection held the database's write lock past the busy
    /// timeout: the host may say how to avoid sharing the state directory.
    pub fn is_busy(&self) -> bool {
        match self {
            Self::Sqlite { source, .. } => is_busy(source),
            Self::TooNew { .. } => false,
        }
    }
}

fn is_busy(source: &rusqlite::Error) -> bool {
    source.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
}

/// What a busy database's message adds: who likely holds it.
fn busy_advice(source: &rusqlite::Error) -> String {
    if is_busy(source) {
        format!(
            "; another process on the same state directory held it for more than {} s",
            BUSY_TIMEOUT.as_secs()
        )
    } else {
        String::new()
    }
}

fn sqlite(doing: impl Into<String>) -> impl FnOnce(rusqlite::Error) -> StoreError {
    let doing = doing.into();
    move |source| StoreError::Sqlite { doing, source }
}

/// One recorded tool execution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExecutionRecord {
    /// Canonical tool name (the requested name when no tool matched).
    pub tool_name: String,
    /// The name the caller used.
    pub requested_name: String,
    /// The caller's call id.
    pub call_id: Option<String>,
    /// The input as sent; for a refused call with a long input, an excerpt of it
    /// (see `input_sha1`).
    pub input_json: String,
    /// The size of the input as sent, in bytes.
    pub input_bytes: u64,
    /// The SHA-1 of the input as sent when `input_json` holds only an excerpt.
    pub input_sha1: Option<String>,
    /// `success`, `error` or `deferred`.
    pub status: String,
    /// The error kind, when it failed.
    pub error_kind: Option<String>,
    /// Start time, milliseconds since the Unix epoch.
    pub started_at_ms: i64,
    /// Duration in microseconds.
    pub duration_us: i64,
}

impl ExecutionRecord {
    /// The record of a finished call: what was asked (`requested_name`, the input as
    /// sent) and what came of it.
    pub fn new(
        requested_name: &str,
        input_json: String,
        result: &holon_core::ToolResult,
        started_at: std::time::SystemTime,
        elapsed: std::time::Duration,
    ) -> Self {
        // A refused call's input is evidence of what was sent, not a payload to keep.
        let (input_json, input_bytes, input_sha1) =
            if result.status == holon_core::ToolStatus::Error {
                super::execution_log::bound_refused_input(input_json)
            } else {
                let bytes = input_json.len() as u64;
                (input_json, bytes, None)
            };
        Self {
            tool_name: result.tool_name.to_string(),
            requested_name: requested_name.to_string(),
            call_id: result.call_id.clone(),
            input_json,
            input_bytes,
            input_sha1,
            status: result.status.as_str().to_string(),
            error_kind: result.error_kind().map(str::to_string),
            started_at_ms: super::clock::unix_ms(started_at),
            duration_us: i64::try_from(elapsed.as_micros()).unwrap_or(i64::MAX),
        }
    }
}

/// Begins a transaction that writes. It takes the write lock at once (IMMEDIATE) so
/// that another connection on the same file (a second runtime, or a task's reaper
/// reporting an exit) makes it wait for the busy timeout. A deferred transaction that
/// reads first and then writes would fail at once with "database is locked" instead.
pub fn begin_write(connection: &mut Connection) -> rusqlite::Result<Transaction<'_>> {
    connection.transaction_with_behavior(TransactionBehavior::Immediate)
}

/// Switches the store to WAL. Several connections opening a new file at once each
/// need its exclusive lock for that, and SQLite answers the losers SQLITE_BUSY at once
/// (to avoid a deadlock) rather than through the busy handler: retry them until the
/// busy timeout, as the handler would.
fn enable_wal(connection: &Connection) -> rusqlite::Result<()> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match connection.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(error, _))
                if error.code == rusqlite::ErrorCode::DatabaseBusy
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            result => return result,
        }
    }
}

/// How many records are written between two prunings of the execution log.
const PRUNE_EVERY: u64 = 256;

/// The runtime's durable state.
pub struct Store {
    connection: Mutex<Connection>,
    retention: Mutex<ExecutionRetention>,
    written: AtomicU64,
}

impl Store {
    /// Opens (or creates) the store file at `path`, in WAL mode, and migrates it.
    #[allow(clippy::disallowed_methods)] // the store opener: the one SQLite connection
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let connection =
            Connection::open(path).map_err(sqlite(format!("opening {}", path.display())))?;
        // The timeout first: switching to WAL takes a lock another process may hold.
        connection
            .busy_timeout(BUSY_TIMEOUT)
            .map_err(sqlite("setting the busy timeout"))?;
        enable_wal(&connection).map_err(sqlite("enabling WAL"))?;
        Self::migrated(connection, path)
    }

    /// A fresh store in memory.
    #[allow(clippy::disallowed_methods)] // the store opener: the one SQLite connection
    pub fn in_memory() -> Result<Self, StoreError> {
        let connection =
            Connection::open_in_memory().map_err(sqlite("opening an in-memory store"))?;
        Self::migrated(connection, Path::new(":memory:"))
    }

    fn migrated(mut connection: Connection, path: &Path) -> Result<Self, StoreError> {
        connection
            .pragma_update(None, "foreign_keys", "ON")
            .map_err(sqlite("enabling foreign keys"))?;
        // The version is read under the write lock, and every pending migration applied
        // in that one transaction: two processes opening a new store at once cannot
        // both apply a migration, and a failed one leaves the store as it was.
        const DOING: &str = "migrating the schema";
        let transaction = begin_write(&mut connection).map_err(sqlite(DOING))?;
        let found: i64 = transaction
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .map_err(sqlite("reading the schema version"))?;
        let known = MIGRATIONS.last().map_or(0, |m| m.version);
        if found > known {
            return Err(StoreError::TooNew {
                path: path.to_path_buf(),
                found,
                known,
            });
        }
        for migration in MIGRATIONS.iter().filter(|m| m.version > found) {
            let doing = format!(
                "applying migration {} ({})",
                migration.version, migration.name
            );
            transaction
                .execute_batch(migration.sql)
                .map_err(sqlite(doing.clone()))?;
            transaction
                .pragma_update(None, "user_version", migration.version)
                .map_err(sqlite(doing))?;
        }
        transaction.commit().map_err(sqlite(DOING))?;
        Ok(Self {
            connection: Mutex::new(connection),
            retention: Mutex::new(ExecutionRetention::default()),
            written: AtomicU64::new(0),
        })
    }

    /// The connection, for the planes' own queries. A poisoned lock is recovered: the
    /// connection holds no Rust-side invariants a panic could break.
    pub fn connection(&self) -> MutexGuard<'_, Connection> {
        self.connection
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The schema version the store is at.
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        self.connection()
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .map_err(sqlite("reading the schema version"))
    }

    /// Sets how long and how much of the execution log is kept, and prunes it to that.
    pub fn set_execution_retention(&self, retention: ExecutionRetention) -> Result<(), StoreError> {
        *self
            .retention
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = retention;
        self.prune_executions().map(|_| ())
    }

    /// Removes the execution records the retention does not keep; how many.
    pub fn prune_executions(&self) -> Result<usize, StoreError> {
        let retention = *self
            .retention
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        execution_log::prune(&self.connection(), &retention, super::clock::now_ms())
    }

    /// Records one tool execution; every so many records, prunes the log.
    pub fn record_execution(&self, record: &ExecutionRecord) -> Result<(), StoreError> {
        self.connection()
            .execute(
                "INSERT INTO tool_executions
                   (tool_name, requested_name, call_id, input_json, input_bytes, input_sha1, status, error_kind, started_at_ms, duration_us)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    record.tool_name,
                    record.requested_name,
                    record.call_id,
                    record.input_json,
                    i64::try_from(record.input_bytes).unwrap_or(i64::MAX),
                    record.input_sha1,
                    record.status,
                    record.error_kind,
                    record.started_at_ms,
                    record.duration_us,
                ],
            )
            .map_err(sqlite("recording a tool execution"))?;
        if self.written.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
            self.prune_executions()?;
        }
        Ok(())
    }

    /// The most recent executions, newest first.
    pub fn recent_executions(&self, limit: usize) -> Result<Vec<ExecutionRecord>, StoreError> {
        let connection = self.connection();
        let mut statement = connection
            .prepare(
                "SELECT tool_name, requested_name, call_id, input_json, COALESCE(input_bytes, length(CAST(input_json AS BLOB))), input_sha1, status, error_kind, started_at_ms, duration_us
                 FROM tool_executions ORDER BY id DESC LIMIT ?1",
            )
            .map_err(sqlite("reading executions"))?;
        let rows = statement
            .query_map([i64::try_from(limit).unwrap_or(i64::MAX)], |row| {
                Ok(ExecutionRecord {
                    tool_name: row.get(0)?,
                    requested_name: row.get(1)?,
                    call_id: row.get(2)?,
                    input_json: row.get(3)?,
                    input_bytes: u64::try_from(row.get::<_, i64>(4)?).unwrap_or_default(),
                    input_sha1: row.get(5)?,
                    status: row.get(6)?,
                    error_kind: row.get(7)?,
                    started_at_ms: row.get(8)?,
                    duration_us: row.get(9)?,
                })
            })
            .map_err(sqlite("reading executions"))?;
        rows.collect::<Result<_, _>>()
            .map_err(sqlite("reading executions"))
    }

    /// How many executions are recorded.
    pub fn execution_count(&self) -> Result<u64, StoreError> {
        self.connection()
            .query_row("SELECT COUNT(*) FROM tool_executions", [], |row| {
                row.get::<_, i64>(0)
            })
            .optional()
            .map(|count| {
                count
                    .and_then(|c| u64::try_from(c).ok())
                    .unwrap_or_default()
            })
            .map_err(sqlite("counting executions"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrates_and_records() {
        let store = Store::in_memory().unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);
        let record = ExecutionRecord {
            tool_name: "Sleep".into(),
            requested_name: "Sleep".into(),
            call_id: Some("c1".into()),
            input_json: "{}".into(),
            input_bytes: 2,
            input_sha1: None,
            status: "success".into(),
            error_kind: None,
            started_at_ms: 1,
            duration_us: 2,
        };
        store.record_execution(&record).unwrap();
        assert_eq!(store.recent_executions(10).unwrap(), vec![record]);
    }

    #[test]
    fn processes_opening_a_new_store_at_once_migrate_it_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.sqlite3");
        let start = std::sync::Barrier::new(6);
        let versions: Vec<i64> = std::thread::scope(|scope| {
            let openers: Vec<_> = (0..6)
                .map(|_| {
                    scope.spawn(|| {
                        start.wait();
                        Store::open(&path).unwrap().schema_version().unwrap()
                    })
                })
                .collect();
            openers.into_iter().map(|o| o.join().unwrap()).collect()
        });
        assert_eq!(versions, vec![MIGRATIONS.len() as i64; 6]);
    }

    #[test]
    fn a_busy_store_says_who_may_hold_it_and_is_typed_busy() {
        let busy = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
            Some("database is locked".into()),
        );
        let error = sqlite("recording the home workspace")(busy);
        assert!(error.is_busy(), "{error}");
        let message = error.to_string();
        assert!(message.contains("database is locked"), "{message}");
        assert!(message.contains("another process"), "{message}");
        // The host names its own flags.
        assert!(!message.contains("--"), "{message}");
        let other = sqlite("reading")(rusqlite::Error::QueryReturnedNoRows);
        assert!(!other.is_busy(), "{other}");
        assert!(!other.to_string().contains("another process"), "{other}");
    }

    #[test]
    fn file_store_survives_reopen_and_refuses_newer_versions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.sqlite3");
        {
            let store = Store::open(&path).unwrap();
            assert_eq!(store.execution_count().unwrap(), 0);
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);
        store
            .connection()
            .pragma_update(None, "user_version", 999)
            .unwrap();
        drop(store);
        let error = Store::open(&path).err().unwrap();
        assert!(
            matches!(error, StoreError::TooNew { found: 999, .. }),
            "{error}"
        );
        assert!(error.to_string().contains("schema version 999"), "{error}");
    }
}
