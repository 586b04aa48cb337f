//! [`ClosedInput`]: the compile-time half of "every object in a tool's arguments
//! rejects unknown fields". The derives implement it only for a type that rejects them
//! (`#[serde(deny_unknown_fields)]`) and whose own field types implement it too, so a
//! nested struct of the author's that forgot the attribute is a compile error at the
//! field. A type of another crate cannot implement it (the orphan rule): its field is
//! marked `#[tool_args(foreign)]`, and the registry checks its schema when it is built.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

/// A type that may appear in tool arguments: as JSON, every object in it rejects
/// unknown fields. Derive it with `#[derive(ToolArgs)]` (the arguments themselves)
/// or `#[derive(ClosedInput)]` (a struct or enum nested in them).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is nested in tool arguments but is not known to reject unknown fields",
    label = "`{Self}` does not implement `ClosedInput`",
    note = "add `#[derive(ClosedInput)]` to `{Self}` (with `#[serde(deny_unknown_fields)]` when it has named fields), so that a model's misspelt field inside it is refused; for a type of another crate, mark the field `#[tool_args(foreign)]` (the registry then checks that its schema is closed)"
)]
pub trait ClosedInput {}

macro_rules! closed {
    ($($ty:ty),* $(,)?) => { $(impl ClosedInput for $ty {})* };
}

// Scalars and strings: no object inside.
closed!(
    bool,
    char,
    String,
    str,
    PathBuf,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    f32,
    f64,
    ()
);

/// Any JSON value, by the author's choice: there is no object to close.
impl ClosedInput for serde_json::Value {}
/// A JSON object whose keys are data.
impl ClosedInput for serde_json::Map<String, serde_json::Value> {}

impl<T: ClosedInput + ?Sized> ClosedInput for Box<T> {}
impl<T: ClosedInput + ?Sized> ClosedInput for Arc<T> {}
impl<T: ClosedInput + ?Sized> ClosedInput for Rc<T> {}
impl<T: ClosedInput> ClosedInput for Option<T> {}
impl<T: ClosedInput> ClosedInput for Vec<T> {}
impl<T: ClosedInput> ClosedInput for [T] {}
impl<T: ClosedInput, const N: usize> ClosedInput for [T; N] {}
impl<T: ClosedInput> ClosedInput for VecDeque<T> {}
impl<T: ClosedInput> ClosedInput for BTreeSet<T> {}
impl<T: ClosedInput, S> ClosedInput for HashSet<T, S> {}
// A map's keys are data, not fields: only its values must be closed.
impl<K, V: ClosedInput> ClosedInput for BTreeMap<K, V> {}
impl<K, V: ClosedInput, S> ClosedInput for HashMap<K, V, S> {}
impl ClosedInput for std::borrow::Cow<'_, str> {}

macro_rules! closed_tuples {
    ($(($($name:ident),+)),* $(,)?) => {
        $(impl<$($name: ClosedInput),+> ClosedInput for ($($name,)+) {})*
    };
}

closed_tuples!((A), (A, B), (A, B, C), (A, B, C, D));

// Strings as JSON, parsed by the type (holon-core's `uuid` and `chrono` features).
#[cfg(feature = "uuid")]
impl ClosedInput for uuid::Uuid {}
#[cfg(feature = "chrono")]
impl<Tz: chrono::TimeZone> ClosedInput for chrono::DateTime<Tz> {}
#[cfg(feature = "chrono")]
impl ClosedInput for chrono::NaiveDate {}
