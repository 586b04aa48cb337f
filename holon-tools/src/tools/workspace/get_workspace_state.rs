//! `GetWorkspaceState`: the bindings, the active root, the worktrees, the occupancy.

use std::path::Path;

use holon_core::prelude::*;

use super::errors::{store_error, tasks_in};
use super::git;
use holon_runtime::Runtime;
use holon_runtime::bindings::{HOME_WORKSPACE_ID, WorkspaceKind};

/// A bound workspace.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WorkspaceEntry {
    /// Its id, for SwitchWorkspace, CreateWorktree and DetachWorkspace.
    pub workspace_id: String,
    /// Its absolute path.
    pub path: String,
    /// `home` (the runtime's own workspace, never detached) or `attached`.
    pub kind: WorkspaceKind,
    /// Whether the directory still exists.
    pub available: bool,
    /// Whether it is inside a git repository (worktrees can be made of it).
    pub is_git_repository: bool,
    /// Whether it is the active execution root.
    pub is_active: bool,
    /// Tasks recorded as running with their working directory in it.
    pub running_tasks: usize,
}

/// A worktree made by CreateWorktree.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WorktreeEntry {
    /// Its execution root id, for SwitchWorkspace and RemoveWorktree.
    pub execution_root_id: String,
    /// The workspace whose repository it belongs to.
    pub workspace_id: String,
    /// Its absolute path.
    pub path: String,
    /// The branch checked out in it.
    pub branch: String,
    /// The ref it was created from.
    pub base_ref: String,
    /// Its label, if one was given.
    pub label: Option<String>,
    /// Whether the directory still exists.
    pub available: bool,
    /// Whether it is the active execution root.
    pub is_active: bool,
    /// Tasks recorded as running with their working directory in it.
    pub running_tasks: usize,
}

/// The workspace bindings now.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WorkspaceState {
    /// The id of the home workspace (always `home`).
    pub home_workspace_id: String,
    /// The workspace the active execution root belongs to.
    pub active_workspace_id: String,
    /// The active execution root: a workspace id or a worktree's id.
    pub active_execution_root_id: String,
    /// Its absolute path.
    pub active_root: String,
    /// Where relative paths resolve: the active root, or the `cwd` chosen inside it.
    pub working_directory: String,
    /// Every bound workspace, home first.
    pub workspaces: Vec<WorkspaceEntry>,
    /// Every worktree, oldest first.
    pub worktrees: Vec<WorktreeEntry>,
    /// Tasks the store records as running, in all roots and outside them.
    pub running_task_count: usize,
}

fn display(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Report the agent's workspaces: the home workspace and every attached one, the git
/// worktrees made with CreateWorktree, which execution root is active and the working
/// directory relative paths resolve against.
///
/// Each workspace and worktree tells whether its directory still exists, whether it is
/// a git repository, and how many tasks are running in it (occupancy, from the task
/// records in the store). Call it before SwitchWorkspace, CreateWorktree, RemoveWorktree
/// or DetachWorkspace to get the ids they take.
#[holon_tool(
    family = LocalEnvironment,
    annotations(read_only, idempotent, open_world = false)
)]
fn get_workspace_state(rt: &Runtime) -> Result<ToolOutput<WorkspaceState>, ToolError> {
    let bindings = rt.bindings();
    let state = bindings.state().map_err(store_error)?;
    let workdirs = bindings.running_task_workdirs().map_err(store_error)?;
    let roots = rt.workspace_roots();
    let active = state.active_root();
    let active_id = active.map_or(HOME_WORKSPACE_ID, |a| a.execution_root_id);
    let all_paths: Vec<&Path> = state.execution_roots().map(|r| r.path).collect();
    let workspaces: Vec<WorkspaceEntry> = state
        .workspaces
        .iter()
        .map(|w| WorkspaceEntry {
            workspace_id: w.workspace_id.clone(),
            path: display(&w.path),
            kind: w.kind,
            available: w.path.is_dir(),
            is_git_repository: w.path.is_dir() && git::is_repository(rt.git(), &w.path),
            is_active: w.workspace_id == active_id,
            running_tasks: tasks_in(&w.path, &all_paths, &workdirs),
        })
        .collect();
    let worktrees: Vec<WorktreeEntry> = state
        .worktrees
        .iter()
        .map(|w| WorktreeEntry {
            execution_root_id: w.execution_root_id.clone(),
            workspace_id: w.workspace_id.clone(),
            path: display(&w.path),
            branch: w.branch.clone(),
            base_ref: w.base_ref.clone(),
            label: w.label.clone(),
            available: w.path.is_dir(),
            is_active: w.execution_root_id == active_id,
            running_tasks: tasks_in(&w.path, &all_paths, &workdirs),
        })
        .collect();
    let result = WorkspaceState {
        home_workspace_id: HOME_WORKSPACE_ID.to_string(),
        active_workspace_id: active
            .map_or(HOME_WORKSPACE_ID, |a| a.workspace_id)
            .to_string(),
        active_execution_root_id: active_id.to_string(),
        active_root: display(roots.active_root()),
        working_directory: display(roots.active()),
        workspaces,
        worktrees,
        running_task_count: workdirs.len(),
    };
    let receipt = receipt(&result);
    Ok(ToolOutput::new(result)
        .with_summary(format!("active: {active_id}"))
        .with_receipt(receipt))
}

fn receipt(state: &WorkspaceState) -> String {
    let mut text = format!(
        "Active: {} ({}), working directory {}\nWorkspaces:\n",
        state.active_execution_root_id, state.active_root, state.working_directory
    );
    for w in &state.workspaces {
        text.push_str(&format!(
            "  {}{} {} [{}{}{}] running tasks: {}\n",
            if w.is_active { "* " } else { "" },
            w.workspace_id,
            w.path,
            serde_json::to_value(w.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            if w.is_git_repository { ", git" } else { "" },
            if w.available { "" } else { ", missing" },
            w.running_tasks
        ));
    }
    if !state.worktrees.is_empty() {
        text.push_str("Worktrees:\n");
        for w in &state.worktrees {
            text.push_str(&format!(
                "  {}{} {} branch {} of {}{} running tasks: {}\n",
                if w.is_active { "* " } else { "" },
                w.execution_root_id,
                w.path,
                w.branch,
                w.workspace_id,
                if w.available { "" } else { " (missing)" },
                w.running_tasks
            ));
        }
    }
    text
}
