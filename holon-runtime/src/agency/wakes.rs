//! The `wakes` table: things that happened for an agent (a task ended, a timer fired,
//! the operator wrote, an external trigger fired, the runtime asked for a recheck).
//! Delivering a wake resolves the agent's active waits on it and clears the blockers
//! they put on work items; the wake stays `pending` until a turn takes it.

use super::errors::AgencyError;
use holon_core::prelude::*;
use rusqlite::{Connection, Row, params};

use super::{agents, errors, ids, work_items};

/// What can wake a waiting agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case")]
pub enum WakeKind {
    /// A task ended; `resource` is its task handle.
    TaskResult,
    /// The operator wrote to the agent.
    OperatorInput,
    /// An external trigger fired; `resource` may name the trigger.
    External,
    /// A timer fired; `resource` is its timer id.
    Timer,
    /// The runtime itself (a recheck, a shutdown).
    System,
}

impl WakeKind {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::TaskResult => "task_result",
            Self::OperatorInput => "operator_input",
            Self::External => "external",
            Self::Timer => "timer",
            Self::System => "system",
        }
    }

    /// The kind stored as `text`.
    pub fn parse(text: &str) -> Self {
        match text {
            "task_result" => Self::TaskResult,
            "operator_input" => Self::OperatorInput,
            "external" => Self::External,
            "timer" => Self::Timer,
            _ => Self::System,
        }
    }
}

/// A delivered wake.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Wake {
    /// Its id, `wake-<n>`.
    pub wake_id: String,
    /// What happened.
    pub kind: WakeKind,
    /// The task handle, timer id or trigger id it is about.
    pub resource: Option<String>,
    /// What happened, in words.
    pub detail: Option<String>,
    /// The waits it resolved, `wait-<n>`.
    pub woke_waits: Vec<String>,
}

fn from_row(row: &Row<'_>) -> rusqlite::Result<Wake> {
    Ok(Wake {
        wake_id: ids::format(ids::WAKE, row.get(0)?),
        kind: WakeKind::parse(&row.get::<_, String>(1)?),
        resource: row.get(2)?,
        detail: row.get(3)?,
        woke_waits: Vec::new(),
    })
}

/// Records a wake of `kind` for `agent` and resolves its active waits on it: a wait
/// without a resource takes any wake of its kind, a wait with one only a wake about
/// that resource.
pub fn deliver(
    conn: &Connection,
    agent: &str,
    kind: WakeKind,
    resource: Option<&str>,
    detail: Option<&str>,
    now_ms: i64,
) -> Result<Wake, AgencyError> {
    conn.execute(
        "INSERT INTO wakes (agent_id, kind, resource, detail, state, created_at_ms)
         VALUES (?1, ?2, ?3, ?4, 'pending', ?5)",
        params![agent, kind.as_str(), resource, detail, now_ms],
    )
    .map_err(errors::store("recording a wake"))?;
    let wake_row = conn.last_insert_rowid();
    let mut statement = conn
        .prepare(
            "UPDATE waits SET state = 'woken', woken_by = ?4, resolved_at_ms = ?5
             WHERE agent_id = ?1 AND state = 'active' AND wake = ?2
               AND (resource IS NULL OR resource = ?3)
             RETURNING id",
        )
        .map_err(errors::store("resolving waits"))?;
    let mut woken: Vec<i64> = statement
        .query_map(
            params![agent, kind.as_str(), resource, wake_row, now_ms],
            |row| row.get(0),
        )
        .map_err(errors::store("resolving waits"))?
        .collect::<Result<_, _>>()
        .map_err(errors::store("resolving waits"))?;
    woken.sort_unstable();
    for wait in &woken {
        work_items::clear_blocker_of_wait(conn, *wait, now_ms)?;
    }
    agents::refresh_lifecycle(conn, agent)?;
    Ok(Wake {
        wake_id: ids::format(ids::WAKE, wake_row),
        kind,
        resource: resource.map(str::to_string),
        detail: detail.map(str::to_string),
        woke_waits: woken.iter().map(|w| ids::format(ids::WAIT, *w)).collect(),
    })
}

/// The newest wake of `agent` (0 when none): a wait captures it, and a newer one makes
/// the wait's report stale.
pub fn mark(conn: &Connection, agent: &str) -> Result<i64, AgencyError> {
    conn.query_row(
        "SELECT COALESCE(MAX(id), 0) FROM wakes WHERE agent_id = ?1",
        [agent],
        |r| r.get(0),
    )
    .map_err(errors::store("reading wakes"))
}

/// Hands `agent`'s pending wakes to `turn`, oldest first.
pub fn deliver_pending_to_turn(
    conn: &Connection,
    agent: &str,
    turn: i64,
) -> Result<Vec<Wake>, AgencyError> {
    let mut statement = conn
        .prepare(
            "UPDATE wakes SET state = 'delivered', turn_id = ?2
             WHERE agent_id = ?1 AND state = 'pending'
             RETURNING id, kind, resource, detail",
        )
        .map_err(errors::store("delivering wakes"))?;
    let mut wakes: Vec<Wake> = statement
        .query_map(params![agent, turn], from_row)
        .map_err(errors::store("delivering wakes"))?
        .collect::<Result<_, _>>()
        .map_err(errors::store("delivering wakes"))?;
    wakes.sort_by_key(|wake| ids::parse(ids::WAKE, &wake.wake_id));
    Ok(wakes)
}

/// Wakes the active wait `wait` of `agent` because its recheck time came: a `system`
/// wake about `wait-<n>`.
pub fn recheck(
    conn: &Connection,
    agent: &str,
    wait: i64,
    now_ms: i64,
) -> Result<Wake, AgencyError> {
    let wait_id = ids::format(ids::WAIT, wait);
    let detail = format!("recheck of {wait_id} is due");
    conn.execute(
        "INSERT INTO wakes (agent_id, kind, resource, detail, state, created_at_ms)
         VALUES (?1, 'system', ?2, ?3, 'pending', ?4)",
        params![agent, wait_id, detail, now_ms],
    )
    .map_err(errors::store("recording a wake"))?;
    let wake_row = conn.last_insert_rowid();
    conn.execute(
        "UPDATE waits SET state = 'woken', woken_by = ?2, resolved_at_ms = ?3 WHERE id = ?1 AND state = 'active'",
        params![wait, wake_row, now_ms],
    )
    .map_err(errors::store("resolving a wait"))?;
    work_items::clear_blocker_of_wait(conn, wait, now_ms)?;
    agents::refresh_lifecycle(conn, agent)?;
    Ok(Wake {
        wake_id: ids::format(ids::WAKE, wake_row),
        kind: WakeKind::System,
        resource: Some(wait_id.clone()),
        detail: Some(detail),
        woke_waits: vec![wait_id],
    })
}
