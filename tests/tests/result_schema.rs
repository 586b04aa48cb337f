//! Debug builds check each structured result against the tool's result schema: a
//! result type whose `Serialize` disagrees with its `JsonSchema` is a
//! `result_schema_mismatch` error naming the tool and the instance path.

#![cfg(debug_assertions)]

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry, ToolCall};
use serde::Serializer;
use serde_json::json;

/// A temperature whose schema says number, but that serializes as text ("21.5 C").
struct Celsius(f64);

impl Serialize for Celsius {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&format_args!("{} C", self.0))
    }
}

impl JsonSchema for Celsius {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Celsius".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "number" })
    }
}

#[derive(Serialize, JsonSchema)]
struct Reading {
    station: String,
    temperature: Celsius,
}

/// Reads the temperature at a station.
#[holon_tool(family = CoreAgent)]
fn read_temperature() -> Reading {
    Reading {
        station: "Oslo".to_string(),
        temperature: Celsius(21.5),
    }
}

#[derive(Serialize, JsonSchema)]
struct Count {
    count: u32,
}

/// Counts to three.
#[holon_tool(family = CoreAgent)]
fn count_to_three() -> Count {
    Count { count: 3 }
}

#[tokio::test]
async fn a_result_that_breaks_its_schema_is_a_result_schema_mismatch() {
    let registry = Registry::global();
    let context = ToolContext::new(FamilyPolicy::all());
    let result = registry
        .dispatch(&context, ToolCall::new("ReadTemperature", json!({})))
        .await;
    let error = result.error.expect("the result does not fit its schema");
    assert_eq!(error.kind.as_str(), "result_schema_mismatch", "{error:?}");
    assert!(error.message.contains("`ReadTemperature`"), "{error:?}");
    assert!(error.message.contains("`/temperature`"), "{error:?}");
    let details = error.details.expect("details");
    assert_eq!(details["tool"], "ReadTemperature");
    assert_eq!(details["problems"][0]["instance_path"], "/temperature");
    assert!(
        result.structured.is_none(),
        "the broken result is not handed out"
    );

    let fitting = registry
        .dispatch(&context, ToolCall::new("CountToThree", json!({})))
        .await;
    assert!(fitting.is_success(), "{fitting:?}");
    assert_eq!(fitting.structured.as_deref(), Some(&json!({ "count": 3 })));
}
