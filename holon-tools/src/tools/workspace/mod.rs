//! The workspace plane: the files the agent works on and where it works.
//!
//! ApplyPatch edits files. GetWorkspaceState, AttachWorkspace, DetachWorkspace and
//! SwitchWorkspace manage the bound workspaces and the active one; CreateWorktree and
//! RemoveWorktree manage git worktrees of them. The bindings themselves are runtime
//! state ([`holon_runtime::bindings`]).

mod apply_patch;
mod attach;
mod child_worktree;
mod create_worktree;
mod errors;
mod get_workspace_state;
mod git;
mod remove_worktree;
mod switch;
mod worktree_place;

pub use apply_patch::{ApplyPatchArgs, ChangedFile, PatchApplied};
pub use attach::{AttachWorkspaceArgs, DetachWorkspaceArgs, WorkspaceAttached, WorkspaceDetached};
pub(crate) use child_worktree::ChildWorktreePlan;
pub use create_worktree::{CreateWorktreeArgs, OnExisting, WorktreeCreated};
pub use get_workspace_state::{WorkspaceEntry, WorkspaceState, WorktreeEntry};
pub use remove_worktree::{BranchPolicy, RemoveWorktreeArgs, WorktreeRemoved};
pub use switch::{SwitchWorkspaceArgs, WorkspaceSwitched, exactly_one_target};
