//! Scanning Markdown: paragraphs of prose (with the line each character is on),
//! headings, fenced code blocks, and the inline code spans of a paragraph. Fenced
//! code blocks are found by `pulldown-cmark`, so they open and close as CommonMark
//! says (a fence closes only on a run of its own character at least as long).

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// A run of prose: a paragraph, a list item, a table row or a heading.
#[derive(Debug)]
pub(crate) struct Paragraph {
    /// The lines joined with `\n`.
    pub text: String,
    /// `(byte offset in text, 1-based line)` of each line's start.
    line_starts: Vec<(usize, usize)>,
    /// Whether this is a heading (`# ...`).
    pub heading: bool,
}

impl Paragraph {
    fn new(heading: bool) -> Self {
        Self {
            text: String::new(),
            line_starts: Vec::new(),
            heading,
        }
    }

    fn push_line(&mut self, line: usize, text: &str) {
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.line_starts.push((self.text.len(), line));
        self.text.push_str(text);
    }

    /// The 1-based line of the byte at `offset`.
    pub fn line_at(&self, offset: usize) -> usize {
        self.line_starts
            .iter()
            .take_while(|(start, _)| *start <= offset)
            .last()
            .map_or(1, |(_, line)| *line)
    }
}

/// A fenced code block.
#[derive(Debug)]
pub(crate) struct Fence {
    /// The 1-based line of the opening fence.
    pub line: usize,
    /// The info string after the opening fence (`json call=Sleep valid`).
    pub info: String,
    /// The lines between the fences.
    pub body: String,
}

/// A block of a Markdown text.
#[derive(Debug)]
pub(crate) enum Block {
    /// Prose or a heading.
    Prose(Paragraph),
    /// A fenced code block.
    Fence(Fence),
}

/// The fenced code blocks of `text`, each with the 0-based lines it spans (its
/// opening fence to its closing one, or to the end of the text when unclosed).
fn fences(text: &str) -> Vec<(Range<usize>, Fence)> {
    let line_starts: Vec<usize> = text
        .split_inclusive('\n')
        .scan(0, |at, line| {
            let start = *at;
            *at += line.len();
            Some(start)
        })
        .collect();
    let line_of = |offset: usize| line_starts.partition_point(|&start| start <= offset) - 1;
    let mut found = Vec::new();
    let mut open: Option<(Range<usize>, Fence)> = None;
    for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let first = line_of(range.start);
                let last = line_of(range.end.saturating_sub(1).max(range.start));
                let fence = Fence {
                    line: first + 1,
                    info: info.trim().to_string(),
                    body: String::new(),
                };
                open = Some((first..last + 1, fence));
            }
            Event::Text(content) => {
                if let Some((_, fence)) = &mut open {
                    fence.body.push_str(&content);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((lines, mut fence)) = open.take() {
                    // An unclosed fence's last line has no newline of its own.
                    if !fence.body.is_empty() && !fence.body.ends_with('\n') {
                        fence.body.push('\n');
                    }
                    found.push((lines, fence));
                }
            }
            _ => {}
        }
    }
    found
}

fn starts_list_item(line: &str) -> bool {
    let trimmed = line.trim_start();
    if ["- ", "* ", "+ "].iter().any(|m| trimmed.starts_with(m)) {
        return true;
    }
    let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && (trimmed[digits..].starts_with(". ") || trimmed[digits..].starts_with(") "))
}

/// Splits a Markdown text into blocks. HTML comments are skipped.
pub(crate) fn blocks(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut current: Option<Paragraph> = None;
    let mut fences = fences(text).into_iter().peekable();
    let mut in_fence = 0..0;
    let mut in_comment = false;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if in_fence.contains(&index) {
            continue;
        }
        // A fence that began where this scan saw no block (inside a comment) is passed.
        while fences.next_if(|(lines, _)| lines.start < index).is_some() {}
        if let Some((lines, fence)) = fences.next_if(|(lines, _)| lines.start == index) {
            in_fence = lines;
            blocks.extend(current.take().map(Block::Prose));
            blocks.push(Block::Fence(fence));
            continue;
        }
        if in_comment || line.trim_start().starts_with("<!--") {
            in_comment = !line.contains("-->");
            continue;
        }
        let trimmed = line.trim();
        let heading =
            trimmed.starts_with('#') && trimmed.trim_start_matches('#').starts_with([' ', '\t']);
        let breaks =
            trimmed.is_empty() || heading || starts_list_item(line) || trimmed.starts_with('|');
        if breaks && let Some(paragraph) = current.take() {
            blocks.push(Block::Prose(paragraph));
        }
        if trimmed.is_empty() {
            continue;
        }
        let paragraph = current.get_or_insert_with(|| Paragraph::new(heading));
        paragraph.push_line(number, line);
        if heading || trimmed.starts_with('|') {
            blocks.extend(current.take().map(Block::Prose));
        }
    }
    blocks.extend(current.map(Block::Prose));
    blocks
}

/// An inline code span: where it starts in the paragraph and what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CodeSpan<'t> {
    /// Byte offset of the opening backtick.
    pub start: usize,
    /// Byte offset just past the closing backtick.
    pub end: usize,
    /// The content, with one surrounding space stripped as Markdown does.
    pub content: &'t str,
}

/// The inline code spans of `text`: a run of N backticks up to the next run of
/// exactly N backticks. An unmatched run is literal text.
pub(crate) fn code_spans(text: &str) -> Vec<CodeSpan<'_>> {
    let bytes = text.as_bytes();
    let run_at = |at: usize| bytes[at..].iter().take_while(|b| **b == b'`').count();
    let mut spans = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'`' {
            at += 1;
            continue;
        }
        let length = run_at(at);
        let mut search = at + length;
        let mut close = None;
        while search < bytes.len() {
            if bytes[search] == b'`' {
                let run = run_at(search);
                if run == length {
                    close = Some(search);
                    break;
                }
                search += run;
            } else {
                search += 1;
            }
        }
        match close {
            Some(close) => {
                let raw = &text[at + length..close];
                let content = match raw.strip_prefix(' ').and_then(|r| r.strip_suffix(' ')) {
                    Some(inner) if !inner.trim().is_empty() => inner,
                    _ => raw,
                };
                spans.push(CodeSpan {
                    start: at,
                    end: close + length,
                    content,
                });
                at = close + length;
            }
            None => at += length,
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_prose_headings_lists_and_fences() {
        let text = "# Title\n\nOne\ntwo `x`.\n- item\n  more\n\n```json call=Sleep valid\n{}\n```\n<!-- a\nb -->\nlast";
        let blocks = blocks(text);
        let kinds: Vec<String> = blocks
            .iter()
            .map(|block| match block {
                Block::Prose(p) => format!("{}:{}", if p.heading { "h" } else { "p" }, p.text),
                Block::Fence(f) => format!("f{}:{}:{}", f.line, f.info, f.body),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "h:# Title",
                "p:One\ntwo `x`.",
                "p:- item\n  more",
                "f8:json call=Sleep valid:{}\n",
                "p:last"
            ]
        );
        let Block::Prose(paragraph) = &blocks[1] else {
            panic!("a paragraph")
        };
        assert_eq!(paragraph.line_at(0), 3);
        assert_eq!(paragraph.line_at(5), 4);
    }

    #[test]
    fn only_commonmark_fences_open_code_blocks() {
        // Indented four spaces, ``` is indented code; with a backtick in its info
        // string it is inline code. Neither opens a fence that would hide the prose
        // after it from the lint.
        let text = "Run:\n\n    ```\n\nCall `Sleep`.\n\n```a`b\nCall `Wait`.\n";
        let kinds: Vec<String> = blocks(text)
            .into_iter()
            .map(|block| match block {
                Block::Prose(p) => format!("p:{}", p.text),
                Block::Fence(f) => format!("f{}:{}", f.line, f.body),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "p:Run:",
                "p:    ```",
                "p:Call `Sleep`.",
                "p:```a`b\nCall `Wait`."
            ]
        );
    }

    #[test]
    fn finds_code_spans() {
        let spans = code_spans("a `b` c `` d`e `` `unclosed");
        let contents: Vec<&str> = spans.iter().map(|s| s.content).collect();
        assert_eq!(contents, ["b", "d`e"]);
        assert_eq!(spans[0].start, 2);
        assert_eq!(spans[0].end, 5);
    }
}
