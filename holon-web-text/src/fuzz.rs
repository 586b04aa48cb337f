//! The fuzz target's harness (`fuzz/`, cargo-fuzz) and its corpus replay: any text
//! goes through the bounded parse, the rendering of what it built, and the nesting
//! pre-scan. A finding is a panic.

use crate::bounded_parse::{self, CHUNK_BYTES};
use crate::nesting;

/// The depth bound of the parse under fuzzing: small, so that inputs of a few KiB get
/// past it and its cut is exercised, not only the parse.
pub const PARSE_DEPTH: usize = 32;

/// The depth bound of the pre-scan under fuzzing.
pub const FLATTEN_DEPTH: usize = 8;

/// `html_nesting`: the bytes, as UTF-8 (invalid sequences become U+FFFD), are parsed
/// with the depth bound; the parse returns, its tree is no deeper than the bound plus
/// what one chunk of input can add, and its rendering does not panic. The pre-scan
/// returns text no longer than its input.
pub fn html_nesting(data: &[u8]) {
    let html = String::from_utf8_lossy(data);

    let parsed = bounded_parse::parse(&html, PARSE_DEPTH);
    let depth = bounded_parse::deepest(&parsed.dom.document);
    assert!(
        depth <= PARSE_DEPTH + CHUNK_BYTES,
        "the tree is {depth} deep, over {PARSE_DEPTH} + {CHUNK_BYTES} (cut at {:?})",
        parsed.cut_at
    );
    if let Some(cut_at) = parsed.cut_at {
        assert!(
            cut_at < html.len() && html.is_char_boundary(cut_at),
            "cut at {cut_at} of {}",
            html.len()
        );
    }
    let config = html2text::config::plain();
    if let Ok(tree) = config.dom_to_render_tree(&parsed.dom) {
        // Errors are answers (the caller returns the markup), not findings.
        let _ = config.render_to_string(tree, 80);
    }

    let (flat, dropped) = nesting::flatten(&html, FLATTEN_DEPTH);
    // A `String` is valid UTF-8 by construction: the check is that every cut fell on a
    // character boundary (slicing elsewhere panics), and that only tags were taken out.
    assert!(
        flat.len() <= html.len(),
        "flattened to {} bytes from {}",
        flat.len(),
        html.len()
    );
    assert!(dropped == 0 || flat.len() < html.len(), "{dropped} dropped");
}

#[cfg(test)]
mod tests {
    // The corpus is read with std::fs.
    #![cfg_attr(test, allow(clippy::disallowed_methods))]

    use std::path::Path;

    #[test]
    fn the_html_nesting_corpus_replays() {
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/html_nesting");
        let mut inputs: Vec<_> = std::fs::read_dir(&corpus)
            .unwrap_or_else(|error| panic!("{}: {error}", corpus.display()))
            .map(|entry| entry.expect("a corpus entry").path())
            .collect();
        inputs.sort();
        assert!(inputs.len() >= 10, "the html_nesting corpus is missing");
        for path in &inputs {
            super::html_nesting(&std::fs::read(path).expect("a corpus file"));
        }
    }
}
