//! Stated defaults in prose: "defaults to 10,000 ms", "(default 20)", "default:
//! `reuse_running`", "Defaults to true."
//!
//! After the word `default` or `defaults`, an optional `to`, `is`, `of`, `:` or `=`,
//! comes the value: a number (`10,000`, `2.5`, `-1`) with an optional unit (`ms`,
//! `s`, `seconds`, `minutes`: converted for fields named `*_ms`, ignored otherwise),
//! `true`, `false`, `null`, a quoted string or an inline code span (read as JSON when
//! it parses, as a string otherwise). Anything else ("defaults to the workspace
//! root") states no checkable value and is skipped.

use serde_json::{Value, json};

use crate::markdown::{CodeSpan, code_spans};

/// A unit after a stated number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
    Millis,
    Seconds,
    Minutes,
}

/// A stated value before it is known which field it is about.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StatedValue {
    /// A number and its unit, if any.
    Number(f64, Option<Unit>),
    /// Any other JSON value.
    Literal(Value),
}

impl StatedValue {
    /// The value for the field `field`: a duration converted to milliseconds for a
    /// field whose name ends in `_ms`.
    pub fn resolve(&self, field: &str) -> Option<Value> {
        match self {
            Self::Literal(value) => Some(value.clone()),
            Self::Number(number, unit) => {
                let factor = match unit {
                    Some(Unit::Seconds) if field.ends_with("_ms") => 1_000.0,
                    Some(Unit::Minutes) if field.ends_with("_ms") => 60_000.0,
                    _ => 1.0,
                };
                let number = number * factor;
                Some(if number.fract() == 0.0 && number.abs() < 9e15 {
                    json!(number as i64)
                } else {
                    json!(number)
                })
            }
        }
    }
}

/// A default stated in a text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stated<'t> {
    /// Byte offset of the word `default`.
    pub offset: usize,
    /// The phrase, from `default` to the end of the value.
    pub phrase: &'t str,
    /// The value.
    pub value: StatedValue,
    /// Code spans naming a field (`snake_case`) earlier in the same sentence, the
    /// nearest first: which field the default is about.
    pub fields_before: Vec<&'t str>,
}

/// Every checkable default stated in `text` (outside code spans).
pub(crate) fn find(text: &str) -> Vec<Stated<'_>> {
    let spans = code_spans(text);
    let lower = text.to_ascii_lowercase();
    let mut found = Vec::new();
    for (offset, _) in lower.match_indices("default") {
        let inside_code = spans.iter().any(|s| s.start <= offset && offset < s.end);
        let word_start = text[..offset]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric() && c != '_');
        if inside_code || !word_start {
            continue;
        }
        let mut at = offset + "default".len();
        if lower[at..].starts_with('s') {
            at += 1;
        }
        if text[at..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        at = skip_connector(&lower, at);
        if let Some((value, end)) = value_at(text, at, &spans) {
            found.push(Stated {
                offset,
                phrase: &text[offset..end],
                value,
                fields_before: fields_before(text, offset, &spans),
            });
        }
    }
    found
}

fn skip_spaces(text: &str, at: usize) -> usize {
    at + (text.len() - at - text[at..].trim_start().len())
}

fn skip_connector(lower: &str, at: usize) -> usize {
    let at = skip_spaces(lower, at);
    for connector in ["to ", "is ", "of ", ":", "="] {
        if lower[at..].starts_with(connector) {
            return skip_spaces(lower, at + connector.len());
        }
    }
    at
}

fn ends_word(text: &str, at: usize) -> bool {
    text[at..]
        .chars()
        .next()
        .is_none_or(|c| !c.is_alphanumeric() && c != '_')
}

/// The value that starts at `at`, and where it ends.
fn value_at(text: &str, at: usize, spans: &[CodeSpan<'_>]) -> Option<(StatedValue, usize)> {
    let rest = &text[at..];
    if let Some(span) = spans.iter().find(|span| span.start == at) {
        let value = serde_json::from_str(span.content)
            .unwrap_or_else(|_| Value::String(span.content.to_string()));
        return Some((StatedValue::Literal(value), span.end));
    }
    if let Some(quoted) = rest.strip_prefix('"') {
        let close = quoted.find('"')?;
        let value = Value::String(quoted[..close].to_string());
        return Some((StatedValue::Literal(value), at + close + 2));
    }
    for (word, value) in [
        ("true", json!(true)),
        ("false", json!(false)),
        ("null", Value::Null),
    ] {
        if rest.starts_with(word) && ends_word(text, at + word.len()) {
            return Some((StatedValue::Literal(value), at + word.len()));
        }
    }
    let (number, end) = number_at(text, at)?;
    let after = skip_spaces(text, end);
    let units = [
        ("milliseconds", Unit::Millis),
        ("millisecond", Unit::Millis),
        ("ms", Unit::Millis),
        ("seconds", Unit::Seconds),
        ("second", Unit::Seconds),
        ("secs", Unit::Seconds),
        ("sec", Unit::Seconds),
        ("s", Unit::Seconds),
        ("minutes", Unit::Minutes),
        ("minute", Unit::Minutes),
        ("mins", Unit::Minutes),
        ("min", Unit::Minutes),
    ];
    for (word, unit) in units {
        if text[after..].starts_with(word) && ends_word(text, after + word.len()) {
            return Some((StatedValue::Number(number, Some(unit)), after + word.len()));
        }
    }
    Some((StatedValue::Number(number, None), end))
}

/// A number such as `10,000`, `10000`, `2.5` or `-1` at `at`.
fn number_at(text: &str, at: usize) -> Option<(f64, usize)> {
    let bytes = text.as_bytes();
    let mut end = at;
    if bytes.get(end) == Some(&b'-') {
        end += 1;
    }
    let digits = |from: usize| {
        bytes[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let first = digits(end);
    if first == 0 {
        return None;
    }
    end += first;
    // Thousands groups: a comma and exactly three digits.
    while bytes.get(end) == Some(&b',') && digits(end + 1) == 3 && first <= 3 {
        end += 4;
    }
    if bytes.get(end) == Some(&b'.') && digits(end + 1) > 0 {
        end += 1 + digits(end + 1);
    }
    if text[end..]
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() && !"msMS".contains(c))
    {
        return None;
    }
    let number = text[at..end].replace(',', "").parse().ok()?;
    Some((number, end))
}

/// Field-like code spans in the sentence before `offset`, nearest first.
fn fields_before<'t>(text: &'t str, offset: usize, spans: &[CodeSpan<'t>]) -> Vec<&'t str> {
    let bytes = text.as_bytes();
    let mut start = offset;
    while start > 0 {
        let ends_sentence = matches!(bytes[start - 1], b'.' | b'!' | b'?')
            && bytes.get(start).is_some_and(u8::is_ascii_whitespace);
        if ends_sentence {
            break;
        }
        start -= 1;
    }
    spans
        .iter()
        .rev()
        .filter(|span| span.start >= start && span.end <= offset)
        .map(|span| span.content)
        .filter(|content| is_field_name(content))
        .collect()
}

/// Whether `text` looks like a field name: `snake_case`.
pub(crate) fn is_field_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<(StatedValue, Vec<&str>)> {
        find(text)
            .into_iter()
            .map(|stated| (stated.value, stated.fields_before))
            .collect()
    }

    #[test]
    fn reads_stated_defaults() {
        let found = values("Waits `yield_time_ms` (default 10,000): then. Defaults to 5 s.");
        assert_eq!(
            found,
            [
                (StatedValue::Number(10_000.0, None), vec!["yield_time_ms"]),
                (StatedValue::Number(5.0, Some(Unit::Seconds)), vec![]),
            ]
        );
        assert_eq!(
            found[1].0.resolve("timeout_ms"),
            Some(json!(5_000)),
            "seconds become milliseconds"
        );
        assert_eq!(
            values("Defaults to `reuse_running`; default: true.")[..]
                .iter()
                .map(|(v, _)| v.clone())
                .collect::<Vec<_>>(),
            [
                StatedValue::Literal(json!("reuse_running")),
                StatedValue::Literal(json!(true))
            ]
        );
    }

    #[test]
    fn skips_defaults_without_a_checkable_value() {
        assert!(
            values("Defaults to the workspace root. By default only some. `default 3`").is_empty()
        );
        assert!(values("defaultness 3, the default).").is_empty());
        assert!(values("Defaults to 8,000; more than 64,000").len() == 1);
    }
}
