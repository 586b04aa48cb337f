//! The `*** Begin Patch` / `*** End Patch` format, parsed exactly as
//! `apply_patch.lark` describes it (a corpus test holds the two to each other).

use std::path::PathBuf;

use super::model::{Chunk, FileChange, SyntaxError};

pub(crate) const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";

/// A line of the patch: its text without the newline, and whether it had one.
struct Line<'a> {
    text: &'a str,
    terminated: bool,
    number: usize,
}

struct Cursor<'a> {
    lines: Vec<Line<'a>>,
    next: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<&Line<'a>> {
        self.lines.get(self.next)
    }

    fn error<T>(&self, message: impl Into<String>) -> Result<T, SyntaxError> {
        Err(SyntaxError {
            line: self.peek().map_or(self.lines.len() + 1, |l| l.number),
            message: message.into(),
        })
    }

    /// Takes the next line, which must end with a newline.
    fn take(&mut self) -> Result<&'a str, SyntaxError> {
        match self.peek() {
            Some(line) if line.terminated => {
                let text = line.text;
                self.next += 1;
                Ok(text)
            }
            Some(_) => self.error("the line must end with a newline"),
            None => self.error(format!("the patch ends before `{END}`")),
        }
    }
}

/// The rest of a header line after `prefix`: a non-empty path.
fn path_after(text: &str, prefix: &str) -> Option<PathBuf> {
    text.strip_prefix(prefix)
        .filter(|rest| !rest.is_empty())
        .map(PathBuf::from)
}

fn is_change_line(text: &str) -> bool {
    text.is_empty() || text.starts_with([' ', '-', '+'])
}

/// Parses the whole patch.
pub(crate) fn parse(text: &str) -> Result<Vec<FileChange>, SyntaxError> {
    let lines = text
        .split_inclusive('\n')
        .enumerate()
        .map(|(index, raw)| Line {
            text: raw.strip_suffix('\n').unwrap_or(raw),
            terminated: raw.ends_with('\n'),
            number: index + 1,
        })
        .collect();
    let mut cursor = Cursor { lines, next: 0 };
    if cursor.peek().map(|l| l.text) != Some(BEGIN) {
        return cursor.error(format!("a patch starts with `{BEGIN}`"));
    }
    cursor.take()?;
    let mut changes = Vec::new();
    loop {
        let Some(line) = cursor.peek() else {
            return cursor.error(format!("the patch ends without `{END}`"));
        };
        let text = line.text;
        if text == END {
            if changes.is_empty() {
                return cursor.error("the patch has no file operation");
            }
            cursor.next += 1;
            if cursor.peek().is_some() {
                return cursor.error(format!("nothing may follow `{END}`"));
            }
            return Ok(changes);
        }
        if let Some(path) = path_after(text, ADD) {
            cursor.take()?;
            let mut lines = Vec::new();
            while let Some(added) = cursor.peek().and_then(|l| l.text.strip_prefix('+')) {
                cursor.take()?;
                lines.push(added.to_string());
            }
            if lines.is_empty() {
                return cursor.error("an added file needs at least one `+` line");
            }
            changes.push(FileChange::Add { path, lines });
        } else if let Some(path) = path_after(text, DELETE) {
            cursor.take()?;
            changes.push(FileChange::Delete { path });
        } else if let Some(path) = path_after(text, UPDATE) {
            cursor.take()?;
            let move_to = match cursor.peek().and_then(|l| path_after(l.text, MOVE)) {
                Some(target) => {
                    cursor.take()?;
                    Some(target)
                }
                None => None,
            };
            let chunks = parse_chunks(&mut cursor)?;
            changes.push(FileChange::Update {
                path,
                move_to,
                chunks,
            });
        } else {
            return cursor.error(format!(
                "expected `{ADD}`, `{DELETE}`, `{UPDATE}` or `{END}`, found `{text}`"
            ));
        }
    }
}

fn parse_chunks(cursor: &mut Cursor<'_>) -> Result<Vec<Chunk>, SyntaxError> {
    let mut chunks = Vec::new();
    loop {
        let Some(line) = cursor.peek() else {
            return Ok(chunks);
        };
        let text = line.text;
        let mut chunk = Chunk::default();
        if text == "@@" || text.starts_with("@@ ") {
            let anchor = text.strip_prefix("@@ ");
            if anchor == Some("") {
                return cursor.error("`@@ ` must be followed by a line to find, or be `@@` alone");
            }
            chunk.anchor = anchor.map(str::to_string);
            cursor.take()?;
        } else if !is_change_line(text) {
            return Ok(chunks);
        }
        let mut changed = 0;
        while let Some(line) = cursor.peek() {
            let text = line.text;
            if !is_change_line(text) {
                break;
            }
            cursor.take()?;
            changed += 1;
            match text.split_at_checked(1) {
                Some(("+", added)) => chunk.new.push(added.to_string()),
                Some(("-", removed)) => chunk.old.push(removed.to_string()),
                Some((_, context)) => {
                    chunk.old.push(context.to_string());
                    chunk.new.push(context.to_string());
                }
                None => {
                    chunk.old.push(String::new());
                    chunk.new.push(String::new());
                }
            }
        }
        if changed == 0 {
            return cursor.error("a chunk needs at least one ` `, `-` or `+` line");
        }
        if cursor.peek().map(|l| l.text) == Some(END_OF_FILE) {
            cursor.take()?;
            chunk.at_end_of_file = true;
        }
        chunks.push(chunk);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_operation() {
        let patch = "*** Begin Patch\n*** Add File: docs/new.md\n+# New\n+\n*** Delete File: old.txt\n*** Update File: src/a.rs\n*** Move to: src/b.rs\n@@ fn main() {\n-    old();\n+    new();\n \n*** End of File\n*** End Patch\n";
        let changes = parse(patch).unwrap();
        assert_eq!(changes.len(), 3);
        assert_eq!(
            changes[0],
            FileChange::Add {
                path: "docs/new.md".into(),
                lines: vec!["# New".into(), String::new()],
            }
        );
        let FileChange::Update {
            move_to, chunks, ..
        } = &changes[2]
        else {
            panic!("expected an update");
        };
        assert_eq!(move_to.as_deref(), Some(std::path::Path::new("src/b.rs")));
        assert_eq!(chunks[0].anchor.as_deref(), Some("fn main() {"));
        assert_eq!(chunks[0].old, vec!["    old();", ""]);
        assert_eq!(chunks[0].new, vec!["    new();", ""]);
        assert!(chunks[0].at_end_of_file);
    }

    #[test]
    fn rejects_malformed_patches_with_the_line() {
        let error = parse("*** Begin Patch\n*** Frobnicate: x\n*** End Patch").unwrap_err();
        assert_eq!(error.line, 2);
        assert!(parse("*** Begin Patch\n*** End Patch").is_err());
        assert!(parse("*** Begin Patch\n*** Add File: a\n*** End Patch\n").is_err());
        assert!(parse("*** Begin Patch\n*** Delete File: a\n").is_err());
        assert!(parse("*** Begin Patch\n*** Delete File: a\n*** End Patch\n\n").is_err());
        assert!(parse("*** Begin Patch\n*** Update File: a\n@@ \n+x\n*** End Patch").is_err());
    }
}
