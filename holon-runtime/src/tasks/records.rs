//! The `tasks` table: one row per command started, written when it starts and when it
//! ends, so that a later runtime knows what happened to it.

use std::path::{Path, PathBuf};

use rusqlite::{OptionalExtension, Row, params};

use super::ExitDetails;
use super::{LaunchSpec, TaskCaller, TaskInfo, TaskKind, TaskState, task_id};
use crate::{Store, StoreError};
use holon_gates::process::LeftCgroup;

const COLUMNS: &str = "id, kind, state, cmd, workdir, background, pid, exit_code, signal, reason, started_at_ms, ended_at_ms, logs_removed_at_ms, owner_pid, leader_started, principal";

/// Why a task reported running by the store is not, when a runtime opens.
const LOST_REASON: &str = "the runtime that ran it stopped before it ended; its process is gone";

/// Why a task of a lost runtime is still reported running.
const ORPHAN_REASON: &str = "the runtime that started it was lost (killed or crashed), but its process group still runs; TaskStop ends it";

/// Why a task of a lost runtime ended without anyone seeing how.
pub(super) const ORPHAN_ENDED_REASON: &str = "the runtime that started it was lost, and its process group has ended since; how it ended is not known";

fn sqlite(doing: &'static str) -> impl FnOnce(rusqlite::Error) -> StoreError {
    move |source| StoreError::Sqlite {
        doing: doing.to_string(),
        source,
    }
}

fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn to_u64(value: i64) -> u64 {
    u64::try_from(value).unwrap_or_default()
}

/// How a task ended, as recorded.
pub(super) struct Ending<'a> {
    pub(super) state: TaskState,
    pub(super) exit: ExitDetails,
    pub(super) ended_at_ms: u64,
    pub(super) reason: Option<&'a str>,
}

/// A task as the store has it.
pub(super) struct StoredTask {
    pub(super) row: i64,
    kind: TaskKind,
    state: TaskState,
    cmd: String,
    workdir: String,
    background: bool,
    pid: Option<u32>,
    exit_code: Option<i32>,
    signal: Option<i32>,
    reason: Option<String>,
    started_at_ms: u64,
    ended_at_ms: Option<u64>,
    logs_removed_at_ms: Option<u64>,
    owner_pid: i64,
    /// When the leader started (`/proc/<pid>/stat` field 22), when recorded.
    leader_started: Option<u64>,
    /// The principal that started it; none for a task of a runtime that did not
    /// record it.
    principal: Option<String>,
}

impl StoredTask {
    /// Whether `caller` is the principal that started it. A task recorded without one
    /// belongs to nobody: who started it is not known, so no caller is shown it.
    pub(super) fn belongs_to(&self, caller: &TaskCaller) -> bool {
        self.principal.as_deref() == Some(caller.principal.as_str())
    }

    /// Whether the store lists it running but the runtime that ran it is gone.
    pub(super) fn orphaned(&self) -> bool {
        self.state == TaskState::Running && !process_alive(self.owner_pid)
    }

    /// Whether the process group of an orphaned task still runs.
    pub(super) fn group_alive(&self) -> bool {
        match (self.pid, self.leader_started) {
            (Some(pid), Some(started)) => {
                holon_gates::process::group::task_group_alive(pid, started)
            }
            _ => false,
        }
    }

    /// Its process group id, when recorded.
    pub(super) fn pid(&self) -> Option<u32> {
        self.pid
    }

    fn from_row(row: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            row: row.get(0)?,
            kind: TaskKind::parse(&row.get::<_, String>(1)?),
            state: TaskState::parse(&row.get::<_, String>(2)?),
            cmd: row.get(3)?,
            workdir: row.get(4)?,
            background: row.get(5)?,
            pid: row
                .get::<_, Option<i64>>(6)?
                .and_then(|pid| u32::try_from(pid).ok()),
            exit_code: row.get(7)?,
            signal: row.get(8)?,
            reason: row.get(9)?,
            started_at_ms: to_u64(row.get(10)?),
            ended_at_ms: row.get::<_, Option<i64>>(11)?.map(to_u64),
            logs_removed_at_ms: row.get::<_, Option<i64>>(12)?.map(to_u64),
            owner_pid: row.get(13)?,
            leader_started: row.get::<_, Option<i64>>(14)?.map(to_u64),
            principal: row.get(15)?,
        })
    }

    /// The task as the task tools report it; its logs are under `logs_root`.
    pub(super) fn info(&self, logs_root: &Path) -> TaskInfo {
        let dir = logs_root.join(task_id(self.row));
        let stdout_log = dir.join("stdout.log");
        let stderr_log = (self.kind == TaskKind::Command).then(|| dir.join("stderr.log"));
        let exit = (self.exit_code.is_some() || self.signal.is_some()).then_some(ExitDetails {
            code: self.exit_code,
            signal: self.signal,
        });
        let duration_ms = self
            .ended_at_ms
            .unwrap_or(self.started_at_ms)
            .saturating_sub(self.started_at_ms);
        TaskInfo {
            task_id: task_id(self.row),
            kind: self.kind,
            status: self.state,
            cmd: self.cmd.clone(),
            workdir: self.workdir.clone(),
            pid: self.pid,
            exit_status: exit.map(|exit| exit.exit_status()),
            signal: self.signal,
            // Only a live task of this runtime can take input.
            accepts_input: false,
            background: self.background,
            started_at_unix_ms: self.started_at_ms,
            ended_at_unix_ms: self.ended_at_ms,
            duration_ms,
            stdout_bytes: holon_gates::process::log_len(&stdout_log),
            stderr_bytes: stderr_log.as_deref().map_or(0, holon_gates::process::log_len),
            stdout_log: stdout_log.display().to_string(),
            stderr_log: stderr_log.map(|path| path.display().to_string()),
            reason: self.reason.clone().or_else(|| {
                (self.state == TaskState::Running).then(|| {
                    if self.orphaned() {
                        ORPHAN_REASON.to_string()
                    } else {
                        "started by another runtime that is still open; only it can control the task"
                            .to_string()
                    }
                })
            }),
            logs_removed_at_unix_ms: self.logs_removed_at_ms,
        }
    }
}

/// Records a task that `caller` is starting; returns its row id.
pub(super) fn insert(
    store: &Store,
    spec: &LaunchSpec,
    kind: TaskKind,
    caller: &TaskCaller,
    started_at_ms: u64,
) -> Result<i64, StoreError> {
    let families: Vec<&str> = caller.families.families().map(|f| f.as_str()).collect();
    let connection = store.connection();
    connection
        .execute(
            "INSERT INTO tasks
               (kind, state, cmd, workdir, shell, login, accepts_input, background, owner_pid,
                started_at_ms, principal, families)
             VALUES (?1, 'running', ?2, ?3, ?4, ?5, ?6, 0, ?7, ?8, ?9, ?10)",
            params![
                kind.as_str(),
                spec.cmd,
                spec.workdir.path().display().to_string(),
                spec.shell,
                spec.login,
                spec.accepts_input,
                i64::from(std::process::id()),
                to_i64(started_at_ms),
                caller.principal,
                families.join(","),
            ],
        )
        .map_err(sqlite("recording a task"))?;
    Ok(connection.last_insert_rowid())
}

/// Forgets a task that never started.
pub(super) fn delete(store: &Store, row: i64) -> Result<(), StoreError> {
    let connection = store.connection();
    connection
        .execute("DELETE FROM task_cgroups WHERE task = ?1", [row])
        .map_err(sqlite("forgetting a task that did not start"))?;
    connection
        .execute("DELETE FROM tasks WHERE id = ?1", [row])
        .map(|_| ())
        .map_err(sqlite("forgetting a task that did not start"))
}

/// Records the cgroup directories of task `row`'s command, before the command starts.
pub(super) fn set_cgroups(store: &Store, row: i64, dirs: &[PathBuf]) -> Result<(), StoreError> {
    let connection = store.connection();
    for dir in dirs {
        connection
            .execute(
                "INSERT OR REPLACE INTO task_cgroups (dir, task) VALUES (?1, ?2)",
                params![dir.display().to_string(), row],
            )
            .map_err(sqlite("recording a task's cgroup"))?;
    }
    Ok(())
}

/// The cgroup directories recorded for task `row`.
pub(super) fn cgroups(store: &Store, row: i64) -> Result<Vec<PathBuf>, StoreError> {
    let connection = store.connection();
    let mut statement = connection
        .prepare("SELECT dir FROM task_cgroups WHERE task = ?1")
        .map_err(sqlite("reading a task's cgroups"))?;
    statement
        .query_map([row], |row| row.get::<_, String>(0))
        .and_then(|rows| rows.map(|dir| dir.map(PathBuf::from)).collect())
        .map_err(sqlite("reading a task's cgroups"))
}

/// What the store says of the command cgroup `dir` a runtime that is gone left: a
/// background task it lists as running keeps it; a task it lists otherwise had it.
pub(super) fn left_cgroup(store: &Store, dir: &Path) -> Result<LeftCgroup, StoreError> {
    let found: Option<(String, bool)> = store
        .connection()
        .query_row(
            "SELECT t.state, t.background FROM task_cgroups c JOIN tasks t ON t.id = c.task
             WHERE c.dir = ?1",
            [dir.display().to_string()],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()
        .map_err(sqlite("finding the task of a cgroup"))?;
    Ok(match found {
        None => LeftCgroup::Unknown,
        Some((state, true)) if TaskState::parse(&state) == TaskState::Running => {
            LeftCgroup::RunningTask
        }
        Some(_) => LeftCgroup::Ended,
    })
}

/// Records the process id of a task's leader and when it started.
pub(super) fn set_pid(
    store: &Store,
    row: i64,
    pid: u32,
    started: Option<u64>,
) -> Result<(), StoreError> {
    store
        .connection()
        .execute(
            "UPDATE tasks SET pid = ?2, leader_started = ?3 WHERE id = ?1",
            params![row, i64::from(pid), started.map(to_i64)],
        )
        .map(|_| ())
        .map_err(sqlite("recording a task's process id"))
}

/// Marks a task as a background task.
pub(super) fn set_background(store: &Store, row: i64) -> Result<(), StoreError> {
    store
        .connection()
        .execute("UPDATE tasks SET background = 1 WHERE id = ?1", [row])
        .map(|_| ())
        .map_err(sqlite("promoting a task to the background"))
}

/// Records how a task ended, unless an ending is already recorded (the first wins).
pub(super) fn finish(store: &Store, row: i64, ending: &Ending<'_>) -> Result<(), StoreError> {
    store
        .connection()
        .execute(
            "UPDATE tasks SET state = ?2, exit_code = ?3, signal = ?4, ended_at_ms = ?5, reason = ?6
             WHERE id = ?1 AND state = 'running'",
            params![
                row,
                ending.state.as_str(),
                ending.exit.code,
                ending.exit.signal,
                to_i64(ending.ended_at_ms),
                ending.reason,
            ],
        )
        .map(|_| ())
        .map_err(sqlite("recording how a task ended"))
}

/// Marks every task recorded as running by a process that is gone as interrupted,
/// unless its process group still runs (the runtime was killed, its commands were
/// not): that task stays running, and TaskStop can end it. Returns how many were
/// marked. Tasks of a runtime in a process still alive (a `holon-tools session` next
/// to a `holon-tools call`) are left to it.
pub(super) fn interrupt_lost(store: &Store, now_ms: u64) -> Result<usize, StoreError> {
    let running = {
        let connection = store.connection();
        let mut statement = connection
            .prepare(&format!(
                "SELECT {COLUMNS} FROM tasks WHERE state = 'running'"
            ))
            .map_err(sqlite("finding the tasks of previous runtimes"))?;
        statement
            .query_map([], StoredTask::from_row)
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(sqlite("finding the tasks of previous runtimes"))?
    };
    let mut lost = 0;
    for task in running
        .iter()
        .filter(|task| task.orphaned() && !task.group_alive())
    {
        mark_lost(store, task.row, now_ms, LOST_REASON)?;
        lost += 1;
    }
    Ok(lost)
}

/// Records that the running task `row` of a lost runtime ended, for `reason`.
pub(super) fn mark_lost(
    store: &Store,
    row: i64,
    now_ms: u64,
    reason: &str,
) -> Result<(), StoreError> {
    store
        .connection()
        .execute(
            "UPDATE tasks SET state = 'interrupted', ended_at_ms = ?1, reason = ?2
             WHERE state = 'running' AND id = ?3",
            params![to_i64(now_ms), reason, row],
        )
        .map(|_| ())
        .map_err(sqlite(
            "marking the task of a previous runtime as interrupted",
        ))
}

/// Whether a process with id `pid` exists.
fn process_alive(pid: i64) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        // It exists but belongs to someone else.
        Err(error) => error == rustix::io::Errno::PERM,
    }
}

/// Tasks that ended before `cutoff_ms` and still have their logs.
pub(super) fn ended_before(store: &Store, cutoff_ms: u64) -> Result<Vec<i64>, StoreError> {
    let connection = store.connection();
    let mut statement = connection
        .prepare(
            "SELECT id FROM tasks
             WHERE ended_at_ms IS NOT NULL AND ended_at_ms < ?1 AND logs_removed_at_ms IS NULL",
        )
        .map_err(sqlite("finding old task logs"))?;
    let rows = statement
        .query_map([to_i64(cutoff_ms)], |row| row.get(0))
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<i64>>>())
        .map_err(sqlite("finding old task logs"))?;
    Ok(rows)
}

/// Records that the logs of task `row` were removed at `now_ms`.
pub(super) fn mark_logs_removed(store: &Store, row: i64, now_ms: u64) -> Result<(), StoreError> {
    store
        .connection()
        .execute(
            "UPDATE tasks SET logs_removed_at_ms = ?2 WHERE id = ?1",
            params![row, to_i64(now_ms)],
        )
        .map(|_| ())
        .map_err(sqlite("recording removed task logs"))
}

/// The task in row `row`.
pub(super) fn load(store: &Store, row: i64) -> Result<Option<StoredTask>, StoreError> {
    store
        .connection()
        .query_row(
            &format!("SELECT {COLUMNS} FROM tasks WHERE id = ?1"),
            [row],
            StoredTask::from_row,
        )
        .optional()
        .map_err(sqlite("reading a task"))
}

/// The newest `limit` background tasks of `principal`, how many they have, and how
/// many run.
pub(super) fn list_background(
    store: &Store,
    principal: &str,
    limit: usize,
) -> Result<(Vec<StoredTask>, u64, u64), StoreError> {
    let connection = store.connection();
    let mut statement = connection
        .prepare(&format!(
            "SELECT {COLUMNS} FROM tasks WHERE principal = ?1 AND background = 1
             ORDER BY id DESC LIMIT ?2"
        ))
        .map_err(sqlite("listing tasks"))?;
    let tasks = statement
        .query_map(
            params![principal, i64::try_from(limit).unwrap_or(i64::MAX)],
            StoredTask::from_row,
        )
        .map_err(sqlite("listing tasks"))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sqlite("listing tasks"))?;
    let (total, running): (i64, i64) = connection
        .query_row(
            "SELECT COUNT(*), COALESCE(SUM(state = 'running'), 0) FROM tasks
             WHERE principal = ?1 AND background = 1",
            [principal],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .map_err(sqlite("counting tasks"))?;
    Ok((tasks, to_u64(total), to_u64(running)))
}
