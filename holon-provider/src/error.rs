//! The typed error of a response body this crate cannot read.

use std::fmt;

/// What was wrong with a provider's response body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponseErrorKind {
    /// The body is not JSON.
    InvalidJson,
    /// A field the provider always sends is absent (or `null`).
    MissingField,
    /// A field has the wrong JSON type, or a value the provider never sends.
    WrongType,
    /// An array the provider never sends empty is empty (Chat `choices`).
    Empty,
    /// The provider has no tool calls of its own (MCP is not a model API).
    UnsupportedProvider,
}

impl ResponseErrorKind {
    /// The stable snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::InvalidJson => "invalid_json",
            Self::MissingField => "missing_field",
            Self::WrongType => "wrong_type",
            Self::Empty => "empty",
            Self::UnsupportedProvider => "unsupported_provider",
        }
    }
}

impl fmt::Display for ResponseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A provider response that cannot be read: its kind, the JSON path of the offending
/// value (such as `choices[0].message.tool_calls[1].function.arguments`) and what was
/// expected there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} at `{path}`: {message}")]
pub struct ResponseError {
    /// What was wrong.
    pub kind: ResponseErrorKind,
    /// Where: a path from the body's root, `$` for the root itself.
    pub path: String,
    /// What was expected, in a sentence.
    pub message: String,
}

impl ResponseError {
    /// An error of `kind` at `path`.
    pub fn new(
        kind: ResponseErrorKind,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            kind,
            path: path.into(),
            message: message.into(),
        }
    }
}
