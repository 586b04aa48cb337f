//! `ApplyPatch`: edit workspace files with a patch, atomically.

mod apply;
mod envelope;
mod matcher;
mod model;
mod unified;

use holon_core::prelude::*;
use similar::TextDiff;

use crate::runtime::Runtime;
use apply::{ApplyError, Outcome};

/// Lines of diff shown in the result, at most.
const PREVIEW_LINES: usize = 60;

/// How long the diffs of one patch may search for the smallest edits. Past it, a diff
/// settles for a larger one that is still exact: without a bound, a patch rewriting a
/// big file costs time quadratic in its size (20,000 lines: 4 s; 100,000: minutes).
const DIFF_DEADLINE: std::time::Duration = std::time::Duration::from_millis(250);

/// Arguments of ApplyPatch.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ApplyPatchArgs {
    /// The patch: a unified diff (`--- a/path`, `+++ b/path`, `@@ -l,n +l,n @@` hunks;
    /// `/dev/null` to add or delete a file), or a `*** Begin Patch` patch. Paths are
    /// relative to the workspace root.
    #[schemars(length(min = 1))]
    pub patch: String,
}

impl FromFreeform for ApplyPatchArgs {
    fn from_freeform(text: String) -> Result<Self, ToolError> {
        Ok(Self { patch: text })
    }
}

/// One changed file.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ChangedFile {
    /// `add`, `delete`, `update` or `move`.
    pub action: String,
    /// The file's path, relative to the workspace root.
    pub path: String,
    /// Where it was moved to, for `move`.
    pub moved_to: Option<String>,
    /// How many hunks were applied to it.
    pub hunks: usize,
    /// Lines added.
    pub lines_added: usize,
    /// Lines removed.
    pub lines_removed: usize,
}

/// What the patch changed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PatchApplied {
    /// Every changed file, in patch order.
    pub files: Vec<ChangedFile>,
    /// A unified diff of the change, cut after 60 lines.
    pub diff_preview: String,
}

/// Apply a patch to files in the workspace: add, delete, edit and move files.
///
/// Send either a unified diff as `patch`, or the raw text of a patch in this format:
///
/// ```text
/// *** Begin Patch
/// *** Add File: path/new.txt
/// +every line of the new file, each starting with "+"
/// *** Update File: path/existing.rs
/// *** Move to: path/renamed.rs   (optional)
/// @@ a line near the change, to find it (optional)
///  context line (starts with a space)
/// -line to remove
/// +line to add
/// *** Delete File: path/old.txt
/// *** End Patch
/// ```
///
/// The patch is applied atomically: every file changes or none does. Lines to replace
/// are matched exactly, then ignoring trailing and surrounding white space; a hunk that
/// does not match fails with the file, the hunk number and the nearest match, and
/// nothing is written. Paths must stay inside the workspace: `..`, absolute paths and
/// symlinks that lead out are refused.
// `keep_doc_sections`: the format block above is for the model too.
#[holon_tool(
    family = LocalEnvironment,
    keep_doc_sections,
    freeform(syntax = "lark", definition = include_str!("apply_patch.lark")),
    annotations(destructive, open_world = false)
)]
fn apply_patch(rt: &Runtime, args: ApplyPatchArgs) -> Result<ToolOutput<PatchApplied>, ToolError> {
    let changes = model::parse(&args.patch).map_err(|error| {
        ToolError::new(
            ToolErrorKind::new("invalid_patch"),
            format!("the patch does not parse: {error}"),
        )
        .with_field("patch")
        .with_hint("send a unified diff, or a patch between `*** Begin Patch` and `*** End Patch` as the tool description shows")
    })?;
    let outcomes = apply::apply(&rt.workspace_roots(), &changes).map_err(apply_error)?;
    let deadline = std::time::Instant::now() + DIFF_DEADLINE;
    let diffs: Vec<FileDiff<'_>> = outcomes
        .iter()
        .map(|outcome| FileDiff::of(outcome, deadline))
        .collect();
    let files: Vec<ChangedFile> = diffs.iter().map(changed_file).collect();
    let diff_preview = preview(&diffs);
    let receipt = receipt(&files, &diff_preview);
    Ok(ToolOutput::new(PatchApplied {
        files,
        diff_preview,
    })
    .with_summary(format!("patch applied: {} file(s) changed", outcomes.len()))
    .with_receipt(receipt))
}

fn display(path: &std::path::Path) -> String {
    path.to_string_lossy().into_owned()
}

/// One changed file and the line diff of its content, made once for its counts and
/// its preview.
struct FileDiff<'a> {
    outcome: &'a Outcome,
    lines: TextDiff<'a, 'a, 'a, str>,
}

impl<'a> FileDiff<'a> {
    fn of(outcome: &'a Outcome, deadline: std::time::Instant) -> Self {
        let lines = TextDiff::configure().deadline(deadline).diff_lines(
            outcome.before.as_deref().unwrap_or(""),
            outcome.after.as_deref().unwrap_or(""),
        );
        Self { outcome, lines }
    }

    /// Lines added, lines removed.
    fn counts(&self) -> (usize, usize) {
        let mut added = 0;
        let mut removed = 0;
        for change in self.lines.iter_all_changes() {
            match change.tag() {
                similar::ChangeTag::Insert => added += 1,
                similar::ChangeTag::Delete => removed += 1,
                similar::ChangeTag::Equal => {}
            }
        }
        (added, removed)
    }
}

fn changed_file(diff: &FileDiff<'_>) -> ChangedFile {
    let outcome = diff.outcome;
    let (lines_added, lines_removed) = diff.counts();
    ChangedFile {
        action: outcome.change.to_string(),
        path: display(&outcome.path),
        moved_to: outcome.moved_to.as_deref().map(display),
        hunks: outcome.hunks,
        lines_added,
        lines_removed,
    }
}

fn preview<'a>(diffs: &'a [FileDiff<'a>]) -> String {
    let mut lines = Vec::new();
    for diff in diffs {
        let outcome = diff.outcome;
        let old_name = format!("a/{}", display(&outcome.path));
        let new_name = format!(
            "b/{}",
            display(outcome.moved_to.as_deref().unwrap_or(&outcome.path))
        );
        let text = diff
            .lines
            .unified_diff()
            .context_radius(1)
            .header(&old_name, &new_name)
            .to_string();
        lines.extend(text.lines().map(str::to_string));
    }
    if lines.len() > PREVIEW_LINES {
        let cut = lines.len() - PREVIEW_LINES;
        lines.truncate(PREVIEW_LINES);
        lines.push(format!("[... {cut} more diff line(s) not shown]"));
    }
    lines.join("\n")
}

fn receipt(files: &[ChangedFile], diff_preview: &str) -> String {
    let mut text = format!("Patch applied: {} file(s) changed\n", files.len());
    for file in files {
        let target = file
            .moved_to
            .as_ref()
            .map(|to| format!(" -> {to}"))
            .unwrap_or_default();
        text.push_str(&format!(
            "  {} {}{} (+{} -{})\n",
            file.action, file.path, target, file.lines_added, file.lines_removed
        ));
    }
    text.push('\n');
    text.push_str(diff_preview);
    text
}

fn apply_error(error: ApplyError) -> ToolError {
    let kind = ToolErrorKind::new;
    match error {
        ApplyError::Outside { path, reason } => ToolError::new(
            kind("path_outside_workspace"),
            format!("the patch touches {}, which is refused: {reason}", display(&path)),
        )
        .with_field("patch")
        .with_hint("use paths relative to the workspace root that stay inside it; nothing was written"),
        ApplyError::NotFound { path } => ToolError::new(
            kind("file_not_found"),
            format!("{} does not exist, so it cannot be updated or deleted", display(&path)),
        )
        .with_field("patch")
        .with_hint("check the path, or use `*** Add File:` (or `--- /dev/null`) to create it; nothing was written"),
        ApplyError::AlreadyExists { path } => ToolError::new(
            kind("file_exists"),
            format!("{} already exists", display(&path)),
        )
        .with_field("patch")
        .with_hint("use `*** Update File:` to change an existing file; nothing was written"),
        ApplyError::NotText { path } => ToolError::new(
            kind("not_a_text_file"),
            format!("{} is not a UTF-8 text file", display(&path)),
        )
        .with_field("patch")
        .with_hint("patches edit text files only; nothing was written"),
        ApplyError::Mismatch { path, hunk, detail } => ToolError::new(
            kind("hunk_mismatch"),
            format!("hunk {hunk} of {} does not apply: {detail}", display(&path)),
        )
        .with_field("patch")
        .with_details(serde_json::json!({ "path": display(&path), "hunk": hunk }))
        .with_hint("read the file again and rebuild the hunk from its current lines; nothing was written"),
        ApplyError::Io { path, error } => ToolError::new(
            kind("patch_io_error"),
            format!("writing {} failed: {error}; the workspace was restored", display(&path)),
        )
        .retryable(),
    }
}
