//! Every built-in tool's export, for every provider, against the provider's documented
//! rules and the JSON Schema 2020-12 meta-schema. The tests walk `Registry::global()`,
//! so a tool added later is covered without touching this file.

use crate::cli_support::holon;
use holon_core::{FamilyPolicy, Registry, ToolCall, ToolDefinition};
use holon_export::{self as export, ExportOptions, InputSurface, Provider, mcp, rules, strict};
use holon_runtime::{Runtime, RuntimeConfig};
use serde_json::{Value, json};

fn registry() -> &'static Registry {
    Registry::global()
}

fn model_tools() -> Vec<&'static ToolDefinition> {
    registry().model_definitions(FamilyPolicy::all()).collect()
}

/// The schemas a wire-form tool carries, whatever the provider.
fn schemas(wire: &Value) -> Vec<(&'static str, &Value)> {
    let body = wire.get("function").unwrap_or(wire);
    [
        "parameters",
        "input_schema",
        "parametersJsonSchema",
        "inputSchema",
        "outputSchema",
    ]
    .into_iter()
    .filter_map(|key| body.get(key).map(|schema| (key, schema)))
    .collect()
}

/// Checks the strict rules directly: every object closed, every property required, no
/// `oneOf`, `default`, `minLength` or other keyword outside the documented subset.
fn assert_strict(name: &str, schema: &Value, path: &str) {
    let Some(map) = schema.as_object() else {
        panic!("{name}: `{path}` is not a schema object");
    };
    for key in map.keys() {
        assert!(
            strict::SUPPORTED_KEYWORDS.contains(&key.as_str()),
            "{name}: `{path}` keeps `{key}` in strict mode"
        );
    }
    if let Some(properties) = map.get("properties").and_then(Value::as_object) {
        assert_eq!(
            map.get("additionalProperties"),
            Some(&Value::Bool(false)),
            "{name}: `{path}`"
        );
        let required: Vec<&str> = map["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for (key, property) in properties {
            assert!(
                required.contains(&key.as_str()),
                "{name}: `{path}/{key}` is optional"
            );
            assert_strict(name, property, &format!("{path}/properties/{key}"));
        }
    }
    for key in ["items"] {
        if let Some(inner) = map.get(key) {
            assert_strict(name, inner, &format!("{path}/{key}"));
        }
    }
    for key in ["anyOf"] {
        for (i, branch) in map
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            assert_strict(name, branch, &format!("{path}/{key}/{i}"));
        }
    }
    if let Some(definitions) = map.get("$defs").and_then(Value::as_object) {
        for (key, definition) in definitions {
            assert_strict(name, definition, &format!("{path}/$defs/{key}"));
        }
    }
}

#[test]
fn every_builtin_tool_is_exported_for_every_provider_by_its_rules() {
    let expected: Vec<&str> = model_tools().iter().map(|d| d.name()).collect();
    assert!(expected.contains(&"Sleep"), "{expected:?}");
    for provider in Provider::ALL {
        for strict in [false, true] {
            let options = ExportOptions::new(FamilyPolicy::all()).with_strict(strict);
            let export = export::export(registry(), provider, options);
            let names: Vec<&str> = export.tools.iter().map(|t| &*t.name).collect();
            assert_eq!(
                names, expected,
                "{provider}: every model-facing tool, sorted"
            );

            let problems = rules::check_export(&export);
            assert!(problems.is_empty(), "{provider}: {problems:#?}");

            for tool in &export.tools {
                let name = &*tool.name;
                assert!(
                    rules::name_rule(provider).allows(name),
                    "{provider}: {name}"
                );
                assert!(name.len() <= 64 && !name.is_empty(), "{name}");
                for (key, schema) in schemas(&tool.wire) {
                    if let Err(error) = jsonschema::draft202012::meta::validate(schema) {
                        panic!(
                            "{provider} {name} `{key}` is not valid JSON Schema 2020-12: {error}\n{schema}"
                        );
                    }
                    assert_eq!(schema["type"], "object", "{provider} {name} `{key}` root");
                }
                if tool.surface == InputSurface::Freeform {
                    continue;
                }
                let function = tool.wire.get("function").unwrap_or(&tool.wire);
                match (provider.has_strict_mode(), strict, tool.strict) {
                    (true, true, Some(true)) => {
                        assert_strict(name, &function["parameters"], "");
                        assert_eq!(function["strict"], true);
                    }
                    (true, true, Some(false)) => {
                        // Allowed only with a warning that names the keyword.
                        assert!(
                            export.warnings.iter().any(|w| {
                                w.tool.as_deref() == Some(name) && w.keyword.is_some()
                            }),
                            "{provider} {name}: strict false without a warning"
                        );
                    }
                    (true, false, Some(false)) => assert_eq!(function["strict"], false),
                    (false, _, None) => {}
                    other => panic!("{provider} {name}: unexpected strictness {other:?}"),
                }
            }
        }
    }
}

#[test]
fn freeform_builtins_are_custom_tools_on_openai_and_json_elsewhere() {
    for definition in model_tools() {
        let Some(grammar) = &definition.spec.freeform_grammar else {
            continue;
        };
        for provider in Provider::ALL {
            let (tool, _) = export::export_tool(definition, provider, ExportOptions::default());
            if provider.has_custom_tools() {
                assert_eq!(tool.surface, InputSurface::Freeform);
                assert_eq!(tool.wire["type"], "custom");
                let text = tool.wire.to_string();
                assert!(text.contains(grammar.syntax.as_str()), "{text}");
            } else {
                assert_eq!(tool.surface, InputSurface::JsonFallback, "{provider}");
                let schema = schemas(&tool.wire)[0].1;
                assert_eq!(schema, &*definition.spec.input_schema, "{provider}");
            }
        }
    }
}

#[test]
fn the_mcp_entry_carries_the_result_schema_and_annotations() {
    let export = export::export(registry(), Provider::Mcp, ExportOptions::default());
    for definition in model_tools() {
        let tool = &export.get(definition.name()).unwrap().wire;
        assert_eq!(tool["outputSchema"], mcp::output_schema(definition));
        if !mcp::wraps_result(definition) {
            assert_eq!(
                tool["outputSchema"],
                holon_export::portable::output_without_null(&definition.result_schema)
            );
        }
        assert!(!tool["title"].as_str().unwrap().is_empty());
        let hints = definition.annotations;
        let annotations = tool.get("annotations").cloned().unwrap_or(json!({}));
        assert_eq!(
            annotations.get("readOnlyHint").and_then(Value::as_bool),
            hints.read_only
        );
        assert_eq!(
            annotations.get("idempotentHint").and_then(Value::as_bool),
            hints.idempotent
        );
        assert_eq!(
            annotations.get("openWorldHint").and_then(Value::as_bool),
            hints.open_world
        );
    }
    let sleep = &export.get("Sleep").unwrap().wire;
    assert_eq!(sleep["title"], "Sleep");
    assert_eq!(sleep["annotations"]["readOnlyHint"], true);
}

#[tokio::test]
async fn strict_arguments_of_builtins_dispatch_once_read_back() {
    let runtime = Runtime::open(RuntimeConfig::in_memory(std::env::temp_dir())).unwrap();
    for (name, mut arguments) in [
        ("Sleep", json!({"duration_ms": 1, "reason": null})),
        ("ListModelProviders", json!({"include_unavailable": null})),
        (
            "ListProviderModels",
            json!({"provider": "openai", "cursor": null, "limit": null, "include_unavailable": null}),
        ),
    ] {
        let definition = registry().get(name).unwrap();
        let lowered = strict::lower(&definition.spec.input_schema).unwrap();
        assert!(
            jsonschema::draft202012::new(&lowered)
                .unwrap()
                .is_valid(&arguments),
            "{name}: a strict model may send {arguments}"
        );
        strict::restore_omitted(&definition.spec.input_schema, &mut arguments);
        let result = runtime
            .dispatch(FamilyPolicy::all(), ToolCall::new(name, arguments))
            .await;
        assert!(result.is_success(), "{name}: {}", result.receipt());
    }
}

#[test]
fn the_cli_prints_each_providers_payload() {
    let dir = tempfile::tempdir().unwrap();
    for provider in Provider::ALL {
        let output = holon(dir.path(), &["export", "--format", provider.as_str()]);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
        let expected = export::export(registry(), provider, ExportOptions::default()).payload();
        assert_eq!(printed, expected, "{provider}");
    }
    let output = holon(
        dir.path(),
        &[
            "export",
            "--format",
            "openai-responses",
            "--strict",
            "--report",
        ],
    );
    assert!(output.status.success());
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["provider"], "openai-responses");
    assert_eq!(report["strict"], true);
    let sleep = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "Sleep")
        .unwrap();
    assert_eq!(sleep["surface"], "json");
    assert_eq!(sleep["strict"], true);
    assert_eq!(sleep["wire"]["strict"], true);
    assert!(
        !dir.path().join(".holon").exists(),
        "exporting must not create state"
    );
}

#[test]
fn the_cli_export_honours_families_and_refuses_strict_where_there_is_none() {
    let dir = tempfile::tempdir().unwrap();
    let output = holon(
        dir.path(),
        &["export", "--format", "anthropic", "--families", "web"],
    );
    assert!(output.status.success());
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    let web: Vec<&str> = registry()
        .model_definitions(FamilyPolicy::parse_list("web").unwrap())
        .map(|d| d.name())
        .collect();
    let names: Vec<&str> = printed
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, web);

    let output = holon(dir.path(), &["export", "--format", "anthropic", "--strict"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--strict applies to openai-chat"),
        "{stderr}"
    );

    let output = holon(dir.path(), &["export", "--format", "openai"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("openai-chat"), "{stderr}");
}

#[test]
fn the_built_in_tools_pass_check_registry() {
    export::testing::check_registry();
}

#[test]
fn built_in_examples_reach_anthropic_and_mcp() {
    let with_examples: Vec<&str> = model_tools()
        .into_iter()
        .filter(|definition| !definition.input_examples.is_empty())
        .map(ToolDefinition::name)
        .collect();
    for name in ["ApplyPatch", "CreateWorkItem", "ExecCommand", "WebFetch"] {
        assert!(with_examples.contains(&name), "{name}: {with_examples:?}");
    }
    for definition in model_tools() {
        let options = ExportOptions::default();
        let (anthropic, _) = export::export_tool(definition, Provider::Anthropic, options);
        let (listed, _) = export::export_tool(definition, Provider::Mcp, options);
        let examples = json!(&*definition.input_examples);
        if definition.input_examples.is_empty() {
            assert!(anthropic.wire.get("input_examples").is_none());
            assert!(listed.wire.get("_meta").is_none());
        } else {
            assert_eq!(anthropic.wire["input_examples"], examples);
            assert_eq!(listed.wire["_meta"][mcp::INPUT_EXAMPLES_META_KEY], examples);
        }
    }
}
