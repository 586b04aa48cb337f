//! `ApplyPatch`: edit workspace files with a patch, atomically.

mod apply;
mod commit;

use holon_core::prelude::*;

use apply::ApplyError;
use holon_gates::fs::WritePolicy;
use holon_patch::Outcome;
use holon_runtime::Runtime;

/// Lines of diff shown in the result, at most.
const PREVIEW_LINES: usize = 60;

/// Arguments of ApplyPatch.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ApplyPatchArgs {
    /// The patch: a unified diff as `git diff` or `diff -u` writes it (`--- a/path`,
    /// `+++ b/path`, `@@ -l,n +l,n @@` hunks; `/dev/null` to add or delete a file), or
    /// a `*** Begin Patch` patch. Paths are relative to the workspace root.
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
    /// `add`, `delete`, `update`, `move` or `copy`.
    pub action: String,
    /// The file's path, relative to the workspace root.
    pub path: String,
    /// Where it was moved or copied to, for `move` and `copy`.
    pub moved_to: Option<String>,
    /// How many hunks were applied to it.
    pub hunks: usize,
    /// Lines added.
    pub lines_added: usize,
    /// Lines removed.
    pub lines_removed: usize,
    /// Hunks (1-based) whose lines matched the file only when ignoring white space
    /// (or, in the `*** Begin Patch` format, Unicode dashes and quotes); empty when
    /// every hunk matched exactly.
    pub whitespace_tolerant_hunks: Vec<usize>,
    /// The exec bit the patch set on the file (`true`: 0755-like), when it changed.
    pub executable: Option<bool>,
}

/// What the patch changed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PatchApplied {
    /// Every changed file, in patch order.
    pub files: Vec<ChangedFile>,
    /// A unified diff of the change, cut after 60 lines.
    pub diff_preview: String,
}

/// Apply a patch to files in the workspace: add, delete, edit, move, copy and chmod files.
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
/// Unified diffs are applied as `git apply` applies them, byte for byte: output of
/// `git diff` (any -U, --no-prefix, --binary, -M renames, -C copies, mode changes,
/// quoted names, empty files), `git format-patch` mails and `diff -Nru`. Line endings
/// and `\ No newline at end of file` are kept exactly; hunks at the start or end of
/// a file must match there; a deletion must match the whole file; `GIT binary patch`
/// data is applied and checked against its blob ids. Two deliberate differences: a
/// patch without any context line (-U0) is placed by its line numbers, as
/// `git apply --unidiff-zero`; `Binary files ... differ` (a binary change without
/// its data) refuses the whole patch instead of skipping that file.
///
/// The `*** Begin Patch` format works like Codex's apply_patch: lines are matched by
/// their text whatever the file's line endings, new lines end like the file's, an
/// edited file ends with a newline. It may come inside a heredoc (<<'EOF' ... EOF),
/// with CRLF line ends, blank lines and white space around the marker lines.
///
/// The patch is applied atomically: every file changes or none does; files keep
/// their exec bit unless the patch changes it; directories left empty are removed.
/// Unlike Codex, adding a file that exists and moving onto an existing file are
/// refused (nothing is overwritten). Lines to replace are matched exactly, then
/// ignoring trailing and surrounding white space (and, in the `*** Begin Patch`
/// format, Unicode dashes and quotes); the result lists such hunks in
/// `whitespace_tolerant_hunks`. A hunk that does not match fails with the file, the
/// hunk number and the nearest match, and nothing is written. Paths must stay
/// inside the workspace: `..`, absolute paths and symlinks that lead out are refused,
/// and, as `git apply` does, a path beyond a symlink (`path_through_symlink`). Writes
/// into `.git` directories and the runtime's state directory are refused
/// (`protected_path`), and so are FIFOs, sockets and devices (`not_a_regular_file`).
// `keep_doc_sections`: the format block above is for the model too.
#[holon_tool(
    family = LocalEnvironment,
    keywords = [
        "edit file", "write file", "create file", "delete file", "rename file", "change code",
        "diff", "save"
    ],
    keep_doc_sections,
    freeform(syntax = "lark", definition = holon_patch::ENVELOPE_GRAMMAR),
    annotations(destructive, open_world = false),
    example = r#"{"patch": "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n pub fn answer() -> u32 {\n-    41\n+    42\n }\n"}"#,
    example = r#"{"patch": "*** Begin Patch\n*** Add File: notes/todo.md\n+- write the changelog\n*** End Patch\n"}"#
)]
fn apply_patch(rt: &Runtime, args: ApplyPatchArgs) -> Result<ToolOutput<PatchApplied>, ToolError> {
    let patch = holon_patch::parse(&args.patch).map_err(|error| {
        let hint = match error.kind {
            "binary_without_data" => "make the patch with `git diff --binary` so it carries the binary data; nothing was written",
            "unsupported_patch" => "patch regular files only; nothing was written",
            _ => "send a unified diff, or a patch between `*** Begin Patch` and `*** End Patch` as the tool description shows",
        };
        ToolError::new(
            ToolErrorKind::new(error.kind),
            format!("the patch cannot be applied as written: {error}"),
        )
        .with_field("patch")
        .with_hint(hint)
    })?;
    let policy = WritePolicy::new(rt.state_dir());
    let outcomes = apply::apply(&rt.workspace_roots(), &policy, &patch).map_err(apply_error)?;
    let files: Vec<ChangedFile> = outcomes.iter().map(changed_file).collect();
    let diff_preview = preview(&outcomes);
    let receipt = receipt(&files, &diff_preview);
    let tolerant = files
        .iter()
        .filter(|file| !file.whitespace_tolerant_hunks.is_empty())
        .count();
    let mut summary = format!("patch applied: {} file(s) changed", outcomes.len());
    if tolerant > 0 {
        summary.push_str(&format!(
            "; in {tolerant} file(s) some hunks matched only ignoring white space"
        ));
    }
    Ok(ToolOutput::new(PatchApplied {
        files,
        diff_preview,
    })
    .with_summary(summary)
    .with_receipt(receipt))
}

fn display(path: &std::path::Path) -> String {
    path.to_string_lossy().into_owned()
}

fn changed_file(outcome: &Outcome) -> ChangedFile {
    ChangedFile {
        action: outcome.change.to_string(),
        path: display(&outcome.path),
        moved_to: outcome.moved_to.as_deref().map(display),
        hunks: outcome.hunks,
        lines_added: outcome.lines_added,
        lines_removed: outcome.lines_removed,
        whitespace_tolerant_hunks: outcome.tolerant_hunks.clone(),
        executable: outcome.exec_set,
    }
}

fn preview(outcomes: &[Outcome]) -> String {
    let mut lines = Vec::new();
    let mut cut = 0;
    for outcome in outcomes {
        let target = outcome.moved_to.as_deref().unwrap_or(&outcome.path);
        let header = [
            format!("--- a/{}", display(&outcome.path)),
            format!("+++ b/{}", display(target)),
        ];
        let total = outcome.preview_total + header.len();
        let room = PREVIEW_LINES.saturating_sub(lines.len());
        let shown: Vec<String> = header
            .into_iter()
            .chain(outcome.preview.iter().cloned())
            .take(room)
            .collect();
        cut += total - shown.len();
        lines.extend(shown);
    }
    if cut > 0 {
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
            format!("{} is a directory, or a file with NUL bytes that a `*** Begin Patch` patch cannot edit", display(&path)),
        )
        .with_field("patch")
        .with_hint("patch files, not directories; edit binary files with a `git diff --binary` patch; nothing was written"),
        ApplyError::Mismatch { path, hunk, detail } => ToolError::new(
            kind("hunk_mismatch"),
            format!("hunk {hunk} of {} does not apply: {detail}", display(&path)),
        )
        .with_field("patch")
        .with_details(serde_json::json!({ "path": display(&path), "hunk": hunk }))
        .with_hint("read the file again and rebuild the hunk from its current lines; nothing was written"),
        ApplyError::Protected { path, why } => ToolError::new(
            kind("protected_path"),
            format!("the patch touches {}, which is refused: {why}", display(&path)),
        )
        .with_field("patch")
        .with_hint("patch the project's own files; `.git` (config, hooks) and the runtime's state directory are off limits to tools; nothing was written"),
        ApplyError::Gate { path, error } => {
            let mut tool_error = ToolError::from(error);
            tool_error.message = format!("the patch touches {}, which is refused: {}; nothing was written", display(&path), tool_error.message);
            tool_error.with_field("patch")
        }
        ApplyError::Io { path, error } => ToolError::new(
            kind("patch_io_error"),
            format!("writing {} failed: {error}; the workspace was restored", display(&path)),
        )
        .retryable(),
        ApplyError::Changed { path } => ToolError::new(
            kind("file_changed"),
            format!("{} changed after the patch was checked against it (another writer got there first); nothing was written", display(&path)),
        )
        .with_field("patch")
        .with_details(serde_json::json!({ "path": display(&path) }))
        .with_hint("send the patch again: it is checked against the file's current content; if a hunk no longer applies, read the file and rebuild it")
        .retryable(),
        ApplyError::Busy { path } => ToolError::new(
            kind("file_busy"),
            format!("another writer held the directory of {} for more than {} s; nothing was written", display(&path), holon_gates::fs::LOCK_WAIT.as_secs()),
        )
        .with_field("patch")
        .with_hint("send the patch again in a moment")
        .retryable(),
    }
}
