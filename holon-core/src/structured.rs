//! The structured result of a call, kept as the compact JSON text it serializes to.
//!
//! A tool's typed result is serialized once, straight to text, when the call ends:
//! in place while it is short, else into a `Vec`. No `Value` tree is built on the
//! dispatch path (with serde_json's `preserve_order`, each object would be an
//! `IndexMap` with a SipHash table). Consumers that walk the result
//! (receipts, tests) get a `Value`, parsed on first use and kept; consumers that
//! serialize it (MCP, the CLI, receipts' JSON) get the same output as from that `Value`.

use std::fmt;
use std::io;
use std::sync::OnceLock;

use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::ser::{CompactFormatter, Formatter};

/// A call's structured result: compact JSON text, with a `Value` view parsed on demand.
/// Derefs to that `Value`.
#[derive(Clone)]
pub struct Structured {
    /// UTF-8: serde_json writes nothing else (checked when it is read as text, off
    /// the dispatch path).
    json: Json,
    value: OnceLock<Box<Value>>,
}

/// The bytes of a result's JSON: a short one (`{"ok":true}`) in place, without an
/// allocation; a longer one in the buffer it was written to.
#[derive(Clone)]
enum Json {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Vec<u8>),
}

/// The longest JSON kept in place: what fits beside the tag and the length in the
/// 32 bytes the enum takes anyway.
const INLINE: usize = 30;

impl Json {
    /// The JSON of `bytes`, in place when it fits.
    fn of(bytes: Vec<u8>) -> Self {
        let mut writer = JsonWriter::new();
        match writer.inline.get_mut(..bytes.len()) {
            Some(slot) => {
                slot.copy_from_slice(&bytes);
                writer.len = bytes.len();
                writer.into_json()
            }
            None => Self::Heap(bytes),
        }
    }

    fn as_bytes(&self) -> &[u8] {
        match self {
            Self::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Self::Heap(bytes) => bytes,
        }
    }
}

/// Where a result is serialized: in place while it fits [`INLINE`] bytes, then, from
/// the write that does not fit on, in a `Vec`.
struct JsonWriter {
    len: usize,
    inline: [u8; INLINE],
    heap: Vec<u8>,
}

impl JsonWriter {
    fn new() -> Self {
        Self {
            len: 0,
            inline: [0; INLINE],
            heap: Vec::new(),
        }
    }

    /// Moves what was written in place into a `Vec`, with `bytes` after it.
    #[cold]
    fn spill(&mut self, bytes: &[u8]) {
        let mut heap = Vec::with_capacity((2 * (self.len + bytes.len())).max(128));
        heap.extend_from_slice(&self.inline[..self.len]);
        heap.extend_from_slice(bytes);
        self.heap = heap;
    }

    fn into_json(self) -> Json {
        match u8::try_from(self.len) {
            Ok(len) if self.heap.capacity() == 0 => Json::Inline {
                len,
                bytes: self.inline,
            },
            _ => Json::Heap(self.heap),
        }
    }
}

impl io::Write for JsonWriter {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.write_all(bytes)?;
        Ok(bytes.len())
    }

    #[inline]
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.heap.capacity() != 0 {
            self.heap.extend_from_slice(bytes);
            return Ok(());
        }
        let end = self.len + bytes.len();
        match self.inline.get_mut(self.len..end) {
            Some(slot) => {
                slot.copy_from_slice(bytes);
                self.len = end;
            }
            None => self.spill(bytes),
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Structured {
    /// Serializes `value` as `serde_json::to_value` would see it: an `f32` is widened
    /// to `f64`, a 128-bit integer must fit 64 bits. The text holds what the `Value` of
    /// `to_value` would serialize to.
    pub fn new<T: Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        // One function per result type, as few lines as it can be: it is compiled for
        // every tool.
        let mut writer = JsonWriter::new();
        let written = value.serialize(&mut serde_json::Serializer::with_formatter(
            &mut writer,
            AsValueWould,
        ));
        Self::written(writer, written)
    }

    /// What [`Structured::new`] wrote, or its error (not generic, and not inlined:
    /// compiled once).
    fn written(
        writer: JsonWriter,
        written: Result<(), serde_json::Error>,
    ) -> Result<Self, serde_json::Error> {
        written.map(|()| Self::from_json(writer.into_json()))
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

/// serde_json's compact output, with numbers as `serde_json::to_value` takes them, so
/// that the text parses back into the `Value` it would build.
struct AsValueWould;

impl Formatter for AsValueWould {
    fn write_f32<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        CompactFormatter.write_f64(writer, f64::from(value))
    }

    fn write_i128<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: i128) -> io::Result<()> {
        match (u64::try_from(value), i64::try_from(value)) {
            (Ok(value), _) => CompactFormatter.write_u64(writer, value),
            (_, Ok(value)) => CompactFormatter.write_i64(writer, value),
            _ => Err(out_of_range()),
        }
    }

    fn write_u128<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: u128) -> io::Result<()> {
        match u64::try_from(value) {
            Ok(value) => CompactFormatter.write_u64(writer, value),
            Err(_) => Err(out_of_range()),
        }
    }
}

fn out_of_range() -> io::Error {
    io::Error::other("number out of range: a JSON result's integers fit 64 bits")
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;

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
