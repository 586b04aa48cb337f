//! The structured result of a call, kept as the compact JSON text it serializes to.
//!
//! A tool's typed result is serialized once, straight to text, when the call ends,
//! into a scratch buffer the thread keeps warm, then copied: in place when it is
//! short, else into one allocation of its size. No `Value` tree is built on the
//! dispatch path (with serde_json's `preserve_order`, each object would be an
//! `IndexMap` with a SipHash table). Consumers that walk the result
//! (receipts, tests) get a `Value`, parsed on first use and kept; consumers that
//! serialize it (MCP, the CLI, receipts' JSON) get the same output as from that `Value`.

use std::cell::Cell;
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
/// allocation; a longer one in an allocation of its exact size.
#[derive(Clone)]
enum Json {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Box<[u8]>),
}

/// The longest JSON kept in place: what fits beside the tag and the length in the
/// 32 bytes the enum takes anyway.
const INLINE: usize = 30;

/// The largest scratch buffer a thread keeps between results; a larger one (left by
/// a huge result) is freed.
const SCRATCH_KEPT: usize = 64 * 1024;

thread_local! {
    /// Where each result is serialized before it is copied to its `Json`: a warm
    /// buffer that does not grow step by step for each result.
    static SCRATCH: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

impl Json {
    fn of(bytes: &[u8]) -> Self {
        match u8::try_from(bytes.len()) {
            Ok(len) if bytes.len() <= INLINE => {
                let mut inline = [0; INLINE];
                inline[..bytes.len()].copy_from_slice(bytes);
                Self::Inline { len, bytes: inline }
            }
            _ => Self::Heap(Box::from(bytes)),
        }
    }

    fn as_bytes(&self) -> &[u8] {
        match self {
            Self::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Self::Heap(bytes) => bytes,
        }
    }
}

impl Structured {
    /// Serializes `value` as `serde_json::to_value` would see it: an `f32` is widened
    /// to `f64`, a 128-bit integer must fit 64 bits. The text holds what the `Value` of
    /// `to_value` would serialize to.
    pub fn new<T: Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        // One function per result type, as few lines as it can be: it is compiled for
        // every tool.
        let mut scratch = Self::scratch();
        let written = value.serialize(&mut serde_json::Serializer::with_formatter(
            &mut scratch,
            AsValueWould,
        ));
        Self::written(scratch, written)
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

    /// This thread's scratch buffer, empty (a fresh one while another result is
    /// being serialized on this thread, by a `Serialize` that makes a result itself).
    fn scratch() -> Vec<u8> {
        let mut scratch = SCRATCH.try_with(Cell::take).unwrap_or_default();
        scratch.reserve(128);
        scratch
    }

    /// What [`Structured::new`] wrote, or its error, with the scratch buffer handed
    /// back to the thread (not generic, and not inlined: compiled once).
    fn written(
        mut scratch: Vec<u8>,
        written: Result<(), serde_json::Error>,
    ) -> Result<Self, serde_json::Error> {
        let structured = written.map(|()| Self::from_json(Json::of(&scratch)));
        if scratch.capacity() <= SCRATCH_KEPT {
            scratch.clear();
            // A thread being torn down keeps nothing.
            let _ = SCRATCH.try_with(|kept| kept.set(scratch));
        }
        structured
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
        let structured = Self::from_json(Json::of(value.to_string().as_bytes()));
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
            assert_eq!(Structured::from(value.clone()).as_str(), value.to_string());
        }
    }

    /// A `Serialize` that makes a result of its own while it is serialized.
    struct Nested(u32);

    impl Serialize for Nested {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let inner = Structured::new(&json!({ "inner": "y".repeat(100) })).unwrap();
            serializer.serialize_str(&format!("{}:{}", self.0, inner.as_str().len()))
        }
    }

    #[test]
    fn a_result_made_while_another_is_serialized_keeps_both_intact() {
        let outer = Structured::new(&[Nested(1), Nested(2)]).unwrap();
        assert_eq!(outer.as_str(), r#"["1:112","2:112"]"#);
        let next = Structured::new(&json!({"after": true})).unwrap();
        assert_eq!(next.as_str(), r#"{"after":true}"#);
    }

    #[test]
    fn a_thread_keeps_no_huge_scratch_buffer_and_gets_it_back_after_an_error() {
        let huge = "z".repeat(SCRATCH_KEPT * 2);
        assert_eq!(
            Structured::new(&huge).unwrap().as_str().len(),
            huge.len() + 2
        );
        let kept = SCRATCH.with(|scratch| {
            let buffer = scratch.take();
            let capacity = buffer.capacity();
            scratch.set(buffer);
            capacity
        });
        assert!(kept <= SCRATCH_KEPT, "{kept}");
        assert!(Structured::new(&u128::MAX).is_err());
        let capacity = SCRATCH.with(|scratch| {
            let buffer = scratch.take();
            let capacity = (buffer.len(), buffer.capacity());
            scratch.set(buffer);
            capacity
        });
        assert_eq!(capacity.0, 0);
        assert!(capacity.1 >= 128, "the buffer came back: {capacity:?}");
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
