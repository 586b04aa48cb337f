//! Prints the deferred exports of a few tools for every provider and option, as JSON
//! `{provider: [tools payload, ...]}`: the input of the provider-SDK check
//! (`holon-discovery/tests/sdk_oracle/check_deferred.py`, run by `.ci/provider-sdks`).

use holon_core::prelude::*;
use holon_discovery::deferred::AnthropicSearch;
use holon_discovery::{DeferOptions, Namespaces, export_deferred};
use holon_export::{ExportOptions, Provider, rules};
use serde_json::{Map, Value};

/// Arguments of the file tools.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct PathArgs {
    /// The file, relative to the workspace.
    pub path: String,
}

/// Read a file of the workspace.
#[holon_tool(family = LocalEnvironment)]
fn read_file(args: PathArgs) -> String {
    args.path
}

/// Delete a file of the workspace.
#[holon_tool(family = LocalEnvironment, annotations(destructive))]
fn delete_file(args: PathArgs) -> String {
    args.path
}

/// Replace a file's text. Send `*** PATH`, a newline and the new text.
#[holon_tool(
    family = LocalEnvironment,
    freeform(syntax = "lark", definition = "start: \"*** \" LINE BODY\nLINE: /[^\\n]+\\n/\nBODY: /(.|\\n)*/\n")
)]
fn write_file(args: PathArgs) -> String {
    args.path
}

impl FromFreeform for PathArgs {
    fn from_freeform(text: String) -> Result<Self, ToolError> {
        Ok(Self { path: text })
    }
}

/// Arguments of GetForecast.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ForecastArgs {
    /// The city.
    pub city: String,
    /// How many days ahead.
    #[serde(default)]
    pub days: Option<u8>,
}

/// Tell the weather in a city for the next days.
#[holon_tool(family = Web, example = r#"{"city": "Oslo", "days": 2}"#)]
fn get_forecast(args: ForecastArgs) -> String {
    args.city
}

fn main() {
    let own = module_path!();
    let registry = holon_discovery::registry(|meta| meta.defined_at.module.starts_with(own))
        .expect("a valid registry");
    let pinned = DeferOptions::new().with_pinned(["ReadFile"]);
    let variants: Vec<(Provider, DeferOptions, bool)> = vec![
        (Provider::Anthropic, pinned.clone(), false),
        (
            Provider::Anthropic,
            DeferOptions::new().with_anthropic_search(AnthropicSearch::Regex),
            false,
        ),
        (Provider::OpenAiResponses, pinned.clone(), true),
        (
            Provider::OpenAiResponses,
            pinned.clone().with_namespaces(Namespaces::ByFamily),
            true,
        ),
        (
            Provider::OpenAiResponses,
            DeferOptions::new().with_namespaces(Namespaces::ByCrate),
            false,
        ),
        (Provider::OpenAiChat, pinned.clone(), true),
        (Provider::Gemini, pinned.clone(), false),
        (Provider::Mcp, pinned, false),
    ];
    let mut out = Map::new();
    for (provider, defer, strict) in variants {
        let options = ExportOptions::default().with_strict(strict);
        let export = export_deferred(&registry, provider, options, &defer)
            .unwrap_or_else(|error| panic!("{provider}: {error}"));
        let problems = rules::check_deferred(provider, &export.entries);
        assert!(problems.is_empty(), "{provider}: {problems:#?}");
        out.entry(provider.as_str())
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .expect("an array")
            .push(export.payload());
    }
    println!("{}", Value::Object(out));
}
