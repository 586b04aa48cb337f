//! The agent's memory notes: Markdown texts kept in the store (`memory_notes`), indexed
//! in the same transaction that writes them. No tool writes notes yet; hosts (and
//! tests) write them with [`Runtime::put_memory_note`].

use rusqlite::{OptionalExtension, params};

use super::index::{self, NOTE, NewSource};
use super::walk::MAX_FILE_BYTES;
use crate::bindings::now_ms;
use crate::{Runtime, StoreError};

/// A memory note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryNote {
    /// Its id: 1 to 128 ASCII letters, digits, `.`, `_` or `-`, starting with a letter
    /// or digit.
    pub note_id: String,
    /// Its Markdown text.
    pub body: String,
    /// When it was last written, milliseconds since the Unix epoch.
    pub updated_at_ms: i64,
}

/// Why a note could not be written.
#[derive(Debug, thiserror::Error)]
pub enum NoteError {
    /// The id breaks the rules of [`MemoryNote::note_id`].
    #[error(
        "`{0}` is not a valid note id: use 1 to 128 ASCII letters, digits, `.`, `_` or `-`, starting with a letter or digit"
    )]
    InvalidId(String),
    /// The body is larger than the index takes (512 KiB).
    #[error("the note has {0} bytes; notes are limited to {MAX_FILE_BYTES} bytes")]
    TooLarge(usize),
    /// The store failed.
    #[error("{0}")]
    Store(StoreError),
}

/// Whether `note_id` is a valid note id.
pub fn is_valid_note_id(note_id: &str) -> bool {
    (1..=128).contains(&note_id.len())
        && note_id.starts_with(|c: char| c.is_ascii_alphanumeric())
        && note_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

fn sqlite(doing: &'static str) -> impl FnOnce(rusqlite::Error) -> StoreError {
    move |source| StoreError::Sqlite {
        doing: doing.to_string(),
        source,
    }
}

impl Runtime {
    /// Writes (creates or replaces) the memory note `note_id` and indexes it, in one
    /// transaction: MemorySearch finds it at once.
    pub fn put_memory_note(&self, note_id: &str, body: &str) -> Result<(), NoteError> {
        const DOING: &str = "writing a memory note";
        if !is_valid_note_id(note_id) {
            return Err(NoteError::InvalidId(note_id.to_string()));
        }
        if body.len() as u64 > MAX_FILE_BYTES {
            return Err(NoteError::TooLarge(body.len()));
        }
        let now = now_ms();
        let mut connection = self.store().connection();
        let transaction =
            crate::begin_write(&mut connection).map_err(|e| NoteError::Store(sqlite(DOING)(e)))?;
        transaction
            .execute(
                "INSERT INTO memory_notes (note_id, body, updated_at_ms) VALUES (?1, ?2, ?3)
                 ON CONFLICT (note_id) DO UPDATE SET body = excluded.body, updated_at_ms = excluded.updated_at_ms",
                params![note_id, body, now],
            )
            .map_err(|e| NoteError::Store(sqlite(DOING)(e)))?;
        index::write_source(
            &transaction,
            &NewSource {
                kind: NOTE,
                root: "",
                rel_path: note_id,
                mtime_ns: now.saturating_mul(1_000_000),
                size: i64::try_from(body.len()).unwrap_or(i64::MAX),
                hash: &index::content_hash(body.as_bytes()),
                text: body,
            },
        )
        .map_err(NoteError::Store)?;
        transaction
            .commit()
            .map_err(|e| NoteError::Store(sqlite(DOING)(e)))
    }

    /// Deletes the memory note `note_id` and its index entries; whether it existed.
    pub fn delete_memory_note(&self, note_id: &str) -> Result<bool, StoreError> {
        const DOING: &str = "deleting a memory note";
        let mut connection = self.store().connection();
        let transaction = crate::begin_write(&mut connection).map_err(sqlite(DOING))?;
        let deleted = transaction
            .execute("DELETE FROM memory_notes WHERE note_id = ?1", [note_id])
            .map_err(sqlite(DOING))?;
        index::remove(&transaction, NOTE, "", note_id)?;
        transaction.commit().map_err(sqlite(DOING))?;
        Ok(deleted > 0)
    }

    /// The memory note `note_id`, if there is one.
    pub fn memory_note(&self, note_id: &str) -> Result<Option<MemoryNote>, StoreError> {
        self.store()
            .connection()
            .query_row(
                "SELECT note_id, body, updated_at_ms FROM memory_notes WHERE note_id = ?1",
                [note_id],
                |row| {
                    Ok(MemoryNote {
                        note_id: row.get(0)?,
                        body: row.get(1)?,
                        updated_at_ms: row.get(2)?,
                    })
                },
            )
            .optional()
            .map_err(sqlite("reading a memory note"))
    }

    /// The ids of every memory note, sorted.
    pub fn memory_note_ids(&self) -> Result<Vec<String>, StoreError> {
        const DOING: &str = "listing the memory notes";
        let connection = self.store().connection();
        let mut statement = connection
            .prepare("SELECT note_id FROM memory_notes ORDER BY note_id")
            .map_err(sqlite(DOING))?;
        let ids = statement
            .query_map([], |row| row.get(0))
            .map_err(sqlite(DOING))?;
        ids.collect::<Result<_, _>>().map_err(sqlite(DOING))
    }
}
