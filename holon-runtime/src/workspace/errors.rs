//! The workspace service's error type and the constructors its operations share.
//!
//! Every kind has a stable snake_case wire name a model or host can match on.
//! [`WorkspaceError`] is what the service returns; tools get a [`ToolError`] through
//! `From`, field for field.
//!
//! [`ToolError`]: holon_core::ToolError

use std::path::{Path, PathBuf};

use holon_core::{ToolErrorKind, closest};

use crate::StoreError;
use crate::bindings::BindingState;
use crate::service_error::{ServiceError, ServiceErrorKind};

/// What went wrong in the workspace service.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WorkspaceErrorKind {
    /// The store holding the bindings failed, or no execution root is active.
    WorkspaceStateError,
    /// A directory could not be prepared or read.
    WorkspaceIoError,
    /// No workspace is bound with the id.
    UnknownWorkspace,
    /// No execution root has the id.
    UnknownExecutionRoot,
    /// The `git` binary could not be run.
    GitUnavailable,
    /// A git command that must succeed failed.
    GitFailed,
    /// The directory is not inside a git repository.
    NotAGitRepository,
    /// Git lists the worktree outside the runtime's worktree directory and every bound
    /// workspace.
    WorktreeOutsideAllowed,
    /// The base ref names no commit.
    UnknownBaseRef,
    /// The branch already exists.
    BranchExists,
    /// The text is not a valid git branch name.
    InvalidBranchName,
    /// The branch is checked out in the repository's main working tree.
    BranchCheckedOut,
    /// The directory to attach does not resolve.
    WorkspacePathNotFound,
    /// The path names something that is not a directory.
    NotADirectory,
    /// The directory's path is not valid UTF-8.
    PathNotUtf8,
    /// The directory is inside, or contains, a bound directory or the state directory.
    WorkspaceOverlaps,
    /// The home workspace cannot be detached.
    CannotDetachHome,
    /// The workspace still has worktrees.
    WorkspaceHasWorktrees,
    /// `return_to` names the worktree being removed.
    InvalidReturnTo,
    /// The repository of a worktree is gone.
    WorkspaceMissing,
    /// Tasks are running in the worktree.
    WorktreeInUse,
    /// The ref names no commit.
    UnknownRef,
    /// No worktree has the id.
    WorktreeNotFound,
    /// The id names a workspace, not a worktree.
    NotAWorktree,
    /// The worktree has uncommitted changes.
    WorktreeDirty,
    /// The path is not inside a bound workspace or worktree.
    PathOutsideWorkspace,
    /// The directory of an execution root no longer exists.
    ExecutionRootMissing,
    /// The directory to switch to does not resolve.
    DirectoryNotFound,
}

impl WorkspaceErrorKind {
    /// The wire name, the `kind` of the tool error.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::WorkspaceStateError => "workspace_state_error",
            Self::WorkspaceIoError => "workspace_io_error",
            Self::UnknownWorkspace => "unknown_workspace",
            Self::UnknownExecutionRoot => "unknown_execution_root",
            Self::GitUnavailable => "git_unavailable",
            Self::GitFailed => "git_failed",
            Self::NotAGitRepository => "not_a_git_repository",
            Self::WorktreeOutsideAllowed => "worktree_outside_allowed",
            Self::UnknownBaseRef => "unknown_base_ref",
            Self::BranchExists => "branch_exists",
            Self::InvalidBranchName => "invalid_branch_name",
            Self::BranchCheckedOut => "branch_checked_out",
            Self::WorkspacePathNotFound => "workspace_path_not_found",
            Self::NotADirectory => "not_a_directory",
            Self::PathNotUtf8 => "path_not_utf8",
            Self::WorkspaceOverlaps => "workspace_overlaps",
            Self::CannotDetachHome => "cannot_detach_home",
            Self::WorkspaceHasWorktrees => "workspace_has_worktrees",
            Self::InvalidReturnTo => "invalid_return_to",
            Self::WorkspaceMissing => "workspace_missing",
            Self::WorktreeInUse => "worktree_in_use",
            Self::UnknownRef => "unknown_ref",
            Self::WorktreeNotFound => "worktree_not_found",
            Self::NotAWorktree => "not_a_worktree",
            Self::WorktreeDirty => "worktree_dirty",
            Self::PathOutsideWorkspace => "path_outside_workspace",
            Self::ExecutionRootMissing => "execution_root_missing",
            Self::DirectoryNotFound => "directory_not_found",
        }
    }

    /// The tool error kind of the same name.
    pub const fn tool_kind(self) -> ToolErrorKind {
        ToolErrorKind::new(self.as_str())
    }
}

impl std::fmt::Display for WorkspaceErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ServiceErrorKind for WorkspaceErrorKind {
    fn wire_name(self) -> &'static str {
        self.as_str()
    }
}

/// An error of the workspace service: a kind, what went wrong, how to go on, the input
/// field it is about, structured details (such as the bound ids, or git's exit code),
/// and whether retrying may help.
pub type WorkspaceError = ServiceError<WorkspaceErrorKind>;

/// An error of `kind` with `message`.
pub(super) fn error(kind: WorkspaceErrorKind, message: impl Into<String>) -> WorkspaceError {
    WorkspaceError::new(kind, message)
}

impl From<StoreError> for WorkspaceError {
    fn from(store: StoreError) -> Self {
        Self::store_failed(WorkspaceErrorKind::WorkspaceStateError, &store)
    }
}

/// A directory could not be prepared or read.
pub(super) fn io_error(doing: &str, path: &Path, source: &std::io::Error) -> WorkspaceError {
    error(
        WorkspaceErrorKind::WorkspaceIoError,
        format!("{doing} {} failed: {source}", path.display()),
    )
    .retryable()
}

/// An error of `kind` about `requested`, an id that is none of `ids`: the ids go in
/// the details under `key`, and `hint` words the closest of them, if any is close.
pub(super) fn unknown_id(
    kind: WorkspaceErrorKind,
    message: String,
    (requested, field): (&str, &str),
    (key, ids): (&str, &[&str]),
    hint: impl FnOnce(Option<&str>) -> String,
) -> WorkspaceError {
    error(kind, message)
        .with_field(field)
        .with_details(serde_json::json!({ key: ids }))
        .with_hint(hint(closest(requested, ids.iter().copied())))
}

/// No workspace `workspace_id`, with the closest id as a hint.
pub(super) fn unknown_workspace(
    state: &BindingState,
    workspace_id: &str,
    field: &str,
) -> WorkspaceError {
    let ids: Vec<&str> = state
        .workspaces
        .iter()
        .map(|w| w.workspace_id.as_str())
        .collect();
    unknown_id(
        WorkspaceErrorKind::UnknownWorkspace,
        format!("no workspace is bound with the id `{workspace_id}`"),
        (workspace_id, field),
        ("workspace_ids", &ids),
        |best| match best {
            Some(best) => format!("did you mean `{best}`? GetWorkspaceState lists the workspaces"),
            None => format!(
                "bound workspaces: {}; GetWorkspaceState lists them",
                ids.join(", ")
            ),
        },
    )
}

/// No execution root `execution_root_id`, with the closest id as a hint.
pub(super) fn unknown_execution_root(
    state: &BindingState,
    execution_root_id: &str,
    field: &str,
) -> WorkspaceError {
    let ids: Vec<&str> = state.ids().collect();
    unknown_id(
        WorkspaceErrorKind::UnknownExecutionRoot,
        format!("no execution root has the id `{execution_root_id}`"),
        (execution_root_id, field),
        ("execution_root_ids", &ids),
        |best| match best {
            Some(best) => {
                format!("did you mean `{best}`? GetWorkspaceState lists the execution roots")
            }
            None => format!(
                "execution roots: {} (a workspace id names its own directory)",
                ids.join(", ")
            ),
        },
    )
}

/// How many of `workdirs` lie in `root` and in no deeper root of `all_roots`.
pub(super) fn tasks_in(root: &Path, all_roots: &[&Path], workdirs: &[PathBuf]) -> usize {
    workdirs
        .iter()
        .filter(|dir| {
            dir.starts_with(root)
                && !all_roots.iter().any(|other| {
                    other != &root && other.starts_with(root) && dir.starts_with(other)
                })
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::{ActiveRoot, HOME_WORKSPACE_ID, WorkspaceBinding, WorkspaceKind};
    use holon_core::ToolError;

    /// Home and `ws-docs`, home active.
    fn state() -> BindingState {
        let workspace = |id: &str, kind| WorkspaceBinding {
            workspace_id: id.into(),
            path: Path::new("/x").join(id),
            kind,
            attached_at_ms: 0,
        };
        BindingState {
            workspaces: vec![
                workspace(HOME_WORKSPACE_ID, WorkspaceKind::Home),
                workspace("ws-docs", WorkspaceKind::Attached),
            ],
            worktrees: Vec::new(),
            active: ActiveRoot {
                execution_root_id: HOME_WORKSPACE_ID.into(),
                cwd: None,
            },
        }
    }

    #[test]
    fn every_part_survives_the_conversion_to_a_tool_error() {
        let error = error(WorkspaceErrorKind::GitFailed, "adding the worktree failed")
            .with_hint("look at git's message")
            .with_field("branch")
            .with_details(serde_json::json!({ "exit_code": 128 }))
            .retryable();
        let tool = ToolError::from(error.clone());
        assert_eq!(tool.kind.as_str(), "git_failed");
        assert_eq!(tool.message, error.message);
        assert_eq!(tool.recovery_hint.as_deref(), Some("look at git's message"));
        assert_eq!(tool.field.as_deref(), Some("branch"));
        assert_eq!(
            tool.details.as_deref(),
            Some(&serde_json::json!({ "exit_code": 128 }))
        );
        assert!(tool.retryable);
    }

    #[test]
    fn absent_parts_stay_absent_and_not_retryable_stays_so() {
        let tool = ToolError::from(error(
            WorkspaceErrorKind::WorkspaceMissing,
            "the repository is gone",
        ));
        assert_eq!(tool.kind, ToolErrorKind::new("workspace_missing"));
        assert_eq!(tool.field, None);
        assert_eq!(tool.details, None);
        assert_eq!(tool.recovery_hint, None);
        assert!(!tool.retryable);
    }

    #[test]
    fn a_store_failure_is_a_retryable_state_error() {
        let store = StoreError::Sqlite {
            doing: "attaching a workspace".to_string(),
            source: rusqlite::Error::InvalidQuery,
        };
        let expected = ToolError::from(WorkspaceError::store_failed(
            WorkspaceErrorKind::WorkspaceStateError,
            &store,
        ));
        let tool = ToolError::from(WorkspaceError::from(store));
        assert_eq!(tool, expected);
        assert_eq!(tool.kind.as_str(), "workspace_state_error");
        assert!(tool.retryable && tool.recovery_hint.is_some());
    }

    #[test]
    fn an_io_failure_names_the_path_and_is_retryable_without_a_hint() {
        let source = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let tool = ToolError::from(io_error(
            "preparing the worktrees directory",
            Path::new("/x/wt"),
            &source,
        ));
        assert_eq!(tool.kind.as_str(), "workspace_io_error");
        assert_eq!(
            tool.message,
            format!("preparing the worktrees directory /x/wt failed: {source}")
        );
        assert_eq!(tool.recovery_hint, None);
        assert!(tool.retryable);
    }

    #[test]
    fn unknown_ids_keep_their_field_details_and_closest_hint() {
        let tool = ToolError::from(unknown_workspace(&state(), "ws-doc", "workspace_id"));
        assert_eq!(tool.kind.as_str(), "unknown_workspace");
        assert_eq!(tool.field.as_deref(), Some("workspace_id"));
        assert_eq!(
            tool.details.as_deref(),
            Some(&serde_json::json!({ "workspace_ids": ["home", "ws-docs"] }))
        );
        assert_eq!(
            tool.recovery_hint.as_deref(),
            Some("did you mean `ws-docs`? GetWorkspaceState lists the workspaces")
        );
        let tool = ToolError::from(unknown_execution_root(&state(), "zzzzzz", "return_to"));
        assert_eq!(tool.kind.as_str(), "unknown_execution_root");
        assert_eq!(tool.field.as_deref(), Some("return_to"));
        assert_eq!(
            tool.recovery_hint.as_deref(),
            Some("execution roots: home, ws-docs (a workspace id names its own directory)")
        );
        assert!(!tool.retryable);
    }

    #[test]
    fn a_task_counts_in_the_deepest_root_holding_it() {
        let home = Path::new("/x/home");
        let inner = Path::new("/x/home/wt");
        let workdirs = [
            PathBuf::from("/x/home/src"),
            PathBuf::from("/x/home/wt/a"),
            PathBuf::from("/x/elsewhere"),
        ];
        assert_eq!(tasks_in(home, &[home, inner], &workdirs), 1);
        assert_eq!(tasks_in(inner, &[home, inner], &workdirs), 1);
        assert_eq!(tasks_in(home, &[], &workdirs), 2);
    }
}
