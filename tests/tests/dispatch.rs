//! The dispatch pipeline, step by step, each with the input that must fail it:
//! lookup -> visibility -> family gate -> input shape -> schema constraints -> typed
//! parse -> state -> handler -> envelope. Every failure is a `status = error`
//! envelope with a stable kind, the field path and a hint; nothing crashes the
//! dispatcher.

use std::sync::atomic::{AtomicUsize, Ordering};

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, MAX_INPUT_DEPTH, Registry, ToolCall, ToolCapabilityFamily};
use holon_downstream_tools as _;
use serde_json::{Map, Value, json};

// ---------------------------------------------------------------------------------
// Tools of this test binary. All valid: they are in this binary's global registry.

static FETCH_RUNS: AtomicUsize = AtomicUsize::new(0);

/// Arguments of GuardedFetch.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct GuardedFetchArgs {
    /// The URL to fetch.
    url: String,
}

#[derive(Serialize, JsonSchema)]
struct Fetched {
    body: String,
}

/// Pretends to fetch a URL; counts its runs so tests can prove it did not run.
#[holon_tool(family = Web)]
fn guarded_fetch(args: GuardedFetchArgs) -> Fetched {
    FETCH_RUNS.fetch_add(1, Ordering::SeqCst);
    Fetched {
        body: format!("contents of {}", args.url),
    }
}

/// Arguments of Tally: nothing serde cannot check alone, so no schema validation runs
/// and every error comes from the typed parse.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct TallyArgs {
    /// A label for the tally.
    label: String,
    /// The items to weigh.
    items: Vec<Item>,
    /// How to combine the weights.
    #[serde(default)]
    mode: Option<Mode>,
}

/// One item.
#[derive(Debug, Deserialize, JsonSchema, ClosedInput)]
#[serde(deny_unknown_fields)]
struct Item {
    /// The item's name.
    name: String,
    /// Its weight in grams.
    weight: u32,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Sum,
    Max,
}

#[derive(Serialize, JsonSchema)]
struct TallyResult {
    total: u64,
    heaviest: Option<String>,
    tally_label: String,
}

/// Adds (or takes the maximum of) the weights of the items.
#[holon_tool(family = CoreAgent)]
fn tally(args: TallyArgs) -> TallyResult {
    let weights = args.items.iter().map(|item| u64::from(item.weight));
    let total = match args.mode.unwrap_or(Mode::Sum) {
        Mode::Sum => weights.sum(),
        Mode::Max => weights.max().unwrap_or(0),
    };
    TallyResult {
        total,
        heaviest: args
            .items
            .iter()
            .max_by_key(|item| item.weight)
            .map(|item| item.name.clone()),
        tally_label: args.label,
    }
}

/// Arguments of Shout.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct ShoutArgs {
    /// The words to shout.
    words: String,
}

impl FromFreeform for ShoutArgs {
    fn from_freeform(text: String) -> Result<Self, ToolError> {
        Ok(Self { words: text })
    }
}

#[derive(Serialize, JsonSchema)]
struct Shouted {
    loud: String,
}

/// Shouts the words back in capitals. Also takes the words as raw text.
#[holon_tool(family = CoreAgent, freeform(syntax = "regex", definition = "[a-z ]+"))]
fn shout(args: ShoutArgs) -> Shouted {
    Shouted {
        loud: args.words.to_uppercase(),
    }
}

/// Arguments of Explode.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct ExplodeArgs {
    /// Whether to panic.
    fail: bool,
}

#[derive(Serialize, JsonSchema)]
struct Survived {
    survived: bool,
}

/// Panics when told to: a stand-in for a buggy tool.
#[holon_tool(family = CoreAgent)]
fn explode(args: ExplodeArgs) -> Survived {
    assert!(!args.fail, "the fuse was lit");
    Survived { survived: true }
}

/// Panics when told to, after yielding once: a buggy async tool.
#[holon_tool(family = CoreAgent)]
async fn explode_later(args: ExplodeArgs) -> Survived {
    tokio::task::yield_now().await;
    if args.fail {
        panic!("{} went off", String::from("the delayed fuse"));
    }
    Survived { survived: true }
}

/// Host state a tool needs.
struct Ledger {
    entries: AtomicUsize,
}

#[derive(Serialize, JsonSchema)]
struct LedgerCount {
    entries_after: usize,
}

/// Adds an entry to the host's ledger.
#[holon_tool(family = CoreAgent)]
fn add_ledger_entry(ledger: &Ledger, context: &ToolContext) -> LedgerCount {
    let _ = context.caller();
    LedgerCount {
        entries_after: ledger.entries.fetch_add(1, Ordering::SeqCst) + 1,
    }
}

#[derive(Serialize, JsonSchema)]
struct Named {
    called_as: String,
}

/// Reports the name it is registered under. Used to be called LegacyName.
#[holon_tool(family = CoreAgent, aliases = ["LegacyName", "OlderName"])]
fn current_name() -> Named {
    Named {
        called_as: "CurrentName".to_string(),
    }
}

#[derive(Serialize, JsonSchema)]
struct Rotated {
    rotated: bool,
}

/// Rotates the runtime's secrets. Runtime-only: never shown to a model.
#[holon_tool(family = CoreAgent, visibility = runtime)]
fn rotate_secrets() -> Rotated {
    Rotated { rotated: true }
}

/// Arguments of Chain: a recursive type without constraints, so no schema
/// validation runs and only the typed parse sees the nesting.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct ChainArgs {
    /// The next link.
    a: Option<Box<ChainArgs>>,
}

#[derive(Serialize, JsonSchema)]
struct ChainLength {
    links: usize,
}

/// Counts the links of a chain.
#[holon_tool(family = CoreAgent)]
fn chain(args: ChainArgs) -> ChainLength {
    let mut links = 1;
    let mut next = args.a.as_deref();
    while let Some(link) = next {
        links += 1;
        next = link.a.as_deref();
    }
    ChainLength { links }
}

/// Arguments of GetWeather.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct GetWeatherArgs {
    /// The city.
    city: String,
    /// How many days ahead.
    days: u32,
}

#[derive(Serialize, JsonSchema)]
struct Forecast {
    summary: String,
}

/// Forecasts the weather of a city.
#[holon_tool(family = CoreAgent)]
fn get_weather(args: GetWeatherArgs) -> Forecast {
    Forecast {
        summary: format!("{} in {} days: sunny", args.city, args.days),
    }
}

// ---------------------------------------------------------------------------------
// Helpers.

fn context() -> ToolContext {
    ToolContext::new(FamilyPolicy::all())
}

async fn call_in(context: &ToolContext, name: &str, input: Value) -> Value {
    let result = Registry::global()
        .dispatch(context, ToolCall::new(name, input))
        .await;
    serde_json::to_value(&result).expect("an envelope serializes")
}

async fn call(name: &str, input: Value) -> Value {
    call_in(&context(), name, input).await
}

/// A call whose arguments are JSON text, as a provider sends them.
async fn call_text(name: &str, arguments: &str) -> Value {
    let result = Registry::global()
        .dispatch_text(&context(), name, arguments)
        .await;
    serde_json::to_value(&result).expect("an envelope serializes")
}

/// `(kind, field)` of each problem of an error, in its order: the error itself, then
/// the others it lists.
fn problems(error: &Value) -> Vec<(String, String)> {
    let pair = |problem: &Value| {
        (
            text(&problem["kind"]).to_string(),
            problem["field"].as_str().unwrap_or_default().to_string(),
        )
    };
    let others = error["details"]["problems"]
        .as_array()
        .unwrap_or_else(|| panic!("no problems listed: {error:#}"));
    std::iter::once(pair(error))
        .chain(others.iter().map(pair))
        .collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(kind, field)| (kind.to_string(), field.to_string()))
        .collect()
}

/// The error of a failed envelope, after checking it failed with `kind`.
fn expect_error(envelope: &Value, kind: &str) -> Value {
    assert_eq!(envelope["status"], "error", "{envelope:#}");
    assert_eq!(envelope["structured"], Value::Null, "{envelope:#}");
    assert_eq!(envelope["error"]["kind"], kind, "{envelope:#}");
    envelope["error"].clone()
}

/// [`expect_error`] for an owned envelope.
fn error_of(envelope: Value, kind: &str) -> Value {
    expect_error(&envelope, kind)
}

fn text(value: &Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value}"))
}

/// An object of `fields`, built without serializing (and so recursing into) them.
fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(key, value)| (key.to_string(), value))
            .collect(),
    )
}

/// Builds an input when called, so that it exists only while its call runs.
type BuildInput = fn() -> Value;

/// `levels` arrays nested in each other, built without recursion.
fn deep_array(levels: usize) -> Value {
    let mut value = Value::Null;
    for _ in 0..levels {
        value = Value::Array(vec![value]);
    }
    value
}

/// `levels` objects nested in each other, built without recursion.
fn deep_object(levels: usize) -> Value {
    let mut value = Value::Null;
    for _ in 0..levels {
        let mut map = Map::new();
        map.insert("a".to_string(), value);
        value = Value::Object(map);
    }
    value
}

// ---------------------------------------------------------------------------------
// Lookup.

#[tokio::test]
async fn an_unknown_tool_names_the_closest_tool() {
    let envelope = call("Ecko", json!({ "text": "hi" })).await;
    let error = expect_error(&envelope, "unknown_tool");
    assert_eq!(envelope["tool_name"], "Ecko");
    assert!(text(&error["message"]).contains("`Ecko`"), "{error:#}");
    assert_eq!(error["recovery_hint"], "did you mean `Echo`?");

    let error = error_of(call("record_todos", json!({})).await, "unknown_tool");
    assert_eq!(error["recovery_hint"], "did you mean `RecordTodos`?");

    let error = error_of(call("Zzyzx", json!({})).await, "unknown_tool");
    assert!(
        text(&error["recovery_hint"]).contains("exact name"),
        "{error:#}"
    );
}

#[tokio::test]
async fn an_unknown_tool_hint_never_suggests_a_tool_the_caller_may_not_use() {
    let no_web = ToolContext::new(FamilyPolicy::all().without(ToolCapabilityFamily::Web));
    let envelope = call_in(&no_web, "GuardedFetc", json!({})).await;
    let error = expect_error(&envelope, "unknown_tool");
    assert!(
        !text(&error["recovery_hint"]).contains("GuardedFetch"),
        "{error:#}"
    );
    // Nor a runtime-only tool to a model.
    let error = error_of(call("RotateSecret", json!({})).await, "unknown_tool");
    assert!(
        !text(&error["recovery_hint"]).contains("RotateSecrets"),
        "{error:#}"
    );
}

#[tokio::test]
async fn an_alias_dispatches_to_the_canonical_tool() {
    for name in ["LegacyName", "OlderName", "CurrentName"] {
        let envelope = call(name, json!({})).await;
        assert_eq!(envelope["status"], "success", "{envelope:#}");
        assert_eq!(envelope["tool_name"], "CurrentName");
        assert_eq!(envelope["structured"]["called_as"], "CurrentName");
    }
    let definition = Registry::global().get("LegacyName").expect("alias lookup");
    assert_eq!(definition.name(), "CurrentName");
    assert_eq!(definition.aliases, ["LegacyName", "OlderName"]);
}

#[tokio::test]
async fn a_runtime_only_tool_is_unknown_to_a_model_and_works_for_the_runtime() {
    let envelope = call("RotateSecrets", json!({})).await;
    let error = expect_error(&envelope, "unknown_tool");
    assert!(text(&error["message"]).contains("RotateSecrets"));

    let runtime = context().with_runtime_access();
    let envelope = call_in(&runtime, "RotateSecrets", json!({})).await;
    assert_eq!(envelope["status"], "success", "{envelope:#}");
    assert_eq!(envelope["structured"], json!({ "rotated": true }));

    let registry = Registry::global();
    assert!(registry.get("RotateSecrets").is_some());
    assert!(
        registry
            .model_definitions(FamilyPolicy::all())
            .all(|definition| definition.name() != "RotateSecrets")
    );
}

// ---------------------------------------------------------------------------------
// Family gate.

#[tokio::test]
async fn a_tool_outside_the_callers_families_is_refused_before_it_runs() {
    let no_web = ToolContext::new(FamilyPolicy::all().without(ToolCapabilityFamily::Web));
    let before = FETCH_RUNS.load(Ordering::SeqCst);

    let envelope = call_in(&no_web, "GuardedFetch", json!({ "url": "https://a.test" })).await;
    let error = expect_error(&envelope, "family_not_allowed");
    assert_eq!(envelope["tool_name"], "GuardedFetch");
    assert_eq!(error["details"]["family"], "web");
    assert!(
        !error["details"]["allowed"]
            .as_array()
            .expect("the allowed families")
            .contains(&json!("web"))
    );
    assert!(text(&error["message"]).contains("`web`"), "{error:#}");
    assert!(error["recovery_hint"].is_string());

    // The gate comes before the input is even looked at.
    let envelope = call_in(&no_web, "GuardedFetch", json!({ "bogus": 1 })).await;
    expect_error(&envelope, "family_not_allowed");
    let envelope = call_in(&no_web, "GuardedFetch", deep_array(100_000)).await;
    expect_error(&envelope, "family_not_allowed");
    assert_eq!(
        FETCH_RUNS.load(Ordering::SeqCst),
        before,
        "the handler must not run"
    );

    let web = ToolContext::new(FamilyPolicy::none().with(ToolCapabilityFamily::Web));
    let envelope = call_in(&web, "GuardedFetch", json!({ "url": "https://a.test" })).await;
    assert_eq!(envelope["status"], "success", "{envelope:#}");
    assert_eq!(FETCH_RUNS.load(Ordering::SeqCst), before + 1);
}

// ---------------------------------------------------------------------------------
// Input shape.

#[tokio::test]
async fn the_input_must_be_an_object() {
    for (input, kind) in [
        (json!(42), "a number"),
        (json!([{ "text": "hi" }]), "an array"),
        (Value::Null, "null"),
        (json!(true), "a boolean"),
        (json!("hi"), "a string"),
    ] {
        for tool in ["Echo", "Tally"] {
            let envelope = call(tool, input.clone()).await;
            let error = expect_error(&envelope, "invalid_tool_input");
            assert_eq!(
                error["message"],
                format!("the input must be a JSON object, not {kind}"),
                "{error:#}"
            );
            assert!(error["recovery_hint"].is_string(), "{error:#}");
        }
    }
}

#[tokio::test]
async fn a_freeform_tool_takes_a_string_or_an_object() {
    let envelope = call("Shout", json!("make some noise")).await;
    assert_eq!(envelope["status"], "success", "{envelope:#}");
    assert_eq!(envelope["structured"]["loud"], "MAKE SOME NOISE");

    let envelope = call("Shout", json!({ "words": "hello" })).await;
    assert_eq!(envelope["structured"]["loud"], "HELLO");

    let result = Registry::global()
        .dispatch(&context(), ToolCall::freeform("Shout", "raw text"))
        .await;
    assert!(result.is_success(), "{result:?}");

    let error = error_of(call("Shout", json!(7)).await, "invalid_tool_input");
    assert!(
        text(&error["message"]).contains("a string of raw text in the tool's regex grammar"),
        "{error:#}"
    );
    let error = error_of(call("Shout", json!({ "word": "x" })).await, "unknown_field");
    assert_eq!(error["recovery_hint"], "did you mean `words`?");
}

// ---------------------------------------------------------------------------------
// Unknown fields and result fields, through schema validation (Echo has constraints)
// and through the typed parse (Tally has none).

#[tokio::test]
async fn an_unknown_field_names_its_path_and_the_closest_valid_field() {
    // Echo: caught by schema validation.
    let envelope = call("Echo", json!({ "text": "hi", "tmes": 2 })).await;
    let error = expect_error(&envelope, "unknown_field");
    assert_eq!(error["field"], "tmes");
    assert_eq!(error["recovery_hint"], "did you mean `times`?");
    assert!(text(&error["message"]).contains("`tmes`"), "{error:#}");

    // Tally: caught by the typed parse.
    let envelope = call("Tally", json!({ "lable": "x", "items": [] })).await;
    let error = expect_error(&envelope, "unknown_field");
    assert_eq!(error["field"], "lable");
    assert_eq!(error["recovery_hint"], "did you mean `label`?");

    // Nested, with the full path; the hint lists the fields at that level.
    let input = json!({ "label": "x", "items": [
        { "name": "a", "weight": 1 },
        { "name": "b", "wieght": 2 },
    ] });
    let error = error_of(call("Tally", input).await, "unknown_field");
    assert_eq!(error["field"], "items[1].wieght");
    assert_eq!(error["recovery_hint"], "did you mean `weight`?");

    let input = json!({ "todo_list": [
        { "text": "a", "state": "done" },
        { "txt": "b", "text": "b", "state": "done" },
    ] });
    let error = error_of(call("RecordTodos", input).await, "unknown_field");
    assert_eq!(error["field"], "todo_list[1].txt");
    assert_eq!(error["recovery_hint"], "did you mean `text`?");

    // Far from everything: the error lists what is valid, and the hint points there.
    let error = error_of(
        call("Tally", json!({ "label": "x", "items": [], "zzz": 1 })).await,
        "unknown_field",
    );
    let expected = error["details"]["expected"].to_string();
    assert!(
        expected.contains("label") && expected.contains("items") && expected.contains("mode"),
        "{error:#}"
    );
    assert!(
        text(&error["recovery_hint"]).contains("`expected`"),
        "{error:#}"
    );
}

#[tokio::test]
async fn a_result_field_passed_as_input_is_named_as_such() {
    let envelope = call("Echo", json!({ "text": "hi", "echoed": "hi" })).await;
    let error = expect_error(&envelope, "result_field_in_input");
    assert_eq!(error["field"], "echoed");
    assert!(text(&error["message"]).contains("result"), "{error:#}");
    let hint = text(&error["recovery_hint"]);
    assert!(hint.contains("remove `echoed`"), "{hint}");
    assert!(hint.contains("text") && hint.contains("times"), "{hint}");

    let input = json!({ "label": "x", "items": [], "total": 3 });
    let error = error_of(call("Tally", input).await, "result_field_in_input");
    assert_eq!(error["field"], "total");

    // Only top-level result fields count: a nested field that happens to share the
    // name is a plain unknown field.
    let input = json!({ "label": "x", "items": [{ "name": "a", "weight": 1, "total": 3 }] });
    let error = error_of(call("Tally", input).await, "unknown_field");
    assert_eq!(error["field"], "items[0].total");
}

// ---------------------------------------------------------------------------------
// Types, missing fields and enum values.

#[tokio::test]
async fn a_wrong_enum_value_names_the_path_and_the_valid_values() {
    // RecordTodos documents each state, so its schema uses `oneOf` + `const` and
    // schema validation catches it.
    let input = json!({ "todo_list": [
        { "text": "a", "state": "done" },
        { "text": "b", "state": "pending" },
        { "text": "c", "state": "don" },
    ] });
    let error = error_of(call("RecordTodos", input).await, "invalid_tool_input");
    assert_eq!(error["field"], "todo_list[2].state");
    assert_eq!(error["recovery_hint"], "did you mean `done`?");
    assert_eq!(
        error["details"]["expected"],
        json!(["pending", "in_progress", "done"]),
        "{error:#}"
    );

    // Tally's Mode has no docs: a plain `enum`, caught by the typed parse.
    let input = json!({ "label": "x", "items": [], "mode": "maximum" });
    let error = error_of(call("Tally", input).await, "invalid_tool_input");
    assert_eq!(error["field"], "mode");
    assert_eq!(error["recovery_hint"], "did you mean `max`?");
}

#[tokio::test]
async fn a_wrong_type_names_the_field_path() {
    let input = json!({ "todo_list": [
        { "text": "a", "state": "done" },
        { "text": "b", "state": "done" },
        { "text": "c", "state": 3 },
    ] });
    let error = error_of(call("RecordTodos", input).await, "invalid_tool_input");
    assert_eq!(error["field"], "todo_list[2].state");

    let error = error_of(
        call("RecordTodos", json!({ "todo_list": "a, b" })).await,
        "invalid_tool_input",
    );
    assert_eq!(error["field"], "todo_list");
    assert!(text(&error["message"]).contains("array"), "{error:#}");

    let input = json!({ "label": "x", "items": [
        { "name": "a", "weight": 1 },
        { "name": "b", "weight": 2 },
        { "name": "c", "weight": "heavy" },
    ] });
    let error = error_of(call("Tally", input).await, "invalid_tool_input");
    assert_eq!(error["field"], "items[2].weight");
    assert!(text(&error["message"]).contains("u32"), "{error:#}");

    let input = json!({ "label": "x", "items": [{ "name": "a", "weight": -5 }] });
    let error = error_of(call("Tally", input).await, "invalid_tool_input");
    assert_eq!(error["field"], "items[0].weight");

    let error = error_of(
        call("Explode", json!({ "fail": "no" })).await,
        "invalid_tool_input",
    );
    assert_eq!(error["field"], "fail");
}

#[tokio::test]
async fn a_missing_field_names_its_full_path() {
    let error = error_of(call("Echo", json!({})).await, "invalid_tool_input");
    assert_eq!(error["field"], "text");
    assert_eq!(error["message"], "missing required field `text`");

    let input = json!({ "todo_list": [{ "text": "a", "state": "done" }, { "text": "b" }] });
    let error = error_of(call("RecordTodos", input).await, "invalid_tool_input");
    assert_eq!(error["field"], "todo_list[1].state");
    assert!(
        text(&error["message"]).contains("missing required field `todo_list[1].state`"),
        "{error:#}"
    );

    let input = json!({ "label": "x", "items": [{ "name": "a" }] });
    let error = error_of(call("Tally", input).await, "invalid_tool_input");
    assert_eq!(error["field"], "items[0].weight");
    assert_eq!(error["message"], "missing required field `items[0].weight`");

    let error = error_of(
        call("Tally", json!({ "label": "x" })).await,
        "invalid_tool_input",
    );
    assert_eq!(error["field"], "items");
}

// ---------------------------------------------------------------------------------
// Schema constraints serde does not check.

#[tokio::test]
async fn schema_constraints_are_enforced_with_the_field_path() {
    let error = error_of(
        call("Echo", json!({ "text": "" })).await,
        "invalid_tool_input",
    );
    assert_eq!(error["field"], "text");
    assert_eq!(error["details"]["keyword"], "minLength");

    let input =
        json!({ "todo_list": [{ "text": "a", "state": "done" }, { "text": "", "state": "done" }] });
    let error = error_of(call("RecordTodos", input).await, "invalid_tool_input");
    assert_eq!(error["field"], "todo_list[1].text");

    for (times, keyword) in [(0, "minimum"), (6, "maximum"), (255, "maximum")] {
        let envelope = call("Echo", json!({ "text": "hi", "times": times })).await;
        let error = expect_error(&envelope, "invalid_tool_input");
        assert_eq!(error["field"], "times", "{error:#}");
        assert_eq!(error["details"]["keyword"], keyword, "{error:#}");
    }
    // Out of the type's own range: still a clean error.
    let error = error_of(
        call("Echo", json!({ "text": "hi", "times": 100_000 })).await,
        "invalid_tool_input",
    );
    assert_eq!(error["field"], "times");

    // In range, it works.
    let envelope = call("Echo", json!({ "text": "ab", "times": 5 })).await;
    assert_eq!(envelope["status"], "success", "{envelope:#}");
    assert_eq!(envelope["structured"]["echoed"], "ab ab ab ab ab");
}

// ---------------------------------------------------------------------------------
// Context state.

#[tokio::test]
async fn a_missing_state_is_a_missing_context_error() {
    let envelope = call("AddLedgerEntry", json!({})).await;
    let error = expect_error(&envelope, "missing_context");
    assert!(text(&error["message"]).contains("Ledger"), "{error:#}");
    assert!(
        text(&error["recovery_hint"]).contains("with_state"),
        "{error:#}"
    );

    let with_ledger = context().with_state(Ledger {
        entries: AtomicUsize::new(41),
    });
    let envelope = call_in(&with_ledger, "AddLedgerEntry", json!({})).await;
    assert_eq!(envelope["status"], "success", "{envelope:#}");
    assert_eq!(envelope["structured"]["entries_after"], 42);

    // A tool without arguments takes `{}` and nothing else.
    let error = error_of(
        call_in(&with_ledger, "AddLedgerEntry", json!({ "amount": 1 })).await,
        "unknown_field",
    );
    assert_eq!(error["field"], "amount");
}

// ---------------------------------------------------------------------------------
// Panics.

#[tokio::test]
async fn a_panicking_handler_becomes_an_error_and_the_tool_keeps_working() {
    for tool in ["Explode", "ExplodeLater"] {
        let envelope = call(tool, json!({ "fail": true })).await;
        let error = expect_error(&envelope, "tool_panicked");
        assert_eq!(envelope["tool_name"], tool);
        assert!(text(&error["message"]).contains("fuse"), "{error:#}");
        assert!(error["recovery_hint"].is_string());

        let envelope = call(tool, json!({ "fail": false })).await;
        assert_eq!(envelope["status"], "success", "{envelope:#}");
        assert_eq!(envelope["structured"]["survived"], true);
    }
}

// ---------------------------------------------------------------------------------
// Hostile sizes: nothing the caller sends can crash the dispatcher, and errors stay
// small enough to show to a model.

const TEN_MB: usize = 10 * 1024 * 1024;
const SMALL_ERROR: usize = 2_000;

fn error_size(error: &Value) -> usize {
    serde_json::to_string(error).expect("serializable").len()
}

#[tokio::test]
async fn a_ten_megabyte_input_gets_a_clean_result() {
    let big = "x".repeat(TEN_MB);

    let envelope = call("Echo", json!({ "text": big })).await;
    assert_eq!(envelope["status"], "success");
    assert_eq!(envelope["structured"]["length_chars"], TEN_MB);

    let items: Vec<Value> = (0..TEN_MB / 32)
        .map(|i| json!({ "name": format!("item{i}"), "weight": 1 }))
        .collect();
    let count = items.len();
    let envelope = call("Tally", json!({ "label": "big", "items": items })).await;
    assert_eq!(envelope["status"], "success");
    assert_eq!(envelope["structured"]["total"], count);
}

#[tokio::test]
async fn a_ten_megabyte_bad_input_gets_a_small_error() {
    let big = "x".repeat(TEN_MB);

    // A huge value of the wrong type, through the typed parse and through schema
    // validation.
    let input = json!({ "label": "x", "items": [{ "name": "a", "weight": big }] });
    let error = error_of(call("Tally", input).await, "invalid_tool_input");
    assert_eq!(error["field"], "items[0].weight");
    assert!(error_size(&error) < SMALL_ERROR, "{}", error_size(&error));

    let input = json!({ "text": "hi", "times": big });
    let error = error_of(call("Echo", input).await, "invalid_tool_input");
    assert_eq!(error["field"], "times");
    assert!(error_size(&error) < SMALL_ERROR, "{}", error_size(&error));

    let input = json!({ "todo_list": [{ "text": "a", "state": big }] });
    let error = error_of(call("RecordTodos", input).await, "invalid_tool_input");
    assert_eq!(error["field"], "todo_list[0].state");
    assert!(error_size(&error) < SMALL_ERROR, "{}", error_size(&error));

    // A huge unknown field name.
    let mut input = Map::new();
    input.insert("label".to_string(), json!("x"));
    input.insert("items".to_string(), json!([]));
    input.insert(big.clone(), json!(1));
    let error = error_of(call("Tally", Value::Object(input)).await, "unknown_field");
    assert!(error_size(&error) < SMALL_ERROR, "{}", error_size(&error));

    let mut input = Map::new();
    input.insert("text".to_string(), json!("x"));
    input.insert(big.clone(), json!(1));
    let error = error_of(call("Echo", Value::Object(input)).await, "unknown_field");
    assert!(error_size(&error) < SMALL_ERROR, "{}", error_size(&error));

    // A huge tool name.
    let envelope = call(&big, json!({})).await;
    let error = expect_error(&envelope, "unknown_tool");
    assert!(error_size(&error) < SMALL_ERROR, "{}", error_size(&error));
    // The whole envelope too: its tool name, summary and receipt quote the name.
    assert!(error_size(&envelope) < 4 * SMALL_ERROR, "{envelope:#}");
}

#[tokio::test]
async fn a_100_000_deep_input_is_refused_without_overflowing_the_stack() {
    // The dispatcher takes ownership of the input and frees it without recursion.
    // Dropping such a value here, recursively, could itself overflow the stack: each
    // deep value is built right before the call that consumes it, so none is left to
    // drop if an assertion fails, and none goes through `json!` (it would serialize,
    // and so recurse into, the value).
    const DEEP: usize = 100_000;
    let too_deep = format!("deeper than {MAX_INPUT_DEPTH}");

    // Schema validation recurses, so these are measured before it runs; `Chain` has
    // no constraints and a recursive type, so the typed parse itself must stop.
    let cases: [(&str, BuildInput); 5] = [
        ("Echo", || object([("text", deep_array(DEEP))])),
        ("Echo", || object([("text", deep_object(DEEP))])),
        ("RecordTodos", || object([("todo_list", deep_array(DEEP))])),
        ("Chain", || deep_object(DEEP)),
        ("Chain", || object([("a", deep_object(DEEP))])),
    ];
    for (tool, input) in cases {
        let envelope = call(tool, input()).await;
        let error = expect_error(&envelope, "invalid_tool_input");
        assert!(text(&error["message"]).contains(&too_deep), "{error:#}");
    }

    // Wherever else a deep value hides, the answer is a clean error.
    let cases: [(&str, BuildInput); 6] = [
        ("Tally", || object([("text", deep_object(DEEP))])),
        ("Tally", || {
            object([("label", Value::Null), ("items", deep_array(DEEP))])
        }),
        ("Tally", || object([("label", deep_array(DEEP))])),
        ("Shout", || deep_object(DEEP)),
        ("Echo", || deep_array(DEEP)),
        ("Shout", || deep_array(DEEP)),
    ];
    for (tool, input) in cases {
        let envelope = call(tool, input()).await;
        assert_eq!(envelope["status"], "error", "{envelope:#}");
        let kind = text(&envelope["error"]["kind"]);
        assert!(
            ["invalid_tool_input", "unknown_field"].contains(&kind),
            "{envelope:#}"
        );
    }
    error_of(call("NoSuchTool", deep_object(DEEP)).await, "unknown_tool");
    let runtime_only = call("RotateSecrets", deep_array(DEEP)).await;
    error_of(runtime_only, "unknown_tool");

    // Legitimate nesting within the limit works.
    let chain = deep_object(MAX_INPUT_DEPTH - 8);
    let envelope = call("Chain", chain).await;
    assert_eq!(envelope["status"], "success", "{envelope:#}");
    assert_eq!(envelope["structured"]["links"], MAX_INPUT_DEPTH - 8);

    // Just within the limit, the typed parse reports the path.
    let nested = deep_array(MAX_INPUT_DEPTH - 2);
    let error = error_of(
        call(
            "Tally",
            object([("label", nested), ("items", Value::Array(Vec::new()))]),
        )
        .await,
        "invalid_tool_input",
    );
    assert_eq!(error["field"], "label");
}

// ---------------------------------------------------------------------------------
// call ids.

#[tokio::test]
async fn the_call_id_is_echoed_on_success_and_on_every_kind_of_error() {
    let registry = Registry::global();
    let cases = [
        ("Echo", json!({ "text": "hi" }), "success"),
        ("Nope", json!({}), "error"),
        ("Echo", json!({ "txt": "hi" }), "error"),
        ("Explode", json!({ "fail": true }), "error"),
    ];
    for (index, (tool, input, status)) in cases.into_iter().enumerate() {
        let call_id = format!("call_{index}");
        let call = ToolCall::new(tool, input).with_call_id(call_id.clone());
        let result = registry.dispatch(&context(), call).await;
        assert_eq!(result.call_id.as_deref(), Some(call_id.as_str()));
        let envelope = serde_json::to_value(&result).expect("serializes");
        assert_eq!(envelope["call_id"], call_id);
        assert_eq!(envelope["status"], status);
    }
    let envelope = call("Echo", json!({ "text": "hi" })).await;
    assert!(
        envelope.get("call_id").is_none(),
        "no call id, no key: {envelope:#}"
    );
}

#[tokio::test]
async fn check_runs_every_step_but_the_handler() {
    let registry = Registry::global();
    let context = ToolContext::new(FamilyPolicy::all());
    let before = FETCH_RUNS.load(Ordering::SeqCst);
    let good = json!({"url": "https://example.org"});
    registry
        .check(&context, ToolCall::new("GuardedFetch", good.clone()))
        .expect("a valid input passes the check");
    assert_eq!(
        FETCH_RUNS.load(Ordering::SeqCst),
        before,
        "the handler must not run"
    );

    for bad in [json!({"url": 5}), json!({"uri": "x"}), json!([])] {
        let checked = registry
            .check(&context, ToolCall::new("GuardedFetch", bad.clone()))
            .expect_err("an invalid input fails the check");
        let dispatched = registry
            .dispatch(&context, ToolCall::new("GuardedFetch", bad.clone()))
            .await;
        assert_eq!(Some(&checked), dispatched.error.as_deref(), "{bad}");
    }
    let outside = ToolContext::new(FamilyPolicy::none());
    let error = registry
        .check(&outside, ToolCall::new("GuardedFetch", good))
        .expect_err("the family gate applies");
    assert_eq!(error.kind.as_str(), "family_not_allowed");
    assert_eq!(FETCH_RUNS.load(Ordering::SeqCst), before);
}

// ---------------------------------------------------------------------------------
// Every problem of an input at once, in the order a model can fix them.

#[tokio::test]
async fn a_misspelt_field_is_reported_before_the_missing_field_it_causes() {
    let input = json!({ "city": "Oslo", "day": 3 });
    for envelope in [
        call("GetWeather", input.clone()).await,
        call_text("GetWeather", &input.to_string()).await,
    ] {
        let error = expect_error(&envelope, "unknown_field");
        assert_eq!(error["field"], "day", "{error:#}");
        assert_eq!(error["recovery_hint"], "did you mean `days`?");
        assert_eq!(
            problems(&error),
            pairs(&[("unknown_field", "day"), ("invalid_tool_input", "days")])
        );
        let listed = &error["details"]["problems"];
        assert_eq!(listed[0]["message"], "missing required field `days`");
        let receipt = envelope["receipt"].as_str().unwrap_or_default();
        assert!(
            receipt.contains("\nhint: did you mean `days`?")
                && receipt.contains("\n  - invalid_tool_input: missing required field `days`"),
            "{envelope:#}"
        );
    }
}

#[tokio::test]
async fn every_problem_is_listed_unknown_then_types_then_missing_then_constraints() {
    // Tally has no constraints: serde alone would stop at the first problem.
    let input = json!({
        "lable": "x",
        "items": [{ "name": 1, "weight": "heavy" }, { "name": "b" }],
        "zzz": 1,
    });
    let expected = pairs(&[
        ("unknown_field", "lable"),
        ("unknown_field", "zzz"),
        ("invalid_tool_input", "items[0].name"),
        ("invalid_tool_input", "items[0].weight"),
        ("invalid_tool_input", "items[1].weight"),
        ("invalid_tool_input", "label"),
    ]);
    for envelope in [
        call("Tally", input.clone()).await,
        call_text("Tally", &input.to_string()).await,
    ] {
        let error = expect_error(&envelope, "unknown_field");
        let mut listed = problems(&error);
        // Within a kind, the validator's order; sorted here to compare.
        listed[..2].sort();
        listed[2..4].sort();
        listed[4..].sort();
        assert_eq!(listed, expected, "{error:#}");
        assert!(
            text(&error["message"]).ends_with("(5 more problems in details.problems)"),
            "{error:#}"
        );
    }

    // Echo has constraints: each one is listed, after the unknown field.
    let input = json!({ "text": "", "times": 9, "txt": "hi" });
    for envelope in [
        call("Echo", input.clone()).await,
        call_text("Echo", &input.to_string()).await,
    ] {
        let error = expect_error(&envelope, "unknown_field");
        assert_eq!(
            problems(&error),
            pairs(&[
                ("unknown_field", "txt"),
                ("invalid_tool_input", "text"),
                ("invalid_tool_input", "times"),
            ]),
            "{error:#}"
        );
    }

    // A result field is named as such in the list too.
    let error = error_of(
        call("Tally", json!({ "label": "x", "total": 3 })).await,
        "result_field_in_input",
    );
    assert_eq!(
        problems(&error),
        pairs(&[
            ("result_field_in_input", "total"),
            ("invalid_tool_input", "items")
        ])
    );
}

// ---------------------------------------------------------------------------------
// JSON text: parsed straight into the arguments, repeated keys refused.

#[tokio::test]
async fn a_repeated_key_is_refused_with_its_path_at_any_depth() {
    // Tally parses straight from the text; Echo has constraints, so its text becomes
    // a `Value` first: both refuse a repeated key.
    let cases = [
        (
            "Tally",
            r#"{"label": "a", "label": "b", "items": []}"#,
            "label",
        ),
        (
            "Tally",
            r#"{"label": "x", "items": [{"name": "a", "weight": 1}, {"name": "a", "weight": 2, "name": "b"}]}"#,
            "items[1].name",
        ),
        ("Echo", r#"{"text": "true", "text": "touch m"}"#, "text"),
        (
            "RecordTodos",
            r#"{"todo_list": [{"text": "a", "state": "done", "state": "pending"}]}"#,
            "todo_list[0].state",
        ),
    ];
    for (tool, arguments, path) in cases {
        let envelope = call_text(tool, arguments).await;
        let error = expect_error(&envelope, "duplicate_field");
        assert_eq!(error["field"], path, "{error:#}");
        assert!(
            text(&error["message"]).contains(&format!("`{path}`")),
            "{error:#}"
        );
    }

    // With the other problems of the same input.
    let envelope = call_text("Tally", r#"{"lable": "a", "items": [], "items": []}"#).await;
    let error = expect_error(&envelope, "unknown_field");
    assert_eq!(
        problems(&error),
        pairs(&[
            ("unknown_field", "lable"),
            ("duplicate_field", "items"),
            ("invalid_tool_input", "label"),
        ])
    );

    // The same input as a `Value` has lost its repetition before dispatch.
    let value: Value =
        serde_json::from_str(r#"{"label": "a", "label": "b", "items": []}"#).unwrap();
    let envelope = call("Tally", value).await;
    assert_eq!(envelope["structured"]["tally_label"], "b", "{envelope:#}");
}

#[tokio::test]
async fn json_text_works_like_a_value_for_every_shape_of_input() {
    let envelope = call_text(
        "Tally",
        r#" {"label": "x", "items": [{"name": "a", "weight": 3.0}]}"#,
    )
    .await;
    assert_eq!(envelope["status"], "success", "{envelope:#}");
    assert_eq!(envelope["structured"]["total"], 3);
    let envelope = call_text("Shout", r#""make some noise""#).await;
    assert_eq!(
        envelope["structured"]["loud"], "MAKE SOME NOISE",
        "{envelope:#}"
    );
    let envelope = call_text("AddLedgerEntry", r#"{"amount": 1}"#).await;
    expect_error(&envelope, "unknown_field");

    let error = error_of(
        call_text("Tally", r#"{"label": "x", "items": [}"#).await,
        "invalid_tool_input",
    );
    assert!(
        text(&error["message"]).contains("not valid JSON"),
        "{error:#}"
    );
    let error = error_of(call_text("Tally", "[1, 2]").await, "invalid_tool_input");
    assert!(
        text(&error["message"]).contains("not an array"),
        "{error:#}"
    );
    let deep = format!("{{\"label\": {}", "[".repeat(100_000));
    let error = error_of(call_text("Tally", &deep).await, "invalid_tool_input");
    assert!(text(&error["message"]).contains("deeper than"), "{error:#}");

    // Generated inputs, deterministic by seed: without repeated keys, the text and
    // the `Value` of an input get the same envelope.
    let mut seed: u64 = 0x5eed;
    let mut next = move |bound: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) as usize) % bound
    };
    let values = [
        json!("x"),
        json!(""),
        json!(3),
        json!(3.0),
        json!(-1),
        json!(2.5),
        json!(true),
        json!(null),
        json!([]),
        json!({}),
        json!(["a"]),
        json!({ "name": "a", "weight": 1 }),
        json!([{ "name": "a", "weight": 1 }]),
        json!("done"),
        json!("don"),
        json!(100_000),
    ];
    let fields = [
        "label",
        "items",
        "mode",
        "lable",
        "text",
        "times",
        "todo_list",
        "city",
        "days",
        "total",
    ];
    let tools = ["Tally", "Echo", "RecordTodos", "GetWeather"];
    for _ in 0..400 {
        let tool = tools[next(tools.len())];
        let mut input = Map::new();
        for _ in 0..next(5) {
            input.insert(
                fields[next(fields.len())].to_string(),
                values[next(values.len())].clone(),
            );
        }
        let input = Value::Object(input);
        let by_value = call(tool, input.clone()).await;
        let by_text = call_text(tool, &input.to_string()).await;
        assert_eq!(by_value, by_text, "{tool} {input}");
    }
}
