//! The memory service ([`Runtime::memory`]): a ranked search over the memory notes and
//! the Markdown of the bound execution roots, with the index synced first, and the
//! read of what a `source_ref` names, confined to indexed sources.

use std::path::{Path, PathBuf};

use holon_core::closest;

use super::errors::{MemoryError, MemoryErrorKind, error, not_indexed};
use super::index::{SyncStats, prune_unbound, sync_root};
use super::notes::is_valid_note_id;
use super::search::{HitSource, fts_query, search};
use super::source_ref::SourceRef;
use super::walk::read_indexed;
use crate::Runtime;
use holon_gates::fs::RootDir;

/// Which execution roots a search covers (memory notes are always searched).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchScope {
    /// The active execution root only.
    ActiveRoot,
    /// Every bound workspace and worktree.
    AllRoots,
}

/// One matching section.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundSection {
    /// Where it is, with its line range.
    pub source_ref: SourceRef,
    /// The heading of the section ("" before the first heading).
    pub heading: String,
    /// Its first line, 1-based.
    pub start_line: usize,
    /// Its last line, 1-based, inclusive.
    pub end_line: usize,
    /// The text around the matched words, marked with [`super::SNIPPET_MARKS`].
    pub snippet: String,
    /// Relevance (bm25, higher is better), unrounded.
    pub score: f64,
}

/// What a search found and what its sync of the index did.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchOutcome {
    /// The best sections, best first.
    pub hits: Vec<FoundSection>,
    /// The execution roots whose Markdown was searched.
    pub searched_root_ids: Vec<String>,
    /// The sync of those roots, with the files of unbound roots counted as removed.
    pub stats: SyncStats,
}

/// The lines a `source_ref` names, as the source is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceText {
    /// The ref as parsed.
    pub source_ref: SourceRef,
    /// The first line returned, 1-based.
    pub start_line: usize,
    /// The last line returned (inclusive); less than `start_line` when none fit.
    pub end_line: usize,
    /// How many lines the source has now.
    pub total_lines: usize,
    /// The lines, joined with newlines.
    pub text: String,
    /// True when the character budget cut the text short.
    pub truncated: bool,
    /// When truncated: the ref of the rest of the requested lines.
    pub next_ref: Option<SourceRef>,
}

/// The memory service of a runtime.
#[derive(Clone, Copy)]
pub struct Memory<'rt> {
    rt: &'rt Runtime,
}

impl Runtime {
    /// The memory service: search and read the notes and the workspaces' Markdown.
    pub fn memory(&self) -> Memory<'_> {
        Memory { rt: self }
    }
}

impl Memory<'_> {
    /// The best `limit` sections matching the words of `query` in `scope` and the
    /// notes. The roots searched are synced first, and the index entries of roots no
    /// longer bound are dropped.
    pub fn search(
        &self,
        query: &str,
        scope: SearchScope,
        limit: usize,
    ) -> Result<SearchOutcome, MemoryError> {
        let Some(fts) = fts_query(query) else {
            return Err(error(
                MemoryErrorKind::InvalidQuery,
                "the query has no words to search for (only punctuation or spaces)",
                "search for words, for example `release checklist`",
            )
            .with_field("query"));
        };
        let store = self.rt.store();
        let state = self.rt.bindings().state()?;
        let active = self.rt.workspace_roots();
        // Each root searched is opened once and walked through that handle; one that
        // is gone is not searched (and keeps its index entries).
        let roots: Vec<(&str, &Path, RootDir)> = state
            .execution_roots()
            .filter(|root| scope == SearchScope::AllRoots || root.path == active.active_root())
            .filter_map(|root| {
                let dir = RootDir::open(root.path).ok()?;
                Some((root.execution_root_id, root.path, dir))
            })
            .collect();
        let bound: Vec<&Path> = state.execution_roots().map(|root| root.path).collect();
        let mut stats = SyncStats {
            removed_files: prune_unbound(store, &bound)?,
            ..SyncStats::default()
        };
        let skip = self.skipped_paths();
        for (_, path, dir) in &roots {
            let synced = sync_root(store, path, dir, &skip)?;
            stats.indexed_files += synced.indexed_files;
            stats.reindexed_files += synced.reindexed_files;
            stats.removed_files += synced.removed_files;
            stats.truncated |= synced.truncated;
        }
        let paths: Vec<&Path> = roots.iter().map(|(_, path, _)| *path).collect();
        let hits = search(store, &fts, &paths, true, limit)?
            .into_iter()
            .filter_map(|hit| {
                let lines = Some((hit.start_line, hit.end_line));
                let source_ref = match hit.source {
                    HitSource::Workspace { root, rel_path } => {
                        let (id, _, _) = roots.iter().find(|(_, path, _)| *path == root)?;
                        SourceRef::Workspace {
                            root_id: (*id).to_string(),
                            rel_path,
                            lines,
                        }
                    }
                    HitSource::Note { note_id } => SourceRef::Note { note_id, lines },
                };
                Some(FoundSection {
                    source_ref,
                    heading: hit.heading,
                    start_line: hit.start_line,
                    end_line: hit.end_line,
                    snippet: hit.snippet,
                    score: hit.score,
                })
            })
            .collect();
        Ok(SearchOutcome {
            hits,
            searched_root_ids: roots.iter().map(|(id, _, _)| (*id).to_string()).collect(),
            stats,
        })
    }

    /// The lines `source_ref` names (all of them without a range), read from the
    /// source as it is now, in whole lines within `max_chars` characters.
    pub fn get(&self, source_ref: &str, max_chars: usize) -> Result<SourceText, MemoryError> {
        let reference = SourceRef::parse(source_ref).map_err(|why| {
            error(
                MemoryErrorKind::InvalidSourceRef,
                format!("`{source_ref}` is not a source_ref: {why}"),
                "pass a `source_ref` exactly as MemorySearch returned it",
            )
            .with_field("source_ref")
        })?;
        let (body, lines) = match &reference {
            SourceRef::Workspace {
                root_id,
                rel_path,
                lines,
            } => (self.read_file(source_ref, root_id, rel_path)?, *lines),
            SourceRef::Note { note_id, lines } => (self.read_note(note_id)?, *lines),
        };
        let all: Vec<&str> = body.lines().collect();
        let total_lines = all.len();
        let (start, end) = lines.unwrap_or((1, total_lines.max(1)));
        if start > total_lines.max(1) {
            return Err(error(
                MemoryErrorKind::LineRangeOutOfBounds,
                format!(
                    "`{source_ref}` starts at line {start}, but the source has {total_lines} line(s) now"
                ),
                "the source changed since the search: search again for fresh refs",
            )
            .with_field("source_ref")
            .with_details(serde_json::json!({ "total_lines": total_lines })));
        }
        let end = end.min(total_lines);
        let wanted = all.get(start.saturating_sub(1)..end).unwrap_or_default();
        let (text, last, cut) = take_lines(wanted, start, max_chars);
        let next_ref = (last < end).then(|| reference.with_lines(Some((last + 1, end))));
        Ok(SourceText {
            source_ref: reference,
            start_line: start,
            end_line: last,
            total_lines,
            text,
            truncated: cut || last < end,
            next_ref,
        })
    }

    /// The text of an indexed file of the bound root `root_id`; `shown` is the ref as
    /// the caller wrote it.
    fn read_file(&self, shown: &str, root_id: &str, rel_path: &str) -> Result<String, MemoryError> {
        let state = self.rt.bindings().state()?;
        let Some(root) = state
            .execution_root(root_id)
            .and_then(|root| RootDir::open(root.path).ok())
        else {
            let ids: Vec<&str> = state.ids().collect();
            let hint = match closest(root_id, ids.iter().copied()) {
                Some(best) => format!("did you mean `{best}`? search again for fresh refs"),
                None => format!(
                    "execution roots: {}; search again for fresh refs",
                    ids.join(", ")
                ),
            };
            return Err(error(
                MemoryErrorKind::UnknownSourceRoot,
                format!("no bound workspace or worktree has the id `{root_id}`"),
                hint,
            )
            .with_field("source_ref"));
        };
        let bytes = read_indexed(&root, rel_path, &self.skipped_paths())
            .map_err(|why| not_indexed(shown, &why))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// The body of the note `note_id`.
    fn read_note(&self, note_id: &str) -> Result<String, MemoryError> {
        let note = if is_valid_note_id(note_id) {
            self.rt.memory_note(note_id)?
        } else {
            None
        };
        note.map(|note| note.body).ok_or_else(|| {
            error(
                MemoryErrorKind::SourceNotFound,
                format!("there is no memory note `{note_id}`"),
                "search again: the note may have been deleted",
            )
            .with_field("source_ref")
        })
    }

    /// Directories never indexed whatever their name: the state directory (which holds
    /// the store, task logs and worktrees of their own).
    fn skipped_paths(&self) -> Vec<PathBuf> {
        self.rt
            .state_dir()
            .and_then(|dir| RootDir::open(dir).ok())
            .map(|dir| dir.path().to_path_buf())
            .into_iter()
            .collect()
    }
}

/// Whole lines of `lines` (the first numbered `first`) within `max_chars`; when not even
/// the first fits, its first `max_chars` characters. Returns the text, the number of
/// the last line included, and whether that line was cut.
fn take_lines(lines: &[&str], first: usize, max_chars: usize) -> (String, usize, bool) {
    let mut text = String::new();
    let mut used = 0;
    let mut last = first.saturating_sub(1);
    for (i, line) in lines.iter().enumerate() {
        let cost = line.chars().count() + usize::from(i > 0);
        if used + cost > max_chars {
            if i == 0 {
                return (line.chars().take(max_chars).collect(), first, true);
            }
            break;
        }
        if i > 0 {
            text.push('\n');
        }
        text.push_str(line);
        used += cost;
        last = first + i;
    }
    (text, last, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RuntimeConfig;

    #[test]
    fn a_host_searches_and_reads_back_through_the_service_alone() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("guide.md"),
            "# Deploy\nstaging first\nthen prod\n",
        )
        .unwrap();
        let rt = Runtime::open(RuntimeConfig::in_memory(dir.path())).unwrap();
        rt.put_memory_note("plan", "# Plan\ndeploy on friday\n")
            .unwrap();

        let found = rt
            .memory()
            .search("deploy", SearchScope::ActiveRoot, 10)
            .unwrap();
        assert_eq!(found.stats.indexed_files, 1);
        let refs: Vec<String> = found
            .hits
            .iter()
            .map(|h| h.source_ref.to_string())
            .collect();
        assert!(refs.contains(&"note:plan#L1-L2".to_string()), "{refs:?}");
        let file_ref = found
            .hits
            .iter()
            .find(|h| h.source_ref.location() == "guide.md")
            .map(|h| h.source_ref.to_string())
            .unwrap();

        // 8 characters hold "# Deploy" only: the rest is the next ref.
        let read = rt.memory().get(&file_ref, 8).unwrap();
        assert_eq!((read.text.as_str(), read.end_line), ("# Deploy", 1));
        assert!(read.truncated);
        let next = read.next_ref.unwrap().to_string();
        assert!(next.ends_with(":guide.md#L2-L3"), "{next}");
        let rest = rt.memory().get(&next, 1000).unwrap();
        assert_eq!(rest.text, "staging first\nthen prod");
        assert!(!rest.truncated);
    }

    #[test]
    fn refused_reads_say_why_with_the_kind_the_model_sees() {
        let dir = tempfile::tempdir().unwrap();
        let rt = Runtime::open(RuntimeConfig::in_memory(dir.path())).unwrap();
        let memory = rt.memory();
        let kind = |source_ref: &str| memory.get(source_ref, 100).unwrap_err().kind;
        assert_eq!(kind("file:/etc/passwd"), MemoryErrorKind::InvalidSourceRef);
        assert_eq!(
            kind("workspace:nope:a.md"),
            MemoryErrorKind::UnknownSourceRoot
        );
        assert_eq!(kind("note:missing"), MemoryErrorKind::SourceNotFound);
        assert_eq!(kind("note:../x"), MemoryErrorKind::SourceNotFound);
        rt.put_memory_note("short", "one line").unwrap();
        let error = memory.get("note:short#L5-L6", 100).unwrap_err();
        assert_eq!(error.kind, MemoryErrorKind::LineRangeOutOfBounds);
        assert_eq!(
            error.details.as_deref(),
            Some(&serde_json::json!({ "total_lines": 1 }))
        );
        let error = memory.search(" ?! ", SearchScope::AllRoots, 5).unwrap_err();
        assert_eq!(error.kind, MemoryErrorKind::InvalidQuery);
        assert_eq!(error.field.as_deref(), Some("query"));
    }
}
