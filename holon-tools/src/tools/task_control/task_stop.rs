//! `TaskStop`: end a task's whole process group.

use holon_core::prelude::*;

use super::errors::task_error;
use super::exec_command::DRAIN_GRACE;
use super::fields::{TaskId, field_doc};
use holon_runtime::Runtime;
use holon_runtime::tasks::{StopCause, TaskCaller, TaskInfo, TaskState};

/// Arguments of TaskStop.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct TaskStopArgs {
    #[doc = field_doc!(task_id)]
    pub task_id: TaskId,
}

/// What TaskStop did.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TaskStopResult {
    /// Whether this call ended the task, or processes it left running (false when
    /// there was nothing left to end).
    pub stopped: bool,
    /// The task, after the stop.
    pub task: TaskInfo,
    /// Why nothing was stopped, or what was stopped when the task itself had ended.
    pub reason: Option<String>,
}

/// Stop a running task: its whole process group (the shell and everything it started)
/// gets SIGTERM, then SIGKILL after 2 seconds if anything is left. Returns once the
/// process is gone and reaped, with the task's final status (`stopped`) and exit
/// status. When the task already ended, processes it left running in its group (a
/// server started with `&`) are killed; if there are none, nothing happens and
/// `stopped` is false. A task whose runtime was lost (killed) while its processes
/// kept running is stopped the same way. The task's output stays readable with
/// TaskOutput.
#[holon_tool(
    family = CoreAgent,
    keywords = ["kill", "terminate", "abort", "ctrl-c", "sigterm", "shut down process"],
    annotations(destructive, idempotent, open_world = false)
)]
async fn task_stop(
    rt: &Runtime,
    context: &ToolContext,
    args: TaskStopArgs,
) -> Result<ToolOutput<TaskStopResult>, ToolError> {
    let task_id = args.task_id.0;
    let caller = TaskCaller::of(context);
    let Some(task) = rt.tasks().live_task(&task_id, &caller) else {
        // A task of a runtime that was killed, whose processes still run.
        if let Some(info) = rt
            .tasks()
            .stop_orphan(&task_id, &caller)
            .await
            .map_err(|error| task_error(error, "shell"))?
        {
            let summary = format!("stopped {}, left by a lost runtime", info.task_id);
            return Ok(ToolOutput::new(TaskStopResult {
                stopped: true,
                task: info,
                reason: None,
            })
            .with_summary(summary));
        }
        let task = rt
            .tasks()
            .info(&task_id, &caller)
            .map_err(|error| task_error(error, "shell"))?;
        let reason = if task.status == TaskState::Running {
            "another runtime that is still open runs this task; only it can stop it".to_string()
        } else {
            format!("the task already ended: {}", task.status.as_str())
        };
        return Ok(not_stopped(task, reason));
    };
    if !task.stop(StopCause::Requested).await {
        let ended = task.state().as_str();
        if task.kill_leftovers().await {
            let info = task.info();
            let summary = format!("killed what {} left running", info.task_id);
            return Ok(ToolOutput::new(TaskStopResult {
                stopped: true,
                task: info,
                reason: Some(format!(
                    "the task had already ended ({ended}); the processes it left running in \
                     its process group were killed"
                )),
            })
            .with_summary(summary));
        }
        return Ok(not_stopped(
            task.info(),
            format!("the task already ended: {ended}"),
        ));
    }
    task.wait_drained(DRAIN_GRACE).await;
    let info = task.info();
    let summary = format!("stopped {}", info.task_id);
    Ok(ToolOutput::new(TaskStopResult {
        stopped: true,
        task: info,
        reason: None,
    })
    .with_summary(summary))
}

fn not_stopped(task: TaskInfo, reason: String) -> ToolOutput<TaskStopResult> {
    let summary = format!("{} not stopped: {reason}", task.task_id);
    ToolOutput::new(TaskStopResult {
        stopped: false,
        task,
        reason: Some(reason),
    })
    .with_summary(summary)
}
