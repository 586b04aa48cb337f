//! Full-text queries over the index: FTS5 `MATCH`, ranked by `bm25()`, with a
//! `snippet()` of each hit.

use std::path::{Path, PathBuf};

use rusqlite::params;

use super::index::{NOTE, WORKSPACE};
use crate::{Store, StoreError};

/// At most this many terms of a query are used.
pub const MAX_QUERY_TERMS: usize = 32;

/// Marks put around matched terms in snippets.
pub const SNIPPET_MARKS: (&str, &str) = ("«", "»");

/// Column weights of `bm25()`: path, heading, body. A term in a heading or a file
/// name says more about a chunk than one in its body.
const WEIGHTS: (f64, f64, f64) = (2.0, 4.0, 1.0);

/// The FTS5 query for the words of `query`: each word a quoted string (so that no
/// character of the query is FTS5 syntax), any of them matching. `None` when the query
/// has no word at all.
pub fn fts_query(query: &str) -> Option<String> {
    let terms: Vec<String> = query
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|term| !term.is_empty())
        .take(MAX_QUERY_TERMS)
        .map(|term| format!("\"{}\"", term.to_lowercase()))
        .collect();
    (!terms.is_empty()).then(|| terms.join(" OR "))
}

/// Where a hit is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HitSource {
    /// A Markdown file of a workspace root.
    Workspace {
        /// The root's canonical path.
        root: PathBuf,
        /// The file's path relative to it.
        rel_path: String,
    },
    /// A memory note.
    Note {
        /// The note's id.
        note_id: String,
    },
}

/// One matching chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Where it is.
    pub source: HitSource,
    /// Its first line, 1-based.
    pub start_line: usize,
    /// Its last line, 1-based, inclusive.
    pub end_line: usize,
    /// The heading of its section.
    pub heading: String,
    /// The matched text around the terms, terms between [`SNIPPET_MARKS`].
    pub snippet: String,
    /// Relevance, higher is better (the negated bm25 rank).
    pub score: f64,
}

/// The best `limit` chunks matching `fts_query` in the files of `roots`, and in the
/// notes when `include_notes`.
pub fn search(
    store: &Store,
    fts_query: &str,
    roots: &[&Path],
    include_notes: bool,
    limit: usize,
) -> Result<Vec<Hit>, StoreError> {
    const DOING: &str = "searching the memory index";
    let sqlite = |source| StoreError::Sqlite {
        doing: DOING.to_string(),
        source,
    };
    let roots_json = serde_json::to_string(
        &roots
            .iter()
            .map(|root| root.to_string_lossy())
            .collect::<Vec<_>>(),
    )
    .unwrap_or_else(|_| "[]".to_string());
    let sql = format!(
        "SELECT s.kind, s.root_path, s.rel_path, c.start_line, c.end_line, c.heading,
                snippet(memory_fts, 2, ?4, ?5, '…', 24),
                bm25(memory_fts, {p}, {h}, {b}) AS rank
         FROM memory_fts
         JOIN memory_chunks c ON c.id = memory_fts.rowid
         JOIN memory_sources s ON s.id = c.source_id
         WHERE memory_fts MATCH ?1
           AND ((s.kind = '{WORKSPACE}' AND s.root_path IN (SELECT value FROM json_each(?2)))
                OR (s.kind = '{NOTE}' AND ?3))
         ORDER BY rank, s.rel_path, c.start_line
         LIMIT ?6",
        p = WEIGHTS.0,
        h = WEIGHTS.1,
        b = WEIGHTS.2,
    );
    let connection = store.connection();
    let mut statement = connection.prepare(&sql).map_err(sqlite)?;
    let rows = statement
        .query_map(
            params![
                fts_query,
                roots_json,
                include_notes,
                SNIPPET_MARKS.0,
                SNIPPET_MARKS.1,
                i64::try_from(limit).unwrap_or(i64::MAX)
            ],
            |row| {
                let kind: String = row.get(0)?;
                let root: String = row.get(1)?;
                let rel_path: String = row.get(2)?;
                let source = if kind == NOTE {
                    HitSource::Note { note_id: rel_path }
                } else {
                    HitSource::Workspace {
                        root: PathBuf::from(root),
                        rel_path,
                    }
                };
                Ok(Hit {
                    source,
                    start_line: usize::try_from(row.get::<_, i64>(3)?).unwrap_or_default(),
                    end_line: usize::try_from(row.get::<_, i64>(4)?).unwrap_or_default(),
                    heading: row.get(5)?,
                    snippet: row.get(6)?,
                    score: -row.get::<_, f64>(7)?,
                })
            },
        )
        .map_err(sqlite)?;
    rows.collect::<Result<_, _>>().map_err(sqlite)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_quoted_words() {
        assert_eq!(
            fts_query("deploy AND \"staging\" -x*"),
            Some("\"deploy\" OR \"and\" OR \"staging\" OR \"x\"".to_string())
        );
        assert_eq!(fts_query("  ?! ** "), None);
    }
}
