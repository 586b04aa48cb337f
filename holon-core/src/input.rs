//! The input a tool gets, and its typed parse with every problem of a failed input.
//!
//! The happy path is serde alone: JSON text parses straight into the argument type
//! (`serde_json::from_str`), a `Value` through serde_json's own deserializer, by
//! reference so that the input is still there if it fails. Only then is the input
//! looked at again, to report all that is wrong with it, each with its path.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::depth::{MAX_INPUT_DEPTH, exceeds_depth};
use crate::error::ToolError;
use crate::json_text;
use crate::problems::{Category, Problem, classify, combine, duplicate_field, not_json, too_deep};

/// The input handed to a tool after the dispatcher checked its shape. It borrows
/// the caller's input: a tool parses it before its handler starts.
#[derive(Debug)]
pub enum ToolInput<'a> {
    /// A JSON object, as text or as a parsed `Value`.
    Json(JsonArguments<'a>),
    /// Raw text for the tool's freeform grammar.
    Freeform(String),
}

/// What reports every problem of an input its typed parse refused: the tool's
/// registry entry, which has its schema.
pub(crate) trait InputReport: Send + Sync {
    /// One error of `found`, the schema's problems of `value`, and `serde`'s.
    fn report(&self, value: &Value, found: Vec<Problem>, serde: Option<Problem>) -> ToolError;
}

/// The JSON arguments of one call, as its transport delivered them: the text a
/// provider sent, or a `Value` a transport (MCP) already parsed. Parse them with
/// [`JsonArguments::parse`].
#[derive(Clone, Copy)]
pub struct JsonArguments<'a> {
    source: Source<'a>,
    /// The tool the arguments are for: its schema lists every problem of a failed input.
    entry: &'a dyn InputReport,
}

#[derive(Clone, Copy)]
enum Source<'a> {
    /// An object, no deeper than [`MAX_INPUT_DEPTH`].
    Value(&'a Value),
    /// The text of a JSON object, for a tool whose derived parse refuses repeated keys.
    Text(&'a str),
}

impl std::fmt::Debug for JsonArguments<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.source {
            Source::Value(value) => f.debug_tuple("JsonArguments").field(value).finish(),
            Source::Text(text) => f.debug_tuple("JsonArguments").field(&text).finish(),
        }
    }
}

impl<'a> JsonArguments<'a> {
    /// An object the dispatcher checked for depth.
    pub(crate) fn value(value: &'a Value, entry: &'a dyn InputReport) -> Self {
        Self {
            source: Source::Value(value),
            entry,
        }
    }

    /// The text of an object, for a tool whose derived parse refuses repeated keys.
    pub(crate) fn text(text: &'a str, entry: &'a dyn InputReport) -> Self {
        Self {
            source: Source::Text(text),
            entry,
        }
    }

    /// Parses the arguments into `T`. On failure the error lists every problem of
    /// the input (`details.problems`), the first also in its top-level fields.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, ToolError> {
        let parsed = match self.source {
            Source::Value(value) => T::deserialize(value).ok(),
            Source::Text(text) => serde_json::from_str(text).ok(),
        };
        match parsed {
            Some(parsed) => Ok(parsed),
            None => self.parse_failed(),
        }
    }

    /// The slow path, for an input the typed parse refused: every problem of it.
    /// Only the typed parse is generic; the rest is shared by every argument type.
    #[cold]
    fn parse_failed<T: DeserializeOwned>(&self) -> Result<T, ToolError> {
        let failed = self.failed_input()?;
        let typed = failed.integers.as_ref().unwrap_or(&failed.value);
        match serde_path_to_error::deserialize::<_, T>(typed) {
            Ok(parsed) if failed.repeated.is_empty() => Ok(parsed),
            Ok(_) => Err(self.report(failed, None)),
            Err(error) => {
                let serde = serde_problem(&error);
                Err(self.report(failed, Some(serde)))
            }
        }
    }

    /// The refused input as a `Value`, with its repeated keys, for the typed parse
    /// that finds the path of a problem.
    fn failed_input(&self) -> Result<FailedInput<'a>, ToolError> {
        let (value, repeated) = match self.source {
            Source::Value(value) => (Cow::Borrowed(value), Vec::new()),
            Source::Text(text) => match json_text::parse(text) {
                Ok(parsed) => {
                    let repeated: Vec<Problem> = parsed
                        .duplicates
                        .iter()
                        .map(|p| duplicate_field(p))
                        .collect();
                    (Cow::Owned(parsed.value), repeated)
                }
                Err(error) => return Err(combine(vec![not_json(&error)])),
            },
        };
        if exceeds_depth(&value, MAX_INPUT_DEPTH) {
            return Err(combine(vec![Problem::new(Category::WrongType, too_deep())]));
        }
        // JSON Schema's `integer` takes `3.0`; serde's integers do not, so a whole
        // float is read as the integer it is.
        let integers = whole_floats_as_integers(&value);
        Ok(FailedInput {
            value,
            integers,
            repeated,
        })
    }

    /// Every problem of a refused input: its repeated keys, the schema's problems,
    /// and serde's error, if the typed parse gave one.
    fn report(&self, failed: FailedInput<'_>, serde: Option<Problem>) -> ToolError {
        self.entry.report(&failed.value, failed.repeated, serde)
    }
}

/// An input the typed parse refused, ready for the parse that reports its problems.
struct FailedInput<'a> {
    value: Cow<'a, Value>,
    /// `value` with whole floats as integers, if it has any.
    integers: Option<Value>,
    repeated: Vec<Problem>,
}

/// The problem a typed parse found, at its path.
fn serde_problem(error: &serde_path_to_error::Error<serde_json::Error>) -> Problem {
    classify(&render(error.path()), &error.inner().to_string())
}

/// A path of `serde_path_to_error`, as the errors write it: `todo_list[2].state`.
fn render(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut rendered = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => rendered.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                rendered = crate::problems::join_path(&rendered, key);
            }
            Segment::Unknown => {}
        }
    }
    rendered
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
