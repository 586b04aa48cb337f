//! Splits a Markdown text into the chunks the index holds: one per section (a
//! heading and the lines under it, up to the next heading), long sections cut into
//! pieces, so that a hit points at a few dozen lines rather than a whole file.
//! Headings are found by `pulldown-cmark`, so code blocks hide them as CommonMark says.

use pulldown_cmark::{Event, Options, Parser, Tag};

/// A section longer than this many lines is cut into pieces of at most this many.
pub const MAX_CHUNK_LINES: usize = 40;

/// One chunk of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// Its first line, 1-based.
    pub start_line: usize,
    /// Its last line, 1-based, inclusive.
    pub end_line: usize,
    /// The heading of the section it belongs to, without the `#` marks ("" before the
    /// first heading).
    pub heading: String,
    /// Its lines, joined with `\n`.
    pub text: String,
}

/// The heading text of `line` when it is an ATX heading (`# ...` to `###### ...`).
fn heading(line: &str) -> Option<&str> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let hashes = trimmed.bytes().take_while(|&b| b == b'#').count();
    let rest = &trimmed[hashes..];
    ((1..=6).contains(&hashes) && (rest.is_empty() || rest.starts_with([' ', '\t'])))
        .then(|| rest.trim().trim_end_matches('#').trim())
}

/// The chunks of `text`. Blank-only chunks are dropped; only ATX headings that
/// CommonMark reads as headings start sections: not a `#` line inside a code block
/// (fenced by any run of backticks or tildes, or indented), an HTML block or a quote.
pub fn chunks(text: &str) -> Vec<Chunk> {
    let lines: Vec<&str> = text.lines().collect();
    // The byte offset each line starts at, to find the line a heading starts on.
    let line_starts: Vec<usize> = text
        .split_inclusive('\n')
        .scan(0, |at, line| {
            let start = *at;
            *at += line.len();
            Some(start)
        })
        .collect();
    // Sections: (first line index, heading).
    let mut sections: Vec<(usize, String)> = vec![(0, String::new())];
    for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        if !matches!(event, Event::Start(Tag::Heading { .. })) {
            continue;
        }
        let index = line_starts.partition_point(|&start| start <= range.start) - 1;
        // The title as the line writes it (inline marks kept); a setext heading
        // (underlined with `=` or `-`) has no `#` and starts no section.
        if let Some(title) = lines.get(index).and_then(|line| heading(line)) {
            sections.push((index, title.to_string()));
        }
    }
    let mut out = Vec::new();
    for (i, (start, title)) in sections.iter().enumerate() {
        let end = sections.get(i + 1).map_or(lines.len(), |next| next.0);
        let mut piece_start = *start;
        while piece_start < end {
            let piece_end = (piece_start + MAX_CHUNK_LINES).min(end);
            let piece = &lines[piece_start..piece_end];
            if piece.iter().any(|line| !line.trim().is_empty()) {
                out.push(Chunk {
                    start_line: piece_start + 1,
                    end_line: piece_end,
                    heading: title.clone(),
                    text: piece.join("\n"),
                });
            }
            piece_start = piece_end;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_headings_outside_code_and_cuts_long_sections() {
        let mut text = String::from(
            "intro\n\n# Setup\ninstall it\n```sh\n# not a heading\n```\n## Usage ##\nrun it\n",
        );
        for i in 0..45 {
            text.push_str(&format!("line {i}\n"));
        }
        let chunks = chunks(&text);
        let summary: Vec<(usize, usize, &str)> = chunks
            .iter()
            .map(|c| (c.start_line, c.end_line, c.heading.as_str()))
            .collect();
        assert_eq!(
            summary,
            [
                (1, 2, ""),
                (3, 7, "Setup"),
                (8, 47, "Usage"),
                (48, 54, "Usage")
            ]
        );
        assert!(chunks[1].text.contains("# not a heading"));
        assert!(super::chunks("\n\n  \n").is_empty());
        assert_eq!(heading("####### seven"), None);
        assert_eq!(heading("#hashtag"), None);
        assert_eq!(heading("    # code"), None);
    }

    #[test]
    fn a_shorter_or_other_fence_inside_a_code_block_does_not_close_it() {
        // A ```` block may hold ``` lines and a ``` block ~~~ lines: they close
        // nothing, so the `#` lines after them are still code.
        let text = "# One\n````md\n```\n# code\n```\n````\n```\n~~~\n# code\n```\n# Two\n";
        let headings: Vec<(usize, String)> = chunks(text)
            .into_iter()
            .map(|chunk| (chunk.start_line, chunk.heading))
            .collect();
        assert_eq!(headings, [(1, "One".to_string()), (11, "Two".to_string())]);
    }
}
