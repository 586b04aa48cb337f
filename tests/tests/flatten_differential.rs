//! `#[serde(flatten)]` in tool arguments, decided by a differential test: over
//! generated inputs, a struct that flattens a closed struct (both with
//! `#[serde(deny_unknown_fields)]`) accepts and refuses exactly what the same fields
//! declared directly accept and refuse, unknown fields included, at every level.

use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{Map, Value, json};

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Flattened {
    path: String,
    #[serde(flatten)]
    paging: Paging,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Paging {
    offset: u32,
    #[serde(default)]
    limit: Option<u8>,
    #[serde(default)]
    sort: Option<Sort>,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Sort {
    by: String,
    #[serde(default)]
    descending: bool,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Direct {
    path: String,
    offset: u32,
    #[serde(default)]
    limit: Option<u8>,
    #[serde(default)]
    sort: Option<Sort>,
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (0u32..300).prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        "[a-z]{0,3}".prop_map(Value::String),
    ]
}

fn object(keys: &'static [&'static str], value: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    proptest::collection::vec((proptest::sample::select(keys), value), 0..6)
        .prop_map(|pairs| {
            Value::Object(
                pairs
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect::<Map<_, _>>(),
            )
        })
        .boxed()
}

/// Objects over the fields of both structs and misspellings, at two levels.
fn input() -> BoxedStrategy<Value> {
    let sort = object(&["by", "descending", "desc", "extra"], scalar().boxed());
    let value = prop_oneof![4 => scalar(), 1 => sort].boxed();
    object(
        &["path", "offset", "limit", "sort", "ofset", "extra"],
        value,
    )
}

fn outcome<T: for<'de> Deserialize<'de>>(input: &Value) -> bool {
    serde_json::from_value::<T>(input.clone()).is_ok()
        && serde_json::from_str::<T>(&input.to_string()).is_ok()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn flattened_and_direct_fields_accept_the_same_inputs(input in input()) {
        prop_assert_eq!(outcome::<Flattened>(&input), outcome::<Direct>(&input), "{}", input);
    }
}

#[test]
fn an_unknown_field_is_refused_at_every_level_through_flatten() {
    let valid = json!({ "path": "a", "offset": 1, "sort": { "by": "name" } });
    assert!(outcome::<Flattened>(&valid));
    for wrong in [
        json!({ "path": "a", "offset": 1, "ofset": 2 }),
        json!({ "path": "a", "offset": 1, "sort": { "by": "name", "desc": true } }),
    ] {
        assert!(!outcome::<Flattened>(&wrong), "{wrong}");
    }
}
