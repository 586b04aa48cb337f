//! Asked calls and standing grants in PostgreSQL, shared by every replica of a server
//! on the database (`serve --store postgres://...`). Each call is one statement but
//! [`ApprovalStore::insert_unless_pending`], a transaction under an advisory lock
//! keyed by the call. A claim is one conditional `UPDATE`: of concurrent claims of a
//! call, from any number of replicas, the first to lock its row changes it, and the
//! others find it decided once that commits.

use std::sync::Arc;

use holon_policy::{
    ApprovalState, ApprovalStore, ApprovalStoreError, PendingCall, Rule, SignedDecision,
};
use serde_json::Value;

use crate::postgres::{Database, db_failed, migrate, pool_failed};

/// The schema, one migration per version (version `n` is `MIGRATIONS[n - 1]`); a
/// released migration is never edited. JSON is kept as `TEXT`, not `JSONB`: a
/// stored call reads back exactly as it was asked, key order and numbers included.
const MIGRATIONS: &[&str] = &[
    // 1: the asked calls, the standing grants, and the ring of operator keys.
    "CREATE TABLE holon_approvals (
        id TEXT PRIMARY KEY NOT NULL,
        tool TEXT NOT NULL,
        arguments_json TEXT NOT NULL,
        arguments_sha256 TEXT NOT NULL,
        principal TEXT NOT NULL,
        caller TEXT,
        session TEXT,
        families_json TEXT NOT NULL,
        reason TEXT NOT NULL,
        created_at_ms BIGINT NOT NULL,
        expires_at_ms BIGINT NOT NULL,
        state TEXT NOT NULL,
        message TEXT,
        outcome_json TEXT,
        decided_by TEXT,
        site_json TEXT,
        approval_json TEXT
    );
    CREATE INDEX holon_approvals_by_time ON holon_approvals (created_at_ms);
    CREATE INDEX holon_approvals_pending ON holon_approvals (arguments_sha256, principal)
        WHERE state = 'pending';
    CREATE TABLE holon_approval_grants (
        id BIGSERIAL PRIMARY KEY,
        rule_json TEXT NOT NULL,
        created_at_ms BIGINT NOT NULL
    );
    CREATE TABLE holon_approval_keys (
        generation BIGINT PRIMARY KEY NOT NULL,
        id TEXT NOT NULL UNIQUE,
        secret BYTEA NOT NULL,
        created_at_ms BIGINT NOT NULL
    );",
];

/// The advisory lock that replicas starting together take while they migrate.
const MIGRATION_LOCK: i64 = 0x686f_6c6f_6e5f_6170; // "holon_ap"

/// At most this many connections per process: claims are short statements.
const MAX_CONNECTIONS: usize = 8;

const COLUMNS: &str = "id, tool, arguments_json, arguments_sha256, principal, caller, session, \
families_json, reason, created_at_ms, expires_at_ms, state, message, outcome_json, decided_by, \
site_json, approval_json";

/// Asked calls and grants in a PostgreSQL database.
pub struct PostgresApprovalStore {
    database: Arc<Database>,
}

impl std::fmt::Debug for PostgresApprovalStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresApprovalStore")
            .finish_non_exhaustive()
    }
}

fn failed(doing: &str) -> impl FnOnce(String) -> ApprovalStoreError + '_ {
    move |reason| ApprovalStoreError(format!("{doing}: {reason}"))
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String, String> {
    serde_json::to_string(value).map_err(|error| error.to_string())
}

/// A stored row as a call; a row that does not read back is an error, never a guess.
fn call_of(row: &tokio_postgres::Row) -> Result<PendingCall, String> {
    fn json<T: serde::de::DeserializeOwned>(column: &str, text: &str) -> Result<T, String> {
        serde_json::from_str(text).map_err(|error| format!("the column {column}: {error}"))
    }
    let state: String = row.get(11);
    let families: String = row.get(7);
    let arguments: String = row.get(2);
    let outcome: Option<String> = row.get(13);
    let site: Option<String> = row.get(15);
    let approval: Option<String> = row.get(16);
    Ok(PendingCall {
        id: row.get(0),
        tool: row.get(1),
        arguments: json("arguments_json", &arguments)?,
        arguments_sha256: row.get(3),
        principal: row.get(4),
        caller: row.get(5),
        session: row.get(6),
        families: json("families_json", &families)?,
        reason: row.get(8),
        created_at_ms: row.get(9),
        expires_at_ms: row.get(10),
        state: ApprovalState::parse(&state)
            .ok_or_else(|| format!("`{state}` is not an approval state"))?,
        message: row.get(12),
        outcome: outcome
            .map(|text| json("outcome_json", &text))
            .transpose()?,
        decided_by: row.get(14),
        site: site.map(|text| json("site_json", &text)).transpose()?,
        approval: approval
            .map(|text| json("approval_json", &text))
            .transpose()?,
    })
}

/// The name of the advisory lock of the calls bound like `call` (tool, arguments,
/// principal; the server hashes it to the lock's number): two replicas storing the
/// same call take turns, others do not wait.
fn binding_lock(call: &PendingCall) -> String {
    // Two bindings that share a lock only take turns: nothing else depends on it.
    format!(
        "{}\n{}\n{}",
        call.tool, call.arguments_sha256, call.principal
    )
}

/// The newest call bound like `like` and open at `now_ms`, read with `client`.
async fn find_pending_on(
    client: &impl deadpool_postgres::GenericClient,
    like: &PendingCall,
    now_ms: i64,
) -> Result<Option<PendingCall>, String> {
    // The partial index `holon_approvals_pending` answers it.
    let rows = client
        .query(
            &format!(
                "SELECT {COLUMNS} FROM holon_approvals
                 WHERE state = 'pending' AND arguments_sha256 = $1 AND principal = $2
                   AND tool = $3 AND expires_at_ms > $4
                 ORDER BY created_at_ms DESC, id DESC"
            ),
            &[&like.arguments_sha256, &like.principal, &like.tool, &now_ms],
        )
        .await
        .map_err(db_failed)?;
    for row in &rows {
        let call = call_of(row)?;
        if call.binds_like(like) {
            return Ok(Some(call));
        }
    }
    Ok(None)
}

/// Stores `call` with `client`.
async fn insert_on(
    client: &impl deadpool_postgres::GenericClient,
    call: &PendingCall,
) -> Result<(), String> {
    let families = to_json(&call.families)?;
    let site = call.site.as_ref().map(to_json).transpose()?;
    let approval = call.approval.as_ref().map(to_json).transpose()?;
    let arguments = call.arguments.to_string();
    let outcome = call.outcome.as_ref().map(Value::to_string);
    client
        .execute(
            &format!(
                "INSERT INTO holon_approvals ({COLUMNS}) VALUES
                 ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)"
            ),
            &[
                &call.id,
                &call.tool,
                &arguments,
                &call.arguments_sha256,
                &call.principal,
                &call.caller,
                &call.session,
                &families,
                &call.reason,
                &call.created_at_ms,
                &call.expires_at_ms,
                &call.state.as_str(),
                &call.message,
                &outcome,
                &call.decided_by,
                &site,
                &approval,
            ],
        )
        .await
        .map_err(db_failed)?;
    Ok(())
}

impl PostgresApprovalStore {
    /// The store in the database `url` names, its tables created or migrated on the
    /// first start. Fails when the database cannot be reached within 10 seconds.
    pub fn open(url: &str) -> Result<Self, ApprovalStoreError> {
        const DOING: &str = "opening the approvals in PostgreSQL";
        let database = Database::open(url, MAX_CONNECTIONS, "holon-approvals-postgres")
            .map_err(failed(DOING))?;
        database
            .call(|pool| async move {
                let mut client = pool.get().await.map_err(pool_failed)?;
                migrate(
                    &mut client,
                    "holon_approval_schema_version",
                    MIGRATION_LOCK,
                    MIGRATIONS,
                )
                .await
            })
            .map_err(failed(DOING))?;
        Ok(Self {
            database: Arc::new(database),
        })
    }

    /// The ring of operator keys in the same database.
    pub fn keys(&self) -> super::postgres_keys::PostgresOperatorKeys {
        super::postgres_keys::PostgresOperatorKeys::on(Arc::clone(&self.database))
    }

    /// One statement on a pooled connection: the rows changed.
    fn execute(
        &self,
        doing: &str,
        statement: &'static str,
        parameters: Vec<Option<String>>,
    ) -> Result<u64, ApprovalStoreError> {
        self.database
            .call(|pool| async move {
                let client = pool.get().await.map_err(pool_failed)?;
                let parameters: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = parameters
                    .iter()
                    .map(|value| value as &(dyn tokio_postgres::types::ToSql + Sync))
                    .collect();
                client
                    .execute(statement, &parameters)
                    .await
                    .map_err(db_failed)
            })
            .map_err(failed(doing))
    }

    fn select(
        &self,
        doing: &str,
        statement: String,
        parameter: Option<String>,
    ) -> Result<Vec<PendingCall>, ApprovalStoreError> {
        self.database
            .call(|pool| async move {
                let client = pool.get().await.map_err(pool_failed)?;
                let rows = match &parameter {
                    Some(value) => client.query(&statement, &[value]).await,
                    None => client.query(&statement, &[]).await,
                }
                .map_err(db_failed)?;
                rows.iter().map(call_of).collect()
            })
            .map_err(failed(doing))
    }
}

impl ApprovalStore for PostgresApprovalStore {
    fn insert(&self, call: &PendingCall) -> Result<(), ApprovalStoreError> {
        let call = call.clone();
        self.database
            .call(|pool| async move {
                let client = pool.get().await.map_err(pool_failed)?;
                insert_on(&client, &call).await
            })
            .map_err(failed("storing an asked call"))
    }

    fn insert_unless_pending(
        &self,
        call: &PendingCall,
        now_ms: i64,
    ) -> Result<PendingCall, ApprovalStoreError> {
        let call = call.clone();
        self.database
            .call(|pool| async move {
                let mut client = pool.get().await.map_err(pool_failed)?;
                let transaction = client.transaction().await.map_err(db_failed)?;
                // A row not stored yet cannot be locked: the lock of its binding is,
                // so a replica asking the same call waits, then finds this one.
                transaction
                    .execute(
                        "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                        &[&binding_lock(&call)],
                    )
                    .await
                    .map_err(db_failed)?;
                let stored = match find_pending_on(&transaction, &call, now_ms).await? {
                    Some(open) => open,
                    None => {
                        insert_on(&transaction, &call).await?;
                        call
                    }
                };
                transaction.commit().await.map_err(db_failed)?;
                Ok(stored)
            })
            .map_err(failed("storing an asked call unless it is pending"))
    }

    fn get(&self, id: &str) -> Result<Option<PendingCall>, ApprovalStoreError> {
        Ok(self
            .select(
                "reading an asked call",
                format!("SELECT {COLUMNS} FROM holon_approvals WHERE id = $1"),
                Some(id.to_string()),
            )?
            .pop())
    }

    fn list(&self) -> Result<Vec<PendingCall>, ApprovalStoreError> {
        self.select(
            "listing the asked calls",
            format!("SELECT {COLUMNS} FROM holon_approvals ORDER BY created_at_ms DESC, id DESC"),
            None,
        )
    }

    fn find_pending(
        &self,
        like: &PendingCall,
        now_ms: i64,
    ) -> Result<Option<PendingCall>, ApprovalStoreError> {
        let like = like.clone();
        self.database
            .call(|pool| async move {
                let client = pool.get().await.map_err(pool_failed)?;
                find_pending_on(&client, &like, now_ms).await
            })
            .map_err(failed("looking for the same pending call"))
    }

    fn claim(
        &self,
        id: &str,
        to: ApprovalState,
        message: Option<&str>,
        decided_by: &str,
    ) -> Result<bool, ApprovalStoreError> {
        // Concurrent claims wait for the first one's row lock, then see its state.
        let changed = self.execute(
            "claiming an asked call",
            "UPDATE holon_approvals SET state = $2, message = $3, decided_by = $4
             WHERE id = $1 AND state = 'pending'",
            vec![
                Some(id.to_string()),
                Some(to.as_str().to_string()),
                message.map(str::to_string),
                Some(decided_by.to_string()),
            ],
        )?;
        Ok(changed == 1)
    }

    fn store_approval(
        &self,
        id: &str,
        approval: &SignedDecision,
    ) -> Result<bool, ApprovalStoreError> {
        const DOING: &str = "storing the approval of an asked call";
        let text = to_json(approval).map_err(failed(DOING))?;
        let changed = self.execute(
            DOING,
            "UPDATE holon_approvals SET approval_json = $2
             WHERE id = $1 AND state = 'pending' AND approval_json IS NULL",
            vec![Some(id.to_string()), Some(text)],
        )?;
        Ok(changed == 1)
    }

    fn record_outcome(&self, id: &str, outcome: &Value) -> Result<(), ApprovalStoreError> {
        self.execute(
            "recording an approved call's outcome",
            "UPDATE holon_approvals SET outcome_json = $2 WHERE id = $1",
            vec![Some(id.to_string()), Some(outcome.to_string())],
        )?;
        Ok(())
    }

    fn add_grant(&self, rule: &Rule) -> Result<(), ApprovalStoreError> {
        const DOING: &str = "storing a standing grant";
        let text = to_json(rule).map_err(failed(DOING))?;
        let now = crate::clock::now_ms();
        self.database
            .call(|pool| async move {
                let client = pool.get().await.map_err(pool_failed)?;
                client
                    .execute(
                        "INSERT INTO holon_approval_grants (rule_json, created_at_ms) VALUES ($1, $2)",
                        &[&text, &now],
                    )
                    .await
                    .map_err(db_failed)
            })
            .map_err(failed(DOING))?;
        Ok(())
    }

    fn grants(&self) -> Result<Vec<Rule>, ApprovalStoreError> {
        const DOING: &str = "reading the standing grants";
        let texts: Vec<String> = self
            .database
            .call(|pool| async move {
                let client = pool.get().await.map_err(pool_failed)?;
                let rows = client
                    .query(
                        "SELECT rule_json FROM holon_approval_grants ORDER BY id",
                        &[],
                    )
                    .await
                    .map_err(db_failed)?;
                Ok(rows.iter().map(|row| row.get(0)).collect())
            })
            .map_err(failed(DOING))?;
        texts
            .iter()
            .map(|text| {
                serde_json::from_str(text)
                    .map_err(|error| ApprovalStoreError(format!("{DOING}: {error}")))
            })
            .collect()
    }
}
