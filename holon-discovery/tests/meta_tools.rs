//! SearchTools and DescribeTool over a registry of tools declared here, called
//! through the dispatcher as a model would call them.

mod common;

use std::sync::Arc;

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry, ToolCall, ToolCapabilityFamily, ToolResult};
use holon_discovery::Discovery;
use holon_export::{ExportOptions, Provider, export_tool};
use serde_json::{Value, json};

/// Arguments of ResizeImage.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ResizeArgs {
    /// The image file.
    pub path: String,
    /// The new width in pixels.
    pub width: u32,
}

/// Scale an image file to a new width, keeping its aspect ratio.
#[holon_tool(family = LocalEnvironment)]
fn resize_image(args: ResizeArgs) -> u32 {
    args.width
}

/// Rotate the runtime's signing keys.
#[holon_tool(family = CoreAgent, visibility = runtime)]
fn rotate_keys() -> bool {
    true
}

fn registry() -> Arc<Registry> {
    Arc::new(common::registry())
}

fn call(policy: FamilyPolicy, provider: Provider, name: &str, input: Value) -> ToolResult {
    let registry = registry();
    let context = ToolContext::new(policy).with_state(Discovery::new(registry.clone(), provider));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(registry.dispatch(&context, ToolCall::new(name, input)))
}

fn found(result: &ToolResult) -> Vec<String> {
    let structured = result.structured.as_ref().expect("a search result");
    structured["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_meta_tools_are_only_where_a_host_puts_them() {
    let own = Registry::of_module(module_path!()).unwrap();
    assert!(own.get("SearchTools").is_none() && own.get("DescribeTool").is_none());
    let with = registry();
    assert!(with.get("SearchTools").is_some() && with.get("DescribeTool").is_some());
    assert_eq!(holon_discovery::meta_tools().unwrap().len(), 2);
}

#[test]
fn search_tools_finds_by_purpose_with_summaries_and_scores() {
    let result = call(
        FamilyPolicy::all(),
        Provider::Anthropic,
        "SearchTools",
        json!({ "query": "scale an image down to a smaller width" }),
    );
    assert_eq!(found(&result)[0], "ResizeImage");
    let first = &result.structured.as_ref().unwrap()["tools"][0];
    assert_eq!(
        first["summary"],
        "Scale an image file to a new width, keeping its aspect ratio."
    );
    assert!(first["score"].as_f64().unwrap() > 0.0);
    // The meta-tools never find themselves.
    let meta = call(
        FamilyPolicy::all(),
        Provider::Anthropic,
        "SearchTools",
        json!({ "query": "search tools describe tool" }),
    );
    assert!(
        found(&meta)
            .iter()
            .all(|name| !name.ends_with("Tool") && name != "SearchTools")
    );
}

#[test]
fn search_tools_finds_only_what_the_caller_may_call() {
    let no_web = FamilyPolicy::all().without(ToolCapabilityFamily::Web);
    let result = call(
        no_web,
        Provider::Gemini,
        "SearchTools",
        json!({ "query": "weather forecast" }),
    );
    assert!(!found(&result).contains(&"GetForecast".to_string()));
    let runtime_only = call(
        FamilyPolicy::all(),
        Provider::Gemini,
        "SearchTools",
        json!({ "query": "rotate signing keys" }),
    );
    assert!(found(&runtime_only).is_empty());
}

#[test]
fn search_tools_limits_and_rejects_bad_limits() {
    let one = call(
        FamilyPolicy::all(),
        Provider::Mcp,
        "SearchTools",
        json!({ "query": "image weather", "limit": 1 }),
    );
    assert_eq!(found(&one).len(), 1);
    for bad in [
        json!({ "query": "x", "limit": 0 }),
        json!({ "query": "x", "limit": 51 }),
        json!({ "query": "" }),
    ] {
        let result = call(FamilyPolicy::all(), Provider::Mcp, "SearchTools", bad);
        assert_eq!(result.error.unwrap().kind.as_str(), "invalid_tool_input");
    }
}

#[test]
fn describe_tool_returns_the_definition_the_provider_would_get() {
    for provider in Provider::ALL {
        let result = call(
            FamilyPolicy::all(),
            provider,
            "DescribeTool",
            json!({ "name": "ResizeImage" }),
        );
        let structured = result.structured.expect("a definition");
        let definition = registry().get("ResizeImage").unwrap().clone();
        let expected = export_tool(&definition, provider, ExportOptions::default()).0;
        assert_eq!(structured["definition"], expected.wire, "{provider}");
        assert_eq!(structured["provider"], provider.as_str());
    }
}

#[test]
fn describe_tool_hides_what_the_caller_may_not_call_and_suggests_names() {
    let typo = call(
        FamilyPolicy::all(),
        Provider::OpenAiChat,
        "DescribeTool",
        json!({ "name": "ResizeImg" }),
    );
    let error = typo.error.unwrap();
    assert_eq!(error.kind.as_str(), "unknown_tool");
    assert!(error.recovery_hint.unwrap().contains("ResizeImage"));
    let no_web = FamilyPolicy::all().without(ToolCapabilityFamily::Web);
    let hidden = call(
        no_web,
        Provider::OpenAiChat,
        "DescribeTool",
        json!({ "name": "GetForecast" }),
    );
    let error = hidden.error.unwrap();
    assert_eq!(error.kind.as_str(), "unknown_tool");
    assert!(
        !error
            .recovery_hint
            .unwrap_or_default()
            .contains("GetForecast")
    );
    let runtime_only = call(
        FamilyPolicy::all(),
        Provider::OpenAiChat,
        "DescribeTool",
        json!({ "name": "RotateKeys" }),
    );
    assert_eq!(runtime_only.error.unwrap().kind.as_str(), "unknown_tool");
}

#[test]
fn without_a_discovery_in_the_context_the_call_says_so() {
    let registry = registry();
    let context = ToolContext::new(FamilyPolicy::all());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let result = runtime.block_on(registry.dispatch(
        &context,
        ToolCall::new("SearchTools", json!({ "query": "weather" })),
    ));
    assert_eq!(result.error.unwrap().kind.as_str(), "missing_context");
}
