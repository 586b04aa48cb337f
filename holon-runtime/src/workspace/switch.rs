//! Switching the active execution root and the working directory inside it.

use std::path::{Path, PathBuf};

use super::errors::{
    WorkspaceError, WorkspaceErrorKind, error, unknown_execution_root, unknown_workspace,
};
use super::{Workspaces, is_open_dir};
use crate::bindings::{ActiveRoot, HOME_WORKSPACE_ID};
use holon_gates::fs::{DirPathError, open_dir_path};

/// Where to switch to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwitchTarget<'a> {
    /// A bound workspace's own directory, by id.
    Workspace(&'a str),
    /// An execution root (a worktree, or a workspace), by id.
    ExecutionRoot(&'a str),
    /// The execution root holding this directory (absolute, or relative to the
    /// working directory), which becomes the working directory.
    Path(&'a str),
}

/// The active root after a switch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Switched {
    /// The workspace the active execution root belongs to.
    pub active_workspace_id: String,
    /// The active execution root.
    pub active_execution_root_id: String,
    /// Its path, as the roots tools are confined to have it now.
    pub active_root: PathBuf,
    /// Where relative paths resolve now.
    pub working_directory: PathBuf,
    /// The execution root that was active before.
    pub previous_execution_root_id: String,
}

impl Workspaces<'_> {
    /// Makes `target` the active execution root (SwitchWorkspace), with `cwd` (a
    /// directory inside it, relative to the target) as the working directory.
    pub fn switch(
        &self,
        target: SwitchTarget<'_>,
        cwd: Option<&str>,
    ) -> Result<Switched, WorkspaceError> {
        let current = self.rt.workspace_roots();
        let edit = self.rt.bindings().edit();
        let state = edit.state()?;
        let previous = state
            .active_root()
            .map_or(HOME_WORKSPACE_ID, |a| a.execution_root_id)
            .to_string();
        let (root, start, base_field) = match target {
            SwitchTarget::Workspace(id) => {
                let root = state
                    .workspace(id)
                    .and_then(|w| state.execution_root(&w.workspace_id))
                    .ok_or_else(|| unknown_workspace(&state, id, "workspace_id"))?;
                (root, root.path.to_path_buf(), "workspace_id")
            }
            SwitchTarget::ExecutionRoot(id) => {
                let root = state
                    .execution_root(id)
                    .ok_or_else(|| unknown_execution_root(&state, id, "execution_root_id"))?;
                (root, root.path.to_path_buf(), "execution_root_id")
            }
            SwitchTarget::Path(shown) => {
                let dir = directory(&current.active().join(shown), shown, "path")?;
                let root = state.execution_root_containing(&dir).ok_or_else(|| {
                    error(
                        WorkspaceErrorKind::PathOutsideWorkspace,
                        format!("`{shown}` ({}) is not inside a bound workspace or worktree", dir.display()),
                    )
                    .with_field("path")
                    .with_hint("attach its workspace with AttachWorkspace first, or give a path inside one (GetWorkspaceState lists them)")
                })?;
                (root, dir, "path")
            }
        };
        if !is_open_dir(root.path) {
            return Err(error(
                WorkspaceErrorKind::ExecutionRootMissing,
                format!(
                    "the directory of `{}` ({}) no longer exists",
                    root.execution_root_id,
                    root.path.display()
                ),
            )
            .with_field(base_field)
            .with_hint("remove it (RemoveWorktree or DetachWorkspace) or switch elsewhere"));
        }
        let working = match cwd {
            Some(cwd) => directory(&start.join(cwd), cwd, "cwd")?,
            None => start,
        };
        let relative = working.strip_prefix(root.path).map_err(|_| {
            error(
                WorkspaceErrorKind::PathOutsideWorkspace,
                format!(
                    "the working directory {} is outside `{}` ({})",
                    working.display(),
                    root.execution_root_id,
                    root.path.display()
                ),
            )
            .with_field(if cwd.is_some() { "cwd" } else { base_field })
            .with_hint("give a `cwd` relative to the target that stays inside it")
        })?;
        let active = ActiveRoot {
            execution_root_id: root.execution_root_id.to_string(),
            cwd: relative
                .to_str()
                .filter(|r| !r.is_empty())
                .map(str::to_string),
        };
        let state = edit.set_active(&active)?;
        drop(edit);
        let roots = self.rt.workspace_roots();
        Ok(Switched {
            active_workspace_id: state
                .active_root()
                .map_or(HOME_WORKSPACE_ID, |a| a.workspace_id)
                .to_string(),
            active_execution_root_id: active.execution_root_id,
            active_root: roots.active_root().to_path_buf(),
            working_directory: roots.active().to_path_buf(),
            previous_execution_root_id: previous,
        })
    }
}

/// The canonical form of `path`, which must be an existing directory.
fn directory(path: &Path, shown: &str, field: &str) -> Result<PathBuf, WorkspaceError> {
    match open_dir_path(path) {
        Ok(dir) => Ok(dir.path().to_path_buf()),
        Err(DirPathError::Unresolved(e)) => Err(error(
            WorkspaceErrorKind::DirectoryNotFound,
            format!("`{shown}` cannot be used: {e}"),
        )
        .with_field(field)
        .with_hint("give an existing directory")),
        Err(DirPathError::NotADirectory(_)) => Err(error(
            WorkspaceErrorKind::NotADirectory,
            format!("`{shown}` is not a directory"),
        )
        .with_field(field)
        .with_hint("give the directory that holds it")),
    }
}
