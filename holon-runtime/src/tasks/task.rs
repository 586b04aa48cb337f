//! One live task: its process, the threads that pump its output to the logs and reap
//! it, and the state the tools observe and wait on.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::MasterPty;
use tokio::sync::watch;

use super::logs::{self, OutputPreview};
use super::process::{ProcessEvents, Spawned, Workers};
use super::{
    ExitDetails, LaunchSpec, OutputStream, TaskCaller, TaskError, TaskInfo, TaskKind, TaskState,
    lock, records,
};
use crate::Store;
use holon_gates::process::group::Member;
use holon_gates::process::{CappedLog, CommandCgroup, Launcher, LimitHit};

mod control;

pub use control::{KillOnDrop, STOP_GRACE};

/// Why a task ended by a runtime shutdown is interrupted.
const SHUTDOWN_REASON: &str = "killed: the runtime that ran it shut down";

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    u64::try_from(crate::clock::now_ms()).unwrap_or(0)
}

/// Why a task is being ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopCause {
    /// TaskStop asked for it.
    Requested,
    /// It outlived its time limit.
    TimedOut,
    /// The runtime is shutting down.
    Shutdown,
    /// The call that started it was cancelled (or dropped) before it handed the task
    /// over.
    Cancelled,
}

/// Who a task is.
pub(super) struct Identity {
    pub(super) row: i64,
    pub(super) id: String,
    pub(super) kind: TaskKind,
    pub(super) spec: LaunchSpec,
    pub(super) started_at_ms: u64,
    pub(super) started_by: TaskCaller,
}

/// Where a task's output goes.
pub(super) struct Logs {
    pub(super) stdout: PathBuf,
    pub(super) stderr: Option<PathBuf>,
}

struct Live {
    state: TaskState,
    exit: Option<ExitDetails>,
    stop: Option<StopCause>,
    open_streams: usize,
    /// The processes the leader left in its group when it exited.
    leftovers: Vec<Member>,
    /// Whether the ending is in the store (the task can be read from there).
    recorded: bool,
    ended_at_ms: Option<u64>,
    ran_for: Option<Duration>,
    reason: Option<String>,
    /// The cap of its cgroup it ran into, read when the leader was reaped.
    limit_hit: Option<LimitHit>,
}

/// A task this runtime started.
pub struct Task {
    identity: Identity,
    logs: Logs,
    pid: u32,
    started: Instant,
    background: AtomicBool,
    live: Mutex<Live>,
    changed: watch::Sender<u64>,
    input: Mutex<Option<Box<dyn Write + Send>>>,
    /// The terminal's master side, kept open while the process runs.
    terminal: Mutex<Option<Box<dyn MasterPty + Send>>>,
    /// Its cgroup, where commands get one: what is left in it is killed, and it is
    /// removed, when the task is dropped.
    cgroup: Option<CommandCgroup>,
}

impl Task {
    /// Wraps a spawned process and hands its streams to the pumps and the process to
    /// the reaper, threads started before it.
    pub(super) fn start(
        identity: Identity,
        logs: Logs,
        files: Vec<CappedLog>,
        spawned: Spawned,
        workers: Workers,
        store: Arc<Store>,
    ) -> Arc<Self> {
        let Spawned {
            child,
            pid,
            outputs,
            input,
            terminal,
            cgroup,
        } = spawned;
        let task = Arc::new(Self {
            identity,
            logs,
            pid,
            started: Instant::now(),
            background: AtomicBool::new(false),
            live: Mutex::new(Live {
                state: TaskState::Running,
                exit: None,
                stop: None,
                open_streams: outputs.len(),
                leftovers: Vec::new(),
                recorded: false,
                ended_at_ms: None,
                ran_for: None,
                reason: None,
                limit_hit: None,
            }),
            changed: watch::channel(0).0,
            input: Mutex::new(input),
            terminal: Mutex::new(terminal),
            cgroup,
        });
        // A worker only goes away by receiving its job, so these sends succeed.
        for ((output, file), pump) in outputs.into_iter().zip(files).zip(workers.pumps) {
            let _ = pump.send((output, file, Arc::clone(&task) as Arc<dyn ProcessEvents>));
        }
        let _ = workers
            .reaper
            .send((child, Arc::clone(&task) as Arc<dyn ProcessEvents>, store));
        task
    }

    /// The task's id.
    pub fn id(&self) -> &str {
        &self.identity.id
    }

    pub(super) fn row(&self) -> i64 {
        self.identity.row
    }

    /// How its process is attached.
    pub fn kind(&self) -> TaskKind {
        self.identity.kind
    }

    /// What it runs.
    pub fn spec(&self) -> &LaunchSpec {
        &self.identity.spec
    }

    /// Who started it: the principal it belongs to, and the families its caller held.
    pub fn started_by(&self) -> &TaskCaller {
        &self.identity.started_by
    }

    /// Whether `caller` is the principal that started it.
    pub(super) fn belongs_to(&self, caller: &TaskCaller) -> bool {
        self.identity.started_by.principal == caller.principal
    }

    /// The process id of its leader (also its process group id).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Where it is in its life.
    pub fn state(&self) -> TaskState {
        lock(&self.live).state
    }

    /// How its process ended, once it did.
    pub fn exit(&self) -> Option<ExitDetails> {
        lock(&self.live).exit
    }

    /// The cap of its cgroup it ran into, once it ended.
    pub fn limit_hit(&self) -> Option<LimitHit> {
        lock(&self.live).limit_hit
    }

    /// Its cgroup, where commands get one.
    pub(super) fn cgroup(&self) -> Option<&CommandCgroup> {
        self.cgroup.as_ref()
    }

    /// How long it ran, or has been running.
    pub fn elapsed(&self) -> Duration {
        lock(&self.live)
            .ran_for
            .unwrap_or_else(|| self.started.elapsed())
    }

    /// The log of its stdout (or terminal output), capped by the process gate.
    pub fn stdout_log(&self) -> &std::path::Path {
        &self.logs.stdout
    }

    /// The log of its stderr, capped the same way; none for a terminal task.
    pub fn stderr_log(&self) -> Option<&std::path::Path> {
        self.logs.stderr.as_deref()
    }

    /// Up to `len` bytes of the log of `stream` from byte `start` on; empty past its
    /// end, and for the stderr of a terminal task.
    pub fn read_output(&self, stream: OutputStream, start: u64, len: usize) -> Vec<u8> {
        let log = match stream {
            OutputStream::Stdout => Some(self.logs.stdout.as_path()),
            OutputStream::Stderr => self.logs.stderr.as_deref(),
        };
        log.map_or_else(Vec::new, |path| {
            holon_gates::process::read_log(path, start, len)
        })
    }

    pub(super) fn mark_background(&self) {
        self.background.store(true, Ordering::Relaxed);
    }

    /// Its current state as the task tools report it.
    pub fn info(&self) -> TaskInfo {
        let live = lock(&self.live);
        let accepts_input = self.identity.spec.accepts_input && live.exit.is_none();
        TaskInfo {
            task_id: self.identity.id.clone(),
            kind: self.identity.kind,
            status: live.state,
            cmd: self.identity.spec.cmd.clone(),
            workdir: self.identity.spec.workdir.path().display().to_string(),
            pid: Some(self.pid),
            exit_status: live.exit.map(|exit| exit.exit_status()),
            signal: live.exit.and_then(|exit| exit.signal),
            accepts_input,
            background: self.background.load(Ordering::Relaxed),
            started_at_unix_ms: self.identity.started_at_ms,
            ended_at_unix_ms: live.ended_at_ms,
            duration_ms: millis(live.ran_for.unwrap_or_else(|| self.started.elapsed())),
            stdout_bytes: holon_gates::process::log_len(&self.logs.stdout),
            stderr_bytes: self
                .logs
                .stderr
                .as_deref()
                .map_or(0, holon_gates::process::log_len),
            stdout_log: self.logs.stdout.display().to_string(),
            stderr_log: self.logs.stderr.as_ref().map(|p| p.display().to_string()),
            logs_removed_at_unix_ms: None,
            reason: live.reason.clone(),
        }
    }

    /// Its whole output so far, cut to `budget_bytes` (head and tail kept).
    pub fn preview(&self, budget_bytes: usize) -> OutputPreview {
        let stdout = logs::Window::new(&self.logs.stdout, 0);
        let stderr = self
            .logs
            .stderr
            .as_deref()
            .map(|path| logs::Window::new(path, 0));
        logs::preview(&stdout, stderr.as_ref(), budget_bytes)
    }

    fn bump(&self) {
        self.changed
            .send_modify(|version| *version = version.wrapping_add(1));
    }
}

/// Creates a task's log files (stdout, then stderr when it has one), capped by the
/// launcher.
pub(super) fn open_logs(launcher: &Launcher, logs: &Logs) -> Result<Vec<CappedLog>, TaskError> {
    std::iter::once((&logs.stdout, "stdout"))
        .chain(logs.stderr.as_ref().map(|path| (path, "stderr")))
        .map(|(path, stream)| Ok(launcher.create_log(path, stream)?))
        .collect()
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The pump and reaper threads report to the task they belong to.
impl ProcessEvents for Task {
    /// Called by a pump after each chunk of output.
    fn on_output(&self) {
        self.bump();
    }

    /// Called by a pump when its stream ends.
    fn on_stream_closed(&self) {
        {
            let mut live = lock(&self.live);
            live.open_streams = live.open_streams.saturating_sub(1);
        }
        self.bump();
    }

    /// Called by the reaper when the leader has exited, before it is reaped: what it
    /// left running in its group.
    fn on_leader_exited(&self, leftovers: Vec<Member>) {
        lock(&self.live).leftovers = leftovers;
    }

    /// Called by the reaper once the process is reaped.
    fn finish(&self, exit: ExitDetails, store: &Store) {
        let ended_at_ms = now_ms();
        let limit = self
            .cgroup
            .as_ref()
            .and_then(|cgroup| Some((cgroup.limit_hit()?, cgroup.caps())));
        let (state, reason) = {
            let mut live = lock(&self.live);
            let (state, reason) = match live.stop {
                Some(StopCause::Requested) => (
                    TaskState::Stopped,
                    Some("stopped by TaskStop (its process group was signalled)".to_string()),
                ),
                Some(StopCause::TimedOut) => (
                    TaskState::TimedOut,
                    Some("killed: it outlived its time limit".to_string()),
                ),
                Some(StopCause::Cancelled) => (
                    TaskState::Stopped,
                    Some(
                        "killed: the call that started it was cancelled before it finished"
                            .to_string(),
                    ),
                ),
                Some(StopCause::Shutdown) => {
                    (TaskState::Interrupted, Some(SHUTDOWN_REASON.to_string()))
                }
                None if exit.code == Some(0) => (
                    TaskState::Completed,
                    limit.map(|(hit, caps)| hit.explain(caps)),
                ),
                None => (
                    TaskState::Failed,
                    limit.map(|(hit, caps)| hit.explain(caps)).or_else(|| {
                        exit.signal
                            .map(|signal| format!("killed by signal {signal}"))
                    }),
                ),
            };
            live.limit_hit = limit.map(|(hit, _)| hit);
            live.state = state;
            live.exit = Some(exit);
            live.ended_at_ms = Some(ended_at_ms);
            live.ran_for = Some(self.started.elapsed());
            live.reason.clone_from(&reason);
            (state, reason)
        };
        // Input to a process that is gone has nowhere to go. A writer blocked on a pipe
        // a grandchild still holds keeps the lock; it is dropped with the task then.
        if let Ok(mut input) = self.input.try_lock() {
            input.take();
        }
        if let Ok(mut terminal) = self.terminal.try_lock() {
            terminal.take();
        }
        let record = records::Ending {
            state,
            exit,
            ended_at_ms,
            reason: reason.as_deref(),
        };
        if let Err(error) = records::finish(store, self.identity.row, &record) {
            tracing::warn!(task = %self.identity.id, %error, "the task's end was not recorded");
        }
        lock(&self.live).recorded = true;
        // Nothing of the command left: its cgroup goes now (else when the task does).
        if let Some(cgroup) = &self.cgroup {
            cgroup.remove_if_empty();
        }
        self.bump();
    }
}
