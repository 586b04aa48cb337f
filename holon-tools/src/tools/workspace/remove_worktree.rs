//! `RemoveWorktree`: `git worktree remove`, refusing uncommitted work.

use std::path::Path;

use holon_core::closest;
use holon_core::prelude::*;

use super::errors::{error, store_error, tasks_in, unknown_execution_root};
use super::git;
use holon_runtime::Runtime;
use holon_runtime::bindings::{ActiveRoot, BindingState};
use holon_runtime::git::Git;

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
#[holon_tool(family = AuthorityExpanding, annotations(destructive, open_world = false))]
fn remove_worktree(
    rt: &Runtime,
    args: RemoveWorktreeArgs,
) -> Result<ToolOutput<WorktreeRemoved>, ToolError> {
    let edit = rt.bindings().edit();
    let state = edit.state().map_err(store_error)?;
    let Some(worktree) = state.worktree(&args.execution_root_id).cloned() else {
        return Err(not_found(&state, &args.execution_root_id));
    };
    let return_to = match &args.return_to {
        Some(id) if id == &worktree.execution_root_id => {
            return Err(error(
                "invalid_return_to",
                "`return_to` names the worktree being removed",
            )
            .with_field("return_to")
            .with_hint(
                "name another execution root, or leave `return_to` out to return to the workspace",
            ));
        }
        Some(id) => state
            .execution_root(id)
            .ok_or_else(|| unknown_execution_root(&state, id, "return_to"))?
            .execution_root_id
            .to_string(),
        None => worktree.workspace_id.clone(),
    };
    let repo = state
        .workspace(&worktree.workspace_id)
        .map(|w| w.path.clone())
        .filter(|p| p.is_dir())
        .ok_or_else(|| {
            error(
                "workspace_missing",
                format!(
                    "the repository of `{}` (workspace `{}`) is gone",
                    worktree.execution_root_id, worktree.workspace_id
                ),
            )
        })?;
    // The recorded active root, whether or not its directory still exists.
    let was_active = state.active.execution_root_id == worktree.execution_root_id;
    let present = worktree.path.is_dir();
    if present {
        let changes = git::uncommitted_changes(rt.git(), &worktree.path)?;
        if !changes.is_empty() {
            return Err(dirty(&worktree.execution_root_id, &changes));
        }
        let workdirs = rt.bindings().running_task_workdirs().map_err(store_error)?;
        let running = tasks_in(&worktree.path, &[], &workdirs);
        if running > 0 {
            return Err(error(
                "worktree_in_use",
                format!(
                    "{running} task(s) are running in `{}`",
                    worktree.execution_root_id
                ),
            )
            .with_field("execution_root_id")
            .with_hint(
                "wait for them or stop them (ListTasks, TaskStop), then remove the worktree",
            ));
        }
    }
    let delete_target = match args.branch_policy {
        Some(BranchPolicy::DeleteIfMerged) => {
            let target = args
                .merged_into
                .clone()
                .unwrap_or_else(|| worktree.base_ref.clone());
            let commit = (!target.starts_with('-'))
                .then(|| git::resolve_commit(rt.git(), &repo, &target))
                .transpose()?
                .flatten()
                .ok_or_else(|| {
                    error("unknown_ref", format!("`{target}` does not name a commit"))
                        .with_field("merged_into")
                        .with_hint("give the branch the work was merged into, for example `main`")
                })?;
            Some((target, commit))
        }
        _ => None,
    };
    let path_text = worktree.path.to_string_lossy().into_owned();
    if present {
        git::git_ok(
            rt.git(),
            &repo,
            &["worktree", "remove", &path_text],
            "removing the worktree",
        )?;
    } else {
        git::git_ok(
            rt.git(),
            &repo,
            &["worktree", "prune"],
            "pruning the missing worktree",
        )?;
    }
    let (branch_deleted, branch_kept_reason) = match delete_target {
        Some((target, commit)) => {
            delete_branch(rt.git(), &repo, &worktree.branch, &target, &commit)?
        }
        None => (false, None),
    };
    let active = ActiveRoot {
        execution_root_id: return_to,
        cwd: None,
    };
    let state = edit
        .remove_worktree(&worktree.execution_root_id, was_active.then_some(&active))
        .map_err(store_error)?;
    let result = WorktreeRemoved {
        removed_execution_root_id: worktree.execution_root_id,
        removed_path: path_text,
        branch_name: worktree.branch,
        branch_deleted,
        branch_kept_reason,
        directory_was_missing: !present,
        active_execution_root_id: state
            .active_root()
            .map(|a| a.execution_root_id.to_string())
            .unwrap_or_default(),
        switched_active: was_active,
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

/// Deletes `branch` when its tip is an ancestor of `commit` (the resolved `target`).
fn delete_branch(
    runner: Git<'_>,
    repo: &Path,
    branch: &str,
    target: &str,
    commit: &str,
) -> Result<(bool, Option<String>), ToolError> {
    let reference = format!("refs/heads/{branch}");
    if !git::branch_exists(runner, repo, branch)? {
        return Ok((
            false,
            Some(format!("the branch `{branch}` no longer exists")),
        ));
    }
    if !git::is_ancestor(runner, repo, &reference, commit)? {
        return Ok((
            false,
            Some(format!("`{branch}` is not merged into `{target}`")),
        ));
    }
    let output = git::git(runner, repo, &["branch", "-D", branch])?;
    if output.success {
        Ok((true, None))
    } else {
        Ok((
            false,
            Some(format!("git refused to delete it: {}", output.stderr)),
        ))
    }
}

fn not_found(state: &BindingState, id: &str) -> ToolError {
    if state.workspace(id).is_some() {
        return error(
            "not_a_worktree",
            format!("`{id}` is a workspace, not a worktree"),
        )
        .with_field("execution_root_id")
        .with_hint("RemoveWorktree removes worktrees made by CreateWorktree; DetachWorkspace lets a workspace go");
    }
    let ids: Vec<&str> = state
        .worktrees
        .iter()
        .map(|w| w.execution_root_id.as_str())
        .collect();
    let hint = match closest(id, ids.iter().copied()) {
        Some(best) => format!("did you mean `{best}`?"),
        None if ids.is_empty() => "there are no worktrees; CreateWorktree makes one".to_string(),
        None => format!("worktrees: {}", ids.join(", ")),
    };
    error(
        "worktree_not_found",
        format!("no worktree has the id `{id}`"),
    )
    .with_field("execution_root_id")
    .with_details(serde_json::json!({ "execution_root_ids": ids }))
    .with_hint(hint)
}

fn dirty(id: &str, changes: &[String]) -> ToolError {
    const SHOWN: usize = 20;
    let shown: Vec<&str> = changes.iter().take(SHOWN).map(String::as_str).collect();
    error(
        "worktree_dirty",
        format!(
            "`{id}` has {} uncommitted change(s): {}{}",
            changes.len(),
            shown.join("; "),
            if changes.len() > SHOWN { "; ..." } else { "" }
        ),
    )
    .with_field("execution_root_id")
    .with_details(serde_json::json!({ "changes": shown, "change_count": changes.len() }))
    .with_hint("commit the changes (or discard them) in the worktree, then remove it again; nothing was removed")
}
