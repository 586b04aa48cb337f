//! The runtime's [`ApprovalStore`]: asked calls and the operator's standing grants in
//! the SQLite store, so that they survive a restart and every process on the state
//! directory sees the same ones. A claim is one conditional `UPDATE`: of concurrent
//! claims of a call, from threads or processes, exactly one changes its row. Storing
//! an asked call unless the same one is pending is one write transaction.
//!
//! With the `postgres` feature, `postgres` keeps them in a PostgreSQL database
//! instead, shared by the replicas of a server, and `postgres_keys` the operator
//! keys that sign decisions there.

#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "postgres")]
pub mod postgres_keys;

use holon_policy::{
    ApprovalState, ApprovalStore, ApprovalStoreError, PendingCall, Rule, SignedDecision,
};
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde_json::Value;

use crate::store::{Store, begin_write};

fn failed(doing: &str) -> impl FnOnce(rusqlite::Error) -> ApprovalStoreError + '_ {
    move |error| ApprovalStoreError(format!("{doing}: {error}"))
}

fn json_failed(doing: &str) -> impl FnOnce(serde_json::Error) -> ApprovalStoreError + '_ {
    move |error| ApprovalStoreError(format!("{doing}: {error}"))
}

const COLUMNS: &str = "id, tool, arguments_json, arguments_sha256, principal, caller, session, \
families_json, reason, created_at_ms, expires_at_ms, state, message, outcome_json, decided_by, \
site_json, approval_json";

/// A stored row as a call; a row that does not read back is an error, never a guess.
fn call_of(row: &Row<'_>) -> rusqlite::Result<PendingCall> {
    let json = |at: usize, text: String| {
        serde_json::from_str::<Value>(&text).map_err(|error| {
            rusqlite::Error::FromSqlConversionFailure(
                at,
                rusqlite::types::Type::Text,
                Box::new(error),
            )
        })
    };
    let state: String = row.get(11)?;
    let families: String = row.get(7)?;
    let outcome: Option<String> = row.get(13)?;
    let site: Option<String> = row.get(15)?;
    let approval: Option<String> = row.get(16)?;
    Ok(PendingCall {
        id: row.get(0)?,
        tool: row.get(1)?,
        arguments: json(2, row.get(2)?)?,
        arguments_sha256: row.get(3)?,
        principal: row.get(4)?,
        caller: row.get(5)?,
        session: row.get(6)?,
        families: serde_json::from_str(&families).map_err(|error| {
            rusqlite::Error::FromSqlConversionFailure(
                7,
                rusqlite::types::Type::Text,
                Box::new(error),
            )
        })?,
        reason: row.get(8)?,
        created_at_ms: row.get(9)?,
        expires_at_ms: row.get(10)?,
        state: ApprovalState::parse(&state).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                11,
                rusqlite::types::Type::Text,
                format!("`{state}` is not an approval state").into(),
            )
        })?,
        message: row.get(12)?,
        outcome: outcome.map(|text| json(13, text)).transpose()?,
        decided_by: row.get(14)?,
        site: site
            .map(|text| {
                serde_json::from_str(&text).map_err(|error| {
                    rusqlite::Error::FromSqlConversionFailure(
                        15,
                        rusqlite::types::Type::Text,
                        Box::new(error),
                    )
                })
            })
            .transpose()?,
        approval: approval
            .map(|text| {
                serde_json::from_str(&text).map_err(|error| {
                    rusqlite::Error::FromSqlConversionFailure(
                        16,
                        rusqlite::types::Type::Text,
                        Box::new(error),
                    )
                })
            })
            .transpose()?,
    })
}

/// Stores `call` on `connection`.
fn insert_on(connection: &Connection, call: &PendingCall) -> Result<(), ApprovalStoreError> {
    const DOING: &str = "storing an asked call";
    let families = serde_json::to_string(&call.families).map_err(json_failed(DOING))?;
    let site = call
        .site
        .as_ref()
        .map(serde_json::to_string)
        .transpose()
        .map_err(json_failed(DOING))?;
    let approval = call
        .approval
        .as_ref()
        .map(serde_json::to_string)
        .transpose()
        .map_err(json_failed(DOING))?;
    connection
            .execute(
                &format!("INSERT INTO approvals ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)"),
                params![
                    call.id,
                    call.tool,
                    call.arguments.to_string(),
                    call.arguments_sha256,
                    call.principal,
                    call.caller,
                    call.session,
                    families,
                    call.reason,
                    call.created_at_ms,
                    call.expires_at_ms,
                    call.state.as_str(),
                    call.message,
                    call.outcome.as_ref().map(Value::to_string),
                    call.decided_by,
                    site,
                    approval,
                ],
            )
            .map_err(failed(DOING))?;
    Ok(())
}

/// The newest call on `connection` bound like `like` and open at `now_ms`.
fn find_pending_on(
    connection: &Connection,
    like: &PendingCall,
    now_ms: i64,
) -> Result<Option<PendingCall>, ApprovalStoreError> {
    const DOING: &str = "looking for the same pending call";
    // The partial index `approvals_pending` (migration 11) answers it.
    let mut statement = connection
        .prepare(&format!(
            "SELECT {COLUMNS} FROM approvals
             WHERE state = 'pending' AND arguments_sha256 = ?1 AND principal = ?2
               AND tool = ?3 AND expires_at_ms > ?4
             ORDER BY created_at_ms DESC, id DESC"
        ))
        .map_err(failed(DOING))?;
    let rows = statement
        .query_map(
            params![like.arguments_sha256, like.principal, like.tool, now_ms],
            call_of,
        )
        .map_err(failed(DOING))?;
    for row in rows {
        let call = row.map_err(failed(DOING))?;
        if call.binds_like(like) {
            return Ok(Some(call));
        }
    }
    Ok(None)
}

impl ApprovalStore for Store {
    fn insert(&self, call: &PendingCall) -> Result<(), ApprovalStoreError> {
        insert_on(&self.connection(), call)
    }

    fn insert_unless_pending(
        &self,
        call: &PendingCall,
        now_ms: i64,
    ) -> Result<PendingCall, ApprovalStoreError> {
        const DOING: &str = "storing an asked call unless it is pending";
        let mut connection = self.connection();
        // The write lock is taken before the lookup: another process asking the same
        // call waits for it (busy timeout), then finds this one.
        let transaction = begin_write(&mut connection).map_err(failed(DOING))?;
        let stored = match find_pending_on(&transaction, call, now_ms)? {
            Some(open) => open,
            None => {
                insert_on(&transaction, call)?;
                call.clone()
            }
        };
        transaction.commit().map_err(failed(DOING))?;
        Ok(stored)
    }

    fn get(&self, id: &str) -> Result<Option<PendingCall>, ApprovalStoreError> {
        self.connection()
            .query_row(
                &format!("SELECT {COLUMNS} FROM approvals WHERE id = ?1"),
                [id],
                call_of,
            )
            .optional()
            .map_err(failed("reading an asked call"))
    }

    fn list(&self) -> Result<Vec<PendingCall>, ApprovalStoreError> {
        const DOING: &str = "listing the asked calls";
        let connection = self.connection();
        let mut statement = connection
            .prepare(&format!(
                "SELECT {COLUMNS} FROM approvals ORDER BY created_at_ms DESC, id DESC"
            ))
            .map_err(failed(DOING))?;
        let rows = statement.query_map([], call_of).map_err(failed(DOING))?;
        rows.collect::<Result<_, _>>().map_err(failed(DOING))
    }

    fn find_pending(
        &self,
        like: &PendingCall,
        now_ms: i64,
    ) -> Result<Option<PendingCall>, ApprovalStoreError> {
        find_pending_on(&self.connection(), like, now_ms)
    }

    fn claim(
        &self,
        id: &str,
        to: ApprovalState,
        message: Option<&str>,
        decided_by: &str,
    ) -> Result<bool, ApprovalStoreError> {
        let changed = self
            .connection()
            .execute(
                "UPDATE approvals SET state = ?2, message = ?3, decided_by = ?4
                 WHERE id = ?1 AND state = 'pending'",
                params![id, to.as_str(), message, decided_by],
            )
            .map_err(failed("claiming an asked call"))?;
        Ok(changed == 1)
    }

    fn store_approval(
        &self,
        id: &str,
        approval: &SignedDecision,
    ) -> Result<bool, ApprovalStoreError> {
        const DOING: &str = "storing the approval of an asked call";
        let text = serde_json::to_string(approval).map_err(json_failed(DOING))?;
        // One conditional `UPDATE`: of concurrent approvals of a call, one is stored.
        let changed = self
            .connection()
            .execute(
                "UPDATE approvals SET approval_json = ?2
                 WHERE id = ?1 AND state = 'pending' AND approval_json IS NULL",
                params![id, text],
            )
            .map_err(failed(DOING))?;
        Ok(changed == 1)
    }

    fn record_outcome(&self, id: &str, outcome: &Value) -> Result<(), ApprovalStoreError> {
        self.connection()
            .execute(
                "UPDATE approvals SET outcome_json = ?2 WHERE id = ?1",
                params![id, outcome.to_string()],
            )
            .map_err(failed("recording an approved call's outcome"))?;
        Ok(())
    }

    fn add_grant(&self, rule: &Rule) -> Result<(), ApprovalStoreError> {
        const DOING: &str = "storing a standing grant";
        let text = serde_json::to_string(rule).map_err(json_failed(DOING))?;
        self.connection()
            .execute(
                "INSERT INTO approval_grants (rule_json, created_at_ms) VALUES (?1, ?2)",
                params![text, crate::clock::now_ms()],
            )
            .map_err(failed(DOING))?;
        Ok(())
    }

    fn grants(&self) -> Result<Vec<Rule>, ApprovalStoreError> {
        const DOING: &str = "reading the standing grants";
        let connection = self.connection();
        let mut statement = connection
            .prepare("SELECT rule_json FROM approval_grants ORDER BY id")
            .map_err(failed(DOING))?;
        let texts = statement
            .query_map([], |row| row.get::<_, String>(0))
            .map_err(failed(DOING))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(failed(DOING))?;
        texts
            .iter()
            .map(|text| serde_json::from_str(text).map_err(json_failed(DOING)))
            .collect()
    }
}
