//! The `agents` table: who an agent is (profile, parent), where it is in its life, and
//! which work item it focuses on.

use super::errors::AgencyError;
use holon_core::FamilyPolicy;
use holon_core::prelude::*;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::errors::{self, AgencyErrorKind};

/// The agent every runtime starts with, and the caller of contexts that name none.
pub const ROOT_AGENT_ID: &str = "root";

/// An agent's profile: which capability families its calls may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case")]
pub enum AgentProfile {
    /// A helper of one parent: only its parent sees it, it works on its parent's task
    /// handle, and it may not create agents or expand authority.
    PrivateChild,
    /// A named agent others can address; every family is allowed.
    PublicNamed,
}

impl AgentProfile {
    /// The family policy of the profile (the presets of `holon_core`).
    pub fn policy(self) -> FamilyPolicy {
        match self {
            Self::PrivateChild => FamilyPolicy::private_child(),
            Self::PublicNamed => FamilyPolicy::public_named(),
        }
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PrivateChild => "private_child",
            Self::PublicNamed => "public_named",
        }
    }

    fn parse(text: &str) -> Self {
        if text == "private_child" {
            Self::PrivateChild
        } else {
            Self::PublicNamed
        }
    }
}

/// Where an agent is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Lifecycle {
    /// No turn is open and nothing is awaited.
    Idle,
    /// A turn is open (or awaits its final brief).
    Running,
    /// The agent yielded with at least one active wait.
    Waiting,
    /// The agent finished; it takes no more turns.
    Stopped,
}

impl Lifecycle {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Idle => "idle",
            Self::Running => "running",
            Self::Waiting => "waiting",
            Self::Stopped => "stopped",
        }
    }

    fn parse(text: &str) -> Self {
        match text {
            "running" => Self::Running,
            "waiting" => Self::Waiting,
            "stopped" => Self::Stopped,
            _ => Self::Idle,
        }
    }
}

/// An agent as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentRecord {
    /// The agent's id.
    pub id: String,
    /// Its profile.
    pub profile: AgentProfile,
    /// The agent that spawned it.
    pub parent_id: Option<String>,
    /// Where it is in its life.
    pub lifecycle: Lifecycle,
    /// The row of the work item it focuses on.
    pub focus_work_item: Option<i64>,
    /// The model it runs on, as SpawnAgent was given it.
    pub model: Option<serde_json::Value>,
    /// The template it was spawned from.
    pub template: Option<String>,
    /// `inherit` or `worktree`.
    pub workspace_mode: String,
    /// The execution root id of its own worktree (`workspace_mode = worktree`).
    pub worktree_root_id: Option<String>,
    /// When it was created, in milliseconds since the Unix epoch.
    pub created_at_ms: i64,
}

const COLUMNS: &str = "id, profile, parent_id, lifecycle, focus_work_item_id, model_json, template, workspace_mode, created_at_ms, worktree_root_id";

fn from_row(row: &Row<'_>) -> rusqlite::Result<AgentRecord> {
    let model: Option<String> = row.get(5)?;
    Ok(AgentRecord {
        id: row.get(0)?,
        profile: AgentProfile::parse(&row.get::<_, String>(1)?),
        parent_id: row.get(2)?,
        lifecycle: Lifecycle::parse(&row.get::<_, String>(3)?),
        focus_work_item: row.get(4)?,
        model: model.and_then(|text| serde_json::from_str(&text).ok()),
        template: row.get(6)?,
        workspace_mode: row.get(7)?,
        created_at_ms: row.get(8)?,
        worktree_root_id: row.get(9)?,
    })
}

/// The agent `id`, if it exists.
pub fn load(conn: &Connection, id: &str) -> Result<Option<AgentRecord>, AgencyError> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM agents WHERE id = ?1"),
        [id],
        from_row,
    )
    .optional()
    .map_err(errors::store("reading an agent"))
}

/// The agent `id`, or an `unknown_agent` error.
pub fn require(conn: &Connection, id: &str) -> Result<AgentRecord, AgencyError> {
    load(conn, id)?.ok_or_else(|| unknown(id))
}

/// The `unknown_agent` error for `id`.
pub fn unknown(id: &str) -> AgencyError {
    errors::error(
        AgencyErrorKind::UnknownAgent,
        format!("there is no agent `{id}` you can see"),
        "use your own id, one of your children's (AgentGet lists them), your parent's, or a public agent's",
    )
    .with_field("agent_id")
}

/// The agents `parent` spawned, oldest first.
pub fn children(conn: &Connection, parent: &str) -> Result<Vec<AgentRecord>, AgencyError> {
    let mut statement = conn
        .prepare(&format!(
            "SELECT {COLUMNS} FROM agents WHERE parent_id = ?1 ORDER BY created_at_ms, id"
        ))
        .map_err(errors::store("listing child agents"))?;
    let rows = statement
        .query_map([parent], from_row)
        .map_err(errors::store("listing child agents"))?;
    rows.collect::<Result<_, _>>()
        .map_err(errors::store("listing child agents"))
}

/// Whether `viewer` may see `agent`: itself, its parent, its children, or any public
/// agent.
pub fn visible_to(agent: &AgentRecord, viewer: &str) -> bool {
    agent.id == viewer
        || agent.parent_id.as_deref() == Some(viewer)
        || agent.profile == AgentProfile::PublicNamed
}

/// A new agent to insert.
pub struct NewAgent<'a> {
    /// The new agent's id.
    pub id: &'a str,
    /// Its visibility profile.
    pub profile: AgentProfile,
    /// The agent that spawned it.
    pub parent_id: &'a str,
    /// The model it runs on, as SpawnAgent resolved it.
    pub model: Option<&'a serde_json::Value>,
    /// The template it was spawned from.
    pub template: Option<&'a str>,
    /// How it shares the workspace (`inherit`, `worktree`).
    pub workspace_mode: &'a str,
    /// When it was created, in milliseconds since the epoch.
    pub now_ms: i64,
}

/// Records the worktree `execution_root_id` as the agent's own.
pub fn set_worktree(
    conn: &Connection,
    id: &str,
    execution_root_id: &str,
) -> Result<(), AgencyError> {
    conn.execute(
        "UPDATE agents SET worktree_root_id = ?2 WHERE id = ?1",
        params![id, execution_root_id],
    )
    .map(|_| ())
    .map_err(errors::store("recording an agent's worktree"))
}

/// Inserts `agent`, idle and without focus.
pub fn insert(conn: &Connection, agent: &NewAgent<'_>) -> Result<(), AgencyError> {
    conn.execute(
        "INSERT INTO agents (id, profile, parent_id, lifecycle, model_json, template, workspace_mode, created_at_ms)
         VALUES (?1, ?2, ?3, 'idle', ?4, ?5, ?6, ?7)",
        params![
            agent.id,
            agent.profile.as_str(),
            agent.parent_id,
            agent.model.map(serde_json::Value::to_string),
            agent.template,
            agent.workspace_mode,
            agent.now_ms,
        ],
    )
    .map(|_| ())
    .map_err(errors::store("creating an agent"))
}

/// Sets (or clears) the work item `agent` focuses on.
pub fn set_focus(conn: &Connection, agent: &str, focus: Option<i64>) -> Result<(), AgencyError> {
    conn.execute(
        "UPDATE agents SET focus_work_item_id = ?2 WHERE id = ?1",
        params![agent, focus],
    )
    .map(|_| ())
    .map_err(errors::store("setting the focus"))
}

/// Clears the focus of every agent focused on work item `row`.
pub fn clear_focus_on(conn: &Connection, row: i64) -> Result<(), AgencyError> {
    conn.execute(
        "UPDATE agents SET focus_work_item_id = NULL WHERE focus_work_item_id = ?1",
        [row],
    )
    .map(|_| ())
    .map_err(errors::store("clearing a focus"))
}

/// Recomputes `agent`'s lifecycle from its turns and waits: running with a turn that is
/// not closed, waiting with an active wait, idle otherwise; a stopped agent stays
/// stopped.
pub fn refresh_lifecycle(conn: &Connection, agent: &str) -> Result<Lifecycle, AgencyError> {
    let lifecycle: String = conn
        .query_row(
            "SELECT CASE
                WHEN lifecycle = 'stopped' THEN 'stopped'
                WHEN EXISTS (SELECT 1 FROM turns WHERE agent_id = ?1 AND state <> 'closed') THEN 'running'
                WHEN EXISTS (SELECT 1 FROM waits WHERE agent_id = ?1 AND state = 'active') THEN 'waiting'
                ELSE 'idle' END
             FROM agents WHERE id = ?1",
            [agent],
            |row| row.get(0),
        )
        .map_err(errors::store("updating an agent's lifecycle"))?;
    conn.execute(
        "UPDATE agents SET lifecycle = ?2 WHERE id = ?1",
        params![agent, lifecycle],
    )
    .map_err(errors::store("updating an agent's lifecycle"))?;
    Ok(Lifecycle::parse(&lifecycle))
}

/// Marks `agent` stopped.
pub fn stop(conn: &Connection, agent: &str) -> Result<(), AgencyError> {
    conn.execute(
        "UPDATE agents SET lifecycle = 'stopped' WHERE id = ?1",
        [agent],
    )
    .map(|_| ())
    .map_err(errors::store("stopping an agent"))
}

/// A fresh id for a private child: `child-<n>`, never used before.
pub fn fresh_child_id(conn: &Connection) -> Result<String, AgencyError> {
    let mut n: i64 = conn
        .query_row("SELECT COUNT(*) FROM agents", [], |row| row.get(0))
        .map_err(errors::store("naming a child agent"))?;
    loop {
        let id = format!("child-{n}");
        if load(conn, &id)?.is_none() {
            return Ok(id);
        }
        n += 1;
    }
}
