//! The task plane's data: what a task is, its states, and its errors.

use holon_core::prelude::{JsonSchema, Serialize, schemars};
use holon_core::{FamilyPolicy, ToolContext};

use crate::StoreError;
use holon_gates::process::{Confinement, WorkingDir};

/// How a task's process is attached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    /// Plain pipes: stdout and stderr are captured apart; stdin is a pipe when the
    /// task accepts input.
    Command,
    /// A pseudo-terminal: one merged output stream (reported as stdout), and input is
    /// typed into the terminal.
    Terminal,
}

impl TaskKind {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Self::Command => "command",
            Self::Terminal => "terminal",
        }
    }

    pub(super) fn parse(text: &str) -> Self {
        if text == "terminal" {
            Self::Terminal
        } else {
            Self::Command
        }
    }
}

/// Where a task is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    /// The process is alive.
    Running,
    /// The process exited with status 0.
    Completed,
    /// The process exited with a non-zero status or was killed by a signal it was not
    /// sent by TaskStop.
    Failed,
    /// TaskStop ended it.
    Stopped,
    /// It outlived its time limit and was killed.
    TimedOut,
    /// The runtime that ran it shut down or was lost; its process is gone.
    Interrupted,
}

impl TaskState {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Stopped => "stopped",
            Self::TimedOut => "timed_out",
            Self::Interrupted => "interrupted",
        }
    }

    pub(super) fn parse(text: &str) -> Self {
        match text {
            "running" => Self::Running,
            "completed" => Self::Completed,
            "failed" => Self::Failed,
            "stopped" => Self::Stopped,
            "timed_out" => Self::TimedOut,
            _ => Self::Interrupted,
        }
    }
}

/// One of a task's output streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputStream {
    /// stdout, or everything a terminal task's terminal showed.
    Stdout,
    /// stderr; a terminal task has none.
    Stderr,
}

/// What to run, fully resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchSpec {
    /// The command line, passed to the shell with `-c`.
    pub cmd: String,
    /// The working directory, held open: the command starts in the directory the
    /// handle holds, whatever its name leads to by then.
    pub workdir: WorkingDir,
    /// The shell program.
    pub shell: String,
    /// Whether the shell runs as a login shell (`-l`).
    pub login: bool,
    /// Whether the command runs under a pseudo-terminal.
    pub tty: bool,
    /// Whether TaskInput may write to the task.
    pub accepts_input: bool,
    /// What the command may reach ([`crate::Runtime::confinement`]).
    pub confinement: Confinement,
}

impl LaunchSpec {
    /// Whether `other` runs the same thing the same way (for duplicate detection).
    pub fn same_command(&self, other: &Self) -> bool {
        self.cmd == other.cmd
            && self.workdir == other.workdir
            && self.shell == other.shell
            && self.login == other.login
            && self.tty == other.tty
    }
}

/// Who starts or asks about a task, as the call's context says (never the model's
/// arguments): the principal the call is for, and the families its caller may use.
///
/// A task belongs to the principal that started it: to every other principal it does
/// not exist. Writing into it (TaskInput) also takes every family its starter held,
/// since the command runs with what they granted it (a shell started by a caller of
/// `local_environment` and `web` can reach the network).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskCaller {
    /// The principal ([`ToolContext::principal_id`]).
    pub principal: String,
    /// The families the caller may use.
    pub families: FamilyPolicy,
}

impl TaskCaller {
    /// The caller of a call made in `context`.
    pub fn of(context: &ToolContext) -> Self {
        Self {
            principal: context.principal_id().to_string(),
            families: context.policy(),
        }
    }

    /// Whether this caller may use every family of `families`.
    pub fn holds(&self, families: FamilyPolicy) -> bool {
        families
            .families()
            .all(|family| self.families.allows(family))
    }
}

/// A task as the task tools report it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct TaskInfo {
    /// The task's id, for TaskStatus, TaskOutput, TaskInput and TaskStop.
    pub task_id: String,
    /// `command` (pipes) or `terminal` (pseudo-terminal).
    pub kind: TaskKind,
    /// `running`, `completed`, `failed`, `stopped`, `timed_out` or `interrupted`.
    pub status: TaskState,
    /// The command line.
    pub cmd: String,
    /// The directory it runs in.
    pub workdir: String,
    /// The process id of its process group leader, while this runtime knows it.
    pub pid: Option<u32>,
    /// The exit status once it ended: the exit code, or 128 + the signal number.
    pub exit_status: Option<i32>,
    /// The signal that killed it, if one did.
    pub signal: Option<i32>,
    /// Whether TaskInput can write to it now.
    pub accepts_input: bool,
    /// Whether it became a background task (ExecCommand promoted it).
    pub background: bool,
    /// When it started, in milliseconds since the Unix epoch.
    pub started_at_unix_ms: u64,
    /// When it ended, in milliseconds since the Unix epoch.
    pub ended_at_unix_ms: Option<u64>,
    /// How long it ran (so far, while running), in milliseconds.
    pub duration_ms: u64,
    /// Bytes in its stdout log (for a terminal task, the terminal's output) so far.
    pub stdout_bytes: u64,
    /// Bytes in its stderr log so far (always 0 for a terminal task).
    pub stderr_bytes: u64,
    /// The log of its stdout (or terminal output) (past the log cap, 64 MiB by default, its first and last halves around a note of the cut).
    pub stdout_log: String,
    /// The log of its stderr, capped the same way; absent for a terminal task.
    pub stderr_log: Option<String>,
    /// Why it ended the way it did, when that is not plain from the exit status.
    pub reason: Option<String>,
    /// When the log retention removed its logs, in milliseconds since the Unix epoch;
    /// the record stays, the output is gone.
    pub logs_removed_at_unix_ms: Option<u64>,
}

/// A page of background tasks.
#[derive(Debug, Clone)]
pub struct TaskListing {
    /// The tasks, newest first.
    pub tasks: Vec<TaskInfo>,
    /// How many background tasks the store knows.
    pub total_count: u64,
    /// How many of them are running.
    pub running_count: u64,
}

/// Why a task operation failed.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    /// No task has this id.
    #[error("there is no task `{task_id}`")]
    UnknownTask {
        /// The id asked for.
        task_id: String,
    },
    /// The shell could not be started.
    #[error("cannot start `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// A log file or directory could not be created or read.
    #[error("failed while {doing}: {source}")]
    Io {
        /// What the manager was doing.
        doing: String,
        /// Why.
        source: std::io::Error,
    },
    /// The log retention removed the task's logs.
    #[error(
        "the logs of `{task_id}` were removed by the log retention (at {at_ms} ms since the Unix epoch)"
    )]
    LogsRemoved {
        /// The task.
        task_id: String,
        /// When, in milliseconds since the Unix epoch.
        at_ms: u64,
    },
    /// The store failed.
    #[error("{0}")]
    Store(StoreError),
    /// The process gate could not start the command or create its logs.
    #[error("{0}")]
    Launch(holon_gates::process::LaunchError),
}

impl From<holon_gates::process::LaunchError> for TaskError {
    fn from(error: holon_gates::process::LaunchError) -> Self {
        Self::Launch(error)
    }
}

impl From<StoreError> for TaskError {
    fn from(error: StoreError) -> Self {
        Self::Store(error)
    }
}

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitDetails {
    /// The exit code, when it exited.
    pub code: Option<i32>,
    /// The signal, when one killed it.
    pub signal: Option<i32>,
}

impl ExitDetails {
    /// The status a shell reports as `$?`: the exit code, or 128 + the signal number.
    pub fn exit_status(&self) -> i32 {
        self.code
            .unwrap_or_else(|| 128 + self.signal.unwrap_or_default())
    }
}
