//! The memory plane: MemorySearch and MemoryGet over the agent's memory notes and the
//! Markdown files of its workspaces, indexed with SQLite FTS5
//! ([`holon_runtime::memory`]).

mod memory_get;
mod memory_search;

pub use memory_get::{DEFAULT_MAX_CHARS, MemoryGetArgs, MemoryText};
pub use memory_search::{
    DEFAULT_LIMIT, MemoryHit, MemorySearchArgs, MemorySearchResult, SourceKind,
};
