//! Creating a git worktree of a bound workspace (a real `git worktree add`), bound as
//! an execution root; or adopting the worktree git already has for the branch.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::errors::{WorkspaceError, WorkspaceErrorKind, error, io_error, unknown_workspace};
use super::{Workspaces, canonical_dir, git_worktrees as git, place};
use crate::bindings::{ActiveRoot, BindingState, BindingsEdit, WorktreeBinding, now_ms};
use holon_gates::fs::{RelPath, RootDir};

/// What CreateWorktree asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewWorktree<'a> {
    /// The workspace whose repository gets the worktree.
    pub workspace_id: &'a str,
    /// The branch to check out; created from `base_ref` when it does not exist.
    pub branch: &'a str,
    /// The commit, branch or tag a new branch starts from; it must exist either way.
    pub base_ref: &'a str,
    /// A label that names the worktree's id instead of the branch.
    pub label: Option<&'a str>,
    /// Whether an existing `branch` is used (checked out anew, or its worktree
    /// returned) instead of refused with `branch_exists`.
    pub reuse_existing: bool,
    /// Whether the worktree becomes the active execution root.
    pub activate: bool,
}

/// A worktree just created or reused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreatedWorktree {
    /// Its binding.
    pub worktree: WorktreeBinding,
    /// Whether the branch was created from `base_ref`.
    pub branch_created: bool,
    /// True when an existing worktree was returned or adopted.
    pub reused: bool,
    /// The commit checked out ("" when git cannot tell).
    pub head_commit: String,
    /// Whether it is the active execution root now.
    pub is_active: bool,
}

impl Workspaces<'_> {
    /// Creates (or, with `reuse_existing`, reuses) a worktree of `request.workspace_id`
    /// on `request.branch` (CreateWorktree). A worktree git lists outside the runtime's
    /// worktree directory and every bound workspace is refused.
    pub fn create_worktree(
        &self,
        request: &NewWorktree<'_>,
    ) -> Result<CreatedWorktree, WorkspaceError> {
        let rt = self.rt;
        let edit = rt.bindings().edit();
        let state = edit.state()?;
        let workspace = state
            .workspace(request.workspace_id)
            .ok_or_else(|| unknown_workspace(&state, request.workspace_id, "workspace_id"))?;
        let repo = workspace.path.clone();
        git::toplevel(
            rt.git(),
            &repo,
            &format!("the workspace `{}`", workspace.workspace_id),
            "workspace_id",
        )?;
        if !git::is_valid_branch_name(rt.git(), &repo, request.branch)? {
            return Err(error(
                WorkspaceErrorKind::InvalidBranchName,
                format!("`{}` is not a valid git branch name", request.branch),
            )
            .with_field("branch")
            .with_hint("use letters, digits, `-`, `_`, `.` and `/` (for example `feature/login`); no spaces, `..`, `~`, `^`, `:` or leading `-`"));
        }
        let base_commit = (!request.base_ref.starts_with('-'))
            .then(|| git::resolve_commit(rt.git(), &repo, request.base_ref))
            .transpose()?
            .flatten()
            .ok_or_else(|| {
                error(
                    WorkspaceErrorKind::UnknownBaseRef,
                    format!(
                        "`{}` does not name a commit in the repository of `{}`",
                        request.base_ref, request.workspace_id
                    ),
                )
                .with_field("base_ref")
                .with_hint("give an existing branch, tag or commit (for example `HEAD` or `main`)")
            })?;
        let exists = git::branch_exists(rt.git(), &repo, request.branch)?;
        if exists && !request.reuse_existing {
            return Err(error(
                WorkspaceErrorKind::BranchExists,
                format!("the branch `{}` already exists", request.branch),
            )
            .with_field("branch")
            .with_hint("pass `on_existing: \"reuse\"` to work on the existing branch, or choose a new branch name"));
        }
        let worktrees_dir = || {
            rt.bindings()
                .worktrees_dir()
                .map_err(|e| io_error("preparing the worktrees directory", &repo, &e))
        };
        let mut adopted: Option<PathBuf> = None;
        if exists {
            let listed = git::list_worktrees(rt.git(), &repo)?;
            if let Some(holder) = listed
                .iter()
                .find(|w| w.branch.as_deref() == Some(request.branch))
            {
                if let Some(bound) = state.worktrees.iter().find(|w| w.path == holder.path) {
                    let bound = bound.clone();
                    return self.finish(&edit, bound, request.activate, true, false);
                }
                if holder.main {
                    return Err(error(
                        WorkspaceErrorKind::BranchCheckedOut,
                        format!("`{}` is checked out in the repository's main working tree ({})", request.branch, holder.path.display()),
                    )
                    .with_field("branch")
                    .with_hint("work on it in the workspace itself (SwitchWorkspace), or create the worktree on another branch"));
                }
                place::ensure_allowed(&worktrees_dir()?, &state, &holder.path, "branch")?;
                adopted = Some(holder.path.clone());
            }
        }
        let reused = adopted.is_some();
        let name = request.label.unwrap_or(request.branch);
        let (execution_root_id, path) = match adopted {
            Some(path) => (state.fresh_id("wt", name), path),
            None => {
                let dir = worktrees_dir()?;
                let (id, path) = fresh_location(&state, &dir, name);
                let path_text = path.to_string_lossy().into_owned();
                if exists {
                    git::git_ok(
                        rt.git(),
                        &repo,
                        &["worktree", "add", &path_text, request.branch],
                        "adding the worktree",
                    )?;
                } else {
                    git::add_worktree_on_new_branch(
                        rt.git(),
                        &repo,
                        &path,
                        request.branch,
                        &base_commit,
                    )?;
                }
                if let Err(refused) = place::ensure_allowed(&dir, &state, &path, "branch") {
                    let _ = git::git(
                        rt.git(),
                        &repo,
                        &["worktree", "remove", "--force", &path_text],
                    );
                    return Err(refused);
                }
                (id, canonical_dir(path))
            }
        };
        let worktree = WorktreeBinding {
            execution_root_id,
            workspace_id: request.workspace_id.to_string(),
            path,
            branch: request.branch.to_string(),
            base_ref: request.base_ref.to_string(),
            label: request.label.map(str::to_string),
            branch_created: !exists,
            created_at_ms: now_ms(),
        };
        let active = request.activate.then(|| ActiveRoot {
            execution_root_id: worktree.execution_root_id.clone(),
            cwd: None,
        });
        edit.add_worktree(&worktree, active.as_ref())?;
        self.finish(&edit, worktree, false, reused, !exists)
    }

    /// Activates the worktree when `activate` (a new one was activated with its
    /// binding) and describes it.
    fn finish(
        &self,
        edit: &BindingsEdit<'_>,
        worktree: WorktreeBinding,
        activate: bool,
        reused: bool,
        branch_created: bool,
    ) -> Result<CreatedWorktree, WorkspaceError> {
        if activate {
            edit.set_active(&ActiveRoot {
                execution_root_id: worktree.execution_root_id.clone(),
                cwd: None,
            })?;
        }
        let head_commit =
            git::resolve_commit(self.rt.git(), &worktree.path, "HEAD")?.unwrap_or_default();
        let is_active = self.rt.workspace_roots().active_root() == worktree.path;
        Ok(CreatedWorktree {
            worktree,
            branch_created,
            reused,
            head_commit,
            is_active,
        })
    }
}

/// A free id and directory for a worktree named after `name` in `dir`: an id no
/// binding uses, whose entry in `dir` is empty (looked up on the directory's handle).
pub(super) fn fresh_location(state: &BindingState, dir: &Path, name: &str) -> (String, PathBuf) {
    let listing = RootDir::open(dir)
        .ok()
        .and_then(|root| root.open_dir_nofollow(&RelPath::default(), None).ok());
    let occupied = |id: &str| {
        listing
            .as_ref()
            .is_some_and(|dir| matches!(dir.stat(OsStr::new(id)), Ok(Some(_))))
    };
    let base = state.fresh_id("wt", name);
    std::iter::once(base.clone())
        .chain((2..).map(|n| format!("{base}-{n}")))
        .find(|id| !occupied(id) && state.ids().all(|used| used != id))
        .map(|id| {
            let path = dir.join(&id);
            (id, path)
        })
        .unwrap_or_else(|| (base.clone(), dir.join(&base)))
}
