//! Whether `#[holon_tool]` sits on an associated fn inside an `impl` block.
//!
//! An attribute sees only its item, not where the item is, and inside an `impl` the
//! generated code cannot name the handler: rustc would answer "cannot find function".
//! So the macro reads the source file the handler is in (rustc gives the file and line
//! of its name) and looks at which braces enclose that line. The scan knows comments,
//! string and char literals; it is done once per file and compilation.

// Compile-time I/O of the tool author's own crate: the source file being expanded.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;

use proc_macro2::Span;

/// The innermost braces around a point of a file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Enclosing {
    /// The braces of an `impl` or `trait`: items there are associated items.
    Associated,
    /// Any other braces (a module, a fn body), or none.
    Other,
}

thread_local! {
    /// Per file (and its length, so that an edited file is read again by a long-lived
    /// macro server): the innermost braces at the start of each line.
    static SCANNED: RefCell<HashMap<(PathBuf, u64), Vec<Enclosing>>> = RefCell::new(HashMap::new());
}

/// Whether the item whose name is at `span` is directly inside an `impl` or `trait`.
/// `false` when the source cannot be read (the code then compiles as it would).
pub(crate) fn is_associated(span: Span) -> bool {
    if !proc_macro::is_available() {
        return false;
    }
    let span = span.unwrap();
    let Some(path) = span.local_file() else {
        return false;
    };
    let Ok(length) = std::fs::metadata(&path).map(|metadata| metadata.len()) else {
        return false;
    };
    let line = span.line();
    SCANNED.with(|scanned| {
        let mut scanned = scanned.borrow_mut();
        let lines = scanned.entry((path.clone(), length)).or_insert_with(|| {
            std::fs::read_to_string(&path).map_or_else(|_| Vec::new(), |text| scan(&text))
        });
        lines.get(line.wrapping_sub(1)) == Some(&Enclosing::Associated)
    })
}

/// The innermost braces at the start of every line of `source`.
fn scan(source: &str) -> Vec<Enclosing> {
    let chars: Vec<char> = source.chars().collect();
    let mut lines = vec![Enclosing::Other];
    let mut stack: Vec<Enclosing> = Vec::new();
    // The first word of the item or statement being read at the current depth.
    let mut first_word: Option<String> = None;
    let mut i = 0;
    let innermost = |stack: &[Enclosing]| stack.last().copied().unwrap_or(Enclosing::Other);
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\n' => lines.push(innermost(&stack)),
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i + 1 < chars.len() && chars[i + 1] != '\n' {
                    i += 1;
                }
            }
            '/' if chars.get(i + 1) == Some(&'*') => {
                let mut depth = 0;
                while i < chars.len() {
                    if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 1;
                    } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 1;
                        if depth == 0 {
                            break;
                        }
                    } else if chars[i] == '\n' {
                        lines.push(innermost(&stack));
                    }
                    i += 1;
                }
            }
            '"' => i = skip_string(&chars, i, 0, &mut lines, innermost(&stack)),
            'r' if raw_string_hashes(&chars, i).is_some() => {
                let hashes = raw_string_hashes(&chars, i).unwrap_or(0);
                i = skip_string(
                    &chars,
                    i + 1 + hashes,
                    hashes,
                    &mut lines,
                    innermost(&stack),
                );
            }
            '\'' => i = skip_char(&chars, i),
            '{' => {
                let kind = match first_word.as_deref() {
                    Some("impl" | "trait") => Enclosing::Associated,
                    _ => Enclosing::Other,
                };
                stack.push(kind);
                first_word = None;
            }
            '}' => {
                stack.pop();
                first_word = None;
            }
            ';' => first_word = None,
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i + 1 < chars.len() && (chars[i + 1].is_alphanumeric() || chars[i + 1] == '_')
                {
                    i += 1;
                }
                let word: String = chars[start..=i].iter().collect();
                // Qualifiers before the keyword that opens the item.
                if first_word.is_none()
                    && !matches!(word.as_str(), "pub" | "unsafe" | "default" | "crate")
                {
                    first_word = Some(word);
                }
            }
            '#' => {
                // An attribute: skip its brackets, which may hold any tokens.
                let mut j = i + 1;
                if chars.get(j) == Some(&'!') {
                    j += 1;
                }
                if chars.get(j) == Some(&'[') {
                    let mut depth = 0;
                    while j < chars.len() {
                        match chars[j] {
                            '[' => depth += 1,
                            ']' => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            '"' => j = skip_string(&chars, j, 0, &mut lines, innermost(&stack)),
                            '\n' => lines.push(innermost(&stack)),
                            _ => {}
                        }
                        j += 1;
                    }
                    i = j;
                }
            }
            _ => {}
        }
        i += 1;
    }
    lines
}

/// The number of `#` of a raw string starting at `i` (`r"`, `r#"`, ...), if one does.
fn raw_string_hashes(chars: &[char], i: usize) -> Option<usize> {
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return None;
    }
    let mut j = i + 1;
    while chars.get(j) == Some(&'#') {
        j += 1;
    }
    (chars.get(j) == Some(&'"')).then_some(j - i - 1)
}

/// Skips a string whose opening quote is at `i`, closed by a quote and `hashes` `#`s;
/// returns the index of its last character.
fn skip_string(
    chars: &[char],
    i: usize,
    hashes: usize,
    lines: &mut Vec<Enclosing>,
    inside: Enclosing,
) -> usize {
    let mut j = i + 1;
    while j < chars.len() {
        match chars[j] {
            '\\' if hashes == 0 => j += 1,
            '\n' => lines.push(inside),
            '"' if (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) => return j + hashes,
            _ => {}
        }
        j += 1;
    }
    j
}

/// Skips a char literal at `i` (`'a'`, `'\n'`, `'\u{1F600}'`), or only the quote of a
/// lifetime (`'a`); returns the index of the last character skipped.
fn skip_char(chars: &[char], i: usize) -> usize {
    match (chars.get(i + 1), chars.get(i + 2)) {
        (Some('\\'), _) => {
            let mut j = i + 2;
            while j < chars.len() && chars[j] != '\'' {
                j += 1;
            }
            j
        }
        (Some(_), Some('\'')) => i + 2,
        _ => i,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn associated_lines(source: &str) -> Vec<usize> {
        scan(source)
            .iter()
            .enumerate()
            .filter(|(_, enclosing)| **enclosing == Enclosing::Associated)
            .map(|(index, _)| index + 1)
            .collect()
    }

    #[test]
    fn finds_the_lines_directly_inside_impls_and_traits() {
        let source = r##"mod m {
    fn free() {}
}
impl S {
    fn associated() {
        fn local() {}
    }
    const X: &str = "} impl T {";
}
// impl U {
fn after() { let c = '}'; let l: &'static str = r#"{"#; }
#[doc = "}"]
pub(crate) unsafe impl<T> Tr for W<T> where T: Copy {
    fn f() {}
}
trait Q {
    fn g();
}
"##;
        assert_eq!(associated_lines(source), vec![5, 8, 9, 14, 15, 17, 18]);
    }
}
