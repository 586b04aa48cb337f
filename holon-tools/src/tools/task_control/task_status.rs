//! `TaskStatus`: one task's state.

use holon_core::prelude::*;

use super::errors::task_error;
use super::fields::{TaskId, field_doc};
use holon_runtime::Runtime;
use holon_runtime::tasks::{TaskCaller, TaskInfo};

/// Arguments of TaskStatus.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct TaskStatusArgs {
    #[doc = field_doc!(task_id)]
    pub task_id: TaskId,
}

/// A task's state.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TaskStatusResult {
    /// The task.
    pub task: TaskInfo,
}

/// Get one task's status without waiting: whether it runs, its exit status once it
/// ended, its pid, how long it has run, how much output it wrote and where its logs
/// are. Use TaskOutput to read the output itself or to wait for the task.
#[holon_tool(
    family = CoreAgent,
    keywords = ["job finished", "done yet", "exit code", "pid", "still running"],
    annotations(read_only, idempotent, open_world = false)
)]
fn task_status(
    rt: &Runtime,
    context: &ToolContext,
    args: TaskStatusArgs,
) -> Result<ToolOutput<TaskStatusResult>, ToolError> {
    let task = rt
        .tasks()
        .info(&args.task_id.0, &TaskCaller::of(context))
        .map_err(|error| task_error(error, "shell"))?;
    let summary = match task.exit_status {
        Some(status) => format!(
            "{}: {} (exit code {status})",
            task.task_id,
            task.status.as_str()
        ),
        None => format!("{}: {}", task.task_id, task.status.as_str()),
    };
    Ok(ToolOutput::new(TaskStatusResult { task }).with_summary(summary))
}
