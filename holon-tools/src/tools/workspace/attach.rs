//! `AttachWorkspace` and `DetachWorkspace`: bind more directories, and let them go.

use holon_core::prelude::*;

use holon_runtime::Runtime;

/// Arguments of AttachWorkspace.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct AttachWorkspaceArgs {
    /// The directory to attach: an absolute path, or a path relative to the current
    /// working directory. It must exist.
    #[schemars(length(min = 1))]
    pub path: String,
}

/// The attached workspace.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WorkspaceAttached {
    /// Its id, for SwitchWorkspace, CreateWorktree and DetachWorkspace.
    pub attached_workspace_id: String,
    /// Its canonical path.
    pub root_path: String,
    /// True when the directory was already attached (nothing changed).
    pub already_attached: bool,
    /// Whether it is inside a git repository.
    pub is_git_repository: bool,
    /// How many workspaces are bound now, home included.
    pub workspace_count: usize,
}

/// Attach an existing directory as a workspace, so that tools may work in it too.
///
/// Files in an attached workspace can be read, patched and searched, and commands can
/// run there; the active workspace does not change (use SwitchWorkspace to work there
/// by default). Give an absolute path, or one relative to the current working
/// directory. Attaching a directory that is already attached returns its id. A
/// directory inside a bound workspace, or containing one, is refused: it is already
/// reachable, or would widen an existing workspace.
#[holon_tool(
    family = AuthorityExpanding,
    keywords = ["mount", "add folder", "open directory", "another repository", "grant access"],
    annotations(idempotent, open_world = false)
)]
fn attach_workspace(
    rt: &Runtime,
    args: AttachWorkspaceArgs,
) -> Result<ToolOutput<WorkspaceAttached>, ToolError> {
    let attached = rt.workspaces().attach(&args.path)?;
    let result = WorkspaceAttached {
        attached_workspace_id: attached.workspace.workspace_id,
        root_path: attached.workspace.path.to_string_lossy().into_owned(),
        already_attached: attached.already_attached,
        is_git_repository: attached.is_git_repository,
        workspace_count: attached.workspace_count,
    };
    let summary = if result.already_attached {
        format!(
            "{} was already attached as {}",
            result.root_path, result.attached_workspace_id
        )
    } else {
        format!(
            "attached {} as {}",
            result.root_path, result.attached_workspace_id
        )
    };
    Ok(ToolOutput::new(result).with_summary(summary))
}

/// Arguments of DetachWorkspace.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct DetachWorkspaceArgs {
    /// The id of the attached workspace to detach, as GetWorkspaceState lists it.
    #[schemars(length(min = 1))]
    pub workspace_id: String,
}

/// What detaching changed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WorkspaceDetached {
    /// The id of the detached workspace.
    pub detached_workspace_id: String,
    /// Its path; the directory itself is left untouched.
    pub detached_path: String,
    /// The active execution root now.
    pub active_execution_root_id: String,
    /// True when the detached workspace was active and the home workspace became active.
    pub fell_back_to_home: bool,
    /// Tasks still running in the detached directory; they are not stopped.
    pub running_tasks: usize,
}

/// Detach an attached workspace: tools can no longer read or change files in it.
///
/// The directory itself is left as it is. When the detached workspace was active, the
/// home workspace becomes active again. The home workspace cannot be detached, and a
/// workspace with worktrees made by CreateWorktree must have them removed first
/// (RemoveWorktree). Running tasks in it are not stopped; their count is reported.
#[holon_tool(
    family = AuthorityExpanding,
    keywords = ["unmount", "remove folder", "drop repository", "revoke access"],
    annotations(destructive, open_world = false)
)]
fn detach_workspace(
    rt: &Runtime,
    args: DetachWorkspaceArgs,
) -> Result<ToolOutput<WorkspaceDetached>, ToolError> {
    let detached = rt.workspaces().detach(&args.workspace_id)?;
    let result = WorkspaceDetached {
        detached_workspace_id: detached.workspace.workspace_id,
        detached_path: detached.workspace.path.to_string_lossy().into_owned(),
        active_execution_root_id: detached.active_execution_root_id,
        fell_back_to_home: detached.fell_back_to_home,
        running_tasks: detached.running_tasks,
    };
    let summary = format!(
        "detached {}{}",
        result.detached_workspace_id,
        if result.fell_back_to_home {
            "; home is active again"
        } else {
            ""
        }
    );
    Ok(ToolOutput::new(result).with_summary(summary))
}
