//! The structured result of a call, kept as the compact JSON text it serializes to.
//!
//! A tool's typed result is serialized once, straight to text, when the call ends:
//! in place while it is short, else into a `Vec`. No `Value` tree is built on the
//! dispatch path (with serde_json's `preserve_order`, each object would be an
//! `IndexMap` with a SipHash table). Consumers that walk the result
//! (receipts, tests) get a `Value`, parsed on first use and kept; consumers that
//! serialize it (MCP, the CLI, receipts' JSON) get the same output as from that `Value`.

use std::fmt;
use std::sync::OnceLock;

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::result_json::Json;

/// A call's structured result: compact JSON text, with a `Value` view parsed on demand.
/// Derefs to that `Value`.
#[derive(Clone)]
pub struct Structured {
    /// UTF-8: its serializer writes nothing else (checked when it is read as text,
    /// off the dispatch path).
    json: Json,
    value: OnceLock<Box<Value>>,
}

impl Structured {
    /// Serializes `value` as `serde_json::to_value` would see it: an `f32` is widened
    /// to `f64`, a 128-bit integer must fit 64 bits. The text holds what the `Value` of
    /// `to_value` would serialize to.
    #[inline]
    pub fn new<T: Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        Json::write(value).map(Self::from_json)
    }

    /// The compact JSON text.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(self.json.as_bytes()).unwrap_or_default()
    }

    /// The result as a `Value` (parsed on the first call).
    pub fn as_value(&self) -> &Value {
        self.value.get_or_init(|| {
            // The text is serde_json's own output, so it parses; `Null` is unreachable.
            Box::new(serde_json::from_slice(self.json.as_bytes()).unwrap_or(Value::Null))
        })
    }

    /// The result as an owned `Value`.
    pub fn to_value(&self) -> Value {
        self.as_value().clone()
    }

    #[inline]
    fn from_json(json: Json) -> Self {
        Self {
            json,
            value: OnceLock::new(),
        }
    }
}

impl From<Value> for Structured {
    fn from(value: Value) -> Self {
        let structured = Self::from_json(Json::of(value.to_string().into_bytes()));
        let _ = structured.value.set(Box::new(value));
        structured
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
        self.json.as_bytes() == other.json.as_bytes() || self.as_value() == other.as_value()
    }
}

impl PartialEq<Value> for Structured {
    fn eq(&self, other: &Value) -> bool {
        self.as_value() == other
    }
}

impl fmt::Debug for Structured {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Structured").field(&self.as_str()).finish()
    }
}

/// The compact JSON, as `Value`'s `Display` writes it (`{:#}`: pretty-printed).
impl fmt::Display for Structured {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            write!(f, "{:#}", self.as_value())
        } else {
            f.write_str(self.as_str())
        }
    }
}

/// Serializes as the `Value` would, streaming the text into `serializer`: compact,
/// pretty or into a `Value`, the output is the one the `Value` gives.
impl Serialize for Structured {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Some(value) = self.value.get() {
            return value.serialize(serializer);
        }
        let mut deserializer = serde_json::Deserializer::from_slice(self.json.as_bytes());
        serde_transcode::transcode(&mut deserializer, serializer)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;
    use crate::result_json::INLINE;

    #[derive(Serialize)]
    struct Sample {
        name: &'static str,
        ratio: f32,
        wide: f64,
        big: u128,
        small: i128,
        nothing: Option<u8>,
        nan: f64,
        tags: Vec<&'static str>,
        empty: BTreeMap<String, u8>,
        nested: BTreeMap<u32, Vec<bool>>,
    }

    fn sample() -> Sample {
        Sample {
            name: "é\n\"x\u{1}",
            ratio: 0.1,
            wide: 1e300,
            big: u128::from(u64::MAX),
            small: i128::from(i64::MIN),
            nothing: None,
            nan: f64::NAN,
            tags: vec!["a", "b"],
            empty: BTreeMap::new(),
            nested: BTreeMap::from([(3, vec![true]), (10, vec![])]),
        }
    }

    #[test]
    fn holds_what_to_value_builds_and_serializes_as_that_value_does() {
        let value = serde_json::to_value(sample()).unwrap();
        let structured = Structured::new(&sample()).unwrap();
        assert_eq!(structured.as_str(), value.to_string());
        assert_eq!(*structured.as_value(), value);
        let fresh = || Structured::new(&sample()).unwrap();
        assert_eq!(
            serde_json::to_string_pretty(&fresh()).unwrap(),
            serde_json::to_string_pretty(&value).unwrap()
        );
        assert_eq!(serde_json::to_value(fresh()).unwrap(), value);
        assert_eq!(serde_json::to_string(&fresh()).unwrap(), value.to_string());
        assert_eq!(format!("{}", fresh()), format!("{value}"));
        assert_eq!(format!("{:#}", fresh()), format!("{value:#}"));
    }

    #[test]
    fn short_and_long_results_are_the_json_they_serialize_to() {
        for len in [0, 1, INLINE - 9, INLINE - 8, INLINE - 7, 200] {
            // `{"k":"…"}` is 8 bytes around the string: lengths around `INLINE`.
            let value = json!({ "k": "x".repeat(len) });
            let structured = Structured::new(&value).unwrap();
            assert_eq!(structured.as_str(), value.to_string(), "{len}");
            assert_eq!(
                matches!(structured.json, Json::Inline { .. }),
                value.to_string().len() <= INLINE
            );
            assert_eq!(*structured.as_value(), value);
            let from_value = Structured::from(value.clone());
            assert_eq!(from_value.as_str(), value.to_string());
            assert_eq!(
                matches!(from_value.json, Json::Inline { .. }),
                value.to_string().len() <= INLINE
            );
        }
        // Many small writes that cross from in place into the `Vec` one byte at a time.
        for count in 0..40u8 {
            let items: Vec<u8> = (0..count).collect();
            let structured = Structured::new(&items).unwrap();
            assert_eq!(structured.as_str(), serde_json::to_string(&items).unwrap());
        }
    }

    #[test]
    fn refuses_what_to_value_refuses() {
        assert!(serde_json::to_value(u128::MAX).is_err());
        assert!(Structured::new(&u128::MAX).is_err());
        assert!(Structured::new(&i128::MIN).is_err());
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
