//! The `queue` table: messages waiting for an agent's turn. A message is `queued`,
//! then `delivered` to the turn that shows it to the agent, then `settled` when that
//! turn ends (its terminal state).

use super::errors::AgencyError;
use holon_core::prelude::*;
use rusqlite::{Connection, Row, params};

use super::{errors, ids};

/// How urgently a message reaches its agent.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ClosedInput,
)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Into the running turn, ahead of everything: the agent sees it before its turn
    /// ends, and a wait it reported before seeing it can no longer settle.
    Interject,
    /// At the head of the queue: first in the agent's next turn.
    Next,
    /// In arrival order, after `interject` and `next` messages.
    #[default]
    Normal,
    /// Only when nothing else is queued.
    Background,
}

impl Priority {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Interject => "interject",
            Self::Next => "next",
            Self::Normal => "normal",
            Self::Background => "background",
        }
    }

    fn rank(self) -> i64 {
        match self {
            Self::Interject => 0,
            Self::Next => 1,
            Self::Normal => 2,
            Self::Background => 3,
        }
    }

    fn parse(text: &str) -> Self {
        match text {
            "interject" => Self::Interject,
            "next" => Self::Next,
            "background" => Self::Background,
            _ => Self::Normal,
        }
    }
}

/// A queued message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct QueuedMessage {
    /// Its id, `msg-<n>`.
    pub message_id: String,
    /// Who sent it: an agent id, `operator`, or `external:<trigger id>`.
    pub sender: String,
    /// How urgently it is delivered.
    pub priority: Priority,
    /// The message.
    pub text: String,
    /// `queued`, `delivered` or `settled`.
    pub state: String,
}

fn from_row(row: &Row<'_>) -> rusqlite::Result<QueuedMessage> {
    Ok(QueuedMessage {
        message_id: ids::format(ids::MESSAGE, row.get(0)?),
        sender: row.get(1)?,
        priority: Priority::parse(&row.get::<_, String>(2)?),
        text: row.get(3)?,
        state: row.get(4)?,
    })
}

/// Queues `text` for `agent`; returns the message and how many queued messages are
/// ahead of it.
pub fn enqueue(
    conn: &Connection,
    agent: &str,
    sender: &str,
    priority: Priority,
    text: &str,
    now_ms: i64,
) -> Result<(QueuedMessage, i64), AgencyError> {
    conn.execute(
        "INSERT INTO queue (agent_id, sender, priority, rank, text, state, created_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?6)",
        params![
            agent,
            sender,
            priority.as_str(),
            priority.rank(),
            text,
            now_ms
        ],
    )
    .map_err(errors::store("queueing a message"))?;
    let row = conn.last_insert_rowid();
    let ahead: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM queue WHERE agent_id = ?1 AND state = 'queued' AND id <> ?2
               AND (rank < ?3 OR (rank = ?3 AND id < ?2))",
            params![agent, row, priority.rank()],
            |r| r.get(0),
        )
        .map_err(errors::store("queueing a message"))?;
    let message = QueuedMessage {
        message_id: ids::format(ids::MESSAGE, row),
        sender: sender.to_string(),
        priority,
        text: text.to_string(),
        state: "queued".to_string(),
    };
    Ok((message, ahead))
}

/// Delivers `agent`'s queued messages to `turn`, most urgent first: every
/// `interject`, `next` and `normal` message, or the `background` ones when nothing
/// else is queued.
pub fn deliver_to_turn(
    conn: &Connection,
    agent: &str,
    turn: i64,
) -> Result<Vec<QueuedMessage>, AgencyError> {
    let urgent: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM queue WHERE agent_id = ?1 AND state = 'queued' AND rank < 3",
            [agent],
            |r| r.get(0),
        )
        .map_err(errors::store("delivering messages"))?;
    let max_rank = if urgent > 0 { 2 } else { 3 };
    let mut statement = conn
        .prepare(
            "UPDATE queue SET state = 'delivered', turn_id = ?2
             WHERE agent_id = ?1 AND state = 'queued' AND rank <= ?3
             RETURNING id, sender, priority, text, state, rank",
        )
        .map_err(errors::store("delivering messages"))?;
    let mut delivered: Vec<(i64, i64, QueuedMessage)> = statement
        .query_map(params![agent, turn, max_rank], |row| {
            Ok((row.get(5)?, row.get(0)?, from_row(row)?))
        })
        .map_err(errors::store("delivering messages"))?
        .collect::<Result<_, _>>()
        .map_err(errors::store("delivering messages"))?;
    delivered.sort_by_key(|(rank, id, _)| (*rank, *id));
    Ok(delivered
        .into_iter()
        .map(|(_, _, message)| message)
        .collect())
}

/// Settles the messages delivered to `turn` (their terminal state); returns how many.
pub fn settle_turn(conn: &Connection, turn: i64) -> Result<usize, AgencyError> {
    conn.execute(
        "UPDATE queue SET state = 'settled' WHERE turn_id = ?1 AND state = 'delivered'",
        [turn],
    )
    .map_err(errors::store("settling delivered messages"))
}

/// The newest interjection others sent `agent` (0 when none): a wait captures it, and
/// a newer one makes the wait's report stale.
pub fn interjection_mark(conn: &Connection, agent: &str) -> Result<i64, AgencyError> {
    conn.query_row(
        "SELECT COALESCE(MAX(id), 0) FROM queue
         WHERE agent_id = ?1 AND priority = 'interject' AND sender <> ?1",
        [agent],
        |r| r.get(0),
    )
    .map_err(errors::store("reading interjections"))
}

/// How many messages wait for `agent`.
pub fn depth(conn: &Connection, agent: &str) -> Result<i64, AgencyError> {
    conn.query_row(
        "SELECT COUNT(*) FROM queue WHERE agent_id = ?1 AND state = 'queued'",
        [agent],
        |r| r.get(0),
    )
    .map_err(errors::store("counting queued messages"))
}
