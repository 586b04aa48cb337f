//! The ring in a SQLite file (table `holon_mcp_keys`, beside the tasks): every
//! server on the file seals and opens with the same keys.

// The store opens the database file its host names: the MCP server's own state, not
// a tool's effect (holon-gates' gates are for tools).
#![allow(clippy::disallowed_methods)]

use std::path::Path;
use std::sync::{Mutex, PoisonError};

use rusqlite::{Connection, TransactionBehavior, params};

use super::store::{KeyStore, ring_of};
use super::{Key, Keyring, KeyringError};
use crate::tasks::clock::now_ms;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS holon_mcp_keys (
    generation INTEGER PRIMARY KEY NOT NULL,
    id TEXT NOT NULL UNIQUE,
    secret BLOB NOT NULL,
    created_at_ms INTEGER NOT NULL
);
";

/// The ring's two newest keys: the current one first.
const SELECT: &str = "SELECT id, secret FROM holon_mcp_keys ORDER BY generation DESC LIMIT 2";

/// The ring of a SQLite file, on a connection of its own.
pub(crate) struct SqliteKeyStore {
    connection: Mutex<Connection>,
}

fn failed(error: impl std::fmt::Display) -> KeyringError {
    KeyringError::Store(format!("SQLite: {error}"))
}

fn select(connection: &Connection) -> Result<Vec<(String, Vec<u8>)>, KeyringError> {
    let mut statement = connection.prepare_cached(SELECT).map_err(failed)?;
    let rows = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .map_err(failed)?;
    rows.collect::<Result<_, _>>().map_err(failed)
}

impl SqliteKeyStore {
    /// The ring of the database at `path`, its table created if needed.
    pub(crate) fn open(path: &Path) -> Result<Self, KeyringError> {
        let connection = Connection::open(path).map_err(failed)?;
        crate::sqlite::prepare(&connection).map_err(failed)?;
        connection.execute_batch(SCHEMA).map_err(failed)?;
        Ok(Self {
            connection: Mutex::new(connection),
        })
    }

    fn connection(&self) -> std::sync::MutexGuard<'_, Connection> {
        // Each write is one transaction: a panic elsewhere leaves nothing half-done.
        self.connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

fn now() -> i64 {
    i64::try_from(now_ms()).unwrap_or(i64::MAX)
}

impl KeyStore for SqliteKeyStore {
    fn load(&self) -> Result<Keyring, KeyringError> {
        let connection = self.connection();
        let mut found = select(&connection)?;
        if found.is_empty() {
            // The first server on the file: of servers that start at once, one
            // inserts generation 1 and the others' inserts change nothing.
            let first = Key::generate()?;
            connection
                .execute(
                    "INSERT INTO holon_mcp_keys (generation, id, secret, created_at_ms)
                     VALUES (1, ?1, ?2, ?3) ON CONFLICT DO NOTHING",
                    params![first.id, first.secret, now()],
                )
                .map_err(failed)?;
            found = select(&connection)?;
        }
        ring_of(found)?.ok_or_else(|| failed("the key inserted is not there"))
    }

    fn rotate(&self) -> Result<Keyring, KeyringError> {
        let next = Key::generate()?;
        let mut connection = self.connection();
        // Immediate: the write lock first, so two rotations at once make two
        // generations.
        let transaction = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(failed)?;
        let generation: i64 = transaction
            .query_row(
                "SELECT COALESCE(MAX(generation), 0) + 1 FROM holon_mcp_keys",
                [],
                |row| row.get(0),
            )
            .map_err(failed)?;
        transaction
            .execute(
                "INSERT INTO holon_mcp_keys (generation, id, secret, created_at_ms)
                 VALUES (?1, ?2, ?3, ?4)",
                params![generation, next.id, next.secret, now()],
            )
            .map_err(failed)?;
        // The key before the previous one is rotated out: its secret goes.
        transaction
            .execute(
                "DELETE FROM holon_mcp_keys WHERE generation < ?1 - 1",
                params![generation],
            )
            .map_err(failed)?;
        let found = select(&transaction)?;
        transaction.commit().map_err(failed)?;
        ring_of(found)?.ok_or_else(|| failed("the key inserted is not there"))
    }
}
