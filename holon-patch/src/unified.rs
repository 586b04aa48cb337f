//! Unified diffs (`git diff`, `git format-patch`, `diff -Nru`): the JSON surface's
//! `patch`, read as `git apply` reads it. `git diff` sections (`diff --git`) carry
//! modes, renames, copies, empty files and binary data in their extended header;
//! other diffs are `--- `/`+++ `/`@@ -` triples, anything else is commentary.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use super::binary;
use super::model::{Action, BinaryPatch, Body, Chunk, FileChange, Op, SyntaxError};

type Result<T> = std::result::Result<T, SyntaxError>;

fn error<T>(line: usize, message: impl Into<String>) -> Result<T> {
    Err(SyntaxError::new(line, message))
}

fn trim_newline(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// A C-style quoted name (`"a/caf\303\251"`), as git writes names with special
/// bytes; returns the name and the rest after the closing quote.
fn unquote(text: &[u8]) -> Option<(Vec<u8>, &[u8])> {
    let mut rest = text.strip_prefix(b"\"")?;
    let mut name = Vec::new();
    loop {
        let (&byte, tail) = rest.split_first()?;
        rest = tail;
        match byte {
            b'"' => return Some((name, rest)),
            b'\\' => {
                let (&escaped, tail) = rest.split_first()?;
                rest = tail;
                name.push(match escaped {
                    b'a' => 7,
                    b'b' => 8,
                    b't' => b'\t',
                    b'n' => b'\n',
                    b'v' => 11,
                    b'f' => 12,
                    b'r' => b'\r',
                    b'0'..=b'3' => {
                        let digits = [escaped, *rest.first()?, *rest.get(1)?];
                        rest = &rest[2..];
                        let octal = std::str::from_utf8(&digits).ok()?;
                        u8::from_str_radix(octal, 8).ok()?
                    }
                    other => other,
                });
            }
            other => name.push(other),
        }
    }
}

/// A name as it follows `rename from ` and the like: quoted or the whole rest.
fn plain_name(text: &[u8]) -> Vec<u8> {
    let text = trim_newline(text);
    match unquote(text) {
        Some((name, _)) => name,
        None => text.to_vec(),
    }
}

/// Drops `p` leading components (`-p1` drops `a/`).
fn strip(name: &[u8], p: usize) -> Option<Vec<u8>> {
    let mut rest = name;
    for _ in 0..p {
        let slash = rest.iter().position(|b| *b == b'/')?;
        rest = &rest[slash + 1..];
        while let Some(tail) = rest.strip_prefix(b"/") {
            rest = tail;
        }
    }
    (!rest.is_empty()).then(|| rest.to_vec())
}

fn to_path(name: &[u8]) -> PathBuf {
    PathBuf::from(OsStr::from_bytes(name))
}

/// A `--- `/`+++ ` name: `None` for `/dev/null`; `Some((name, epoch))` otherwise,
/// where `epoch` says the timestamp is the Unix epoch, `diff -N`'s mark of a
/// missing side.
fn header_name(rest: &[u8]) -> Option<(Vec<u8>, bool)> {
    let rest = trim_newline(rest);
    let (name, timestamp) = match unquote(rest) {
        Some((name, tail)) => (name, tail),
        None => {
            let cut = rest.iter().position(|b| *b == b'\t').unwrap_or(rest.len());
            (rest[..cut].to_vec(), &rest[cut..])
        }
    };
    if name == b"/dev/null" {
        return None;
    }
    let timestamp = String::from_utf8_lossy(timestamp);
    let timestamp = timestamp.trim();
    let epoch = timestamp.starts_with("1970-01-01 00:00:00")
        || timestamp.starts_with("1969-12-31 ")
        || timestamp.starts_with("Thu Jan  1 00:00:00 1970");
    Some((name, epoch))
}

/// `@@ -12,3 +12,4 @@ fn x()` -> (12, 3, 12, 4).
fn hunk_header(line: &[u8]) -> Option<(usize, usize, usize, usize)> {
    let line = std::str::from_utf8(line).ok()?;
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

/// The lines of the patch and where the reader is.
struct Reader<'a> {
    lines: Vec<&'a [u8]>,
    next: usize,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<&'a [u8]> {
        self.lines.get(self.next).copied()
    }
    fn peek_at(&self, ahead: usize) -> Option<&'a [u8]> {
        self.lines.get(self.next + ahead).copied()
    }
    fn line_number(&self) -> usize {
        self.next + 1
    }
}

/// The hunks that follow, with their old start (to anchor them later).
fn parse_hunks(reader: &mut Reader<'_>) -> Result<Vec<(usize, Chunk)>> {
    let mut chunks = Vec::new();
    while let Some(header) = reader.peek().filter(|l| l.starts_with(b"@@ -")) {
        let Some((old_start, old_count, new_start, new_count)) = hunk_header(header) else {
            return error(
                reader.line_number(),
                format!(
                    "malformed hunk header `{}`",
                    String::from_utf8_lossy(trim_newline(header))
                ),
            );
        };
        reader.next += 1;
        let mut chunk = Chunk {
            position: Some(new_start.saturating_sub(1)),
            ..Chunk::default()
        };
        let (mut old_left, mut new_left) = (old_count, new_count);
        while old_left > 0 || new_left > 0 {
            let Some(body) = reader.peek() else {
                return error(
                    reader.line_number(),
                    "the hunk ends early: its header counts more lines",
                );
            };
            let (op, text) = match body.split_first() {
                Some((b' ', text)) => (Op::Context, text),
                Some((b'\n', _)) => (Op::Context, body),
                Some((b'-', text)) => (Op::Remove, text),
                Some((b'+', text)) => (Op::Add, text),
                Some((b'\\', _)) => {
                    no_newline(&mut chunk, reader.line_number())?;
                    reader.next += 1;
                    continue;
                }
                _ => {
                    return error(
                        reader.line_number(),
                        format!(
                            "a hunk line starts with ` `, `-` or `+`, not `{}`",
                            String::from_utf8_lossy(trim_newline(body))
                        ),
                    );
                }
            };
            let (old_use, new_use) = match op {
                Op::Context => (1, 1),
                Op::Remove => (1, 0),
                Op::Add => (0, 1),
            };
            if old_left < old_use || new_left < new_use {
                return error(
                    reader.line_number(),
                    "the hunk's lines do not match the counts in its header",
                );
            }
            old_left -= old_use;
            new_left -= new_use;
            chunk.lines.push((op, text.to_vec()));
            reader.next += 1;
        }
        if reader.peek().is_some_and(|l| l.starts_with(b"\\")) {
            no_newline(&mut chunk, reader.line_number())?;
            reader.next += 1;
        }
        if chunk.lines.iter().all(|(op, _)| *op == Op::Context) && !chunk.lines.is_empty() {
            return error(reader.line_number() - 1, "a hunk changes no line");
        }
        chunks.push((old_start, chunk));
    }
    Ok(chunks)
}

/// `\ No newline at end of file`: the line before it has no terminator.
fn no_newline(chunk: &mut Chunk, line: usize) -> Result<()> {
    match chunk.lines.last_mut() {
        Some((_, text)) if text.ends_with(b"\n") => {
            text.pop();
            Ok(())
        }
        _ => error(line, "`\\ No newline at end of file` must follow a line"),
    }
}

/// The two names of a `diff --git` line when the first is quoted or the second is
/// (`"a/caf\303\251" "b/caf\303\251"`), as written (prefixes kept).
fn quoted_names(rest: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    if let Some((first, tail)) = unquote(rest) {
        let tail = tail.strip_prefix(b" ")?;
        let second = unquote(tail).map_or_else(|| tail.to_vec(), |(name, _)| name);
        return Some((first, second));
    }
    let at = rest.iter().position(|b| *b == b'"')?;
    let first = rest[..at].strip_suffix(b" ")?;
    let (second, _) = unquote(&rest[at..])?;
    Some((first.to_vec(), second))
}

/// The file a `diff --git` line names, with `p` components stripped, read as `git
/// apply` reads it: unquoted names may hold spaces, so the line is split at the first
/// space where both halves name the same file (`a/x y b/x y`). `None` when the two
/// names differ (a rename, whose names are on its own lines).
fn git_name(rest: &[u8], p: usize) -> Option<Vec<u8>> {
    let rest = trim_newline(rest);
    if let Some((first, second)) = quoted_names(rest) {
        let name = strip(&first, p)?;
        return (strip(&second, p)? == name).then_some(name);
    }
    rest.iter()
        .enumerate()
        .filter(|(_, b)| matches!(b, b' ' | b'\t'))
        .find_map(|(at, _)| {
            let name = strip(&rest[..at], p)?;
            (strip(&rest[at + 1..], p)? == name).then_some(name)
        })
}

/// What one `diff --git` section proves of the patch's strip level (`git apply
/// -p`): a rename or copy source written after `a/` or without it, or two equal
/// names (`diff --git x y x y`, `--no-prefix` or `diff.noprefix`: with prefixes the
/// names differ in `a/` and `b/`). `None` when the section does not say.
fn section_strip(rest: &[u8], from: Option<&[u8]>) -> Option<usize> {
    let rest = trim_newline(rest);
    let first = match quoted_names(rest) {
        Some((first, second)) => {
            if from.is_none() {
                return (first == second).then_some(0);
            }
            Some(first)
        }
        None => None,
    };
    let Some(from) = from else {
        let middle = rest.len() / 2;
        let equal =
            rest.len() % 2 == 1 && rest[middle] == b' ' && rest[..middle] == rest[middle + 1..];
        return equal.then_some(0);
    };
    let prefixed = [b"a/", from].concat();
    let starts = |name: &[u8]| match &first {
        Some(first) => first == name,
        None => rest.starts_with(&[name, b" "].concat()),
    };
    if starts(&prefixed) {
        Some(1)
    } else if starts(from) {
        Some(0)
    } else {
        None
    }
}

/// The header lines a `diff --git` line may be followed by.
const GIT_HEADER_LINES: &[&[u8]] = &[
    b"old mode ",
    b"new mode ",
    b"deleted file mode ",
    b"new file mode ",
    b"rename from ",
    b"rename to ",
    b"copy from ",
    b"copy to ",
    b"index ",
    b"similarity index ",
    b"dissimilarity index ",
];

/// The strip level of the patch's `diff --git` sections: `git apply` takes one `-p`
/// for the whole patch, so the first section that proves it decides for all (a
/// `--no-prefix` section `diff --git a/x y b/x y` is then the rename of `a/x y`, as
/// `git apply -p0` reads it, not an edit of `x y`). `None` when no section proves it.
fn git_strip(lines: &[&[u8]]) -> Option<usize> {
    lines.iter().enumerate().find_map(|(at, line)| {
        let rest = line.strip_prefix(b"diff --git ")?;
        let from = lines[at + 1..]
            .iter()
            .take_while(|l| GIT_HEADER_LINES.iter().any(|p| l.starts_with(p)))
            .find_map(|l| {
                l.strip_prefix(b"rename from ")
                    .or_else(|| l.strip_prefix(b"copy from "))
            })
            .map(plain_name);
        section_strip(rest, from.as_deref())
    })
}

fn mode_exec(text: &[u8], line: usize) -> Result<bool> {
    match trim_newline(text).trim_ascii() {
        b"100644" | b"100664" => Ok(false),
        b"100755" => Ok(true),
        other => Err(SyntaxError {
            line,
            message: format!(
                "mode {} is not a regular file (symlinks and submodules are not patched)",
                String::from_utf8_lossy(other)
            ),
            kind: "unsupported_patch",
        }),
    }
}

/// What a `diff --git` section's extended header says.
#[derive(Default)]
struct GitHeader {
    old_exec: Option<bool>,
    new_exec: Option<bool>,
    new_file: bool,
    deleted: bool,
    rename_from: Option<Vec<u8>>,
    rename_to: Option<Vec<u8>>,
    copy_from: Option<Vec<u8>>,
    copy_to: Option<Vec<u8>>,
    index: Option<(String, String)>,
}

fn parse_git(reader: &mut Reader<'_>, p_known: Option<usize>) -> Result<FileChange> {
    let start = reader.line_number();
    let names = &reader.peek().unwrap_or_default()[b"diff --git ".len()..];
    reader.next += 1;
    let mut header = GitHeader::default();
    while let Some(line) = reader.peek() {
        let number = reader.line_number();
        let after = |prefix: &[u8]| line.strip_prefix(prefix);
        if let Some(mode) = after(b"old mode ") {
            header.old_exec = Some(mode_exec(mode, number)?);
        } else if let Some(mode) = after(b"new mode ") {
            header.new_exec = Some(mode_exec(mode, number)?);
        } else if let Some(mode) = after(b"deleted file mode ") {
            header.deleted = true;
            header.old_exec = Some(mode_exec(mode, number)?);
        } else if let Some(mode) = after(b"new file mode ") {
            header.new_file = true;
            header.new_exec = Some(mode_exec(mode, number)?);
        } else if let Some(name) = after(b"rename from ") {
            header.rename_from = Some(plain_name(name));
        } else if let Some(name) = after(b"rename to ") {
            header.rename_to = Some(plain_name(name));
        } else if let Some(name) = after(b"copy from ") {
            header.copy_from = Some(plain_name(name));
        } else if let Some(name) = after(b"copy to ") {
            header.copy_to = Some(plain_name(name));
        } else if let Some(ids) = after(b"index ") {
            let ids = String::from_utf8_lossy(trim_newline(ids));
            let ids = ids.split(' ').next().unwrap_or_default();
            if let Some((old, new)) = ids.split_once("..") {
                header.index = Some((old.to_string(), new.to_string()));
            }
        } else if !(line.starts_with(b"similarity index ")
            || line.starts_with(b"dissimilarity index "))
        {
            break;
        }
        reader.next += 1;
    }
    // `--no-prefix` patches name files without `a/` and `b/`; a section that does
    // not say is read with prefixes when its line starts with one.
    let from = header.rename_from.as_ref().or(header.copy_from.as_ref());
    let p = p_known
        .or_else(|| section_strip(names, from.map(Vec::as_slice)))
        .unwrap_or_else(|| usize::from(names.starts_with(b"a/") || names.starts_with(b"\"a/")));
    let mut old_name = git_name(names, p);
    let mut new_name = old_name.clone();
    let mut body = Body::Chunks(Vec::new());
    let mut old_exists = !header.new_file;
    let mut new_exists = !header.deleted;
    let line = reader.peek().unwrap_or_default();
    if line.starts_with(b"--- ") && reader.peek_at(1).is_some_and(|l| l.starts_with(b"+++ ")) {
        let old = header_name(&line[4..]);
        let new = header_name(&reader.peek_at(1).unwrap_or_default()[4..]);
        old_exists = old.is_some();
        new_exists = new.is_some();
        if let Some((name, _)) = old {
            old_name = strip(&name, p).or(old_name);
        }
        if let Some((name, _)) = new {
            new_name = strip(&name, p).or(new_name);
        }
        reader.next += 2;
        let hunks = parse_hunks(reader)?;
        body = Body::Chunks(hunks.into_iter().map(anchored).collect());
    } else if line.starts_with(b"GIT binary patch") {
        reader.next += 1;
        body = Body::Binary(parse_binary(reader, header.index.as_ref(), start)?);
    } else if line.starts_with(b"Binary files ") {
        return Err(SyntaxError {
            line: reader.line_number(),
            message: "a binary file's change is named but its data is not in the patch".into(),
            kind: "binary_without_data",
        });
    }
    let (old_name, new_name) = match (&header.rename_from, &header.rename_to) {
        (Some(from), Some(to)) => (Some(from.clone()), Some(to.clone())),
        _ => match (&header.copy_from, &header.copy_to) {
            (Some(from), Some(to)) => (Some(from.clone()), Some(to.clone())),
            _ => (old_name, new_name),
        },
    };
    let missing = || {
        SyntaxError::new(
            start,
            "the `diff --git` section names no file: its two names differ (or need more `a/` and `b/` prefixes than the patch's other sections have) and no `---`/`+++` or `rename from`/`rename to` lines say which is which",
        )
    };
    let exec_change = header
        .new_exec
        .filter(|new| header.old_exec != Some(*new) || header.new_file);
    Ok(if !old_exists {
        FileChange {
            action: Action::Add,
            path: to_path(&new_name.ok_or_else(missing)?),
            target: None,
            body,
            exec: Some(header.new_exec.unwrap_or(false)),
        }
    } else if !new_exists {
        FileChange {
            action: Action::Delete,
            path: to_path(&old_name.ok_or_else(missing)?),
            target: None,
            body,
            exec: None,
        }
    } else {
        let from = old_name.ok_or_else(missing)?;
        let to = new_name.ok_or_else(missing)?;
        let copy = header.copy_from.is_some() && header.copy_to.is_some();
        FileChange {
            action: if copy { Action::Copy } else { Action::Update },
            target: (copy || from != to).then(|| to_path(&to)),
            path: to_path(&from),
            body,
            exec: exec_change,
        }
    })
}

/// Hunks at the start or end of the file must match there, as in `git apply`: a
/// hunk starting at old line 0 or 1 is at the start, one without trailing context
/// at the end. `unanchor_zero_context` undoes it for a patch made without any
/// context (`-U0`), which `git apply --unidiff-zero` reads the same way.
fn anchored((old_start, mut chunk): (usize, Chunk)) -> Chunk {
    let trailing = chunk
        .lines
        .iter()
        .rev()
        .take_while(|(op, _)| *op == Op::Context)
        .count();
    chunk.old_start = old_start;
    chunk.at_start = old_start <= 1;
    chunk.at_end = trailing == 0;
    chunk
}

/// A patch with no context line at all (`git diff -U0`) places the hunks of its git
/// sections by their numbers only. A traditional diff's hunks stay anchored, as
/// `git apply` reads `diff -u` output: there, a hunk without context is the whole
/// file (`@@ -0,0 +1,2 @@` adds the lines of an empty file, and refuses any other).
fn unanchor_zero_context(changes: &mut [FileChange], git_sections: &[bool]) {
    let has_context = changes.iter().any(|change| match &change.body {
        Body::Chunks(chunks) => chunks
            .iter()
            .any(|chunk| chunk.lines.iter().any(|(op, _)| *op == Op::Context)),
        _ => false,
    });
    if has_context {
        return;
    }
    for (change, _) in changes
        .iter_mut()
        .zip(git_sections)
        .filter(|(_, git)| **git)
    {
        if let Body::Chunks(chunks) = &mut change.body {
            for chunk in chunks {
                chunk.at_start = chunk.old_start == 0;
                chunk.at_end = false;
            }
        }
    }
}

fn parse_binary(
    reader: &mut Reader<'_>,
    index: Option<&(String, String)>,
    start: usize,
) -> Result<BinaryPatch> {
    let Some((old_id, new_id)) = index.filter(|(old, new)| old.len() == 40 && new.len() == 40)
    else {
        return Err(SyntaxError {
            line: start,
            message: "a binary patch needs a full `index <old>..<new>` line (git diff --binary writes one)".into(),
            kind: "binary_without_data",
        });
    };
    let number = reader.line_number();
    let line = trim_newline(reader.peek().unwrap_or_default());
    let text = String::from_utf8_lossy(line);
    let (is_delta, size) = match text.split_once(' ') {
        Some(("literal", size)) => (false, size.parse::<usize>().ok()),
        Some(("delta", size)) => (true, size.parse::<usize>().ok()),
        _ => (false, None),
    };
    let Some(size) = size else {
        return error(
            number,
            "a binary patch needs a `literal N` or `delta N` line",
        );
    };
    reader.next += 1;
    let mut deflated = Vec::new();
    while let Some(line) = reader.peek() {
        let line = trim_newline(line);
        reader.next += 1;
        if line.is_empty() {
            break;
        }
        binary::decode_line(line, &mut deflated)
            .map_err(|message| SyntaxError::new(reader.next, message))?;
    }
    // The reverse hunk that may follow is not needed.
    if reader
        .peek()
        .is_some_and(|l| l.starts_with(b"literal ") || l.starts_with(b"delta "))
    {
        reader.next += 1;
        while let Some(line) = reader.peek() {
            reader.next += 1;
            if trim_newline(line).is_empty() {
                break;
            }
        }
    }
    let data =
        binary::inflate(&deflated, size).map_err(|message| SyntaxError::new(number, message))?;
    Ok(BinaryPatch {
        old_id: old_id.clone(),
        new_id: new_id.clone(),
        data,
        is_delta,
    })
}

/// A traditional diff's `--- `/`+++ ` pair, named as `git apply` names it: a new
/// or deleted file by `/dev/null` or an epoch timestamp, otherwise one file (the
/// shorter name when the other only adds to it, `x` for `x.orig`/`x`).
fn parse_traditional(reader: &mut Reader<'_>, p_known: &mut Option<usize>) -> Result<FileChange> {
    let start = reader.line_number();
    let first = header_name(&reader.peek().unwrap_or_default()[4..]);
    let second = header_name(&reader.peek_at(1).unwrap_or_default()[4..]);
    reader.next += 2;
    let p = *p_known.get_or_insert_with(|| {
        let guess = |side: &Option<(Vec<u8>, bool)>| {
            side.as_ref()
                .map(|(name, _)| usize::from(name.contains(&b'/')))
        };
        match (guess(&first), guess(&second)) {
            (Some(0), None | Some(0)) | (None, Some(0)) => 0,
            _ => 1,
        }
    });
    let hunks = parse_hunks(reader)?;
    let body = Body::Chunks(hunks.into_iter().map(anchored).collect());
    let name = |side: &Option<(Vec<u8>, bool)>| side.as_ref().and_then(|(n, _)| strip(n, p));
    let is_new = first.as_ref().is_none_or(|(_, epoch)| *epoch);
    let is_delete = !is_new && second.as_ref().is_none_or(|(_, epoch)| *epoch);
    let missing = || SyntaxError::new(start, "the `---`/`+++` lines name no file");
    let (action, path) = if is_new {
        (Action::Add, name(&second).ok_or_else(missing)?)
    } else if is_delete {
        (Action::Delete, name(&first).ok_or_else(missing)?)
    } else {
        let old = name(&first).ok_or_else(missing)?;
        let path = match name(&second) {
            Some(new) if new.len() < old.len() && old.starts_with(&new) => new,
            _ => old,
        };
        (Action::Update, path)
    };
    Ok(FileChange {
        action,
        path: to_path(&path),
        target: None,
        body,
        exec: (action == Action::Add).then_some(false),
    })
}

/// Parses a unified diff of one or more files.
pub(crate) fn parse(text: &str) -> Result<Vec<FileChange>> {
    let mut reader = Reader {
        lines: text.as_bytes().split_inclusive(|b| *b == b'\n').collect(),
        next: 0,
    };
    let mut changes = Vec::new();
    let mut p_known = None;
    let git_p = git_strip(&reader.lines);
    let mut git_sections = Vec::new();
    while let Some(line) = reader.peek() {
        if line.starts_with(b"diff --git ") {
            changes.push(parse_git(&mut reader, git_p)?);
            git_sections.push(true);
        } else if line.starts_with(b"--- ")
            && reader.peek_at(1).is_some_and(|l| l.starts_with(b"+++ "))
            && reader.peek_at(2).is_some_and(|l| l.starts_with(b"@@ -"))
        {
            changes.push(parse_traditional(&mut reader, &mut p_known)?);
            git_sections.push(false);
        } else if line.starts_with(b"Binary files ") && trim_newline(line).ends_with(b" differ") {
            return Err(SyntaxError {
                line: reader.line_number(),
                message: "a binary file's change is named but its data is not in the patch (make it with `git diff --binary`)".into(),
                kind: "binary_without_data",
            });
        } else {
            // Commentary: a mail's headers and message, `index` or `Only in` lines.
            reader.next += 1;
        }
    }
    unanchor_zero_context(&mut changes, &git_sections);
    if changes.is_empty() {
        return error(
            1,
            "no file changes found: expected a unified diff (`--- a/file`, `+++ b/file`, `@@ ... @@` hunks) or a `*** Begin Patch` patch",
        );
    }
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only(diff: &str) -> FileChange {
        let mut changes = parse(diff).unwrap();
        assert_eq!(changes.len(), 1, "{changes:?}");
        changes.remove(0)
    }

    fn chunk_lines(change: &FileChange) -> Vec<(Op, String)> {
        let Body::Chunks(chunks) = &change.body else {
            panic!("expected chunks");
        };
        chunks[0]
            .lines
            .iter()
            .map(|(op, line)| (*op, String::from_utf8_lossy(line).into_owned()))
            .collect()
    }

    #[test]
    fn keeps_carriage_returns_and_missing_final_newlines() {
        let change =
            only("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\r\n-b\n\\ No newline at end of file\n+b\n");
        assert_eq!(
            chunk_lines(&change),
            [
                (Op::Context, "a\r\n".to_string()),
                (Op::Remove, "b".to_string()),
                (Op::Add, "b\n".to_string())
            ]
        );
    }

    #[test]
    fn reads_git_headers() {
        let quoted = only(
            "diff --git \"a/caf\\303\\251.txt\" \"b/caf\\303\\251.txt\"\nnew file mode 100755\nindex 0000000..e69de29\n",
        );
        assert_eq!(quoted.action, Action::Add);
        assert_eq!(quoted.path, std::path::Path::new("caf\u{e9}.txt"));
        assert_eq!(quoted.exec, Some(true));
        let chmod = only("diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n");
        assert_eq!((chmod.action, chmod.exec), (Action::Update, Some(true)));
        let no_prefix = only(
            "diff --git a/x.txt a/x.txt\nindex 1..2 100644\n--- a/x.txt\n+++ a/x.txt\n@@ -1 +1 @@\n-a\n+b\n",
        );
        assert_eq!(no_prefix.path, std::path::Path::new("a/x.txt"));
        let copy = only("diff --git a/x b/y\nsimilarity index 100%\ncopy from x\ncopy to y\n");
        assert_eq!(
            (copy.action, copy.target.as_deref()),
            (Action::Copy, Some(std::path::Path::new("y")))
        );
        let no_prefix_space =
            only("diff --git dir one/x y.txt dir one/x y.txt\nold mode 100644\nnew mode 100755\n");
        assert_eq!(
            no_prefix_space.path,
            std::path::Path::new("dir one/x y.txt")
        );
        let rename = only(
            "diff --git a/old.rs b/new.rs\nsimilarity index 100%\nrename from old.rs\nrename to new.rs\n",
        );
        assert_eq!(
            rename.target.as_deref(),
            Some(std::path::Path::new("new.rs"))
        );
    }

    #[test]
    fn reads_traditional_diffs_as_git_does() {
        let orig = only("--- x.orig\t2024-01-01\n+++ x\t2024-01-02\n@@ -1 +1 @@\n-a\n+b\n");
        assert_eq!(
            (orig.action, orig.path.as_path(), orig.target.as_deref()),
            (Action::Update, std::path::Path::new("x"), None)
        );
        let added = only(
            "--- a/n\t1970-01-01 00:00:00.000000000 +0000\n+++ b/n\t2026-01-01 00:00:00.000000000 +0000\n@@ -0,0 +1 @@\n+x\n",
        );
        assert_eq!(added.action, Action::Add);
        let deleted = only(
            "--- a/n\t2026-01-01 00:00:00.000000000 +0000\n+++ b/n\t1970-01-01 00:00:00.000000000 +0000\n@@ -1 +0,0 @@\n-x\n",
        );
        assert_eq!(deleted.action, Action::Delete);
        let mail = "From 1 Mon Sep 17 00:00:00 2001\nSubject: x\n\n--- not\n+++ a diff\n---\n 1 file changed\n\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n-- \n2.47.0\n";
        assert_eq!(only(mail).path, std::path::Path::new("x"));
    }

    #[test]
    fn rejects_broken_diffs() {
        assert!(parse("just some text").is_err());
        assert!(parse("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n").is_err());
        assert!(parse("--- a/x\n+++ b/x\n@@ -1 +1 @@\n*a\n").is_err());
        let binary =
            parse("diff --git a/x b/x\nindex 1..2 100644\nBinary files a/x and b/x differ\n")
                .unwrap_err();
        assert_eq!(binary.kind, "binary_without_data");
        let symlink = parse("diff --git a/l b/l\nnew file mode 120000\n").unwrap_err();
        assert_eq!(symlink.kind, "unsupported_patch");
        // Two different names and nothing to say which is the file: `git apply`
        // refuses ("git diff header lacks filename information").
        let unnamed = parse("diff --git a/x b/y\nnew file mode 100644\nindex 0000000..e69de29\n")
            .unwrap_err();
        assert!(unnamed.message.contains("names no file"), "{unnamed}");
    }
}
