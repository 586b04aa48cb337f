//! `TaskOutput`: read a task's new output, waiting for it if asked.

use std::time::Duration;

use holon_core::prelude::*;

use super::errors::task_error;
use super::exec_command::DRAIN_GRACE;
use super::fields::{MaxOutputTokens, TaskId, field_doc};
use holon_runtime::Runtime;
use holon_runtime::tasks::{OutputPreview, TaskCaller, TaskInfo, TaskState};

/// How long TaskOutput waits when `timeout_ms` is not given.
pub const DEFAULT_OUTPUT_TIMEOUT_MS: u64 = 10_000;

/// Arguments of TaskOutput.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct TaskOutputArgs {
    #[doc = field_doc!(task_id)]
    pub task_id: TaskId,
    /// Wait until the task ends or prints something new (up to `timeout_ms`) instead
    /// of answering at once. Defaults to true.
    #[serde(default)]
    pub block: Option<bool>,
    /// How long to wait when blocking, in milliseconds: 0 to 600,000. Defaults to
    /// 10,000.
    #[serde(default)]
    #[schemars(range(max = 600_000))]
    pub timeout_ms: Option<u64>,
    #[doc = field_doc!(max_output_tokens)]
    #[serde(default)]
    pub max_output_tokens: Option<MaxOutputTokens>,
}

/// Whether TaskOutput got something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RetrievalStatus {
    /// The task has ended, or printed something new: `output` has it.
    Success,
    /// The wait ended at `timeout_ms` with the task still running and nothing new.
    Timeout,
    /// Without blocking: the task is running and has printed nothing new.
    NotReady,
}

/// What TaskOutput got.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TaskOutputResult {
    /// `success`, `timeout` or `not_ready`.
    pub retrieval_status: RetrievalStatus,
    /// The task's state now.
    pub task: TaskInfo,
    /// The output printed since the previous TaskOutput call on this task (from the
    /// start on the first), cut to `max_output_tokens`; absent unless `success`.
    pub output: Option<OutputPreview>,
}

/// Read what a task printed since the last TaskOutput call on it (everything, the
/// first time), waiting for it to end or print something new.
///
/// With `block` (the default) the call waits up to `timeout_ms` (default 10,000):
/// `retrieval_status` is `success` as soon as the task has ended or printed something
/// new, and `timeout` when the wait ran out first. With `block: false` it answers at
/// once: `not_ready` when the task is running and has printed nothing new. Output over
/// `max_output_tokens` keeps its head and tail; the task's log files keep everything.
/// `task` tells whether it still runs and its exit status once it ended.
#[holon_tool(
    family = CoreAgent,
    keywords = ["logs", "stdout", "stderr", "tail", "printed", "console"],
    annotations(read_only, open_world = false)
)]
async fn task_output(
    rt: &Runtime,
    context: &ToolContext,
    args: TaskOutputArgs,
) -> Result<ToolOutput<TaskOutputResult>, ToolError> {
    let task_id = args.task_id.0;
    let manager = rt.tasks();
    let caller = TaskCaller::of(context);
    let info = manager
        .info(&task_id, &caller)
        .map_err(|error| task_error(error, "shell"))?;
    let ready = |info: &TaskInfo| info.status != TaskState::Running || manager.has_new_output(info);
    let mut retrieval_status = RetrievalStatus::Success;
    if !ready(&info) {
        let live = manager.live_task(&task_id, &caller);
        retrieval_status = match (args.block.unwrap_or(true), live) {
            (false, _) | (true, None) => RetrievalStatus::NotReady,
            (true, Some(task)) => {
                let timeout =
                    Duration::from_millis(args.timeout_ms.unwrap_or(DEFAULT_OUTPUT_TIMEOUT_MS));
                let seen = (info.stdout_bytes, info.stderr_bytes);
                if task.wait_progress(timeout, seen).await {
                    RetrievalStatus::Success
                } else {
                    RetrievalStatus::Timeout
                }
            }
        };
    }
    let mut output = None;
    if retrieval_status == RetrievalStatus::Success {
        if let Some(task) = manager.live_task(&task_id, &caller)
            && task.state() != TaskState::Running
        {
            task.wait_drained(DRAIN_GRACE).await;
        }
        let budget = MaxOutputTokens::budget_bytes(args.max_output_tokens);
        output = Some(
            manager
                .take_new_output(&task_id, &caller, budget)
                .map_err(|error| task_error(error, "shell"))?,
        );
    }
    let task = manager
        .info(&task_id, &caller)
        .map_err(|error| task_error(error, "shell"))?;
    let summary = match (retrieval_status, &output) {
        (RetrievalStatus::Success, Some(output)) => format!(
            "{}: {} new byte(s); {}",
            task.task_id,
            output.stdout_bytes + output.stderr_bytes,
            task.status.as_str()
        ),
        (RetrievalStatus::Timeout, _) => format!(
            "{}: nothing new before the timeout; still running",
            task.task_id
        ),
        _ => format!("{}: nothing new yet; still running", task.task_id),
    };
    Ok(ToolOutput::new(TaskOutputResult {
        retrieval_status,
        task,
        output,
    })
    .with_summary(summary))
}
