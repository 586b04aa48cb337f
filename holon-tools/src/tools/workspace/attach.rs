//! `AttachWorkspace` and `DetachWorkspace`: bind more directories, and let them go.

use std::path::{Path, PathBuf};

use holon_core::prelude::*;

use super::errors::{error, store_error, tasks_in, unknown_workspace};
use super::git;
use holon_runtime::Runtime;
use holon_runtime::bindings::{
    ActiveRoot, BindingState, HOME_WORKSPACE_ID, WorkspaceBinding, WorkspaceKind, now_ms,
};

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
#[holon_tool(family = AuthorityExpanding, annotations(idempotent, open_world = false))]
fn attach_workspace(
    rt: &Runtime,
    args: AttachWorkspaceArgs,
) -> Result<ToolOutput<WorkspaceAttached>, ToolError> {
    let requested = Path::new(&args.path);
    let joined = if requested.is_absolute() {
        requested.to_path_buf()
    } else {
        rt.workspace_roots().active().join(requested)
    };
    let path = existing_directory(&joined, &args.path)?;
    let edit = rt.bindings().edit();
    let state = edit.state().map_err(store_error)?;
    if let Some(existing) = state.workspaces.iter().find(|w| w.path == path) {
        return Ok(attached(rt, &state, existing, true));
    }
    check_overlap(rt, &state, &path, &args.path)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let binding = WorkspaceBinding {
        workspace_id: state.fresh_id("ws", &name),
        path,
        kind: WorkspaceKind::Attached,
        attached_at_ms: now_ms(),
    };
    let state = edit.attach(&binding).map_err(store_error)?;
    Ok(attached(rt, &state, &binding, false))
}

fn attached(
    rt: &Runtime,
    state: &BindingState,
    binding: &WorkspaceBinding,
    already: bool,
) -> ToolOutput<WorkspaceAttached> {
    let result = WorkspaceAttached {
        attached_workspace_id: binding.workspace_id.clone(),
        root_path: binding.path.to_string_lossy().into_owned(),
        already_attached: already,
        is_git_repository: git::is_repository(rt.git(), &binding.path),
        workspace_count: state.workspaces.len(),
    };
    let summary = if already {
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
    ToolOutput::new(result).with_summary(summary)
}

/// The canonical form of `path`, which must be an existing directory.
fn existing_directory(path: &Path, shown: &str) -> Result<PathBuf, ToolError> {
    let canonical = path.canonicalize().map_err(|e| {
        error(
            "workspace_path_not_found",
            format!("`{shown}` cannot be attached: {e}"),
        )
        .with_field("path")
        .with_hint("give an existing directory; AttachWorkspace does not create directories")
    })?;
    if !canonical.is_dir() {
        return Err(error(
            "not_a_directory",
            format!("`{shown}` is a file, not a directory"),
        )
        .with_field("path")
        .with_hint("attach the directory that holds it"));
    }
    if canonical.to_str().is_none() {
        return Err(error(
            "path_not_utf8",
            format!("`{shown}` resolves to a path that is not valid UTF-8"),
        )
        .with_field("path"));
    }
    Ok(canonical)
}

/// Refuses a directory nested in a bound directory (workspace or worktree) or in the
/// state directory, or containing one.
fn check_overlap(
    rt: &Runtime,
    state: &BindingState,
    path: &Path,
    shown: &str,
) -> Result<(), ToolError> {
    let overlap = |other: &Path| path.starts_with(other) || other.starts_with(path);
    if let Some(other) = state.execution_roots().find(|root| overlap(root.path)) {
        let relation = if path.starts_with(other.path) {
            "is inside"
        } else {
            "contains"
        };
        return Err(error(
            "workspace_overlaps",
            format!(
                "`{shown}` ({}) {relation} the execution root `{}` ({})",
                path.display(),
                other.execution_root_id,
                other.path.display()
            ),
        )
        .with_field("path")
        .with_details(serde_json::json!({ "execution_root_id": other.execution_root_id }))
        .with_hint(if relation == "is inside" {
            "it is already reachable: use SwitchWorkspace with `path` to work there"
        } else {
            "attach a directory that does not contain a bound workspace"
        }));
    }
    if let Some(state_dir) = rt.state_dir().and_then(|d| d.canonicalize().ok())
        && overlap(&state_dir)
    {
        return Err(error(
            "workspace_overlaps",
            format!("`{shown}` overlaps the runtime's state directory"),
        )
        .with_field("path")
        .with_hint("the state directory holds the runtime's store and cannot be a workspace"));
    }
    Ok(())
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
#[holon_tool(family = AuthorityExpanding, annotations(destructive, open_world = false))]
fn detach_workspace(
    rt: &Runtime,
    args: DetachWorkspaceArgs,
) -> Result<ToolOutput<WorkspaceDetached>, ToolError> {
    let edit = rt.bindings().edit();
    let state = edit.state().map_err(store_error)?;
    let Some(workspace) = state.workspace(&args.workspace_id).cloned() else {
        return Err(unknown_workspace(
            &state,
            &args.workspace_id,
            "workspace_id",
        ));
    };
    if workspace.kind == WorkspaceKind::Home {
        return Err(error(
            "cannot_detach_home",
            "the home workspace is the runtime's own and cannot be detached",
        )
        .with_field("workspace_id")
        .with_hint("detach an attached workspace; SwitchWorkspace moves away from home"));
    }
    let worktrees: Vec<&str> = state
        .worktrees
        .iter()
        .filter(|w| w.workspace_id == workspace.workspace_id)
        .map(|w| w.execution_root_id.as_str())
        .collect();
    if !worktrees.is_empty() {
        return Err(error(
            "workspace_has_worktrees",
            format!(
                "`{}` still has worktrees: {}",
                workspace.workspace_id,
                worktrees.join(", ")
            ),
        )
        .with_field("workspace_id")
        .with_details(serde_json::json!({ "execution_root_ids": worktrees }))
        .with_hint("remove them with RemoveWorktree first, then detach"));
    }
    let was_active = state
        .active_root()
        .is_some_and(|a| a.workspace_id == workspace.workspace_id);
    let home = ActiveRoot {
        execution_root_id: HOME_WORKSPACE_ID.to_string(),
        cwd: None,
    };
    let state = edit
        .detach(&workspace.workspace_id, was_active.then_some(&home))
        .map_err(store_error)?;
    let workdirs = rt.bindings().running_task_workdirs().map_err(store_error)?;
    let result = WorkspaceDetached {
        detached_workspace_id: workspace.workspace_id.clone(),
        detached_path: workspace.path.to_string_lossy().into_owned(),
        active_execution_root_id: state
            .active_root()
            .map_or(HOME_WORKSPACE_ID, |a| a.execution_root_id)
            .to_string(),
        fell_back_to_home: was_active,
        running_tasks: tasks_in(&workspace.path, &[], &workdirs),
    };
    let summary = format!(
        "detached {}{}",
        result.detached_workspace_id,
        if was_active {
            "; home is active again"
        } else {
            ""
        }
    );
    Ok(ToolOutput::new(result).with_summary(summary))
}
