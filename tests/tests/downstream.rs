//! A separate crate that depends on `holon-core` only adds its own tools: linking it
//! is all it takes for them to be in `Registry::global()`.
//!
//! Nothing in this file names a tool of `holon_downstream_tools`; it only makes rustc
//! link the crate. Without the `use ... as _` below the crate is not linked (rustc
//! only links the `--extern` crates the code refers to) and the registry is empty of
//! its tools; the crate's documentation says so.

use holon_core::{
    FamilyPolicy, Registry, Stability, ToolCall, ToolCapabilityFamily, ToolContext, Visibility,
};
use holon_downstream_tools as _;
use serde_json::json;

#[test]
fn linked_downstream_tools_are_in_the_global_registry() {
    let registry = Registry::global();
    for name in ["Echo", "RecordTodos"] {
        let definition = registry
            .get(name)
            .unwrap_or_else(|| panic!("{name} is missing from {registry:?}"));
        assert_eq!(definition.name(), name);
        assert_eq!(definition.family, ToolCapabilityFamily::CoreAgent);
        assert_eq!(definition.stability, Stability::Stable);
        assert_eq!(definition.visibility, Visibility::Model);
        assert_eq!(definition.defined_at.module, "holon_downstream_tools");
        assert!(
            definition
                .defined_at
                .file
                .ends_with("downstream-tools/src/lib.rs"),
            "{}",
            definition.defined_at
        );
    }
    let models: Vec<&str> = registry
        .model_definitions(FamilyPolicy::all())
        .map(|definition| definition.name())
        .collect();
    assert!(models.contains(&"Echo"), "{models:?}");
    assert!(models.contains(&"RecordTodos"), "{models:?}");
}

#[test]
fn doc_comments_become_the_description() {
    let echo = Registry::global().get("Echo").expect("linked");
    let description = &*echo.spec.description;
    assert!(
        description.starts_with(
            "Sends `text` back, repeated `times` times (1 to 5) and joined by single spaces.\n"
        ),
        "{description}"
    );
    assert!(
        description.ends_with(
            "\nUse it to check that tool calls reach the runtime; it has no side effect."
        ),
        "{description}"
    );
    assert_eq!(echo.annotations.read_only, Some(true));
    assert_eq!(echo.annotations.idempotent, Some(true));
    assert_eq!(echo.annotations.destructive, None);

    let schema = &echo.spec.input_schema;
    assert_eq!(
        schema["properties"]["text"]["description"],
        "The text to send back; must not be empty."
    );
}

#[test]
fn doc_comment_paragraphs_are_kept() {
    let echo = Registry::global().get("Echo").expect("linked");
    assert_eq!(
        &*echo.spec.description,
        "Sends `text` back, repeated `times` times (1 to 5) and joined by single spaces.\n\
         \n\
         Use it to check that tool calls reach the runtime; it has no side effect."
    );
}

#[test]
fn nested_argument_types_are_described_field_by_field() {
    let todos = Registry::global().get("RecordTodos").expect("linked");
    let item = &todos.spec.input_schema["properties"]["todo_list"]["items"];
    assert_eq!(item["type"], "object");
    assert_eq!(item["additionalProperties"], false);
    assert_eq!(
        item["properties"]["text"]["description"],
        "What has to be done, as one short imperative sentence."
    );
    let states: Vec<&str> = item["properties"]["state"]["oneOf"]
        .as_array()
        .expect("one branch per state")
        .iter()
        .map(|branch| branch["const"].as_str().expect("a string constant"))
        .collect();
    assert_eq!(states, ["pending", "in_progress", "done"]);
    assert_eq!(
        todos.result_schema["required"],
        json!(["total", "pending", "in_progress", "done"])
    );
}

#[tokio::test]
async fn downstream_tools_dispatch_through_the_global_registry() {
    let context = ToolContext::new(FamilyPolicy::all());
    let result = Registry::global()
        .dispatch(
            &context,
            ToolCall::new("Echo", json!({ "text": "hi", "times": 3 })),
        )
        .await;
    assert!(result.is_success(), "{result:?}");
    assert_eq!(
        result.structured.as_deref(),
        Some(&json!({ "echoed": "hi hi hi", "length_chars": 8 }))
    );

    let input = json!({ "todo_list": [
        { "text": "write the tests", "state": "done" },
        { "text": "run them", "state": "in_progress" },
        { "text": "report", "state": "pending" },
        { "text": "celebrate", "state": "pending" },
    ] });
    let result = Registry::global()
        .dispatch(&context, ToolCall::new("RecordTodos", input))
        .await;
    assert!(result.is_success(), "{result:?}");
    assert_eq!(
        result.structured.as_deref(),
        Some(&json!({ "total": 4, "pending": 2, "in_progress": 1, "done": 1 }))
    );
}
