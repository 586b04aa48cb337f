//! `TaskInput`: type into a running task's stdin or terminal.

use std::time::Duration;

use holon_core::FamilyPolicy;
use holon_core::prelude::*;

use super::errors::task_error;
use super::fields::{TaskId, field_doc};
use holon_runtime::Runtime;
use holon_runtime::tasks::{TaskCaller, TaskInfo, TaskState};

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
/// with TaskOutput. Typing into a shell runs commands, so the call needs every
/// capability family the caller that started the task had (`family_not_allowed`
/// otherwise), and the host may ask the operator first, as for ExecCommand.
#[holon_tool(
    family = CoreAgent,
    keywords = ["stdin", "type", "answer prompt", "repl", "interactive", "keyboard", "press enter"],
    annotations(destructive, open_world = false)
)]
async fn task_input(
    rt: &Runtime,
    context: &ToolContext,
    args: TaskInputArgs,
) -> Result<ToolOutput<TaskInputResult>, ToolError> {
    let task_id = args.task_id.0;
    let manager = rt.tasks();
    let caller = TaskCaller::of(context);
    let Some(task) = manager.live_task(&task_id, &caller) else {
        let info = manager
            .info(&task_id, &caller)
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
    // What runs in the task runs with the families of the caller that started it: a
    // caller without them would borrow them.
    let started_by = task.started_by().families;
    if !caller.holds(started_by) {
        return Err(families_missing(&task_id, started_by, &caller));
    }
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

/// The refusal of input from `caller` into a task started by a caller of `started_by`.
fn families_missing(task_id: &str, started_by: FamilyPolicy, caller: &TaskCaller) -> ToolError {
    let names = |policy: FamilyPolicy| -> Vec<&'static str> {
        policy.families().map(|family| family.as_str()).collect()
    };
    let missing: Vec<&str> = started_by
        .families()
        .filter(|family| !caller.families.allows(*family))
        .map(|family| family.as_str())
        .collect();
    ToolError::new(
        ToolErrorKind::FAMILY_NOT_ALLOWED,
        format!(
            "`{task_id}` was started by a caller of the capability families {}, and this caller \
             may not use {}: input typed into it would run with them",
            names(started_by).join(", "),
            missing.join(", ")
        ),
    )
    .with_field("task_id")
    .with_details(serde_json::json!({
        "started_with": names(started_by),
        "missing": missing,
        "allowed": names(caller.families),
    }))
    .with_hint("send input from a caller with those families, or ask the operator for them")
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
