//! The `turns` table. A turn is one stretch of work of an agent: it opens (explicitly
//! with `Runtime::begin_turn`, or on the agent's first call), may await its final
//! brief after a WaitFor with `delivery = final`, and closes. An agent has at most one
//! turn that is not closed: its current turn.

use super::errors::AgencyError;
use holon_core::prelude::*;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::errors::{self, AgencyErrorKind};
use super::{agents, ids};

/// Where a turn is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TurnState {
    /// Tool calls are accepted.
    Open,
    /// A WaitFor with `delivery = final` was accepted: only the final brief is.
    AwaitingFinal,
    /// The turn is over.
    Closed,
}

impl TurnState {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::AwaitingFinal => "awaiting_final",
            Self::Closed => "closed",
        }
    }

    fn parse(text: &str) -> Self {
        match text {
            "open" => Self::Open,
            "awaiting_final" => Self::AwaitingFinal,
            _ => Self::Closed,
        }
    }
}

/// A turn as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnRecord {
    /// The row; the public id is `turn-<row>`.
    pub row: i64,
    /// The agent whose turn it is.
    pub agent_id: String,
    /// Where it is.
    pub state: TurnState,
    /// The row of the wait its final brief settles, while it awaits one.
    pub pending_wait: Option<i64>,
    /// The operator-facing final brief it closed with.
    pub final_brief: Option<String>,
    /// The operator-facing completion report supplied during the turn.
    pub completion_report: Option<String>,
    /// `waiting` or `ended`, once closed.
    pub outcome: Option<String>,
    /// When it opened, in milliseconds since the Unix epoch.
    pub opened_at_ms: i64,
    /// When it closed.
    pub closed_at_ms: Option<i64>,
}

impl TurnRecord {
    /// The public id, `turn-<n>`.
    pub fn id(&self) -> String {
        ids::format(ids::TURN, self.row)
    }
}

const COLUMNS: &str = "id, agent_id, state, pending_wait_id, final_brief, completion_report, outcome, opened_at_ms, closed_at_ms";

fn from_row(row: &Row<'_>) -> rusqlite::Result<TurnRecord> {
    Ok(TurnRecord {
        row: row.get(0)?,
        agent_id: row.get(1)?,
        state: TurnState::parse(&row.get::<_, String>(2)?),
        pending_wait: row.get(3)?,
        final_brief: row.get(4)?,
        completion_report: row.get(5)?,
        outcome: row.get(6)?,
        opened_at_ms: row.get(7)?,
        closed_at_ms: row.get(8)?,
    })
}

/// The turn in row `row`.
pub fn load(conn: &Connection, row: i64) -> Result<Option<TurnRecord>, AgencyError> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM turns WHERE id = ?1"),
        [row],
        from_row,
    )
    .optional()
    .map_err(errors::store("reading a turn"))
}

/// The turn `id` (`turn-<n>`), or a `turn_not_active` error.
pub fn require(conn: &Connection, id: &str) -> Result<TurnRecord, AgencyError> {
    let found = match ids::parse(ids::TURN, id) {
        Some(row) => load(conn, row)?,
        None => None,
    };
    found.ok_or_else(|| {
        errors::error(
            AgencyErrorKind::TurnNotActive,
            format!("there is no turn `{id}`"),
            "use the id Runtime::begin_turn or current_turn returned, such as `turn-3`",
        )
    })
}

/// The agent's current turn: the one that is not closed.
pub fn current(conn: &Connection, agent: &str) -> Result<Option<TurnRecord>, AgencyError> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM turns WHERE agent_id = ?1 AND state <> 'closed'"),
        [agent],
        from_row,
    )
    .optional()
    .map_err(errors::store("reading the current turn"))
}

/// The refusal of a call made while `turn` awaits its final brief.
pub fn awaiting_final(turn: &TurnRecord) -> AgencyError {
    errors::error(
        AgencyErrorKind::TurnAwaitingFinal,
        format!(
            "{} of agent `{}` waits for its operator-facing final brief: WaitFor with delivery = final was accepted, so no further tool call runs in this turn",
            turn.id(),
            turn.agent_id
        ),
        "end the turn now: reply with the final brief for the operator as plain text, without tool calls",
    )
}

/// Opens a new turn for `agent`; the caller made sure none is current.
pub fn open(conn: &Connection, agent: &str, now_ms: i64) -> Result<TurnRecord, AgencyError> {
    conn.execute(
        "INSERT INTO turns (agent_id, state, opened_at_ms) VALUES (?1, 'open', ?2)",
        params![agent, now_ms],
    )
    .map_err(errors::store("opening a turn"))?;
    let row = conn.last_insert_rowid();
    agents::refresh_lifecycle(conn, agent)?;
    load(conn, row)?.ok_or_else(|| {
        errors::error(
            AgencyErrorKind::TurnNotActive,
            "the turn just opened is gone",
            "retry the call",
        )
    })
}

/// The turn a tool call of `agent` runs in: the current one, opened when there is
/// none. Refused while the current turn awaits its final brief, and for a stopped
/// agent.
pub fn for_call(conn: &Connection, agent: &str, now_ms: i64) -> Result<TurnRecord, AgencyError> {
    let record = agents::require(conn, agent)?;
    if record.lifecycle == agents::Lifecycle::Stopped {
        return Err(errors::error(
            AgencyErrorKind::AgentStopped,
            format!("agent `{agent}` has stopped and runs no more turns"),
            "address a running agent",
        ));
    }
    match current(conn, agent)? {
        Some(turn) if turn.state == TurnState::AwaitingFinal => Err(awaiting_final(&turn)),
        Some(turn) => Ok(turn),
        None => open(conn, agent, now_ms),
    }
}

/// Marks `turn` awaiting the final brief that settles wait `wait_row`.
pub fn await_final(conn: &Connection, turn: i64, wait_row: i64) -> Result<(), AgencyError> {
    conn.execute(
        "UPDATE turns SET state = 'awaiting_final', pending_wait_id = ?2 WHERE id = ?1",
        params![turn, wait_row],
    )
    .map(|_| ())
    .map_err(errors::store("marking a turn awaiting its final brief"))
}

/// Closes `turn` with `outcome` (`waiting` or `ended`) and its final brief, if any.
pub fn close(
    conn: &Connection,
    turn: i64,
    outcome: &str,
    final_brief: Option<&str>,
    now_ms: i64,
) -> Result<(), AgencyError> {
    conn.execute(
        "UPDATE turns SET state = 'closed', pending_wait_id = NULL, outcome = ?2,
                final_brief = COALESCE(?3, final_brief), closed_at_ms = ?4
         WHERE id = ?1",
        params![turn, outcome, final_brief, now_ms],
    )
    .map(|_| ())
    .map_err(errors::store("closing a turn"))
}

/// Puts a turn that awaits its final brief back to open, forgetting the pending wait.
pub fn reopen(conn: &Connection, turn: i64) -> Result<(), AgencyError> {
    conn.execute(
        "UPDATE turns SET state = 'open', pending_wait_id = NULL WHERE id = ?1",
        [turn],
    )
    .map(|_| ())
    .map_err(errors::store("reopening a turn"))
}

/// Records the operator-facing completion report of `turn`.
pub fn set_completion_report(conn: &Connection, turn: i64, text: &str) -> Result<(), AgencyError> {
    conn.execute(
        "UPDATE turns SET completion_report = ?2 WHERE id = ?1",
        params![turn, text],
    )
    .map(|_| ())
    .map_err(errors::store("recording a completion report"))
}
