//! Attaching a directory as a workspace, and detaching it again.

use std::path::{Path, PathBuf};

use super::errors::{WorkspaceError, WorkspaceErrorKind, error, tasks_in, unknown_workspace};
use super::{Workspaces, git_worktrees};
use crate::bindings::{
    ActiveRoot, BindingState, HOME_WORKSPACE_ID, WorkspaceBinding, WorkspaceKind, now_ms,
};
use holon_gates::fs::{DirPathError, open_dir_path};

/// A workspace just attached, or found attached already.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attached {
    /// Its binding.
    pub workspace: WorkspaceBinding,
    /// True when the directory was already attached (nothing changed).
    pub already_attached: bool,
    /// Whether it is inside a git repository.
    pub is_git_repository: bool,
    /// How many workspaces are bound now, home included.
    pub workspace_count: usize,
}

/// A workspace just detached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detached {
    /// Its former binding; the directory itself is left untouched.
    pub workspace: WorkspaceBinding,
    /// The active execution root now.
    pub active_execution_root_id: String,
    /// True when the detached workspace was active and home became active.
    pub fell_back_to_home: bool,
    /// Tasks still running in the detached directory; they are not stopped.
    pub running_tasks: usize,
}

impl Workspaces<'_> {
    /// Attaches the existing directory `path` (absolute, or relative to the working
    /// directory) as a workspace (AttachWorkspace). A directory attached already
    /// returns its binding; one inside or around a bound directory or the state
    /// directory is refused.
    pub fn attach(&self, path: &str) -> Result<Attached, WorkspaceError> {
        let requested = Path::new(path);
        let joined = if requested.is_absolute() {
            requested.to_path_buf()
        } else {
            self.rt.workspace_roots().active().join(requested)
        };
        let canonical = existing_directory(&joined, path)?;
        let edit = self.rt.bindings().edit();
        let state = edit.state()?;
        if let Some(existing) = state.workspaces.iter().find(|w| w.path == canonical) {
            return Ok(self.attached(&state, existing.clone(), true));
        }
        self.check_overlap(&state, &canonical, path)?;
        let name = canonical
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let binding = WorkspaceBinding {
            workspace_id: state.fresh_id("ws", &name),
            path: canonical,
            kind: WorkspaceKind::Attached,
            attached_at_ms: now_ms(),
        };
        let state = edit.attach(&binding)?;
        Ok(self.attached(&state, binding, false))
    }

    fn attached(
        &self,
        state: &BindingState,
        workspace: WorkspaceBinding,
        already: bool,
    ) -> Attached {
        Attached {
            is_git_repository: git_worktrees::is_repository(self.rt.git(), &workspace.path),
            workspace_count: state.workspaces.len(),
            already_attached: already,
            workspace,
        }
    }

    /// Refuses a directory nested in a bound directory (workspace or worktree) or in
    /// the state directory, or containing one.
    fn check_overlap(
        &self,
        state: &BindingState,
        path: &Path,
        shown: &str,
    ) -> Result<(), WorkspaceError> {
        let overlap = |other: &Path| path.starts_with(other) || other.starts_with(path);
        if let Some(other) = state.execution_roots().find(|root| overlap(root.path)) {
            let relation = if path.starts_with(other.path) {
                "is inside"
            } else {
                "contains"
            };
            return Err(error(
                WorkspaceErrorKind::WorkspaceOverlaps,
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
        let state_dir = self
            .rt
            .state_dir()
            .and_then(|dir| open_dir_path(dir).ok())
            .map(|dir| dir.path().to_path_buf());
        if let Some(state_dir) = state_dir
            && overlap(&state_dir)
        {
            return Err(error(
                WorkspaceErrorKind::WorkspaceOverlaps,
                format!("`{shown}` overlaps the runtime's state directory"),
            )
            .with_field("path")
            .with_hint("the state directory holds the runtime's store and cannot be a workspace"));
        }
        Ok(())
    }

    /// Detaches the attached workspace `workspace_id` (DetachWorkspace); home becomes
    /// active when it was. Home, and a workspace with worktrees, are refused.
    pub fn detach(&self, workspace_id: &str) -> Result<Detached, WorkspaceError> {
        let edit = self.rt.bindings().edit();
        let state = edit.state()?;
        let Some(workspace) = state.workspace(workspace_id).cloned() else {
            return Err(unknown_workspace(&state, workspace_id, "workspace_id"));
        };
        if workspace.kind == WorkspaceKind::Home {
            return Err(error(
                WorkspaceErrorKind::CannotDetachHome,
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
                WorkspaceErrorKind::WorkspaceHasWorktrees,
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
        let state = edit.detach(&workspace.workspace_id, was_active.then_some(&home))?;
        let workdirs = self.rt.bindings().running_task_workdirs()?;
        Ok(Detached {
            active_execution_root_id: state
                .active_root()
                .map_or(HOME_WORKSPACE_ID, |a| a.execution_root_id)
                .to_string(),
            fell_back_to_home: was_active,
            running_tasks: tasks_in(&workspace.path, &[], &workdirs),
            workspace,
        })
    }
}

/// The canonical form of `path`, which must be an existing directory.
fn existing_directory(path: &Path, shown: &str) -> Result<PathBuf, WorkspaceError> {
    let canonical = match open_dir_path(path) {
        Ok(dir) => dir.path().to_path_buf(),
        Err(DirPathError::Unresolved(e)) => {
            return Err(error(
                WorkspaceErrorKind::WorkspacePathNotFound,
                format!("`{shown}` cannot be attached: {e}"),
            )
            .with_field("path")
            .with_hint("give an existing directory; AttachWorkspace does not create directories"));
        }
        Err(DirPathError::NotADirectory(_)) => {
            return Err(error(
                WorkspaceErrorKind::NotADirectory,
                format!("`{shown}` is a file, not a directory"),
            )
            .with_field("path")
            .with_hint("attach the directory that holds it"));
        }
    };
    if canonical.to_str().is_none() {
        return Err(error(
            WorkspaceErrorKind::PathNotUtf8,
            format!("`{shown}` resolves to a path that is not valid UTF-8"),
        )
        .with_field("path"));
    }
    Ok(canonical)
}
