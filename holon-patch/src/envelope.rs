//! The `*** Begin Patch` / `*** End Patch` format, parsed as `apply_patch.lark`
//! describes it (a corpus test holds the two to each other), with the leniency of
//! Codex's parser: a heredoc around the patch (`<<'EOF'` ... `EOF`), CRLF line
//! ends, blank lines around the markers, white space around marker lines and paths.

use std::path::PathBuf;

use super::model::{Action, Body, Chunk, FileChange, Op, SyntaxError};

pub(crate) const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";

/// A line without the spaces and tabs around it: how marker lines are compared.
fn bare(text: &str) -> &str {
    text.trim_matches([' ', '\t'])
}

/// The patch text if it is in this format: CRLF ends made LF, a heredoc wrapper and
/// blank lines before the first marker dropped. `None`: a unified diff.
pub(crate) fn unwrap(text: &str) -> Option<String> {
    let text = text.replace("\r\n", "\n");
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    fn blank(line: &&str) -> bool {
        bare(line.trim_end_matches('\n')).is_empty()
    }
    let skip = lines.iter().take_while(|line| blank(line)).count();
    lines.drain(..skip);
    let first = bare(lines.first()?.trim_end_matches('\n'));
    if let Some(tag) = first.strip_prefix("<<") {
        if !matches!(bare(tag), "EOF" | "'EOF'" | "\"EOF\"") {
            return None;
        }
        while lines.last().is_some_and(blank) {
            lines.pop();
        }
        if lines.len() < 2 || bare(lines.last()?.trim_end_matches('\n')) != "EOF" {
            return None;
        }
        lines = lines[1..lines.len() - 1].to_vec();
        let skip = lines.iter().take_while(|line| blank(line)).count();
        lines.drain(..skip);
    }
    (bare(lines.first()?.trim_end_matches('\n')) == BEGIN).then(|| lines.concat())
}

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
        Err(SyntaxError::new(
            self.peek().map_or(self.lines.len() + 1, |l| l.number),
            message,
        ))
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

    fn skip_blank_lines(&mut self) {
        while self.peek().is_some_and(|l| bare(l.text).is_empty()) {
            self.next += 1;
        }
    }
}

/// The rest of a header line after `prefix` (white space around both ignored): a
/// non-empty path.
fn path_after(text: &str, prefix: &str) -> Option<PathBuf> {
    bare(text)
        .strip_prefix(prefix.trim_end())
        .filter(|rest| rest.starts_with([' ', '\t']))
        .map(bare)
        .filter(|rest| !rest.is_empty())
        .map(PathBuf::from)
}

fn is_change_line(text: &str) -> bool {
    text.is_empty() || text.starts_with([' ', '-', '+'])
}

fn is_chunk_header(text: &str) -> bool {
    let trimmed = bare(text);
    trimmed == "@@" || trimmed.starts_with("@@ ")
}

/// Parses the whole patch (as `unwrap` returned it).
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
    if cursor.peek().map(|l| bare(l.text)) != Some(BEGIN) {
        return cursor.error(format!("a patch starts with `{BEGIN}`"));
    }
    cursor.take()?;
    let mut changes = Vec::new();
    loop {
        cursor.skip_blank_lines();
        let Some(line) = cursor.peek() else {
            return cursor.error(format!("the patch ends without `{END}`"));
        };
        let text = line.text;
        if bare(text) == END {
            if changes.is_empty() {
                return cursor.error("the patch has no file operation");
            }
            cursor.next += 1;
            cursor.skip_blank_lines();
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
                lines.push((Op::Add, format!("{added}\n").into_bytes()));
            }
            if lines.is_empty() {
                return cursor.error("an added file needs at least one `+` line");
            }
            changes.push(FileChange {
                action: Action::Add,
                path,
                target: None,
                body: Body::Chunks(vec![Chunk {
                    lines,
                    ..Chunk::default()
                }]),
                exec: Some(false),
            });
        } else if let Some(path) = path_after(text, DELETE) {
            cursor.take()?;
            changes.push(FileChange {
                action: Action::Delete,
                path,
                target: None,
                body: Body::Unverified,
                exec: None,
            });
        } else if let Some(path) = path_after(text, UPDATE) {
            cursor.take()?;
            let target = match cursor.peek().and_then(|l| path_after(l.text, MOVE)) {
                Some(target) => {
                    cursor.take()?;
                    Some(target)
                }
                None => None,
            };
            let chunks = parse_chunks(&mut cursor)?;
            if chunks.is_empty() && target.is_none() {
                return cursor.error(format!(
                    "`{UPDATE}{}` needs at least one chunk of changes",
                    path.display()
                ));
            }
            changes.push(FileChange {
                action: Action::Update,
                path,
                target,
                body: Body::Chunks(chunks),
                exec: None,
            });
        } else {
            return cursor.error(format!(
                "expected `{ADD}`, `{DELETE}`, `{UPDATE}` or `{END}`, found `{text}`"
            ));
        }
    }
}

/// A marker line that ends a chunk even when it starts like a change line.
fn ends_chunk(text: &str) -> bool {
    let marker = bare(text);
    marker == END
        || marker == END_OF_FILE
        || [ADD, DELETE, UPDATE]
            .iter()
            .any(|prefix| path_after(text, prefix).is_some())
}

fn parse_chunks(cursor: &mut Cursor<'_>) -> Result<Vec<Chunk>, SyntaxError> {
    let mut chunks = Vec::new();
    loop {
        let Some(line) = cursor.peek() else {
            return Ok(chunks);
        };
        let text = line.text;
        let mut chunk = Chunk::default();
        if is_chunk_header(text) {
            chunk.anchor = bare(text)
                .strip_prefix("@@ ")
                .map(|anchor| bare(anchor).to_string());
            cursor.take()?;
        } else if !is_change_line(text) || ends_chunk(text) {
            return Ok(chunks);
        }
        let mut changed = 0;
        while let Some(line) = cursor.peek() {
            let text = line.text;
            if !is_change_line(text) || is_chunk_header(text) || ends_chunk(text) {
                break;
            }
            cursor.take()?;
            changed += 1;
            let (op, content) = match text.split_at_checked(1) {
                Some(("+", added)) => (Op::Add, added),
                Some(("-", removed)) => (Op::Remove, removed),
                Some((_, context)) => (Op::Context, context),
                None => (Op::Context, ""),
            };
            chunk.lines.push((op, format!("{content}\n").into_bytes()));
        }
        if changed == 0 {
            return cursor.error("a chunk needs at least one ` `, `-` or `+` line");
        }
        if cursor.peek().map(|l| bare(l.text)) == Some(END_OF_FILE) {
            cursor.take()?;
            chunk.at_end = true;
        }
        chunks.push(chunk);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(chunk: &Chunk) -> Vec<(Op, &str)> {
        chunk
            .lines
            .iter()
            .map(|(op, line)| (*op, std::str::from_utf8(line).unwrap()))
            .collect()
    }

    #[test]
    fn parses_every_operation() {
        let patch = "*** Begin Patch\n*** Add File: docs/new.md\n+# New\n+\n*** Delete File: old.txt\n*** Update File: src/a.rs\n*** Move to: src/b.rs\n@@ fn main() {\n-    old();\n+    new();\n \n*** End of File\n*** End Patch\n";
        let changes = parse(patch).unwrap();
        assert_eq!(changes.len(), 3);
        assert_eq!(changes[0].action, Action::Add);
        let Body::Chunks(added) = &changes[0].body else {
            panic!("expected lines");
        };
        assert_eq!(lines(&added[0]), [(Op::Add, "# New\n"), (Op::Add, "\n")]);
        assert_eq!(changes[1].body, Body::Unverified);
        let update = &changes[2];
        assert_eq!(
            update.target.as_deref(),
            Some(std::path::Path::new("src/b.rs"))
        );
        let Body::Chunks(chunks) = &update.body else {
            panic!("expected chunks");
        };
        assert_eq!(chunks[0].anchor.as_deref(), Some("fn main() {"));
        assert_eq!(
            lines(&chunks[0]),
            [
                (Op::Remove, "    old();\n"),
                (Op::Add, "    new();\n"),
                (Op::Context, "\n")
            ]
        );
        assert!(chunks[0].at_end);
    }

    #[test]
    fn rejects_malformed_patches_with_the_line() {
        let error = parse("*** Begin Patch\n*** Frobnicate: x\n*** End Patch").unwrap_err();
        assert_eq!(error.line, 2);
        assert!(parse("*** Begin Patch\n*** End Patch").is_err());
        assert!(parse("*** Begin Patch\n*** Add File: a\n*** End Patch\n").is_err());
        assert!(parse("*** Begin Patch\n*** Delete File: a\n").is_err());
        assert!(parse("*** Begin Patch\n*** Update File: a\n*** End Patch\n").is_err());
        assert!(parse("*** Begin Patch\n*** Delete File: a\n*** End Patch\nx\n").is_err());
    }

    #[test]
    fn lenient_wrappers_are_unwrapped() {
        let plain = "*** Begin Patch\n*** Delete File: a\n*** End Patch\n";
        for wrapped in [
            format!("<<'EOF'\n{plain}EOF\n"),
            format!("<<EOF\n{plain}EOF"),
            plain.replace('\n', "\r\n"),
            format!("\n\n{plain}\n"),
        ] {
            let text = unwrap(&wrapped).unwrap_or_else(|| panic!("{wrapped:?}"));
            assert_eq!(parse(&text).unwrap().len(), 1, "{wrapped:?}");
        }
        assert_eq!(unwrap("<<'EOF'\n*** Begin Patch\n"), None);
        assert_eq!(unwrap("--- a/x\n"), None);
        let padded = " *** Begin Patch\n  *** Update File: a.txt \n@@\n-x\n+y\n *** End Patch \n";
        let changes = parse(&unwrap(padded).unwrap()).unwrap();
        assert_eq!(changes[0].path, std::path::Path::new("a.txt"));
    }
}
