//! Unified diffs (`diff -u`, `git diff`): the JSON surface's `patch`.

use std::path::PathBuf;

use super::model::{Chunk, FileChange, SyntaxError};

fn error<T>(line: usize, message: impl Into<String>) -> Result<T, SyntaxError> {
    Err(SyntaxError {
        line,
        message: message.into(),
    })
}

/// `a/src/x.rs\t2024-01-01` -> `src/x.rs`; `None` for `/dev/null`.
fn header_path(raw: &str) -> Option<PathBuf> {
    let path = raw.split('\t').next().unwrap_or(raw).trim_end();
    if path == "/dev/null" {
        return None;
    }
    let path = path
        .strip_prefix("a/")
        .or_else(|| path.strip_prefix("b/"))
        .unwrap_or(path);
    Some(PathBuf::from(path))
}

/// `@@ -12,3 +12,4 @@ fn x()` -> (12, 3, 12, 4).
fn hunk_header(line: &str) -> Option<(usize, usize, usize, usize)> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |text: &str| -> Option<(usize, usize)> {
        match text.split_once(',') {
            Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
            None => Some((text.parse().ok()?, 1)),
        }
    };
    let (old_start, old_count) = range(old)?;
    let (new_start, new_count) = range(new)?;
    Some((old_start, old_count, new_start, new_count))
}

/// Parses a unified diff of one or more files.
pub(crate) fn parse(text: &str) -> Result<Vec<FileChange>, SyntaxError> {
    let lines: Vec<&str> = text.lines().collect();
    let mut changes = Vec::new();
    let mut index = 0;
    let mut rename: (Option<PathBuf>, Option<PathBuf>) = (None, None);
    while index < lines.len() {
        let line = lines[index];
        if line.starts_with("diff --git ") {
            flush_rename(&mut rename, &mut changes);
            index += 1;
            continue;
        }
        if let Some(from) = line.strip_prefix("rename from ") {
            rename.0 = Some(PathBuf::from(from));
            index += 1;
            continue;
        }
        if let Some(to) = line.strip_prefix("rename to ") {
            rename.1 = Some(PathBuf::from(to));
            index += 1;
            continue;
        }
        let Some(old_header) = line.strip_prefix("--- ") else {
            // Preamble (commit message, `index ...`, modes): not part of any change.
            index += 1;
            continue;
        };
        let Some(new_header) = lines.get(index + 1).and_then(|l| l.strip_prefix("+++ ")) else {
            return error(index + 2, "a `--- ` line must be followed by a `+++ ` line");
        };
        rename = (None, None);
        let old_path = header_path(old_header);
        let new_path = header_path(new_header);
        index += 2;
        let mut chunks = Vec::new();
        while let Some(header) = lines.get(index).filter(|l| l.starts_with("@@")) {
            let Some((old_start, old_count, _, new_count)) = hunk_header(header) else {
                return error(index + 1, format!("malformed hunk header `{header}`"));
            };
            index += 1;
            let mut chunk = Chunk {
                line_hint: Some(old_start.max(1)),
                ..Chunk::default()
            };
            while chunk.old.len() < old_count || chunk.new.len() < new_count {
                let Some(body) = lines.get(index) else {
                    return error(
                        index + 1,
                        "the hunk ends early: its header counts more lines",
                    );
                };
                index += 1;
                match body.split_at_checked(1) {
                    Some(("\\", _)) => {}
                    Some(("+", added)) => chunk.new.push(added.to_string()),
                    Some(("-", removed)) => chunk.old.push(removed.to_string()),
                    Some((" ", context)) => {
                        chunk.old.push(context.to_string());
                        chunk.new.push(context.to_string());
                    }
                    None => {
                        chunk.old.push(String::new());
                        chunk.new.push(String::new());
                    }
                    Some(_) => {
                        return error(
                            index,
                            format!("a hunk line starts with ` `, `-` or `+`, not `{body}`"),
                        );
                    }
                }
            }
            if chunk.old.len() != old_count || chunk.new.len() != new_count {
                return error(
                    index,
                    "the hunk's lines do not match the counts in its header",
                );
            }
            // `\ No newline at end of file` after the last line.
            if lines.get(index).is_some_and(|l| l.starts_with('\\')) {
                index += 1;
            }
            chunks.push(chunk);
        }
        changes.push(match (old_path, new_path) {
            (None, None) => return error(index, "both sides of the diff are /dev/null"),
            (None, Some(path)) => FileChange::Add {
                path,
                lines: chunks.into_iter().flat_map(|chunk| chunk.new).collect(),
            },
            (Some(path), None) => FileChange::Delete { path },
            (Some(path), Some(target)) => FileChange::Update {
                move_to: (target != path).then_some(target),
                path,
                chunks,
            },
        });
    }
    flush_rename(&mut rename, &mut changes);
    if changes.is_empty() {
        return error(
            1,
            "no file changes found: expected a unified diff (`--- a/file`, `+++ b/file`, `@@ ... @@` hunks) or a `*** Begin Patch` patch",
        );
    }
    Ok(changes)
}

/// A `git diff` rename without content changes has no `---`/`+++` lines.
fn flush_rename(rename: &mut (Option<PathBuf>, Option<PathBuf>), changes: &mut Vec<FileChange>) {
    if let (Some(from), Some(to)) = (rename.0.take(), rename.1.take()) {
        changes.push(FileChange::Update {
            path: from,
            move_to: Some(to),
            chunks: Vec::new(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_git_diffs() {
        let diff = "diff --git a/src/a.rs b/src/a.rs\nindex 1..2 100644\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,3 +1,3 @@\n fn main() {\n-    old();\n+    new();\n }\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n";
        let changes = parse(diff).unwrap();
        assert_eq!(changes.len(), 2);
        let FileChange::Update { chunks, .. } = &changes[0] else {
            panic!("expected an update");
        };
        assert_eq!(chunks[0].old, vec!["fn main() {", "    old();", "}"]);
        assert_eq!(chunks[0].new, vec!["fn main() {", "    new();", "}"]);
        assert_eq!(chunks[0].line_hint, Some(1));
        assert_eq!(
            changes[1],
            FileChange::Add {
                path: "new.txt".into(),
                lines: vec!["one".into(), "two".into()]
            }
        );
    }

    #[test]
    fn rejects_broken_diffs() {
        assert!(parse("just some text").is_err());
        assert!(parse("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n").is_err());
        assert!(parse("--- a/x\n@@ -1 +1 @@\n").is_err());
        assert!(parse("--- a/x\n+++ b/x\n@@ -1 +1 @@\n*a\n").is_err());
    }

    #[test]
    fn parses_pure_renames() {
        let diff = "diff --git a/old.rs b/new.rs\nsimilarity index 100%\nrename from old.rs\nrename to new.rs\n";
        let changes = parse(diff).unwrap();
        assert_eq!(
            changes,
            vec![FileChange::Update {
                path: "old.rs".into(),
                move_to: Some("new.rs".into()),
                chunks: vec![]
            }]
        );
    }
}
