//! Finding where a chunk's lines are in a file: exactly first, then ignoring trailing
//! white space, then ignoring surrounding white space. When nothing matches, the
//! closest window is reported so the model can fix its patch.

/// How strictly lines are compared, from strictest to loosest.
const PASSES: [fn(&str, &str) -> bool; 3] = [
    |a, b| a == b,
    |a, b| a.trim_end() == b.trim_end(),
    |a, b| a.trim() == b.trim(),
];

fn matches_at(
    lines: &[String],
    at: usize,
    wanted: &[String],
    same: fn(&str, &str) -> bool,
) -> bool {
    at + wanted.len() <= lines.len()
        && lines[at..at + wanted.len()]
            .iter()
            .zip(wanted)
            .all(|(line, want)| same(line, want))
}

/// The index where `wanted` starts, at or after `from`. With a `hint` (a 0-based
/// index), the match closest to it wins; with `at_end`, only a match that ends the
/// file counts.
pub(crate) fn find(
    lines: &[String],
    wanted: &[String],
    from: usize,
    hint: Option<usize>,
    at_end: bool,
) -> Option<usize> {
    if wanted.len() > lines.len() {
        return None;
    }
    let last = lines.len() - wanted.len();
    if from > last {
        return None;
    }
    for same in PASSES {
        if at_end {
            if matches_at(lines, last, wanted, same) {
                return Some(last);
            }
            continue;
        }
        let found = match hint {
            Some(hint) => (from..=last)
                .filter(|at| matches_at(lines, *at, wanted, same))
                .min_by_key(|at| at.abs_diff(hint)),
            None => (from..=last).find(|at| matches_at(lines, *at, wanted, same)),
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Finds a single line (a chunk's `@@` anchor) at or after `from`.
pub(crate) fn find_line(lines: &[String], wanted: &str, from: usize) -> Option<usize> {
    PASSES.iter().find_map(|same| {
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
pub(crate) fn nearest(lines: &[String], wanted: &[String]) -> Option<(usize, usize)> {
    if wanted.is_empty() || lines.is_empty() {
        return None;
    }
    let windows = lines.len().saturating_sub(wanted.len()) + 1;
    (0..windows)
        .map(|start| {
            let score = wanted
                .iter()
                .zip(&lines[start..])
                .filter(|(want, line)| want.trim() == line.trim())
                .count();
            (start, score)
        })
        .filter(|(_, score)| *score > 0)
        .max_by_key(|(start, score)| (*score, std::cmp::Reverse(*start)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn exact_then_loose_matching() {
        let file = lines("a\nb  \nc\nb\nc");
        assert_eq!(find(&file, &lines("b\nc"), 0, None, false), Some(3));
        assert_eq!(find(&file, &lines("b\nc"), 0, Some(1), false), Some(3));
        assert_eq!(find(&file, &lines("b  \nc"), 0, None, false), Some(1));
        assert_eq!(find(&file, &lines("  b\nc"), 2, None, false), Some(3));
        assert_eq!(find(&file, &lines("b\nc"), 0, None, true), Some(3));
        assert_eq!(find(&file, &lines("x"), 0, None, false), None);
    }

    #[test]
    fn nearest_window_is_reported() {
        let file = lines("fn a() {\n    one();\n}\nfn b() {\n    two();\n}");
        assert_eq!(
            nearest(&file, &lines("fn b() {\n    three();\n}")),
            Some((3, 2))
        );
        assert_eq!(nearest(&file, &lines("nothing like it")), None);
    }
}
