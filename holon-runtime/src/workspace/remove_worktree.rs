//! Removing a worktree: `git worktree remove` (refusing uncommitted work and running
//! tasks), the branch deleted when asked and merged, then the binding.

use std::path::Path;

use super::errors::{
    WorkspaceError, WorkspaceErrorKind, error, tasks_in, unknown_execution_root, unknown_id,
};
use super::{Workspaces, git_worktrees as git, is_open_dir};
use crate::bindings::{ActiveRoot, BindingState, WorktreeBinding};
use crate::git::Git;

/// What RemoveWorktree asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorktreeRemoval<'a> {
    /// The worktree, by execution root id.
    pub execution_root_id: &'a str,
    /// Whether its branch is deleted when merged into `merged_into`.
    pub delete_branch_if_merged: bool,
    /// The ref the branch must be merged into; default: the worktree's `base_ref`.
    pub merged_into: Option<&'a str>,
    /// The execution root made active when the worktree was; default: its workspace.
    pub return_to: Option<&'a str>,
}

/// A worktree just removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemovedWorktree {
    /// Its former binding.
    pub worktree: WorktreeBinding,
    /// Whether the branch was deleted.
    pub branch_deleted: bool,
    /// Why the branch was kept, when its deletion was asked for.
    pub branch_kept_reason: Option<String>,
    /// True when its directory was already gone (git's record was pruned).
    pub directory_was_missing: bool,
    /// The active execution root now ("" when none is).
    pub active_execution_root_id: String,
    /// Whether the removal changed the active execution root.
    pub switched_active: bool,
}

impl Workspaces<'_> {
    /// Removes the worktree `request.execution_root_id` (RemoveWorktree).
    pub fn remove_worktree(
        &self,
        request: &WorktreeRemoval<'_>,
    ) -> Result<RemovedWorktree, WorkspaceError> {
        let rt = self.rt;
        let edit = rt.bindings().edit();
        let state = edit.state()?;
        let Some(worktree) = state.worktree(request.execution_root_id).cloned() else {
            return Err(not_found(&state, request.execution_root_id));
        };
        let return_to = match request.return_to {
            Some(id) if id == worktree.execution_root_id => {
                return Err(error(
                    WorkspaceErrorKind::InvalidReturnTo,
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
            .filter(|p| is_open_dir(p))
            .ok_or_else(|| {
                error(
                    WorkspaceErrorKind::WorkspaceMissing,
                    format!(
                        "the repository of `{}` (workspace `{}`) is gone",
                        worktree.execution_root_id, worktree.workspace_id
                    ),
                )
            })?;
        // The recorded active root, whether or not its directory still exists.
        let was_active = state.active.execution_root_id == worktree.execution_root_id;
        let present = is_open_dir(&worktree.path);
        if present {
            let changes = git::uncommitted_changes(rt.git(), &worktree.path)?;
            if !changes.is_empty() {
                return Err(dirty(&worktree.execution_root_id, &changes));
            }
            let workdirs = rt.bindings().running_task_workdirs()?;
            let running = tasks_in(&worktree.path, &[], &workdirs);
            if running > 0 {
                return Err(error(
                    WorkspaceErrorKind::WorktreeInUse,
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
        let delete_target = if request.delete_branch_if_merged {
            let target = request
                .merged_into
                .map_or_else(|| worktree.base_ref.clone(), str::to_string);
            let commit = (!target.starts_with('-'))
                .then(|| git::resolve_commit(rt.git(), &repo, &target))
                .transpose()?
                .flatten()
                .ok_or_else(|| {
                    error(
                        WorkspaceErrorKind::UnknownRef,
                        format!("`{target}` does not name a commit"),
                    )
                    .with_field("merged_into")
                    .with_hint("give the branch the work was merged into, for example `main`")
                })?;
            Some((target, commit))
        } else {
            None
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
        let state =
            edit.remove_worktree(&worktree.execution_root_id, was_active.then_some(&active))?;
        Ok(RemovedWorktree {
            worktree,
            branch_deleted,
            branch_kept_reason,
            directory_was_missing: !present,
            active_execution_root_id: state
                .active_root()
                .map(|a| a.execution_root_id.to_string())
                .unwrap_or_default(),
            switched_active: was_active,
        })
    }
}

/// Deletes `branch` when its tip is an ancestor of `commit` (the resolved `target`).
fn delete_branch(
    runner: Git<'_>,
    repo: &Path,
    branch: &str,
    target: &str,
    commit: &str,
) -> Result<(bool, Option<String>), WorkspaceError> {
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

fn not_found(state: &BindingState, id: &str) -> WorkspaceError {
    if state.workspace(id).is_some() {
        return error(
            WorkspaceErrorKind::NotAWorktree,
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
    unknown_id(
        WorkspaceErrorKind::WorktreeNotFound,
        format!("no worktree has the id `{id}`"),
        (id, "execution_root_id"),
        ("execution_root_ids", &ids),
        |best| match best {
            Some(best) => format!("did you mean `{best}`?"),
            None if ids.is_empty() => {
                "there are no worktrees; CreateWorktree makes one".to_string()
            }
            None => format!("worktrees: {}", ids.join(", ")),
        },
    )
}

fn dirty(id: &str, changes: &[String]) -> WorkspaceError {
    const SHOWN: usize = 20;
    let shown: Vec<&str> = changes.iter().take(SHOWN).map(String::as_str).collect();
    error(
        WorkspaceErrorKind::WorktreeDirty,
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
