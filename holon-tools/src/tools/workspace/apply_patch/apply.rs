//! Applying a parsed patch: every change is computed in memory first, then staged in
//! temporary files, then committed with renames; if any step fails, what was already
//! committed is restored, so the workspace ends with all of the patch or none of it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::matcher;
use super::model::{Chunk, FileChange};
use crate::runtime::{PathEscape, WorkspaceRoots};

/// Why a patch could not be applied. Nothing was written.
#[derive(Debug)]
pub(crate) enum ApplyError {
    Outside {
        path: PathBuf,
        reason: PathEscape,
    },
    NotFound {
        path: PathBuf,
    },
    AlreadyExists {
        path: PathBuf,
    },
    NotText {
        path: PathBuf,
    },
    Mismatch {
        path: PathBuf,
        hunk: usize,
        detail: String,
    },
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

/// A text file's content as lines, with how it ends and which line ending it uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Text {
    pub(crate) lines: Vec<String>,
    trailing_newline: bool,
    crlf: bool,
}

impl Text {
    fn parse(content: &str) -> Self {
        let crlf = content.contains("\r\n") && !content.replace("\r\n", "").contains('\n');
        let normalized = if crlf {
            content.replace("\r\n", "\n")
        } else {
            content.to_string()
        };
        let trailing_newline = normalized.ends_with('\n');
        let body = normalized.strip_suffix('\n').unwrap_or(&normalized);
        let lines = if body.is_empty() && !trailing_newline {
            Vec::new()
        } else {
            body.split('\n').map(str::to_string).collect()
        };
        Self {
            lines,
            trailing_newline,
            crlf,
        }
    }

    fn new_file(lines: Vec<String>) -> Self {
        Self {
            lines,
            trailing_newline: true,
            crlf: false,
        }
    }

    pub(crate) fn render(&self) -> String {
        let newline = if self.crlf { "\r\n" } else { "\n" };
        let mut text = self.lines.join(newline);
        if self.trailing_newline && !self.lines.is_empty() {
            text.push_str(newline);
        }
        text
    }
}

/// What happened to one file.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    pub(crate) change: &'static str,
    pub(crate) path: PathBuf,
    pub(crate) moved_to: Option<PathBuf>,
    pub(crate) hunks: usize,
    pub(crate) before: Option<String>,
    pub(crate) after: Option<String>,
}

/// The workspace as the patch sees it: files read so far and their planned content.
struct Plan<'r> {
    roots: &'r WorkspaceRoots,
    /// Resolved path -> (content on disk, planned content); `None` = no file.
    files: BTreeMap<PathBuf, (Option<String>, Option<Text>)>,
}

impl Plan<'_> {
    fn resolve(&self, path: &Path) -> Result<PathBuf, ApplyError> {
        self.roots
            .resolve(path, false)
            .map_err(|reason| ApplyError::Outside {
                path: path.to_path_buf(),
                reason,
            })
    }

    /// The planned content of `resolved`, reading it from disk the first time.
    fn current(&mut self, shown: &Path, resolved: &Path) -> Result<Option<Text>, ApplyError> {
        if let Some((_, planned)) = self.files.get(resolved) {
            return Ok(planned.clone());
        }
        let on_disk = match std::fs::read(resolved) {
            Ok(bytes) => Some(String::from_utf8(bytes).map_err(|_| ApplyError::NotText {
                path: shown.to_path_buf(),
            })?),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
            Err(error) => {
                return Err(ApplyError::Io {
                    path: shown.to_path_buf(),
                    error,
                });
            }
        };
        if resolved.is_dir() {
            return Err(ApplyError::NotText {
                path: shown.to_path_buf(),
            });
        }
        let text = on_disk.as_deref().map(Text::parse);
        self.files
            .insert(resolved.to_path_buf(), (on_disk, text.clone()));
        Ok(text)
    }

    fn set(&mut self, resolved: PathBuf, text: Option<Text>) {
        if let Some(entry) = self.files.get_mut(&resolved) {
            entry.1 = text;
        }
    }
}

fn apply_chunks(path: &Path, text: &mut Text, chunks: &[Chunk]) -> Result<(), ApplyError> {
    let mut replacements = Vec::with_capacity(chunks.len());
    let mut cursor = 0;
    for (index, chunk) in chunks.iter().enumerate() {
        let mismatch = |detail: String| ApplyError::Mismatch {
            path: path.to_path_buf(),
            hunk: index + 1,
            detail,
        };
        if let Some(anchor) = &chunk.anchor {
            match matcher::find_line(&text.lines, anchor, cursor) {
                Some(at) => cursor = at + 1,
                None => {
                    return Err(mismatch(format!(
                        "its `@@ {anchor}` line is not in the file"
                    )));
                }
            }
        }
        let start = if chunk.old.is_empty() {
            // Pure insertion: after the anchor, at the hinted line, or at the end.
            match (&chunk.anchor, chunk.line_hint) {
                (Some(_), _) => cursor,
                (None, Some(hint)) => hint.min(text.lines.len()),
                (None, None) => text.lines.len(),
            }
        } else {
            let hint = chunk.line_hint.map(|line| line.saturating_sub(1));
            match matcher::find(&text.lines, &chunk.old, cursor, hint, chunk.at_end_of_file) {
                Some(at) => at,
                None => {
                    return Err(mismatch(match matcher::nearest(&text.lines, &chunk.old) {
                        Some((at, same)) => format!(
                            "its {} line(s) to replace are not in the file; the nearest match starts at line {} ({} of {} lines equal): `{}`",
                            chunk.old.len(),
                            at + 1,
                            same,
                            chunk.old.len(),
                            text.lines[at].trim()
                        ),
                        None => format!(
                            "none of its {} line(s) to replace is in the file",
                            chunk.old.len()
                        ),
                    }));
                }
            }
        };
        replacements.push((start, chunk.old.len(), chunk.new.clone()));
        cursor = start + chunk.old.len();
    }
    for (start, length, new) in replacements.into_iter().rev() {
        text.lines.splice(start..start + length, new);
    }
    Ok(())
}

/// Plans every change, then commits them all or none. Returns what changed.
pub(crate) fn apply(
    roots: &WorkspaceRoots,
    changes: &[FileChange],
) -> Result<Vec<Outcome>, ApplyError> {
    let mut plan = Plan {
        roots,
        files: BTreeMap::new(),
    };
    let mut outcomes = Vec::with_capacity(changes.len());
    for change in changes {
        let shown = change.path().clone();
        let resolved = plan.resolve(&shown)?;
        let before = plan.current(&shown, &resolved)?;
        let outcome = match change {
            FileChange::Add { lines, .. } => {
                if before.is_some() {
                    return Err(ApplyError::AlreadyExists { path: shown });
                }
                let text = Text::new_file(lines.clone());
                let after = text.render();
                plan.set(resolved, Some(text));
                Outcome {
                    change: "add",
                    path: shown,
                    moved_to: None,
                    hunks: 1,
                    before: None,
                    after: Some(after),
                }
            }
            FileChange::Delete { .. } => {
                let Some(text) = before else {
                    return Err(ApplyError::NotFound { path: shown });
                };
                plan.set(resolved, None);
                Outcome {
                    change: "delete",
                    path: shown,
                    moved_to: None,
                    hunks: 0,
                    before: Some(text.render()),
                    after: None,
                }
            }
            FileChange::Update {
                move_to, chunks, ..
            } => {
                let Some(mut text) = before else {
                    return Err(ApplyError::NotFound { path: shown });
                };
                let original = text.render();
                apply_chunks(&shown, &mut text, chunks)?;
                let after = text.render();
                match move_to {
                    Some(target) => {
                        let target_resolved = plan.resolve(target)?;
                        if target_resolved != resolved
                            && plan.current(target, &target_resolved)?.is_some()
                        {
                            return Err(ApplyError::AlreadyExists {
                                path: target.clone(),
                            });
                        }
                        plan.set(resolved, None);
                        plan.set(target_resolved, Some(text));
                    }
                    None => plan.set(resolved, Some(text)),
                }
                Outcome {
                    change: if move_to.is_some() { "move" } else { "update" },
                    path: shown,
                    moved_to: move_to.clone(),
                    hunks: chunks.len(),
                    before: Some(original),
                    after: Some(after),
                }
            }
        };
        outcomes.push(outcome);
    }
    commit(plan.files)?;
    Ok(outcomes)
}

/// Writes the plan: stage every new content next to its target, then rename and
/// remove; on failure, undo what was done.
fn commit(files: BTreeMap<PathBuf, (Option<String>, Option<Text>)>) -> Result<(), ApplyError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| ApplyError::Io { path, error }
    };
    let mut staged = Vec::new();
    let mut created_dirs = Vec::new();
    let stage = |staged: &mut Vec<(PathBuf, PathBuf)>,
                 created_dirs: &mut Vec<PathBuf>|
     -> Result<(), ApplyError> {
        for (path, (on_disk, planned)) in &files {
            let Some(text) = planned else { continue };
            let rendered = text.render();
            if on_disk.as_deref() == Some(rendered.as_str()) {
                continue;
            }
            let parent = path.parent().unwrap_or(Path::new("."));
            let mut missing = Vec::new();
            let mut probe = parent.to_path_buf();
            while !probe.exists() {
                missing.push(probe.clone());
                if !probe.pop() {
                    break;
                }
            }
            std::fs::create_dir_all(parent).map_err(io(parent))?;
            created_dirs.extend(missing.into_iter().rev());
            let temporary = parent.join(format!(
                ".{}.holon-patch-{}",
                path.file_name()
                    .map(|n| n.to_string_lossy())
                    .unwrap_or_default(),
                std::process::id()
            ));
            std::fs::write(&temporary, rendered).map_err(io(&temporary))?;
            staged.push((temporary, path.clone()));
        }
        Ok(())
    };
    if let Err(error) = stage(&mut staged, &mut created_dirs) {
        for (temporary, _) in &staged {
            let _ = std::fs::remove_file(temporary);
        }
        for dir in created_dirs.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
        return Err(error);
    }
    let mut done: Vec<&Path> = Vec::new();
    let mut result = Ok(());
    for (temporary, target) in &staged {
        if let Err(error) = std::fs::rename(temporary, target) {
            result = Err(ApplyError::Io {
                path: target.clone(),
                error,
            });
            break;
        }
        done.push(target);
    }
    if result.is_ok() {
        for (path, (on_disk, planned)) in &files {
            if planned.is_none() && on_disk.is_some() {
                if let Err(error) = std::fs::remove_file(path) {
                    result = Err(ApplyError::Io {
                        path: path.clone(),
                        error,
                    });
                    break;
                }
                done.push(path);
            }
        }
    }
    if let Err(error) = result {
        // Put back what was already changed.
        for path in done {
            match files.get(path).and_then(|(on_disk, _)| on_disk.as_ref()) {
                Some(original) => {
                    let _ = std::fs::write(path, original);
                }
                None => {
                    let _ = std::fs::remove_file(path);
                }
            }
        }
        for (temporary, _) in &staged {
            let _ = std::fs::remove_file(temporary);
        }
        for dir in created_dirs.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
        return Err(error);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips_endings() {
        for content in ["a\nb\n", "a\nb", "", "a\r\nb\r\n", "\n"] {
            assert_eq!(Text::parse(content).render(), content, "{content:?}");
        }
    }
}
