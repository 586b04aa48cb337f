//! The input a tool gets, and its typed parse with every problem of a failed input.
//!
//! The happy path is serde alone: JSON text parses straight into the argument type
//! (`serde_json::from_str`). That is the one parser compiled for each argument type:
//! a `Value` a transport parsed is written back as text first, and a failed input is
//! parsed from text again, where serde_json's error position says where it failed
//! ([`crate::input::text_path`]). Only then is the input looked at again, to report all that
//! is wrong with it, each with its path.

pub(crate) mod closed;
pub(crate) mod depth;
pub(crate) mod hints;
#[cfg(any(test, not(feature = "validate")))]
pub(crate) mod integer_bounds;
pub(crate) mod json_kind;
pub(crate) mod json_text;
pub(crate) mod problems;
pub(crate) mod text_path;
#[cfg(feature = "validate")]
pub(crate) mod type_hints;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::input::depth::{MAX_INPUT_DEPTH, exceeds_depth};
use crate::input::problems::{
    Category, Problem, Problems, classify, combine, not_json, repeated_keys, too_deep,
};
use crate::input::text_path::locate;
use crate::result::error::ToolError;

/// The input handed to a tool after the dispatcher checked its shape. It borrows
/// the caller's input: a tool parses it before its handler starts.
#[derive(Debug)]
pub enum ToolInput<'a> {
    /// A JSON object.
    Json(JsonArguments<'a>),
    /// Raw text for the tool's freeform grammar.
    Freeform(String),
}

/// What reports every problem of an input its typed parse refused: the tool's
/// registry entry, which has its schema.
pub(crate) trait InputReport: Send + Sync {
    /// One error of `found`, the schema's problems of `value`, and `serde`'s.
    fn report(&self, value: &Value, found: Problems, serde: Option<Problem>) -> ToolError;
}

/// The JSON arguments of one call: the text of an object (as a provider sent it, or
/// written from the `Value` a transport such as MCP parsed). Parse them with
/// [`JsonArguments::parse`].
#[derive(Clone, Copy)]
pub struct JsonArguments<'a> {
    /// The text of a JSON object no deeper than [`MAX_INPUT_DEPTH`], for a tool whose
    /// derived parse refuses repeated keys (or whose keys the dispatcher checked).
    text: &'a str,
    /// The tool the arguments are for: its schema lists every problem of a failed input.
    entry: &'a dyn InputReport,
}

impl std::fmt::Debug for JsonArguments<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("JsonArguments").field(&self.text).finish()
    }
}

impl<'a> JsonArguments<'a> {
    /// The text of an object the dispatcher checked.
    pub(crate) fn new(text: &'a str, entry: &'a dyn InputReport) -> Self {
        Self { text, entry }
    }

    /// Parses the arguments into `T`. On failure the error is the input's first
    /// problem, with the others listed in `details.problems`.
    ///
    /// Only the typed parse is generic, and it is one function, called at most twice:
    /// every tool's argument type instantiates this, so the rest of a failure's
    /// handling is shared code (`Retry`).
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, ToolError> {
        if let Ok(parsed) = serde_json::from_str(self.text) {
            return Ok(parsed);
        }
        let retry = self.retry()?;
        match serde_json::from_str::<T>(retry.text(self.text)) {
            Ok(parsed) if retry.repeated.is_empty() => Ok(parsed),
            Ok(_) => Err(retry.report(self, None)),
            Err(error) => Err(retry.report(self, Some(error))),
        }
    }

    /// The slow path, for an input the typed parse refused: the text to parse again
    /// (each whole float, `3.0`, read as the integer it is, as JSON Schema's `integer`
    /// takes it and serde's integers do not), or the error when it is not even JSON.
    fn retry(&self) -> Result<Retry, ToolError> {
        let parsed = match json_text::parse(self.text) {
            Ok(parsed) => parsed,
            Err(error) => return Err(combine(vec![not_json(&error)])),
        };
        if exceeds_depth(&parsed.value, MAX_INPUT_DEPTH) {
            return Err(combine(vec![Problem::new(Category::WrongType, too_deep())]));
        }
        let repeated = repeated_keys(&parsed.duplicates);
        // The first of repeated keys, written without the others, is what the
        // problems are reported of.
        let typed = whole_floats_as_integers(&parsed.value)
            .map(|integers| json_text::write(&integers))
            .or_else(|| (!repeated.is_empty()).then(|| json_text::write(&parsed.value)));
        Ok(Retry {
            value: parsed.value,
            repeated,
            typed,
        })
    }
}

/// A refused input, parsed as a `Value`, to be parsed by its type once more.
struct Retry {
    value: Value,
    /// The keys given more than once.
    repeated: Problems,
    /// The text to parse again, when it differs from the input's.
    typed: Option<String>,
}

impl Retry {
    fn text<'t>(&'t self, original: &'t str) -> &'t str {
        self.typed.as_deref().unwrap_or(original)
    }

    /// Every problem of the input, with the second typed parse's error.
    fn report(self, arguments: &JsonArguments<'_>, serde: Option<serde_json::Error>) -> ToolError {
        let serde = serde.map(|error| {
            let located = locate(self.text(arguments.text), &error);
            classify(&located.path, &located.message)
        });
        arguments.entry.report(&self.value, self.repeated, serde)
    }
}

/// A copy of `value` with every whole float (`3.0`) written as an integer, or `None`
/// when there is none.
fn whole_floats_as_integers(value: &Value) -> Option<Value> {
    fn has_whole_float(value: &Value) -> bool {
        match value {
            Value::Number(number) => as_integer(number).is_some(),
            Value::Array(items) => items.iter().any(has_whole_float),
            Value::Object(map) => map.values().any(has_whole_float),
            _ => false,
        }
    }
    fn convert(value: &mut Value) {
        match value {
            Value::Number(number) => {
                if let Some(integer) = as_integer(number) {
                    *number = integer;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(convert),
            Value::Object(map) => map.values_mut().for_each(convert),
            _ => {}
        }
    }
    if !has_whole_float(value) {
        return None;
    }
    let mut copy = value.clone();
    convert(&mut copy);
    Some(copy)
}

/// A float with no fractional part that fits `u64` or `i64`, as that integer.
fn as_integer(number: &serde_json::Number) -> Option<serde_json::Number> {
    let value = number.as_f64().filter(|_| number.is_f64())?;
    if value.fract() != 0.0 || !value.is_finite() {
        return None;
    }
    // 2^64 and -2^63 are exact in f64; the casts are exact inside these bounds.
    if (0.0..18_446_744_073_709_551_616.0).contains(&value) {
        Some((value as u64).into())
    } else if (-9_223_372_036_854_775_808.0..0.0).contains(&value) {
        Some((value as i64).into())
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn whole_floats_become_integers_and_nothing_else_changes() {
        assert_eq!(whole_floats_as_integers(&json!({"a": 1, "b": 1.5})), None);
        assert_eq!(
            whole_floats_as_integers(&json!({"a": [3.0, -2e3, 1.5, 1e30], "b": "3.0"})),
            Some(json!({"a": [3, -2000, 1.5, 1e30], "b": "3.0"}))
        );
    }
}
