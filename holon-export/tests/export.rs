//! Exports of tools declared here: a freeform tool (custom tools and the JSON
//! fallback), strict lowering and reading strict arguments back, schemas that cannot
//! be lowered, results MCP must wrap, runtime-only tools and family policies.

use std::collections::BTreeMap;

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry, ToolCall, ToolCapabilityFamily};
use holon_export::{self as export, ExportOptions, InputSurface, Provider, mcp, rules, strict};
use serde_json::{Value, json};

/// Arguments of ApplyEdit.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ApplyEditArgs {
    /// The file to edit.
    #[schemars(length(min = 1))]
    pub path: String,
    /// The new text of the file.
    pub text: String,
}

impl FromFreeform for ApplyEditArgs {
    fn from_freeform(text: String) -> Result<Self, ToolError> {
        let (path, body) = text
            .strip_prefix("*** ")
            .and_then(|rest| rest.split_once('\n'))
            .ok_or_else(|| ToolError::invalid_input("expected `*** PATH` and the new text"))?;
        Ok(Self {
            path: path.to_string(),
            text: body.to_string(),
        })
    }
}

/// What ApplyEdit did.
#[derive(Serialize, JsonSchema)]
pub struct Edited {
    /// The file written.
    pub written: String,
    /// Its length in bytes.
    pub bytes: usize,
}

/// Replace a file's text. Send `*** PATH`, a newline and the new text, or a JSON object.
#[holon_tool(
    family = LocalEnvironment,
    freeform(syntax = "lark", definition = "start: \"*** \" LINE BODY\nLINE: /[^\\n]+\\n/\nBODY: /(.|\\n)*/\n")
)]
fn apply_edit(args: ApplyEditArgs) -> Edited {
    Edited {
        written: args.path,
        bytes: args.text.len(),
    }
}

/// How loud.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case")]
pub enum Volume {
    /// Quietly.
    Soft,
    /// Loudly.
    Loud,
}

/// Where to send it.
#[derive(Debug, Deserialize, JsonSchema, ClosedInput)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Target {
    /// To a person.
    Person {
        /// Their name.
        name: String,
    },
    /// To a channel.
    Channel {
        /// The channel id.
        id: u32,
        /// Whether to pin the message.
        #[serde(default)]
        pin: bool,
    },
}

/// A node of an outline.
#[derive(Debug, Deserialize, JsonSchema, ClosedInput)]
#[serde(deny_unknown_fields)]
pub struct Outline {
    /// The heading.
    pub heading: String,
    /// Sub-headings.
    #[serde(default)]
    pub children: Vec<Outline>,
}

/// Arguments of Announce.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct AnnounceArgs {
    /// What to say.
    #[schemars(length(min = 1, max = 280))]
    pub message: String,
    /// How loud; defaults to soft.
    #[serde(default)]
    pub volume: Option<Volume>,
    /// Whether to repeat it.
    #[serde(default)]
    pub repeat: bool,
    /// How many times, 1 to 5.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 5))]
    pub times: u8,
    /// Where to send it.
    pub target: Target,
    /// An outline to attach.
    #[serde(default)]
    pub outline: Option<Outline>,
}

fn one() -> u8 {
    1
}

/// Announce a message; the result lists what was sent.
#[holon_tool(family = CoreAgent, annotations(open_world = false))]
fn announce(args: AnnounceArgs) -> Vec<String> {
    let count = if args.repeat { args.times } else { 1 };
    (0..count).map(|_| args.message.clone()).collect()
}

/// Arguments of Tag.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct TagArgs {
    /// Labels by key: a map, which strict mode cannot express.
    pub labels: BTreeMap<String, String>,
}

#[derive(Serialize, JsonSchema)]
struct Tagged {
    count: usize,
}

/// Attach labels to the current work.
#[holon_tool(family = CoreAgent)]
fn tag(args: TagArgs) -> Tagged {
    Tagged {
        count: args.labels.len(),
    }
}

#[derive(Serialize, JsonSchema)]
struct Flushed {
    flushed: bool,
}

/// Flush the runtime's caches. Runtime-only.
#[holon_tool(family = CoreAgent, visibility = runtime)]
fn flush_caches() -> Flushed {
    Flushed { flushed: true }
}

#[derive(Serialize, JsonSchema)]
struct Page {
    url: String,
}

/// Arguments of FetchPage.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct FetchPageArgs {
    /// The page.
    #[schemars(url)]
    pub address: String,
}

/// Fetch a web page.
#[holon_tool(family = Web, annotations(read_only, open_world))]
fn fetch_page(args: FetchPageArgs) -> Page {
    Page { url: args.address }
}

fn all() -> ExportOptions {
    ExportOptions::new(FamilyPolicy::all())
}

fn run<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

#[test]
fn freeform_tools_are_custom_tools_on_openai() {
    let registry = Registry::global();
    let chat = export::export(registry, Provider::OpenAiChat, all());
    let tool = chat.get("ApplyEdit").unwrap();
    assert_eq!(tool.surface, InputSurface::Freeform);
    assert_eq!(tool.strict, None);
    assert_eq!(tool.wire["type"], "custom");
    assert_eq!(tool.wire["custom"]["name"], "ApplyEdit");
    assert_eq!(tool.wire["custom"]["format"]["type"], "grammar");
    assert_eq!(tool.wire["custom"]["format"]["grammar"]["syntax"], "lark");
    assert!(
        tool.wire["custom"]["format"]["grammar"]["definition"]
            .as_str()
            .unwrap()
            .starts_with("start:")
    );

    let responses = export::export(registry, Provider::OpenAiResponses, all().with_strict(true));
    let tool = responses.get("ApplyEdit").unwrap();
    assert_eq!(tool.surface, InputSurface::Freeform);
    assert_eq!(tool.wire["type"], "custom");
    assert_eq!(tool.wire["name"], "ApplyEdit");
    assert_eq!(tool.wire["format"]["type"], "grammar");
    assert_eq!(tool.wire["format"]["syntax"], "lark");
    assert!(tool.wire.get("parameters").is_none());
}

#[test]
fn providers_without_custom_tools_get_the_json_surface() {
    let registry = Registry::global();
    let definition = registry.get("ApplyEdit").unwrap();
    let json_surface = &*definition.spec.input_schema;
    for (provider, key) in [
        (Provider::Anthropic, "input_schema"),
        (Provider::Gemini, "parametersJsonSchema"),
        (Provider::Mcp, "inputSchema"),
    ] {
        let export = export::export(registry, provider, all());
        let tool = export.get("ApplyEdit").unwrap();
        assert_eq!(tool.surface, InputSurface::JsonFallback, "{provider}");
        assert_eq!(&tool.wire[key], json_surface, "{provider}");
    }
    // The JSON surface is a real way to call the tool.
    let context = ToolContext::new(FamilyPolicy::all());
    let result = run(registry.dispatch(
        &context,
        ToolCall::new("ApplyEdit", json!({"path": "a.txt", "text": "hi"})),
    ));
    assert!(result.is_success(), "{}", result.receipt());
    let result = run(registry.dispatch(&context, ToolCall::freeform("ApplyEdit", "*** a.txt\nhi")));
    assert_eq!(result.structured.unwrap()["bytes"], 2);
}

#[test]
fn runtime_only_tools_and_other_families_never_appear() {
    let registry = Registry::global();
    let core = FamilyPolicy::none().with(ToolCapabilityFamily::CoreAgent);
    for provider in Provider::ALL {
        let everything = export::export(registry, provider, all());
        assert!(everything.get("FlushCaches").is_none(), "{provider}");
        assert!(everything.get("FetchPage").is_some(), "{provider}");
        let text = everything.payload().to_string();
        assert!(!text.contains("FlushCaches"), "{provider}");

        let narrowed = export::export(registry, provider, ExportOptions::new(core));
        let names: Vec<&str> = narrowed.tools.iter().map(|t| &*t.name).collect();
        assert_eq!(names, ["Announce", "Tag"], "{provider}");
    }
}

#[test]
fn strict_lowering_follows_openais_rules() {
    let registry = Registry::global();
    let export = export::export(registry, Provider::OpenAiChat, all().with_strict(true));
    let announce = export.get("Announce").unwrap();
    assert_eq!(announce.strict, Some(true));
    let parameters = &announce.wire["function"]["parameters"];
    assert_eq!(announce.wire["function"]["strict"], true);
    assert!(rules::check_strict_schema(parameters).is_empty());

    let properties = &parameters["properties"];
    let mut required: Vec<&str> = parameters["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    required.sort_unstable();
    assert_eq!(
        required,
        ["message", "outline", "repeat", "target", "times", "volume"]
    );
    // Optional, non-null: a union with null now.
    assert_eq!(properties["repeat"]["type"], json!(["boolean", "null"]));
    assert_eq!(properties["times"]["type"], json!(["integer", "null"]));
    // Unsupported narrowing keywords are told in the description.
    let message = properties["message"]["description"].as_str().unwrap();
    assert!(
        message.contains("minLength: 1") && message.contains("maxLength: 280"),
        "{message}"
    );
    assert!(properties["message"].get("minLength").is_none());
    assert!(
        properties["times"]["description"]
            .as_str()
            .unwrap()
            .contains("default: 1")
    );
    // oneOf became anyOf, and every branch is closed.
    let target = &properties["target"];
    assert!(target.get("oneOf").is_none());
    for branch in target["anyOf"].as_array().unwrap() {
        assert_eq!(branch["additionalProperties"], false);
    }
    // The recursive outline keeps its reference.
    assert!(parameters.to_string().contains("$ref"), "{parameters}");

    // A map has no strict form: strict false, the canonical schema, a warning.
    let tag = export.get("Tag").unwrap();
    assert_eq!(tag.strict, Some(false));
    assert_eq!(tag.wire["function"]["strict"], false);
    assert_eq!(
        &tag.wire["function"]["parameters"],
        &*registry.get("Tag").unwrap().spec.input_schema
    );
    let warning = export
        .warnings
        .iter()
        .find(|w| w.tool.as_deref() == Some("Tag"))
        .unwrap();
    assert_eq!(warning.keyword.as_deref(), Some("additionalProperties"));
    assert!(
        warning.to_string().contains("`additionalProperties`"),
        "{warning}"
    );

    // The string format `uri` is not in the strict subset: it moves to the description.
    let fetch = export.get("FetchPage").unwrap();
    let address = &fetch.wire["function"]["parameters"]["properties"]["address"];
    assert!(address.get("format").is_none());
    assert!(
        address["description"]
            .as_str()
            .unwrap()
            .contains("format: \"uri\"")
    );

    // Without --strict nothing is lowered.
    let plain = export::export(registry, Provider::OpenAiResponses, all());
    let announce = plain.get("Announce").unwrap();
    assert_eq!(announce.wire["strict"], false);
    assert_eq!(
        &announce.wire["parameters"],
        &*registry.get("Announce").unwrap().spec.input_schema
    );
    assert!(plain.warnings.is_empty());
}

#[test]
fn strict_arguments_read_back_dispatch_like_the_canonical_ones() {
    let registry = Registry::global();
    let definition = registry.get("Announce").unwrap();
    // What a model in strict mode sends: every field, nulls for the ones it skips.
    let mut arguments = json!({
        "message": "hello",
        "volume": null,
        "repeat": null,
        "times": null,
        "target": {"kind": "channel", "id": 7, "pin": null},
        "outline": {"heading": "a", "children": [{"heading": "b", "children": null}]},
    });
    let lowered = strict::lower(&definition.spec.input_schema).unwrap();
    let validator = jsonschema::draft202012::new(&lowered).unwrap();
    assert!(
        validator.is_valid(&arguments),
        "the lowered schema takes it"
    );

    let context = ToolContext::new(FamilyPolicy::all());
    let raw = run(registry.dispatch(&context, ToolCall::new("Announce", arguments.clone())));
    assert_eq!(
        raw.error_kind(),
        Some("invalid_tool_input"),
        "{}",
        raw.receipt()
    );

    strict::restore_omitted(&definition.spec.input_schema, &mut arguments);
    assert_eq!(
        arguments,
        json!({
            "message": "hello",
            "volume": null,
            "target": {"kind": "channel", "id": 7},
            "outline": {"heading": "a", "children": [{"heading": "b"}]},
        })
    );
    let result = run(registry.dispatch(&context, ToolCall::new("Announce", arguments)));
    assert!(result.is_success(), "{}", result.receipt());
    assert_eq!(result.structured.unwrap(), json!(["hello"]));
}

#[test]
fn mcp_wraps_results_that_are_not_objects() {
    let registry = Registry::global();
    let definition = registry.get("Announce").unwrap();
    assert!(mcp::wraps_result(definition));
    let output = mcp::output_schema(definition);
    assert_eq!(output["type"], "object");
    assert_eq!(output["required"], json!(["result"]));

    let context = ToolContext::new(FamilyPolicy::all());
    let call = ToolCall::new(
        "Announce",
        json!({"message": "hi", "target": {"kind": "person", "name": "Ada"}}),
    );
    let result = run(registry.dispatch(&context, call));
    let wire = mcp::call_result(Some(definition), &result);
    assert_eq!(wire["isError"], false);
    assert_eq!(wire["structuredContent"], json!({"result": ["hi"]}));
    assert!(
        jsonschema::draft202012::new(&output)
            .unwrap()
            .is_valid(&wire["structuredContent"])
    );
    assert_eq!(wire["content"][0]["type"], "text");

    let bad = ToolCall::new(
        "Announce",
        json!({"message": "", "target": {"kind": "person", "name": "Ada"}}),
    );
    let result = run(registry.dispatch(&context, bad));
    let wire = mcp::call_result(Some(definition), &result);
    assert_eq!(wire["isError"], true);
    assert!(wire.get("structuredContent").is_none());
    assert_eq!(
        wire["_meta"][mcp::ERROR_META_KEY]["kind"],
        "invalid_tool_input"
    );
    assert_eq!(wire["_meta"][mcp::ERROR_META_KEY]["field"], "message");
    assert!(
        wire["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("invalid_tool_input")
    );

    // An object result is not wrapped.
    let tag = registry.get("Tag").unwrap();
    assert!(!mcp::wraps_result(tag));
    assert_eq!(mcp::output_schema(tag), *tag.result_schema);
}

#[test]
fn mcp_entries_carry_title_and_annotations() {
    assert_eq!(mcp::title("ListProviderModels"), "List Provider Models");
    assert_eq!(mcp::title("HTTPGet"), "HTTP Get");
    assert_eq!(mcp::title("Sleep"), "Sleep");
    assert_eq!(mcp::title("read_file-v2"), "read file v2");
    let export = export::export(Registry::global(), Provider::Mcp, all());
    let fetch = &export.get("FetchPage").unwrap().wire;
    assert_eq!(fetch["title"], "Fetch Page");
    assert_eq!(
        fetch["annotations"],
        json!({"readOnlyHint": true, "openWorldHint": true})
    );
    assert!(export.get("Tag").unwrap().wire.get("annotations").is_none());
}

#[test]
fn every_export_follows_the_documented_rules_and_the_meta_schema() {
    for provider in Provider::ALL {
        for strict in [false, true] {
            let export = export::export(Registry::global(), provider, all().with_strict(strict));
            let problems = rules::check_export(&export);
            assert!(problems.is_empty(), "{problems:#?}");
            for tool in &export.tools {
                for schema in schemas(&tool.wire) {
                    if let Err(error) = jsonschema::draft202012::meta::validate(schema) {
                        panic!("{provider} {}: {error}\n{schema}", tool.name);
                    }
                }
            }
        }
    }
}

fn schemas(wire: &Value) -> Vec<&Value> {
    let body = wire.get("function").unwrap_or(wire);
    [
        "parameters",
        "input_schema",
        "parametersJsonSchema",
        "inputSchema",
        "outputSchema",
    ]
    .iter()
    .filter_map(|key| body.get(*key))
    .collect()
}
