//! `RemoveWorktree`: `git worktree remove`, refusing uncommitted work.

use holon_core::prelude::*;

use holon_runtime::Runtime;
use holon_runtime::workspace::WorktreeRemoval;

/// What happens to the worktree's branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case")]
pub enum BranchPolicy {
    /// Leave the branch alone.
    Keep,
    /// Delete it when it is merged into `merged_into`.
    DeleteIfMerged,
}

/// Arguments of RemoveWorktree.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct RemoveWorktreeArgs {
    /// The worktree to remove, by the id CreateWorktree returned.
    #[schemars(length(min = 1))]
    pub execution_root_id: String,
    /// `keep` (the default) leaves the branch; `delete_if_merged` deletes it when its
    /// last commit is merged into `merged_into`, and keeps it (saying why) otherwise.
    #[serde(default)]
    pub branch_policy: Option<BranchPolicy>,
    /// The ref the branch must be merged into for `delete_if_merged`. Default: the
    /// `base_ref` the worktree was created from.
    #[serde(default)]
    #[schemars(length(min = 1, max = 200))]
    pub merged_into: Option<String>,
    /// The execution root to make active when the removed worktree was the active one.
    /// Default: the worktree's own workspace.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub return_to: Option<String>,
}

/// What was removed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WorktreeRemoved {
    /// The id of the removed worktree.
    pub removed_execution_root_id: String,
    /// Its former path.
    pub removed_path: String,
    /// Its branch.
    pub branch_name: String,
    /// Whether the branch was deleted.
    pub branch_deleted: bool,
    /// Why the branch was kept, when `delete_if_merged` kept it.
    pub branch_kept_reason: Option<String>,
    /// True when its directory was already gone (git's record was pruned).
    pub directory_was_missing: bool,
    /// The active execution root now.
    pub active_execution_root_id: String,
    /// Whether the removal changed the active execution root.
    pub switched_active: bool,
}

/// Remove a worktree made by CreateWorktree: `git worktree remove`, then the binding.
///
/// A worktree with uncommitted changes (modified, staged or untracked files) is refused
/// with `worktree_dirty`, listing them: commit or discard them first. A worktree where
/// tasks are still running is refused with `worktree_in_use`. The branch is kept unless
/// `branch_policy` is `delete_if_merged` and it is merged into `merged_into`. When the
/// removed worktree was active, `return_to` (default: its workspace) becomes active.
#[holon_tool(
    family = AuthorityExpanding,
    keywords = ["git worktree remove", "delete checkout", "clean up branch", "discard"],
    annotations(destructive, open_world = false)
)]
fn remove_worktree(
    rt: &Runtime,
    args: RemoveWorktreeArgs,
) -> Result<ToolOutput<WorktreeRemoved>, ToolError> {
    let removed = rt.workspaces().remove_worktree(&WorktreeRemoval {
        execution_root_id: &args.execution_root_id,
        delete_branch_if_merged: args.branch_policy == Some(BranchPolicy::DeleteIfMerged),
        merged_into: args.merged_into.as_deref(),
        return_to: args.return_to.as_deref(),
    })?;
    let result = WorktreeRemoved {
        removed_execution_root_id: removed.worktree.execution_root_id,
        removed_path: removed.worktree.path.to_string_lossy().into_owned(),
        branch_name: removed.worktree.branch,
        branch_deleted: removed.branch_deleted,
        branch_kept_reason: removed.branch_kept_reason,
        directory_was_missing: removed.directory_was_missing,
        active_execution_root_id: removed.active_execution_root_id,
        switched_active: removed.switched_active,
    };
    let summary = format!(
        "removed worktree {}{}",
        result.removed_execution_root_id,
        if result.branch_deleted {
            format!("; deleted branch {}", result.branch_name)
        } else {
            String::new()
        }
    );
    Ok(ToolOutput::new(result).with_summary(summary))
}
