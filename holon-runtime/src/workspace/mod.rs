//! The workspace plane: the roots tools are confined to ([`WorkspaceRoots`]), and the
//! workspace service over the bindings ([`Runtime::workspaces`]).
//!
//! The service reports the bindings, attaches, detaches and switches workspaces, and
//! creates and removes git worktrees of them (through the runtime's [`Git`]); it makes
//! a spawned child's own worktree for the agent service. Each operation holds the
//! bindings' edit lock from its checks to its write, owns its transaction and returns a
//! typed record or a [`WorkspaceError`]. Where a directory must exist it is opened
//! through the filesystem gate, never queried by its path string.
//!
//! [`Git`]: crate::git::Git

mod attach;
mod child_worktree;
mod create_worktree;
mod errors;
mod git_worktrees;
mod place;
mod remove_worktree;
mod roots;
mod state;
mod switch;

use std::path::{Path, PathBuf};

pub use attach::{Attached, Detached};
pub(crate) use child_worktree::ChildWorktreePlan;
pub use create_worktree::{CreatedWorktree, NewWorktree};
pub use errors::{WorkspaceError, WorkspaceErrorKind};
pub use remove_worktree::{RemovedWorktree, WorktreeRemoval};
pub use roots::WorkspaceRoots;
pub use state::{WorkspaceOverview, WorkspaceStatus, WorktreeStatus};
pub use switch::{SwitchTarget, Switched};

use crate::Runtime;
use holon_gates::fs::RootDir;

/// The workspace service of a runtime ([`Runtime::workspaces`]).
#[derive(Clone, Copy)]
pub struct Workspaces<'rt> {
    rt: &'rt Runtime,
}

impl Runtime {
    /// The workspace service: the bindings, attaching, detaching and switching
    /// workspaces, and their git worktrees.
    pub fn workspaces(&self) -> Workspaces<'_> {
        Workspaces { rt: self }
    }
}

/// Whether a directory opens at `path` now (the roots tools are confined to are opened
/// the same way).
fn is_open_dir(path: &Path) -> bool {
    RootDir::open(path).is_ok()
}

/// The canonical path of the directory at `path`, opened through the gate; `path`
/// itself when it opens no directory.
fn canonical_dir(path: PathBuf) -> PathBuf {
    match RootDir::open(&path) {
        Ok(dir) => dir.path().to_path_buf(),
        Err(_) => path,
    }
}
