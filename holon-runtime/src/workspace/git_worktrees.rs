//! The git commands of the worktree operations, run by the runtime's git (through the
//! process gate, non-interactive, `GIT_*` repository variables ignored); refs the
//! caller gives are verified and resolved to commit ids before they reach a command
//! line, and no value can be taken for an option.

use std::path::{Path, PathBuf};

use super::canonical_dir;
use super::errors::{WorkspaceError, WorkspaceErrorKind, error};
use crate::git::{Git, GitOutput};

/// Runs `git -C dir args...` through the runtime's process gate.
pub(super) fn git(runner: Git<'_>, dir: &Path, args: &[&str]) -> Result<GitOutput, WorkspaceError> {
    runner.run(dir, args).map_err(|e| {
        error(WorkspaceErrorKind::GitUnavailable, e.to_string())
            .with_hint("the runtime needs the `git` binary on its PATH for worktrees")
    })
}

/// `git worktree add` of a new branch `branch` started at `start`, checked out at `path`.
pub(super) fn add_worktree_on_new_branch(
    runner: Git<'_>,
    repo: &Path,
    path: &Path,
    branch: &str,
    start: &str,
) -> Result<(), WorkspaceError> {
    let path = path.to_string_lossy();
    git_ok(
        runner,
        repo,
        &["worktree", "add", "-b", branch, &path, start],
        "adding the worktree",
    )
    .map(|_| ())
}

/// Runs a git command that must succeed; a failure is a `git_failed` error quoting git.
pub(super) fn git_ok(
    runner: Git<'_>,
    dir: &Path,
    args: &[&str],
    doing: &str,
) -> Result<String, WorkspaceError> {
    let output = git(runner, dir, args)?;
    if output.success {
        Ok(output.stdout)
    } else {
        Err(error(
            WorkspaceErrorKind::GitFailed,
            format!("{doing} failed: git {}: {}", args.join(" "), output.stderr),
        )
        .with_details(serde_json::json!({ "exit_code": output.code, "stderr": output.stderr })))
    }
}

/// Whether `dir` is inside a git working tree.
pub(super) fn is_repository(runner: Git<'_>, dir: &Path) -> bool {
    git(runner, dir, &["rev-parse", "--is-inside-work-tree"])
        .is_ok_and(|o| o.success && o.stdout.trim() == "true")
}

/// The top directory of the working tree holding `dir`, or a `not_a_git_repository`
/// error naming `what`.
pub(super) fn toplevel(
    runner: Git<'_>,
    dir: &Path,
    what: &str,
    field: &str,
) -> Result<PathBuf, WorkspaceError> {
    let output = git(runner, dir, &["rev-parse", "--show-toplevel"])?;
    if output.success {
        return Ok(canonical_dir(PathBuf::from(output.stdout.trim())));
    }
    Err(error(
        WorkspaceErrorKind::NotAGitRepository,
        format!("{what} ({}) is not inside a git repository", dir.display()),
    )
    .with_field(field)
    .with_hint("worktrees need a git repository: run `git init` there first, or pick a workspace that is one"))
}

/// The commit `rev` names, if it names one.
pub(super) fn resolve_commit(
    runner: Git<'_>,
    dir: &Path,
    rev: &str,
) -> Result<Option<String>, WorkspaceError> {
    let spec = format!("{rev}^{{commit}}");
    let output = git(
        runner,
        dir,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &spec,
        ],
    )?;
    Ok(output
        .success
        .then(|| output.stdout.trim().to_string())
        .filter(|id| !id.is_empty()))
}

/// Whether `branch` is a valid new branch name (and not an option in disguise).
pub(super) fn is_valid_branch_name(
    runner: Git<'_>,
    dir: &Path,
    branch: &str,
) -> Result<bool, WorkspaceError> {
    if branch.starts_with('-') || branch.is_empty() {
        return Ok(false);
    }
    Ok(git(runner, dir, &["check-ref-format", "--branch", branch])?.success)
}

/// Whether the local branch `branch` exists.
pub(super) fn branch_exists(
    runner: Git<'_>,
    dir: &Path,
    branch: &str,
) -> Result<bool, WorkspaceError> {
    let reference = format!("refs/heads/{branch}");
    Ok(git(
        runner,
        dir,
        &["rev-parse", "--verify", "--quiet", &reference],
    )?
    .success)
}

/// One entry of `git worktree list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ListedWorktree {
    /// Its path.
    pub(super) path: PathBuf,
    /// The branch checked out, without `refs/heads/`.
    pub(super) branch: Option<String>,
    /// Whether it is the main working tree.
    pub(super) main: bool,
}

/// The worktrees of the repository holding `dir`, the main one first.
pub(super) fn list_worktrees(
    runner: Git<'_>,
    dir: &Path,
) -> Result<Vec<ListedWorktree>, WorkspaceError> {
    let text = git_ok(
        runner,
        dir,
        &["worktree", "list", "--porcelain"],
        "listing the worktrees",
    )?;
    let mut out: Vec<ListedWorktree> = Vec::new();
    for line in text.lines() {
        if let Some(path) = line.strip_prefix("worktree ") {
            out.push(ListedWorktree {
                path: canonical_dir(PathBuf::from(path)),
                branch: None,
                main: out.is_empty(),
            });
        } else if let (Some(branch), Some(last)) = (line.strip_prefix("branch "), out.last_mut()) {
            last.branch = Some(
                branch
                    .strip_prefix("refs/heads/")
                    .unwrap_or(branch)
                    .to_string(),
            );
        }
    }
    Ok(out)
}

/// The uncommitted changes of the worktree at `dir` (`git status --porcelain` lines,
/// untracked files included, ignored ones not).
pub(super) fn uncommitted_changes(
    runner: Git<'_>,
    dir: &Path,
) -> Result<Vec<String>, WorkspaceError> {
    let text = git_ok(
        runner,
        dir,
        &["status", "--porcelain", "--untracked-files=all"],
        "checking the worktree for changes",
    )?;
    Ok(text.lines().map(str::to_string).collect())
}

/// Whether `commit` is an ancestor of (merged into) `target`.
pub(super) fn is_ancestor(
    runner: Git<'_>,
    dir: &Path,
    commit: &str,
    target: &str,
) -> Result<bool, WorkspaceError> {
    let output = git(
        runner,
        dir,
        &["merge-base", "--is-ancestor", commit, target],
    )?;
    match output.code {
        Some(0) => Ok(true),
        Some(1) => Ok(false),
        _ => Err(error(
            WorkspaceErrorKind::GitFailed,
            format!(
                "checking whether {commit} is merged into {target} failed: {}",
                output.stderr
            ),
        )),
    }
}
