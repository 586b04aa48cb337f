//! `CreateWorktree`: a real `git worktree add`, bound as an execution root.

use holon_core::prelude::*;

use holon_runtime::Runtime;
use holon_runtime::workspace::NewWorktree;

/// What CreateWorktree does when `branch` already exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case")]
pub enum OnExisting {
    /// Use the existing branch.
    Reuse,
    /// Fail with `branch_exists`.
    Error,
}

fn yes() -> bool {
    true
}

/// Arguments of CreateWorktree.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct CreateWorktreeArgs {
    /// The workspace whose git repository gets the worktree (`home`, or an attached
    /// workspace's id).
    #[schemars(length(min = 1))]
    pub workspace_id: String,
    /// The branch to check out in the worktree. A branch that does not exist is
    /// created from `base_ref`.
    #[schemars(length(min = 1, max = 200))]
    pub branch: String,
    /// The commit, branch or tag a new branch starts from (for example `main` or
    /// `HEAD`). It must exist even when the branch does.
    #[schemars(length(min = 1, max = 200))]
    pub base_ref: String,
    /// A short human label; it names the worktree's id (`wt-<label>`) instead of the
    /// branch.
    #[serde(default)]
    #[schemars(length(min = 1, max = 80))]
    pub label: Option<String>,
    /// When `branch` already exists: `error` (the default) fails with
    /// `branch_exists`; `reuse` checks the existing branch out in a new worktree, or
    /// returns the worktree that already has it checked out.
    #[serde(default)]
    pub on_existing: Option<OnExisting>,
    /// Make the worktree the active execution root. Default true.
    #[serde(default = "yes")]
    pub activate: bool,
}

/// The worktree.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WorktreeCreated {
    /// Its execution root id, for SwitchWorkspace and RemoveWorktree.
    pub execution_root_id: String,
    /// Its absolute path.
    pub root_path: String,
    /// The workspace whose repository it belongs to.
    pub owner_workspace_id: String,
    /// The branch checked out in it.
    pub branch_name: String,
    /// Whether the branch was created from `base_ref`.
    pub branch_created: bool,
    /// True when an existing worktree was returned (`on_existing: reuse`).
    pub reused: bool,
    /// The commit checked out.
    pub head_commit: String,
    /// Whether it is the active execution root now.
    pub is_active: bool,
}

/// Create a git worktree of a workspace's repository with `git worktree add`, on a new
/// branch made from `base_ref`, or on an existing branch with `on_existing: reuse`.
///
/// The worktree is a separate checkout in its own directory (under the runtime's state
/// directory), so work on the branch does not disturb the workspace's own checkout. It
/// becomes an execution root with an id of its own and, unless `activate` is false,
/// the active one: relative paths and commands then work in it. Remove it with
/// RemoveWorktree when done. Errors: `not_a_git_repository`, `invalid_branch_name`,
/// `unknown_base_ref`, `branch_exists`, `branch_checked_out`, and
/// `worktree_outside_allowed` when git lists the branch's worktree outside the
/// runtime's worktree directory and every bound workspace.
#[holon_tool(
    family = LocalEnvironment,
    keywords = ["branch", "checkout", "git worktree add", "isolated copy"],
    annotations(open_world = false)
)]
fn create_worktree(
    rt: &Runtime,
    args: CreateWorktreeArgs,
) -> Result<ToolOutput<WorktreeCreated>, ToolError> {
    let created = rt.workspaces().create_worktree(&NewWorktree {
        workspace_id: &args.workspace_id,
        branch: &args.branch,
        base_ref: &args.base_ref,
        label: args.label.as_deref(),
        reuse_existing: args.on_existing == Some(OnExisting::Reuse),
        activate: args.activate,
    })?;
    let worktree = created.worktree;
    let result = WorktreeCreated {
        execution_root_id: worktree.execution_root_id,
        root_path: worktree.path.to_string_lossy().into_owned(),
        owner_workspace_id: worktree.workspace_id,
        branch_name: worktree.branch,
        branch_created: created.branch_created,
        reused: created.reused,
        head_commit: created.head_commit,
        is_active: created.is_active,
    };
    let summary = format!(
        "{} worktree {} on branch {} at {}",
        if result.reused { "reused" } else { "created" },
        result.execution_root_id,
        result.branch_name,
        result.root_path
    );
    Ok(ToolOutput::new(result).with_summary(summary))
}
