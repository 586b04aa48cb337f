//! The bindings as they are now, with what the runtime sees of each: whether its
//! directory opens, whether it is a git repository, which is active, and how many
//! recorded tasks run in it.

use std::path::{Path, PathBuf};

use super::errors::{WorkspaceError, tasks_in};
use super::{Workspaces, git_worktrees, is_open_dir};
use crate::bindings::{HOME_WORKSPACE_ID, WorkspaceBinding, WorktreeBinding};

/// A bound workspace and what is seen of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceStatus {
    /// The binding.
    pub binding: WorkspaceBinding,
    /// Whether its directory still opens.
    pub available: bool,
    /// Whether it is inside a git repository.
    pub is_git_repository: bool,
    /// Whether it is the active execution root.
    pub is_active: bool,
    /// Tasks recorded as running with their working directory in it (and in no
    /// deeper root).
    pub running_tasks: usize,
}

/// A worktree and what is seen of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeStatus {
    /// The binding.
    pub binding: WorktreeBinding,
    /// Whether its directory still opens.
    pub available: bool,
    /// Whether it is the active execution root.
    pub is_active: bool,
    /// Tasks recorded as running with their working directory in it.
    pub running_tasks: usize,
}

/// Every binding, the active one, and the occupancy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceOverview {
    /// The workspace the active execution root belongs to.
    pub active_workspace_id: String,
    /// The active execution root: a workspace id or a worktree's id.
    pub active_execution_root_id: String,
    /// Its path, as the roots tools are confined to have it.
    pub active_root: PathBuf,
    /// Where relative paths resolve.
    pub working_directory: PathBuf,
    /// Every bound workspace, home first.
    pub workspaces: Vec<WorkspaceStatus>,
    /// Every worktree, oldest first.
    pub worktrees: Vec<WorktreeStatus>,
    /// Tasks the store records as running, in all roots and outside them.
    pub running_task_count: usize,
}

impl Workspaces<'_> {
    /// The bindings now (GetWorkspaceState).
    pub fn state(&self) -> Result<WorkspaceOverview, WorkspaceError> {
        let bindings = self.rt.bindings();
        let state = bindings.state()?;
        let workdirs = bindings.running_task_workdirs()?;
        let roots = self.rt.workspace_roots();
        let active = state.active_root();
        let active_id = active.map_or(HOME_WORKSPACE_ID, |a| a.execution_root_id);
        let all_paths: Vec<&Path> = state.execution_roots().map(|r| r.path).collect();
        let workspaces = state
            .workspaces
            .iter()
            .map(|w| {
                let available = is_open_dir(&w.path);
                WorkspaceStatus {
                    available,
                    is_git_repository: available
                        && git_worktrees::is_repository(self.rt.git(), &w.path),
                    is_active: w.workspace_id == active_id,
                    running_tasks: tasks_in(&w.path, &all_paths, &workdirs),
                    binding: w.clone(),
                }
            })
            .collect();
        let worktrees = state
            .worktrees
            .iter()
            .map(|w| WorktreeStatus {
                available: is_open_dir(&w.path),
                is_active: w.execution_root_id == active_id,
                running_tasks: tasks_in(&w.path, &all_paths, &workdirs),
                binding: w.clone(),
            })
            .collect();
        Ok(WorkspaceOverview {
            active_workspace_id: active
                .map_or(HOME_WORKSPACE_ID, |a| a.workspace_id)
                .to_string(),
            active_execution_root_id: active_id.to_string(),
            active_root: roots.active_root().to_path_buf(),
            working_directory: roots.active().to_path_buf(),
            workspaces,
            worktrees,
            running_task_count: workdirs.len(),
        })
    }
}
