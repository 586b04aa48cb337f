//! The filesystem gate's refusals as model-facing errors: one kind and hint per
//! refusal, the same for every tool (each adds its own field).

use holon_core::prelude::*;

use crate::fs::{FsError, NotRegular, Protection};

impl From<FsError> for ToolError {
    fn from(error: FsError) -> Self {
        let message = error.to_string();
        let (kind, hint) = match &error {
            FsError::Escapes { .. } => (
                "path_outside_workspace",
                "give a path relative to the workspace root that stays inside it",
            ),
            FsError::ThroughSymlink { .. } => (
                "path_through_symlink",
                "name the file where it really is: a symlink along the path is not followed",
            ),
            FsError::Protected {
                why: Protection::Git,
                ..
            } => (
                "protected_path",
                "`.git` directories are off limits to tools: change the repository with git commands the operator runs",
            ),
            FsError::Protected {
                why: Protection::StateDir,
                ..
            } => (
                "protected_path",
                "the runtime's state directory is off limits to tools: change the state with the runtime's own tools",
            ),
            FsError::NotRegular {
                kind: NotRegular::Directory,
                ..
            } => ("not_a_file", "give the path of a file, not a directory"),
            FsError::NotRegular { .. } => (
                "not_a_regular_file",
                "only regular files are read or written: not FIFOs, sockets, devices or symlinks",
            ),
            FsError::NotFound { .. } => (
                "file_not_found",
                "check the path; list the directory to find the file",
            ),
            FsError::TooLarge { .. } => ("file_too_large", "read a smaller file"),
            FsError::Io { .. } => ("file_io_error", "check the file's permissions, then retry"),
        };
        let retryable = matches!(error, FsError::Io { .. });
        let error = ToolError::new(ToolErrorKind::new(kind), message).with_hint(hint);
        if retryable { error.retryable() } else { error }
    }
}
