//! Tools declared for the tests and the SDK round trip: one of each behaviour a turn
//! must carry back to the model.

use std::sync::Mutex;
use std::time::Duration;

use holon_core::prelude::*;

/// The start and end of each `Sleep` and `Record` call, in the order they happened.
pub static EVENTS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Records an event.
pub fn event(text: String) {
    EVENTS.lock().unwrap_or_else(|e| e.into_inner()).push(text);
}

/// Takes the events recorded so far.
pub fn take_events() -> Vec<String> {
    std::mem::take(&mut *EVENTS.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Arguments of Echo.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    /// The text to echo.
    pub text: String,
}

/// The echoed text.
#[derive(Serialize, JsonSchema)]
pub struct Echoed {
    /// The text.
    pub text: String,
}

/// Echoes the text back.
#[holon_tool(family = CoreAgent, annotations(read_only))]
pub fn echo(args: EchoArgs) -> Echoed {
    Echoed { text: args.text }
}

/// Arguments of Lookup.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct LookupArgs {
    /// The key to look up.
    pub key: String,
}

/// Looks a key up; there are no keys, so it always fails with `not_found`.
#[holon_tool(family = CoreAgent, annotations(read_only))]
pub fn lookup(args: LookupArgs) -> Result<Echoed, ToolError> {
    Err(ToolError::new(
        ToolErrorKind::new("not_found"),
        format!("there is no key `{}`", args.key),
    )
    .with_hint("list the keys first"))
}

/// Arguments of Explode.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ExplodeArgs {
    /// Why.
    pub reason: String,
}

/// Panics, always.
#[holon_tool(family = CoreAgent)]
pub fn explode(args: ExplodeArgs) -> Echoed {
    panic!("exploded: {}", args.reason)
}

/// Arguments of Sleep.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct SleepArgs {
    /// Milliseconds to sleep.
    pub ms: u64,
    /// A label for the recorded events.
    pub label: String,
}

/// Sleeps, then says so. Read-only: calls of it run concurrently.
#[holon_tool(family = CoreAgent, annotations(read_only))]
pub async fn sleep(args: SleepArgs) -> Echoed {
    event(format!("start {}", args.label));
    tokio::time::sleep(Duration::from_millis(args.ms)).await;
    event(format!("end {}", args.label));
    Echoed {
        text: format!("slept {} ms", args.ms),
    }
}

/// Records a label, with a pause between start and end. Not read-only: calls of it run
/// in the model's order.
#[holon_tool(family = CoreAgent)]
pub async fn record(args: SleepArgs) -> Echoed {
    event(format!("start {}", args.label));
    tokio::time::sleep(Duration::from_millis(args.ms)).await;
    event(format!("end {}", args.label));
    Echoed { text: args.label }
}

/// The empty arguments of Snapshot.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct SnapshotArgs {}

/// The snapshot's size.
#[derive(Serialize, JsonSchema)]
pub struct Snapshot {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// A 1x1 PNG, base64.
pub const PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==";

/// Takes a snapshot: an image.
#[holon_tool(family = CoreAgent, annotations(read_only))]
pub fn snapshot(_args: SnapshotArgs) -> ToolOutput<Snapshot> {
    ToolOutput::new(Snapshot {
        width: 1,
        height: 1,
    })
    .with_content(ContentBlock::Image {
        mime_type: "image/png".to_string(),
        data: PIXEL_PNG.to_string(),
    })
}

/// Arguments of Shout.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ShoutArgs {
    /// The words to shout.
    pub words: String,
}

impl FromFreeform for ShoutArgs {
    fn from_freeform(text: String) -> Result<Self, ToolError> {
        Ok(Self { words: text })
    }
}

/// Shouts the words back in capitals. Also takes the words as raw text.
#[holon_tool(family = CoreAgent, freeform(syntax = "regex", definition = "[a-z ]+"))]
pub fn shout(args: ShoutArgs) -> Echoed {
    Echoed {
        text: args.words.to_uppercase(),
    }
}
