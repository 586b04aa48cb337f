//! Applying a patch to the workspace: holon-patch plans every change over files read
//! through the filesystem gate; then `commit` writes them all or none.

use std::path::{Path, PathBuf};

use super::commit::{Target, commit};
use holon_gates::fs::PathEscape;
use holon_gates::fs::{FsError, NotRegular, Protection, WritePolicy};
use holon_patch::{FileState, Outcome, Patch, PlanError, Workspace};
use holon_runtime::WorkspaceRoots;

/// Why a patch could not be applied. Nothing was written.
#[derive(Debug)]
pub(crate) enum ApplyError {
    Outside {
        path: PathBuf,
        reason: PathEscape,
    },
    NotFound {
        path: PathBuf,
    },
    AlreadyExists {
        path: PathBuf,
    },
    NotText {
        path: PathBuf,
    },
    Mismatch {
        path: PathBuf,
        hunk: usize,
        detail: String,
    },
    /// A `.git` directory or the state directory.
    Protected {
        path: PathBuf,
        why: Protection,
    },
    /// The file, or a directory on its way, is refused by the filesystem gate: a
    /// symlink, a FIFO, a device...
    Gate {
        path: PathBuf,
        error: FsError,
    },
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The file changed (or appeared, or went away) after the patch read it: another
    /// writer got there first.
    Changed {
        path: PathBuf,
    },
    /// Another writer held the file's directory longer than the lock wait.
    Busy {
        path: PathBuf,
    },
}

impl ApplyError {
    /// The gate's refusal of `path` (as the patch names it).
    pub(super) fn from_gate(path: &Path, error: FsError) -> Self {
        let path = path.to_path_buf();
        match error {
            FsError::Escapes { reason, .. } => Self::Outside { path, reason },
            FsError::Protected { why, .. } => Self::Protected { path, why },
            FsError::NotRegular {
                kind: NotRegular::Directory,
                ..
            } => Self::NotText { path },
            FsError::NotFound { .. } => Self::NotFound { path },
            FsError::Io { source, .. } => Self::Io {
                path,
                error: source,
            },
            error => Self::Gate { path, error },
        }
    }
}

impl From<PlanError<ApplyError>> for ApplyError {
    fn from(error: PlanError<ApplyError>) -> Self {
        match error {
            PlanError::NotFound { path } => Self::NotFound { path },
            PlanError::AlreadyExists { path } => Self::AlreadyExists { path },
            PlanError::NotText { path } => Self::NotText { path },
            PlanError::Mismatch { path, hunk, detail } => Self::Mismatch { path, hunk, detail },
            PlanError::Workspace(error) => error,
        }
    }
}

/// The workspace roots as the planner sees them: paths located beneath a root,
/// files read through the gate.
struct Gated<'r> {
    roots: &'r WorkspaceRoots,
    policy: &'r WritePolicy,
}

impl Workspace for Gated<'_> {
    type Key = Target;
    type Error = ApplyError;

    /// Where `path` is: beneath which root, at which path. `.git` is refused here;
    /// the state directory while reading and writing, by identity.
    fn resolve(&mut self, path: &Path) -> Result<Target, ApplyError> {
        let (root, rel) = self
            .roots
            .locate(path, false)
            .map_err(|reason| ApplyError::Outside {
                path: path.to_path_buf(),
                reason,
            })?;
        if rel.has_git_component() {
            return Err(ApplyError::Protected {
                path: path.to_path_buf(),
                why: Protection::Git,
            });
        }
        if rel.is_root() {
            return Err(ApplyError::NotText {
                path: path.to_path_buf(),
            });
        }
        Ok(Target { root, rel })
    }

    fn read(&mut self, shown: &Path, target: &Target) -> Result<Option<FileState>, ApplyError> {
        let root = &self.roots.dirs()[target.root];
        let (parent, name) = target.split();
        let read = root
            .open_dir_nofollow(&parent, Some(self.policy))
            .and_then(|dir| dir.read_file(name, u64::MAX));
        match read {
            Ok(file) => Ok(Some(FileState {
                bytes: file.bytes,
                mode: Some(file.info.mode),
                exec: file.info.mode & 0o111 != 0,
            })),
            Err(FsError::NotFound { .. }) => Ok(None),
            Err(error) => Err(ApplyError::from_gate(shown, error)),
        }
    }
}

/// Plans every change, then commits them all or none. Returns what changed.
pub(crate) fn apply(
    roots: &WorkspaceRoots,
    policy: &WritePolicy,
    patch: &Patch,
) -> Result<Vec<Outcome>, ApplyError> {
    let plan = holon_patch::plan(patch, &mut Gated { roots, policy })?;
    commit(roots, policy, plan.files)?;
    Ok(plan.outcomes)
}
