//! Splits a Markdown text into the chunks the index holds: one per section (a
//! heading and the lines under it, up to the next heading), long sections cut into
//! pieces, so that a hit points at a few dozen lines rather than a whole file.

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

/// Whether `line` opens or closes a fenced code block.
fn is_fence(line: &str) -> bool {
    let trimmed = line.trim_start();
    trimmed.starts_with("```") || trimmed.starts_with("~~~")
}

/// The chunks of `text`. Blank-only chunks are dropped; headings inside fenced code
/// blocks do not start sections.
pub fn chunks(text: &str) -> Vec<Chunk> {
    let lines: Vec<&str> = text.lines().collect();
    // Sections: (first line index, heading).
    let mut sections: Vec<(usize, String)> = vec![(0, String::new())];
    let mut in_fence = false;
    for (index, line) in lines.iter().enumerate() {
        if is_fence(line) {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if let Some(title) = heading(line) {
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
}
