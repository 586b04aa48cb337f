//! The `notifications` table: what the runtime tells the operator. Notifying the
//! operator is a runtime capability ([`crate::Runtime::notify_operator`]), never a
//! tool a model can call.

use super::errors::AgencyError;
use holon_core::prelude::*;
use rusqlite::{Connection, params};

use super::{errors, ids};

/// How much a notification asks of the operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NotificationLevel {
    /// For the record.
    Info,
    /// Something may need attention.
    Warning,
    /// The operator must act.
    ActionRequired,
}

impl NotificationLevel {
    fn as_str(self) -> &'static str {
        match self {
            Self::Info => "info",
            Self::Warning => "warning",
            Self::ActionRequired => "action_required",
        }
    }

    fn parse(text: &str) -> Self {
        match text {
            "warning" => Self::Warning,
            "action_required" => Self::ActionRequired,
            _ => Self::Info,
        }
    }
}

/// One recorded notification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Notification {
    /// Its id, `note-<n>`.
    pub notification_id: String,
    /// The agent it is about.
    pub agent_id: String,
    /// How much it asks of the operator.
    pub level: NotificationLevel,
    /// The message.
    pub text: String,
    /// When it was recorded, in milliseconds since the Unix epoch.
    pub created_at_unix_ms: i64,
}

/// Records a notification.
pub fn insert(
    conn: &Connection,
    agent: &str,
    level: NotificationLevel,
    text: &str,
    now_ms: i64,
) -> Result<Notification, AgencyError> {
    conn.execute(
        "INSERT INTO notifications (agent_id, level, text, created_at_ms) VALUES (?1, ?2, ?3, ?4)",
        params![agent, level.as_str(), text, now_ms],
    )
    .map_err(errors::store("recording a notification"))?;
    Ok(Notification {
        notification_id: ids::format(ids::NOTIFICATION, conn.last_insert_rowid()),
        agent_id: agent.to_string(),
        level,
        text: text.to_string(),
        created_at_unix_ms: now_ms,
    })
}

/// The newest `limit` notifications, newest first.
pub fn recent(conn: &Connection, limit: usize) -> Result<Vec<Notification>, AgencyError> {
    let mut statement = conn
        .prepare("SELECT id, agent_id, level, text, created_at_ms FROM notifications ORDER BY id DESC LIMIT ?1")
        .map_err(errors::store("reading notifications"))?;
    let rows = statement
        .query_map([i64::try_from(limit).unwrap_or(i64::MAX)], |row| {
            Ok(Notification {
                notification_id: ids::format(ids::NOTIFICATION, row.get(0)?),
                agent_id: row.get(1)?,
                level: NotificationLevel::parse(&row.get::<_, String>(2)?),
                text: row.get(3)?,
                created_at_unix_ms: row.get(4)?,
            })
        })
        .map_err(errors::store("reading notifications"))?;
    rows.collect::<Result<_, _>>()
        .map_err(errors::store("reading notifications"))
}
