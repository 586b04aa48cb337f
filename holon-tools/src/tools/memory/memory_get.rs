//! `MemoryGet`: read what a `source_ref` points at, confined to the indexed sources.

use holon_core::prelude::*;

use super::memory_search::SourceKind;
use holon_runtime::Runtime;

/// Characters returned when `max_chars` is not given.
pub const DEFAULT_MAX_CHARS: usize = 20_000;

/// Arguments of MemoryGet.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct MemoryGetArgs {
    /// A `source_ref` from MemorySearch: `workspace:<root_id>:<path>` or
    /// `note:<note_id>`, optionally with a line range `#L<start>-L<end>`.
    #[schemars(length(min = 1, max = 4096))]
    pub source_ref: String,
    /// The most characters to return, 1 to 50,000. Defaults to 20,000. Whole lines are
    /// returned; when they do not fit, `next_ref` continues after the last one.
    #[serde(default)]
    #[schemars(range(min = 1, max = 50000))]
    pub max_chars: Option<u32>,
}

/// The text.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MemoryText {
    /// `workspace` or `note`.
    pub source_kind: SourceKind,
    /// The execution root id of a workspace file.
    pub root_id: Option<String>,
    /// The file's path relative to its root, or the note's id.
    pub location: String,
    /// The first line returned, 1-based.
    pub start_line: usize,
    /// The last line returned (inclusive); less than `start_line` when none fit.
    pub end_line: usize,
    /// How many lines the source has now.
    pub total_lines: usize,
    /// The lines, joined with newlines.
    pub text: String,
    /// True when `max_chars` cut the text short.
    pub truncated: bool,
    /// When truncated: the `source_ref` of the rest of the requested lines.
    pub next_ref: Option<String>,
}

/// Read a memory note or a workspace Markdown file by the `source_ref` MemorySearch
/// returned, or the lines of it the ref names.
///
/// The lines are read from the source as it is now, so they may have moved since the
/// search; `total_lines` tells how long it is. Only indexed sources can be read: a ref
/// to an unknown execution root, a path that leaves its root (`..`, absolute, a
/// symlink), a file the index skips (not Markdown, under `.git`, `target`,
/// `node_modules` or `.holon`, over 512 KiB) or a missing note is refused with a typed
/// error.
#[holon_tool(
    family = CoreAgent,
    keywords = ["open note", "read note", "more lines", "document"],
    annotations(read_only, idempotent, open_world = false)
)]
fn memory_get(rt: &Runtime, args: MemoryGetArgs) -> Result<ToolOutput<MemoryText>, ToolError> {
    let max_chars = args.max_chars.map_or(DEFAULT_MAX_CHARS, |m| m as usize);
    let read = rt.memory().get(&args.source_ref, max_chars)?;
    let result = MemoryText {
        source_kind: SourceKind::of(&read.source_ref),
        root_id: read.source_ref.root_id().map(str::to_string),
        location: read.source_ref.location().to_string(),
        start_line: read.start_line,
        end_line: read.end_line,
        total_lines: read.total_lines,
        text: read.text,
        truncated: read.truncated,
        next_ref: read.next_ref.map(|next| next.to_string()),
    };
    let summary = format!(
        "{} lines {}-{} of {}{}",
        result.location,
        result.start_line,
        result.end_line,
        result.total_lines,
        if result.truncated { " (truncated)" } else { "" }
    );
    Ok(ToolOutput::new(result).with_summary(summary))
}
