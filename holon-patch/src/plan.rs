//! Planning a parsed patch: every change is computed in memory (bytes and modes),
//! from files the caller's [`Workspace`] reads; the caller then writes the plan, all
//! of it or none.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::binary;
use super::matcher::{self, Place};
use super::model::{Action, BinaryPatch, Body, Chunk, FileChange, Op, Patch, Surface};

/// Diff lines kept for the preview of one file, at most.
const PREVIEW_LINES: usize = 60;

/// Why a patch cannot be applied to the files it names. `E` is the workspace's own
/// error (a path it refuses, a read that failed).
#[derive(Debug)]
pub enum PlanError<E> {
    /// The file to update or delete does not exist.
    NotFound {
        /// The path as the patch names it.
        path: PathBuf,
    },
    /// The file to add, or the target of a move or copy, exists.
    AlreadyExists {
        /// The path as the patch names it.
        path: PathBuf,
    },
    /// A `*** Begin Patch` patch edits a file with NUL bytes.
    NotText {
        /// The path as the patch names it.
        path: PathBuf,
    },
    /// A hunk's lines are not in the file (or a binary patch's blob ids differ).
    Mismatch {
        /// The path as the patch names it.
        path: PathBuf,
        /// The hunk (1-based).
        hunk: usize,
        /// What does not match, with the file's nearest window.
        detail: String,
    },
    /// The workspace refused a path or could not read a file.
    Workspace(E),
}

/// A file's bytes and permission bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileState {
    /// The content.
    pub bytes: Vec<u8>,
    /// The permission bits read from disk; `None` for a file this patch creates: it
    /// gets the default mode.
    pub mode: Option<u32>,
    /// Whether the file is executable.
    pub exec: bool,
}

/// Where a patch's files are: the caller resolves the paths a patch names and reads
/// the files, the planner only computes.
pub trait Workspace {
    /// The caller's name for a file: two paths that name one file resolve to equal keys.
    type Key: Ord + Clone;
    /// Why a path is refused or a file cannot be read.
    type Error;
    /// The key of `path` (as the patch names it), or why it is refused.
    fn resolve(&mut self, path: &Path) -> Result<Self::Key, Self::Error>;
    /// The file at `key` as it is now; `None` when there is no file. Called once per
    /// key; `path` is the path the patch names, for errors.
    fn read(&mut self, path: &Path, key: &Self::Key) -> Result<Option<FileState>, Self::Error>;
}

/// Every file a plan reads or writes: key -> (state read, planned state); `None` is
/// no file. A file read and left as it was has equal states.
pub type Files<K> = BTreeMap<K, (Option<FileState>, Option<FileState>)>;

/// What happened to one file.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// `add`, `delete`, `update`, `move` or `copy`.
    pub change: &'static str,
    /// The file's path, as the patch names it.
    pub path: PathBuf,
    /// Where a move or copy went.
    pub moved_to: Option<PathBuf>,
    /// How many hunks were applied.
    pub hunks: usize,
    /// Lines added.
    pub lines_added: usize,
    /// Lines removed.
    pub lines_removed: usize,
    /// Hunks (1-based) found only when ignoring white space or punctuation.
    pub tolerant_hunks: Vec<usize>,
    /// The exec bit the file ends with, when the patch changed it.
    pub exec_set: Option<bool>,
    /// The first diff lines of the change.
    pub preview: Vec<String>,
    /// How many diff lines the change has in all.
    pub preview_total: usize,
}

/// A planned patch: what to write, and what each change did.
#[derive(Debug)]
pub struct Plan<K> {
    /// Every file read, with its planned state.
    pub files: Files<K>,
    /// One outcome per change, in patch order.
    pub outcomes: Vec<Outcome>,
}

/// The workspace as the patch sees it: files read so far and their planned state.
struct Planner<'w, W: Workspace> {
    workspace: &'w mut W,
    surface: Surface,
    files: Files<W::Key>,
}

impl<W: Workspace> Planner<'_, W> {
    /// The planned state of `key`, reading it the first time.
    fn current(
        &mut self,
        shown: &Path,
        key: &W::Key,
    ) -> Result<Option<FileState>, PlanError<W::Error>> {
        if let Some((_, planned)) = self.files.get(key) {
            return Ok(planned.clone());
        }
        let on_disk = self
            .workspace
            .read(shown, key)
            .map_err(PlanError::Workspace)?;
        self.files
            .insert(key.clone(), (on_disk.clone(), on_disk.clone()));
        Ok(on_disk)
    }

    /// The state of `key` before the patch, reading it the first time.
    fn original(
        &mut self,
        shown: &Path,
        key: &W::Key,
    ) -> Result<Option<FileState>, PlanError<W::Error>> {
        self.current(shown, key)?;
        Ok(self.files.get(key).and_then(|(before, _)| before.clone()))
    }

    fn resolve(&mut self, path: &Path) -> Result<W::Key, PlanError<W::Error>> {
        self.workspace.resolve(path).map_err(PlanError::Workspace)
    }

    fn set(&mut self, key: W::Key, state: Option<FileState>) {
        if let Some(entry) = self.files.get_mut(&key) {
            entry.1 = state;
        }
    }
}

/// A file's content after a body, and what the change did.
struct Applied {
    bytes: Vec<u8>,
    tolerant: Vec<usize>,
    added: usize,
    removed: usize,
    preview: Vec<String>,
    preview_total: usize,
}

fn shown(line: &[u8]) -> String {
    String::from_utf8_lossy(matcher::text(line)).into_owned()
}

/// Keeps the first diff lines of a change and counts them all.
struct Preview {
    lines: Vec<String>,
    total: usize,
}

impl Preview {
    fn push(&mut self, line: impl FnOnce() -> String) {
        if self.lines.len() < PREVIEW_LINES {
            self.lines.push(line());
        }
        self.total += 1;
    }
}

fn apply_chunks<E>(
    surface: Surface,
    path: &Path,
    content: &[u8],
    chunks: &[Chunk],
) -> Result<Applied, PlanError<E>> {
    let lines: Vec<&[u8]> = content.split_inclusive(|b| *b == b'\n').collect();
    let passes = matcher::passes(surface);
    let envelope = surface == Surface::Envelope;
    // The envelope format's new lines end like the file's lines.
    let newline: &[u8] =
        if envelope && !lines.is_empty() && lines.iter().all(|l| l.ends_with(b"\r\n")) {
            b"\r\n"
        } else {
            b"\n"
        };
    let mut out: Vec<u8> = Vec::with_capacity(content.len() + content.len() / 8);
    let mut out_lines = 0usize;
    let mut cursor = 0usize;
    let mut applied = Applied {
        bytes: Vec::new(),
        tolerant: Vec::new(),
        added: 0,
        removed: 0,
        preview: Vec::new(),
        preview_total: 0,
    };
    let mut preview = Preview {
        lines: Vec::new(),
        total: 0,
    };
    let emit = |out: &mut Vec<u8>, line: &[u8]| {
        if envelope && !out.is_empty() && !out.ends_with(b"\n") {
            out.extend_from_slice(newline);
        }
        out.extend_from_slice(line);
    };
    for (index, chunk) in chunks.iter().enumerate() {
        let mismatch = |detail: String| PlanError::Mismatch {
            path: path.to_path_buf(),
            hunk: index + 1,
            detail,
        };
        let mut from = cursor;
        if let Some(anchor) = &chunk.anchor {
            match matcher::find_line(&lines, anchor.as_bytes(), cursor, passes) {
                Some(at) => from = at + 1,
                None => {
                    return Err(mismatch(format!(
                        "its `@@ {anchor}` line is not in the file"
                    )));
                }
            }
        }
        let mut chunk_lines: &[(Op, Vec<u8>)] = &chunk.lines;
        let mut old: Vec<&[u8]> = chunk.old().collect();
        // Where the earlier chunks' changes put the expected position.
        let hint = chunk
            .position
            .map(|at| (from + at.saturating_sub(out_lines)).min(lines.len()));
        // `git apply` may place a hunk of a stale file before the previous one; this
        // pass only looks after it, so such a file takes the order-free one.
        if !envelope && chunk.position.is_some_and(|at| at < out_lines) {
            return apply_in_image(path, content, chunks);
        }
        let (start, pass) = if old.is_empty() {
            let at = match (surface, hint) {
                (Surface::Envelope, _) if chunk.anchor.is_some() => from,
                (Surface::Envelope, _) | (_, None) => lines.len(),
                (Surface::Unified, Some(_)) if chunk.at_start && chunk.at_end => {
                    if !lines.is_empty() {
                        return Err(mismatch(
                            "it adds the first lines of an empty file, but the file is not empty"
                                .into(),
                        ));
                    }
                    0
                }
                (Surface::Unified, Some(_)) if chunk.at_start => cursor,
                (Surface::Unified, Some(_)) if chunk.at_end => lines.len(),
                (Surface::Unified, Some(hint)) => hint,
            };
            if chunk.at_start && at != 0 {
                return Err(mismatch("it inserts at the start of the file, where the earlier hunks already changed lines".into()));
            }
            (at, 0)
        } else {
            let mut place = Place {
                from,
                hint,
                at_start: chunk.at_start,
                at_end: chunk.at_end,
                open_end: !envelope
                    && !chunk.at_end
                    && old.last().is_some_and(|line| !line.ends_with(b"\n")),
            };
            if envelope {
                place.hint = None;
            }
            let passes = if envelope || chunk.has_context() {
                passes
            } else {
                &passes[..1]
            };
            let mut found = matcher::find(&lines, &old, &place, passes);
            // Codex's models end a chunk with an empty context line for the file's
            // final newline; without a match, try without it.
            if found.is_none()
                && envelope
                && chunk_lines
                    .last()
                    .is_some_and(|(op, line)| *op == Op::Context && matcher::text(line).is_empty())
            {
                chunk_lines = &chunk_lines[..chunk_lines.len() - 1];
                old.pop();
                found = matcher::find(&lines, &old, &place, passes);
            }
            if !envelope
                && match (found, hint) {
                    (None, _) => cursor > 0,
                    (Some((at, _)), Some(hint)) => at > hint && at - hint > hint - from,
                    _ => false,
                }
            {
                return apply_in_image(path, content, chunks);
            }
            match found {
                Some(found) => found,
                None => return Err(mismatch(mismatch_detail(&lines, &old, chunk))),
            }
        };
        if pass > 0 {
            applied.tolerant.push(index + 1);
        }
        for line in &lines[cursor..start] {
            emit(&mut out, line);
        }
        out_lines += start - cursor;
        let new_start = out_lines;
        let mut in_old = start;
        let (old_count, new_count) = (
            old.len(),
            chunk_lines
                .iter()
                .filter(|(op, _)| *op != Op::Remove)
                .count(),
        );
        preview.push(|| {
            format!(
                "@@ -{},{old_count} +{},{new_count} @@",
                start + 1,
                new_start + 1
            )
        });
        for (op, text) in chunk_lines {
            match op {
                Op::Context => {
                    let line = lines[in_old];
                    emit(&mut out, exact_context(surface, pass, line, text));
                    preview.push(|| format!(" {}", shown(line)));
                    in_old += 1;
                    out_lines += 1;
                }
                Op::Remove => {
                    let line = lines[in_old];
                    preview.push(|| format!("-{}", shown(line)));
                    in_old += 1;
                    applied.removed += 1;
                }
                Op::Add => {
                    if envelope {
                        emit(&mut out, matcher::text(text));
                        out.extend_from_slice(newline);
                    } else {
                        emit(&mut out, text);
                    }
                    preview.push(|| format!("+{}", shown(text)));
                    out_lines += 1;
                    applied.added += 1;
                }
            }
        }
        cursor = start + old.len();
    }
    for line in &lines[cursor..] {
        emit(&mut out, line);
    }
    if envelope && !out.is_empty() && !out.ends_with(b"\n") {
        out.extend_from_slice(newline);
    }
    applied.bytes = out;
    applied.preview = preview.lines;
    applied.preview_total = preview.total;
    Ok(applied)
}

/// The bytes a matched context line leaves in the file. `git apply` writes the
/// patch's own line: the same bytes on an exact match, except a last line without
/// newline matched as a prefix (`}` against `}  `), which then loses what followed
/// it. A loose match keeps the file's line.
fn exact_context<'a>(surface: Surface, pass: usize, line: &'a [u8], text: &'a [u8]) -> &'a [u8] {
    if surface == Surface::Unified && pass == 0 {
        text
    } else {
        line
    }
}

/// `git apply`'s own placement, for a unified diff on a stale file: the file is an
/// image of lines that each hunk changes in turn; a hunk is searched around its new
/// start in that image (later first at equal distance), anywhere but over lines an
/// earlier hunk wrote.
fn apply_in_image<E>(
    path: &Path,
    content: &[u8],
    chunks: &[Chunk],
) -> Result<Applied, PlanError<E>> {
    let passes = matcher::passes(Surface::Unified);
    let mut image: Vec<(&[u8], bool)> = content
        .split_inclusive(|b| *b == b'\n')
        .map(|line| (line, false))
        .collect();
    let mut tolerant = Vec::new();
    let (mut added, mut removed) = (0, 0);
    let mut preview = Preview {
        lines: Vec::new(),
        total: 0,
    };
    for (index, chunk) in chunks.iter().enumerate() {
        let old: Vec<&[u8]> = chunk.old().collect();
        let lines: Vec<&[u8]> = image.iter().map(|(line, _)| *line).collect();
        let pos = chunk.position.unwrap_or(0).min(lines.len());
        let free = |at: usize| {
            image[at..at + old.len()]
                .iter()
                .all(|(_, patched)| !patched)
        };
        let open_end = !chunk.at_end && old.last().is_some_and(|line| !line.ends_with(b"\n"));
        let found = if old.is_empty() {
            let at = match (chunk.at_start, chunk.at_end) {
                (true, true) => lines.is_empty().then_some(0),
                (true, false) => Some(0),
                (false, true) => Some(lines.len()),
                (false, false) => Some(pos),
            };
            at.map(|at| (at, 0))
        } else if old.len() > lines.len() {
            None
        } else {
            let last = lines.len() - old.len();
            let candidates: Vec<usize> = match (chunk.at_start, chunk.at_end) {
                (true, true) => (last == 0).then_some(0).into_iter().collect(),
                (true, false) => vec![0],
                (false, true) => vec![last],
                (false, false) => {
                    let pos = pos.min(last);
                    (0..=last.max(pos))
                        .flat_map(|d| {
                            [
                                pos.checked_add(d),
                                (d > 0).then(|| pos.checked_sub(d)).flatten(),
                            ]
                        })
                        .flatten()
                        .filter(|at| *at <= last)
                        .take(last + 1)
                        .collect()
                }
            };
            let passes = if chunk.has_context() {
                passes
            } else {
                &passes[..1]
            };
            passes.iter().enumerate().find_map(|(pass, same)| {
                candidates
                    .iter()
                    .find(|at| {
                        free(**at)
                            && matcher::matches_at(&lines, **at, &old, *same, open_end && pass == 0)
                    })
                    .map(|at| (*at, pass))
            })
        };
        let Some((start, pass)) = found else {
            return Err(PlanError::Mismatch {
                path: path.to_path_buf(),
                hunk: index + 1,
                detail: mismatch_detail(&lines, &old, chunk),
            });
        };
        if pass > 0 {
            tolerant.push(index + 1);
        }
        let new_count = chunk
            .lines
            .iter()
            .filter(|(op, _)| *op != Op::Remove)
            .count();
        preview.push(|| {
            format!(
                "@@ -{},{} +{},{new_count} @@",
                start + 1,
                old.len(),
                start + 1
            )
        });
        let mut replacement = Vec::with_capacity(new_count);
        let mut in_old = start;
        for (op, text) in &chunk.lines {
            match op {
                Op::Context => {
                    let line = lines[in_old];
                    preview.push(|| format!(" {}", shown(line)));
                    replacement.push((exact_context(Surface::Unified, pass, line, text), true));
                    in_old += 1;
                }
                Op::Remove => {
                    let line = lines[in_old];
                    preview.push(|| format!("-{}", shown(line)));
                    in_old += 1;
                    removed += 1;
                }
                Op::Add => {
                    preview.push(|| format!("+{}", shown(text)));
                    replacement.push((text.as_slice(), true));
                    added += 1;
                }
            }
        }
        image.splice(start..start + old.len(), replacement);
    }
    Ok(Applied {
        bytes: image
            .iter()
            .flat_map(|(line, _)| line.iter().copied())
            .collect(),
        tolerant,
        added,
        removed,
        preview: preview.lines,
        preview_total: preview.total,
    })
}

/// Why a chunk's lines are not where it says, with the file's nearest window.
fn mismatch_detail(lines: &[&[u8]], old: &[&[u8]], chunk: &Chunk) -> String {
    let anchoring = match (chunk.at_start, chunk.at_end) {
        (true, true) => " (it spans the whole file, so it must match all of it)",
        (true, false) => " (it starts at line 1, so it must match at the start of the file)",
        (false, true) => {
            " (it has no lines after its change, so it must match at the end of the file)"
        }
        (false, false) => "",
    };
    match matcher::nearest(lines, old) {
        Some((at, same)) => format!(
            "its {} line(s) to replace are not in the file{anchoring}; the nearest match starts at line {} ({} of {} lines equal): `{}`",
            old.len(),
            at + 1,
            same,
            old.len(),
            String::from_utf8_lossy(lines[at].trim_ascii())
        ),
        None => format!(
            "none of its {} line(s) to replace is in the file{anchoring}",
            old.len()
        ),
    }
}

fn apply_binary<E>(
    path: &Path,
    before: &[u8],
    patch: &BinaryPatch,
) -> Result<Applied, PlanError<E>> {
    let mismatch = |detail: String| PlanError::Mismatch {
        path: path.to_path_buf(),
        hunk: 1,
        detail,
    };
    let id = binary::blob_id(before);
    if (patch.old_id == binary::NO_FILE && !before.is_empty())
        || (patch.old_id != binary::NO_FILE && patch.old_id != id)
    {
        return Err(mismatch(format!(
            "the binary patch applies to blob {}, but the file is blob {id}",
            patch.old_id
        )));
    }
    let bytes = if patch.new_id == binary::NO_FILE {
        Vec::new()
    } else if patch.is_delta {
        binary::apply_delta(before, &patch.data).map_err(mismatch)?
    } else {
        patch.data.clone()
    };
    if patch.new_id != binary::NO_FILE && binary::blob_id(&bytes) != patch.new_id {
        return Err(mismatch(format!(
            "the binary patch does not make blob {}",
            patch.new_id
        )));
    }
    let preview = vec![format!(
        "Binary file changed: {} -> {} bytes",
        before.len(),
        bytes.len()
    )];
    Ok(Applied {
        bytes,
        tolerant: Vec::new(),
        added: 0,
        removed: 0,
        preview,
        preview_total: 1,
    })
}

fn apply_body<E>(
    surface: Surface,
    path: &Path,
    before: &[u8],
    body: &Body,
) -> Result<Applied, PlanError<E>> {
    match body {
        Body::Chunks(chunks) => apply_chunks(surface, path, before, chunks),
        Body::Binary(patch) => apply_binary(path, before, patch),
        Body::Unverified => Ok(Applied {
            bytes: Vec::new(),
            tolerant: Vec::new(),
            added: 0,
            removed: before.split_inclusive(|b| *b == b'\n').count(),
            preview: Vec::new(),
            preview_total: 0,
        }),
    }
}

/// Plans every change of `patch` over the files `workspace` reads: the files to
/// write, all of them or none, and what each change did. Reads each file once.
pub fn plan<W: Workspace>(
    patch: &Patch,
    workspace: &mut W,
) -> Result<Plan<W::Key>, PlanError<W::Error>> {
    let mut planner = Planner {
        workspace,
        surface: patch.surface,
        files: BTreeMap::new(),
    };
    let mut outcomes = Vec::with_capacity(patch.changes.len());
    for change in &patch.changes {
        outcomes.push(plan_change(&mut planner, change)?);
    }
    Ok(Plan {
        files: planner.files,
        outcomes,
    })
}

fn plan_change<W: Workspace>(
    plan: &mut Planner<'_, W>,
    change: &FileChange,
) -> Result<Outcome, PlanError<W::Error>> {
    let shown = change.path.clone();
    let resolved = plan.resolve(&shown)?;
    // A git copy reads its source as it was before the patch, as `git apply` does
    // ("git" patches do not depend on the order): a section that changes the source
    // earlier in the same patch does not change the copy.
    let before = if change.action == Action::Copy {
        plan.original(&shown, &resolved)?
    } else {
        plan.current(&shown, &resolved)?
    };
    let surface = plan.surface;
    let text_only = |state: &FileState| {
        // The envelope format edits text: a file with NUL bytes is refused.
        if surface == Surface::Envelope && state.bytes.contains(&0) {
            Err(PlanError::NotText {
                path: shown.clone(),
            })
        } else {
            Ok(())
        }
    };
    let outcome = |change: &'static str, applied: &Applied, exec_set: Option<bool>| Outcome {
        change,
        path: shown.clone(),
        moved_to: None,
        hunks: 0,
        lines_added: applied.added,
        lines_removed: applied.removed,
        tolerant_hunks: applied.tolerant.clone(),
        exec_set,
        preview: applied.preview.clone(),
        preview_total: applied.preview_total,
    };
    let hunks = match &change.body {
        Body::Chunks(chunks) => chunks.len(),
        Body::Binary(_) => 1,
        Body::Unverified => 0,
    };
    let mut result = match change.action {
        Action::Add => {
            if before.is_some() {
                return Err(PlanError::AlreadyExists { path: shown });
            }
            let applied = apply_body(surface, &shown, b"", &change.body)?;
            let exec = change.exec.unwrap_or(false);
            let result = outcome("add", &applied, exec.then_some(true));
            plan.set(
                resolved,
                Some(FileState {
                    bytes: applied.bytes,
                    mode: None,
                    exec,
                }),
            );
            result
        }
        Action::Delete => {
            let Some(state) = before else {
                return Err(PlanError::NotFound { path: shown });
            };
            let applied = apply_body(surface, &shown, &state.bytes, &change.body)?;
            if !applied.bytes.is_empty() {
                return Err(PlanError::Mismatch {
                    path: shown,
                    hunk: hunks.max(1),
                    detail: "the deletion does not remove every line of the file: the file has lines the patch does not know".into(),
                });
            }
            plan.set(resolved, None);
            outcome("delete", &applied, None)
        }
        Action::Update | Action::Copy => {
            let Some(state) = before else {
                return Err(PlanError::NotFound { path: shown });
            };
            if matches!(change.body, Body::Chunks(_)) {
                text_only(&state)?;
            }
            let applied = apply_body(surface, &shown, &state.bytes, &change.body)?;
            let exec = change.exec.unwrap_or(state.exec);
            let exec_set = (exec != state.exec).then_some(exec);
            let copy = change.action == Action::Copy;
            let mut result = outcome(if copy { "copy" } else { "update" }, &applied, exec_set);
            let new_state = FileState {
                bytes: applied.bytes,
                mode: state.mode,
                exec,
            };
            match &change.target {
                Some(target) => {
                    let target_resolved = plan.resolve(target)?;
                    if target_resolved != resolved
                        && plan.current(target, &target_resolved)?.is_some()
                    {
                        return Err(PlanError::AlreadyExists {
                            path: target.clone(),
                        });
                    }
                    if !copy {
                        plan.set(resolved, None);
                        result.change = "move";
                    }
                    plan.set(target_resolved, Some(new_state));
                    result.moved_to = Some(target.clone());
                }
                None => plan.set(resolved, Some(new_state)),
            }
            result
        }
    };
    result.hunks = hunks;
    Ok(result)
}
