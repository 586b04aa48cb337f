//! Finding references to tools and fields in a paragraph of prose.
//!
//! - A tool: a word or inline code span that is a tool's name or alias. An unknown
//!   tool: a `PascalCase` name of two words or more (`ExecComand`) that is an inline
//!   code span by itself, or a bare word right before `tool` or `tools`; or any
//!   capitalized word (`Slep`) right after `call`, `calls`, `calling` or `tool`.
//! - A field with a value: an inline code span `field: value` or `field=value`, or a
//!   bare `field=value` word. The field is `snake_case`; the value is read as JSON when
//!   it parses (`0`, `true`, `"x"`) and as a bare word otherwise (`reuse_running`).
//! - A field said to have a value: `` `field` is `value` ``. Only the value is checked
//!   (the phrase is too common to hold an unknown field against the text).
//! - A bare name: any other inline code span that is `snake_case` of two words or more
//!   (`page_token`); the checker holds it against the tools of its paragraph.

use serde_json::Value;

use crate::defaults::is_field_name;
use crate::markdown::code_spans;

/// One reference, at a byte offset of the paragraph.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reference<'t> {
    /// A tool's name; `known` when the registry has it.
    Tool {
        offset: usize,
        name: &'t str,
        known: bool,
    },
    /// A field with a value.
    Field {
        offset: usize,
        /// The mention as written.
        text: &'t str,
        name: &'t str,
        value: Value,
        /// Whether the value was a bare word rather than a JSON literal.
        bare: bool,
        /// Whether an unknown field name is a finding (false for `` `f` is `v` ``).
        strict: bool,
    },
    /// A `snake_case` code span of two words or more, without a value: a field, an
    /// enum value, or a name of the envelope, as the checker decides.
    Name { offset: usize, name: &'t str },
}

impl Reference<'_> {
    /// Where the reference starts.
    pub fn offset(&self) -> usize {
        match self {
            Self::Tool { offset, .. } | Self::Field { offset, .. } | Self::Name { offset, .. } => {
                *offset
            }
        }
    }
}

/// Whether `word` is `snake_case` of two words or more (`page_token`, not `cmd`: a
/// lone lowercase word in code is as often a command or a value as a field).
pub(crate) fn is_compound_snake_case(word: &str) -> bool {
    is_field_name(word)
        && !word.starts_with('_')
        && !word.ends_with('_')
        && !word.contains("__")
        && word.contains('_')
}

/// Whether `word` is `PascalCase` of two words or more (`ExecCommand`, not `JSON`,
/// `Use` or `SIGTERM`).
pub(crate) fn is_pascal_case(word: &str) -> bool {
    let humps = word
        .char_indices()
        .filter(|(i, c)| {
            c.is_ascii_uppercase()
                && word[i + 1..]
                    .chars()
                    .next()
                    .is_some_and(|n| n.is_ascii_lowercase() || n.is_ascii_digit())
        })
        .count();
    word.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && word.chars().all(|c| c.is_ascii_alphanumeric())
        && humps >= 2
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `name: value` or `name=value`, split; the value read as JSON when it parses.
fn field_with_value(text: &str) -> Option<(&str, Value, bool)> {
    let (name, value) = match text.find('=') {
        Some(eq) if !text[..eq].contains(':') => (&text[..eq], &text[eq + 1..]),
        _ => {
            let colon = text.find(": ")?;
            (&text[..colon], &text[colon + 2..])
        }
    };
    let (name, value) = (name.trim(), value.trim());
    if !is_field_name(name) || value.is_empty() {
        return None;
    }
    Some(match serde_json::from_str(value) {
        Ok(parsed) => (name, parsed, false),
        Err(_) => (
            name,
            Value::String(value.trim_matches(['"', '\'']).to_string()),
            true,
        ),
    })
}

/// The references of `text`, in order; `is_tool` says whether a name is a tool's.
pub(crate) fn references<'t>(text: &'t str, is_tool: &dyn Fn(&str) -> bool) -> Vec<Reference<'t>> {
    let spans = code_spans(text);
    let mut found = Vec::new();
    // The value span of `` `field` is `value` `` is read with its field.
    let mut value_of_previous = false;
    for (index, span) in spans.iter().enumerate() {
        let content = span.content.trim();
        if std::mem::take(&mut value_of_previous) {
            continue;
        }
        if is_tool(content) || is_pascal_case(content) {
            let known = is_tool(content);
            found.push(Reference::Tool {
                offset: span.start,
                name: content,
                known,
            });
        } else if let Some((name, value, bare)) = field_with_value(content) {
            found.push(Reference::Field {
                offset: span.start,
                text: content,
                name,
                value,
                bare,
                strict: true,
            });
        } else if is_field_name(content)
            && let Some(next) = spans.get(index + 1)
            && text[span.end..next.start].trim() == "is"
        {
            let (value, bare) = match serde_json::from_str(next.content) {
                Ok(value) => (value, false),
                Err(_) => (Value::String(next.content.to_string()), true),
            };
            found.push(Reference::Field {
                offset: span.start,
                text: &text[span.start..next.end],
                name: content,
                value,
                bare,
                strict: false,
            });
            value_of_previous = true;
        } else if is_compound_snake_case(content) {
            found.push(Reference::Name {
                offset: span.start,
                name: content,
            });
        }
    }
    // Bare words, outside code spans.
    let mut words: Vec<(usize, &str)> = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let in_word = is_word_char(c) || (start.is_some() && matches!(c, '=' | '-' | '.'));
        match (start, in_word) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                words.push((s, text[s..i].trim_end_matches(['.', '-'])));
                start = None;
            }
            _ => {}
        }
    }
    words.retain(|(at, _)| !spans.iter().any(|s| s.start <= *at && *at < s.end));
    for (index, (offset, word)) in words.iter().enumerate() {
        let (offset, word) = (*offset, *word);
        if let Some((name, value, bare)) =
            word.contains('=').then(|| field_with_value(word)).flatten()
        {
            found.push(Reference::Field {
                offset,
                text: word,
                name,
                value,
                bare,
                strict: true,
            });
            continue;
        }
        if is_tool(word) {
            found.push(Reference::Tool {
                offset,
                name: word,
                known: true,
            });
            continue;
        }
        let before = index
            .checked_sub(1)
            .map(|i| words[i].1.to_ascii_lowercase());
        let after = words.get(index + 1).map(|(_, w)| w.to_ascii_lowercase());
        let called = before
            .as_deref()
            .is_some_and(|w| matches!(w, "call" | "calls" | "calling" | "tool"));
        let tooled = after
            .as_deref()
            .is_some_and(|w| matches!(w, "tool" | "tools"));
        let capitalized = word.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && word.chars().any(|c| c.is_ascii_lowercase())
            && word.chars().all(|c| c.is_ascii_alphanumeric());
        // "Every tool" and "Each tool" are English: before `tool`, a name must be
        // PascalCase; after `call`, any capitalized word is taken for a name.
        if (capitalized && called) || (is_pascal_case(word) && tooled) {
            found.push(Reference::Tool {
                offset,
                name: word,
                known: false,
            });
        }
    }
    found.sort_by_key(Reference::offset);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str) -> bool {
        matches!(name, "ExecCommand" | "TaskList")
    }

    #[test]
    fn finds_tools_and_fields() {
        let text = "Call ExecCommand with `tty: true` and yield_time_ms=0; the `ExecComand` \
                    tool, call ReadFile, the JavaScript runtime, `disposition` is `completed`, \
                    `page_token`, `cmd`, `_private`.";
        let found = references(text, &tool);
        let summary: Vec<String> = found
            .iter()
            .map(|r| match r {
                Reference::Tool { name, known, .. } => format!("tool {name} {known}"),
                Reference::Field {
                    name,
                    value,
                    strict,
                    ..
                } => format!("field {name}={value} {strict}"),
                Reference::Name { name, .. } => format!("name {name}"),
            })
            .collect();
        assert_eq!(
            summary,
            [
                "tool ExecCommand true",
                "field tty=true true",
                "field yield_time_ms=0 true",
                "tool ExecComand false",
                "tool ReadFile false",
                "field disposition=\"completed\" false",
                "name page_token",
            ]
        );
    }

    #[test]
    fn pascal_case_needs_two_words() {
        assert!(is_pascal_case("ExecCommand"));
        assert!(is_pascal_case("Http2Server"));
        assert!(!is_pascal_case("Sleep"));
        assert!(!is_pascal_case("SIGTERM"));
        assert!(!is_pascal_case("JSON"));
        assert!(!is_pascal_case("exec_command"));
    }
}
