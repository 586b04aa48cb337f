//! The git worktree of a private child agent spawned with `workspace_mode = worktree`:
//! a new branch `holon/<agent id>` from the HEAD of the active execution root, checked
//! out under the runtime's worktrees directory and bound as an execution root, so the
//! child's edits never touch its parent's checkout. The agent service makes it inside
//! the spawn's own transaction.

use std::path::PathBuf;

use rusqlite::Transaction;

use super::create_worktree::fresh_location;
use super::errors::{WorkspaceError, WorkspaceErrorKind, error, io_error};
use super::{Workspaces, canonical_dir, git_worktrees as git, place};
use crate::bindings::{BindingState, Bindings, BindingsEdit, WorktreeBinding, now_ms};
use crate::git::Git;

/// The field errors point at.
const FIELD: &str = "workspace_mode";

/// Everything checked before the child is created, so that a workspace that cannot
/// have worktrees fails the spawn before anything is written. It holds the bindings'
/// edit lock until dropped, so that what it checked still holds when the spawn writes.
pub(crate) struct ChildWorktreePlan<'a> {
    bindings: &'a Bindings,
    git: Git<'a>,
    _edit: BindingsEdit<'a>,
    /// The active execution root, in whose repository the worktree is added.
    repo: PathBuf,
    /// The workspace that root belongs to.
    workspace_id: String,
    /// The commit the child's branch starts from: the active root's HEAD.
    base_commit: String,
    /// Where worktrees go.
    dir: PathBuf,
    state: BindingState,
}

impl<'rt> Workspaces<'rt> {
    /// Checks that the active execution root is a git checkout with a commit, and
    /// plans a child's worktree in it.
    pub(crate) fn child_worktree(&self) -> Result<ChildWorktreePlan<'rt>, WorkspaceError> {
        let rt = self.rt;
        let edit = rt.bindings().edit();
        let state = edit.state()?;
        let active = state.active_root().ok_or_else(|| {
            error(
                WorkspaceErrorKind::WorkspaceStateError,
                "no execution root is active",
            )
            .with_hint("switch to a workspace (SwitchWorkspace), then spawn again")
        })?;
        let repo = active.path.to_path_buf();
        let workspace_id = active.workspace_id.to_string();
        git::toplevel(rt.git(), &repo, "the active workspace", FIELD).map_err(|e| {
            e.with_hint("a worktree needs a git repository: spawn with `workspace_mode: \"inherit\"`, or switch to a workspace that is a git checkout")
        })?;
        let base_commit = git::resolve_commit(rt.git(), &repo, "HEAD")?.ok_or_else(|| {
            error(
                WorkspaceErrorKind::UnknownBaseRef,
                format!("the repository at {} has no commit yet", repo.display()),
            )
            .with_field(FIELD)
            .with_hint("commit once, or spawn with `workspace_mode: \"inherit\"`")
        })?;
        let dir = rt
            .bindings()
            .worktrees_dir()
            .map_err(|e| io_error("preparing the worktrees directory", &repo, &e))?;
        Ok(ChildWorktreePlan {
            bindings: rt.bindings(),
            git: rt.git(),
            _edit: edit,
            repo,
            workspace_id,
            base_commit,
            dir,
            state,
        })
    }
}

impl ChildWorktreePlan<'_> {
    /// Runs `git worktree add` on the new branch `holon/<agent_id>` and binds it in
    /// `transaction`, the spawn's own, so that the agent and its worktree are recorded
    /// together. On an error nothing is left behind in git.
    pub(crate) fn add_in(
        &self,
        transaction: &Transaction<'_>,
        agent_id: &str,
    ) -> Result<WorktreeBinding, WorkspaceError> {
        let worktree = self.add(agent_id)?;
        if let Err(error) = Bindings::bind_worktree_in(transaction, &worktree) {
            self.undo(&worktree);
            return Err(error.into());
        }
        Ok(worktree)
    }

    fn add(&self, agent_id: &str) -> Result<WorktreeBinding, WorkspaceError> {
        let branch = format!("holon/{agent_id}");
        if git::branch_exists(self.git, &self.repo, &branch)? {
            return Err(error(
                WorkspaceErrorKind::BranchExists,
                format!("the branch `{branch}` for the new agent already exists"),
            )
            .with_field(FIELD)
            .with_hint("an earlier runtime left it: delete the branch, or spawn with `workspace_mode: \"inherit\"`"));
        }
        let (execution_root_id, path) = fresh_location(&self.state, &self.dir, agent_id);
        git::add_worktree_on_new_branch(self.git, &self.repo, &path, &branch, &self.base_commit)?;
        if let Err(refused) = place::ensure_allowed(&self.dir, &self.state, &path, FIELD) {
            let path_text = path.to_string_lossy();
            let _ = git::git(
                self.git,
                &self.repo,
                &["worktree", "remove", "--force", &path_text],
            );
            let _ = git::git(self.git, &self.repo, &["branch", "-D", &branch]);
            return Err(refused);
        }
        Ok(WorktreeBinding {
            execution_root_id,
            workspace_id: self.workspace_id.clone(),
            path: canonical_dir(path),
            branch,
            base_ref: self.base_commit.clone(),
            label: Some(agent_id.to_string()),
            branch_created: true,
            created_at_ms: now_ms(),
        })
    }

    /// Makes the committed worktree one of the roots tools may work in.
    pub(crate) fn finish(self) -> Result<(), WorkspaceError> {
        self.bindings.reload()?;
        Ok(())
    }

    /// Takes back what [`ChildWorktreePlan::add_in`] did, when the spawn could not be
    /// recorded. Best effort: the spawn's own error is what the caller reports.
    pub(crate) fn undo(&self, worktree: &WorktreeBinding) {
        let path = worktree.path.to_string_lossy();
        let _ = git::git(
            self.git,
            &self.repo,
            &["worktree", "remove", "--force", &path],
        );
        let _ = git::git(self.git, &self.repo, &["branch", "-D", &worktree.branch]);
    }
}
