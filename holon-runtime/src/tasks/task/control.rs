//! Waiting on a task, writing to it, and ending it.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use super::{ExitDetails, SHUTDOWN_REASON, StopCause, Task, now_ms};
use crate::Store;
use crate::tasks::process::{self, Signal};
use crate::tasks::{TaskKind, TaskState, lock, records};
use holon_gates::process::group;

/// How long a stopped task's process group gets to exit after SIGTERM before SIGKILL.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// How long to wait, after SIGKILL, for the process to be reaped.
const KILL_WAIT: Duration = Duration::from_secs(10);

impl Task {
    /// A receiver that sees every change: new output, a closed stream, the exit.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Waits until `ready` holds or `timeout` passes; whether it holds.
    async fn wait_for(&self, timeout: Duration, ready: impl Fn(&Self) -> bool) -> bool {
        let mut changes = self.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if ready(self) {
                return true;
            }
            match tokio::time::timeout_at(deadline, changes.changed()).await {
                Ok(Ok(())) => {}
                // The sender lives as long as the task: only the deadline ends the wait.
                Ok(Err(_)) | Err(_) => return ready(self),
            }
        }
    }

    /// Waits up to `timeout` for the process to exit (and be reaped); whether it did.
    pub async fn wait_exit(&self, timeout: Duration) -> bool {
        self.wait_for(timeout, |task| task.exit().is_some()).await
    }

    /// Waits up to `timeout` for every output stream to reach its end (a background
    /// child may keep a stream open after the leader exits); whether they did.
    pub async fn wait_drained(&self, timeout: Duration) -> bool {
        self.wait_for(timeout, |task| lock(&task.live).open_streams == 0)
            .await
    }

    /// Waits up to `timeout` for the process to exit or for its output to grow past
    /// `seen` (stdout bytes, stderr bytes).
    pub async fn wait_progress(&self, timeout: Duration, seen: (u64, u64)) -> bool {
        self.wait_for(timeout, |task| {
            let info = task.info();
            info.status != TaskState::Running
                || info.stdout_bytes > seen.0
                || info.stderr_bytes > seen.1
        })
        .await
    }

    /// Writes `bytes` to the task's stdin (or terminal), then closes stdin when
    /// `close` is set. Blocks while the process does not read: call it off the async
    /// threads.
    pub fn write_input(&self, bytes: &[u8], close: bool) -> std::io::Result<()> {
        let mut input = lock(&self.input);
        let Some(writer) = input.as_mut() else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "the task's input is closed",
            ));
        };
        writer.write_all(bytes)?;
        writer.flush()?;
        if close {
            if self.identity.kind == TaskKind::Terminal {
                // A terminal has no end of input; ^D at the start of a line is the
                // convention programs read as one.
                writer.write_all(b"\x04")?;
                writer.flush()?;
            } else {
                *input = None;
            }
        }
        Ok(())
    }

    /// Ends the task's whole process group: SIGTERM (SIGKILL at once for a timeout),
    /// SIGKILL after [`STOP_GRACE`] if it is still alive, then SIGKILL again for any
    /// member that outlived the leader. Returns once the leader is reaped; whether the
    /// task was running.
    pub async fn stop(&self, cause: StopCause) -> bool {
        {
            let mut live = lock(&self.live);
            if live.exit.is_some() {
                return false;
            }
            live.stop.get_or_insert(cause);
        }
        let first = match cause {
            StopCause::Requested => Signal::Term,
            StopCause::TimedOut | StopCause::Shutdown | StopCause::Cancelled => Signal::Kill,
        };
        process::signal_group(self.pid, first);
        if !self.wait_exit(STOP_GRACE).await {
            process::signal_group(self.pid, Signal::Kill);
            self.wait_exit(KILL_WAIT).await;
        }
        process::signal_group(self.pid, Signal::Kill);
        // What left the group (`setsid`) is still in the command's cgroup.
        if let Some(cgroup) = self.cgroup() {
            cgroup.kill_all();
        }
        true
    }

    /// Whether the process was reaped, its ending stored, and every output stream
    /// reached its end: the task will not change any more, and the store has it.
    pub(in crate::tasks) fn settled(&self) -> bool {
        let live = lock(&self.live);
        live.recorded && live.open_streams == 0
    }

    /// Whether the leader has ended but processes it started (background jobs of the
    /// shell) still run: holding its output open, or still in the command's cgroup
    /// (the kernel's count, a job that left the process group included), or, without
    /// a cgroup, among the members of its process group recorded when it exited.
    pub fn has_leftovers(&self) -> bool {
        let leftovers = {
            let live = lock(&self.live);
            if live.exit.is_none() {
                return false;
            }
            if live.open_streams > 0 {
                return true;
            }
            live.leftovers.clone()
        };
        match self.cgroup() {
            Some(cgroup) => !cgroup.is_empty(),
            None => group::still_running(self.pid, &leftovers),
        }
    }

    /// Kills what the ended leader left running in its process group; whether there
    /// was something to kill.
    pub async fn kill_leftovers(&self) -> bool {
        if !self.has_leftovers() {
            return false;
        }
        process::signal_group(self.pid, Signal::Kill);
        if let Some(cgroup) = self.cgroup() {
            cgroup.kill_all();
        }
        self.wait_drained(KILL_WAIT).await;
        let leftovers = lock(&self.live).leftovers.clone();
        let deadline = tokio::time::Instant::now() + KILL_WAIT;
        while self.has_leftovers_of(&leftovers) && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        true
    }

    /// Kills the process group at once, without waiting (the reaper records the end):
    /// the call waiting on the task gave up on it before handing it over. A task whose
    /// leader ended has its leftovers killed.
    fn abandon(&self) {
        let running = {
            let mut live = lock(&self.live);
            let running = live.exit.is_none();
            if running {
                live.stop.get_or_insert(StopCause::Cancelled);
            }
            running
        };
        if running || self.has_leftovers() {
            process::signal_group(self.pid, Signal::Kill);
            self.signal_cgroup();
        }
    }

    /// Whether processes of the command are still there: in its cgroup, or else
    /// among `recorded` in its group.
    fn has_leftovers_of(&self, recorded: &[group::Member]) -> bool {
        match self.cgroup() {
            Some(cgroup) => !cgroup.is_empty(),
            None => group::still_running(self.pid, recorded),
        }
    }

    /// Sends SIGKILL once to every process in its cgroup, without waiting.
    fn signal_cgroup(&self) {
        if let Some(cgroup) = self.cgroup() {
            cgroup.signal_all();
        }
    }

    /// Kills the process group without waiting and records the task as interrupted
    /// (the reaper may not get to run before the program exits). A task whose leader
    /// ended has its leftovers killed.
    pub(in crate::tasks) fn shut_down(&self, store: &Store) {
        let ended = {
            let mut live = lock(&self.live);
            if live.exit.is_none() {
                live.stop.get_or_insert(StopCause::Shutdown);
            }
            live.exit.is_some()
        };
        if ended {
            if self.has_leftovers() {
                process::signal_group(self.pid, Signal::Kill);
                self.signal_cgroup();
            }
            return;
        }
        process::signal_group(self.pid, Signal::Kill);
        self.signal_cgroup();
        let record = records::Ending {
            state: TaskState::Interrupted,
            exit: ExitDetails {
                code: None,
                signal: Some(process::SIGKILL),
            },
            ended_at_ms: now_ms(),
            reason: Some(SHUTDOWN_REASON),
        };
        if let Err(error) = records::finish(store, self.identity.row, &record) {
            tracing::warn!(task = %self.identity.id, %error, "the task's end at shutdown was not recorded");
        }
    }
}

/// Kills a task's whole process group when dropped, unless disarmed. A call holds one
/// while it waits on a task it started: a call that is cancelled, times out or is
/// dropped before it hands the task over (as its result, or as a background task)
/// leaves nothing running.
pub struct KillOnDrop(Option<Arc<Task>>);

impl KillOnDrop {
    /// Arms the guard for `task`.
    pub fn new(task: &Arc<Task>) -> Self {
        Self(Some(Arc::clone(task)))
    }

    /// The call handed the task over: it is no longer the guard's to kill.
    pub fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(task) = self.0.take() {
            task.abandon();
        }
    }
}
