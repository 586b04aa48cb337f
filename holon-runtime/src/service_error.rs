//! The shape every service error of the runtime shares: a kind of the service's own,
//! what went wrong, how to go on, the input field it is about, structured details,
//! and whether retrying may help. Tools get a [`ToolError`] through `From`, field for
//! field, whatever the service.

use holon_core::{ToolError, ToolErrorKind};
use serde_json::Value;

/// The kinds of one service's errors, each with a stable snake_case wire name a model
/// or host can match on.
pub trait ServiceErrorKind: Copy + std::fmt::Debug + std::fmt::Display + PartialEq {
    /// The wire name, the `kind` of the tool error.
    fn wire_name(self) -> &'static str;
}

/// An error of a service whose kinds are `K`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct ServiceError<K: ServiceErrorKind> {
    /// What went wrong, as a stable kind.
    pub kind: K,
    /// What went wrong, in a sentence a model can act on.
    pub message: String,
    /// How to make the call succeed.
    pub hint: Option<String>,
    /// The path of the input field the error is about.
    pub field: Option<String>,
    /// Structured details, boxed so that the error stays small enough to return by
    /// value.
    pub details: Option<Box<Value>>,
    /// Whether the same call may succeed if repeated later.
    pub retryable: bool,
}

impl<K: ServiceErrorKind> ServiceError<K> {
    /// An error of `kind` with `message`.
    pub fn new(kind: K, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            hint: None,
            field: None,
            details: None,
            retryable: false,
        }
    }

    /// Sets how to go on.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Sets the input field the error is about.
    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
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

    /// The store failed: an error of `kind` saying how, retryable, nothing the caller
    /// did wrong.
    pub fn store_failed(kind: K, store: &crate::StoreError) -> Self {
        Self::new(kind, store.to_string())
            .with_hint("retry; if it keeps failing, the operator should check the state directory")
            .retryable()
    }
}

impl<K: ServiceErrorKind> From<ServiceError<K>> for ToolError {
    fn from(error: ServiceError<K>) -> Self {
        Self {
            kind: ToolErrorKind::new(error.kind.wire_name()),
            message: error.message,
            field: error.field,
            details: error.details,
            recovery_hint: error.hint,
            retryable: error.retryable,
        }
    }
}
