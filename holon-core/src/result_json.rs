//! A call's result as compact JSON text: the bytes [`Structured`](crate::Structured)
//! keeps, and the serializer that writes them.
//!
//! The text is what `serde_json::to_value(result)` serializes to (the contract of a
//! structured result), written without building that `Value`. serde_json's own text
//! serializer writes nearly the same, but on the dispatch path it was the largest cost
//! of the envelope: it looks every byte of every key up in its escape table and writes
//! each token through `io::Write`. This serializer tests a string eight bytes at a time
//! and writes into a buffer that keeps a short result in place, without an allocation.
//! Where the two differ, this one follows `to_value`: an `f32` is widened to `f64`, an
//! integer must fit 64 bits, a `RawValue` is written compact. The differential tests
//! below hold it to `to_value` on generated values of every shape serde has. One
//! difference stays, as with serde_json's text: a key written twice (two flattened
//! fields of one name) is in the text twice, where `to_value` keeps the last.

use std::fmt::Display;

use serde::ser::{self, Impossible, Serialize};

/// The methods of [`MapKey`] for what JSON cannot have as a key: each refuses it.
macro_rules! not_a_key {
    ($($method:ident)*) => {
        $(not_a_key!(@one $method);)*
    };
    (@one bytes) => { fn serialize_bytes(self, _: &[u8]) -> Result<(), Self::Error> { Err(key_must_be_a_string()) } };
    (@one none) => { fn serialize_none(self) -> Result<(), Self::Error> { Err(key_must_be_a_string()) } };
    (@one some) => {
        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), Self::Error> { Err(key_must_be_a_string()) }
    };
    (@one unit) => { fn serialize_unit(self) -> Result<(), Self::Error> { Err(key_must_be_a_string()) } };
    (@one unit_struct) => {
        fn serialize_unit_struct(self, _: &'static str) -> Result<(), Self::Error> { Err(key_must_be_a_string()) }
    };
    (@one newtype_variant) => {
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self, _: &'static str, _: u32, _: &'static str, _: &T,
        ) -> Result<(), Self::Error> {
            Err(key_must_be_a_string())
        }
    };
    (@one seq) => {
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Self::Error> { Err(key_must_be_a_string()) }
    };
    (@one tuple) => {
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Self::Error> { Err(key_must_be_a_string()) }
    };
    (@one tuple_struct) => {
        fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Self::Error> {
            Err(key_must_be_a_string())
        }
    };
    (@one tuple_variant) => {
        fn serialize_tuple_variant(
            self, _: &'static str, _: u32, _: &'static str, _: usize,
        ) -> Result<Self::SerializeTupleVariant, Self::Error> {
            Err(key_must_be_a_string())
        }
    };
    (@one map) => {
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Self::Error> { Err(key_must_be_a_string()) }
    };
    (@one struct) => {
        fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Self::Error> {
            Err(key_must_be_a_string())
        }
    };
    (@one struct_variant) => {
        fn serialize_struct_variant(
            self, _: &'static str, _: u32, _: &'static str, _: usize,
        ) -> Result<Self::SerializeStructVariant, Self::Error> {
            Err(key_must_be_a_string())
        }
    };
}

/// Serializer methods that write an integer, each by the serializer's `write_integer`.
macro_rules! integers {
    ($($method:ident: $type:ty),* $(,)?) => {
        $(
            #[inline]
            fn $method(self, value: $type) -> Result<(), Self::Error> {
                self.write_integer(value)
            }
        )*
    };
}

/// The impls of the compounds whose parts are elements, without keys.
macro_rules! elements {
    ($($trait:ident::$method:ident),* $(,)?) => {
        $(
            impl ser::$trait for Compound<'_> {
                type Ok = ();
                type Error = serde_json::Error;

                #[inline]
                fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Self::Error> {
                    self.element(value)
                }

                #[inline]
                fn end(self) -> Result<(), Self::Error> {
                    Compound::end(self)
                }
            }
        )*
    };
}

/// The longest JSON kept in place: what fits beside the tag and the length in the
/// 32 bytes the enum takes anyway.
pub(crate) const INLINE: usize = 30;

/// The bytes of a result's JSON: a short one (`{"ok":true}`) in place, without an
/// allocation; a longer one in the buffer it was written to.
#[derive(Clone)]
pub(crate) enum Json {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Vec<u8>),
}

impl Json {
    /// The compact JSON of `value`, or why serde could not serialize it.
    #[inline]
    pub(crate) fn write<T: Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        let mut writer = JsonWriter::new();
        let written = value.serialize(&mut writer);
        writer.finish(written)
    }

    /// The JSON of `bytes`, in place when it fits.
    pub(crate) fn of(bytes: Vec<u8>) -> Self {
        let mut inline = [0; INLINE];
        match (inline.get_mut(..bytes.len()), u8::try_from(bytes.len())) {
            (Some(slot), Ok(len)) => {
                slot.copy_from_slice(&bytes);
                Self::Inline { len, bytes: inline }
            }
            _ => Self::Heap(bytes),
        }
    }

    pub(crate) fn as_bytes(&self) -> &[u8] {
        match self {
            Self::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Self::Heap(bytes) => bytes,
        }
    }
}

/// Where a result is serialized: in place while it fits [`INLINE`] bytes, then, from
/// the write that does not fit on, in a `Vec`. It is the serializer, too.
pub(crate) struct JsonWriter {
    /// The bytes written in place; [`SPILLED`] once they moved to `heap`, so that
    /// the one test of a write, whether it fits in place, also sees that.
    len: usize,
    inline: [u8; INLINE],
    heap: Vec<u8>,
}

/// [`JsonWriter::len`] once the writer writes to its `Vec`: past the end of `inline`.
const SPILLED: usize = INLINE + 1;

impl JsonWriter {
    fn new() -> Self {
        Self {
            len: 0,
            inline: [0; INLINE],
            heap: Vec::new(),
        }
    }

    #[inline]
    fn extend(&mut self, bytes: &[u8]) {
        // No overflow: `len` is at most `SPILLED`, and a slice is at most `isize::MAX` long.
        let end = self.len + bytes.len();
        match self.inline.get_mut(self.len..end) {
            Some(slot) => {
                copy_short(slot, bytes);
                self.len = end;
            }
            None => self.extend_spilled(bytes),
        }
    }

    #[inline]
    fn push(&mut self, byte: u8) {
        self.extend(&[byte]);
    }

    /// A write that does not fit in place: to the `Vec`, which it first creates
    /// with what was written in place.
    #[cold]
    #[inline(never)]
    fn extend_spilled(&mut self, bytes: &[u8]) {
        if self.len != SPILLED {
            let mut heap = Vec::with_capacity((2 * (self.len + bytes.len())).max(128));
            heap.extend_from_slice(&self.inline[..self.len]);
            self.heap = heap;
            self.len = SPILLED;
        }
        self.heap.extend_from_slice(bytes);
    }

    /// How many bytes were written.
    fn position(&self) -> usize {
        if self.len == SPILLED {
            self.heap.len()
        } else {
            self.len
        }
    }

    /// Takes back what was written from `at` on.
    fn split_off(&mut self, at: usize) -> Vec<u8> {
        if self.len == SPILLED {
            self.heap.split_off(at)
        } else {
            let taken = self.inline[at..self.len].to_vec();
            self.len = at;
            taken
        }
    }

    /// What was written, or the error.
    #[inline]
    fn finish(mut self, written: Result<(), serde_json::Error>) -> Result<Json, serde_json::Error> {
        written.map(|()| self.take_json())
    }

    /// What was written, taken out of the writer.
    fn take_json(&mut self) -> Json {
        match u8::try_from(self.len) {
            Ok(len) if self.len <= INLINE => Json::Inline {
                len,
                bytes: self.inline,
            },
            _ => Json::Heap(std::mem::take(&mut self.heap)),
        }
    }

    /// A JSON string: quoted, and escaped where it has to be.
    #[inline]
    fn string(&mut self, text: &str) {
        let bytes = text.as_bytes();
        if is_plain(bytes) {
            self.push(b'"');
            self.extend(bytes);
            self.push(b'"');
        } else {
            self.escaped(bytes);
        }
    }

    /// A string with a character JSON escapes, escaped as serde_json escapes it.
    #[cold]
    #[inline(never)]
    fn escaped(&mut self, bytes: &[u8]) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        self.push(b'"');
        let mut run = 0;
        for (index, &byte) in bytes.iter().enumerate() {
            let escape: &[u8] = match byte {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0x08 => b"\\b",
                0x0c => b"\\f",
                0..0x20 => &[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(byte >> 4)],
                    HEX[usize::from(byte & 0xf)],
                ],
                _ => continue,
            };
            self.extend(&bytes[run..index]);
            self.extend(escape);
            run = index + 1;
        }
        self.extend(&bytes[run..]);
        self.push(b'"');
    }

    #[inline]
    fn integer(&mut self, value: impl itoa::Integer) {
        self.extend(itoa::Buffer::new().format(value).as_bytes());
    }

    /// An integer, as a serializer method returns.
    #[inline]
    fn write_integer(&mut self, value: impl itoa::Integer) -> Result<(), serde_json::Error> {
        self.integer(value);
        Ok(())
    }

    /// An integer as a string, as a map key.
    fn quoted_integer(&mut self, value: impl itoa::Integer) {
        self.push(b'"');
        self.integer(value);
        self.push(b'"');
    }

    /// The start of a variant's object: `{"name":`.
    fn variant(&mut self, variant: &str) {
        self.push(b'{');
        self.string(variant);
        self.push(b':');
    }

    /// The start of an array or an object, and the compound that writes the rest.
    #[inline]
    fn compound(&mut self, close: Close) -> Compound<'_> {
        match close {
            Close::Array | Close::VariantArray => self.push(b'['),
            Close::Object | Close::VariantObject => self.push(b'{'),
            Close::RawValue => {}
        }
        Compound {
            out: self,
            first: true,
            close,
        }
    }
}

/// `dst.copy_from_slice(src)`, with two fixed-size moves when `src` is at most 16
/// bytes long, as most of what a serializer writes is (a key, a number): inlined, that
/// is a few instructions, where a call of `memcpy` is some twenty.
#[inline(always)]
fn copy_short(dst: &mut [u8], src: &[u8]) {
    fn pair<const N: usize>(dst: &mut [u8], src: &[u8]) {
        let tail = src.len() - N;
        dst[..N].copy_from_slice(&src[..N]);
        dst[tail..].copy_from_slice(&src[tail..]);
    }
    match src.len() {
        0 => {}
        1 => dst[0] = src[0],
        2..4 => pair::<2>(dst, src),
        4..8 => pair::<4>(dst, src),
        8..=16 => pair::<8>(dst, src),
        _ => dst.copy_from_slice(src),
    }
}

/// Whether `bytes` can be written between quotes as they are: no control character,
/// no `"` and no `\`. Eight bytes at a time, each word by the bit trick of testing
/// for a zero byte (Mycroft's), which is exact about whether a word has one.
#[inline]
fn is_plain(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH_BITS: u64 = u64::from_ne_bytes([0x80; 8]);
    fn has_escape(word: u64) -> bool {
        let control = word.wrapping_sub(ONES * 0x20);
        let quote = word ^ (ONES * u64::from(b'"'));
        let backslash = word ^ (ONES * u64::from(b'\\'));
        let quote = quote.wrapping_sub(ONES) & !quote;
        let backslash = backslash.wrapping_sub(ONES) & !backslash;
        (control & !word | quote | backslash) & HIGH_BITS != 0
    }
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut eight = [0; 8];
        eight.copy_from_slice(word);
        if has_escape(u64::from_ne_bytes(eight)) {
            return false;
        }
    }
    words
        .remainder()
        .iter()
        .all(|&byte| byte >= 0x20 && byte != b'"' && byte != b'\\')
}

fn error(message: impl Display) -> serde_json::Error {
    <serde_json::Error as ser::Error>::custom(message)
}

fn key_must_be_a_string() -> serde_json::Error {
    error("key must be a string")
}

fn out_of_range() -> serde_json::Error {
    error("number out of range: a JSON result's integers fit 64 bits")
}

/// The name serde_json's `RawValue` serializes as: a struct of one field, the raw text.
const RAW_VALUE: &str = "$serde_json::private::RawValue";

impl<'a> ser::Serializer for &'a mut JsonWriter {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    #[inline]
    fn serialize_bool(self, value: bool) -> Result<(), Self::Error> {
        self.extend(if value { b"true" } else { b"false" });
        Ok(())
    }

    integers!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64);
    integers!(serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64);

    fn serialize_i128(self, value: i128) -> Result<(), Self::Error> {
        match (u64::try_from(value), i64::try_from(value)) {
            (Ok(value), _) => self.write_integer(value),
            (_, Ok(value)) => self.write_integer(value),
            _ => Err(out_of_range()),
        }
    }

    fn serialize_u128(self, value: u128) -> Result<(), Self::Error> {
        self.write_integer(u64::try_from(value).map_err(|_| out_of_range())?)
    }

    /// Widened, as `to_value` keeps an `f32`.
    fn serialize_f32(self, value: f32) -> Result<(), Self::Error> {
        self.serialize_f64(f64::from(value))
    }

    /// `null` when not finite, as `to_value` has it.
    fn serialize_f64(self, value: f64) -> Result<(), Self::Error> {
        if value.is_finite() {
            self.extend(zmij::Buffer::new().format_finite(value).as_bytes());
        } else {
            self.extend(b"null");
        }
        Ok(())
    }

    fn serialize_char(self, value: char) -> Result<(), Self::Error> {
        self.string(value.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    #[inline]
    fn serialize_str(self, value: &str) -> Result<(), Self::Error> {
        self.string(value);
        Ok(())
    }

    /// An array of the byte values.
    fn serialize_bytes(self, value: &[u8]) -> Result<(), Self::Error> {
        let mut bytes = self.compound(Close::Array);
        for byte in value {
            ser::SerializeSeq::serialize_element(&mut bytes, byte)?;
        }
        ser::SerializeSeq::end(bytes)
    }

    #[inline]
    fn serialize_none(self) -> Result<(), Self::Error> {
        self.extend(b"null");
        Ok(())
    }

    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Self::Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Self::Error> {
        self.extend(b"null");
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Self::Error> {
        self.extend(b"null");
        Ok(())
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Self::Error> {
        self.string(variant);
        Ok(())
    }

    #[inline]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Self::Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Self::Error> {
        self.variant(variant);
        value.serialize(&mut *self)?;
        self.push(b'}');
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, Self::Error> {
        Ok(self.compound(Close::Array))
    }

    fn serialize_tuple(self, _len: usize) -> Result<Compound<'a>, Self::Error> {
        Ok(self.compound(Close::Array))
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Self::Error> {
        Ok(self.compound(Close::Array))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Self::Error> {
        self.variant(variant);
        Ok(self.compound(Close::VariantArray))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, Self::Error> {
        Ok(self.compound(Close::Object))
    }

    #[inline]
    fn serialize_struct(
        self,
        name: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Self::Error> {
        Ok(self.compound(if name == RAW_VALUE {
            Close::RawValue
        } else {
            Close::Object
        }))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Self::Error> {
        self.variant(variant);
        Ok(self.compound(Close::VariantObject))
    }
}

/// An array or an object being written.
pub(crate) struct Compound<'a> {
    out: &'a mut JsonWriter,
    /// Whether no element was written yet (none takes a `,` before it).
    first: bool,
    close: Close,
}

/// What a [`Compound`] is, so what ends it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Close {
    /// `]`.
    Array,
    /// `}`.
    Object,
    /// `]}`: a tuple variant's fields, in its object.
    VariantArray,
    /// `}}`: a struct variant's fields, in its object.
    VariantObject,
    /// Nothing: the one field of a `RawValue` is the JSON itself.
    RawValue,
}

impl Compound<'_> {
    #[inline]
    fn separate(&mut self) {
        if self.first {
            self.first = false;
        } else {
            self.out.push(b',');
        }
    }

    #[inline]
    fn end(self) -> Result<(), serde_json::Error> {
        match self.close {
            Close::Array => self.out.push(b']'),
            Close::Object => self.out.push(b'}'),
            Close::VariantArray => self.out.extend(b"]}"),
            Close::VariantObject => self.out.extend(b"}}"),
            Close::RawValue => {}
        }
        Ok(())
    }

    #[inline]
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), serde_json::Error> {
        self.separate();
        value.serialize(&mut *self.out)
    }
}

elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field,
);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Self::Error> {
        self.separate();
        key.serialize(MapKey { out: self.out })
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Self::Error> {
        self.out.push(b':');
        value.serialize(&mut *self.out)
    }

    fn end(self) -> Result<(), Self::Error> {
        Compound::end(self)
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = serde_json::Error;

    #[inline]
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Self::Error> {
        if self.close == Close::RawValue {
            let mark = self.out.position();
            value.serialize(&mut *self.out)?;
            return raw_value(self.out, mark);
        }
        self.separate();
        self.out.string(key);
        self.out.push(b':');
        value.serialize(&mut *self.out)
    }

    #[inline]
    fn end(self) -> Result<(), Self::Error> {
        Compound::end(self)
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Self::Error> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }

    fn end(self) -> Result<(), Self::Error> {
        Compound::end(self)
    }
}

/// The one field of a `RawValue`, its JSON text, which was just written as a string
/// from `mark` on: rewritten compact, as `to_value` parses it. Not generic, so that
/// no field type compiles a path of its own for it.
#[cold]
#[inline(never)]
fn raw_value(out: &mut JsonWriter, mark: usize) -> Result<(), serde_json::Error> {
    let quoted = out.split_off(mark);
    let text: String = serde_json::from_slice(&quoted)?;
    let mut deserializer = serde_json::Deserializer::from_str(&text);
    serde_transcode::transcode(&mut deserializer, &mut *out)?;
    deserializer.end()
}

/// The serializer of a map's key, which JSON writes as a string: a string, a
/// character, a unit variant, or a number or `bool` quoted, as `to_value` writes them.
struct MapKey<'a> {
    out: &'a mut JsonWriter,
}

impl MapKey<'_> {
    fn write_integer(self, value: impl itoa::Integer) -> Result<(), serde_json::Error> {
        self.out.quoted_integer(value);
        Ok(())
    }

    fn float(self, text: Option<&str>) -> Result<(), serde_json::Error> {
        let text = text.ok_or_else(|| error("float key must be finite (got NaN or +/-inf)"))?;
        self.out.string(text);
        Ok(())
    }
}

impl ser::Serializer for MapKey<'_> {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = Impossible<(), serde_json::Error>;
    type SerializeTuple = Impossible<(), serde_json::Error>;
    type SerializeTupleStruct = Impossible<(), serde_json::Error>;
    type SerializeTupleVariant = Impossible<(), serde_json::Error>;
    type SerializeMap = Impossible<(), serde_json::Error>;
    type SerializeStruct = Impossible<(), serde_json::Error>;
    type SerializeStructVariant = Impossible<(), serde_json::Error>;

    fn serialize_str(self, value: &str) -> Result<(), Self::Error> {
        self.out.string(value);
        Ok(())
    }

    fn serialize_char(self, value: char) -> Result<(), Self::Error> {
        self.out.string(value.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    fn serialize_bool(self, value: bool) -> Result<(), Self::Error> {
        self.out
            .extend(if value { b"\"true\"" } else { b"\"false\"" });
        Ok(())
    }

    integers!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64);
    integers!(serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32);
    integers!(serialize_u64: u64, serialize_u128: u128);

    /// Not widened: `to_value` writes an `f32` key as the `f32` it is.
    fn serialize_f32(self, value: f32) -> Result<(), Self::Error> {
        let mut buffer = zmij::Buffer::new();
        self.float(value.is_finite().then(|| buffer.format_finite(value)))
    }

    fn serialize_f64(self, value: f64) -> Result<(), Self::Error> {
        let mut buffer = zmij::Buffer::new();
        self.float(value.is_finite().then(|| buffer.format_finite(value)))
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Self::Error> {
        self.out.string(variant);
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Self::Error> {
        value.serialize(self)
    }

    not_a_key! {
        bytes none some unit unit_struct newtype_variant seq tuple tuple_struct tuple_variant
        map struct struct_variant
    }
}

#[cfg(test)]
mod tests {
    //! The oracle is `serde_json::to_value(x)`, serialized: the contract of a structured
    //! result. Every shape of serde's data model is generated, with strings heavy in
    //! the characters JSON escapes.

    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use serde::{Serialize, Serializer};
    use serde_json::Value;

    use super::*;

    fn written<T: Serialize + ?Sized>(value: &T) -> Result<String, String> {
        let json = Json::write(value).map_err(|error| error.to_string())?;
        Ok(String::from_utf8(json.as_bytes().to_vec()).expect("the serializer writes UTF-8"))
    }

    /// What `to_value` makes of `value`, as text; or that it refuses it.
    fn oracle<T: Serialize + ?Sized>(value: &T) -> Result<String, ()> {
        serde_json::to_value(value)
            .map(|value| value.to_string())
            .map_err(|_| ())
    }

    fn assert_as_to_value<T: Serialize + ?Sized + std::fmt::Debug>(value: &T) {
        match (written(value), oracle(value)) {
            (Ok(ours), Ok(theirs)) if ours != theirs => {
                let at = ours
                    .bytes()
                    .zip(theirs.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                let from = ours.floor_char_boundary(at.saturating_sub(40));
                panic!(
                    "{value:?}\nwritten:  {}\nto_value: {}",
                    &ours[from..],
                    &theirs[theirs.floor_char_boundary(from)..]
                );
            }
            (Ok(_), Ok(_)) => {}
            (Err(_), Err(())) => {}
            (ours, theirs) => panic!("{value:?}: written {ours:?}, to_value {theirs:?}"),
        }
    }

    /// Text with many of the characters JSON escapes, and some it does not.
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            proptest::collection::vec(
                prop_oneof![
                    Just('"'),
                    Just('\\'),
                    Just('\n'),
                    Just('\u{7f}'),
                    Just('é'),
                    Just('😀'),
                    (0u8..0x20).prop_map(char::from),
                    (0x20u8..0x7f).prop_map(char::from),
                ],
                0..40,
            )
            .prop_map(|chars| chars.into_iter().collect()),
        ]
    }

    fn number() -> impl Strategy<Value = Value> {
        prop_oneof![
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            prop_oneof![Just(0.0), Just(-0.0), Just(1e300), Just(5e-324), Just(0.1)]
                .prop_map(Value::from),
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            number(),
            text().prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::from),
                proptest::collection::vec((text(), inner), 0..8)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    #[derive(Debug, Clone, Serialize)]
    struct UnitStruct;

    #[derive(Debug, Clone, Serialize)]
    struct Newtype(String);

    #[derive(Debug, Clone, Serialize)]
    struct TupleStruct(i32, bool);

    #[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
    enum Key {
        North,
        #[serde(rename = "so\"uth")]
        South,
    }

    #[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
    struct KeyNewtype(u32);

    #[derive(Debug, Clone, Serialize)]
    enum Shape {
        Unit,
        Newtype(f64),
        Tuple(u8, String),
        Struct { a: Option<String>, b: Vec<u16> },
    }

    #[derive(Debug, Clone, Serialize)]
    #[serde(tag = "type")]
    enum Tagged {
        Circle { radius: f32 },
        Square { side: u64 },
    }

    #[derive(Debug, Clone, Serialize)]
    #[serde(tag = "t", content = "c")]
    enum Adjacent {
        Number(i16),
        Text(String),
    }

    #[derive(Debug, Clone, Serialize)]
    #[serde(untagged)]
    enum Untagged {
        Flag(bool),
        Pair(u8, u8),
    }

    #[derive(Debug, Clone, Serialize)]
    struct Flattened {
        extra: String,
        more: Option<i8>,
    }

    /// Bytes, which serde hands over as a slice.
    #[derive(Debug, Clone)]
    struct Bytes(Vec<u8>);

    impl Serialize for Bytes {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.serialize_bytes(&self.0)
        }
    }

    /// A map whose keys are floats, which no `BTreeMap` can have.
    #[derive(Debug, Clone)]
    struct FloatKeys(Vec<(f64, u8)>, Vec<(f32, u8)>);

    impl Serialize for FloatKeys {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeMap;
            let mut map = serializer.serialize_map(None)?;
            for (key, value) in &self.0 {
                map.serialize_entry(key, value)?;
            }
            for (key, value) in &self.1 {
                map.serialize_entry(key, value)?;
            }
            map.end()
        }
    }

    #[derive(Debug, Clone, Serialize)]
    struct Every {
        flag: bool,
        small: i8,
        short: i16,
        int: i32,
        long: i64,
        wide: i128,
        byte: u8,
        ushort: u16,
        uint: u32,
        ulong: u64,
        uwide: u128,
        single: f32,
        double: f64,
        letter: char,
        text: String,
        bytes: Bytes,
        maybe: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<u8>,
        #[serde(rename = "we\"ird\\key\n\u{1}")]
        renamed: u8,
        unit: (),
        unit_struct: UnitStruct,
        newtype: Newtype,
        tuple: (u8, String),
        tuple_struct: TupleStruct,
        shapes: Vec<Shape>,
        tagged: Tagged,
        adjacent: Adjacent,
        untagged: Untagged,
        by_text: BTreeMap<String, i32>,
        by_int: BTreeMap<i64, bool>,
        by_wide: BTreeMap<i128, bool>,
        by_bool: BTreeMap<bool, u8>,
        by_char: BTreeMap<char, u8>,
        by_variant: BTreeMap<Key, u8>,
        by_newtype: BTreeMap<KeyNewtype, u8>,
        by_float: FloatKeys,
        #[serde(flatten)]
        flattened: Flattened,
    }

    fn shape() -> impl Strategy<Value = Shape> {
        prop_oneof![
            Just(Shape::Unit),
            any::<f64>().prop_map(Shape::Newtype),
            (any::<u8>(), text()).prop_map(|(a, b)| Shape::Tuple(a, b)),
            (
                proptest::option::of(text()),
                proptest::collection::vec(any::<u16>(), 0..4)
            )
                .prop_map(|(a, b)| Shape::Struct { a, b }),
        ]
    }

    /// Mostly in the range a result may hold, sometimes past it.
    fn wide() -> impl Strategy<Value = i128> {
        prop_oneof![
            4 => any::<i64>().prop_map(i128::from),
            4 => any::<u64>().prop_map(i128::from),
            1 => any::<i128>(),
        ]
    }

    fn every() -> impl Strategy<Value = Every> {
        let scalars = (
            any::<bool>(),
            any::<i8>(),
            any::<i16>(),
            any::<i32>(),
            any::<i64>(),
            wide(),
            any::<u8>(),
            any::<u16>(),
            any::<u32>(),
            any::<u64>(),
            prop_oneof![9 => any::<u64>().prop_map(u128::from), 1 => any::<u128>()],
            any::<f32>(),
        );
        let texts = (
            any::<f64>(),
            any::<char>(),
            text(),
            proptest::collection::vec(any::<u8>(), 0..6).prop_map(Bytes),
            proptest::option::of(any::<u32>()),
            proptest::option::of(any::<u8>()),
            any::<u8>(),
            text().prop_map(Newtype),
            (any::<u8>(), text()),
            (any::<i32>(), any::<bool>()).prop_map(|(a, b)| TupleStruct(a, b)),
            proptest::collection::vec(shape(), 0..4),
        );
        let enums = (
            prop_oneof![
                any::<f32>().prop_map(|radius| Tagged::Circle { radius }),
                any::<u64>().prop_map(|side| Tagged::Square { side }),
            ],
            prop_oneof![
                any::<i16>().prop_map(Adjacent::Number),
                text().prop_map(Adjacent::Text),
            ],
            prop_oneof![
                any::<bool>().prop_map(Untagged::Flag),
                (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Untagged::Pair(a, b)),
            ],
            (text(), proptest::option::of(any::<i8>()))
                .prop_map(|(extra, more)| Flattened { extra, more }),
        );
        let maps = (
            proptest::collection::btree_map(text(), any::<i32>(), 0..4),
            proptest::collection::btree_map(any::<i64>(), any::<bool>(), 0..4),
            proptest::collection::btree_map(any::<i128>(), any::<bool>(), 0..3),
            proptest::collection::btree_map(any::<bool>(), any::<u8>(), 0..3),
            proptest::collection::btree_map(any::<char>(), any::<u8>(), 0..3),
            proptest::collection::btree_map(
                prop_oneof![Just(Key::North), Just(Key::South)],
                any::<u8>(),
                0..3,
            ),
            proptest::collection::btree_map(any::<u32>().prop_map(KeyNewtype), any::<u8>(), 0..3),
            (
                proptest::collection::vec((any::<f64>(), any::<u8>()), 0..3),
                proptest::collection::vec((any::<f32>(), any::<u8>()), 0..3),
            )
                .prop_map(|(wide, narrow)| {
                    // A key twice is the one case where the text and `to_value` differ.
                    let mut seen = std::collections::BTreeSet::new();
                    let mut key = |text: String| seen.insert(text);
                    FloatKeys(
                        wide.into_iter()
                            .filter(|(k, _)| key(format!("{k:?}")))
                            .collect(),
                        narrow
                            .into_iter()
                            .filter(|(k, _)| key(format!("{k:?}")))
                            .collect(),
                    )
                }),
        );
        (scalars, texts, enums, maps).prop_map(|(scalars, texts, enums, maps)| Every {
            flag: scalars.0,
            small: scalars.1,
            short: scalars.2,
            int: scalars.3,
            long: scalars.4,
            wide: scalars.5,
            byte: scalars.6,
            ushort: scalars.7,
            uint: scalars.8,
            ulong: scalars.9,
            uwide: scalars.10,
            single: scalars.11,
            double: texts.0,
            letter: texts.1,
            text: texts.2,
            bytes: texts.3,
            maybe: texts.4,
            skipped: texts.5,
            renamed: texts.6,
            unit: (),
            unit_struct: UnitStruct,
            newtype: texts.7,
            tuple: texts.8,
            tuple_struct: texts.9,
            shapes: texts.10,
            tagged: enums.0,
            adjacent: enums.1,
            untagged: enums.2,
            flattened: enums.3,
            by_text: maps.0,
            by_int: maps.1,
            by_wide: maps.2,
            by_bool: maps.3,
            by_char: maps.4,
            by_variant: maps.5,
            by_newtype: maps.6,
            by_float: maps.7,
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn values_are_written_as_serde_json_writes_them(value in value()) {
            prop_assert_eq!(written(&value), Ok(value.to_string()));
        }

        #[test]
        fn every_shape_is_written_as_to_value_has_it(every in every()) {
            assert_as_to_value(&every);
        }

        #[test]
        fn strings_are_escaped_as_serde_json_escapes_them(text in text()) {
            prop_assert_eq!(written(&text), Ok(serde_json::to_string(&text).unwrap()));
            let plain = text.bytes().all(|byte| byte >= 0x20 && byte != b'"' && byte != b'\\');
            prop_assert_eq!(is_plain(text.as_bytes()), plain);
        }
    }

    /// Each byte JSON escapes, at each position of the eight-byte words and of the
    /// rest after them.
    #[test]
    fn finds_every_character_to_escape_wherever_it_is() {
        for byte in 0..=0x7fu8 {
            for len in 1..=20 {
                for at in 0..len {
                    let mut text = vec![b'a'; len];
                    text[at] = byte;
                    let text = String::from_utf8(text).unwrap();
                    assert_eq!(
                        written(&text).unwrap(),
                        serde_json::to_string(&text).unwrap(),
                        "{byte:#x} at {at} of {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn refuses_what_to_value_refuses() {
        assert_as_to_value(&u128::MAX);
        assert_as_to_value(&i128::MIN);
        assert!(written(&u128::MAX).is_err());
        assert!(written(&FloatKeys(vec![(f64::NAN, 1)], vec![])).is_err());
        assert!(written(&FloatKeys(vec![], vec![(f32::INFINITY, 1)])).is_err());
        let by_list = BTreeMap::from([(vec![1u8], 2u8)]);
        assert_as_to_value(&by_list);
        assert!(written(&by_list).is_err());
        let by_option = BTreeMap::from([(Some(1u8), 2u8)]);
        assert_as_to_value(&by_option);
        assert!(written(&by_option).is_err());
    }

    #[test]
    fn writes_a_raw_value_compact_as_to_value_parses_it() {
        let raw = serde_json::value::RawValue::from_string(
            "{ \"a\" : [1, 2.50, \"x\\u0041\"], \"b\": {} }".to_string(),
        )
        .unwrap();
        assert_eq!(written(&raw).unwrap(), r#"{"a":[1,2.5,"xA"],"b":{}}"#);
        assert_as_to_value(&BTreeMap::from([("raw", raw)]));
    }

    #[test]
    fn keeps_short_results_in_place_and_spills_long_ones() {
        for len in 0..80 {
            let items: Vec<u8> = (0..len).collect();
            let json = Json::write(&items).unwrap();
            let text = serde_json::to_string(&items).unwrap();
            assert_eq!(json.as_bytes(), text.as_bytes());
            assert_eq!(matches!(json, Json::Inline { .. }), text.len() <= INLINE);
        }
    }
}
