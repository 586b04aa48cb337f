//! Typed tool errors: data a model can act on.

use std::borrow::Cow;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A stable snake_case error kind. The framework's own kinds are associated constants;
/// a tool defines its own with [`ToolErrorKind::new`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct ToolErrorKind(Cow<'static, str>);

impl ToolErrorKind {
    /// No tool has the requested name (or alias).
    pub const UNKNOWN_TOOL: Self = Self::new("unknown_tool");
    /// The tool's family is outside the caller's policy; the handler did not run.
    pub const FAMILY_NOT_ALLOWED: Self = Self::new("family_not_allowed");
    /// The input does not fit the tool's schema (wrong type, missing field, constraint).
    pub const INVALID_TOOL_INPUT: Self = Self::new("invalid_tool_input");
    /// The input has a field the tool does not know.
    pub const UNKNOWN_FIELD: Self = Self::new("unknown_field");
    /// The input gives the same field twice (JSON text with a repeated key).
    pub const DUPLICATE_FIELD: Self = Self::new("duplicate_field");
    /// The input has a field that belongs to the tool's result, not its input.
    pub const RESULT_FIELD_IN_INPUT: Self = Self::new("result_field_in_input");
    /// The host did not put a state the handler needs into the context.
    pub const MISSING_CONTEXT: Self = Self::new("missing_context");
    /// The handler panicked; the dispatcher caught it and keeps serving.
    pub const TOOL_PANICKED: Self = Self::new("tool_panicked");
    /// The handler did not finish within its time limit (the tool's `timeout_ms` or
    /// the host's); the call was cancelled. Retryable.
    pub const TOOL_TIMED_OUT: Self = Self::new("tool_timed_out");
    /// The caller cancelled the call before it finished; its work was stopped.
    pub const CANCELLED: Self = Self::new("cancelled");
    /// The handler takes a client handle ([`ClientLog`](crate::ClientLog),
    /// [`Sampling`](crate::Sampling), [`Elicitation`](crate::Elicitation)) and the host
    /// serves no client it could reach (it is not an MCP server); the handler did not run.
    pub const CLIENT_UNAVAILABLE: Self = Self::new("client_unavailable");
    /// The handler asks the client to sample or elicit, and the client did not declare
    /// that capability when it connected; the handler did not run.
    pub const CLIENT_CAPABILITY_MISSING: Self = Self::new("client_capability_missing");
    /// A request to the client failed: it answered with an error, sent a reply that
    /// does not parse, or went away.
    pub const CLIENT_REQUEST_FAILED: Self = Self::new("client_request_failed");
    /// The tool's structured result does not fit its result schema (checked in debug
    /// builds only): a bug in the tool, whose result type's `Serialize` and
    /// `JsonSchema` disagree. `details` names the tool and each instance path.
    pub const RESULT_SCHEMA_MISMATCH: Self = Self::new("result_schema_mismatch");
    /// The host's approval policy refuses this call for this caller; nothing ran
    /// (see [`CallGate`](crate::CallGate)).
    pub const POLICY_DENIED: Self = Self::new("policy_denied");
    /// Something failed inside the tool that the caller cannot fix by changing the call.
    pub const INTERNAL_ERROR: Self = Self::new("internal_error");
    /// A file or other resource the call names does not exist (from `io::ErrorKind::NotFound`).
    pub const NOT_FOUND: Self = Self::new("not_found");
    /// The tool may not access a resource (from `io::ErrorKind::PermissionDenied`).
    pub const PERMISSION_DENIED: Self = Self::new("permission_denied");
    /// A resource the call would create already exists (from `io::ErrorKind::AlreadyExists`).
    pub const ALREADY_EXISTS: Self = Self::new("already_exists");
    /// An operation ran out of time (from `io::ErrorKind::TimedOut`); retryable.
    pub const TIMED_OUT: Self = Self::new("timed_out");
    /// Reading or writing failed in some other way (any other `io::ErrorKind`).
    pub const IO_ERROR: Self = Self::new("io_error");
    /// A JSON text or value did not have the expected form (from `serde_json::Error`).
    pub const INVALID_JSON: Self = Self::new("invalid_json");

    /// A kind of the tool's own; use snake_case.
    pub const fn new(kind: &'static str) -> Self {
        Self(Cow::Borrowed(kind))
    }

    /// The wire name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ToolErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An error a tool call returns to its caller. Errors are data: the kind is stable, the
/// message says what was wrong, `field` is the path of the offending input (such as
/// `todo_list[2].state`), and `recovery_hint` says how to fix the call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, thiserror::Error)]
#[error(
    "{kind}: {message}{}",
    .field.as_ref().map(|field| format!(" (field `{field}`)")).unwrap_or_default()
)]
pub struct ToolError {
    /// Stable snake_case kind.
    pub kind: ToolErrorKind,
    /// What went wrong, in a sentence a model can act on.
    pub message: String,
    /// Path of the input field the error is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Structured details, such as the valid values. Boxed so that `ToolError` stays
    /// small enough to return by value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Box<Value>>,
    /// How to make the call succeed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_hint: Option<String>,
    /// Whether the same call may succeed if repeated later.
    #[serde(default)]
    pub retryable: bool,
}

impl ToolError {
    /// An error of `kind` with `message`.
    pub fn new(kind: ToolErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            field: None,
            details: None,
            recovery_hint: None,
            retryable: false,
        }
    }

    /// An `invalid_tool_input` error.
    pub fn invalid_input(message: impl Into<String>) -> Self {
        Self::new(ToolErrorKind::INVALID_TOOL_INPUT, message)
    }

    /// Sets the path of the offending field.
    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    /// Sets how to fix the call.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.recovery_hint = Some(hint.into());
        self
    }

    /// Sets structured details.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(Box::new(details));
        self
    }

    /// Marks the error as worth retrying later.
    pub fn retryable(mut self) -> Self {
        self.retryable = true;
        self
    }

    /// The `cancelled` error of a call its caller gave up on.
    pub fn cancelled() -> Self {
        Self::new(
            ToolErrorKind::CANCELLED,
            "the call was cancelled by its caller before it finished, and its work was stopped",
        )
        .with_hint("call the tool again only if the result is still wanted")
    }

    /// The `tool_timed_out` error of a call stopped after `limit`.
    pub fn timed_out(limit: std::time::Duration) -> Self {
        let millis = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX);
        Self::new(
            ToolErrorKind::TOOL_TIMED_OUT,
            format!("the call did not finish within its time limit of {millis} ms and was stopped"),
        )
        .with_details(serde_json::json!({ "timeout_ms": millis }))
        .with_hint(
            "retry the call if the cause was passing; if it keeps timing out, ask for less work per call (a narrower input, a shorter command), or start long work in the background and poll it",
        )
        .retryable()
    }

    /// An `internal_error` carrying `error`'s message and the messages of its sources,
    /// for failures the caller cannot fix: `.map_err(ToolError::internal)?`.
    pub fn internal(error: impl std::error::Error) -> Self {
        Self::new(ToolErrorKind::INTERNAL_ERROR, error_chain(&error))
    }
}

/// `error`'s message followed by those of its sources: `a: b: c`. The messages of
/// [`ToolError::internal`] and `From<io::Error>` are written this way; hosts and tools
/// use it for errors they report in their own words.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        // Many errors already repeat their source's message in their own.
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    message
}

/// `?` on an `io::Result` in a handler: the kind follows the io kind, the message is
/// the io error's. Add context the model needs (which path) with `with_field` or a
/// tool-specific error where it matters.
impl From<std::io::Error> for ToolError {
    fn from(error: std::io::Error) -> Self {
        use std::io::ErrorKind as Io;
        let (kind, retryable) = match error.kind() {
            Io::NotFound => (ToolErrorKind::NOT_FOUND, false),
            Io::PermissionDenied => (ToolErrorKind::PERMISSION_DENIED, false),
            Io::AlreadyExists => (ToolErrorKind::ALREADY_EXISTS, false),
            Io::TimedOut => (ToolErrorKind::TIMED_OUT, true),
            Io::Interrupted | Io::WouldBlock => (ToolErrorKind::IO_ERROR, true),
            _ => (ToolErrorKind::IO_ERROR, false),
        };
        let mut tool_error = Self::new(kind, error_chain(&error));
        tool_error.retryable = retryable;
        tool_error
    }
}

/// `?` on a `serde_json` result in a handler: `invalid_json`, with serde's message
/// (which names the line and column, or the path of a typed conversion).
impl From<serde_json::Error> for ToolError {
    fn from(error: serde_json::Error) -> Self {
        let kind = match error.classify() {
            serde_json::error::Category::Io => ToolErrorKind::IO_ERROR,
            _ => ToolErrorKind::INVALID_JSON,
        };
        Self::new(kind, error.to_string())
    }
}

/// The most bytes of an error's message (and of its hint) that reach a caller; a
/// longer one is cut in the middle.
pub(crate) const MAX_ERROR_TEXT_BYTES: usize = 4096;

/// The most bytes of an error's field path that reach a caller.
pub(crate) const MAX_ERROR_FIELD_BYTES: usize = 1024;

/// The most bytes of an error's details (as JSON text) that reach a caller: keys past
/// the budget are dropped and named in `omitted_keys`.
pub(crate) const MAX_ERROR_DETAILS_BYTES: usize = 64 * 1024;

impl ToolError {
    /// The error cut to the sizes a caller gets whatever the input was: message and
    /// hint [`MAX_ERROR_TEXT_BYTES`], field [`MAX_ERROR_FIELD_BYTES`], details
    /// [`MAX_ERROR_DETAILS_BYTES`]. An error that quotes a huge input must not be huge.
    pub(crate) fn bounded(mut self) -> Self {
        cut_in_place(&mut self.message, MAX_ERROR_TEXT_BYTES);
        if let Some(hint) = &mut self.recovery_hint {
            cut_in_place(hint, MAX_ERROR_TEXT_BYTES);
        }
        if let Some(field) = &mut self.field {
            cut_in_place(field, MAX_ERROR_FIELD_BYTES);
        }
        if let Some(details) = &mut self.details
            && json_bytes(details) > MAX_ERROR_DETAILS_BYTES
        {
            **details = bounded_details(std::mem::take(&mut **details));
        }
        self
    }
}

/// Details over [`MAX_ERROR_DETAILS_BYTES`]: the keys of an object that fit, in
/// order, and the names of the others; any other value, a note of its size.
fn bounded_details(details: Value) -> Value {
    let size = json_bytes(&details);
    let Value::Object(map) = details else {
        return serde_json::json!({
            "omitted": format!("the details had {size} bytes, more than the {MAX_ERROR_DETAILS_BYTES} an error carries"),
        });
    };
    // Room for the names of the dropped keys.
    let mut budget = MAX_ERROR_DETAILS_BYTES / 2;
    let mut kept = serde_json::Map::new();
    let mut omitted = Vec::new();
    for (key, value) in map {
        let cost = key.len() + json_bytes(&value) + 4;
        if cost <= budget {
            budget -= cost;
            kept.insert(key, value);
        } else if omitted.len() < 20 {
            omitted.push(Value::String(cut_bytes(&key, 256).into_owned()));
        }
    }
    kept.insert("omitted_keys".to_string(), Value::Array(omitted));
    Value::Object(kept)
}

/// The length of `value` as compact JSON text, counted without writing it.
fn json_bytes(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a `Value` to a writer that never fails cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// `text`, cut in the middle to about `max` bytes when it is longer (a note says how
/// many bytes were left out).
pub(crate) fn cut_bytes(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max {
        return Cow::Borrowed(text);
    }
    let half = max / 2;
    let mut head = half;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - half;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    Cow::Owned(format!(
        "{}…[{} bytes omitted]…{}",
        &text[..head],
        tail - head,
        &text[tail..]
    ))
}

fn cut_in_place(text: &mut String, max: usize) {
    if let Cow::Owned(cut) = cut_bytes(text, max) {
        *text = cut;
    }
}
