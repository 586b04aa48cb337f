//! The structured result of a call, kept as the compact JSON text serde_json writes.
//!
//! Most results are only ever serialized (into an envelope, an MCP reply), so a call
//! writes its result once, as text, instead of building a `Value` tree (with
//! serde_json's `preserve_order`, each object of it an `IndexMap` with a SipHash
//! table): against the floor of a call (`benches/callgrind.sh`), the text costs a
//! tenth of the instructions of `to_value`. Consumers that walk the result
//! (receipts, tests) get a `Value`, parsed on first use and kept.

use std::fmt;
use std::sync::OnceLock;

use serde::{Serialize, Serializer};
use serde_json::Value;

/// A call's structured result: compact JSON text, with a `Value` view parsed on
/// demand. Derefs to that `Value`.
#[derive(Clone)]
pub struct Structured {
    json: String,
    value: OnceLock<Box<Value>>,
}

impl Structured {
    /// Serializes `value` with `serde_json::to_string`.
    pub fn new<T: Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        serde_json::to_string(value).map(|json| Self {
            json,
            value: OnceLock::new(),
        })
    }

    /// The compact JSON text.
    pub fn as_str(&self) -> &str {
        &self.json
    }

    /// The result as a `Value` (parsed on the first call).
    pub fn as_value(&self) -> &Value {
        self.value.get_or_init(|| {
            // The text is serde_json's own output, so it parses; `Null` is unreachable.
            Box::new(serde_json::from_str(&self.json).unwrap_or(Value::Null))
        })
    }

    /// The result as an owned `Value`.
    pub fn to_value(&self) -> Value {
        self.as_value().clone()
    }
}

impl From<Value> for Structured {
    fn from(value: Value) -> Self {
        Self {
            json: value.to_string(),
            value: OnceLock::from(Box::new(value)),
        }
    }
}

impl std::ops::Deref for Structured {
    type Target = Value;

    fn deref(&self) -> &Value {
        self.as_value()
    }
}

/// Equal when the JSON values are (object keys in any order, as `Value`s compare).
impl PartialEq for Structured {
    fn eq(&self, other: &Self) -> bool {
        self.json == other.json || self.as_value() == other.as_value()
    }
}

impl PartialEq<Value> for Structured {
    fn eq(&self, other: &Value) -> bool {
        self.as_value() == other
    }
}

impl fmt::Debug for Structured {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Structured").field(&self.json).finish()
    }
}

/// The compact JSON, as `Value`'s `Display` writes it (`{:#}`: pretty-printed).
impl fmt::Display for Structured {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            write!(f, "{:#}", self.as_value())
        } else {
            f.write_str(&self.json)
        }
    }
}

/// Serializes as its `Value`.
impl Serialize for Structured {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_value().serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(Serialize)]
    struct Sample {
        name: &'static str,
        nothing: Option<u8>,
        tags: Vec<&'static str>,
    }

    #[test]
    fn holds_the_json_of_its_value_and_serializes_as_that_value() {
        let sample = Sample {
            name: "é\n\"x\u{1}",
            nothing: None,
            tags: vec!["a", "b"],
        };
        let value = serde_json::to_value(&sample).unwrap();
        let structured = Structured::new(&sample).unwrap();
        assert_eq!(structured.as_str(), value.to_string());
        assert_eq!(*structured.as_value(), value);
        assert_eq!(serde_json::to_value(&structured).unwrap(), value);
        assert_eq!(format!("{structured:#}"), format!("{value:#}"));
        let from_value = Structured::from(value.clone());
        assert_eq!(from_value.as_str(), value.to_string());
        assert_eq!(from_value, structured);
    }

    #[test]
    fn compares_as_values() {
        let text = Structured::from(json!({"a": 1, "b": [2]}));
        let reordered: Value = serde_json::from_str(r#"{"b": [2], "a": 1}"#).unwrap();
        assert_eq!(text, Structured::from(reordered.clone()));
        assert_eq!(text, reordered);
        assert_ne!(text, Structured::from(json!({"a": 2, "b": [2]})));
    }
}
