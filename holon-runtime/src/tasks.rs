//! Commands as tasks. Every command that ExecCommand or ExecCommandBatch starts is a
//! [`Task`] of the runtime's [`TaskManager`]: a real child process in its own process
//! group (or session, under a pseudo-terminal), whose output streams to log files under
//! `<state dir>/tasks/<task id>/` while only a bounded preview is ever held in memory.
//!
//! A task belongs to the principal whose call started it ([`TaskCaller`]): every
//! lookup names its caller, and a task of another principal is answered exactly as a
//! task that does not exist, so that ids cannot be probed. A task recorded by a
//! runtime older than this rule has no principal and belongs to nobody: no caller is
//! shown it (its record and logs stay for the operator), because who started it is not
//! known and any guess could hand it to someone else.
//!
//! Task state lives in the store. A task whose runtime is gone is never reported as
//! running: opening a runtime marks every task the store still lists as running by a
//! process that no longer exists as `interrupted` (a crashed runtime lost its
//! children), and dropping a runtime kills the process groups of its running tasks and
//! marks them the same way.

mod logs;
mod process;
mod records;
mod task;
mod types;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

pub use logs::OutputPreview;
pub use task::{KillOnDrop, STOP_GRACE, StopCause, Task};
pub use types::{
    ExitDetails, LaunchSpec, OutputStream, TaskCaller, TaskError, TaskInfo, TaskKind, TaskListing,
    TaskState,
};

use super::{RuntimeError, Store, StoreError};
use holon_gates::process::{Launcher, LauncherConfig, LeftCgroup, create_log_dir, remove_log_dir};
use records::StoredTask;

/// How long TaskStop waits, after SIGKILL, for a lost runtime's task to be gone.
const ORPHAN_KILL_WAIT: Duration = Duration::from_secs(10);

/// The folder under the state directory (or the scratch directory) holding task logs.
pub const TASKS_DIR_NAME: &str = "tasks";

/// The runtime's tasks: the live ones it started, and the store's record of all.
pub struct TaskManager {
    store: Arc<Store>,
    launcher: Launcher,
    logs_root: PathBuf,
    /// Holds the logs of an in-memory runtime; removed with it.
    _scratch: Option<tempfile::TempDir>,
    /// The private temporary directory of the commands; removed with the runtime.
    _command_tmp: tempfile::TempDir,
    live: Mutex<HashMap<i64, Arc<Task>>>,
    /// How far TaskOutput has read each task's (stdout, stderr).
    cursors: Mutex<HashMap<i64, (u64, u64)>>,
}

impl TaskManager {
    /// Opens the manager: logs under `<state_dir>/tasks/` (a scratch directory when the
    /// state is in memory), every task the store lists as running by a process that is
    /// gone is marked `interrupted`, and the logs of tasks that ended longer than
    /// `log_retention` ago are removed (their records stay). Commands are started
    /// by the process gate configured by `launcher`.
    pub fn open(
        store: Arc<Store>,
        state_dir: Option<&Path>,
        log_retention: Option<Duration>,
        launcher: LauncherConfig,
    ) -> Result<Self, RuntimeError> {
        let (scratch, base) = match state_dir {
            Some(dir) => (None, dir.to_path_buf()),
            None => {
                let scratch = tempfile::Builder::new()
                    .prefix("holon-tasks-")
                    .tempdir()
                    .map_err(|source| RuntimeError::StateDir {
                        path: std::env::temp_dir(),
                        source,
                    })?;
                let base = scratch.path().to_path_buf();
                (Some(scratch), base)
            }
        };
        let logs_root = base.join(TASKS_DIR_NAME);
        create_log_dir(&logs_root).map_err(|source| RuntimeError::StateDir {
            path: logs_root.clone(),
            source,
        })?;
        let command_tmp = tempfile::Builder::new()
            .prefix("holon-command-tmp-")
            .tempdir()
            .map_err(|source| RuntimeError::StateDir {
                path: std::env::temp_dir(),
                source,
            })?;
        // Before the sweep of dead runtimes' cgroups (in `with_cgroups`): a task whose
        // process group ended is no longer running, so its leftover jobs are swept.
        records::interrupt_lost(&store, task::now_ms()).map_err(RuntimeError::Store)?;
        if let Some(retention) = log_retention {
            remove_old_logs(&store, &logs_root, retention).map_err(RuntimeError::Store)?;
        }
        let launcher = Launcher::new(launcher)
            .map_err(RuntimeError::Commands)?
            .with_tmp_dir(command_tmp.path().to_path_buf())
            .with_cgroups(&|dir| left_cgroup(&store, dir));
        Ok(Self {
            store,
            launcher,
            logs_root,
            _scratch: scratch,
            _command_tmp: command_tmp,
            live: Mutex::new(HashMap::new()),
            cursors: Mutex::new(HashMap::new()),
        })
    }

    /// The process gate the tasks are started through.
    pub fn launcher(&self) -> &Launcher {
        &self.launcher
    }

    /// The folder holding one sub-folder of logs per task.
    pub fn logs_root(&self) -> &Path {
        &self.logs_root
    }

    /// Starts `spec` as a new task of `caller` (not yet a background one).
    pub fn launch(&self, spec: LaunchSpec, caller: &TaskCaller) -> Result<Arc<Task>, TaskError> {
        let kind = if spec.tty {
            TaskKind::Terminal
        } else {
            TaskKind::Command
        };
        let started_at_ms = task::now_ms();
        let row = records::insert(&self.store, &spec, kind, caller, started_at_ms)?;
        match self.start(row, kind, spec, caller.clone(), started_at_ms) {
            Ok(task) => {
                let mut live = lock(&self.live);
                // Settled tasks are read from the store from now on; one whose ended
                // leader left processes in its group stays, for TaskStop and the
                // shutdown to end them.
                live.retain(|_, task| !task.settled() || task.has_leftovers());
                live.insert(row, Arc::clone(&task));
                Ok(task)
            }
            Err(error) => {
                // The task never ran: it leaves no record behind.
                let _ = records::delete(&self.store, row);
                Err(error)
            }
        }
    }

    fn start(
        &self,
        row: i64,
        kind: TaskKind,
        spec: LaunchSpec,
        started_by: TaskCaller,
        started_at_ms: u64,
    ) -> Result<Arc<Task>, TaskError> {
        let dir = self.logs_root.join(task_id(row));
        create_log_dir(&dir).map_err(|source| TaskError::Io {
            doing: format!("creating the log folder {}", dir.display()),
            source,
        })?;
        let logs = task::Logs {
            stdout: dir.join("stdout.log"),
            stderr: (kind == TaskKind::Command).then(|| dir.join("stderr.log")),
        };
        let files = task::open_logs(&self.launcher, &logs)?;
        let workers = process::workers(files.len())?;
        let cgroup = self
            .launcher
            .command_cgroup()
            .map_err(|source| TaskError::Io {
                doing: "creating the command's cgroup".to_string(),
                source,
            })?;
        // Before the command starts, so that no process of it is in a cgroup the next
        // runtime cannot tell apart (a running background task's is spared).
        if let Some(cgroup) = &cgroup {
            records::set_cgroups(&self.store, row, &cgroup.dirs())?;
        }
        let spawned = process::spawn(&self.launcher, &spec, cgroup)?;
        // The start time tells the leader from a later process with its pid, for a
        // runtime that finds the task again after this one was lost.
        let started = holon_gates::process::group::start_time(spawned.pid);
        if let Err(error) = records::set_pid(&self.store, row, spawned.pid, started) {
            // The pid is a convenience of the record; the task runs without it.
            tracing::warn!(task = %task_id(row), %error, "the task's pid was not recorded");
        }
        Ok(task::Task::start(
            task::Identity {
                row,
                id: task_id(row),
                kind,
                spec,
                started_at_ms,
                started_by,
            },
            logs,
            files,
            spawned,
            workers,
            Arc::clone(&self.store),
        ))
    }

    /// A running task of `caller` this runtime started with the same command, shell,
    /// workdir and terminal mode as `spec`.
    pub fn find_running(&self, spec: &LaunchSpec, caller: &TaskCaller) -> Option<Arc<Task>> {
        lock(&self.live)
            .values()
            .filter(|task| {
                task.belongs_to(caller)
                    && task.state() == TaskState::Running
                    && task.spec().same_command(spec)
            })
            .min_by_key(|task| task.row())
            .cloned()
    }

    /// The ids of this runtime's tasks that still have processes (running, or whose
    /// ended leader left some in its group): what ends when the runtime goes away.
    pub fn live_ids(&self) -> Vec<String> {
        let mut live: Vec<_> = lock(&self.live)
            .values()
            .filter(|task| task.state() == TaskState::Running || task.has_leftovers())
            .map(|task| (task.row(), task.id().to_string()))
            .collect();
        live.sort();
        live.into_iter().map(|(_, id)| id).collect()
    }

    /// The live task with this id, if this runtime started it for `caller`'s principal.
    pub fn live_task(&self, task_id: &str, caller: &TaskCaller) -> Option<Arc<Task>> {
        let row = parse_task_id(task_id)?;
        lock(&self.live)
            .get(&row)
            .filter(|task| task.belongs_to(caller))
            .cloned()
    }

    /// Marks `task` a background task: it is listed by ListTasks from now on.
    pub fn promote(&self, task: &Task) -> Result<(), TaskError> {
        task.mark_background();
        Ok(records::set_background(&self.store, task.row())?)
    }

    /// What is known of `caller`'s task `task_id`: live state when this runtime runs
    /// it, else the store's record. Another principal's task is
    /// [`TaskError::UnknownTask`], as one that does not exist is.
    pub fn info(&self, task_id: &str, caller: &TaskCaller) -> Result<TaskInfo, TaskError> {
        if let Some(task) = self.live_task(task_id, caller) {
            return Ok(task.info());
        }
        Ok(self.stored(task_id, caller)?.info(&self.logs_root))
    }

    /// The store's record of `caller`'s task `task_id`.
    fn stored(&self, task_id: &str, caller: &TaskCaller) -> Result<StoredTask, TaskError> {
        let unknown = || TaskError::UnknownTask {
            task_id: task_id.to_string(),
        };
        let row = parse_task_id(task_id).ok_or_else(unknown)?;
        let task = records::load(&self.store, row)?
            .filter(|task| task.belongs_to(caller))
            .ok_or_else(unknown)?;
        if task.orphaned() && !task.group_alive() {
            records::mark_lost(
                &self.store,
                row,
                task::now_ms(),
                records::ORPHAN_ENDED_REASON,
            )?;
            return records::load(&self.store, row)?
                .filter(|task| task.belongs_to(caller))
                .ok_or_else(unknown);
        }
        Ok(task)
    }

    /// Stops `caller`'s task a lost runtime started whose process group still runs:
    /// SIGTERM to the group, SIGKILL after [`STOP_GRACE`], and the task is recorded
    /// `stopped`. `None` when `task_id` is not such a task (it ended, or a runtime
    /// still open runs it).
    pub async fn stop_orphan(
        &self,
        task_id: &str,
        caller: &TaskCaller,
    ) -> Result<Option<TaskInfo>, TaskError> {
        let task = self.stored(task_id, caller)?;
        let Some(pgid) = task.pid().filter(|_| task.orphaned() && task.group_alive()) else {
            return Ok(None);
        };
        let gone_within = async |limit: Duration| {
            let deadline = tokio::time::Instant::now() + limit;
            while task.group_alive() && tokio::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            !task.group_alive()
        };
        process::signal_group(pgid, process::Signal::Term);
        if !gone_within(STOP_GRACE).await {
            process::signal_group(pgid, process::Signal::Kill);
            gone_within(ORPHAN_KILL_WAIT).await;
        }
        // What left the group (`setsid`, a double fork) is still in its cgroup.
        // Off the async threads: it waits for the kernel to empty the cgroup.
        for dir in records::cgroups(&self.store, task.row)? {
            let _ = tokio::task::spawn_blocking(move || {
                holon_gates::process::cgroup::end_left_command(&dir)
            })
            .await;
        }
        let ending = records::Ending {
            state: TaskState::Stopped,
            exit: ExitDetails {
                code: None,
                signal: None,
            },
            ended_at_ms: task::now_ms(),
            reason: Some(
                "stopped by TaskStop after the runtime that started it was lost (its process group was signalled)",
            ),
        };
        records::finish(&self.store, task.row, &ending)?;
        Ok(Some(self.stored(task_id, caller)?.info(&self.logs_root)))
    }

    /// The newest `limit` background tasks of `caller`'s principal.
    pub fn list(&self, limit: usize, caller: &TaskCaller) -> Result<TaskListing, TaskError> {
        // Tasks of a lost runtime whose processes have ended since are not running.
        records::interrupt_lost(&self.store, task::now_ms())?;
        let (stored, total_count, running_count) =
            records::list_background(&self.store, &caller.principal, limit)?;
        let live = lock(&self.live);
        let tasks = stored
            .into_iter()
            .map(|record| match live.get(&record.row) {
                Some(task) => task.info(),
                None => record.info(&self.logs_root),
            })
            .collect();
        Ok(TaskListing {
            tasks,
            total_count,
            running_count,
        })
    }

    /// The output `caller`'s task `task_id` wrote since the previous call (from the
    /// start on the first call), cut to `budget_bytes`; advances the read position
    /// past it.
    pub fn take_new_output(
        &self,
        task_id: &str,
        caller: &TaskCaller,
        budget_bytes: usize,
    ) -> Result<OutputPreview, TaskError> {
        let info = self.info(task_id, caller)?;
        if let Some(at_ms) = info.logs_removed_at_unix_ms {
            return Err(TaskError::LogsRemoved {
                task_id: info.task_id,
                at_ms,
            });
        }
        let row = parse_task_id(task_id).unwrap_or_default();
        let mut cursors = lock(&self.cursors);
        let cursor = cursors.entry(row).or_insert((0, 0));
        let stdout = logs::Window::new(Path::new(&info.stdout_log), cursor.0);
        let stderr = info
            .stderr_log
            .as_deref()
            .map(|path| logs::Window::new(Path::new(path), cursor.1));
        let preview = logs::preview(&stdout, stderr.as_ref(), budget_bytes);
        *cursor = (stdout.end, stderr.map_or(0, |window| window.end));
        Ok(preview)
    }

    /// Whether `task_id` wrote output TaskOutput has not returned yet.
    pub fn has_new_output(&self, info: &TaskInfo) -> bool {
        let row = parse_task_id(&info.task_id).unwrap_or_default();
        let (stdout, stderr) = lock(&self.cursors).get(&row).copied().unwrap_or((0, 0));
        info.stdout_bytes > stdout || info.stderr_bytes > stderr
    }
}

impl Drop for TaskManager {
    /// Kills the process group of every task still running (or whose ended leader left
    /// processes behind): a runtime that goes away leaves no process behind, and the
    /// store says `interrupted`.
    fn drop(&mut self) {
        for task in lock(&self.live).values() {
            task.shut_down(&self.store);
        }
    }
}

/// What `store` says of the command cgroup `dir` that a runtime that is gone left
/// (see [`LeftCgroup`]); [`LeftCgroup::Unknown`] when the store cannot be read, so
/// that nothing is ended on a guess.
pub fn left_cgroup(store: &Store, dir: &Path) -> LeftCgroup {
    records::left_cgroup(store, dir).unwrap_or(LeftCgroup::Unknown)
}

/// Removes the log folders of tasks that ended more than `retention` ago. A folder
/// that cannot be removed is left for the next start; the operator sees why.
fn remove_old_logs(store: &Store, logs_root: &Path, retention: Duration) -> Result<(), StoreError> {
    let now = task::now_ms();
    let cutoff = now.saturating_sub(u64::try_from(retention.as_millis()).unwrap_or(u64::MAX));
    for row in records::ended_before(store, cutoff)? {
        let dir = logs_root.join(task_id(row));
        match remove_log_dir(&dir) {
            Ok(()) => {}
            Err(error) => {
                tracing::warn!(dir = %dir.display(), %error, "cannot remove a task's old logs");
                continue;
            }
        }
        records::mark_logs_removed(store, row, now)?;
    }
    Ok(())
}

/// The id of the task in store row `row`.
fn task_id(row: i64) -> String {
    format!("task-{row}")
}

fn parse_task_id(task_id: &str) -> Option<i64> {
    task_id
        .strip_prefix("task-")
        .and_then(|n| n.parse::<i64>().ok())
        .filter(|n| *n > 0)
}

/// Locks a mutex, recovering from poisoning: the maps hold no invariant a panic breaks.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::migrations::MIGRATIONS;
    use holon_core::FamilyPolicy;

    /// The last schema before tasks recorded who started them.
    const BEFORE_OWNERS: i64 = 12;

    #[test]
    fn a_task_an_older_runtime_recorded_belongs_to_no_principal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.sqlite3");
        {
            let connection = rusqlite::Connection::open(&path).unwrap();
            for migration in MIGRATIONS.iter().filter(|m| m.version <= BEFORE_OWNERS) {
                connection.execute_batch(migration.sql).unwrap();
            }
            connection
                .pragma_update(None, "user_version", BEFORE_OWNERS)
                .unwrap();
            connection
                .execute(
                    "INSERT INTO tasks (kind, state, cmd, workdir, shell, login, accepts_input,
                       background, owner_pid, started_at_ms, ended_at_ms, exit_code)
                     VALUES ('command', 'completed', 'echo old', '/', 'sh', 0, 0, 1, 1, 1, 2, 0)",
                    [],
                )
                .unwrap();
        }
        let store = Arc::new(Store::open(&path).unwrap());
        let manager =
            TaskManager::open(store, Some(dir.path()), None, LauncherConfig::default()).unwrap();
        // Whoever asks: the runtime's own agent, an authenticated principal, or a
        // context with neither.
        for principal in ["root", "alice", ""] {
            let caller = TaskCaller {
                principal: principal.to_string(),
                families: FamilyPolicy::all(),
            };
            let listing = manager.list(20, &caller).unwrap();
            assert!(listing.tasks.is_empty(), "{principal:?}: {listing:?}");
            assert_eq!(listing.total_count, 0, "{principal:?}");
            assert!(
                matches!(
                    manager.info("task-1", &caller),
                    Err(TaskError::UnknownTask { .. })
                ),
                "{principal:?}"
            );
        }
    }
}
