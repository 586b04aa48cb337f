//! Who owns a task, and the tasks of private child agents.
//!
//! The owner of a task (an agent, and the work item that agent focused on) is captured
//! once, when the task is created, and never moves: switching focus later does not
//! carry a background task along, and a wait on the task belongs to the owner's work
//! item whatever the focus is when the wait is reported.
//!
//! Tasks are command tasks of the task plane (`task-<n>`, the `tasks` table) or the
//! task of a private child agent (`agent:<child id>`, the `agent_tasks` table).

use super::errors::{AgencyError, AgencyErrorKind};
use rusqlite::{Connection, OptionalExtension, params};

use super::{agents, errors, ids};

/// The captured owner of a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskOwner {
    /// The agent that created the task.
    pub agent_id: String,
    /// The row of the work item that agent focused on then.
    pub work_item: Option<i64>,
}

impl TaskOwner {
    /// The public id of the owning work item.
    pub fn work_item_id(&self) -> Option<String> {
        self.work_item.map(|row| ids::format(ids::WORK_ITEM, row))
    }
}

/// Captures `agent` (and its current focus) as the owner of `task_handle`, unless an
/// owner is already captured; returns the owner on record either way.
pub fn capture(
    conn: &Connection,
    task_handle: &str,
    agent: &str,
    now_ms: i64,
) -> Result<TaskOwner, AgencyError> {
    let record = agents::require(conn, agent)?;
    conn.execute(
        "INSERT OR IGNORE INTO task_owners (task_handle, agent_id, work_item_id, captured_at_ms)
         VALUES (?1, ?2, ?3, ?4)",
        params![task_handle, agent, record.focus_work_item, now_ms],
    )
    .map_err(errors::store("capturing a task owner"))?;
    owner(conn, task_handle)?.ok_or_else(|| {
        errors::error(
            AgencyErrorKind::UnknownTask,
            format!("the owner of `{task_handle}` was not kept"),
            "retry",
        )
    })
}

/// The captured owner of `task_handle`.
pub fn owner(conn: &Connection, task_handle: &str) -> Result<Option<TaskOwner>, AgencyError> {
    conn.query_row(
        "SELECT agent_id, work_item_id FROM task_owners WHERE task_handle = ?1",
        [task_handle],
        |row| {
            Ok(TaskOwner {
                agent_id: row.get(0)?,
                work_item: row.get(1)?,
            })
        },
    )
    .optional()
    .map_err(errors::store("reading a task owner"))
}

/// The state of `task_handle` (`running`, or how it ended), if the task exists.
pub fn task_state(conn: &Connection, task_handle: &str) -> Result<Option<String>, AgencyError> {
    if task_handle.starts_with(ids::AGENT_TASK_PREFIX) {
        return conn
            .query_row(
                "SELECT state FROM agent_tasks WHERE task_handle = ?1",
                [task_handle],
                |row| row.get(0),
            )
            .optional()
            .map_err(errors::store("reading an agent task"));
    }
    let Some(row) = task_handle
        .strip_prefix("task-")
        .and_then(|n| n.parse::<i64>().ok())
    else {
        return Ok(None);
    };
    conn.query_row("SELECT state FROM tasks WHERE id = ?1", [row], |r| r.get(0))
        .optional()
        .map_err(errors::store("reading a task"))
}

/// Whether the principal `principal` may see `task_handle`. A command task is its
/// starting principal's alone, as the task tools answer it (one recorded without a
/// principal is nobody's); an agent task is its owning agent's, checked by the caller.
pub fn task_visible_to(
    conn: &Connection,
    task_handle: &str,
    principal: &str,
) -> Result<bool, AgencyError> {
    if task_handle.starts_with(ids::AGENT_TASK_PREFIX) {
        return Ok(true);
    }
    let Some(row) = task_handle
        .strip_prefix("task-")
        .and_then(|n| n.parse::<i64>().ok())
    else {
        return Ok(false);
    };
    let starter: Option<Option<String>> = conn
        .query_row("SELECT principal FROM tasks WHERE id = ?1", [row], |r| {
            r.get(0)
        })
        .optional()
        .map_err(errors::store("reading a task's principal"))?;
    Ok(starter.flatten().as_deref() == Some(principal))
}

/// The task handle of private child `child`.
pub fn agent_task_handle(child: &str) -> String {
    format!("{}{child}", ids::AGENT_TASK_PREFIX)
}

/// Creates the running task of private child `child` and captures `parent` as its
/// owner; returns the handle.
pub fn create_agent_task(
    conn: &Connection,
    child: &str,
    parent: &str,
    now_ms: i64,
) -> Result<String, AgencyError> {
    let handle = agent_task_handle(child);
    conn.execute(
        "INSERT INTO agent_tasks (task_handle, child_agent_id, state, created_at_ms) VALUES (?1, ?2, 'running', ?3)",
        params![handle, child, now_ms],
    )
    .map_err(errors::store("creating an agent task"))?;
    capture(conn, &handle, parent, now_ms)?;
    Ok(handle)
}

/// Ends the task of private child `child` in `state` with `result`; returns its handle
/// when it was running.
pub fn finish_agent_task(
    conn: &Connection,
    child: &str,
    state: &str,
    result: Option<&str>,
    now_ms: i64,
) -> Result<Option<String>, AgencyError> {
    let handle = agent_task_handle(child);
    let changed = conn
        .execute(
            "UPDATE agent_tasks SET state = ?2, result = ?3, ended_at_ms = ?4
             WHERE task_handle = ?1 AND state = 'running'",
            params![handle, state, result, now_ms],
        )
        .map_err(errors::store("finishing an agent task"))?;
    Ok((changed > 0).then_some(handle))
}

/// Active task-result waits whose task is no longer running: `(agent, task handle,
/// task state)`.
pub fn ended_awaited_tasks(
    conn: &Connection,
) -> Result<Vec<(String, String, String)>, AgencyError> {
    let mut statement = conn
        .prepare(
            "SELECT DISTINCT agent_id, resource FROM waits
             WHERE state = 'active' AND wake = 'task_result' AND resource IS NOT NULL",
        )
        .map_err(errors::store("reading task waits"))?;
    let awaited: Vec<(String, String)> = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .map_err(errors::store("reading task waits"))?
        .collect::<Result<_, _>>()
        .map_err(errors::store("reading task waits"))?;
    let mut ended = Vec::new();
    for (agent, handle) in awaited {
        match task_state(conn, &handle)? {
            Some(state) if state == "running" => {}
            Some(state) => ended.push((agent, handle, state)),
            None => ended.push((agent, handle, "unknown".to_string())),
        }
    }
    Ok(ended)
}
