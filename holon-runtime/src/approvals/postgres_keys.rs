//! The ring of operator keys in PostgreSQL (table `holon_approval_keys`): every
//! replica on the database signs and verifies decisions with the same keys. The first
//! replica to start on an empty ring makes its key; `rotate` makes a new current key,
//! keeps the current one as the previous and deletes the one before.

use std::sync::Arc;

use holon_policy::{OperatorKey, OperatorKeySource, OperatorKeyring};

use crate::postgres::{Database, db_failed, pool_failed};

/// The advisory lock a rotation holds, so that two rotations at once make two
/// generations rather than one failing on the other's.
const ROTATION_LOCK: i64 = 0x686f_6c6f_6e5f_616b; // "holon_ak"

/// The ring's two newest keys: the current one first.
const SELECT: &str = "SELECT id, secret FROM holon_approval_keys ORDER BY generation DESC LIMIT 2";

/// The operator keys of a database's approvals.
pub struct PostgresOperatorKeys {
    database: Arc<Database>,
}

impl std::fmt::Debug for PostgresOperatorKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresOperatorKeys")
            .finish_non_exhaustive()
    }
}

/// A new key and its id (16 hex digits), drawn from the operating system.
fn new_key() -> Result<(String, Vec<u8>), String> {
    let mut id = [0u8; 8];
    getrandom::fill(&mut id).map_err(|error| error.to_string())?;
    let key = OperatorKey::generate().map_err(|error| error.message)?;
    let secret = hex::decode(key.to_hex()).map_err(|error| error.to_string())?;
    Ok((hex::encode(id), secret))
}

/// The ring of the rows read (newest first); an empty table or a bad secret is an
/// error, never a key made up here.
fn ring_of(rows: &[tokio_postgres::Row]) -> Result<OperatorKeyring, String> {
    let key = |row: &tokio_postgres::Row| -> Result<(String, OperatorKey), String> {
        let id: String = row.get(0);
        let secret: Vec<u8> = row.get(1);
        let bytes: [u8; 32] = secret.try_into().map_err(|_| {
            format!("the operator key `{id}` in holon_approval_keys is not 32 bytes")
        })?;
        Ok((id, OperatorKey::from_bytes(bytes)))
    };
    let current = rows
        .first()
        .ok_or("holon_approval_keys holds no operator key")?;
    let previous = rows.get(1).map(key).transpose()?;
    OperatorKeyring::named(key(current)?, previous).map_err(|error| error.to_string())
}

impl PostgresOperatorKeys {
    pub(super) fn on(database: Arc<Database>) -> Self {
        Self { database }
    }

    /// Makes a new current key, keeps the current one as the previous (decisions it
    /// signed still verify) and deletes the one before (its decisions are refused as
    /// rotated out). The ring after it.
    pub fn rotate(&self) -> Result<OperatorKeyring, String> {
        let (id, secret) = new_key()?;
        let now = crate::clock::now_ms();
        self.database.call(|pool| async move {
            let mut client = pool.get().await.map_err(pool_failed)?;
            let transaction = client.transaction().await.map_err(db_failed)?;
            transaction
                .execute("SELECT pg_advisory_xact_lock($1)", &[&ROTATION_LOCK])
                .await
                .map_err(db_failed)?;
            let generation: i64 = transaction
                .query_one(
                    "SELECT COALESCE(MAX(generation), 0) + 1 FROM holon_approval_keys",
                    &[],
                )
                .await
                .map_err(db_failed)?
                .get(0);
            transaction
                .execute(
                    "INSERT INTO holon_approval_keys (generation, id, secret, created_at_ms)
                     VALUES ($1, $2, $3, $4)",
                    &[&generation, &id, &secret, &now],
                )
                .await
                .map_err(db_failed)?;
            transaction
                .execute(
                    "DELETE FROM holon_approval_keys WHERE generation < $1",
                    &[&(generation - 1)],
                )
                .await
                .map_err(db_failed)?;
            let rows = transaction.query(SELECT, &[]).await.map_err(db_failed)?;
            transaction.commit().await.map_err(db_failed)?;
            ring_of(&rows)
        })
    }
}

impl OperatorKeySource for PostgresOperatorKeys {
    fn load(&self) -> Result<OperatorKeyring, String> {
        let (id, secret) = new_key()?;
        let now = crate::clock::now_ms();
        self.database.call(|pool| async move {
            let client = pool.get().await.map_err(pool_failed)?;
            let rows = client.query(SELECT, &[]).await.map_err(db_failed)?;
            if !rows.is_empty() {
                return ring_of(&rows);
            }
            // The first replica on the database: of replicas that start at once, one
            // inserts generation 1 and the others' inserts wait for its commit, then
            // do nothing; all then read its key.
            client
                .execute(
                    "INSERT INTO holon_approval_keys (generation, id, secret, created_at_ms)
                     VALUES (1, $1, $2, $3) ON CONFLICT DO NOTHING",
                    &[&id, &secret, &now],
                )
                .await
                .map_err(db_failed)?;
            let rows = client.query(SELECT, &[]).await.map_err(db_failed)?;
            ring_of(&rows)
        })
    }
}
