//! The `workspace_bindings`, `workspace_worktrees` and `workspace_active` tables.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};

use super::state::{
    ActiveRoot, BindingState, HOME_WORKSPACE_ID, WorkspaceBinding, WorkspaceKind, WorktreeBinding,
};
use crate::StoreError;

fn sqlite(doing: &'static str) -> impl FnOnce(rusqlite::Error) -> StoreError {
    move |source| StoreError::Sqlite {
        doing: doing.to_string(),
        source,
    }
}

/// A path as stored: its text (paths that are not UTF-8 are stored lossily).
pub(super) fn path_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Reads every binding.
pub(super) fn read(connection: &Connection) -> Result<BindingState, StoreError> {
    const DOING: &str = "reading the workspace bindings";
    let mut statement = connection
        .prepare(
            "SELECT workspace_id, path, kind, attached_at_ms FROM workspace_bindings
             ORDER BY kind = 'home' DESC, attached_at_ms, workspace_id",
        )
        .map_err(sqlite(DOING))?;
    let workspaces = statement
        .query_map([], |row| {
            Ok(WorkspaceBinding {
                workspace_id: row.get(0)?,
                path: PathBuf::from(row.get::<_, String>(1)?),
                kind: WorkspaceKind::parse(&row.get::<_, String>(2)?),
                attached_at_ms: row.get(3)?,
            })
        })
        .map_err(sqlite(DOING))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sqlite(DOING))?;
    let mut statement = connection
        .prepare(
            "SELECT execution_root_id, workspace_id, path, branch, base_ref, label, branch_created, created_at_ms
             FROM workspace_worktrees ORDER BY created_at_ms, execution_root_id",
        )
        .map_err(sqlite(DOING))?;
    let worktrees = statement
        .query_map([], |row| {
            Ok(WorktreeBinding {
                execution_root_id: row.get(0)?,
                workspace_id: row.get(1)?,
                path: PathBuf::from(row.get::<_, String>(2)?),
                branch: row.get(3)?,
                base_ref: row.get(4)?,
                label: row.get(5)?,
                branch_created: row.get(6)?,
                created_at_ms: row.get(7)?,
            })
        })
        .map_err(sqlite(DOING))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sqlite(DOING))?;
    let active = connection
        .query_row(
            "SELECT execution_root_id, cwd FROM workspace_active WHERE slot = 1",
            [],
            |row| {
                Ok(ActiveRoot {
                    execution_root_id: row.get(0)?,
                    cwd: row.get(1)?,
                })
            },
        )
        .optional()
        .map_err(sqlite(DOING))?
        .unwrap_or_else(|| ActiveRoot {
            execution_root_id: HOME_WORKSPACE_ID.to_string(),
            cwd: None,
        });
    Ok(BindingState {
        workspaces,
        worktrees,
        active,
    })
}

/// Records `home` as the home workspace. A store reused with another workspace root
/// moves its home there; an attached workspace at that path is folded into home.
pub(super) fn ensure_home(
    connection: &mut Connection,
    home: &Path,
    now_ms: i64,
) -> Result<(), StoreError> {
    const DOING: &str = "recording the home workspace";
    let home = path_text(home);
    let transaction = crate::begin_write(connection).map_err(sqlite(DOING))?;
    let same_path: Option<String> = transaction
        .query_row(
            "SELECT workspace_id FROM workspace_bindings WHERE path = ?1 AND kind <> 'home'",
            [&home],
            |row| row.get(0),
        )
        .optional()
        .map_err(sqlite(DOING))?;
    if let Some(attached) = same_path {
        transaction
            .execute(
                "UPDATE workspace_worktrees SET workspace_id = ?1 WHERE workspace_id = ?2",
                params![HOME_WORKSPACE_ID, attached],
            )
            .map_err(sqlite(DOING))?;
        transaction
            .execute(
                "DELETE FROM workspace_bindings WHERE workspace_id = ?1",
                [&attached],
            )
            .map_err(sqlite(DOING))?;
    }
    transaction
        .execute(
            "INSERT INTO workspace_bindings (workspace_id, path, kind, attached_at_ms)
             VALUES (?1, ?2, 'home', ?3)
             ON CONFLICT (workspace_id) DO UPDATE SET path = excluded.path, kind = 'home'",
            params![HOME_WORKSPACE_ID, home, now_ms],
        )
        .map_err(sqlite(DOING))?;
    transaction.commit().map_err(sqlite(DOING))
}

/// Binds an attached workspace.
pub(super) fn insert_workspace(
    connection: &Connection,
    binding: &WorkspaceBinding,
) -> Result<(), StoreError> {
    connection
        .execute(
            "INSERT INTO workspace_bindings (workspace_id, path, kind, attached_at_ms)
             VALUES (?1, ?2, ?3, ?4)",
            params![
                binding.workspace_id,
                path_text(&binding.path),
                binding.kind.as_str(),
                binding.attached_at_ms
            ],
        )
        .map(|_| ())
        .map_err(sqlite("attaching a workspace"))
}

/// Unbinds a workspace (its worktrees must be gone).
pub(super) fn delete_workspace(
    connection: &Connection,
    workspace_id: &str,
) -> Result<(), StoreError> {
    connection
        .execute(
            "DELETE FROM workspace_bindings WHERE workspace_id = ?1 AND kind <> 'home'",
            [workspace_id],
        )
        .map(|_| ())
        .map_err(sqlite("detaching a workspace"))
}

/// Binds a worktree.
pub(super) fn insert_worktree(
    connection: &Connection,
    worktree: &WorktreeBinding,
) -> Result<(), StoreError> {
    connection
        .execute(
            "INSERT INTO workspace_worktrees
               (execution_root_id, workspace_id, path, branch, base_ref, label, branch_created, created_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                worktree.execution_root_id,
                worktree.workspace_id,
                path_text(&worktree.path),
                worktree.branch,
                worktree.base_ref,
                worktree.label,
                worktree.branch_created,
                worktree.created_at_ms
            ],
        )
        .map(|_| ())
        .map_err(sqlite("recording a worktree"))
}

/// Unbinds a worktree.
pub(super) fn delete_worktree(
    connection: &Connection,
    execution_root_id: &str,
) -> Result<(), StoreError> {
    connection
        .execute(
            "DELETE FROM workspace_worktrees WHERE execution_root_id = ?1",
            [execution_root_id],
        )
        .map(|_| ())
        .map_err(sqlite("forgetting a worktree"))
}

/// Records the active execution root.
pub(super) fn set_active(connection: &Connection, active: &ActiveRoot) -> Result<(), StoreError> {
    connection
        .execute(
            "INSERT INTO workspace_active (slot, execution_root_id, cwd) VALUES (1, ?1, ?2)
             ON CONFLICT (slot) DO UPDATE SET execution_root_id = excluded.execution_root_id, cwd = excluded.cwd",
            params![active.execution_root_id, active.cwd],
        )
        .map(|_| ())
        .map_err(sqlite("recording the active workspace"))
}

/// The working directories of the tasks recorded as running, for occupancy.
pub(super) fn running_task_workdirs(connection: &Connection) -> Result<Vec<PathBuf>, StoreError> {
    const DOING: &str = "reading the running tasks";
    let mut statement = connection
        .prepare("SELECT workdir FROM tasks WHERE state = 'running'")
        .map_err(sqlite(DOING))?;
    statement
        .query_map([], |row| row.get::<_, String>(0).map(PathBuf::from))
        .map_err(sqlite(DOING))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sqlite(DOING))
}
