//! The answer a model gets to bad input says each thing once: the field's path, the
//! valid fields and the closest valid name are all there, none of them twice. The
//! answer is the MCP `tools/call` result (its text is what the model reads; its
//! `_meta` carries the typed error for programs), so that is what is measured.
//!
//! `cargo test -p holon-integration-tests --test input_answers -- --nocapture` prints
//! each answer's size.

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry, ToolCall};
use serde_json::{Value, json};

/// Arguments of Greet.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

#[derive(Serialize, JsonSchema)]
struct Greeting {
    text: String,
}

/// Greets someone by name.
#[holon_tool(family = CoreAgent)]
fn greet(args: GreetArgs) -> Greeting {
    Greeting {
        text: format!("hello, {}", args.name),
    }
}

/// Arguments of Repeat.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct RepeatArgs {
    /// How many times.
    #[schemars(range(min = 1, max = 5))]
    times: u32,
}

/// Repeats a bell.
#[holon_tool(family = CoreAgent)]
fn repeat(args: RepeatArgs) -> Greeting {
    Greeting {
        text: "ding ".repeat(args.times as usize),
    }
}

/// The MCP `tools/call` result of a call, as JSON text, and the text the model reads.
async fn answer(name: &str, input: Value) -> (String, String) {
    let registry = Registry::global();
    let context = ToolContext::new(FamilyPolicy::all());
    let result = registry
        .dispatch(&context, ToolCall::new(name, input))
        .await;
    assert!(!result.is_success(), "{result:?}");
    let definition = registry.get(name).expect("registered");
    let wire = holon_export::mcp::call_result(Some(definition), &result);
    let text = wire["content"][0]["text"]
        .as_str()
        .expect("a text block")
        .to_string();
    (wire.to_string(), text)
}

/// How often `needle` occurs in `haystack`.
fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

/// The typed error of an answer's `_meta`.
fn typed_error(wire: &str) -> Value {
    let wire: Value = serde_json::from_str(wire).expect("JSON");
    wire["_meta"]["holon/error"].clone()
}

#[tokio::test]
async fn one_unknown_field_is_said_once() {
    let (wire, text) = answer("Greet", json!({ "name": "Ada", "nmae": "x" })).await;
    eprintln!(
        "unknown field, close name: {} / {}\n{text}",
        wire.len(),
        text.len()
    );
    // The path, and the closest valid name, once in the text the model reads.
    assert_eq!(count(&text, "nmae"), 1, "{text}");
    assert_eq!(count(&text, "`name`"), 1, "{text}");
    assert!(!text.contains("problems"), "{text}");
    let error = typed_error(&wire);
    assert_eq!(error["field"], "nmae", "{error:#}");
    assert_eq!(error["recovery_hint"], "did you mean `name`?", "{error:#}");
    assert_eq!(
        error["details"],
        json!({ "expected": ["name"] }),
        "{error:#}"
    );

    let (wire, text) = answer("Greet", json!({ "name": "Ada", "colour": "red" })).await;
    eprintln!(
        "unknown field, no close name: {} / {}\n{text}",
        wire.len(),
        text.len()
    );
    assert_eq!(count(&text, "colour"), 1, "{text}");
    // The one valid field, named once (as `expected`).
    assert_eq!(count(&text, "name"), 1, "{text}");
    let error = typed_error(&wire);
    assert_eq!(error["field"], "colour", "{error:#}");
    assert_eq!(
        error["details"],
        json!({ "expected": ["name"] }),
        "{error:#}"
    );
}

#[tokio::test]
async fn the_first_problem_is_not_listed_again() {
    // A misspelt field, and the required field it stands for.
    let (wire, text) = answer("Greet", json!({ "nme": "Ada" })).await;
    eprintln!(
        "misspelt required field: {} / {}\n{text}",
        wire.len(),
        text.len()
    );
    assert_eq!(count(&text, "nme"), 1, "{text}");
    // The missing `name` is the second problem, listed once.
    assert_eq!(count(&text, "missing required field `name`"), 1, "{text}");
    let error = typed_error(&wire);
    assert_eq!(error["field"], "nme", "{error:#}");
    let listed = error["details"]["problems"].as_array().expect("a list");
    assert_eq!(listed.len(), 1, "{error:#}");
    assert_eq!(listed[0]["field"], "name", "{error:#}");
}

#[tokio::test]
async fn other_typical_mistakes_are_said_once() {
    let (wire, text) = answer("Greet", json!({ "name": 3 })).await;
    eprintln!("wrong type: {} / {}\n{text}", wire.len(), text.len());
    assert!(!text.contains("problems"), "{text}");
    assert_eq!(typed_error(&wire)["field"], "name");

    let (wire, text) = answer("Greet", json!({})).await;
    eprintln!("missing field: {} / {}\n{text}", wire.len(), text.len());
    assert_eq!(count(&text, "name"), 1, "{text}");
    assert_eq!(typed_error(&wire)["field"], "name");

    let (wire, text) = answer("Repeat", json!({ "times": 9 })).await;
    eprintln!("out of range: {} / {}\n{text}", wire.len(), text.len());
    assert!(!text.contains("problems"), "{text}");
    assert!(text.contains('5'), "{text}");
    assert_eq!(typed_error(&wire)["field"], "times");
}
