//! The `work_items` table. A work item is a unit of work an agent owns: an objective,
//! a plan with its status, a todo list, a state (`open`, `completing`, `completed`) and
//! an optional blocker (the wait that holds it). Every change of its content or state
//! increments its revision; which item an agent focuses on is the agent's state, not
//! the item's, and does not.

use super::errors::AgencyError;
use holon_core::prelude::*;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::errors::{self, AgencyErrorKind};
use super::ids;

mod status;

pub use status::{
    begin_completion, clear_blocker, clear_blocker_of_wait, complete, completing_in_turn,
    set_blocker,
};

/// Where a plan stands.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ClosedInput,
)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    /// Still being worked out.
    #[default]
    Draft,
    /// Settled; the work can follow it.
    Ready,
    /// Blocked on an answer from the operator.
    NeedsInput,
}

impl PlanStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Ready => "ready",
            Self::NeedsInput => "needs_input",
        }
    }

    fn parse(text: &str) -> Self {
        match text {
            "ready" => Self::Ready,
            "needs_input" => Self::NeedsInput,
            _ => Self::Draft,
        }
    }
}

/// Where a todo entry stands.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, holon_core::ClosedInput,
)]
#[serde(rename_all = "snake_case")]
pub enum TodoState {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
}

/// One entry of a todo list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ClosedInput)]
#[serde(deny_unknown_fields)]
pub struct TodoItem {
    /// What to do, in one line.
    #[schemars(length(min = 1, max = 500))]
    pub text: String,
    /// `pending`, `in_progress` or `completed`.
    pub state: TodoState,
}

/// Where a work item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WorkItemState {
    /// Being worked on (or waiting its turn).
    Open,
    /// CompleteWorkItem was called; it completes when the turn's completion report
    /// arrives.
    Completing,
    /// Done, with its completion report.
    Completed,
}

impl WorkItemState {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Completing => "completing",
            Self::Completed => "completed",
        }
    }

    fn parse(text: &str) -> Self {
        match text {
            "completing" => Self::Completing,
            "completed" => Self::Completed,
            _ => Self::Open,
        }
    }
}

/// A work item as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkItemRecord {
    /// The row; the public id is `wi-<row>`.
    pub row: i64,
    /// The agent that owns it.
    pub agent_id: String,
    /// What it is for.
    pub objective: String,
    /// How to get there.
    pub plan: Option<String>,
    /// Where the plan stands.
    pub plan_status: PlanStatus,
    /// The todo list.
    pub todo_list: Vec<TodoItem>,
    /// Where it stands.
    pub state: WorkItemState,
    /// The row of the wait blocking it.
    pub blocker_wait: Option<i64>,
    /// Why it is blocked.
    pub blocker_reason: Option<String>,
    /// The operator-facing report it completed with.
    pub completion_report: Option<String>,
    /// Incremented by every change.
    pub revision: i64,
    /// When an agent first focused on it.
    pub first_picked_at_ms: Option<i64>,
    /// When it was created, in milliseconds since the Unix epoch.
    pub created_at_ms: i64,
    /// When it last changed.
    pub updated_at_ms: i64,
}

impl WorkItemRecord {
    /// The public id, `wi-<n>`.
    pub fn id(&self) -> String {
        ids::format(ids::WORK_ITEM, self.row)
    }
}

const COLUMNS: &str = "id, agent_id, objective, plan, plan_status, todo_json, state, blocker_wait_id, blocker_reason, completion_report, revision, first_picked_at_ms, created_at_ms, updated_at_ms";

fn from_row(row: &Row<'_>) -> rusqlite::Result<WorkItemRecord> {
    let todo: String = row.get(5)?;
    Ok(WorkItemRecord {
        row: row.get(0)?,
        agent_id: row.get(1)?,
        objective: row.get(2)?,
        plan: row.get(3)?,
        plan_status: PlanStatus::parse(&row.get::<_, String>(4)?),
        todo_list: serde_json::from_str(&todo).unwrap_or_default(),
        state: WorkItemState::parse(&row.get::<_, String>(6)?),
        blocker_wait: row.get(7)?,
        blocker_reason: row.get(8)?,
        completion_report: row.get(9)?,
        revision: row.get(10)?,
        first_picked_at_ms: row.get(11)?,
        created_at_ms: row.get(12)?,
        updated_at_ms: row.get(13)?,
    })
}

/// The work item in row `row`.
pub fn load(conn: &Connection, row: i64) -> Result<Option<WorkItemRecord>, AgencyError> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM work_items WHERE id = ?1"),
        [row],
        from_row,
    )
    .optional()
    .map_err(errors::store("reading a work item"))
}

/// The work item `id` (`wi-<n>`) of `agent`, or an `unknown_work_item` error for the
/// field `field`.
pub fn require_owned(
    conn: &Connection,
    agent: &str,
    id: &str,
    field: &str,
) -> Result<WorkItemRecord, AgencyError> {
    let found = match ids::parse(ids::WORK_ITEM, id) {
        Some(row) => load(conn, row)?.filter(|item| item.agent_id == agent),
        None => None,
    };
    found.ok_or_else(|| {
        errors::error(
            AgencyErrorKind::UnknownWorkItem,
            format!("you have no work item `{id}`"),
            "use an id ListWorkItems returns, such as `wi-3`",
        )
        .with_field(field.to_string())
    })
}

/// The `work_item_completed` error for `item`.
pub fn completed_error(item: &WorkItemRecord, field: &str) -> AgencyError {
    errors::error(
        AgencyErrorKind::WorkItemCompleted,
        format!(
            "work item {} is completed and can no longer change",
            item.id()
        ),
        "create a new work item for further work",
    )
    .with_field(field.to_string())
}

fn todo_json(todo: &[TodoItem]) -> String {
    serde_json::to_string(todo).unwrap_or_else(|_| "[]".to_string())
}

/// What a new work item starts with.
pub struct NewWorkItem<'a> {
    /// What it is for.
    pub objective: &'a str,
    /// How to get there.
    pub plan: Option<&'a str>,
    /// Where the plan stands.
    pub plan_status: PlanStatus,
    /// Its todo list.
    pub todo_list: &'a [TodoItem],
}

/// Inserts a new open work item of `agent` at revision 1.
pub fn insert(
    conn: &Connection,
    agent: &str,
    item: &NewWorkItem<'_>,
    now_ms: i64,
) -> Result<WorkItemRecord, AgencyError> {
    conn.execute(
        "INSERT INTO work_items (agent_id, objective, plan, plan_status, todo_json, state, revision, created_at_ms, updated_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, 'open', 1, ?6, ?6)",
        params![agent, item.objective, item.plan, item.plan_status.as_str(), todo_json(item.todo_list), now_ms],
    )
    .map_err(errors::store("creating a work item"))?;
    reload(conn, conn.last_insert_rowid())
}

/// The work item at `row`, which must exist.
pub fn reload(conn: &Connection, row: i64) -> Result<WorkItemRecord, AgencyError> {
    load(conn, row)?.ok_or_else(|| {
        errors::error(
            AgencyErrorKind::UnknownWorkItem,
            format!("work item wi-{row} vanished"),
            "retry the call",
        )
    })
}

/// The changes UpdateWorkItem asks for; `None` leaves a field as it is.
#[derive(Debug, Default)]
pub struct WorkItemPatch<'a> {
    /// A new objective.
    pub objective: Option<&'a str>,
    /// A new plan.
    pub plan: Option<&'a str>,
    /// A new plan status.
    pub plan_status: Option<PlanStatus>,
    /// A new todo list, replacing the old one.
    pub todo_list: Option<&'a [TodoItem]>,
}

/// Applies `patch` (the todo list is replaced whole) and increments the revision.
pub fn update(
    conn: &Connection,
    row: i64,
    patch: &WorkItemPatch<'_>,
    now_ms: i64,
) -> Result<WorkItemRecord, AgencyError> {
    conn.execute(
        "UPDATE work_items SET
            objective = COALESCE(?2, objective),
            plan = COALESCE(?3, plan),
            plan_status = COALESCE(?4, plan_status),
            todo_json = COALESCE(?5, todo_json),
            revision = revision + 1,
            updated_at_ms = ?6
         WHERE id = ?1",
        params![
            row,
            patch.objective,
            patch.plan,
            patch.plan_status.map(PlanStatus::as_str),
            patch.todo_list.map(todo_json),
            now_ms
        ],
    )
    .map_err(errors::store("updating a work item"))?;
    reload(conn, row)
}

/// Records that an agent focused on `row` (once; not a change of the item).
pub fn mark_picked(conn: &Connection, row: i64, now_ms: i64) -> Result<(), AgencyError> {
    conn.execute(
        "UPDATE work_items SET first_picked_at_ms = COALESCE(first_picked_at_ms, ?2) WHERE id = ?1",
        params![row, now_ms],
    )
    .map(|_| ())
    .map_err(errors::store("focusing a work item"))
}

/// The current revision of `row`, and whether it is completed.
pub fn revision(conn: &Connection, row: i64) -> Result<Option<(i64, bool)>, AgencyError> {
    conn.query_row(
        "SELECT revision, state = 'completed' FROM work_items WHERE id = ?1",
        [row],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .optional()
    .map_err(errors::store("reading a work item revision"))
}

/// Rows of `agent`'s work items matching `condition` (SQL over the `work_items`
/// columns; `?2` is the agent's focus row or -1), focus first, then oldest first; and
/// how many match in all.
pub fn select(
    conn: &Connection,
    agent: &str,
    focus: Option<i64>,
    condition: &str,
    limit: usize,
) -> Result<(Vec<WorkItemRecord>, i64), AgencyError> {
    let focus = focus.unwrap_or(-1);
    let total: i64 = conn
        .query_row(
            &format!(
                "SELECT COUNT(*) FROM work_items WHERE agent_id = ?1 AND ({condition}) AND ?2 = ?2"
            ),
            params![agent, focus],
            |r| r.get(0),
        )
        .map_err(errors::store("listing work items"))?;
    let mut statement = conn
        .prepare(&format!(
            "SELECT {COLUMNS} FROM work_items WHERE agent_id = ?1 AND ({condition})
             ORDER BY CASE WHEN id = ?2 THEN 0 ELSE 1 END, id LIMIT ?3"
        ))
        .map_err(errors::store("listing work items"))?;
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let items = statement
        .query_map(params![agent, focus, limit], from_row)
        .map_err(errors::store("listing work items"))?
        .collect::<Result<_, _>>()
        .map_err(errors::store("listing work items"))?;
    Ok((items, total))
}
