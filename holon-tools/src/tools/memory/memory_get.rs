//! `MemoryGet`: read what a `source_ref` points at, confined to the indexed sources.

use holon_core::closest;
use holon_core::prelude::*;

use super::memory_search::SourceKind;
use super::source_ref::SourceRef;
use super::{error, skipped_paths, store_error};
use holon_runtime::Runtime;
use holon_runtime::memory::{NotIndexed, is_valid_note_id, read_indexed};

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
#[holon_tool(family = CoreAgent, annotations(read_only, idempotent, open_world = false))]
fn memory_get(rt: &Runtime, args: MemoryGetArgs) -> Result<ToolOutput<MemoryText>, ToolError> {
    let reference = SourceRef::parse(&args.source_ref).map_err(|why| {
        error(
            "invalid_source_ref",
            format!("`{}` is not a source_ref: {why}", args.source_ref),
        )
        .with_field("source_ref")
        .with_hint("pass a `source_ref` exactly as MemorySearch returned it")
    })?;
    let (kind, root_id, location, body, lines) = match &reference {
        SourceRef::Workspace {
            root_id,
            rel_path,
            lines,
        } => {
            let state = rt.bindings().state().map_err(store_error)?;
            let Some(root) = state.execution_root(root_id).filter(|r| r.path.is_dir()) else {
                let ids: Vec<&str> = state.ids().collect();
                let hint = match closest(root_id, ids.iter().copied()) {
                    Some(best) => format!("did you mean `{best}`? search again for fresh refs"),
                    None => format!(
                        "execution roots: {}; search again for fresh refs",
                        ids.join(", ")
                    ),
                };
                return Err(error(
                    "unknown_source_root",
                    format!("no bound workspace or worktree has the id `{root_id}`"),
                )
                .with_field("source_ref")
                .with_hint(hint));
            };
            let bytes = read_indexed(root.path, rel_path, &skipped_paths(rt))
                .map_err(|why| not_indexed(&args.source_ref, &why))?;
            let body = String::from_utf8_lossy(&bytes).into_owned();
            (
                SourceKind::Workspace,
                Some(root_id.clone()),
                rel_path.clone(),
                body,
                *lines,
            )
        }
        SourceRef::Note { note_id, lines } => {
            let note = is_valid_note_id(note_id)
                .then(|| rt.memory_note(note_id))
                .transpose()
                .map_err(store_error)?
                .flatten()
                .ok_or_else(|| {
                    error(
                        "source_not_found",
                        format!("there is no memory note `{note_id}`"),
                    )
                    .with_field("source_ref")
                    .with_hint("search again: the note may have been deleted")
                })?;
            (SourceKind::Note, None, note_id.clone(), note.body, *lines)
        }
    };
    let all: Vec<&str> = body.lines().collect();
    let total_lines = all.len();
    let (start, end) = lines.unwrap_or((1, total_lines.max(1)));
    if start > total_lines.max(1) {
        return Err(error(
            "line_range_out_of_bounds",
            format!(
                "`{}` starts at line {start}, but the source has {total_lines} line(s) now",
                args.source_ref
            ),
        )
        .with_field("source_ref")
        .with_details(serde_json::json!({ "total_lines": total_lines }))
        .with_hint("the source changed since the search: search again for fresh refs"));
    }
    let end = end.min(total_lines);
    let max_chars = args.max_chars.map_or(DEFAULT_MAX_CHARS, |m| m as usize);
    let wanted = all.get(start.saturating_sub(1)..end).unwrap_or_default();
    let (text, last, cut) = take_lines(wanted, start, max_chars);
    let truncated = cut || last < end;
    let next_ref = (last < end).then(|| reference.with_lines(Some((last + 1, end))).to_string());
    let result = MemoryText {
        source_kind: kind,
        root_id,
        location,
        start_line: start,
        end_line: last,
        total_lines,
        text,
        truncated,
        next_ref,
    };
    let summary = format!(
        "{} lines {}-{} of {}{}",
        result.location,
        result.start_line,
        result.end_line,
        result.total_lines,
        if truncated { " (truncated)" } else { "" }
    );
    Ok(ToolOutput::new(result).with_summary(summary))
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

fn not_indexed(shown: &str, why: &NotIndexed) -> ToolError {
    let (kind, hint) = match why {
        NotIndexed::Escapes => (
            "source_outside_index",
            "refs name files inside their root; pass a `source_ref` exactly as MemorySearch returned it",
        ),
        NotIndexed::Missing => ("source_not_found", "the file may have moved: search again"),
        NotIndexed::NotRegular(_) => (
            "not_a_regular_file",
            "MemoryGet reads regular files only, not FIFOs, sockets or devices",
        ),
        NotIndexed::Unreadable(_) => ("source_unreadable", "retry; check the file's permissions"),
        NotIndexed::Excluded(_) | NotIndexed::NotMarkdown | NotIndexed::TooLarge(_) => (
            "source_not_indexed",
            "MemoryGet reads indexed Markdown files only; read other files with a command",
        ),
    };
    let error = error(kind, format!("`{shown}` cannot be read: {why}"))
        .with_field("source_ref")
        .with_hint(hint);
    if matches!(why, NotIndexed::Unreadable(_)) {
        error.retryable()
    } else {
        error
    }
}
