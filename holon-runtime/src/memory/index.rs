//! The index tables: `memory_sources` (one row per indexed file or note, with the
//! modification time, size and hash it was indexed at), `memory_chunks` (line ranges
//! and headings) and `memory_fts` (an FTS5 table whose rowid is the chunk id).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};

use super::chunk::chunks;
use super::walk::{FoundFile, read_file, walk};
use crate::{Store, StoreError};
use holon_gates::fs::{RelPath, RootDir};

/// A file modified less than this long before it was indexed is hashed again at the
/// next sync even when its size and time look unchanged: a write in the same clock
/// tick as the indexing read would otherwise go unseen.
const RACY_WINDOW_NS: i64 = 2_000_000_000;

/// The `kind` of a workspace file.
pub(super) const WORKSPACE: &str = "workspace";
/// The `kind` of a memory note.
pub(super) const NOTE: &str = "note";

fn sqlite(doing: &'static str) -> impl FnOnce(rusqlite::Error) -> StoreError {
    move |source| StoreError::Sqlite {
        doing: doing.to_string(),
        source,
    }
}

/// 64-bit FNV-1a of `bytes`, in hex: cheap, stable across builds, enough to tell
/// whether a file changed.
pub(super) fn content_hash(bytes: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// Wall-clock nanoseconds since the Unix epoch.
pub(super) fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// What one sync of a root did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SyncStats {
    /// Files the root has in the index after the sync.
    pub indexed_files: usize,
    /// Files (re)read and indexed because they are new or changed.
    pub reindexed_files: usize,
    /// Files dropped from the index because they are gone.
    pub removed_files: usize,
    /// Whether a walk limit left files out.
    pub truncated: bool,
}

struct Stored {
    id: i64,
    mtime_ns: i64,
    size: i64,
    hash: String,
    indexed_at_ns: i64,
}

fn stored_sources(
    connection: &Connection,
    kind: &str,
    root: &str,
) -> Result<HashMap<String, Stored>, StoreError> {
    const DOING: &str = "reading the memory index";
    let mut statement = connection
        .prepare(
            "SELECT rel_path, id, mtime_ns, size, hash, indexed_at_ns FROM memory_sources
             WHERE kind = ?1 AND root_path = ?2",
        )
        .map_err(sqlite(DOING))?;
    let rows = statement
        .query_map([kind, root], |row| {
            Ok((
                row.get::<_, String>(0)?,
                Stored {
                    id: row.get(1)?,
                    mtime_ns: row.get(2)?,
                    size: row.get(3)?,
                    hash: row.get(4)?,
                    indexed_at_ns: row.get(5)?,
                },
            ))
        })
        .map_err(sqlite(DOING))?;
    rows.collect::<Result<_, _>>().map_err(sqlite(DOING))
}

/// Removes a source with its chunks and their full-text rows.
fn remove_source(connection: &Connection, id: i64) -> Result<(), StoreError> {
    const DOING: &str = "removing a source from the memory index";
    connection
        .execute(
            "DELETE FROM memory_fts WHERE rowid IN (SELECT id FROM memory_chunks WHERE source_id = ?1)",
            [id],
        )
        .map_err(sqlite(DOING))?;
    connection
        .execute("DELETE FROM memory_chunks WHERE source_id = ?1", [id])
        .map_err(sqlite(DOING))?;
    connection
        .execute("DELETE FROM memory_sources WHERE id = ?1", [id])
        .map_err(sqlite(DOING))?;
    Ok(())
}

/// A source to write: its identity, what it was indexed at, and its text.
pub(super) struct NewSource<'a> {
    pub(super) kind: &'a str,
    pub(super) root: &'a str,
    pub(super) rel_path: &'a str,
    pub(super) mtime_ns: i64,
    pub(super) size: i64,
    pub(super) hash: &'a str,
    pub(super) text: &'a str,
}

/// Replaces the source's rows (if any) with fresh ones for `source`.
pub(super) fn write_source(
    connection: &Connection,
    source: &NewSource<'_>,
) -> Result<(), StoreError> {
    const DOING: &str = "indexing a memory source";
    let existing: Option<i64> = connection
        .query_row(
            "SELECT id FROM memory_sources WHERE kind = ?1 AND root_path = ?2 AND rel_path = ?3",
            [source.kind, source.root, source.rel_path],
            |row| row.get(0),
        )
        .optional()
        .map_err(sqlite(DOING))?;
    if let Some(id) = existing {
        remove_source(connection, id)?;
    }
    connection
        .execute(
            "INSERT INTO memory_sources (kind, root_path, rel_path, mtime_ns, size, hash, indexed_at_ns)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                source.kind,
                source.root,
                source.rel_path,
                source.mtime_ns,
                source.size,
                source.hash,
                now_ns()
            ],
        )
        .map_err(sqlite(DOING))?;
    let source_id = connection.last_insert_rowid();
    for chunk in chunks(source.text) {
        connection
            .execute(
                "INSERT INTO memory_chunks (source_id, start_line, end_line, heading) VALUES (?1, ?2, ?3, ?4)",
                params![
                    source_id,
                    i64::try_from(chunk.start_line).unwrap_or(i64::MAX),
                    i64::try_from(chunk.end_line).unwrap_or(i64::MAX),
                    chunk.heading
                ],
            )
            .map_err(sqlite(DOING))?;
        connection
            .execute(
                "INSERT INTO memory_fts (rowid, path, heading, body) VALUES (?1, ?2, ?3, ?4)",
                params![
                    connection.last_insert_rowid(),
                    source.rel_path,
                    chunk.heading,
                    chunk.text
                ],
            )
            .map_err(sqlite(DOING))?;
    }
    Ok(())
}

/// Removes the source `rel_path` of `kind` under `root`; whether it was indexed.
pub(super) fn remove(
    connection: &Connection,
    kind: &str,
    root: &str,
    rel_path: &str,
) -> Result<bool, StoreError> {
    let id: Option<i64> = connection
        .query_row(
            "SELECT id FROM memory_sources WHERE kind = ?1 AND root_path = ?2 AND rel_path = ?3",
            [kind, root, rel_path],
            |row| row.get(0),
        )
        .optional()
        .map_err(sqlite("reading the memory index"))?;
    match id {
        Some(id) => remove_source(connection, id).map(|()| true),
        None => Ok(false),
    }
}

/// A changed file, read.
struct Changed {
    file: FoundFile,
    hash: String,
    text: String,
}

/// Brings the index of `root` up to date: a stat walk, then only new or changed files
/// are read (a file whose hash did not change only gets its time updated), and files
/// that are gone are dropped. Files are read without holding the store; the writes are
/// one transaction.
pub fn sync_root(
    store: &Store,
    root: &Path,
    root_dir: &RootDir,
    skip: &[PathBuf],
) -> Result<SyncStats, StoreError> {
    const DOING: &str = "updating the memory index";
    let root_text = root.to_string_lossy().into_owned();
    let found = walk(root_dir, skip);
    let stored = stored_sources(&store.connection(), WORKSPACE, &root_text)?;
    let mut changed = Vec::new();
    let mut touched = Vec::new();
    for file in &found.files {
        let size = i64::try_from(file.size).unwrap_or(i64::MAX);
        let known = stored.get(&file.rel_path);
        let fresh = known.is_some_and(|s| {
            s.mtime_ns == file.mtime_ns
                && s.size == size
                && file.mtime_ns < s.indexed_at_ns.saturating_sub(RACY_WINDOW_NS)
        });
        if fresh {
            continue;
        }
        let Some(bytes) = RelPath::normalize(Path::new(&file.rel_path))
            .and_then(|rel| read_file(root_dir, &rel).ok())
        else {
            continue;
        };
        let hash = content_hash(&bytes);
        match known {
            Some(s) if s.hash == hash => touched.push((s.id, file.clone())),
            _ => changed.push(Changed {
                file: file.clone(),
                hash,
                text: String::from_utf8_lossy(&bytes).into_owned(),
            }),
        }
    }
    let walked: std::collections::HashSet<&str> =
        found.files.iter().map(|f| f.rel_path.as_str()).collect();
    let gone: Vec<i64> = stored
        .iter()
        .filter(|(rel, _)| !walked.contains(rel.as_str()))
        .map(|(_, s)| s.id)
        .collect();
    if !changed.is_empty() || !touched.is_empty() || !gone.is_empty() {
        let mut connection = store.connection();
        let transaction = crate::begin_write(&mut connection).map_err(sqlite(DOING))?;
        for id in &gone {
            remove_source(&transaction, *id)?;
        }
        for (id, file) in &touched {
            transaction
                .execute(
                    "UPDATE memory_sources SET mtime_ns = ?2, size = ?3, indexed_at_ns = ?4 WHERE id = ?1",
                    params![id, file.mtime_ns, i64::try_from(file.size).unwrap_or(i64::MAX), now_ns()],
                )
                .map_err(sqlite(DOING))?;
        }
        for change in &changed {
            write_source(
                &transaction,
                &NewSource {
                    kind: WORKSPACE,
                    root: &root_text,
                    rel_path: &change.file.rel_path,
                    mtime_ns: change.file.mtime_ns,
                    size: i64::try_from(change.file.size).unwrap_or(i64::MAX),
                    hash: &change.hash,
                    text: &change.text,
                },
            )?;
        }
        transaction.commit().map_err(sqlite(DOING))?;
    }
    Ok(SyncStats {
        indexed_files: found.files.len(),
        reindexed_files: changed.len(),
        removed_files: gone.len(),
        truncated: found.truncated,
    })
}

/// Drops the index of every root not in `bound` (a workspace detached, a worktree
/// removed); returns how many files were dropped.
pub fn prune_unbound(store: &Store, bound: &[&Path]) -> Result<usize, StoreError> {
    const DOING: &str = "pruning the memory index";
    let bound: Vec<String> = bound
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let mut connection = store.connection();
    let stale: Vec<i64> = {
        let mut statement = connection
            .prepare("SELECT id, root_path FROM memory_sources WHERE kind = ?1")
            .map_err(sqlite(DOING))?;
        let rows = statement
            .query_map([WORKSPACE], |row| {
                Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
            })
            .map_err(sqlite(DOING))?;
        let rows: Vec<(i64, String)> = rows.collect::<Result<_, _>>().map_err(sqlite(DOING))?;
        rows.into_iter()
            .filter(|(_, root)| !bound.contains(root))
            .map(|(id, _)| id)
            .collect()
    };
    if stale.is_empty() {
        return Ok(0);
    }
    let transaction = crate::begin_write(&mut connection).map_err(sqlite(DOING))?;
    for id in &stale {
        remove_source(&transaction, *id)?;
    }
    transaction.commit().map_err(sqlite(DOING))?;
    Ok(stale.len())
}
