//! `TaskInput`: type into a running task's stdin or terminal.

use std::time::Duration;

use holon_core::prelude::*;

use super::errors::task_error;
use super::fields::{TaskId, field_doc};
use holon_runtime::Runtime;
use holon_runtime::tasks::{TaskInfo, TaskState};

/// How long a write may wait for a task that does not read its input.
pub const INPUT_WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// Arguments of TaskInput.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct TaskInputArgs {
    #[doc = field_doc!(task_id)]
    pub task_id: TaskId,
    /// The text to send, exactly as given: end it with a newline (`\n`) to submit a
    /// line. Under a terminal, control characters work as keys do (`\u0003` is
    /// Ctrl-C).
    #[schemars(length(max = 65_536))]
    pub input: String,
    /// After the text, signal the end of input: stdin is closed (under a terminal,
    /// Ctrl-D is sent). Defaults to false.
    #[serde(default)]
    pub close_input: Option<bool>,
}

/// What TaskInput did.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TaskInputResult {
    /// Whether the task took the input.
    pub accepted_input: bool,
    /// Why it did not, when it did not.
    pub reason: Option<String>,
    /// How many bytes were written.
    pub bytes_written: u64,
    /// The task's state.
    pub task: TaskInfo,
}

/// Send text to a running task's stdin (or type it into its terminal), for programs
/// that ask questions, REPLs and other interactive commands.
///
/// Only a task started by ExecCommand with `accepts_input: true` (or `tty: true`)
/// takes input; otherwise, or when the task has ended, `accepted_input` is false with
/// the reason. The text is sent as given: add `\n` to submit a line. Read the answer
/// with TaskOutput.
#[holon_tool(family = CoreAgent, annotations(destructive, open_world = false))]
async fn task_input(
    rt: &Runtime,
    args: TaskInputArgs,
) -> Result<ToolOutput<TaskInputResult>, ToolError> {
    let task_id = args.task_id.0;
    let manager = rt.tasks();
    let Some(task) = manager.live_task(&task_id) else {
        let info = manager
            .info(&task_id)
            .map_err(|error| task_error(error, "shell"))?;
        let reason = if info.status == TaskState::Running {
            "another runtime that is still open runs this task; only it can send it input"
                .to_string()
        } else {
            format!(
                "the task has ended ({}); it reads no more input",
                info.status.as_str()
            )
        };
        return Ok(refused(info, reason));
    };
    if task.state() != TaskState::Running {
        let reason = format!(
            "the task has ended ({}); it reads no more input",
            task.state().as_str()
        );
        return Ok(refused(task.info(), reason));
    }
    if !task.spec().accepts_input {
        return Ok(refused(
            task.info(),
            "the task was started with `accepts_input: false`, so its stdin is closed; run the \
             command again with `accepts_input: true` (or `tty: true`) to send it input"
                .to_string(),
        ));
    }
    let bytes = args.input.into_bytes();
    let length = bytes.len() as u64;
    let close = args.close_input.unwrap_or(false);
    let writer = std::sync::Arc::clone(&task);
    let write = tokio::task::spawn_blocking(move || writer.write_input(&bytes, close));
    let reason = match tokio::time::timeout(INPUT_WRITE_TIMEOUT, write).await {
        Ok(Ok(Ok(()))) => None,
        Ok(Ok(Err(error))) => Some(format!("the task's input is closed ({error})")),
        Ok(Err(_)) => Some("the write was cancelled".to_string()),
        Err(_) => Some(format!(
            "the task did not read its input within {} s; it may be busy, try again later",
            INPUT_WRITE_TIMEOUT.as_secs()
        )),
    };
    if let Some(reason) = reason {
        return Ok(refused(task.info(), reason));
    }
    let summary = format!("sent {length} byte(s) to {}", task.id());
    Ok(ToolOutput::new(TaskInputResult {
        accepted_input: true,
        reason: None,
        bytes_written: length,
        task: task.info(),
    })
    .with_summary(summary))
}

fn refused(task: TaskInfo, reason: String) -> ToolOutput<TaskInputResult> {
    let summary = format!("{} did not take the input: {reason}", task.task_id);
    ToolOutput::new(TaskInputResult {
        accepted_input: false,
        reason: Some(reason),
        bytes_written: 0,
        task,
    })
    .with_summary(summary)
}
