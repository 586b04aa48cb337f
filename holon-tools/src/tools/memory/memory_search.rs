//! `MemorySearch`: ranked full-text search over notes and workspace Markdown.

use holon_core::prelude::*;

use holon_runtime::Runtime;
use holon_runtime::memory::{SearchScope, SourceRef};

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

impl SourceKind {
    /// The kind of source `source_ref` names.
    pub fn of(source_ref: &SourceRef) -> Self {
        match source_ref {
            SourceRef::Workspace { .. } => Self::Workspace,
            SourceRef::Note { .. } => Self::Note,
        }
    }
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
#[holon_tool(
    family = CoreAgent,
    keywords = ["notes", "recall", "remember", "knowledge base", "docs", "full text"],
    annotations(read_only, open_world = false)
)]
fn memory_search(
    rt: &Runtime,
    args: MemorySearchArgs,
) -> Result<ToolOutput<MemorySearchResult>, ToolError> {
    let scope = if args.include_all_workspaces {
        SearchScope::AllRoots
    } else {
        SearchScope::ActiveRoot
    };
    let limit = args.limit.map_or(DEFAULT_LIMIT, |l| l as usize);
    let found = rt.memory().search(&args.query, scope, limit)?;
    let hits = found
        .hits
        .into_iter()
        .map(|hit| MemoryHit {
            source_kind: SourceKind::of(&hit.source_ref),
            root_id: hit.source_ref.root_id().map(str::to_string),
            location: hit.source_ref.location().to_string(),
            source_ref: hit.source_ref.to_string(),
            heading: hit.heading,
            start_line: hit.start_line,
            end_line: hit.end_line,
            snippet: hit.snippet,
            score: (hit.score * 1000.0).round() / 1000.0,
        })
        .collect();
    let result = MemorySearchResult {
        searched_root_ids: found.searched_root_ids,
        indexed_files: found.stats.indexed_files,
        reindexed_files: found.stats.reindexed_files,
        removed_files: found.stats.removed_files,
        index_truncated: found.stats.truncated,
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
