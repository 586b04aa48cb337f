//! Finding where a chunk's lines are in a file, in passes from strict to loose: a
//! unified diff's lines exactly (bytes and terminators, as `git apply`), the
//! envelope format's lines by their text; then ignoring trailing, then surrounding
//! white space; the envelope format last also folds Unicode dashes, quotes and
//! spaces to ASCII (as Codex does). When nothing matches, the closest window is
//! reported so the model can fix its patch.

use super::model::Surface;

/// Compares a file's line with a patch's line.
pub(crate) type Same = fn(&[u8], &[u8]) -> bool;

/// A line without its terminator (`\n` or `\r\n`).
pub(crate) fn text(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn folded(line: &[u8]) -> String {
    String::from_utf8_lossy(line.trim_ascii())
        .chars()
        .map(|c| match c {
            '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{fe58}' | '\u{fe63}' | '\u{ff0d}' => '-',
            '\u{2018}'..='\u{201b}' => '\'',
            '\u{201c}'..='\u{201f}' => '"',
            '\u{00a0}' | '\u{2002}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}' => ' ',
            other => other,
        })
        .collect::<String>()
        .trim()
        .to_string()
}

/// A line with a final newline and one without never match, loosely or not: a missing
/// final newline is not white space (`git apply` refuses it).
const UNIFIED: [Same; 3] = [
    |a, b| a == b,
    |a, b| same_end(a, b) && a.trim_ascii_end() == b.trim_ascii_end(),
    |a, b| same_end(a, b) && a.trim_ascii() == b.trim_ascii(),
];

/// Whether both lines end with `\n`, or neither.
fn same_end(a: &[u8], b: &[u8]) -> bool {
    a.ends_with(b"\n") == b.ends_with(b"\n")
}

const ENVELOPE: [Same; 4] = [
    |a, b| text(a) == text(b),
    |a, b| a.trim_ascii_end() == b.trim_ascii_end(),
    |a, b| a.trim_ascii() == b.trim_ascii(),
    |a, b| folded(a) == folded(b),
];

/// The passes of a surface; the first is the exact one.
pub(crate) fn passes(surface: Surface) -> &'static [Same] {
    match surface {
        Surface::Unified => &UNIFIED,
        Surface::Envelope => &ENVELOPE,
    }
}

pub(crate) fn matches_at(
    lines: &[&[u8]],
    at: usize,
    wanted: &[&[u8]],
    same: Same,
    open_end: bool,
) -> bool {
    let Some(window) = lines.get(at..at + wanted.len()) else {
        return false;
    };
    window
        .iter()
        .zip(wanted)
        .enumerate()
        .all(|(index, (line, want))| {
            same(line, want)
                || (open_end
                    && index + 1 == wanted.len()
                    && line
                        .strip_prefix(*want)
                        .is_some_and(|rest| rest.trim_ascii().is_empty()))
        })
}

/// Where a chunk may go.
pub(crate) struct Place {
    /// The first line it may start at (the end of the previous chunk).
    pub(crate) from: usize,
    /// Where it is expected: the match nearest to it wins (the later one of two at
    /// the same distance, as `git apply`); without one, the first match wins.
    pub(crate) hint: Option<usize>,
    pub(crate) at_start: bool,
    pub(crate) at_end: bool,
    /// The last wanted line has no newline but the chunk need not end the file: like
    /// `git apply`, which compares the chunk's bytes as a prefix, it also matches
    /// that line followed by white space and a newline.
    pub(crate) open_end: bool,
}

/// The index where `wanted` starts and the number of the pass that found it.
pub(crate) fn find(
    lines: &[&[u8]],
    wanted: &[&[u8]],
    place: &Place,
    passes: &[Same],
) -> Option<(usize, usize)> {
    if wanted.len() > lines.len() {
        return None;
    }
    let last = lines.len() - wanted.len();
    if place.from > last {
        return None;
    }
    for (pass, same) in passes.iter().enumerate() {
        let open_end = place.open_end && pass == 0;
        let found = if place.at_start || place.at_end {
            let at = if place.at_start { 0 } else { last };
            let fits = at >= place.from && (!place.at_end || at == last);
            (fits && matches_at(lines, at, wanted, *same, open_end)).then_some(at)
        } else {
            match place.hint {
                Some(hint) => {
                    let range = (place.from, hint.clamp(place.from, last), last);
                    nearest_match(lines, wanted, range, *same, open_end)
                }
                None => {
                    (place.from..=last).find(|at| matches_at(lines, *at, wanted, *same, open_end))
                }
            }
        };
        if let Some(at) = found {
            return Some((at, pass));
        }
    }
    None
}

/// Searches outward from `hint`: hint, hint+1, hint-1, hint+2, ...
fn nearest_match(
    lines: &[&[u8]],
    wanted: &[&[u8]],
    (from, hint, last): (usize, usize, usize),
    same: Same,
    open_end: bool,
) -> Option<usize> {
    let reach = (last - hint).max(hint - from);
    (0..=reach).find_map(|distance| {
        let forward = hint + distance;
        if forward <= last && matches_at(lines, forward, wanted, same, open_end) {
            return Some(forward);
        }
        let backward = hint.checked_sub(distance).filter(|at| *at >= from)?;
        (distance > 0 && matches_at(lines, backward, wanted, same, open_end)).then_some(backward)
    })
}

/// Finds a single line (a chunk's `@@` anchor) at or after `from`.
pub(crate) fn find_line(
    lines: &[&[u8]],
    wanted: &[u8],
    from: usize,
    passes: &[Same],
) -> Option<usize> {
    passes.iter().find_map(|same| {
        lines
            .iter()
            .enumerate()
            .skip(from)
            .find(|(_, line)| same(line, wanted))
            .map(|(index, _)| index)
    })
}

/// The window of the file most like `wanted`: its 0-based start and how many of its
/// lines match (ignoring surrounding white space).
pub(crate) fn nearest(lines: &[&[u8]], wanted: &[&[u8]]) -> Option<(usize, usize)> {
    if wanted.is_empty() || lines.is_empty() {
        return None;
    }
    let windows = lines.len().saturating_sub(wanted.len()) + 1;
    (0..windows)
        .map(|start| {
            let score = wanted
                .iter()
                .zip(&lines[start..])
                .filter(|(want, line)| want.trim_ascii() == line.trim_ascii())
                .count();
            (start, score)
        })
        .filter(|(_, score)| *score > 0)
        .max_by_key(|(start, score)| (*score, std::cmp::Reverse(*start)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<&[u8]> {
        text.as_bytes().split_inclusive(|b| *b == b'\n').collect()
    }

    fn anywhere(hint: Option<usize>) -> Place {
        Place {
            from: 0,
            hint,
            at_start: false,
            at_end: false,
            open_end: false,
        }
    }

    #[test]
    fn exact_then_loose_matching() {
        let file = lines("a\nb  \nc\nb\nc\n");
        let unified = passes(Surface::Unified);
        assert_eq!(
            find(&file, &lines("b\nc\n"), &anywhere(None), unified),
            Some((3, 0))
        );
        assert_eq!(
            find(&file, &lines("b\nc\n"), &anywhere(Some(1)), unified),
            Some((3, 0))
        );
        assert_eq!(
            find(&file, &lines("b  \nc\n"), &anywhere(None), unified),
            Some((1, 0))
        );
        let after_two = Place {
            from: 2,
            ..anywhere(None)
        };
        assert_eq!(
            find(&file, &lines("  b\nc\n"), &after_two, unified),
            Some((3, 2))
        );
        let at_end = Place {
            at_end: true,
            ..anywhere(None)
        };
        assert_eq!(
            find(&file, &lines("b\nc\n"), &at_end, unified),
            Some((3, 0))
        );
        let at_start = Place {
            at_start: true,
            ..anywhere(None)
        };
        assert_eq!(find(&file, &lines("b\nc\n"), &at_start, unified), None);
        assert_eq!(find(&file, &lines("x\n"), &anywhere(None), unified), None);
    }

    #[test]
    fn the_nearest_match_to_the_hint_wins() {
        let file = lines("x\ny\nx\ny\nx\n");
        let unified = passes(Surface::Unified);
        assert_eq!(
            find(&file, &lines("x\n"), &anywhere(Some(1)), unified),
            Some((2, 0))
        );
        assert_eq!(
            find(&file, &lines("x\n"), &anywhere(Some(4)), unified),
            Some((4, 0))
        );
    }

    #[test]
    fn the_envelope_format_folds_unicode_punctuation() {
        let file = lines("let s = \u{201c}hi\u{201d}; // a \u{2014} b\n");
        let envelope = passes(Surface::Envelope);
        assert_eq!(
            find(
                &file,
                &lines("let s = \"hi\"; // a - b\n"),
                &anywhere(None),
                envelope
            ),
            Some((0, 3))
        );
        assert_eq!(
            find(&lines("a\r\n"), &lines("a\n"), &anywhere(None), envelope),
            Some((0, 0))
        );
    }

    #[test]
    fn nearest_window_is_reported() {
        let file = lines("fn a() {\n    one();\n}\nfn b() {\n    two();\n}\n");
        assert_eq!(
            nearest(&file, &lines("fn b() {\n    three();\n}\n")),
            Some((3, 2))
        );
        assert_eq!(nearest(&file, &lines("nothing like it\n")), None);
    }
}
