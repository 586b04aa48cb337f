//! Deferred exports of tools declared here: what each provider gets up front, what
//! it finds through search, and the providers' rules (rules::check_deferred) held
//! against every form.

mod common;

use common::registry;
use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry};
use holon_discovery::deferred::AnthropicSearch;
use holon_discovery::{DeferOptions, Namespaces, export_deferred};
use holon_export::{ExportOptions, Provider, rules};
use serde_json::{Value, json};

/// Arguments of the file tools.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct PathArgs {
    /// The file.
    pub path: String,
}

/// Read a file of the workspace.
#[holon_tool(family = LocalEnvironment)]
fn read_file(args: PathArgs) -> String {
    args.path
}

/// Delete a file of the workspace.
#[holon_tool(family = LocalEnvironment)]
fn delete_file(args: PathArgs) -> String {
    args.path
}

/// Note something down for later.
#[holon_tool(family = CoreAgent)]
fn take_note(args: PathArgs) -> String {
    args.path
}

fn names(entries: &[Value]) -> Vec<String> {
    entries
        .iter()
        .map(|entry| {
            entry
                .get("name")
                .or_else(|| entry.pointer("/function/name"))
                .and_then(Value::as_str)
                .unwrap_or_else(|| entry["type"].as_str().unwrap())
                .to_string()
        })
        .collect()
}

fn deferred(provider: Provider, defer: &DeferOptions) -> holon_discovery::DeferredExport {
    let export = export_deferred(&registry(), provider, ExportOptions::default(), defer).unwrap();
    let problems = rules::check_deferred(provider, &export.entries);
    assert!(problems.is_empty(), "{provider}: {problems:#?}");
    export
}

#[test]
fn anthropic_defers_every_unpinned_tool_behind_its_tool_search() {
    let defer = DeferOptions::new().with_pinned(["TakeNote"]);
    let export = deferred(Provider::Anthropic, &defer);
    assert_eq!(
        export.entries[0],
        json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
    );
    for entry in &export.entries[1..] {
        let pinned = entry["name"] == "TakeNote";
        assert_eq!(entry.get("defer_loading").is_some(), !pinned, "{entry}");
    }
    // Its search replaces the meta-tools.
    let listed = names(&export.entries);
    assert!(!listed.contains(&"SearchTools".into()) && !listed.contains(&"DescribeTool".into()));
    assert_eq!(export.loaded().collect::<Vec<_>>(), ["TakeNote"]);
    let regex = deferred(
        Provider::Anthropic,
        &DeferOptions::new().with_anthropic_search(AnthropicSearch::Regex),
    );
    assert_eq!(regex.entries[0]["name"], "tool_search_tool_regex");
}

#[test]
fn openai_responses_defers_into_namespaces_per_family_or_crate() {
    let flat = deferred(Provider::OpenAiResponses, &DeferOptions::new());
    assert_eq!(flat.entries[0], json!({"type": "tool_search"}));
    assert!(
        flat.entries[1..]
            .iter()
            .all(|entry| entry["defer_loading"] == true)
    );

    let defer = DeferOptions::new()
        .with_pinned(["TakeNote"])
        .with_namespaces(Namespaces::ByFamily);
    let by_family = deferred(Provider::OpenAiResponses, &defer);
    let namespaces: Vec<&Value> = by_family
        .entries
        .iter()
        .filter(|entry| entry["type"] == "namespace")
        .collect();
    let namespace_names: Vec<&str> = namespaces
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(namespace_names, ["local_environment", "web"]);
    assert_eq!(
        names(namespaces[0]["tools"].as_array().unwrap()),
        ["DeleteFile", "ReadFile"]
    );
    assert!(namespaces[0].get("defer_loading").is_none());
    assert!(
        namespaces[0]["description"]
            .as_str()
            .unwrap()
            .contains("DeleteFile")
    );
    // The pinned tool stays at the top level, loaded.
    let top = by_family
        .entries
        .iter()
        .find(|entry| entry["name"] == "TakeNote")
        .unwrap();
    assert!(top.get("defer_loading").is_none());

    let by_crate = deferred(
        Provider::OpenAiResponses,
        &DeferOptions::new().with_namespaces(Namespaces::ByCrate),
    );
    let crates: Vec<&str> = by_crate
        .entries
        .iter()
        .filter(|entry| entry["type"] == "namespace")
        .map(|entry| entry["name"].as_str().unwrap())
        .collect();
    assert_eq!(crates, [module_path!()]);
}

#[test]
fn chat_gemini_and_mcp_get_the_pinned_tools_and_the_meta_tools() {
    let defer = DeferOptions::new().with_pinned(["ReadFile"]);
    for provider in [Provider::OpenAiChat, Provider::Gemini, Provider::Mcp] {
        let export = deferred(provider, &defer);
        assert_eq!(
            names(&export.entries),
            ["DescribeTool", "ReadFile", "SearchTools"],
            "{provider}"
        );
        assert!(export.tools.iter().all(|tool| !tool.deferred));
    }
    let payload = deferred(Provider::Gemini, &defer).payload();
    assert_eq!(
        payload[0]["functionDeclarations"].as_array().unwrap().len(),
        3
    );
}

#[test]
fn what_cannot_be_deferred_is_an_error_that_says_why() {
    let typo = export_deferred(
        &registry(),
        Provider::Anthropic,
        ExportOptions::default(),
        &DeferOptions::new().with_pinned(["ReadFiel"]),
    )
    .unwrap_err();
    assert!(
        typo.to_string().contains("did you mean `ReadFile`"),
        "{typo}"
    );
    let hidden = export_deferred(
        &registry(),
        Provider::Anthropic,
        ExportOptions::new(FamilyPolicy::none()),
        &DeferOptions::new().with_pinned(["GetForecast"]),
    );
    assert!(hidden.is_err());
    let without_meta = Registry::of_module(module_path!()).unwrap();
    for provider in [Provider::OpenAiChat, Provider::Gemini, Provider::Mcp] {
        let error = export_deferred(
            &without_meta,
            provider,
            ExportOptions::default(),
            &DeferOptions::new(),
        )
        .unwrap_err();
        assert!(
            error.to_string().contains("holon_discovery::registry"),
            "{error}"
        );
    }
}

#[test]
fn the_rules_catch_broken_deferred_exports() {
    let function = |name: &str, deferred: bool| {
        let mut tool = json!({
            "type": "function", "name": name, "description": "d",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": false},
            "strict": false,
        });
        if deferred {
            tool["defer_loading"] = json!(true);
        }
        tool
    };
    let cases: Vec<(Provider, Vec<Value>, &str)> = vec![
        (
            Provider::OpenAiResponses,
            vec![function("A", true)],
            "tool search tools, not one",
        ),
        (
            Provider::OpenAiResponses,
            vec![
                json!({"type": "tool_search"}),
                json!({"type": "namespace", "name": "n", "description": "d", "defer_loading": true, "tools": [function("A", true)]}),
            ],
            "goes on the functions inside",
        ),
        (
            Provider::OpenAiResponses,
            vec![
                json!({"type": "tool_search"}),
                json!({"type": "namespace", "name": "n", "description": " ", "tools": []}),
            ],
            "has no tools",
        ),
        (
            Provider::OpenAiResponses,
            vec![function("A", false), function("A", false)],
            "used twice",
        ),
        (
            Provider::Gemini,
            vec![
                json!({"name": "A", "description": "d", "parametersJsonSchema": {"type": "object"}, "defer_loading": true}),
            ],
            "has no `defer_loading`",
        ),
        (
            Provider::Anthropic,
            vec![
                json!({"type": "tool_search_tool_bm25_20251119", "name": "search"}),
                json!({"name": "A", "description": "d", "input_schema": {"type": "object"}, "defer_loading": true}),
            ],
            "must be named as documented",
        ),
        (
            Provider::Anthropic,
            vec![
                json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}),
                json!({"name": "A", "description": "d", "input_schema": {"type": "object"}, "defer_loading": "yes"}),
            ],
            "not a boolean",
        ),
    ];
    for (provider, entries, expected) in cases {
        let problems = rules::check_deferred(provider, &entries);
        assert!(
            problems.iter().any(|p| p.contains(expected)),
            "{provider} {expected}: {problems:#?}"
        );
    }
}
