//! Where a worktree may be bound: inside the runtime's worktree directory or a bound
//! workspace, checked through the filesystem gate (the directory is opened and its
//! ancestry compared by device and inode), never by the path git printed.

use std::path::Path;

use super::errors::{WorkspaceError, WorkspaceErrorKind, error, io_error};
use crate::bindings::BindingState;
use holon_gates::fs::{RootDir, RootRefusal, is_beneath_any, root_refusal};

/// Refuses `path` unless it is a directory inside `worktrees` (the runtime's
/// worktree directory) or a bound workspace.
pub(super) fn ensure_allowed(
    worktrees: &Path,
    state: &BindingState,
    path: &Path,
    field: &str,
) -> Result<(), WorkspaceError> {
    let mut allowed: Vec<&Path> = vec![worktrees];
    allowed.extend(state.workspaces.iter().map(|w| w.path.as_path()));
    let inside = is_beneath_any(path, &allowed)
        .map_err(|e| io_error("checking where the worktree is", path, &e))?;
    // A `.git` directory (or one inside it) is never a worktree, wherever it is.
    let in_git = RootDir::open(path)
        .ok()
        .and_then(|dir| root_refusal(&dir, None, None).ok().flatten())
        == Some(RootRefusal::GitDir);
    if inside && !in_git {
        return Ok(());
    }
    let place = if in_git {
        "inside a `.git` directory"
    } else {
        "outside the runtime's worktree directory and every bound workspace"
    };
    Err(error(
        WorkspaceErrorKind::WorktreeOutsideAllowed,
        format!(
            "git lists a worktree at {}, {place}; it is not bound",
            path.display()
        ),
    )
    .with_field(field)
    .with_hint("the repository's worktree records (`.git/worktrees/`) may have been tampered with: ask the operator to check them (`git worktree list`, `git worktree prune`), or create the worktree on another branch"))
}
