//! The MCP list form advertises optional fields without `null` (strict clients such
//! as LangGraph refuse `"type": [T, "null"]`, the MCP Inspector warns), over every
//! built-in tool, while the dispatcher still accepts an explicit `null`.

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry, ToolCall};
use holon_export::portable::null_alternatives;
use holon_export::{ExportOptions, Provider};
use serde_json::json;

holon_core::link!(holon_tools);

/// Arguments of Countdown.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct CountdownArgs {
    /// Where to start; 3 when left out.
    #[serde(default)]
    from: Option<u32>,
}

#[derive(Serialize, JsonSchema)]
struct Counted {
    numbers: Vec<u32>,
}

/// Counts down to 1.
#[holon_tool(family = CoreAgent)]
fn countdown(args: CountdownArgs) -> Counted {
    Counted {
        numbers: (1..=args.from.unwrap_or(3)).rev().collect(),
    }
}

fn mcp_list() -> Vec<(String, serde_json::Value)> {
    let registry = Registry::try_global().unwrap_or_else(|error| panic!("{error}"));
    holon_export::export(
        registry,
        Provider::Mcp,
        ExportOptions::new(FamilyPolicy::all()),
    )
    .tools
    .into_iter()
    .map(|tool| (tool.name.to_string(), tool.wire))
    .collect()
}

#[test]
fn every_built_in_tool_lists_an_input_schema_without_null() {
    let registry = Registry::global();
    let built_in = |name: &str| {
        registry
            .get(name)
            .is_some_and(|d| d.defined_at.module.starts_with("holon_tools"))
    };
    let canonical: usize = registry
        .model_definitions(FamilyPolicy::all())
        .filter(|d| built_in(&d.spec.name))
        .map(|d| null_alternatives(&d.spec.input_schema))
        .sum();
    // There is something to leave out: the canonical schemas keep `null`.
    assert!(canonical > 0);

    let listed = mcp_list();
    assert!(listed.iter().filter(|(name, _)| built_in(name)).count() > 10);
    let offenders: Vec<(&str, usize)> = listed
        .iter()
        .filter(|(name, _)| built_in(name))
        .map(|(name, wire)| (name.as_str(), null_alternatives(&wire["inputSchema"])))
        .filter(|(_, count)| *count > 0)
        .collect();
    assert_eq!(
        offenders,
        Vec::<(&str, usize)>::new(),
        "canonical: {canonical}"
    );
}

#[tokio::test]
async fn an_optional_field_is_listed_as_its_type_and_still_takes_null() {
    let listed = mcp_list();
    let (_, countdown) = listed
        .iter()
        .find(|(name, _)| name == "Countdown")
        .expect("listed");
    assert_eq!(
        countdown["inputSchema"]["properties"]["from"]["type"], "integer",
        "{countdown:#}"
    );

    let context = ToolContext::new(FamilyPolicy::all());
    for input in [json!({ "from": null }), json!({})] {
        let result = Registry::global()
            .dispatch(&context, ToolCall::new("Countdown", input))
            .await;
        let envelope = serde_json::to_value(&result).expect("an envelope serializes");
        assert_eq!(envelope["status"], "success", "{envelope:#}");
        assert_eq!(envelope["structured"]["numbers"], json!([3, 2, 1]));
    }
}
