//! The MCP list form advertises optional fields without `null` (strict clients such
//! as LangGraph refuse `"type": [T, "null"]`, the MCP Inspector warns), over every
//! built-in tool, in input and output schemas alike: the dispatcher still accepts an
//! explicit `null`, and a result's `structuredContent` leaves out the `null` members
//! its `outputSchema` no longer lists, so that it still fits.

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry, ToolCall};
use holon_export::portable::null_alternatives;
use holon_export::{ExportOptions, Provider, mcp};
use serde_json::{Value, json};

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
fn every_built_in_tool_lists_its_schemas_without_null() {
    let registry = Registry::global();
    let built_in = |name: &str| {
        registry
            .get(name)
            .is_some_and(|d| d.defined_at.module.starts_with("holon_tools"))
    };
    let canonical: (usize, usize) = registry
        .model_definitions(FamilyPolicy::all())
        .filter(|d| built_in(&d.spec.name))
        .map(|d| {
            (
                null_alternatives(&d.spec.input_schema),
                null_alternatives(&d.result_schema),
            )
        })
        .fold((0, 0), |(input, output), (i, o)| (input + i, output + o));
    // There is something to leave out: the canonical schemas keep `null`.
    assert!(canonical.0 > 0 && canonical.1 > 0, "{canonical:?}");

    let listed = mcp_list();
    assert!(listed.iter().filter(|(name, _)| built_in(name)).count() > 10);
    let offenders: Vec<(&str, &str, usize)> = listed
        .iter()
        .filter(|(name, _)| built_in(name))
        .flat_map(|(name, wire)| {
            ["inputSchema", "outputSchema"]
                .map(|key| (name.as_str(), key, null_alternatives(&wire[key])))
        })
        .filter(|(_, _, count)| *count > 0)
        .collect();
    assert_eq!(
        offenders,
        Vec::<(&str, &str, usize)>::new(),
        "canonical (input, output): {canonical:?}"
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

/// A step of a plan.
#[derive(Serialize, JsonSchema)]
struct Step {
    title: String,
    /// Absent until the step is done.
    finished_at: Option<u64>,
    /// Free-form data: its `null` members are data, kept as they are.
    data: Value,
}

/// How a plan ended.
#[derive(Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Ending {
    Done {
        note: Option<String>,
    },
    // Never returned: a second variant makes the schema a `oneOf` of two.
    #[allow(dead_code)]
    Blocked {
        reason: String,
    },
}

/// A result with `null` at several depths.
#[derive(Serialize, JsonSchema)]
struct Plan {
    owner: Option<String>,
    current: Option<Step>,
    steps: Vec<Step>,
    ending: Ending,
    /// Each slot of an array keeps its `null`.
    slots: Vec<Option<u32>>,
}

/// Arguments of ShowPlan.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct ShowPlanArgs {}

/// Shows a plan whose optional parts are all empty.
#[holon_tool(family = CoreAgent)]
fn show_plan(_args: ShowPlanArgs) -> Plan {
    Plan {
        owner: None,
        current: None,
        steps: vec![Step {
            title: "draft".into(),
            finished_at: None,
            data: json!({"kept": null}),
        }],
        ending: Ending::Done { note: None },
        slots: vec![Some(1), None],
    }
}

/// Arguments of MaybeCount.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct MaybeCountArgs {}

/// A result that is not an object, and here `null`.
#[holon_tool(family = CoreAgent)]
fn maybe_count(_args: MaybeCountArgs) -> Option<u32> {
    None
}

/// The `structuredContent` of a call of `name`, and its listed `outputSchema`.
async fn structured_and_schema(name: &str) -> (Value, Value) {
    let registry = Registry::global();
    let definition = registry.get(name).expect("registered");
    let context = ToolContext::new(FamilyPolicy::all());
    let result = registry
        .dispatch(&context, ToolCall::new(name, json!({})))
        .await;
    assert!(result.is_success(), "{}", result.receipt());
    let wire = mcp::call_result(Some(definition), &result);
    (
        wire["structuredContent"].clone(),
        mcp::output_schema(definition),
    )
}

#[tokio::test]
async fn a_result_fits_its_portable_output_schema_and_keeps_free_form_nulls() {
    let (structured, schema) = structured_and_schema("ShowPlan").await;
    assert_eq!(null_alternatives(&schema), 1, "{schema:#}"); // the array's slots
    let validator = jsonschema::draft202012::new(&schema).expect("a valid schema");
    let problems: Vec<String> = validator
        .iter_errors(&structured)
        .map(|e| e.to_string())
        .collect();
    assert!(
        problems.is_empty(),
        "{problems:?}\n{structured:#}\n{schema:#}"
    );
    assert_eq!(
        structured,
        json!({
            "steps": [{"title": "draft", "data": {"kept": null}}],
            "ending": {"kind": "done"},
            "slots": [1, null],
        })
    );

    let (structured, schema) = structured_and_schema("MaybeCount").await;
    assert_eq!(null_alternatives(&schema), 0, "{schema:#}");
    let validator = jsonschema::draft202012::new(&schema).expect("a valid schema");
    assert!(
        validator.is_valid(&structured),
        "{structured:#}\n{schema:#}"
    );
    assert_eq!(structured, json!({}));
}

/// Arguments of Publish: optional fields named like schema keywords.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct PublishArgs {
    /// The page's title.
    #[serde(default)]
    title: Option<String>,
    /// The page's description.
    #[serde(default)]
    description: Option<String>,
    /// The default section.
    #[serde(default)]
    default: Option<String>,
    /// How many copies.
    #[serde(default)]
    copies: Option<u32>,
}

#[derive(Serialize, JsonSchema)]
struct Published {
    title: Option<String>,
}

/// Publishes a page.
#[holon_tool(family = CoreAgent)]
fn publish(args: PublishArgs) -> Published {
    let copies = args.copies.unwrap_or(1).to_string();
    let parts = [args.title, args.description, args.default, Some(copies)];
    Published {
        title: Some(parts.into_iter().flatten().collect::<Vec<_>>().join(" ")),
    }
}

#[test]
fn optional_fields_named_like_keywords_lose_null_too() {
    let definition = Registry::global().get("Publish").expect("registered");
    // The check counts them: a field is a schema whatever its name.
    assert_eq!(null_alternatives(&definition.spec.input_schema), 4);
    assert_eq!(null_alternatives(&definition.result_schema), 1);
    let listed = mcp::tool(definition);
    for key in ["inputSchema", "outputSchema"] {
        assert_eq!(null_alternatives(&listed[key]), 0, "{:#}", listed[key]);
    }
    for field in ["title", "description", "default", "copies"] {
        let property = &listed["inputSchema"]["properties"][field];
        assert!(property["type"].is_string(), "{field}: {property:#}");
    }
    assert_eq!(
        listed["outputSchema"]["properties"]["title"]["type"],
        "string"
    );
}
