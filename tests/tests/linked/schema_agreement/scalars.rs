//! Strategies for the scalar parts of a schema: integers, numbers, strings and enum
//! values, each valid or just outside what the schema allows.

use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, Just, Union};
use serde_json::{Value, json};

/// Values of every JSON type, for places where any value will do.
pub fn palette_values() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(false),
        json!(0),
        json!(7),
        json!(-3),
        json!(2.5),
        json!(""),
        json!("text"),
        json!([]),
        json!([1, "a"]),
        json!({}),
        json!({ "k": 1 }),
    ]
}

/// Any value of the palette.
pub fn palette() -> BoxedStrategy<Value> {
    proptest::sample::select(palette_values()).boxed()
}

/// Whether `value` is of the JSON Schema type `ty`.
pub fn type_matches(ty: &str, value: &Value) -> bool {
    match ty {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => value.as_f64().is_some_and(|n| n.fract() == 0.0),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => false,
    }
}

/// `[[[...1...]]]`, `levels` arrays deep.
pub fn deep(levels: usize) -> Value {
    let mut value = json!(1);
    for _ in 0..levels {
        value = Value::Array(vec![value]);
    }
    value
}

/// A count keyword (`minItems`, `maxLength`, ...).
pub fn count(schema: &Value, key: &str) -> Option<usize> {
    schema
        .get(key)
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
}

/// The range an integer schema allows: its bounds, else its format's, else `i64`'s.
pub fn integer_bounds(schema: &Value) -> (i128, i128) {
    let format = schema.get("format").and_then(Value::as_str).unwrap_or("");
    let (format_lo, format_hi): (i128, i128) = match format {
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "uint" => (0, usize::MAX as i128),
        "uint64" => (0, u64::MAX.into()),
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int" => (isize::MIN as i128, isize::MAX as i128),
        _ => (i64::MIN.into(), i64::MAX.into()),
    };
    let bound = |key: &str, exclusive: &str, step: f64| {
        let inclusive = schema.get(key).and_then(Value::as_f64);
        let exclusive = schema
            .get(exclusive)
            .and_then(Value::as_f64)
            .map(|n| n + step);
        inclusive.or(exclusive)
    };
    let lo = bound("minimum", "exclusiveMinimum", 1.0).map_or(format_lo, |n| n.ceil() as i128);
    let hi = bound("maximum", "exclusiveMaximum", -1.0).map_or(format_hi, |n| n.floor() as i128);
    (lo, hi.max(lo))
}

/// An integer as JSON: `i64` or `u64` when it fits, else a float.
pub fn integer(n: i128) -> Value {
    if let Ok(small) = i64::try_from(n) {
        json!(small)
    } else if let Ok(big) = u64::try_from(n) {
        json!(big)
    } else {
        json!(n as f64)
    }
}

/// Integers the schema allows, with the bounds themselves and values near the floor
/// more likely than the rest.
pub fn integers(schema: &Value) -> BoxedStrategy<Value> {
    let (lo, hi) = integer_bounds(schema);
    Union::new_weighted(vec![
        (1, Just(lo).boxed()),
        (1, Just(hi).boxed()),
        (3, (lo..=hi.min(lo.saturating_add(1_000))).boxed()),
        (2, (lo..=hi).boxed()),
    ])
    .prop_map(integer)
    .boxed()
}

/// A `number` keyword as a float.
pub fn number(schema: &Value, key: &str) -> Option<f64> {
    schema.get(key).and_then(Value::as_f64)
}

/// Numbers the schema allows.
pub fn numbers(schema: &Value) -> BoxedStrategy<Value> {
    let lo = number(schema, "minimum").unwrap_or(-1e9);
    let hi = number(schema, "maximum").unwrap_or(1e9).max(lo);
    (lo..=hi).prop_map(|n| json!(n)).boxed()
}

/// Numbers at or past the edges of an integer or number schema: one past each bound,
/// integral floats (`5.0`), fractions, and values past every integer type.
pub fn numbers_out_of_range(schema: &Value) -> BoxedStrategy<Value> {
    let (lo, hi) = integer_bounds(schema);
    let mut edges = vec![
        integer(lo - 1),
        integer(hi + 1),
        json!(lo as f64 + 0.5),
        json!(-1),
        json!(u64::MAX),
        json!(18_446_744_073_709_551_616.0_f64),
        json!(i64::MIN),
        json!(1e300),
        json!(-0.0),
    ];
    edges.retain(|value| !value.is_null());
    let span = hi.min(lo.saturating_add(1_000));
    Union::new_weighted(vec![
        (3, proptest::sample::select(edges).boxed()),
        (2, (lo..=span).prop_map(|n| json!(n as f64)).boxed()),
        (1, (lo..=span).prop_map(|n| json!(n as f64 + 0.25)).boxed()),
    ])
    .boxed()
}

/// Characters of every width: ASCII, two-byte, four-byte, white space, control.
fn chars() -> BoxedStrategy<char> {
    Union::new_weighted(vec![
        (8, proptest::char::range('a', 'z').boxed()),
        (1, Just(' ').boxed()),
        (1, Just('é').boxed()),
        (1, Just('😀').boxed()),
        (1, Just('\n').boxed()),
        (1, proptest::char::range('\u{0}', '\u{1f}').boxed()),
    ])
    .boxed()
}

fn of_length(min: usize, max: usize) -> BoxedStrategy<Value> {
    if max <= 64 {
        proptest::collection::vec(chars(), min..=max)
            .prop_map(|chars| Value::String(chars.into_iter().collect()))
            .boxed()
    } else {
        // Long strings repeat one character, so that generating (and shrinking) them
        // stays cheap.
        (min..=max, chars())
            .prop_map(|(length, c)| Value::String(c.to_string().repeat(length)))
            .boxed()
    }
}

/// Strings the schema allows: of its lengths, or generated from its pattern.
pub fn strings(schema: &Value) -> BoxedStrategy<Value> {
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
        && let Ok(strategy) = proptest::string::string_regex(pattern)
    {
        return strategy.prop_map(Value::String).boxed();
    }
    let min = count(schema, "minLength").unwrap_or(0);
    let max = count(schema, "maxLength");
    let short = max.unwrap_or(usize::MAX).min(min + 12);
    let mut options = vec![(6, of_length(min, short)), (1, of_length(min, min))];
    if let Some(max) = max {
        options.push((1, of_length(max.saturating_sub(1).max(min), max)));
    }
    Union::new_weighted(options).boxed()
}

/// Strings just outside the schema's lengths or pattern.
pub fn strings_out_of_range(schema: &Value) -> BoxedStrategy<Value> {
    let min = count(schema, "minLength").unwrap_or(0);
    let mut options = vec![(1, of_length(0, 3))];
    if min > 0 {
        options.push((3, of_length(0, min - 1)));
    }
    if let Some(max) = count(schema, "maxLength") {
        options.push((3, of_length(max + 1, max + 2)));
    }
    if schema.get("pattern").is_some() {
        options.push((3, "[ -~]{0,12}".prop_map(Value::String).boxed()));
    }
    Union::new_weighted(options).boxed()
}

/// Values near but outside `allowed`: other case, a letter more or less, an empty
/// string, a value of another type.
pub fn off_enum(allowed: Vec<Value>) -> BoxedStrategy<Value> {
    let mut near: Vec<Value> = vec![json!(""), json!("other"), json!(1)];
    for value in &allowed {
        if let Some(text) = value.as_str() {
            near.push(json!(text.to_uppercase()));
            near.push(json!(format!("{text}x")));
            near.push(json!(text.chars().skip(1).collect::<String>()));
            near.push(json!(text.replace('_', "-")));
        }
    }
    near.retain(|value| !allowed.contains(value));
    proptest::sample::select(near).boxed()
}

/// Likely misspellings of a field name: a letter dropped, another case, dashes.
pub fn typos_of(name: &str) -> Vec<String> {
    let mut typos = vec![
        name.to_uppercase(),
        name.replace('_', "-"),
        format!("{name}s"),
    ];
    let chars = name.chars().count();
    if chars > 1 {
        typos.push(name.chars().take(chars - 1).collect());
    }
    typos.retain(|typo| typo != name);
    typos
}
