//! JSON text to a `Value`, noting every duplicate key on the way.
//!
//! serde_json's own `Value` keeps the last of two equal keys, so `{"cmd": "true",
//! "cmd": "touch m"}` would silently become `{"cmd": "touch m"}`. This parse keeps the
//! first and reports the path of every repetition. serde_json's recursion limit (128
//! levels) bounds the stack, so the value built is never deeper than that.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// A parsed input and the paths of its repeated keys, in input order.
pub(crate) struct Parsed {
    pub(crate) value: Value,
    pub(crate) duplicates: Vec<String>,
}

/// A `Value` as compact JSON text. (`Value`'s `Display` writes through a formatter,
/// several times slower.)
pub(crate) fn write(value: &Value) -> String {
    // A `Value` always serializes: its keys are strings.
    serde_json::to_string(value).unwrap_or_default()
}

/// Parses `text` as one JSON value.
pub(crate) fn parse(text: &str) -> Result<Parsed, serde_json::Error> {
    let mut duplicates = Vec::new();
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = Node {
        at: Location::Root,
        duplicates: &mut duplicates,
    }
    .deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(Parsed { value, duplicates })
}

/// Where a value sits in the input; rendered only when a duplicate is found there, so
/// a clean input costs no path strings.
#[derive(Clone, Copy)]
enum Location<'p> {
    Root,
    Key(&'p Location<'p>, &'p str),
    Index(&'p Location<'p>, usize),
}

impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Root => Ok(()),
            Location::Key(Location::Root, key) => f.write_str(key),
            Location::Key(parent, key) => write!(f, "{parent}.{key}"),
            Location::Index(parent, index) => write!(f, "{parent}[{index}]"),
        }
    }
}

/// Builds the value at `at`.
struct Node<'p> {
    at: Location<'p>,
    duplicates: &'p mut Vec<String>,
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        // JSON text has no NaN or infinity, so `from_f64` succeeds.
        Ok(serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(Node {
            at: Location::Index(&self.at, items.len()),
            duplicates: &mut *self.duplicates,
        })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            let value = access.next_value_seed(Node {
                at: Location::Key(&self.at, &key),
                duplicates: &mut *self.duplicates,
            })?;
            match map.entry(key) {
                serde_json::map::Entry::Vacant(slot) => {
                    slot.insert(value);
                }
                serde_json::map::Entry::Occupied(first) => {
                    let at = Location::Key(&self.at, first.key());
                    self.duplicates.push(at.to_string());
                }
            }
        }
        Ok(Value::Object(map))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keeps_the_first_of_repeated_keys_and_names_each_repetition() {
        let parsed = parse(
            r#"{"cmd": "true", "cmd": "touch m", "items": [{"a": 1}, {"a": 2, "b": {"x": 1, "x": 2}, "a": 3}]}"#,
        )
        .unwrap();
        assert_eq!(
            parsed.value,
            json!({"cmd": "true", "items": [{"a": 1}, {"a": 2, "b": {"x": 1}}]})
        );
        assert_eq!(parsed.duplicates, ["cmd", "items[1].b.x", "items[1].a"]);
    }

    #[test]
    fn parses_what_serde_json_parses() {
        let text = r#"{"s": "é\n\"", "n": -3, "u": 18446744073709551615, "f": 1.5, "z": null, "t": [true, false, []]}"#;
        let parsed = parse(text).unwrap();
        assert_eq!(parsed.value, serde_json::from_str::<Value>(text).unwrap());
        assert!(parsed.duplicates.is_empty());
        assert!(parse("{} x").is_err());
        assert!(parse(&"[".repeat(200)).is_err());
    }
}
