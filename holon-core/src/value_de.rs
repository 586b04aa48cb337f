//! A deserializer over an owned `serde_json::Value` that records the path of an error
//! without costing anything when there is none.
//!
//! `serde_path_to_error` allocates a path segment for every key it passes; this one
//! hands strings over by move (as serde_json's own owned deserializer does) and builds
//! the path only while an error unwinds, one segment per level.

use std::fmt::{self, Display};

use serde::de::value::StringDeserializer;
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use serde::forward_to_deserialize_any;
use serde_json::{Map, Value};

use crate::dispatch::{MAX_INPUT_DEPTH, dispose};

/// One step of an error's path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// A deserialization error and where it happened. Boxed, so that the `Result` of
/// every field's parse stays small on the path without errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathError(Box<PathErrorInner>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct PathErrorInner {
    message: String,
    /// Innermost first; reversed when rendered.
    reversed_path: Vec<Segment>,
}

impl PathError {
    fn at(mut self, segment: Segment) -> Self {
        self.0.reversed_path.push(segment);
        self
    }

    /// The error message, without the path.
    pub(crate) fn message(&self) -> &str {
        &self.0.message
    }

    /// The path, such as `todo_list[2].state`; empty at the root.
    pub(crate) fn path(&self) -> String {
        let mut path = String::new();
        for segment in self.0.reversed_path.iter().rev() {
            match segment {
                Segment::Key(key) => {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(key);
                }
                Segment::Index(index) => {
                    path.push('[');
                    path.push_str(&index.to_string());
                    path.push(']');
                }
            }
        }
        path
    }
}

impl Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for PathError {}

impl de::Error for PathError {
    fn custom<T: Display>(message: T) -> Self {
        Self(Box::new(PathErrorInner {
            message: message.to_string(),
            reversed_path: Vec::new(),
        }))
    }
}

/// Deserializes `T` from `value`, moving its strings into `T`. Nesting deeper than
/// [`MAX_INPUT_DEPTH`] is an error, and whatever is not consumed is freed without
/// recursion, so no input can overflow the stack.
pub(crate) fn from_value<T: de::DeserializeOwned>(value: Value) -> Result<T, PathError> {
    T::deserialize(ValueDeserializer(value, 1))
}

/// A value and its nesting depth (the root is 1).
struct ValueDeserializer(Value, usize);

fn too_deep(value: Value) -> PathError {
    dispose(value);
    de::Error::custom(format!(
        "the input nests deeper than {MAX_INPUT_DEPTH} levels"
    ))
}

impl<'de> Deserializer<'de> for ValueDeserializer {
    type Error = PathError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        let depth = self.1;
        match self.0 {
            value @ (Value::Array(_) | Value::Object(_)) if depth > MAX_INPUT_DEPTH => {
                Err(too_deep(value))
            }
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Number(n) => match whole_float(&n) {
                // JSON Schema's `integer` accepts `1.0`; so must the typed parse.
                Some(Whole::Unsigned(value)) => visitor.visit_u64(value),
                Some(Whole::Signed(value)) => visitor.visit_i64(value),
                None => n.deserialize_any(visitor).map_err(de::Error::custom),
            },
            Value::String(s) => visitor.visit_string(s),
            Value::Array(items) => {
                let length = items.len();
                let mut access = Seq {
                    items: items.into_iter(),
                    index: 0,
                    depth,
                };
                let value = visitor.visit_seq(&mut access)?;
                if access.items.len() == 0 {
                    Ok(value)
                } else {
                    Err(de::Error::invalid_length(
                        length,
                        &"fewer elements in array",
                    ))
                }
            }
            Value::Object(map) => visit_object(map, depth, visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            other => visitor.visit_some(ValueDeserializer(other, self.1)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, PathError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, PathError> {
        let depth = self.1;
        match self.0 {
            Value::String(variant) => visitor.visit_enum(Enum {
                variant,
                value: None,
                depth,
            }),
            value @ Value::Object(_) if depth > MAX_INPUT_DEPTH => Err(too_deep(value)),
            Value::Object(map) if map.len() == 1 => {
                let Some((variant, value)) = map.into_iter().next() else {
                    return Err(de::Error::custom("expected an enum"));
                };
                let key = variant.clone();
                visitor
                    .visit_enum(Enum {
                        variant,
                        value: Some(value),
                        depth: depth + 1,
                    })
                    .map_err(|e| e.at(Segment::Key(key)))
            }
            other => {
                let error =
                    de::Error::invalid_type(unexpected(&other), &"a string or a single-key object");
                dispose(other);
                Err(error)
            }
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        dispose(self.0);
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

/// A float with no fractional part, as the integer it equals.
enum Whole {
    Unsigned(u64),
    Signed(i64),
}

/// `Some` for a number written as a float (`3.0`, `-2e3`) whose value is a whole number
/// that fits `u64` or `i64`.
fn whole_float(number: &serde_json::Number) -> Option<Whole> {
    if !number.is_f64() {
        return None;
    }
    let value = number.as_f64()?;
    if value.fract() != 0.0 || !value.is_finite() {
        return None;
    }
    // 2^64 and -2^63 are exact in f64; the casts below are exact inside these bounds.
    if (0.0..18_446_744_073_709_551_616.0).contains(&value) {
        Some(Whole::Unsigned(value as u64))
    } else if (-9_223_372_036_854_775_808.0..0.0).contains(&value) {
        Some(Whole::Signed(value as i64))
    } else {
        None
    }
}

fn unexpected(value: &Value) -> de::Unexpected<'_> {
    match value {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(_) => de::Unexpected::Other("number"),
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

fn visit_object<'de, V: Visitor<'de>>(
    map: Map<String, Value>,
    depth: usize,
    visitor: V,
) -> Result<V::Value, PathError> {
    let mut access = Object {
        entries: map.into_iter(),
        pending: None,
        depth,
    };
    visitor.visit_map(&mut access)
}

struct Seq {
    items: std::vec::IntoIter<Value>,
    index: usize,
    depth: usize,
}

impl Drop for Seq {
    /// Elements left after an error are freed without recursion.
    fn drop(&mut self) {
        for item in self.items.by_ref() {
            dispose(item);
        }
    }
}

impl<'de> SeqAccess<'de> for Seq {
    type Error = PathError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, PathError> {
        let Some(item) = self.items.next() else {
            return Ok(None);
        };
        let index = self.index;
        self.index += 1;
        seed.deserialize(ValueDeserializer(item, self.depth + 1))
            .map(Some)
            .map_err(|e| e.at(Segment::Index(index)))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Object {
    entries: serde_json::map::IntoIter,
    /// The current key and its value, between `next_key_seed` and `next_value_seed`.
    pending: Option<(String, Value)>,
    depth: usize,
}

impl Drop for Object {
    /// Entries left after an error are freed without recursion.
    fn drop(&mut self) {
        if let Some((_, value)) = self.pending.take() {
            dispose(value);
        }
        for (_, value) in self.entries.by_ref() {
            dispose(value);
        }
    }
}

impl<'de> MapAccess<'de> for Object {
    type Error = PathError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, PathError> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        // The key is lent, not moved, so that an error below can still name it.
        let result = seed.deserialize(BorrowedKey(&key));
        match result {
            Ok(parsed) => {
                self.pending = Some((key, value));
                Ok(Some(parsed))
            }
            Err(error) => {
                dispose(value);
                Err(error.at(Segment::Key(key)))
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, PathError> {
        let Some((key, value)) = self.pending.take() else {
            return Err(de::Error::custom("a value was asked for before its key"));
        };
        seed.deserialize(ValueDeserializer(value, self.depth + 1))
            .map_err(|e| e.at(Segment::Key(key)))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// A map key, lent to the key's deserializer.
struct BorrowedKey<'k>(&'k str);

impl<'de> Deserializer<'de> for BorrowedKey<'_> {
    type Error = PathError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        visitor.visit_str(self.0)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, PathError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, PathError> {
        visitor.visit_enum(Enum {
            variant: self.0.to_string(),
            value: None,
            depth: 1,
        })
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

struct Enum {
    variant: String,
    value: Option<Value>,
    /// The depth of `value`.
    depth: usize,
}

impl<'de> EnumAccess<'de> for Enum {
    type Error = PathError;
    type Variant = Variant;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Variant), PathError> {
        let deserializer: StringDeserializer<PathError> = self.variant.into_deserializer();
        let variant = seed.deserialize(deserializer)?;
        Ok((variant, Variant(self.value, self.depth)))
    }
}

struct Variant(Option<Value>, usize);

impl<'de> VariantAccess<'de> for Variant {
    type Error = PathError;

    fn unit_variant(self) -> Result<(), PathError> {
        match self.0 {
            None | Some(Value::Null) => Ok(()),
            Some(other) => Err(de::Error::invalid_type(
                unexpected(&other),
                &"a unit variant",
            )),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, PathError> {
        match self.0 {
            Some(value) => seed.deserialize(ValueDeserializer(value, self.1)),
            None => Err(de::Error::invalid_type(
                de::Unexpected::UnitVariant,
                &"a newtype variant",
            )),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, PathError> {
        match self.0 {
            Some(value) => ValueDeserializer(value, self.1).deserialize_any(visitor),
            None => Err(de::Error::invalid_type(
                de::Unexpected::UnitVariant,
                &"a tuple variant",
            )),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, PathError> {
        match self.0 {
            Some(Value::Object(map)) => visit_object(map, self.1, visitor),
            Some(other) => Err(de::Error::invalid_type(
                unexpected(&other),
                &"a struct variant",
            )),
            None => Err(de::Error::invalid_type(
                de::Unexpected::UnitVariant,
                &"a struct variant",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "snake_case")]
    enum State {
        Pending,
        Done,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Todo {
        text: String,
        state: State,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Plan {
        title: String,
        #[serde(default)]
        note: Option<String>,
        todo_list: Vec<Todo>,
        limit: Option<u8>,
    }

    #[test]
    fn parses_what_serde_json_parses() {
        let input = json!({
            "title": "ship",
            "todo_list": [{"text": "a", "state": "pending"}, {"text": "b", "state": "done"}],
            "limit": null,
        });
        let expected: Plan = serde_json::from_value(input.clone()).unwrap();
        assert_eq!(from_value::<Plan>(input).unwrap(), expected);
    }

    #[test]
    fn errors_carry_the_exact_path() {
        let input = json!({
            "title": "ship",
            "todo_list": [{"text": "a", "state": "pending"}, {"text": "b", "state": "done"}, {"text": "c", "state": "don"}],
            "limit": 1,
        });
        let error = from_value::<Plan>(input).unwrap_err();
        assert_eq!(error.path(), "todo_list[2].state");
        assert!(
            error.message().starts_with("unknown variant `don`"),
            "{error}"
        );

        let error =
            from_value::<Plan>(json!({"title": "x", "todo_list": [], "limit": 300})).unwrap_err();
        assert_eq!(error.path(), "limit");

        let error =
            from_value::<Plan>(json!({"title": "x", "todo_list": [{"text": "a"}]})).unwrap_err();
        assert_eq!(error.path(), "todo_list[0]");
        assert_eq!(error.message(), "missing field `state`");

        let error =
            from_value::<Plan>(json!({"title": "x", "todo_list": [], "titel": 1})).unwrap_err();
        assert_eq!(error.path(), "titel");
        assert!(
            error.message().starts_with("unknown field `titel`"),
            "{error}"
        );

        let mut deep = json!(1);
        for _ in 0..200 {
            deep = json!([deep]);
        }
        let error = from_value::<serde_json::Value>(deep).unwrap_err();
        assert!(error.message().contains("deeper than 128"), "{error}");

        let error = from_value::<Plan>(json!({"title": 5, "todo_list": []})).unwrap_err();
        assert_eq!(error.path(), "title");
        assert_eq!(
            error.message(),
            "invalid type: integer `5`, expected a string"
        );
    }
}
