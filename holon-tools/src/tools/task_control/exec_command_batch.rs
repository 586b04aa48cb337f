//! `ExecCommandBatch`: run a short list of commands in order, each to its end or its
//! time limit; never leaves a background task behind.

use std::time::{Duration, Instant};

use holon_core::prelude::*;

use super::errors::task_error;
use super::exec_command::DRAIN_GRACE;
use super::fields::{
    CommandLine, LoginShell, MaxOutputTokens, ShellProgram, Workdir, field_doc, resolve_shell,
    resolve_workdir,
};
use super::receipt;
use holon_runtime::Runtime;
use holon_runtime::tasks::{
    KillOnDrop, LaunchSpec, OutputPreview, StopCause, TaskCaller, TaskState,
};

/// An item's time limit when neither it nor the batch sets `yield_time_ms`.
pub const DEFAULT_ITEM_TIME_LIMIT_MS: u64 = 30_000;

/// A batch item's time limit, in milliseconds: 1 to 600,000.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, ClosedInput)]
#[serde(transparent)]
pub struct ItemTimeLimit(#[schemars(range(min = 1, max = 600_000))] pub u64);

/// One command of a batch. Fields it leaves out take the batch's value.
#[derive(Debug, Deserialize, JsonSchema, ClosedInput)]
#[serde(deny_unknown_fields)]
pub struct BatchItem {
    #[doc = field_doc!(cmd)]
    pub cmd: CommandLine,
    #[doc = field_doc!(workdir)]
    #[serde(default)]
    pub workdir: Option<Workdir>,
    #[doc = field_doc!(shell)]
    #[serde(default)]
    pub shell: Option<ShellProgram>,
    #[doc = field_doc!(login)]
    #[serde(default)]
    pub login: Option<LoginShell>,
    /// How long the item may run, in milliseconds, before it is killed and reported
    /// `timed_out`: 1 to 600,000. Defaults to 30,000.
    #[serde(default)]
    pub yield_time_ms: Option<ItemTimeLimit>,
    #[doc = field_doc!(max_output_tokens)]
    #[serde(default)]
    pub max_output_tokens: Option<MaxOutputTokens>,
}

/// Arguments of ExecCommandBatch.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ExecCommandBatchArgs {
    /// The commands, 1 to 12, run one after another in this order.
    #[schemars(length(min = 1, max = 12))]
    pub items: Vec<BatchItem>,
    /// The `workdir` of every item that sets none.
    #[serde(default)]
    pub workdir: Option<Workdir>,
    /// The `shell` of every item that sets none.
    #[serde(default)]
    pub shell: Option<ShellProgram>,
    /// The `login` of every item that sets none.
    #[serde(default)]
    pub login: Option<LoginShell>,
    /// The `yield_time_ms` of every item that sets none.
    #[serde(default)]
    pub yield_time_ms: Option<ItemTimeLimit>,
    /// The `max_output_tokens` of every item that sets none.
    #[serde(default)]
    pub max_output_tokens: Option<MaxOutputTokens>,
    /// Once an item fails or times out, skip the items after it. Defaults to false:
    /// every item runs.
    #[serde(default)]
    pub stop_on_error: Option<bool>,
}

/// How one item of a batch ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BatchItemStatus {
    /// It exited with status 0.
    Completed,
    /// It exited with another status, was killed by a signal, or could not start.
    Failed,
    /// It did not run: an earlier item failed and `stop_on_error` is set.
    Skipped,
    /// It outlived its `yield_time_ms` and was killed.
    TimedOut,
}

/// What one item did.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BatchItemResult {
    /// Its position in `items`, from 0.
    pub index: usize,
    /// Its command line.
    pub cmd: String,
    /// `completed`, `failed`, `skipped` or `timed_out`.
    pub status: BatchItemStatus,
    /// Its exit status: the exit code, or 128 + the number of the signal that killed it.
    pub exit_status: Option<i32>,
    /// Its stdout and stderr, cut to its `max_output_tokens`.
    pub output_preview: Option<OutputPreview>,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
    /// The log of its stdout (past the log cap, 64 MiB by default, its first and last halves around a note of the cut).
    pub stdout_log: Option<String>,
    /// The log of its stderr, capped the same way.
    pub stderr_log: Option<String>,
    /// Why it failed to start, or was skipped.
    pub error: Option<String>,
}

/// How many items ended in each status.
#[derive(Debug, Default, Serialize, JsonSchema)]
pub struct BatchCounts {
    /// Items that exited with status 0.
    pub completed: usize,
    /// Items that failed.
    pub failed: usize,
    /// Items not run.
    pub skipped: usize,
    /// Items killed at their time limit.
    pub timed_out: usize,
}

/// What ExecCommandBatch did.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ExecCommandBatchResult {
    /// One entry per item, in order.
    pub results: Vec<BatchItemResult>,
    /// How many items ended in each status.
    pub counts: BatchCounts,
    /// How long the whole batch took, in milliseconds.
    pub duration_ms: u64,
}

/// Run up to 12 short shell commands one after another and report each one's exit
/// status and output.
///
/// Each item runs to its end in its own process group, like ExecCommand, but is never
/// left running: an item still running after its `yield_time_ms` (default 30,000) is
/// killed and reported `timed_out`. Top-level `workdir`, `shell`, `login`,
/// `yield_time_ms` and `max_output_tokens` apply to every item that does not set its
/// own. With `stop_on_error`, the items after a failed or timed-out one are `skipped`.
/// The result counts the items by status and lists, per item, its status, exit
/// status, output previews and duration. Use ExecCommand for anything long-running,
/// interactive or needing a terminal.
#[holon_tool(
    family = LocalEnvironment,
    keywords = ["several commands", "sequence", "one after another", "shell", "bash", "terminal"],
    annotations(destructive, open_world)
)]
async fn exec_command_batch(
    rt: &Runtime,
    context: &ToolContext,
    progress: &Progress,
    args: ExecCommandBatchArgs,
) -> Result<ToolOutput<ExecCommandBatchResult>, ToolError> {
    let started = Instant::now();
    let caller = TaskCaller::of(context);
    // Every input is checked before anything runs.
    let mut planned = Vec::with_capacity(args.items.len());
    for (index, item) in args.items.into_iter().enumerate() {
        let at = |field: &str| format!("items[{index}].{field}");
        let (workdir, workdir_field) = match &item.workdir {
            Some(dir) => (Some(dir), at("workdir")),
            None => (args.workdir.as_ref(), "workdir".to_string()),
        };
        let spec = LaunchSpec {
            cmd: item.cmd.checked(&at("cmd"))?,
            workdir: resolve_workdir(rt, workdir, &workdir_field)?,
            shell: resolve_shell(item.shell.as_ref().or(args.shell.as_ref())),
            login: item.login.or(args.login).is_some_and(|login| login.0),
            tty: false,
            accepts_input: false,
            confinement: rt.confinement(
                context
                    .policy()
                    .allows(holon_core::ToolCapabilityFamily::Web),
            ),
        };
        let limit = item
            .yield_time_ms
            .or(args.yield_time_ms)
            .map_or(DEFAULT_ITEM_TIME_LIMIT_MS, |limit| limit.0);
        let budget =
            MaxOutputTokens::budget_bytes(item.max_output_tokens.or(args.max_output_tokens));
        let shell_field = if item.shell.is_some() {
            at("shell")
        } else {
            "shell".into()
        };
        planned.push((spec, Duration::from_millis(limit), budget, shell_field));
    }
    let stop_on_error = args.stop_on_error.unwrap_or(false);
    let mut results = Vec::with_capacity(planned.len());
    let mut counts = BatchCounts::default();
    let mut failed_before = false;
    #[allow(clippy::cast_precision_loss)] // a count of items, far below 2^52
    let total = planned.len() as f64;
    for (index, (spec, limit, budget, shell_field)) in planned.into_iter().enumerate() {
        let result = if failed_before && stop_on_error {
            skipped(index, spec.cmd)
        } else {
            run_item(rt, &caller, index, spec, limit, budget, &shell_field).await
        };
        match result.status {
            BatchItemStatus::Completed => counts.completed += 1,
            BatchItemStatus::Failed => counts.failed += 1,
            BatchItemStatus::Skipped => counts.skipped += 1,
            BatchItemStatus::TimedOut => counts.timed_out += 1,
        }
        failed_before |= matches!(
            result.status,
            BatchItemStatus::Failed | BatchItemStatus::TimedOut
        );
        if progress.is_enabled() {
            let message = format!(
                "item {index} {}: {}",
                status_word(result.status),
                result.cmd
            );
            #[allow(clippy::cast_precision_loss)]
            progress.report((index + 1) as f64, Some(total), Some(&message));
        }
        results.push(result);
    }
    let result = ExecCommandBatchResult {
        results,
        counts,
        duration_ms: millis(started.elapsed()),
    };
    let summary = format!(
        "{} completed, {} failed, {} timed out, {} skipped",
        result.counts.completed,
        result.counts.failed,
        result.counts.timed_out,
        result.counts.skipped
    );
    let text = receipt::exec_command_batch(&result);
    Ok(ToolOutput::new(result)
        .with_summary(summary)
        .with_receipt(text))
}

async fn run_item(
    rt: &Runtime,
    caller: &TaskCaller,
    index: usize,
    spec: LaunchSpec,
    limit: Duration,
    budget: usize,
    shell_field: &str,
) -> BatchItemResult {
    let cmd = spec.cmd.clone();
    let task = match rt.tasks().launch(spec, caller) {
        Ok(task) => task,
        Err(error) => {
            let error = task_error(error, shell_field);
            return BatchItemResult {
                error: Some(format!("{}: {}", error.kind, error.message)),
                status: BatchItemStatus::Failed,
                ..skipped(index, cmd)
            };
        }
    };
    // A cancelled or dropped call kills the item: a batch never leaves one running.
    let guard = KillOnDrop::new(&task);
    if !task.wait_exit(limit).await {
        task.stop(StopCause::TimedOut).await;
    }
    task.wait_drained(DRAIN_GRACE).await;
    guard.disarm();
    let exit = task.exit();
    let status = match task.state() {
        TaskState::Completed => BatchItemStatus::Completed,
        TaskState::TimedOut => BatchItemStatus::TimedOut,
        _ => BatchItemStatus::Failed,
    };
    BatchItemResult {
        index,
        cmd,
        status,
        exit_status: exit.map(|exit| exit.exit_status()),
        output_preview: Some(task.preview(budget)),
        duration_ms: millis(task.elapsed()),
        stdout_log: Some(task.stdout_log().display().to_string()),
        stderr_log: task.stderr_log().map(|path| path.display().to_string()),
        error: None,
    }
}

/// The status of an item as a progress message says it.
fn status_word(status: BatchItemStatus) -> &'static str {
    match status {
        BatchItemStatus::Completed => "completed",
        BatchItemStatus::Failed => "failed",
        BatchItemStatus::Skipped => "skipped",
        BatchItemStatus::TimedOut => "timed out",
    }
}

fn skipped(index: usize, cmd: String) -> BatchItemResult {
    BatchItemResult {
        index,
        cmd,
        status: BatchItemStatus::Skipped,
        exit_status: None,
        output_preview: None,
        duration_ms: 0,
        stdout_log: None,
        stderr_log: None,
        error: Some("not run: an earlier item failed and `stop_on_error` is set".to_string()),
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
