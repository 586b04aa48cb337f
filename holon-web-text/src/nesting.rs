//! A linear pre-scan that bounds how deep HTML nests before the renderer sees it:
//! the tags of elements opened deeper than the bound are dropped (their text
//! stays), so a page of 30,000 nested `<div>`s renders as a shallow one. The scan
//! knows what changes depth in practice: comments and declarations, quoted
//! attributes, raw-text elements (`<script>`, `<style>`, ...), void and self-closed
//! elements, and the elements whose end tag is optional (`<p>`, `<li>`, `<td>`, ...).
//! It is not a tokenizer, and tags hidden from it get past it: the parse that follows
//! bounds depth by itself ([`super::bounded_parse`]); this scan keeps the text of
//! ordinary deep pages, which that bound would cut.

/// Elements that never have content.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// Elements whose content is text up to their end tag.
const RAW_TEXT: &[&str] = &[
    "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript",
];

/// Elements a new one of the same name closes (their end tag is optional).
const SELF_CLOSING_SIBLINGS: &[&str] = &[
    "p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "rb", "rt", "rp", "thead",
    "tbody", "tfoot",
];

/// How far down the open elements an end tag or a sibling looks for its match.
const MATCH_WINDOW: usize = 16;

/// `html` with the tags of elements nested deeper than `max_depth` removed, and
/// how many tags were removed.
pub fn flatten(html: &str, max_depth: usize) -> (String, usize) {
    let bytes = html.as_bytes();
    let mut out = String::with_capacity(html.len());
    // The names of the open elements; those at index >= max_depth were dropped.
    let mut open: Vec<String> = Vec::new();
    let mut dropped = 0;
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'<' {
            i += 1;
            continue;
        }
        let next = bytes.get(i + 1).copied().unwrap_or(0);
        let end = if html[i..].starts_with("<!--") {
            html[i + 4..]
                .find("-->")
                .map_or(bytes.len(), |at| i + 4 + at + 3)
        } else if next == b'!' || next == b'?' {
            tag_end(bytes, i)
        } else if next == b'/' && bytes.get(i + 2).is_some_and(u8::is_ascii_alphabetic) {
            let name = tag_name(bytes, i + 2);
            let end = tag_end(bytes, i);
            let keep = match find_open(&open, &name) {
                Some(at) => {
                    let keep = at < max_depth;
                    open.truncate(at);
                    keep
                }
                // An end tag with nothing to close: harmless to the depth.
                None => open.len() < max_depth,
            };
            if !keep {
                out.push_str(&html[copied..i]);
                copied = end;
                dropped += 1;
            }
            end
        } else if next.is_ascii_alphabetic() {
            let name = tag_name(bytes, i + 1);
            let end = tag_end(bytes, i);
            let self_closed = bytes[..end].ends_with(b"/>");
            if SELF_CLOSING_SIBLINGS.contains(&name.as_str())
                && let Some(at) = find_open(&open, &name)
            {
                open.truncate(at);
            }
            let mut end = end;
            if !self_closed && !VOID.contains(&name.as_str()) {
                if open.len() >= max_depth {
                    out.push_str(&html[copied..i]);
                    copied = end;
                    dropped += 1;
                }
                if RAW_TEXT.contains(&name.as_str()) {
                    // Its text runs to its end tag, which the loop then sees.
                    end = find_ascii_ci(html, end, &format!("</{name}")).unwrap_or(bytes.len());
                }
                open.push(name);
            }
            end
        } else {
            i + 1
        };
        i = end.max(i + 1);
    }
    out.push_str(&html[copied.min(html.len())..]);
    (out, dropped)
}

/// Where among the top [`MATCH_WINDOW`] open elements `name` is, from the top.
fn find_open(open: &[String], name: &str) -> Option<usize> {
    let floor = open.len().saturating_sub(MATCH_WINDOW);
    (floor..open.len()).rev().find(|&at| open[at] == name)
}

/// The lowercased tag name starting at `start`.
fn tag_name(bytes: &[u8], start: usize) -> String {
    bytes[start..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':'))
        .map(|b| char::from(b.to_ascii_lowercase()))
        .collect()
}

/// The index just past the `>` closing the tag that starts at `start`, skipping
/// quoted attribute values; the end of the input when it never closes.
fn tag_end(bytes: &[u8], start: usize) -> usize {
    let mut quote = None;
    for (offset, &byte) in bytes[start + 1..].iter().enumerate() {
        match (quote, byte) {
            (None, b'"' | b'\'') => quote = Some(byte),
            (Some(q), b) if b == q => quote = None,
            (None, b'>') => return start + 1 + offset + 1,
            _ => {}
        }
    }
    bytes.len()
}

/// The index of `needle` (ASCII, lowercase) in `html` from `from`, ignoring case.
fn find_ascii_ci(html: &str, from: usize, needle: &str) -> Option<usize> {
    let hay = &html.as_bytes()[from..];
    let needle = needle.as_bytes();
    hay.windows(needle.len())
        .position(|window| window.eq_ignore_ascii_case(needle))
        .map(|at| from + at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_nesting_is_cut_to_the_bound_and_text_stays() {
        let deep = format!("{}core{}", "<div>".repeat(1000), "</div>".repeat(1000));
        let (flat, dropped) = flatten(&deep, 8);
        assert_eq!(
            flat,
            format!("{}core{}", "<div>".repeat(8), "</div>".repeat(8))
        );
        assert_eq!(dropped, 2 * 992);
    }

    #[test]
    fn siblings_void_raw_text_and_comments_do_not_count_as_depth() {
        let page = "<ul><li>a<li>b<li>c</ul><p>x<p>y<br><img src='a>b'/>\
                    <script>if (a<b) { document.write('<div><div>') }</script>\
                    <!-- <div><div> --><p>z";
        let (flat, dropped) = flatten(page, 2);
        assert_eq!(flat, page);
        assert_eq!(dropped, 0);
    }

    #[test]
    fn shallow_pages_pass_unchanged() {
        let page = "<!doctype html><html><head><title>T</title></head>\
                    <body><div><p>one</p><table><tr><td>1<td>2<tr><td>3</table></div></body></html>";
        assert_eq!(flatten(page, 64), (page.to_string(), 0));
    }
}
