//! The task control plane: commands run for real, as tasks of the runtime.
//!
//! ExecCommand runs one command and lets it go on as a background task when it takes
//! longer than its `yield_time_ms`; ExecCommandBatch runs a few short commands in
//! order and never leaves one running. ListTasks, TaskStatus, TaskOutput, TaskInput
//! and TaskStop follow and control the background tasks. The processes, logs and
//! records are the runtime's ([`holon_runtime::tasks`]).

mod errors;
mod exec_command;
mod exec_command_batch;
mod fields;
mod list_tasks;
mod output_progress;
mod receipt;
mod task_input;
mod task_output;
mod task_status;
mod task_stop;

pub use exec_command::{
    DEFAULT_YIELD_TIME_MS, Disposition, DuplicatePolicy, ExecCommandArgs, ExecCommandResult,
    MAX_YIELD_TIME_MS, TaskHandle,
};
pub use exec_command_batch::{
    BatchCounts, BatchItem, BatchItemResult, BatchItemStatus, DEFAULT_ITEM_TIME_LIMIT_MS,
    ExecCommandBatchArgs, ExecCommandBatchResult, ItemTimeLimit,
};
pub use fields::{
    CHARS_PER_TOKEN, CommandLine, DEFAULT_MAX_OUTPUT_TOKENS, LoginShell, MAX_OUTPUT_TOKENS_CAP,
    MaxOutputTokens, ShellProgram, TaskId, Workdir,
};
pub use list_tasks::{DEFAULT_TASK_LIMIT, ListTasksArgs, ListTasksResult};
pub use task_input::{TaskInputArgs, TaskInputResult};
pub use task_output::{
    DEFAULT_OUTPUT_TIMEOUT_MS, RetrievalStatus, TaskOutputArgs, TaskOutputResult,
};
pub use task_status::{TaskStatusArgs, TaskStatusResult};
pub use task_stop::{TaskStopArgs, TaskStopResult};
