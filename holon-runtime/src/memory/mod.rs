//! The memory index: the agent's memory notes and the Markdown files of its workspace
//! roots, chunked by section and indexed with SQLite FTS5 (bm25 ranking, snippets).
//!
//! The index is brought up to date before each search by a stat walk of the roots
//! searched: only files whose size, modification time (or hash, for a file written
//! within two seconds of its last indexing) changed are read again, and files that are
//! gone are dropped. Edits made by any means, ApplyPatch included, are therefore seen by
//! the next search. Notes live in the store and are indexed when written.
//!
//! Hosts and tools go through the service, [`Runtime::memory`](crate::Runtime::memory):
//! it syncs, searches, resolves a [`SourceRef`] to a bound root or a note, reads it and
//! returns a typed [`MemoryError`].
//!
//! Tables: `memory_notes`, `memory_sources`, `memory_chunks`, `memory_fts`.

mod chunk;
mod errors;
mod index;
mod notes;
mod search;
mod service;
mod source_ref;
mod walk;

pub use chunk::{Chunk, MAX_CHUNK_LINES, chunks};
pub use errors::{MemoryError, MemoryErrorKind};
pub use index::{SyncStats, prune_unbound, sync_root};
pub use notes::{MemoryNote, NoteError, is_valid_note_id};
pub use search::{Hit, HitSource, MAX_QUERY_TERMS, SNIPPET_MARKS, fts_query, search};
pub use service::{FoundSection, Memory, SearchOutcome, SearchScope, SourceText};
pub use source_ref::{LineRange, SourceRef};
pub use walk::{
    FoundFile, MAX_DIRS_PER_ROOT, MAX_FILE_BYTES, MAX_FILES_PER_ROOT, NotIndexed, SKIPPED_DIRS,
    Walk, is_markdown, read_indexed, walk,
};
