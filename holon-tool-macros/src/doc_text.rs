//! Turns a handler's doc comment (rustdoc Markdown) into the text a model reads.
//!
//! rustdoc source is written for 90-column editors and for rustdoc: lines break
//! mid-sentence, links name Rust paths, and `# Examples` sections and code blocks
//! document the Rust function, not the tool. The model gets each paragraph on one
//! line, paragraph breaks, list items, table rows and `\` line breaks kept, intra-doc
//! links as their text, and
//! without those sections and code blocks unless the author keeps them
//! (`#[holon_tool(keep_doc_sections)]`).
//!
//! Scanned by hand rather than with `pulldown-cmark` (which holon-lint and the memory
//! index use): in this proc macro it would add three crates to every tool author's
//! build (the one-tool server's tree: 121 -> 124).

/// The rustdoc sections about the Rust function rather than the tool.
const RUST_SECTIONS: &[&str] = &["examples", "example", "panics", "errors", "safety"];

/// The model-facing text of `doc` (lines with the comment's leading space removed).
pub(crate) fn model_text(doc: &str, keep_sections: bool) -> String {
    let mut blocks: Vec<String> = Vec::new();
    // The paragraph or list item being joined.
    let mut current: Option<String> = None;
    // The closing marker of the code block being read, and its lines (the opening
    // one first).
    let mut fence: Option<(String, Vec<String>)> = None;
    // The heading level of a dropped section, while inside it.
    let mut dropped_section: Option<usize> = None;

    let lines: Vec<&str> = doc.lines().collect();
    // Whether the line being read is a row of a table: its rows stay one a line.
    let mut in_table = false;
    for (index, &line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if let Some((marker, body)) = &mut fence {
            if trimmed.starts_with(marker.as_str()) {
                body.push(trimmed.to_string());
                let body = std::mem::take(body);
                fence = None;
                if keep_sections && dropped_section.is_none() {
                    blocks.push(body.join("\n"));
                }
            } else {
                body.push(line.to_string());
            }
            continue;
        }
        if let Some(marker) = fence_marker(trimmed) {
            flush(&mut current, &mut blocks, dropped_section.is_some());
            fence = Some((marker, vec![trimmed.to_string()]));
            continue;
        }
        if let Some(level) = heading_level(trimmed) {
            flush(&mut current, &mut blocks, dropped_section.is_some());
            if dropped_section.is_some_and(|dropped| level <= dropped) {
                dropped_section = None;
            }
            let title = trimmed[level..].trim().to_ascii_lowercase();
            if !keep_sections && RUST_SECTIONS.contains(&title.as_str()) {
                dropped_section = Some(level);
            } else if dropped_section.is_none() {
                blocks.push(render_inline(trimmed));
            }
            continue;
        }
        if trimmed.is_empty() {
            in_table = false;
            flush(&mut current, &mut blocks, dropped_section.is_some());
            continue;
        }
        // A table starts at a row followed by its delimiter row (`|---|:--:|`) and
        // ends at a blank line, as in GitHub's Markdown.
        let starts_table = trimmed.contains('|')
            && lines
                .get(index + 1)
                .is_some_and(|next| is_delimiter_row(next.trim()));
        if starts_table || in_table {
            if starts_table && !in_table {
                flush(&mut current, &mut blocks, dropped_section.is_some());
                in_table = true;
            }
            match &mut current {
                Some(table) => {
                    table.push('\n');
                    table.push_str(&render_inline(trimmed));
                }
                None => current = Some(render_inline(trimmed)),
            }
            continue;
        }
        if is_list_item(trimmed) {
            flush(&mut current, &mut blocks, dropped_section.is_some());
            // A list item keeps its indentation, so that nested lists stay nested.
            let indent = &line[..line.len() - line.trim_start().len()];
            current = Some(format!("{indent}{trimmed}"));
            continue;
        }
        match &mut current {
            // A line ending in `\` is a hard line break.
            Some(text) if text.ends_with('\\') => {
                text.pop();
                text.push('\n');
                text.push_str(trimmed);
            }
            Some(text) => {
                text.push(' ');
                text.push_str(trimmed);
            }
            None => current = Some(trimmed.to_string()),
        }
    }
    if let Some((_, body)) = fence
        && keep_sections
        && dropped_section.is_none()
    {
        blocks.push(body.join("\n"));
    }
    flush(&mut current, &mut blocks, dropped_section.is_some());
    join_blocks(&blocks)
}

/// Paragraphs are separated by a blank line; consecutive list items by a newline.
fn join_blocks(blocks: &[String]) -> String {
    let mut text = String::new();
    for (index, block) in blocks.iter().enumerate() {
        if index > 0 {
            let both_items =
                is_list_item(blocks[index - 1].trim_start()) && is_list_item(block.trim_start());
            text.push_str(if both_items { "\n" } else { "\n\n" });
        }
        text.push_str(block);
    }
    text
}

fn flush(current: &mut Option<String>, blocks: &mut Vec<String>, dropped: bool) {
    if let Some(text) = current.take()
        && !dropped
    {
        blocks.push(render_inline(&text));
    }
}

/// Whether `line` is a table's delimiter row: cells of dashes, each with an optional
/// colon at either end, between pipes (`|---|:--:|`, `--- | ---`).
fn is_delimiter_row(line: &str) -> bool {
    let inner = line.strip_prefix('|').unwrap_or(line);
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let cells: Vec<&str> = inner.split('|').map(str::trim).collect();
    line.contains('|')
        && cells.iter().all(|cell| {
            let dashes = cell.strip_prefix(':').unwrap_or(cell);
            let dashes = dashes.strip_suffix(':').unwrap_or(dashes);
            !dashes.is_empty() && dashes.bytes().all(|byte| byte == b'-')
        })
}

fn fence_marker(line: &str) -> Option<String> {
    ["```", "~~~"]
        .into_iter()
        .find(|marker| line.starts_with(marker))
        .map(|marker| {
            let count = line.chars().take_while(|c| marker.starts_with(*c));
            count.collect()
        })
}

fn heading_level(line: &str) -> Option<usize> {
    let level = line.chars().take_while(|c| *c == '#').count();
    (1..=6)
        .contains(&level)
        .then_some(level)
        .filter(|level| line[*level..].starts_with(' '))
}

fn is_list_item(line: &str) -> bool {
    if let Some(rest) = line.strip_prefix(['-', '*', '+']) {
        return rest.starts_with(' ');
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && line[digits..].starts_with(". ") | line[digits..].starts_with(") ")
}

/// Intra-doc links become their text: `[`Registry`]`, `[text](crate::path)` and
/// `[text][`path`]` read as `` `Registry` `` and `text`. Links to URLs and anything in
/// backticks stay as written.
fn render_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(position) = rest.find(['`', '[']) {
        out.push_str(&rest[..position]);
        rest = &rest[position..];
        if rest.starts_with('`') {
            // A code span: copied as is, up to its closing run of backticks.
            let run = rest.chars().take_while(|c| *c == '`').count();
            let fence = &rest[..run];
            match rest[run..].find(fence) {
                Some(end) => {
                    let end = run + end + run;
                    out.push_str(&rest[..end]);
                    rest = &rest[end..];
                }
                None => {
                    out.push_str(rest);
                    rest = "";
                }
            }
            continue;
        }
        match link(rest) {
            Some((shown, consumed)) => {
                out.push_str(&shown);
                rest = &rest[consumed..];
            }
            None => {
                out.push('[');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// At `[`: the text an intra-doc link shows and how many bytes it spans, or `None`
/// when it is not an intra-doc link.
fn link(text: &str) -> Option<(String, usize)> {
    let close = matching_bracket(text)?;
    let label = &text[1..close];
    let after = &text[close + 1..];
    if let Some(target) = after.strip_prefix('(') {
        let end = target.find(')')?;
        let target = &target[..end];
        return is_rust_path(target).then(|| (label.to_string(), close + 2 + end + 1));
    }
    if let Some(target) = after.strip_prefix('[') {
        let end = target.find(']')?;
        return Some((label.to_string(), close + 2 + end + 1));
    }
    is_rust_path(label).then(|| (label.to_string(), close + 1))
}

fn matching_bracket(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (index, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(index);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether a link target (or a bare `[label]`) names a Rust item: `Foo`,
/// `` `crate::Foo::bar()` ``, `macro@holon_tool`, `Self::new`.
fn is_rust_path(target: &str) -> bool {
    let target = target.trim().trim_matches('`');
    let target = target
        .split_once('@')
        .map_or(target, |(namespace, path)| match namespace {
            "struct" | "enum" | "trait" | "fn" | "mod" | "macro" | "type" | "const" | "method" => {
                path
            }
            _ => "",
        });
    let target = target
        .strip_suffix("()")
        .or_else(|| target.strip_suffix('!'))
        .unwrap_or(target);
    !target.is_empty()
        && !target.starts_with(':')
        && target
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | ':' | '<' | '>'))
        && target
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::model_text;

    #[test]
    fn paragraphs_are_reflowed_and_kept_apart() {
        let doc = "Sends `text` back, repeated\n`times` times.\n\nUse it to check that calls\nreach the runtime.";
        assert_eq!(
            model_text(doc, false),
            "Sends `text` back, repeated `times` times.\n\nUse it to check that calls reach the runtime."
        );
    }

    #[test]
    fn lists_keep_one_item_a_line() {
        let doc =
            "Modes:\n- `sum`: adds the\n  weights;\n- `max`: the heaviest.\n  1. nested\nAfter.";
        assert_eq!(
            model_text(doc, false),
            "Modes:\n\n- `sum`: adds the weights;\n- `max`: the heaviest.\n  1. nested After."
        );
    }

    #[test]
    fn table_rows_stay_one_a_line() {
        let doc = "Modes:\n\n| mode | shows |\n|---|:---:|\n| `full` | every line |\n| [`Brief`] | the head |\n\nAfter the\ntable.\n\nno | pipes\n--- | ---\na | b";
        assert_eq!(
            model_text(doc, false),
            "Modes:\n\n| mode | shows |\n|---|:---:|\n| `full` | every line |\n| `Brief` | the head |\n\nAfter the table.\n\nno | pipes\n--- | ---\na | b"
        );
        // A line break written as `\` is kept; a lone `|` in prose is prose.
        assert_eq!(
            model_text("One\\\ntwo, a | b\nthree.", false),
            "One\ntwo, a | b three."
        );
    }

    #[test]
    fn intra_doc_links_become_their_text() {
        let doc = "See [`Registry`], [the registry](crate::Registry), [text][`ToolContext::state`], \
                   [`macro@holon_tool`] and [a URL](https://example.org); `[not] a link` and [1, 2].";
        assert_eq!(
            model_text(doc, false),
            "See `Registry`, the registry, text, `macro@holon_tool` and [a URL](https://example.org); \
             `[not] a link` and [1, 2]."
        );
    }

    #[test]
    fn rust_sections_and_code_blocks_are_dropped_unless_kept() {
        let doc = "Does a thing.\n\n```\nlet x = 1;\n```\n\n# Examples\n\nCall it.\n\n```rust\nthing();\n```\n\n# Errors\n\nWhen it fails.\n\n# Notes\n\nKept.";
        assert_eq!(model_text(doc, false), "Does a thing.\n\n# Notes\n\nKept.");
        assert_eq!(
            model_text(doc, true),
            "Does a thing.\n\n```\nlet x = 1;\n```\n\n# Examples\n\nCall it.\n\n```rust\nthing();\n```\n\n# Errors\n\nWhen it fails.\n\n# Notes\n\nKept."
        );
    }
}
