//! `MemorySearch`: ranked full-text search over notes and workspace Markdown.

use std::path::Path;

use holon_core::prelude::*;

use super::source_ref::SourceRef;
use super::{error, skipped_paths, store_error};
use holon_runtime::Runtime;
use holon_runtime::memory::{self, HitSource, SyncStats};

/// Hits returned when `limit` is not given.
pub const DEFAULT_LIMIT: usize = 10;

/// Arguments of MemorySearch.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct MemorySearchArgs {
    /// What to look for, in plain words (for example `deploy staging credentials`).
    /// Punctuation is ignored; a chunk matching more of the words, or rarer ones, ranks
    /// higher; word endings are stemmed (`deploying` finds `deploy`).
    #[schemars(length(min = 1, max = 1000))]
    pub query: String,
    /// How many hits to return, 1 to 50. Defaults to 10.
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<u32>,
    /// Search the Markdown of every bound workspace and worktree, not only the active
    /// execution root. Memory notes are always searched.
    #[serde(default)]
    pub include_all_workspaces: bool,
}

/// Where a hit comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// A Markdown file of a workspace or worktree.
    Workspace,
    /// A memory note.
    Note,
}

/// One matching section.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MemoryHit {
    /// Pass it to MemoryGet to read the lines: `workspace:<root_id>:<path>#L<a>-L<b>`
    /// or `note:<note_id>#L<a>-L<b>`.
    pub source_ref: String,
    /// `workspace` or `note`.
    pub source_kind: SourceKind,
    /// The execution root id of a workspace file.
    pub root_id: Option<String>,
    /// The file's path relative to its root, or the note's id.
    pub location: String,
    /// The heading of the section ("" before the first heading).
    pub heading: String,
    /// First line of the section, 1-based.
    pub start_line: usize,
    /// Last line of the section, inclusive.
    pub end_line: usize,
    /// The text around the matched words, which are marked «like this».
    pub snippet: String,
    /// Relevance (bm25, higher is better); comparable within one search only.
    pub score: f64,
}

/// The hits.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MemorySearchResult {
    /// The best hits, best first.
    pub hits: Vec<MemoryHit>,
    /// The execution roots whose Markdown was searched.
    pub searched_root_ids: Vec<String>,
    /// Markdown files in the index for those roots.
    pub indexed_files: usize,
    /// Files read again for this search because they were new or had changed.
    pub reindexed_files: usize,
    /// Files dropped from the index because they are gone (or their workspace was
    /// detached).
    pub removed_files: usize,
    /// True when a root had more files than the index takes (5,000 per root).
    pub index_truncated: bool,
}

/// Search the agent's memory: its memory notes and the Markdown files (`*.md`) of the
/// active workspace, or of every bound workspace and worktree with
/// `include_all_workspaces`.
///
/// Files are split into sections at their headings and searched with full-text ranking
/// (bm25): sections matching more of the query's words, rarer words, or words in their
/// heading or file name rank first. Each hit has a snippet and a `source_ref`; pass it
/// to MemoryGet to read the section. The index follows the files: anything changed
/// since the last search (by ApplyPatch, a command or a person) is re-read first.
/// The directories `.git/`, `target/`, `node_modules/` and `.holon/` and files over 512 KiB
/// are skipped.
#[holon_tool(family = CoreAgent, annotations(read_only, open_world = false))]
fn memory_search(
    rt: &Runtime,
    args: MemorySearchArgs,
) -> Result<ToolOutput<MemorySearchResult>, ToolError> {
    let Some(fts_query) = memory::fts_query(&args.query) else {
        return Err(error(
            "invalid_query",
            "the query has no words to search for (only punctuation or spaces)",
        )
        .with_field("query")
        .with_hint("search for words, for example `release checklist`"));
    };
    let state = rt.bindings().state().map_err(store_error)?;
    let active = rt.workspace_roots();
    let roots: Vec<(&str, &Path)> = state
        .execution_roots()
        .filter(|root| root.path.is_dir())
        .filter(|root| args.include_all_workspaces || root.path == active.active_root())
        .map(|root| (root.execution_root_id, root.path))
        .collect();
    let bound: Vec<&Path> = state.execution_roots().map(|root| root.path).collect();
    let pruned = memory::prune_unbound(rt.store(), &bound).map_err(store_error)?;
    let skip = skipped_paths(rt);
    let mut stats = SyncStats {
        removed_files: pruned,
        ..SyncStats::default()
    };
    for (_, path) in &roots {
        let synced = memory::sync_root(rt.store(), path, &skip).map_err(store_error)?;
        stats.indexed_files += synced.indexed_files;
        stats.reindexed_files += synced.reindexed_files;
        stats.removed_files += synced.removed_files;
        stats.truncated |= synced.truncated;
    }
    let limit = args.limit.map_or(DEFAULT_LIMIT, |l| l as usize);
    let paths: Vec<&Path> = roots.iter().map(|(_, path)| *path).collect();
    let found = memory::search(rt.store(), &fts_query, &paths, true, limit).map_err(store_error)?;
    let hits: Vec<MemoryHit> = found
        .into_iter()
        .filter_map(|hit| {
            let lines = Some((hit.start_line, hit.end_line));
            let (reference, kind, root_id, location) = match hit.source {
                HitSource::Workspace { root, rel_path } => {
                    let (id, _) = roots.iter().find(|(_, path)| *path == root)?;
                    let reference = SourceRef::Workspace {
                        root_id: (*id).to_string(),
                        rel_path: rel_path.clone(),
                        lines,
                    };
                    (
                        reference,
                        SourceKind::Workspace,
                        Some((*id).to_string()),
                        rel_path,
                    )
                }
                HitSource::Note { note_id } => {
                    let reference = SourceRef::Note {
                        note_id: note_id.clone(),
                        lines,
                    };
                    (reference, SourceKind::Note, None, note_id)
                }
            };
            Some(MemoryHit {
                source_ref: reference.to_string(),
                source_kind: kind,
                root_id,
                location,
                heading: hit.heading,
                start_line: hit.start_line,
                end_line: hit.end_line,
                snippet: hit.snippet,
                score: (hit.score * 1000.0).round() / 1000.0,
            })
        })
        .collect();
    let result = MemorySearchResult {
        searched_root_ids: roots.iter().map(|(id, _)| (*id).to_string()).collect(),
        indexed_files: stats.indexed_files,
        reindexed_files: stats.reindexed_files,
        removed_files: stats.removed_files,
        index_truncated: stats.truncated,
        hits,
    };
    let receipt = receipt(&args.query, &result);
    Ok(ToolOutput::new(result)
        .with_summary(format!("memory search: {} hit(s)", receipt.1))
        .with_receipt(receipt.0))
}

fn receipt(query: &str, result: &MemorySearchResult) -> (String, usize) {
    let mut text = format!(
        "{} hit(s) for `{query}` in {} and the memory notes ({} file(s) indexed, {} re-read)\n",
        result.hits.len(),
        result.searched_root_ids.join(", "),
        result.indexed_files,
        result.reindexed_files
    );
    for hit in &result.hits {
        text.push_str(&format!(
            "\n{} (score {})\n  {}\n",
            hit.source_ref,
            hit.score,
            hit.snippet.replace('\n', " ")
        ));
    }
    (text, result.hits.len())
}
