//! The ring in PostgreSQL (table `holon_mcp_keys`, migration 3): every replica on
//! the database seals and opens with the same keys.

use std::sync::Arc;

use super::store::{KeyStore, ring_of};
use super::{Key, Keyring, KeyringError};
use crate::postgres::{Database, DbError, db_failed, unavailable};
use crate::tasks::clock::now_ms;

/// The advisory lock a rotation holds, so that two rotations at once make two
/// generations rather than one failing on the other's.
const ROTATION_LOCK: i64 = 0x686f_6c6f_6e5f_6b72; // "holon_kr"

/// The ring's two newest keys: the current one first.
const SELECT: &str = "SELECT id, secret FROM holon_mcp_keys ORDER BY generation DESC LIMIT 2";

/// The ring of a PostgreSQL database.
pub(crate) struct PostgresKeyStore {
    database: Arc<Database>,
}

impl PostgresKeyStore {
    /// The ring of `database` (migrated: its table is there).
    pub(crate) fn on(database: Arc<Database>) -> Self {
        Self { database }
    }
}

fn store_failed(error: DbError) -> KeyringError {
    KeyringError::Store(error.to_string())
}

fn rows(rows: Vec<tokio_postgres::Row>) -> Vec<(String, Vec<u8>)> {
    rows.into_iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect()
}

impl KeyStore for PostgresKeyStore {
    fn load(&self) -> Result<Keyring, KeyringError> {
        let first = Key::generate()?;
        let now = i64::try_from(now_ms()).unwrap_or(i64::MAX);
        let stored = self
            .database
            .call(|pool| async move {
                let client = pool.get().await.map_err(unavailable)?;
                let found = client.query(SELECT, &[]).await.map_err(db_failed)?;
                if !found.is_empty() {
                    return Ok(rows(found));
                }
                // The first server on the database: of replicas that start at
                // once, one inserts generation 1 and the others' inserts wait for
                // its commit, then do nothing; all then read its key.
                client
                    .execute(
                        "INSERT INTO holon_mcp_keys (generation, id, secret, created_at_ms)
                         VALUES (1, $1, $2, $3) ON CONFLICT DO NOTHING",
                        &[&first.id, &first.secret, &now],
                    )
                    .await
                    .map_err(db_failed)?;
                let found = client.query(SELECT, &[]).await.map_err(db_failed)?;
                Ok(rows(found))
            })
            .map_err(store_failed)?;
        ring_of(stored)?.ok_or_else(|| {
            KeyringError::Store("PostgreSQL: the key inserted is not there".to_string())
        })
    }

    fn rotate(&self) -> Result<Keyring, KeyringError> {
        let next = Key::generate()?;
        let now = i64::try_from(now_ms()).unwrap_or(i64::MAX);
        let stored = self
            .database
            .call(|pool| async move {
                let mut client = pool.get().await.map_err(unavailable)?;
                let transaction = client.transaction().await.map_err(db_failed)?;
                transaction
                    .execute("SELECT pg_advisory_xact_lock($1)", &[&ROTATION_LOCK])
                    .await
                    .map_err(db_failed)?;
                let generation: i64 = transaction
                    .query_one(
                        "SELECT COALESCE(MAX(generation), 0) + 1 FROM holon_mcp_keys",
                        &[],
                    )
                    .await
                    .map_err(db_failed)?
                    .get(0);
                transaction
                    .execute(
                        "INSERT INTO holon_mcp_keys (generation, id, secret, created_at_ms)
                         VALUES ($1, $2, $3, $4)",
                        &[&generation, &next.id, &next.secret, &now],
                    )
                    .await
                    .map_err(db_failed)?;
                // The key before the previous one is rotated out: its secret goes.
                transaction
                    .execute(
                        "DELETE FROM holon_mcp_keys WHERE generation < $1",
                        &[&(generation - 1)],
                    )
                    .await
                    .map_err(db_failed)?;
                let found = transaction.query(SELECT, &[]).await.map_err(db_failed)?;
                transaction.commit().await.map_err(db_failed)?;
                Ok(rows(found))
            })
            .map_err(store_failed)?;
        ring_of(stored)?.ok_or_else(|| {
            KeyringError::Store("PostgreSQL: the key inserted is not there".to_string())
        })
    }
}
