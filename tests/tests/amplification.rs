//! Error amplification: an input with a million problems, or a handler error quoting
//! a huge text, gets an error of bounded size that lists the first problems and
//! counts the rest. The caps live where problems are collected and where an error
//! becomes an envelope, so every transport (session, MCP, a host) inherits them.

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry, ToolCall};
use serde_json::{Map, Value, json};

/// Arguments of Weigh.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct WeighArgs {
    /// A label for the weighing.
    label: String,
    /// The items to weigh.
    items: Vec<Item>,
}

/// One item.
#[derive(Debug, Deserialize, JsonSchema, ClosedInput)]
#[serde(deny_unknown_fields)]
struct Item {
    /// The item's name.
    name: String,
}

#[derive(Serialize, JsonSchema)]
struct Weighed {
    label: String,
    names: Vec<String>,
}

/// Counts the items.
#[holon_tool(family = CoreAgent)]
fn weigh(args: WeighArgs) -> Weighed {
    Weighed {
        label: args.label,
        names: args.items.into_iter().map(|item| item.name).collect(),
    }
}

/// Arguments of Complain.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct ComplainArgs {
    /// How many bytes the error quotes.
    bytes: usize,
}

#[derive(Serialize, JsonSchema)]
struct Never {}

/// Fails with an error whose message, hint, field and details quote `bytes` bytes.
#[holon_tool(family = CoreAgent)]
fn complain(args: ComplainArgs) -> Result<Never, ToolError> {
    let huge = "q".repeat(args.bytes);
    let many: Map<String, Value> = (0..args.bytes / 64)
        .map(|i| (format!("key{i}"), json!("v".repeat(48))))
        .collect();
    Err(ToolError::invalid_input(huge.clone())
        .with_hint(huge.clone())
        .with_field(huge.clone())
        .with_details(json!({ "quoted": huge, "many": many, "small": 1 })))
}

/// The most listed problems, and the bound on the bytes of any error (message and
/// hint 4 KiB, field 1 KiB, details 64 KiB, and the JSON around them).
const LISTED: usize = 20;
const ERROR_BOUND: usize = 80 * 1024;

fn context() -> ToolContext {
    ToolContext::new(FamilyPolicy::all())
}

async fn call_text(name: &str, arguments: &str) -> Value {
    let result = Registry::global()
        .dispatch_text(&context(), name, arguments)
        .await;
    serde_json::to_value(&result).expect("an envelope serializes")
}

async fn call(name: &str, input: Value) -> Value {
    let result = Registry::global()
        .dispatch(&context(), ToolCall::new(name, input))
        .await;
    serde_json::to_value(&result).expect("an envelope serializes")
}

fn size(value: &Value) -> usize {
    serde_json::to_string(value).expect("serializable").len()
}

/// Checks that `envelope` failed with `kind`, listing [`LISTED`] problems and counting
/// `omitted` others, in an error (and an envelope) of bounded size.
fn assert_capped(envelope: &Value, kind: &str, omitted: usize) {
    let error = &envelope["error"];
    assert_eq!(error["kind"], kind, "{}", &error.to_string()[..2000]);
    let listed = error["details"]["problems"].as_array().expect("problems");
    // The first problem is the error itself, not listed again.
    assert_eq!(listed.len(), LISTED - 1);
    assert_eq!(error["details"]["problems_omitted"], omitted);
    let message = error["message"].as_str().expect("message");
    assert!(
        message.contains(&format!("counts the other {omitted}")),
        "{message}"
    );
    assert!(size(error) < ERROR_BOUND, "error of {} bytes", size(error));
    // The envelope's summary and receipt are made of the error.
    assert!(
        size(envelope) < 3 * ERROR_BOUND,
        "envelope of {} bytes",
        size(envelope)
    );
}

#[tokio::test]
async fn a_million_unknown_keys_give_a_small_error_that_counts_the_rest() {
    // The session line of the probe: 11 MiB of text, one error of 457 MB before.
    let keys: Vec<String> = (0..1_000_000).map(|i| format!("\"k{i:06}\":0")).collect();
    let text = format!(r#"{{"label":"x","items":[],{}}}"#, keys.join(","));
    drop(keys);
    let envelope = call_text("Weigh", &text).await;
    assert_capped(&envelope, "unknown_field", 1_000_000 - LISTED);
    assert_eq!(envelope["error"]["field"], "k000000");
}

#[tokio::test]
async fn a_million_repeated_keys_give_a_small_error_that_counts_the_rest() {
    let repeats = vec![r#""label":"y""#; 1_000_000].join(",");
    let text = format!(r#"{{"label":"x","items":[],{repeats}}}"#);
    let envelope = call_text("Weigh", &text).await;
    assert_capped(&envelope, "duplicate_field", 1_000_000 - LISTED);
}

#[tokio::test]
async fn problems_at_many_paths_keep_the_fixing_order_and_count_the_rest() {
    // As a transport that parsed the request sends it: 100,000 items, each with an
    // unknown key and no name, and a label of the wrong type.
    let items: Vec<Value> = (0..100_000).map(|i| json!({ "nme": i })).collect();
    let envelope = call("Weigh", json!({ "label": 7, "items": items })).await;
    // 100,000 unknown fields, one wrong type, 100,000 missing names.
    assert_capped(&envelope, "unknown_field", 200_001 - LISTED);
    let listed = envelope["error"]["details"]["problems"].as_array().unwrap();
    assert!(
        listed
            .iter()
            .all(|problem| problem["kind"] == "unknown_field")
    );
    assert_eq!(listed[18]["field"], "items[19].nme");
}

#[tokio::test]
async fn a_handler_error_quoting_ten_megabytes_is_cut() {
    let envelope = call("Complain", json!({ "bytes": 10 << 20 })).await;
    let error = &envelope["error"];
    assert_eq!(error["kind"], "invalid_tool_input");
    assert!(size(error) < ERROR_BOUND, "error of {} bytes", size(error));
    assert!(size(&envelope) < 3 * ERROR_BOUND);
    for key in ["message", "recovery_hint", "field"] {
        let text = error[key].as_str().expect(key);
        assert!(text.starts_with("qqq") && text.ends_with("qqq"), "{key}");
        assert!(text.contains("bytes omitted"), "{key}");
    }
    // The details keep the keys that fit, and name the others.
    let details = &error["details"];
    assert_eq!(details["small"], 1);
    let omitted = details["omitted_keys"].as_array().expect("omitted_keys");
    assert!(omitted.contains(&json!("quoted")), "{details}");
    assert!(omitted.contains(&json!("many")), "{details}");

    // A small error is left whole.
    let envelope = call("Complain", json!({ "bytes": 100 })).await;
    assert_eq!(envelope["error"]["message"], "q".repeat(100));
    assert_eq!(
        envelope["error"]["details"]["many"],
        json!({ "key0": "v".repeat(48) })
    );
}
