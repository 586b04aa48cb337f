//! Input examples: `#[holon_tool(example = ..., example_file = ...)]`, checked when the
//! registry is built, exported as Anthropic's `input_examples` and MCP's
//! `_meta["holon/inputExamples"]`, and listed in the inventory.

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry};
use holon_export::mcp::INPUT_EXAMPLES_META_KEY;
use holon_export::{ExportOptions, Provider, export_tool, rules};
use serde_json::json;

/// Arguments of Forecast.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct ForecastArgs {
    /// The city.
    #[schemars(length(min = 1))]
    city: String,
    /// How many days, 1 to 14.
    #[serde(default)]
    #[schemars(range(min = 1, max = 14))]
    days: Option<u8>,
}

#[derive(Serialize, JsonSchema)]
struct Forecast {
    city: String,
    days: u8,
}

/// Forecasts the weather of a city.
#[holon_tool(
    family = Web,
    example = r#"{"city": "Bergen", "days": 14}"#,
    example_file = "tests/examples/forecast.json"
)]
fn forecast(args: ForecastArgs) -> Forecast {
    Forecast {
        city: args.city,
        days: args.days.unwrap_or(1),
    }
}

fn expected_examples() -> serde_json::Value {
    json!([
        { "city": "Bergen", "days": 14 },
        { "city": "Oslo", "days": 3 },
        { "city": "Lima" },
    ])
}

#[test]
fn examples_from_the_attribute_and_a_file_are_in_the_definition_in_order() {
    let definition = Registry::global().get("Forecast").expect("registered");
    assert_eq!(json!(&*definition.input_examples), expected_examples());
}

#[test]
fn anthropic_gets_input_examples_and_mcp_gets_them_in_meta() {
    let definition = Registry::global().get("Forecast").expect("registered");
    let options = ExportOptions::new(FamilyPolicy::all());
    let (anthropic, _) = export_tool(definition, Provider::Anthropic, options);
    assert_eq!(anthropic.wire["input_examples"], expected_examples());
    assert!(rules::check_tool(Provider::Anthropic, &anthropic).is_empty());

    let (mcp, _) = export_tool(definition, Provider::Mcp, options);
    assert_eq!(
        mcp.wire["_meta"][INPUT_EXAMPLES_META_KEY],
        expected_examples()
    );
    assert!(rules::check_tool(Provider::Mcp, &mcp).is_empty());

    // Providers without a place for examples do not get them.
    for provider in [
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Gemini,
    ] {
        let (tool, _) = export_tool(definition, provider, options);
        assert!(!tool.wire.to_string().contains("Bergen"), "{provider}");
    }
}

#[test]
fn the_inventory_lists_the_examples() {
    let inventory = holon_lint::inventory(Registry::global());
    let tools = inventory["tools"].as_array().expect("tools");
    let forecast = tools
        .iter()
        .find(|tool| tool["name"] == "Forecast")
        .expect("listed");
    assert_eq!(forecast["input_examples"], expected_examples());
}
