//! `ListTasks` (alias `TaskList`): the background tasks, newest first.

use holon_core::prelude::*;

use super::errors::task_error;
use holon_runtime::Runtime;
use holon_runtime::tasks::{TaskCaller, TaskInfo};

/// Tasks listed when `limit` is not given.
pub const DEFAULT_TASK_LIMIT: usize = 20;

/// Arguments of ListTasks.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ListTasksArgs {
    /// How many tasks to list, newest first: 1 to 100. Defaults to 20.
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
}

/// The background tasks.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ListTasksResult {
    /// The newest background tasks, newest first.
    pub tasks: Vec<TaskInfo>,
    /// How many background tasks there are in all.
    pub total_count: u64,
    /// How many of them are running.
    pub running_count: u64,
}

/// List the background tasks (commands ExecCommand let go on running), newest first,
/// with their status, exit status, output sizes and log files.
///
/// A task's status is `running`, `completed`, `failed`, `stopped`, `timed_out` or
/// `interrupted` (the runtime that ran it stopped, so its process is gone). Use the
/// task ids with TaskOutput, TaskInput, TaskStatus and TaskStop. `limit` is 1 to 100
/// (default 20); `total_count` says how many there are in all. Only the tasks started
/// for the same principal (user or token) as this call are listed; the task tools know
/// no others.
#[holon_tool(
    family = CoreAgent,
    keywords = ["background jobs", "processes", "ps", "running commands"],
    aliases = ["TaskList"],
    annotations(read_only, idempotent, open_world = false)
)]
fn list_tasks(
    rt: &Runtime,
    context: &ToolContext,
    args: ListTasksArgs,
) -> Result<ToolOutput<ListTasksResult>, ToolError> {
    let limit = args
        .limit
        .map_or(DEFAULT_TASK_LIMIT, |limit| limit as usize);
    let listing = rt
        .tasks()
        .list(limit, &TaskCaller::of(context))
        .map_err(|error| task_error(error, "shell"))?;
    let summary = format!(
        "{} background task(s), {} running",
        listing.total_count, listing.running_count
    );
    Ok(ToolOutput::new(ListTasksResult {
        tasks: listing.tasks,
        total_count: listing.total_count,
        running_count: listing.running_count,
    })
    .with_summary(summary))
}
