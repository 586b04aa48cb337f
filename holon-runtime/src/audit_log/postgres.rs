//! The audit chain in PostgreSQL: one chain that every replica of a server appends
//! to. A record is stored as the file log stores it (its exact JSON line, and its
//! hash beside it), numbered from 1. An append is one statement: a function in the
//! database locks the one-row head table, seals the record to the head's hash and
//! inserts it, so appenders in any number of processes take turns and the chain
//! never forks, in one round trip.
//!
//! Appends are synchronous (an observer's call); the driver is async. So, as
//! holon-mcp's PostgreSQL task store does, the log runs the driver on a small runtime
//! of its own and waits for each answer: an append works from any thread, inside a
//! host's runtime or outside one.

use holon_core::Execution;
use holon_policy::audit::{AuditRecord, ChainHead, GENESIS_HASH};

use super::AuditError;
use super::rows::{AuditRow, RowBreak, verify_rows};
use crate::postgres::{Database, Stopped};

/// The schema, one migration per version (version `n` is `MIGRATIONS[n - 1]`); a
/// released migration is never edited.
const MIGRATIONS: &[&str] = &[
    // 1: the records, and the chain's head: one row (its key can only be TRUE) that
    // each append locks, and that names the last record, so that deleting the
    // records at the end shows.
    "CREATE TABLE holon_audit_records (
        seq BIGINT PRIMARY KEY NOT NULL,
        line TEXT NOT NULL,
        hash TEXT NOT NULL
    );
    CREATE TABLE holon_audit_head (
        only_row BOOLEAN PRIMARY KEY NOT NULL DEFAULT TRUE CHECK (only_row),
        seq BIGINT NOT NULL,
        hash TEXT NOT NULL
    );",
    // 2: the append as one statement, so that it is one round trip. The client sends
    // the record's JSON up to its link (`AuditRecord::unsealed_prefix`); the
    // function locks the head, checks that the last row is the one the head names,
    // seals the record to the head's hash as `AuditRecord::seal` does, inserts it
    // and moves the head. `appended` is the new record's number; when the chain is
    // broken it is NULL and `head_seq`, `last_seq` say how; with no head, all NULL.
    r#"CREATE FUNCTION holon_audit_append(
        prefix TEXT,
        OUT appended BIGINT,
        OUT head_seq BIGINT,
        OUT last_seq BIGINT
    ) LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
        head_hash TEXT;
        last_hash TEXT;
        sealed_hash TEXT;
    BEGIN
        SELECT h.seq, h.hash INTO head_seq, head_hash FROM holon_audit_head h FOR UPDATE;
        IF NOT FOUND THEN
            RETURN;
        END IF;
        -- Each statement of a VOLATILE function takes a fresh snapshot (READ
        -- COMMITTED): this read, after the lock, sees the row the appender before
        -- wrote, not the rows as they were when the statement started.
        SELECT r.seq, r.hash INTO last_seq, last_hash
            FROM holon_audit_records r ORDER BY r.seq DESC LIMIT 1;
        -- The head names the last row (none, at the genesis), with a hash that
        -- needs no escaping in the JSON text.
        IF NOT (head_hash ~ '^[0-9a-f]{64}$'
                AND CASE WHEN head_seq = 0
                    THEN head_hash = repeat('0', 64) AND last_seq IS NULL
                    ELSE last_seq IS NOT DISTINCT FROM head_seq
                        AND last_hash IS NOT DISTINCT FROM head_hash
                END) THEN
            last_seq := COALESCE(last_seq, 0);
            RETURN;
        END IF;
        -- The UTF-8 bytes of the text, as the Rust side hashes, whatever the
        -- database's encoding.
        sealed_hash := encode(sha256(convert_to(
            prefix || '"prev_hash":"' || head_hash || '","hash":""}', 'UTF8')), 'hex');
        appended := head_seq + 1;
        INSERT INTO holon_audit_records (seq, line, hash) VALUES (
            appended,
            prefix || '"prev_hash":"' || head_hash || '","hash":"' || sealed_hash || '"}',
            sealed_hash);
        UPDATE holon_audit_head SET seq = appended, hash = sealed_hash;
        last_seq := appended;
        head_seq := appended;
    END
    $$;"#,
];

/// The advisory lock that replicas starting together take while they migrate.
const MIGRATION_LOCK: i64 = 0x686f_6c6f_6e5f_6175; // "holon_au"

/// At most this many connections per log (per process): appends take turns on the
/// head's lock anyway.
const MAX_CONNECTIONS: usize = 4;

/// An open audit chain in a PostgreSQL database.
pub struct PostgresAuditLog {
    database: Database,
    keep_arguments: bool,
}

impl std::fmt::Debug for PostgresAuditLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresAuditLog")
            .field("keep_arguments", &self.keep_arguments)
            .finish_non_exhaustive()
    }
}

fn failed(reason: impl std::fmt::Display) -> AuditError {
    AuditError::Database {
        reason: reason.to_string(),
    }
}

impl From<Stopped> for AuditError {
    fn from(_: Stopped) -> Self {
        failed("the log's runtime stopped")
    }
}

/// A pool error with its causes: its own `Display` says only "error connecting to
/// server", not why.
fn pool_failed(error: deadpool_postgres::PoolError) -> AuditError {
    let mut reason = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        reason.push_str(": ");
        reason.push_str(&cause.to_string());
        source = cause.source();
    }
    failed(reason)
}

/// A driver error, with the server's own message when it sent one (the driver's
/// `Display` says only "db error").
fn db_failed(error: tokio_postgres::Error) -> AuditError {
    match error.as_db_error() {
        Some(db) => failed(db),
        None => failed(error),
    }
}

/// The database has no chain to read: no head table, or no head in it.
fn no_chain() -> AuditError {
    failed(
        "this database has no audit chain (no head in holon_audit_head): check the URL, or let `holon-tools serve --store URL --audit` start one; if it had one, its head was deleted",
    )
}

impl PostgresAuditLog {
    /// The chain in the database `url` names (`postgres://USER:PASSWORD@HOST:PORT/DATABASE`,
    /// or libpq's key-value form), its tables created or migrated if needed. The
    /// existing chain must verify: appending to a broken one would hide where it
    /// broke. Fails when the database cannot be reached within 10 seconds.
    pub fn open(url: &str, keep_arguments: bool) -> Result<Self, AuditError> {
        let log = Self::connect(url, keep_arguments)?;
        log.verify()?
            .map_err(|source| AuditError::RowsBroken { source })?;
        Ok(log)
    }

    /// The chain in the database `url` names, created when missing, not verified yet.
    pub fn connect(url: &str, keep_arguments: bool) -> Result<Self, AuditError> {
        let log = Self::existing(url, keep_arguments)?;
        log.database.call(|pool| async move {
            let mut client = pool.get().await.map_err(pool_failed)?;
            migrate(&mut client).await
        })?;
        Ok(log)
    }

    /// The chain in the database `url` names, to read and verify (`audit verify`):
    /// nothing is created, so a database without a chain reads as an error, not as
    /// an empty chain that verifies.
    pub fn existing(url: &str, keep_arguments: bool) -> Result<Self, AuditError> {
        let database =
            Database::open(url, MAX_CONNECTIONS, "holon-audit-postgres").map_err(failed)?;
        Ok(Self {
            database,
            keep_arguments,
        })
    }

    /// Appends the record of `execution`, chained to the database's last record.
    pub fn append(&self, execution: &Execution<'_>) -> Result<(), AuditError> {
        self.append_record(AuditRecord::of_execution(execution, self.keep_arguments))
            .map(|_seq| ())
    }

    /// Seals `record` to the chain's last record and appends it: its number. The
    /// database seals it (`holon_audit_append`), under the head's row lock, so
    /// concurrent appenders take turns.
    ///
    /// One round trip once the connection has prepared the statement: the call, in
    /// a transaction of its own.
    pub fn append_record(&self, record: AuditRecord) -> Result<i64, AuditError> {
        let prefix = record
            .unsealed_prefix()
            .map_err(|source| AuditError::Unsealable { source })?;
        self.database.call(|pool| async move {
            let client = pool.get().await.map_err(pool_failed)?;
            let append = client
                .prepare_cached("SELECT appended, head_seq, last_seq FROM holon_audit_append($1)")
                .await
                .map_err(db_failed)?;
            let row = client
                .query_one(&append, &[&prefix])
                .await
                .map_err(db_failed)?;
            let (appended, head, last): (Option<i64>, Option<i64>, Option<i64>) =
                (row.get(0), row.get(1), row.get(2));
            if let Some(seq) = appended {
                return Ok(seq);
            }
            let head = head.ok_or_else(no_chain)?;
            // The head does not name the last row: a deleted or edited tail is not
            // chained to (`audit verify` says where it broke).
            let rows = last.unwrap_or(0);
            let source = if rows < head {
                RowBreak::Truncated { rows, head }
            } else {
                RowBreak::Head { rows, head }
            };
            Err(AuditError::RowsBroken { source })
        })
    }

    /// The rows and the head (its number and hash), read in one snapshot.
    pub fn rows(&self) -> Result<(Vec<AuditRow>, (i64, String)), AuditError> {
        self.database.call(|pool| async move {
            let mut client = pool.get().await.map_err(pool_failed)?;
            let transaction = client
                .build_transaction()
                .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()
                .await
                .map_err(db_failed)?;
            let head = transaction
                .query_opt("SELECT seq, hash FROM holon_audit_head", &[])
                .await
                .map_err(|error| match error.code() {
                    Some(&tokio_postgres::error::SqlState::UNDEFINED_TABLE) => no_chain(),
                    _ => db_failed(error),
                })?
                .ok_or_else(no_chain)?;
            let rows = transaction
                .query(
                    "SELECT seq, line, hash FROM holon_audit_records ORDER BY seq",
                    &[],
                )
                .await
                .map_err(db_failed)?
                .into_iter()
                .map(|row| AuditRow {
                    seq: row.get(0),
                    line: row.get(1),
                    hash: row.get(2),
                })
                .collect();
            transaction.commit().await.map_err(db_failed)?;
            Ok((rows, (head.get(0), head.get(1))))
        })
    }

    /// Verifies the whole chain from the genesis with the file chain's verifier, and
    /// that the head names its last row: its head, or the first row that breaks it.
    pub fn verify(&self) -> Result<Result<ChainHead, RowBreak>, AuditError> {
        let (rows, (seq, hash)) = self.rows()?;
        Ok(verify_rows(&rows, (seq, &hash)))
    }
}

/// Brings the schema to the last version, in one transaction under the migration
/// lock, and makes the head (at the genesis) when there is none.
async fn migrate(client: &mut deadpool_postgres::Client) -> Result<(), AuditError> {
    let transaction = client.transaction().await.map_err(db_failed)?;
    transaction
        .execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(db_failed)?;
    transaction
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS holon_audit_schema_version (
                version INTEGER PRIMARY KEY NOT NULL,
                applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
            )",
        )
        .await
        .map_err(db_failed)?;
    let current: i32 = transaction
        .query_one(
            "SELECT COALESCE(MAX(version), 0) FROM holon_audit_schema_version",
            &[],
        )
        .await
        .map_err(db_failed)?
        .get(0);
    let known = MIGRATIONS.len();
    let current = usize::try_from(current).unwrap_or(0);
    if current > known {
        return Err(failed(format!(
            "the database's audit schema is version {current}, newer than this program's {known}: upgrade it"
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
                "INSERT INTO holon_audit_schema_version (version) VALUES ($1)",
                &[&version],
            )
            .await
            .map_err(db_failed)?;
        // The head starts at the genesis with the table, once: a head deleted later
        // stays deleted (evidence), and reads as no chain.
        if index == 0 {
            transaction
                .execute(
                    "INSERT INTO holon_audit_head (seq, hash) VALUES (0, $1)",
                    &[&GENESIS_HASH],
                )
                .await
                .map_err(db_failed)?;
        }
    }
    transaction.commit().await.map_err(db_failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_append_function_knows_the_genesis_as_sixty_four_zeros() {
        assert!(MIGRATIONS[1].contains("head_hash = repeat('0', 64)"));
        assert_eq!(GENESIS_HASH, "0".repeat(64));
    }
}
