//! `CreateWorktree`: a real `git worktree add`, bound as an execution root.

use std::path::{Path, PathBuf};

use holon_core::prelude::*;

use super::errors::{error, io_error, store_error, unknown_workspace};
use super::{git, worktree_place};
use holon_runtime::Runtime;
use holon_runtime::bindings::{ActiveRoot, BindingState, WorktreeBinding, now_ms};

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
#[holon_tool(family = LocalEnvironment, annotations(open_world = false))]
fn create_worktree(
    rt: &Runtime,
    args: CreateWorktreeArgs,
) -> Result<ToolOutput<WorktreeCreated>, ToolError> {
    let edit = rt.bindings().edit();
    let state = edit.state().map_err(store_error)?;
    let workspace = state
        .workspace(&args.workspace_id)
        .ok_or_else(|| unknown_workspace(&state, &args.workspace_id, "workspace_id"))?;
    let repo = workspace.path.clone();
    git::toplevel(
        rt.git(),
        &repo,
        &format!("the workspace `{}`", workspace.workspace_id),
        "workspace_id",
    )?;
    if !git::is_valid_branch_name(rt.git(), &repo, &args.branch)? {
        return Err(error(
            "invalid_branch_name",
            format!("`{}` is not a valid git branch name", args.branch),
        )
        .with_field("branch")
        .with_hint("use letters, digits, `-`, `_`, `.` and `/` (for example `feature/login`); no spaces, `..`, `~`, `^`, `:` or leading `-`"));
    }
    let base_commit = (!args.base_ref.starts_with('-'))
        .then(|| git::resolve_commit(rt.git(), &repo, &args.base_ref))
        .transpose()?
        .flatten()
        .ok_or_else(|| {
            error(
                "unknown_base_ref",
                format!(
                    "`{}` does not name a commit in the repository of `{}`",
                    args.base_ref, args.workspace_id
                ),
            )
            .with_field("base_ref")
            .with_hint("give an existing branch, tag or commit (for example `HEAD` or `main`)")
        })?;
    let exists = git::branch_exists(rt.git(), &repo, &args.branch)?;
    let reuse = args.on_existing == Some(OnExisting::Reuse);
    if exists && !reuse {
        return Err(error(
            "branch_exists",
            format!("the branch `{}` already exists", args.branch),
        )
        .with_field("branch")
        .with_hint("pass `on_existing: \"reuse\"` to work on the existing branch, or choose a new branch name"));
    }
    let mut reused = false;
    let mut adopted: Option<PathBuf> = None;
    if exists {
        let listed = git::list_worktrees(rt.git(), &repo)?;
        if let Some(holder) = listed
            .iter()
            .find(|w| w.branch.as_deref() == Some(&args.branch))
        {
            if let Some(bound) = state.worktrees.iter().find(|w| w.path == holder.path) {
                let bound = bound.clone();
                return finish(rt, &edit, bound, args.activate, true, false);
            }
            if holder.main {
                return Err(error(
                    "branch_checked_out",
                    format!("`{}` is checked out in the repository's main working tree ({})", args.branch, holder.path.display()),
                )
                .with_field("branch")
                .with_hint("work on it in the workspace itself (SwitchWorkspace), or create the worktree on another branch"));
            }
            let worktrees = rt
                .bindings()
                .worktrees_dir()
                .map_err(|e| io_error("preparing the worktrees directory", &repo, &e))?;
            worktree_place::ensure_allowed(&worktrees, &state, &holder.path, "branch")?;
            reused = true;
            adopted = Some(holder.path.clone());
        }
    }
    let execution_root_id;
    let path = match adopted {
        Some(path) => {
            execution_root_id = state.fresh_id("wt", args.label.as_deref().unwrap_or(&args.branch));
            path
        }
        None => {
            let dir = rt
                .bindings()
                .worktrees_dir()
                .map_err(|e| io_error("preparing the worktrees directory", &repo, &e))?;
            let (id, path) =
                fresh_location(&state, &dir, args.label.as_deref().unwrap_or(&args.branch));
            execution_root_id = id;
            let path_text = path.to_string_lossy().into_owned();
            if exists {
                git::git_ok(
                    rt.git(),
                    &repo,
                    &["worktree", "add", &path_text, &args.branch],
                    "adding the worktree",
                )?;
            } else {
                git::add_worktree_on_new_branch(
                    rt.git(),
                    &repo,
                    &path,
                    &args.branch,
                    &base_commit,
                )?;
            }
            if let Err(refused) = worktree_place::ensure_allowed(&dir, &state, &path, "branch") {
                let _ = git::git(
                    rt.git(),
                    &repo,
                    &["worktree", "remove", "--force", &path_text],
                );
                return Err(refused);
            }
            path.canonicalize().unwrap_or(path)
        }
    };
    let worktree = WorktreeBinding {
        execution_root_id,
        workspace_id: args.workspace_id.clone(),
        path,
        branch: args.branch.clone(),
        base_ref: args.base_ref.clone(),
        label: args.label.clone(),
        branch_created: !exists,
        created_at_ms: now_ms(),
    };
    let active = args.activate.then(|| ActiveRoot {
        execution_root_id: worktree.execution_root_id.clone(),
        cwd: None,
    });
    edit.add_worktree(&worktree, active.as_ref())
        .map_err(store_error)?;
    finish(rt, &edit, worktree, false, reused, !exists)
}

/// A free id and directory for a worktree named after `name`.
pub(super) fn fresh_location(state: &BindingState, dir: &Path, name: &str) -> (String, PathBuf) {
    let base = state.fresh_id("wt", name);
    std::iter::once(base.clone())
        .chain((2..).map(|n| format!("{base}-{n}")))
        .map(|id| {
            let path = dir.join(&id);
            (id, path)
        })
        .find(|(id, path)| !path.exists() && state.ids().all(|used| used != id))
        .unwrap_or_else(|| (base.clone(), dir.join(&base)))
}

/// Activates the worktree when `activate` (a new one was activated with its binding)
/// and describes it.
fn finish(
    rt: &Runtime,
    edit: &holon_runtime::bindings::BindingsEdit<'_>,
    worktree: WorktreeBinding,
    activate: bool,
    reused: bool,
    branch_created: bool,
) -> Result<ToolOutput<WorktreeCreated>, ToolError> {
    if activate {
        edit.set_active(&ActiveRoot {
            execution_root_id: worktree.execution_root_id.clone(),
            cwd: None,
        })
        .map_err(store_error)?;
    }
    let head_commit = git::resolve_commit(rt.git(), &worktree.path, "HEAD")?.unwrap_or_default();
    let is_active = rt.workspace_roots().active_root() == worktree.path;
    let result = WorktreeCreated {
        execution_root_id: worktree.execution_root_id,
        root_path: worktree.path.to_string_lossy().into_owned(),
        owner_workspace_id: worktree.workspace_id,
        branch_name: worktree.branch,
        branch_created,
        reused,
        head_commit,
        is_active,
    };
    let summary = format!(
        "{} worktree {} on branch {} at {}",
        if reused { "reused" } else { "created" },
        result.execution_root_id,
        result.branch_name,
        result.root_path
    );
    Ok(ToolOutput::new(result).with_summary(summary))
}
