//! `uuid::Uuid`, `chrono::DateTime<Utc>` and `chrono::NaiveDate` are ordinary tool
//! argument field types (holon-core's `uuid` and `chrono` features): no attribute,
//! their `format` in the schema, and a bad value refused at the field's path with the
//! type's own parse error.

use chrono::{DateTime, NaiveDate, Utc};
use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry, ToolCall, ToolError};
use serde_json::{Value, json};
use uuid::Uuid;

/// Arguments of BookRoom.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct BookRoomArgs {
    /// The room's id.
    room: Uuid,
    /// When the booking starts.
    starts: DateTime<Utc>,
    /// The day it is billed on, when not the day it starts.
    billed_on: Option<NaiveDate>,
}

/// What BookRoom booked, as the typed fields read it.
#[derive(Serialize, JsonSchema)]
struct Booking {
    room: String,
    starts: String,
    billed_on: Option<String>,
}

/// Books a room.
#[holon_tool(family = CoreAgent)]
fn book_room(args: BookRoomArgs) -> Booking {
    Booking {
        room: args.room.hyphenated().to_string(),
        starts: args.starts.to_rfc3339(),
        billed_on: args.billed_on.map(|day| day.to_string()),
    }
}

/// The schema of BookRoom's property `name`.
fn property(name: &str) -> Value {
    let definition = Registry::global().get("BookRoom").expect("registered");
    definition.spec.input_schema["properties"][name].clone()
}

/// The error of a BookRoom call with `input`.
async fn refused(input: Value) -> ToolError {
    let context = ToolContext::new(FamilyPolicy::all());
    let result = Registry::global()
        .dispatch(&context, ToolCall::new("BookRoom", input))
        .await;
    result.error.map(|error| *error).expect("refused")
}

#[test]
fn the_schema_names_each_format() {
    assert_eq!(property("room")["type"], "string");
    assert_eq!(property("room")["format"], "uuid");
    assert_eq!(property("starts")["type"], "string");
    assert_eq!(property("starts")["format"], "date-time");
    assert_eq!(property("billed_on")["format"], "date");
}

#[tokio::test]
async fn valid_values_reach_the_handler_typed() {
    let context = ToolContext::new(FamilyPolicy::all());
    let input = json!({
        "room": "67E55044-10B1-426F-9247-BB680E5FE0C8",
        "starts": "2026-03-01T09:30:00+01:00",
        "billed_on": "2026-03-31",
    });
    let result = Registry::global()
        .dispatch(&context, ToolCall::new("BookRoom", input))
        .await;
    assert!(result.is_success(), "{result:?}");
    assert_eq!(
        result.structured.as_deref(),
        Some(&json!({
            "room": "67e55044-10b1-426f-9247-bb680e5fe0c8",
            "starts": "2026-03-01T08:30:00+00:00",
            "billed_on": "2026-03-31",
        }))
    );
}

#[tokio::test]
async fn a_bad_value_is_refused_at_its_field_with_the_types_own_error() {
    let starts = "2026-03-01T09:30:00Z";
    let bad_id = "67e55044-10b1-426f-9247-bb680e5fe0cz";
    let error = refused(json!({ "room": bad_id, "starts": starts })).await;
    let expected = Uuid::parse_str(bad_id).unwrap_err().to_string();
    assert_eq!(error.kind.as_str(), "invalid_tool_input", "{error:?}");
    assert_eq!(error.field.as_deref(), Some("room"), "{error:?}");
    assert!(
        error.message.contains(&expected),
        "{error:?} lacks {expected}"
    );

    let room = "67e55044-10b1-426f-9247-bb680e5fe0c8";
    for (field, input, bad) in [
        (
            "starts",
            json!({ "room": room, "starts": "tomorrow at 9" }),
            "tomorrow at 9",
        ),
        (
            "starts",
            json!({ "room": room, "starts": "2026-03-01" }),
            "2026-03-01",
        ),
    ] {
        let error = refused(input).await;
        let expected = bad.parse::<DateTime<Utc>>().unwrap_err().to_string();
        assert_eq!(error.field.as_deref(), Some(field), "{error:?}");
        assert!(
            error.message.contains(&expected),
            "{error:?} lacks {expected}"
        );
    }

    let error = refused(json!({ "room": room, "starts": starts, "billed_on": "2026-02-30" })).await;
    let expected = "2026-02-30".parse::<NaiveDate>().unwrap_err().to_string();
    assert_eq!(error.field.as_deref(), Some("billed_on"), "{error:?}");
    assert!(
        error.message.contains(&expected),
        "{error:?} lacks {expected}"
    );
}
