//! The task manager's errors as tool errors a model can act on.

use holon_core::prelude::*;

use holon_runtime::tasks::TaskError;

/// `error` as a tool error; `shell_field` is the input path of the shell that was run.
pub fn task_error(error: TaskError, shell_field: &str) -> ToolError {
    match error {
        TaskError::UnknownTask { task_id } => ToolError::new(
            ToolErrorKind::new("unknown_task"),
            format!("there is no task `{task_id}`"),
        )
        .with_field("task_id")
        .with_hint("ListTasks lists the background tasks with their ids; use one of those"),
        TaskError::Spawn { program, source } if source.kind() == std::io::ErrorKind::NotFound => {
            ToolError::new(
                ToolErrorKind::new("shell_not_found"),
                format!("the shell `{program}` is not installed or not on PATH"),
            )
            .with_field(shell_field)
            .with_hint("name an installed shell such as `sh` or `bash`, or omit the field")
        }
        TaskError::Spawn { program, source } => ToolError::new(
            ToolErrorKind::new("spawn_failed"),
            format!("the shell `{program}` could not be started: {source}"),
        )
        .with_field(shell_field)
        .with_hint("check that the shell is executable; the call may succeed when retried")
        .retryable(),
        TaskError::LogsRemoved { ref task_id, .. } => ToolError::new(
            ToolErrorKind::new("task_logs_removed"),
            format!("{error}; its record remains"),
        )
        .with_field("task_id")
        .with_hint(format!(
            "TaskStatus still reports how `{task_id}` ended; its output is gone, so run the command again if you need it"
        )),
        TaskError::Io { .. } | TaskError::Store(_) | TaskError::Launch(_) => ToolError::new(
            ToolErrorKind::new("task_state_failed"),
            format!("the runtime could not keep the task's state: {error}"),
        )
        .with_hint("check the free space and permissions of the state directory, then try again")
        .retryable(),
    }
}
