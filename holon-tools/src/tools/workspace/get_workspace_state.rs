//! `GetWorkspaceState`: the bindings, the active root, the worktrees, the occupancy.

use std::path::Path;

use holon_core::prelude::*;

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
    keywords = ["pwd", "current directory", "location", "repositories", "worktrees", "folders"],
    annotations(read_only, idempotent, open_world = false)
)]
fn get_workspace_state(rt: &Runtime) -> Result<ToolOutput<WorkspaceState>, ToolError> {
    let overview = rt.workspaces().state()?;
    let workspaces = overview
        .workspaces
        .into_iter()
        .map(|w| WorkspaceEntry {
            path: display(&w.binding.path),
            workspace_id: w.binding.workspace_id,
            kind: w.binding.kind,
            available: w.available,
            is_git_repository: w.is_git_repository,
            is_active: w.is_active,
            running_tasks: w.running_tasks,
        })
        .collect();
    let worktrees = overview
        .worktrees
        .into_iter()
        .map(|w| WorktreeEntry {
            path: display(&w.binding.path),
            execution_root_id: w.binding.execution_root_id,
            workspace_id: w.binding.workspace_id,
            branch: w.binding.branch,
            base_ref: w.binding.base_ref,
            label: w.binding.label,
            available: w.available,
            is_active: w.is_active,
            running_tasks: w.running_tasks,
        })
        .collect();
    let result = WorkspaceState {
        home_workspace_id: HOME_WORKSPACE_ID.to_string(),
        active_workspace_id: overview.active_workspace_id,
        active_root: display(&overview.active_root),
        working_directory: display(&overview.working_directory),
        workspaces,
        worktrees,
        running_task_count: overview.running_task_count,
        active_execution_root_id: overview.active_execution_root_id,
    };
    let summary = format!("active: {}", result.active_execution_root_id);
    let receipt = receipt(&result);
    Ok(ToolOutput::new(result)
        .with_summary(summary)
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
