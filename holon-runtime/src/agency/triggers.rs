//! The `external_triggers` table: hooks the outside world fires to reach an agent,
//! either by queueing a message or by only waking it.

use super::errors::AgencyError;
use holon_core::prelude::*;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::errors::{self, AgencyErrorKind};
use super::ids;
use super::queue::{self, Priority};
use super::wakes::{self, WakeKind};

/// What firing a trigger does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryMode {
    /// Queue the payload as a message for the agent, and wake its external waits.
    EnqueueMessage,
    /// Only wake the agent's external waits; the payload is the wake's detail.
    WakeHint,
}

impl DeliveryMode {
    fn as_str(self) -> &'static str {
        match self {
            Self::EnqueueMessage => "enqueue_message",
            Self::WakeHint => "wake_hint",
        }
    }

    fn parse(text: &str) -> Self {
        if text == "wake_hint" {
            Self::WakeHint
        } else {
            Self::EnqueueMessage
        }
    }
}

/// An external trigger as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TriggerRecord {
    /// Its id, `trigger-<n>`.
    pub trigger_id: String,
    /// The agent it reaches.
    pub owner_agent_id: String,
    /// What firing it does.
    pub delivery_mode: DeliveryMode,
    /// What it is for.
    pub description: Option<String>,
    /// `active` or `cancelled`.
    pub state: String,
    /// How often it fired.
    pub fired_count: i64,
}

const COLUMNS: &str = "id, agent_id, delivery_mode, description, state, fired_count";

fn from_row(row: &Row<'_>) -> rusqlite::Result<TriggerRecord> {
    Ok(TriggerRecord {
        trigger_id: ids::format(ids::TRIGGER, row.get(0)?),
        owner_agent_id: row.get(1)?,
        delivery_mode: DeliveryMode::parse(&row.get::<_, String>(2)?),
        description: row.get(3)?,
        state: row.get(4)?,
        fired_count: row.get(5)?,
    })
}

fn load(conn: &Connection, id: &str) -> Result<Option<TriggerRecord>, AgencyError> {
    let Some(row) = ids::parse(ids::TRIGGER, id) else {
        return Ok(None);
    };
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM external_triggers WHERE id = ?1"),
        [row],
        from_row,
    )
    .optional()
    .map_err(errors::store("reading an external trigger"))
}

fn unknown(id: &str, field: &str) -> AgencyError {
    errors::error(
        AgencyErrorKind::UnknownExternalTrigger,
        format!("there is no external trigger `{id}` of this agent"),
        "use the id CreateExternalTrigger returned, such as `trigger-1`",
    )
    .with_field(field.to_string())
}

/// Creates an active trigger for `agent`.
pub fn create(
    conn: &Connection,
    agent: &str,
    mode: DeliveryMode,
    about: Option<&str>,
    now_ms: i64,
) -> Result<TriggerRecord, AgencyError> {
    conn.execute(
        "INSERT INTO external_triggers (agent_id, delivery_mode, description, state, created_at_ms)
         VALUES (?1, ?2, ?3, 'active', ?4)",
        params![agent, mode.as_str(), about, now_ms],
    )
    .map_err(errors::store("creating an external trigger"))?;
    let id = ids::format(ids::TRIGGER, conn.last_insert_rowid());
    load(conn, &id)?.ok_or_else(|| unknown(&id, "external_trigger_id"))
}

/// The trigger `id` of `agent`, or an `unknown_external_trigger` error for `field`.
pub fn require_owned(
    conn: &Connection,
    agent: &str,
    id: &str,
    field: &str,
) -> Result<TriggerRecord, AgencyError> {
    load(conn, id)?
        .filter(|t| t.owner_agent_id == agent)
        .ok_or_else(|| unknown(id, field))
}

/// Whether trigger `id` exists and is active.
pub fn is_active(conn: &Connection, id: &str) -> Result<bool, AgencyError> {
    Ok(load(conn, id)?.is_some_and(|t| t.state == "active"))
}

/// Cancels `trigger`; returns it as it is now.
pub fn cancel(
    conn: &Connection,
    trigger: &TriggerRecord,
    now_ms: i64,
) -> Result<TriggerRecord, AgencyError> {
    conn.execute(
        "UPDATE external_triggers SET state = 'cancelled', cancelled_at_ms = ?2 WHERE id = ?1 AND state = 'active'",
        params![ids::parse(ids::TRIGGER, &trigger.trigger_id), now_ms],
    )
    .map_err(errors::store("cancelling an external trigger"))?;
    load(conn, &trigger.trigger_id)?
        .ok_or_else(|| unknown(&trigger.trigger_id, "external_trigger_id"))
}

/// Fires trigger `id` with `payload`: queues it (for `enqueue_message`) and wakes the
/// owner's external waits. A cancelled trigger fires nothing.
pub fn fire(
    conn: &Connection,
    id: &str,
    payload: &str,
    now_ms: i64,
) -> Result<wakes::Wake, AgencyError> {
    let trigger = load(conn, id)?.ok_or_else(|| unknown(id, "external_trigger_id"))?;
    if trigger.state != "active" {
        return Err(errors::error(
            AgencyErrorKind::ExternalTriggerCancelled,
            format!("external trigger `{id}` is cancelled and fires nothing"),
            "create a new trigger",
        ));
    }
    conn.execute(
        "UPDATE external_triggers SET fired_count = fired_count + 1 WHERE id = ?1",
        [ids::parse(ids::TRIGGER, id)],
    )
    .map_err(errors::store("firing an external trigger"))?;
    if trigger.delivery_mode == DeliveryMode::EnqueueMessage {
        let sender = format!("external:{id}");
        queue::enqueue(
            conn,
            &trigger.owner_agent_id,
            &sender,
            Priority::Normal,
            payload,
            now_ms,
        )?;
    }
    wakes::deliver(
        conn,
        &trigger.owner_agent_id,
        WakeKind::External,
        Some(id),
        Some(payload),
        now_ms,
    )
}
