//! Schemas: JSON Schema 2020-12 derived from the argument and result types, with
//! subschemas inlined unless recursive, no `$schema` or `title` noise, and the same
//! bytes every time they are built.

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry, ToolCall, ToolResult};
use holon_downstream_tools as _;
use holon_lint::inventory_text;
use serde_json::{Value, json};

/// Arguments of CountNodes: a recursive tree.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct CountNodesArgs {
    /// The root of the tree.
    root: Node,
}

/// A node of a tree.
#[derive(Debug, Deserialize, JsonSchema, ClosedInput)]
#[serde(deny_unknown_fields)]
struct Node {
    /// The node's label; not empty.
    #[schemars(length(min = 1))]
    label: String,
    /// The node's children.
    #[serde(default)]
    children: Vec<Node>,
}

impl Node {
    fn count(&self) -> usize {
        1 + self.children.iter().map(Node::count).sum::<usize>()
    }

    fn labels(&self) -> usize {
        self.label.len() + self.children.iter().map(Node::labels).sum::<usize>()
    }
}

#[derive(Serialize, JsonSchema)]
struct NodeCount {
    nodes: usize,
    label_bytes: usize,
}

/// Counts the nodes of a tree.
#[holon_tool(family = CoreAgent)]
fn count_nodes(args: CountNodesArgs) -> NodeCount {
    NodeCount {
        nodes: args.root.count(),
        label_bytes: args.root.labels(),
    }
}

/// Arguments of Outline, a type that contains itself.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct OutlineArgs {
    /// The heading; not empty.
    #[schemars(length(min = 1))]
    heading: String,
    /// Sub-sections.
    #[serde(default)]
    sections: Vec<OutlineArgs>,
}

impl OutlineArgs {
    fn depth(&self) -> usize {
        1 + self.sections.iter().map(Self::depth).max().unwrap_or(0)
    }

    fn headings(&self) -> Vec<&str> {
        let mut headings = vec![self.heading.as_str()];
        headings.extend(self.sections.iter().flat_map(Self::headings));
        headings
    }
}

#[derive(Serialize, JsonSchema)]
struct OutlineShape {
    depth: usize,
    all_headings: String,
}

/// Measures how deep an outline goes.
#[holon_tool(family = CoreAgent)]
fn outline(args: OutlineArgs) -> OutlineShape {
    OutlineShape {
        depth: args.depth(),
        all_headings: args.headings().join("/"),
    }
}

/// Every object in `schema`, with the keys that are schema keywords (the keys of a
/// `properties` map are field names, not keywords). Walks without recursion.
fn keyword_maps(schema: &Value) -> Vec<&serde_json::Map<String, Value>> {
    let mut found = Vec::new();
    let mut stack = vec![(schema, true)];
    while let Some((value, is_schema)) = stack.pop() {
        match value {
            Value::Object(map) => {
                if is_schema {
                    found.push(map);
                }
                for (key, inner) in map {
                    let names = is_schema && matches!(key.as_str(), "properties" | "$defs");
                    if names {
                        stack.extend(
                            inner
                                .as_object()
                                .into_iter()
                                .flat_map(|m| m.values())
                                .map(|v| (v, true)),
                        );
                    } else {
                        stack.push((inner, is_schema));
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, is_schema))),
            _ => {}
        }
    }
    found
}

fn all_schemas() -> Vec<(String, Value)> {
    let registry = Registry::global();
    let mut schemas: Vec<(String, Value)> = registry
        .definitions()
        .flat_map(|definition| {
            [
                (
                    format!("{} input", definition.name()),
                    (*definition.spec.input_schema).clone(),
                ),
                (
                    format!("{} result", definition.name()),
                    (*definition.result_schema).clone(),
                ),
            ]
        })
        .collect();
    schemas.push(("envelope".to_string(), ToolResult::envelope_schema()));
    schemas
}

#[test]
fn no_schema_has_a_meta_schema_or_a_title() {
    let schemas = all_schemas();
    assert!(schemas.len() >= 9, "{}", schemas.len());
    for (what, schema) in &schemas {
        for map in keyword_maps(schema) {
            assert!(!map.contains_key("$schema"), "{what}: {schema:#}");
            assert!(!map.contains_key("title"), "{what}: {schema:#}");
        }
    }
}

#[test]
fn keys_are_in_a_stable_sorted_order() {
    for (what, schema) in all_schemas() {
        let mut stack = vec![&schema];
        while let Some(value) = stack.pop() {
            match value {
                Value::Object(map) => {
                    let keys: Vec<&String> = map.keys().collect();
                    let mut sorted = keys.clone();
                    sorted.sort();
                    assert_eq!(keys, sorted, "{what}");
                    stack.extend(map.values());
                }
                Value::Array(items) => stack.extend(items),
                _ => {}
            }
        }
    }
}

#[test]
fn non_recursive_nested_types_are_inlined() {
    let registry = Registry::global();
    for name in ["Echo", "RecordTodos"] {
        let definition = registry.get(name).expect("linked");
        for schema in [&definition.spec.input_schema, &definition.result_schema] {
            let text = serde_json::to_string(&**schema).expect("serializable");
            assert!(!text.contains("$ref"), "{name}: {text}");
            assert!(!text.contains("$defs"), "{name}: {text}");
        }
    }
    let todos = registry.get("RecordTodos").expect("linked");
    let todo = &todos.spec.input_schema["properties"]["todo_list"]["items"];
    assert_eq!(todo["type"], "object");
    assert_eq!(todo["required"], json!(["text", "state"]));
    assert_eq!(todo["properties"]["text"]["minLength"], 1);
}

#[test]
fn a_recursive_type_keeps_a_reference() {
    let registry = Registry::global();
    let schema = &registry
        .get("CountNodes")
        .expect("declared")
        .spec
        .input_schema;
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["$defs"]["Node"]["type"], "object");
    assert_eq!(
        schema["$defs"]["Node"]["properties"]["children"]["items"]["$ref"],
        "#/$defs/Node"
    );
    // The first level is inlined; only the recursion goes through `$ref`.
    assert_eq!(
        schema["properties"]["root"]["properties"]["children"]["items"]["$ref"],
        "#/$defs/Node"
    );

    // A type that contains itself refers to the root.
    let schema = &registry.get("Outline").expect("declared").spec.input_schema;
    assert_eq!(schema["properties"]["sections"]["items"]["$ref"], "#");
}

#[test]
fn schemas_are_deterministic() {
    let first = Registry::from_tools(holon_core::registered_tools()).expect("valid");
    let second = Registry::from_tools(holon_core::registered_tools()).expect("valid");
    assert_eq!(first.len(), second.len());
    for (a, b) in first.definitions().zip(second.definitions()) {
        assert_eq!(a.name(), b.name());
        for (x, y) in [
            (&a.spec.input_schema, &b.spec.input_schema),
            (&a.result_schema, &b.result_schema),
        ] {
            assert_eq!(x, y, "{}", a.name());
            assert_eq!(
                serde_json::to_string(&**x).expect("serializable"),
                serde_json::to_string(&**y).expect("serializable"),
                "{}",
                a.name()
            );
        }
    }
    assert_eq!(inventory_text(&first), inventory_text(&second));
    assert_eq!(inventory_text(&first), inventory_text(Registry::global()));
    assert_eq!(
        serde_json::to_string(&ToolResult::envelope_schema()).expect("serializable"),
        serde_json::to_string(&ToolResult::envelope_schema()).expect("serializable")
    );
}

#[test]
fn field_docs_become_schema_descriptions() {
    let registry = Registry::global();
    let schema = &registry
        .get("CountNodes")
        .expect("declared")
        .spec
        .input_schema;
    assert_eq!(
        schema["properties"]["root"]["description"],
        "The root of the tree."
    );
    assert_eq!(
        schema["$defs"]["Node"]["properties"]["label"]["description"],
        "The node's label; not empty."
    );
}

#[tokio::test]
async fn recursive_inputs_are_validated_at_every_depth() {
    let registry = Registry::global();
    let context = ToolContext::new(FamilyPolicy::all());
    let tree = json!({ "root": { "label": "a", "children": [
        { "label": "b", "children": [{ "label": "c" }, { "label": "d" }] },
    ] } });
    let result = registry
        .dispatch(&context, ToolCall::new("CountNodes", tree))
        .await;
    assert!(result.is_success(), "{result:?}");
    assert_eq!(
        result.structured.as_deref(),
        Some(&json!({ "nodes": 4, "label_bytes": 4 }))
    );

    // A constraint deep in the recursion.
    let tree = json!({ "root": { "label": "a", "children": [
        { "label": "b", "children": [{ "label": "c" }, { "label": "" }] },
    ] } });
    let result = registry
        .dispatch(&context, ToolCall::new("CountNodes", tree))
        .await;
    let error = result.error.expect("refused");
    assert_eq!(error.kind.as_str(), "invalid_tool_input");
    assert_eq!(
        error.field.as_deref(),
        Some("root.children[0].children[1].label")
    );

    // An unknown field deep in the recursion: the hint knows the fields there.
    let tree = json!({ "root": { "label": "a", "children": [
        { "label": "b", "children": [{ "labl": "c" }] },
    ] } });
    let result = registry
        .dispatch(&context, ToolCall::new("CountNodes", tree))
        .await;
    let error = result.error.expect("refused");
    assert_eq!(error.kind.as_str(), "unknown_field");
    assert_eq!(
        error.field.as_deref(),
        Some("root.children[0].children[0].labl")
    );
    assert_eq!(
        error.recovery_hint.as_deref(),
        Some("did you mean `label`?")
    );

    let outline = json!({ "heading": "a", "sections": [
        { "heading": "b", "sections": [{ "heding": "c" }] },
    ] });
    let result = registry
        .dispatch(&context, ToolCall::new("Outline", outline))
        .await;
    let error = result.error.expect("refused");
    assert_eq!(error.kind.as_str(), "unknown_field");
    assert_eq!(
        error.field.as_deref(),
        Some("sections[0].sections[0].heding")
    );
    assert_eq!(
        error.recovery_hint.as_deref(),
        Some("did you mean `heading`?")
    );

    let outline = json!({ "heading": "a", "sections": [{ "heading": "b", "sections": [{ "heading": "c" }] }] });
    let result = registry
        .dispatch(&context, ToolCall::new("Outline", outline))
        .await;
    assert_eq!(
        result.structured.as_deref(),
        Some(&json!({ "depth": 3, "all_headings": "a/b/c" }))
    );
}

/// Arguments of Skip: a `u64` offset.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct SkipArgs {
    /// How many items to skip.
    offset: u64,
}

#[derive(Serialize, JsonSchema)]
struct Skipped {
    offset: u64,
}

/// Skips items.
#[holon_tool(family = CoreAgent)]
fn skip(args: SkipArgs) -> Skipped {
    Skipped {
        offset: args.offset,
    }
}

/// 2^53 - 1, JavaScript's `Number.MAX_SAFE_INTEGER`.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

#[tokio::test]
async fn u64_bounds_are_what_a_json_client_holds_exactly_and_the_runtime_agrees() {
    let registry = Registry::global();
    let definition = registry.get("Skip").expect("Skip is registered");
    let offset = &definition.spec.input_schema["properties"]["offset"];
    assert_eq!(offset["maximum"], json!(MAX_SAFE_INTEGER), "{offset}");
    assert_eq!(offset["minimum"], json!(0), "{offset}");

    let context = ToolContext::new(FamilyPolicy::all());
    let accepted = registry
        .dispatch(
            &context,
            ToolCall::new("Skip", json!({ "offset": MAX_SAFE_INTEGER })),
        )
        .await;
    assert!(accepted.is_success(), "{accepted:?}");

    let beyond = MAX_SAFE_INTEGER + 1;
    let by_value = registry
        .dispatch(&context, ToolCall::new("Skip", json!({ "offset": beyond })))
        .await;
    let by_text = registry
        .dispatch_text(&context, "Skip", &format!(r#"{{"offset": {beyond}}}"#))
        .await;
    for result in [by_value, by_text] {
        let error = result.error.expect("2^53 is above the published maximum");
        assert_eq!(error.kind.as_str(), "invalid_tool_input", "{error:?}");
        assert_eq!(error.field.as_deref(), Some("offset"), "{error:?}");
        assert!(error.message.contains("9007199254740991"), "{error:?}");
    }
}
