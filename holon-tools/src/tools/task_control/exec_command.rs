//! `ExecCommand`: run a shell command; wait a bounded time for it, and let it go on as
//! a background task when it takes longer.

use std::sync::Arc;
use std::time::Duration;

use holon_core::prelude::*;

use super::errors::task_error;
use super::fields::{
    CommandLine, LoginShell, MaxOutputTokens, ShellProgram, Workdir, field_doc, resolve_shell,
    resolve_workdir,
};
use super::{output_progress, receipt};
use holon_gates::process::LimitHit;
use holon_runtime::Runtime;
use holon_runtime::agency::ROOT_AGENT_ID;
use holon_runtime::tasks::{
    KillOnDrop, LaunchSpec, OutputPreview, Task, TaskCaller, TaskKind, TaskState,
};

/// How long ExecCommand waits for a command when `yield_time_ms` is not given.
pub const DEFAULT_YIELD_TIME_MS: u64 = 10_000;

/// The longest `yield_time_ms`.
pub const MAX_YIELD_TIME_MS: u64 = 600_000;

/// How long a finished command's output may take to reach the end of its streams (a
/// background child can keep them open; its later output stays in the logs).
pub const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// What to do when an identical command is already running.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ClosedInput,
)]
#[serde(rename_all = "snake_case")]
pub enum DuplicatePolicy {
    /// Do not start it again; answer with the running task.
    #[default]
    ReuseRunning,
    /// Start another one anyway.
    StartNew,
}

/// Arguments of ExecCommand.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ExecCommandArgs {
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
    /// Run under a pseudo-terminal, as in an interactive terminal: programs see a
    /// terminal (colors, prompts, line editing) and stdout and stderr arrive merged.
    /// Use it for programs that behave differently, or refuse to run, without one.
    /// Defaults to false.
    #[serde(default)]
    pub tty: Option<bool>,
    /// When the same command (same `cmd`, `workdir`, `shell`, `login` and `tty`) is
    /// already running as a task: `reuse_running` answers with that task instead of
    /// starting it twice; `start_new` starts another one anyway.
    #[serde(default)]
    pub duplicate_policy: DuplicatePolicy,
    /// Whether TaskInput may write to the command's stdin (or terminal) while it
    /// runs. Without it stdin is empty (end of file at once). Defaults to the value of
    /// `tty`.
    #[serde(default)]
    pub accepts_input: Option<bool>,
    /// How long to wait for the command to finish, in milliseconds, before it goes on
    /// as a background task: 0 to 600,000. Defaults to 10,000; 0 returns at once with
    /// the task.
    #[serde(default)]
    #[schemars(range(max = 600_000))]
    pub yield_time_ms: Option<u64>,
    #[doc = field_doc!(max_output_tokens)]
    #[serde(default)]
    pub max_output_tokens: Option<MaxOutputTokens>,
}

/// How an ExecCommand call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Disposition {
    /// The command finished within `yield_time_ms`.
    Completed,
    /// The command is still running, as the background task `task_handle`.
    PromotedToTask,
    /// The same command was already running as the task `task_handle`; nothing new
    /// was started.
    AlreadyRunning,
}

/// A background task, as ExecCommand hands it over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TaskHandle {
    /// The id to pass to TaskOutput, TaskInput, TaskStatus and TaskStop.
    pub task_id: String,
    /// `command` (pipes) or `terminal` (pseudo-terminal).
    pub kind: TaskKind,
    /// The task's status when this result was made.
    pub status: TaskState,
}

impl TaskHandle {
    /// The handle of `task`.
    pub fn of(task: &Task) -> Self {
        Self {
            task_id: task.id().to_string(),
            kind: task.kind(),
            status: task.state(),
        }
    }
}

/// What ExecCommand did.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ExecCommandResult {
    /// `completed`, `promoted_to_task` or `already_running`.
    pub disposition: Disposition,
    /// The command's status: `completed` (exit status 0) or `failed` once it ended,
    /// `running` while it runs as a task.
    pub status: TaskState,
    /// The exit status once it ended: the exit code, or 128 + the number of the signal
    /// that killed it.
    pub exit_status: Option<i32>,
    /// The signal that killed it, if one did.
    pub signal: Option<i32>,
    /// The cap of the command's cgroup it ran into, once it ended: `memory_cap` (the
    /// kernel killed a process of it for using too much memory) or `process_cap` (a
    /// fork was refused); `hint` says what to do.
    pub limit_hit: Option<LimitHit>,
    /// Its stdout and stderr, cut to `max_output_tokens`, when it completed.
    pub output_preview: Option<OutputPreview>,
    /// The background task, when it was promoted or already running, or when the
    /// command ended but left processes running in its group (TaskStop ends them).
    pub task_handle: Option<TaskHandle>,
    /// What it printed before it was promoted, cut to `max_output_tokens`.
    pub initial_output_preview: Option<OutputPreview>,
    /// The log of its stdout (for a terminal, what it showed) (past the log cap, 64 MiB by default, its first and last halves around a note of the cut).
    pub stdout_log: String,
    /// The log of its stderr, capped the same way; absent for a terminal.
    pub stderr_log: Option<String>,
    /// How long it had run when this result was made, in milliseconds.
    pub duration_ms: u64,
    /// What to do next, when there is something to know.
    pub hint: Option<String>,
}

/// Run a shell command in the workspace and return its exit status and output.
///
/// The command runs for real, in its own process group, in `workdir` (default: the
/// workspace root). ExecCommand waits up to `yield_time_ms` (default 10,000):
/// - finished: `disposition` is `completed`, with `exit_status` and stdout and stderr
///   in `output_preview`, cut to `max_output_tokens` (head and tail kept around a
///   marker of what was cut); the whole output is in the log files the result names.
/// - still running: `disposition` is `promoted_to_task` and it goes on as a background
///   task: `task_handle` has its id and `initial_output_preview` what it printed so
///   far. Follow it with TaskOutput, type into it with TaskInput (if started with
///   `accepts_input` or `tty`), end it with TaskStop.
/// - the same command already running as a task (and `duplicate_policy` is
///   `reuse_running`, the default): `disposition` is `already_running` with that
///   task's handle; nothing new is started.
///
/// Set `tty` for programs that need a terminal. Prefer a short `yield_time_ms` for
/// servers and watchers you mean to leave running, and use ExecCommandBatch for a
/// sequence of short commands.
#[holon_tool(
    family = LocalEnvironment,
    keywords = [
        "shell", "bash", "terminal", "command line", "script", "grep", "curl", "make", "compile",
        "run tests"
    ],
    annotations(destructive, open_world),
    example = r#"{"cmd": "cargo test --quiet 2>&1 | tail -n 20"}"#,
    example = r#"{"cmd": "npm run dev", "workdir": "web", "yield_time_ms": 0}"#,
    example = r#"{"cmd": "python3", "tty": true, "accepts_input": true, "yield_time_ms": 2000}"#
)]
async fn exec_command(
    rt: &Runtime,
    context: &ToolContext,
    progress: &Progress,
    args: ExecCommandArgs,
) -> Result<ToolOutput<ExecCommandResult>, ToolError> {
    let tty = args.tty.unwrap_or(false);
    let spec = LaunchSpec {
        cmd: args.cmd.checked("cmd")?,
        workdir: resolve_workdir(rt, args.workdir.as_ref(), "workdir")?,
        shell: resolve_shell(args.shell.as_ref()),
        login: args.login.is_some_and(|login| login.0),
        tty,
        accepts_input: args.accepts_input.unwrap_or(tty),
        confinement: rt.confinement(
            context
                .policy()
                .allows(holon_core::ToolCapabilityFamily::Web),
        ),
    };
    let budget = MaxOutputTokens::budget_bytes(args.max_output_tokens);
    // The task is its principal's: only that principal finds it again.
    let caller = TaskCaller::of(context);
    if args.duplicate_policy == DuplicatePolicy::ReuseRunning
        && let Some(task) = rt.tasks().find_running(&spec, &caller)
    {
        return Ok(already_running(&task));
    }
    let task = rt
        .tasks()
        .launch(spec, &caller)
        .map_err(|error| task_error(error, "shell"))?;
    // The owner is captured at creation, so that a WaitFor on this task stays with the
    // agent that started it whatever its focus does later. A caller that is not an
    // agent of this runtime owns nothing; the launch stands either way.
    let _ = rt.capture_task_owner(context.caller().unwrap_or(ROOT_AGENT_ID), task.id());
    // Until the call hands the task over, a cancelled or dropped call kills it.
    let guard = KillOnDrop::new(&task);
    let yield_time = Duration::from_millis(args.yield_time_ms.unwrap_or(DEFAULT_YIELD_TIME_MS));
    if !yield_time.is_zero()
        && output_progress::wait_exit(&task, yield_time, DRAIN_GRACE, progress).await
    {
        task.wait_drained(DRAIN_GRACE).await;
        guard.disarm();
        return Ok(completed(&task, budget));
    }
    guard.disarm();
    rt.tasks()
        .promote(&task)
        .map_err(|error| task_error(error, "shell"))?;
    Ok(promoted(&task, budget))
}

fn base(task: &Task, disposition: Disposition) -> ExecCommandResult {
    let exit = task.exit();
    ExecCommandResult {
        disposition,
        status: task.state(),
        exit_status: exit.map(|exit| exit.exit_status()),
        signal: exit.and_then(|exit| exit.signal),
        limit_hit: task.limit_hit(),
        output_preview: None,
        task_handle: None,
        initial_output_preview: None,
        stdout_log: task.stdout_log().display().to_string(),
        stderr_log: task.stderr_log().map(|path| path.display().to_string()),
        duration_ms: u64::try_from(task.elapsed().as_millis()).unwrap_or(u64::MAX),
        hint: None,
    }
}

fn output(result: ExecCommandResult, summary: String) -> ToolOutput<ExecCommandResult> {
    let text = receipt::exec_command(&result);
    let mut output = ToolOutput::new(result)
        .with_summary(summary)
        .with_receipt(text);
    let value = &output.value;
    let logs = [
        Some((value.stdout_log.clone(), "stdout")),
        value.stderr_log.clone().map(|path| (path, "stderr")),
    ];
    for (path, role) in logs.into_iter().flatten() {
        output = output.with_artifact(path, role);
    }
    output
}

fn completed(task: &Task, budget: usize) -> ToolOutput<ExecCommandResult> {
    let mut result = base(task, Disposition::Completed);
    result.output_preview = Some(task.preview(budget));
    if result.limit_hit.is_some() {
        result.hint = task.info().reason;
    }
    if task.has_leftovers() {
        result.task_handle = Some(TaskHandle::of(task));
        let leftovers = format!(
            "the command exited but left processes running (background jobs); they \
             belong to task {id}: TaskStop with this id ends them, and they end with the \
             runtime",
            id = task.id()
        );
        result.hint = Some(match result.hint.take() {
            Some(limit) => format!("{limit}; {leftovers}"),
            None => leftovers,
        });
    }
    let summary = match result.exit_status {
        Some(status) => format!("exit code {status}"),
        None => "exited".to_string(),
    };
    output(result, summary)
}

fn promoted(task: &Task, budget: usize) -> ToolOutput<ExecCommandResult> {
    let mut result = base(task, Disposition::PromotedToTask);
    result.task_handle = Some(TaskHandle::of(task));
    result.initial_output_preview = Some(task.preview(budget));
    result.hint = Some(format!(
        "it goes on in the background as {id}: call the task tools with \
         {{\"task_id\": \"{id}\"}} (the task_id of task_handle): TaskOutput reads its \
         output and waits for it, TaskStop ends it{input}",
        id = task.id(),
        input = if task.spec().accepts_input {
            ", TaskInput types into it"
        } else {
            ""
        }
    ));
    output(
        result,
        format!("still running: background task {}", task.id()),
    )
}

fn already_running(task: &Arc<Task>) -> ToolOutput<ExecCommandResult> {
    let mut result = base(task, Disposition::AlreadyRunning);
    result.task_handle = Some(TaskHandle::of(task));
    result.hint = Some(format!(
        "the same command is already running as {id}, so nothing new was started; follow it \
         with TaskOutput, or call again with `duplicate_policy: \"start_new\"` to start \
         another one",
        id = task.id()
    ));
    output(result, format!("already running as {}", task.id()))
}
