//! The memory plane: MemorySearch and MemoryGet over the agent's memory notes and the
//! Markdown files of its workspaces, indexed with SQLite FTS5
//! ([`holon_runtime::memory`]).

mod memory_get;
mod memory_search;
pub mod source_ref;

use std::path::PathBuf;

use holon_core::prelude::*;

pub use memory_get::{DEFAULT_MAX_CHARS, MemoryGetArgs, MemoryText};
pub use memory_search::{
    DEFAULT_LIMIT, MemoryHit, MemorySearchArgs, MemorySearchResult, SourceKind,
};
pub use source_ref::SourceRef;

use holon_runtime::{Runtime, StoreError};

/// Directories never indexed whatever their name: the state directory (which holds the
/// store, task logs and worktrees of their own).
fn skipped_paths(rt: &Runtime) -> Vec<PathBuf> {
    rt.state_dir()
        .and_then(|dir| dir.canonicalize().ok())
        .into_iter()
        .collect()
}

fn error(kind: &'static str, message: impl Into<String>) -> ToolError {
    ToolError::new(ToolErrorKind::new(kind), message)
}

fn store_error(error: StoreError) -> ToolError {
    self::error("memory_index_error", format!("{error}"))
        .with_hint("retry; if it keeps failing, the operator should check the state directory")
        .retryable()
}
