//! What a new tool author reaches in the first hour, each once a trap:
//! a result that echoes an input field, `?` in a handler, arguments taken by
//! reference. Every tool here is a `#[holon_tool]`, so the global registry of this
//! binary must build with all of them.

// Tests set their fixtures up with std::fs, processes and sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry, ToolCall};
use serde_json::{Value, json};

fn context() -> ToolContext {
    ToolContext::new(FamilyPolicy::all())
}

async fn call(name: &str, input: Value) -> Value {
    let result = Registry::global()
        .dispatch(&context(), ToolCall::new(name, input))
        .await;
    serde_json::to_value(&result).expect("an envelope serializes")
}

fn error_of(envelope: &Value, kind: &str) -> Value {
    assert_eq!(envelope["status"], "error", "{envelope:#}");
    assert_eq!(envelope["error"]["kind"], kind, "{envelope:#}");
    envelope["error"].clone()
}

// ---------------------------------------------------------------------------------
// A result that echoes an input field.

/// Arguments of GetWeather.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct GetWeatherArgs {
    /// The city to forecast.
    city: String,
}

/// A forecast: echoes the city it is for.
#[derive(Serialize, JsonSchema)]
struct Forecast {
    city: String,
    temperature_c: i32,
}

/// Forecasts the weather of a city.
#[holon_tool(family = CoreAgent)]
fn get_weather(args: GetWeatherArgs) -> Forecast {
    Forecast {
        city: args.city,
        temperature_c: 21,
    }
}

#[tokio::test]
async fn a_field_on_both_sides_is_ordinary() {
    let registry = Registry::try_global().unwrap_or_else(|error| panic!("{error}"));
    assert!(registry.get("GetWeather").is_some());

    let envelope = call("GetWeather", json!({ "city": "Oslo" })).await;
    assert_eq!(envelope["status"], "success", "{envelope:#}");
    assert_eq!(envelope["structured"]["city"], "Oslo");
}

#[tokio::test]
async fn a_field_only_in_the_result_is_never_input() {
    let input = json!({ "city": "Oslo", "temperature_c": 30 });
    let error = error_of(&call("GetWeather", input).await, "result_field_in_input");
    assert_eq!(error["field"], "temperature_c");
    let hint = error["recovery_hint"].as_str().unwrap_or_default();
    assert!(hint.contains("remove `temperature_c`"), "{hint}");
    assert!(hint.contains("city"), "{hint}");

    // A field on neither side is a plain unknown field.
    let input = json!({ "city": "Oslo", "country": "NO" });
    let error = error_of(&call("GetWeather", input).await, "unknown_field");
    assert_eq!(error["field"], "country");
}

// ---------------------------------------------------------------------------------
// `?` in a handler.

/// Arguments of ReadNote.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct ReadNoteArgs {
    /// The file to read.
    path: String,
}

#[derive(Serialize, JsonSchema)]
struct Note {
    text: String,
    parsed: Value,
}

/// Reads a JSON note from a file, with `?` on both the io and the JSON error.
#[holon_tool(family = CoreAgent)]
fn read_note(args: ReadNoteArgs) -> Result<Note, ToolError> {
    let text = std::fs::read_to_string(&args.path)?;
    let parsed = serde_json::from_str(&text)?;
    Ok(Note { text, parsed })
}

#[derive(Serialize, JsonSchema)]
struct Size {
    bytes: u64,
}

/// Measures a file; returns the io error itself, converted by the framework.
#[holon_tool(family = CoreAgent)]
fn measure_file(args: ReadNoteArgs) -> std::io::Result<Size> {
    Ok(Size {
        bytes: std::fs::metadata(&args.path)?.len(),
    })
}

#[tokio::test]
async fn question_mark_on_io_and_json_errors_keeps_kind_and_message() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let missing = dir.path().join("missing.json");
    let missing = missing.to_str().expect("a UTF-8 path");

    let error = error_of(
        &call("ReadNote", json!({ "path": missing })).await,
        "not_found",
    );
    let expected = std::fs::read_to_string(missing).expect_err("missing");
    assert_eq!(error["message"], expected.to_string());

    let error = error_of(
        &call("MeasureFile", json!({ "path": missing })).await,
        "not_found",
    );
    assert_eq!(error["message"], expected.to_string());

    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{\"a\": ").expect("written");
    let broken = broken.to_str().expect("a UTF-8 path");
    let error = error_of(
        &call("ReadNote", json!({ "path": broken })).await,
        "invalid_json",
    );
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains("line 1 column 6"), "{message}");

    let fine = dir.path().join("fine.json");
    std::fs::write(&fine, "{\"a\": 1}").expect("written");
    let envelope = call("ReadNote", json!({ "path": fine.to_str() })).await;
    assert_eq!(envelope["structured"]["parsed"], json!({ "a": 1 }));
}

#[test]
fn io_kinds_map_to_tool_error_kinds() {
    use std::io::{Error, ErrorKind};
    let cases = [
        (ErrorKind::NotFound, "not_found", false),
        (ErrorKind::PermissionDenied, "permission_denied", false),
        (ErrorKind::AlreadyExists, "already_exists", false),
        (ErrorKind::TimedOut, "timed_out", true),
        (ErrorKind::Interrupted, "io_error", true),
        (ErrorKind::UnexpectedEof, "io_error", false),
    ];
    for (io, kind, retryable) in cases {
        let error = ToolError::from(Error::new(io, "the disk said no"));
        assert_eq!(error.kind.as_str(), kind, "{io:?}");
        assert_eq!(error.retryable, retryable, "{io:?}");
        assert_eq!(error.message, "the disk said no");
    }
}

#[derive(Debug)]
struct Outer(std::io::Error);

impl std::fmt::Display for Outer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the cache could not be loaded")
    }
}

impl std::error::Error for Outer {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

#[test]
fn internal_keeps_the_whole_source_chain() {
    let error = ToolError::internal(Outer(std::io::Error::other("disk full")));
    assert_eq!(error.kind.as_str(), "internal_error");
    assert_eq!(error.message, "the cache could not be loaded: disk full");
}

// ---------------------------------------------------------------------------------
// Parameters classified by trait: arguments by reference, an extractor of one's own.

/// Arguments of Shelve.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct ShelveArgs {
    /// The book to shelve.
    title: String,
}

#[derive(Serialize, JsonSchema)]
struct Shelved {
    shelved: String,
    by: String,
}

/// Who calls, taken out of the context by an extractor of the tool crate's own.
struct Caller(String);

impl<'a> holon_core::FromToolContext<'a> for Caller {
    fn from_context(context: &'a ToolContext) -> Result<Self, ToolError> {
        Ok(Caller(context.caller().unwrap_or("nobody").to_string()))
    }
}

/// Shelves a book; takes its arguments by reference, as clippy::pedantic suggests.
#[holon_tool(family = CoreAgent)]
fn shelve(caller: Caller, args: &ShelveArgs) -> Shelved {
    Shelved {
        shelved: args.title.clone(),
        by: caller.0,
    }
}

/// The same, async, the reference first.
#[holon_tool(family = CoreAgent)]
async fn shelve_later(args: &ShelveArgs, context: &ToolContext) -> Shelved {
    Shelved {
        shelved: args.title.clone(),
        by: context.caller().unwrap_or("nobody").to_string(),
    }
}

#[tokio::test]
async fn arguments_by_reference_are_the_arguments() {
    for name in ["Shelve", "ShelveLater"] {
        let definition = Registry::global().get(name).expect("registered");
        assert_eq!(
            definition.spec.input_schema["required"],
            json!(["title"]),
            "{name}: {:#}",
            definition.spec.input_schema
        );
        let context = context().with_caller("agent-7");
        let result = Registry::global()
            .dispatch(&context, ToolCall::new(name, json!({ "title": "Dune" })))
            .await;
        let envelope = serde_json::to_value(&result).expect("serializes");
        assert_eq!(envelope["status"], "success", "{envelope:#}");
        assert_eq!(envelope["structured"]["shelved"], "Dune");
        assert_eq!(envelope["structured"]["by"], "agent-7");

        let error = error_of(&call(name, json!({})).await, "invalid_tool_input");
        assert_eq!(error["field"], "title");
    }
}

// ---------------------------------------------------------------------------------
// Descriptions: the model reads prose, not rustdoc source.

#[derive(Serialize, JsonSchema)]
struct Pong {
    pong: bool,
}

/// Answers a ping, so that a caller can check that
/// [`Registry::dispatch`] reaches the tools; see
/// [the context](holon_core::ToolContext) for who calls.
///
/// It never fails:
/// - it has no arguments;
/// - it has no side
///   effect.
///
/// # Examples
///
/// ```
/// let pong = ping();
/// ```
///
/// # Panics
///
/// Never.
#[holon_tool(family = CoreAgent)]
fn ping() -> Pong {
    Pong { pong: true }
}

/// Answers a ping; its example stays.
///
/// # Examples
///
/// ```json
/// {}
/// ```
#[holon_tool(family = CoreAgent, keep_doc_sections)]
fn ping_with_example() -> Pong {
    Pong { pong: true }
}

#[test]
fn a_doc_comment_reaches_the_model_as_prose() {
    let ping = Registry::global().get("Ping").expect("registered");
    assert_eq!(
        &*ping.spec.description,
        "Answers a ping, so that a caller can check that `Registry::dispatch` reaches the \
         tools; see the context for who calls.\n\
         \n\
         It never fails:\n\
         \n\
         - it has no arguments;\n\
         - it has no side effect."
    );
    let kept = Registry::global()
        .get("PingWithExample")
        .expect("registered");
    assert_eq!(
        &*kept.spec.description,
        "Answers a ping; its example stays.\n\n# Examples\n\n```json\n{}\n```"
    );
}

// ---------------------------------------------------------------------------------
// Nested argument types are closed too.

/// Arguments of Nest.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct NestArgs {
    /// The inner part.
    inner: NestInner,
}

/// A nested argument type: it derives `ToolArgs` too, which enforces
/// `deny_unknown_fields` on it.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct NestInner {
    /// A number.
    x: u32,
}

/// Reads a nested number.
#[holon_tool(family = CoreAgent)]
fn nest(args: NestArgs) -> Pong {
    Pong {
        pong: args.inner.x > 0,
    }
}

#[tokio::test]
async fn an_unknown_field_is_refused_at_every_depth() {
    let definition = Registry::global().get("Nest").expect("registered");
    let inner = &definition.spec.input_schema["properties"]["inner"];
    assert_eq!(inner["additionalProperties"], false, "{inner:#}");
    // Published without the non-standard `format` of a `u32`, bounds kept.
    assert_eq!(inner["properties"]["x"].get("format"), None, "{inner:#}");
    assert_eq!(inner["properties"]["x"]["maximum"], u32::MAX, "{inner:#}");

    let input = json!({ "inner": { "x": 1, "evil": 2 } });
    let error = error_of(&call("Nest", input).await, "unknown_field");
    assert_eq!(error["field"], "inner.evil");
}

// ---------------------------------------------------------------------------------
// A state the host shares as an `Arc`.

/// A host's store, shared with other parts of the host as an `Arc<NoteStore>`.
struct NoteStore {
    notes: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
struct NoteCount {
    notes: usize,
}

/// Counts the notes of the host's store.
#[holon_tool(family = CoreAgent)]
fn count_notes(store: &NoteStore) -> NoteCount {
    NoteCount {
        notes: store.notes.len(),
    }
}

#[tokio::test]
async fn a_state_put_in_as_an_arc_is_found_by_its_type() {
    let store = std::sync::Arc::new(NoteStore {
        notes: vec!["a".into(), "b".into()],
    });
    let shared = context().with_state(std::sync::Arc::clone(&store));
    let result = Registry::global()
        .dispatch(&shared, ToolCall::new("CountNotes", json!({})))
        .await;
    let envelope = serde_json::to_value(&result).expect("an envelope serializes");
    assert_eq!(envelope["status"], "success", "{envelope:#}");
    assert_eq!(envelope["structured"]["notes"], 2);

    // The state itself, not in an `Arc`, is found as before; none is `missing_context`.
    let owned = context().with_state(NoteStore { notes: Vec::new() });
    let result = Registry::global()
        .dispatch(&owned, ToolCall::new("CountNotes", json!({})))
        .await;
    assert_eq!(
        serde_json::to_value(&result).unwrap()["structured"]["notes"],
        0
    );
    let error = error_of(&call("CountNotes", json!({})).await, "missing_context");
    assert!(
        error["message"].as_str().unwrap().contains("NoteStore"),
        "{error}"
    );
}

// ---------------------------------------------------------------------------------
// An unknown field inside a tagged enum's variant.

/// When to wake up.
#[derive(Debug, Deserialize, JsonSchema, ClosedInput)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum Wake {
    /// After a delay.
    Timer {
        /// The delay in milliseconds.
        after_ms: u64,
    },
    /// When an event is named.
    Event {
        /// The event's name.
        name: String,
    },
}

/// How to be told, externally tagged (`{"log": {...}}`).
#[derive(Debug, Deserialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum Notify {
    /// In the log.
    Log {
        /// The log level.
        level: String,
    },
    /// By mail.
    Mail {
        /// The address.
        to: String,
    },
}

/// Arguments of ScheduleWake.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct ScheduleWakeArgs {
    /// When to wake up.
    wake: Wake,
    /// How to be told.
    #[serde(default)]
    notify: Option<Notify>,
}

#[derive(Serialize, JsonSchema)]
struct Scheduled {
    timer: bool,
}

/// Schedules a wake-up.
#[holon_tool(family = CoreAgent)]
fn schedule_wake(args: ScheduleWakeArgs) -> Scheduled {
    if let Some(Notify::Log { level } | Notify::Mail { to: level }) = &args.notify {
        assert!(!level.is_empty());
    }
    Scheduled {
        timer: match args.wake {
            Wake::Timer { after_ms } => after_ms > 0,
            Wake::Event { name } => name.is_empty(),
        },
    }
}

#[tokio::test]
async fn an_unknown_field_in_a_tagged_variant_is_named_with_its_path() {
    let input = json!({ "wake": { "kind": "timer", "after_ms": 5, "after_sec": 1 } });
    let envelope = call("ScheduleWake", input).await;
    let error = error_of(&envelope, "unknown_field");
    assert_eq!(error["field"], "wake.after_sec", "{error:#}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(!message.contains("oneOf"), "{message}");
    let hint = error["recovery_hint"].as_str().unwrap_or_default();
    assert!(hint.contains("after_ms"), "{hint}");

    let input = json!({ "wake": { "kind": "event", "name": "x", "nmae": "y" } });
    let error = error_of(&call("ScheduleWake", input).await, "unknown_field");
    assert_eq!(error["field"], "wake.nmae", "{error:#}");

    // Externally tagged, inside an `Option`.
    let input = json!({
        "wake": { "kind": "event", "name": "x" },
        "notify": { "log": { "level": "info", "levle": "x" } }
    });
    let error = error_of(&call("ScheduleWake", input).await, "unknown_field");
    assert_eq!(error["field"], "notify.log.levle", "{error:#}");
}

// ---------------------------------------------------------------------------------
// A flattened closed struct (allowed by `flatten_differential.rs`).

/// Which page of a listing.
#[derive(Debug, Deserialize, JsonSchema, ClosedInput)]
#[serde(deny_unknown_fields)]
struct Paging {
    /// How many entries to skip.
    #[serde(default)]
    offset: u32,
    /// How many entries to return.
    limit: u32,
}

/// Arguments of ListLetters.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct ListLettersArgs {
    /// Upper case or not.
    #[serde(default)]
    upper: bool,
    #[serde(flatten)]
    paging: Paging,
}

#[derive(Serialize, JsonSchema)]
struct Letters {
    letters: String,
}

/// Lists letters of the alphabet, a page at a time.
#[holon_tool(family = CoreAgent)]
fn list_letters(args: ListLettersArgs) -> Letters {
    let letters: String = ('a'..='z')
        .skip(args.paging.offset as usize)
        .take(args.paging.limit as usize)
        .collect();
    Letters {
        letters: if args.upper {
            letters.to_uppercase()
        } else {
            letters
        },
    }
}

#[tokio::test]
async fn a_flattened_closed_struct_is_one_closed_object() {
    let definition = Registry::global().get("ListLetters").expect("registered");
    let schema = &definition.spec.input_schema;
    assert_eq!(schema["additionalProperties"], false, "{schema:#}");
    assert!(schema["properties"]["limit"].is_object(), "{schema:#}");

    let envelope = call(
        "ListLetters",
        json!({ "offset": 1, "limit": 2, "upper": true }),
    )
    .await;
    assert_eq!(envelope["structured"]["letters"], "BC", "{envelope:#}");

    let input = json!({ "offset": 1, "limt": 2 });
    let error = error_of(&call("ListLetters", input).await, "unknown_field");
    assert_eq!(error["field"], "limt", "{error:#}");
    let hint = error["recovery_hint"].as_str().unwrap_or_default();
    assert!(hint.contains("limit"), "{hint}");
}

// ---------------------------------------------------------------------------------
// A misspelt field where fields are accepted is told which ones.

/// The valid fields an unknown-field error names, and every problem's hint.
fn valid_fields_named(error: &Value) -> (Value, Vec<String>) {
    let mut hints = vec![
        error["recovery_hint"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    ];
    if let Some(others) = error["details"]["problems"].as_array() {
        hints.extend(
            others
                .iter()
                .map(|problem| problem["hint"].as_str().unwrap_or_default().to_string()),
        );
    }
    (error["details"]["expected"].clone(), hints)
}

#[tokio::test]
async fn a_misspelt_field_under_flatten_is_told_the_valid_fields() {
    let input = json!({ "offset": 1, "limit": 2, "colour": "red" });
    let error = error_of(&call("ListLetters", input).await, "unknown_field");
    assert_eq!(error["field"], "colour", "{error:#}");
    let (expected, hints) = valid_fields_named(&error);
    assert_eq!(expected, json!(["limit", "offset", "upper"]), "{error:#}");
    assert!(
        hints.iter().all(|hint| !hint.contains("no fields")),
        "{error:#}"
    );
}

#[tokio::test]
async fn a_misspelt_field_in_a_struct_variant_is_told_that_variant_s_fields() {
    // Internally tagged: the fields of the variant the tag names, not the first one's.
    let input = json!({ "wake": { "kind": "event", "name": "x", "colour": 1, "size": 2 } });
    let error = error_of(&call("ScheduleWake", input).await, "unknown_field");
    let (expected, hints) = valid_fields_named(&error);
    assert_eq!(expected, json!(["kind", "name"]), "{error:#}");
    assert!(
        hints.iter().all(|hint| !hint.contains("no fields")),
        "{error:#}"
    );

    // Externally tagged, inside an `Option`.
    let input = json!({
        "wake": { "kind": "timer", "after_ms": 5 },
        "notify": { "mail": { "to": "a@b.c", "colour": "x", "size": 2 } }
    });
    let error = error_of(&call("ScheduleWake", input).await, "unknown_field");
    assert_eq!(error["field"], "notify.mail.colour", "{error:#}");
    let (expected, hints) = valid_fields_named(&error);
    assert_eq!(expected, json!(["to"]), "{error:#}");
    assert!(
        hints.iter().all(|hint| !hint.contains("no fields")),
        "{error:#}"
    );
}

// ---------------------------------------------------------------------------------
// A value that fits no variant of an enum says what each variant wanted.

/// Where to look, untagged: a path, or a line range.
#[derive(Debug, Deserialize, JsonSchema, ClosedInput)]
#[serde(untagged, deny_unknown_fields)]
enum Target {
    /// A whole file.
    Path(String),
    /// A range of lines.
    Lines {
        /// The first line.
        start: u32,
        /// The last line.
        end: u32,
    },
}

/// How loud, externally tagged with unit and newtype variants.
#[derive(Debug, Deserialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum Volume {
    /// No sound.
    Mute,
    /// A level from 0 to 10.
    Level(u8),
}

/// Arguments of Look.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct LookArgs {
    /// Where to look.
    target: Target,
    /// How loud.
    #[serde(default)]
    volume: Option<Volume>,
}

/// Looks somewhere.
#[holon_tool(family = CoreAgent)]
fn look(args: LookArgs) -> Letters {
    let target = match args.target {
        Target::Path(path) => path,
        Target::Lines { start, end } => format!("{start}-{end}"),
    };
    let volume = match args.volume {
        Some(Volume::Level(level)) => level,
        Some(Volume::Mute) | None => 0,
    };
    Letters {
        letters: format!("{target} at {volume}"),
    }
}

#[tokio::test]
async fn a_value_that_fits_no_variant_says_what_each_variant_wanted() {
    // Inside the variant meant, the problem there, with its path.
    let input = json!({ "target": { "start": 1, "end": "x" } });
    let error = error_of(&call("Look", input).await, "invalid_tool_input");
    assert_eq!(error["field"], "target.end", "{error:#}");

    // A unit or newtype variant's value, or an untagged enum's, that fits none: each
    // variant tried, with its first problem.
    let cases = [
        (
            json!({ "target": "a.txt", "volume": "quiet" }),
            "volume",
            [
                "variants: `\"mute\"`; ",
                "an object with `level` (it is not of type \"object\")",
            ],
        ),
        (
            json!({ "target": 5 }),
            "target",
            [
                "a string (it is not of type \"string\")",
                "an object with `end`, `start` (it is not of type \"object\")",
            ],
        ),
    ];
    for (input, field, variants) in cases {
        let error = error_of(&call("Look", input).await, "invalid_tool_input");
        assert_eq!(error["field"], field, "{error:#}");
        let message = error["message"].as_str().unwrap_or_default();
        assert!(
            !message.contains("anyOf") && !message.contains("oneOf"),
            "{error:#}"
        );
        assert!(message.contains("fits none of its 2 variants"), "{error:#}");
        for variant in variants {
            assert!(message.contains(variant), "{variant}: {error:#}");
        }
    }
}
