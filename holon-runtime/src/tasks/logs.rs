//! Previews of a task's logs: a byte range of each stream, cut to a budget by keeping
//! its head and its tail with a marker of what was cut. Only the kept bytes are read,
//! so a preview of a 500 MB log costs no more memory than the budget.

use std::path::Path;

use holon_core::prelude::{JsonSchema, Serialize, schemars};

/// A bounded view of a task's output.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct OutputPreview {
    /// stdout (for a terminal task: everything the terminal showed). When it is over
    /// the budget, its head and tail are kept around a marker of how much was cut.
    pub stdout: String,
    /// stderr, cut the same way; always empty for a terminal task.
    pub stderr: String,
    /// How many bytes of stdout the preview covers, cut or not.
    pub stdout_bytes: u64,
    /// How many bytes of stderr the preview covers, cut or not.
    pub stderr_bytes: u64,
    /// How many bytes were cut out in all; 0 when both previews are whole. The logs
    /// hold more (up to their cap).
    pub cut_bytes: u64,
}

use holon_gates::process::{log_len, read_log};

/// A byte range of a log: from `start` to the log's size when the window is made.
pub struct Window<'a> {
    path: &'a Path,
    pub start: u64,
    pub end: u64,
}

impl<'a> Window<'a> {
    /// The part of `path` from `start` to its current end.
    pub fn new(path: &'a Path, start: u64) -> Self {
        let end = log_len(path).max(start);
        Self { path, start, end }
    }

    fn len(&self) -> u64 {
        self.end - self.start
    }
}

/// Previews `stdout` and `stderr` within `budget` bytes in all. A stream that needs
/// less than half leaves the rest to the other.
pub fn preview(stdout: &Window<'_>, stderr: Option<&Window<'_>>, budget: usize) -> OutputPreview {
    let stderr_len = stderr.map_or(0, Window::len);
    let (stdout_share, stderr_share) = split(budget, stdout.len(), stderr_len);
    let (stdout_text, stdout_cut) = read_cut(stdout, stdout_share, "stdout");
    let (stderr_text, stderr_cut) = match stderr {
        Some(window) => read_cut(window, stderr_share, "stderr"),
        None => (String::new(), 0),
    };
    OutputPreview {
        stdout: stdout_text,
        stderr: stderr_text,
        stdout_bytes: stdout.len(),
        stderr_bytes: stderr_len,
        cut_bytes: stdout_cut + stderr_cut,
    }
}

/// How many bytes of `budget` each of two streams of sizes `a` and `b` gets.
fn split(budget: usize, a: u64, b: u64) -> (usize, usize) {
    let budget_u64 = budget as u64;
    let half = budget / 2;
    if a.saturating_add(b) <= budget_u64 {
        (a as usize, b as usize)
    } else if a <= half as u64 {
        (a as usize, budget - a as usize)
    } else if b <= half as u64 {
        (budget - b as usize, b as usize)
    } else {
        (half, budget - half)
    }
}

/// The text of `window` within `share` bytes, and how many bytes were cut.
fn read_cut(window: &Window<'_>, share: usize, stream: &str) -> (String, u64) {
    let len = window.len();
    if len <= share as u64 {
        let bytes = read_log(window.path, window.start, share);
        return (String::from_utf8_lossy(&bytes).into_owned(), 0);
    }
    let head_len = share / 2;
    let tail_len = share - head_len;
    let mut head = read_log(window.path, window.start, head_len);
    trim_partial_end(&mut head);
    snap_end_to_line(&mut head);
    let mut tail = read_log(window.path, window.end - tail_len as u64, tail_len);
    trim_partial_start(&mut tail);
    snap_start_to_line(&mut tail);
    let cut = len - (head.len() + tail.len()) as u64;
    let mut text = String::from_utf8_lossy(&head).into_owned();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&format!(
        "[... {cut} bytes of {stream} cut here; its log file holds more ...]\n"
    ));
    text.push_str(&String::from_utf8_lossy(&tail));
    (text, cut)
}

/// Ends the head at its last line break, when that keeps at least half of it: a cut
/// between lines reads better than one inside a line.
fn snap_end_to_line(bytes: &mut Vec<u8>) {
    if let Some(at) = bytes.iter().rposition(|b| *b == b'\n')
        && at + 1 >= bytes.len() / 2
    {
        bytes.truncate(at + 1);
    }
}

/// Starts the tail after its first line break, when that keeps at least half of it.
fn snap_start_to_line(bytes: &mut Vec<u8>) {
    if let Some(at) = bytes.iter().position(|b| *b == b'\n')
        && at < bytes.len() / 2
        && at + 1 < bytes.len()
    {
        bytes.drain(..=at);
    }
}

/// Drops a UTF-8 sequence the cut left incomplete at the end.
fn trim_partial_end(bytes: &mut Vec<u8>) {
    let len = bytes.len();
    for back in 1..=len.min(4) {
        let byte = bytes[len - back];
        if byte & 0xC0 == 0x80 {
            continue;
        }
        let needed = match byte {
            0xF0.. => 4,
            0xE0.. => 3,
            0xC0.. => 2,
            _ => 1,
        };
        if needed > back {
            bytes.truncate(len - back);
        }
        return;
    }
}

/// Drops the continuation bytes of a UTF-8 sequence the cut began inside of.
fn trim_partial_start(bytes: &mut Vec<u8>) {
    let skip = bytes
        .iter()
        .take(3)
        .take_while(|byte| *byte & 0xC0 == 0x80)
        .count();
    bytes.drain(..skip);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_keep_head_and_tail_on_char_boundaries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.log");
        let text = format!("{}{}", "é".repeat(600), "z".repeat(10));
        std::fs::write(&path, &text).unwrap();
        let window = Window::new(&path, 0);
        let preview = preview(&window, None, 101);
        assert!(preview.stdout.starts_with("éé"), "{}", preview.stdout);
        assert!(preview.stdout.ends_with("zzzzzzzzzz"), "{}", preview.stdout);
        assert!(preview.stdout.contains("bytes of stdout cut here"));
        assert!(!preview.stdout.contains('\u{FFFD}'));
        assert_eq!(preview.stdout_bytes, text.len() as u64);
        assert!(preview.cut_bytes > 1000);

        let whole = super::preview(&Window::new(&path, 1190), None, 100);
        assert_eq!(whole.stdout, "é".repeat(5) + &"z".repeat(10));
        assert_eq!(whole.cut_bytes, 0);
    }

    #[test]
    fn cuts_fall_between_lines_when_they_can() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.log");
        let text: String = (1..=1000).map(|n| format!("{n}\n")).collect();
        std::fs::write(&path, &text).unwrap();
        let preview = preview(&Window::new(&path, 0), None, 60);
        let (head, rest) = preview.stdout.split_once("[... ").unwrap();
        let tail = rest.split_once("...]\n").unwrap().1;
        assert!(
            head.starts_with("1\n2\n") && head.ends_with('\n'),
            "{head:?}"
        );
        assert!(tail.ends_with("999\n1000\n"), "{tail:?}");
        assert!(text.contains(&format!("\n{tail}")), "whole lines: {tail:?}");
        assert_eq!(
            preview.cut_bytes,
            text.len() as u64 - (head.len() + tail.len()) as u64
        );
    }

    #[test]
    fn a_small_stream_leaves_its_share_to_the_other() {
        assert_eq!(split(100, 10, 500), (10, 90));
        assert_eq!(split(100, 500, 10), (90, 10));
        assert_eq!(split(100, 500, 500), (50, 50));
        assert_eq!(split(100, 30, 40), (30, 40));
        assert_eq!(split(0, 30, 40), (0, 0));
    }
}
