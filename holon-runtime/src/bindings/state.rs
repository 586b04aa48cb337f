//! What the bindings are at one moment: the workspaces, the worktrees and the active
//! execution root, as read from the store.

use std::path::{Path, PathBuf};

use holon_core::prelude::{JsonSchema, Serialize, schemars};

use holon_gates::fs::RootDir;

/// The id of the agent's home workspace: the workspace root the runtime was opened on.
pub const HOME_WORKSPACE_ID: &str = "home";

/// How a workspace came to be bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WorkspaceKind {
    /// The workspace root the runtime was opened on; it cannot be detached.
    Home,
    /// A directory bound with AttachWorkspace.
    Attached,
}

impl WorkspaceKind {
    /// The name stored in the `kind` column.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Home => "home",
            Self::Attached => "attached",
        }
    }

    /// The kind stored as `text`; anything unknown reads as attached.
    pub fn parse(text: &str) -> Self {
        if text == "home" {
            Self::Home
        } else {
            Self::Attached
        }
    }
}

/// A bound workspace directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceBinding {
    /// Its id (`home`, or `ws-<name>` for attached ones).
    pub workspace_id: String,
    /// Its canonical path.
    pub path: PathBuf,
    /// Home or attached.
    pub kind: WorkspaceKind,
    /// When it was bound, milliseconds since the Unix epoch.
    pub attached_at_ms: i64,
}

/// A git worktree created (or adopted) by CreateWorktree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeBinding {
    /// Its execution root id (`wt-<name>`).
    pub execution_root_id: String,
    /// The workspace whose repository it belongs to.
    pub workspace_id: String,
    /// Its canonical path.
    pub path: PathBuf,
    /// The branch checked out in it.
    pub branch: String,
    /// The ref it was created from.
    pub base_ref: String,
    /// A human label, if one was given.
    pub label: Option<String>,
    /// Whether CreateWorktree created the branch (rather than checking out an existing one).
    pub branch_created: bool,
    /// When it was created, milliseconds since the Unix epoch.
    pub created_at_ms: i64,
}

/// The execution root relative paths resolve in, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActiveRoot {
    /// A workspace id (its main directory) or a worktree's execution root id.
    pub execution_root_id: String,
    /// The working directory inside it, relative to it; `None` for the root itself.
    pub cwd: Option<String>,
}

/// A directory tools can be switched into: a workspace's own directory (whose
/// execution root id is the workspace id) or one of its worktrees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecutionRoot<'a> {
    /// Its id.
    pub execution_root_id: &'a str,
    /// The workspace it belongs to.
    pub workspace_id: &'a str,
    /// Its canonical path.
    pub path: &'a Path,
    /// The worktree, when it is one.
    pub worktree: Option<&'a WorktreeBinding>,
}

/// Every binding at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingState {
    /// The workspaces, home first, then in the order they were attached.
    pub workspaces: Vec<WorkspaceBinding>,
    /// The worktrees, in the order they were created.
    pub worktrees: Vec<WorktreeBinding>,
    /// The recorded active execution root.
    pub active: ActiveRoot,
}

impl BindingState {
    /// The workspace `workspace_id`.
    pub fn workspace(&self, workspace_id: &str) -> Option<&WorkspaceBinding> {
        self.workspaces
            .iter()
            .find(|w| w.workspace_id == workspace_id)
    }

    /// The worktree `execution_root_id`.
    pub fn worktree(&self, execution_root_id: &str) -> Option<&WorktreeBinding> {
        self.worktrees
            .iter()
            .find(|w| w.execution_root_id == execution_root_id)
    }

    /// Every execution root: each workspace's directory, then each worktree.
    pub fn execution_roots(&self) -> impl Iterator<Item = ExecutionRoot<'_>> {
        let main = self.workspaces.iter().map(|w| ExecutionRoot {
            execution_root_id: &w.workspace_id,
            workspace_id: &w.workspace_id,
            path: &w.path,
            worktree: None,
        });
        let worktrees = self.worktrees.iter().map(|w| ExecutionRoot {
            execution_root_id: &w.execution_root_id,
            workspace_id: &w.workspace_id,
            path: &w.path,
            worktree: Some(w),
        });
        main.chain(worktrees)
    }

    /// The execution root `execution_root_id` (a workspace id or a worktree id).
    pub fn execution_root(&self, execution_root_id: &str) -> Option<ExecutionRoot<'_>> {
        self.execution_roots()
            .find(|root| root.execution_root_id == execution_root_id)
    }

    /// The execution root holding `path` (canonical): the deepest one, so that a
    /// worktree inside a workspace wins over the workspace.
    pub fn execution_root_containing(&self, path: &Path) -> Option<ExecutionRoot<'_>> {
        self.execution_roots()
            .filter(|root| path.starts_with(root.path))
            .max_by_key(|root| root.path.components().count())
    }

    /// The active execution root, or home when the recorded one is gone (detached, or
    /// its directory was deleted: it no longer opens as a directory).
    pub fn active_root(&self) -> Option<ExecutionRoot<'_>> {
        self.execution_root(&self.active.execution_root_id)
            .filter(|root| RootDir::open(root.path).is_ok())
            .or_else(|| self.execution_root(HOME_WORKSPACE_ID))
    }

    /// Every id in use, workspaces and worktrees alike.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.execution_roots().map(|root| root.execution_root_id)
    }

    /// A fresh id `<prefix>-<slug of name>`, with `-2`, `-3`, ... when it is taken.
    pub fn fresh_id(&self, prefix: &str, name: &str) -> String {
        let slug = slug(name);
        let base = if slug.is_empty() {
            prefix.to_string()
        } else {
            format!("{prefix}-{slug}")
        };
        let taken = |id: &str| self.ids().any(|used| used == id) || id == HOME_WORKSPACE_ID;
        if !taken(&base) {
            return base;
        }
        (2..)
            .map(|n| format!("{base}-{n}"))
            .find(|id| !taken(id))
            .unwrap_or(base)
    }
}

/// Lowercase ASCII letters and digits of `name`, other runs as one `-`, at most 40.
fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        if out.len() >= 40 {
            break;
        }
    }
    out.trim_end_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_ids_are_slugs_made_unique() {
        let state = BindingState {
            workspaces: vec![WorkspaceBinding {
                workspace_id: "ws-docs".into(),
                path: PathBuf::from("/x/docs"),
                kind: WorkspaceKind::Attached,
                attached_at_ms: 0,
            }],
            worktrees: Vec::new(),
            active: ActiveRoot {
                execution_root_id: HOME_WORKSPACE_ID.into(),
                cwd: None,
            },
        };
        assert_eq!(state.fresh_id("ws", "Docs"), "ws-docs-2");
        assert_eq!(
            state.fresh_id("wt", "feature/New Thing"),
            "wt-feature-new-thing"
        );
        assert_eq!(state.fresh_id("wt", "///"), "wt");
    }
}
