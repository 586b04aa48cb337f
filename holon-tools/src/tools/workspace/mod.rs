//! The workspace plane: the files the agent works on and where it works.
//!
//! ApplyPatch edits files. GetWorkspaceState, AttachWorkspace, DetachWorkspace and
//! SwitchWorkspace manage the bound workspaces and the active one; CreateWorktree and
//! RemoveWorktree manage git worktrees of them. Each calls one operation of the
//! runtime's workspace service ([`holon_runtime::Runtime::workspaces`]) and shapes
//! its record into the result.

mod apply_patch;
mod attach;
mod create_worktree;
mod get_workspace_state;
mod remove_worktree;
mod switch;

pub use apply_patch::{ApplyPatchArgs, ChangedFile, PatchApplied};
pub use attach::{AttachWorkspaceArgs, DetachWorkspaceArgs, WorkspaceAttached, WorkspaceDetached};
pub use create_worktree::{CreateWorktreeArgs, OnExisting, WorktreeCreated};
pub use get_workspace_state::{WorkspaceEntry, WorkspaceState, WorktreeEntry};
pub use remove_worktree::{BranchPolicy, RemoveWorktreeArgs, WorktreeRemoved};
pub use switch::{SwitchWorkspaceArgs, WorkspaceSwitched, exactly_one_target};
