//! Why a schema cannot be lowered to OpenAI's strict subset: the error the lowering
//! ([`crate::strict`]) and the limit checks of the subset give.

/// Why a schema cannot be lowered to the strict subset.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "OpenAI's strict mode does not support `{keyword}` (at `{}`): {reason}",
    if .path.is_empty() { "#" } else { .path }
)]
pub struct LowerError {
    /// The keyword responsible.
    pub keyword: String,
    /// JSON Pointer of the subschema that has it (`""` for the root).
    pub path: String,
    /// Why strict mode cannot take it.
    pub reason: String,
}

/// A [`LowerError`] for `keyword` at the JSON Pointer `path`.
pub(crate) fn error(keyword: &str, path: &str, reason: impl Into<String>) -> LowerError {
    LowerError {
        keyword: keyword.to_string(),
        path: path.to_string(),
        reason: reason.into(),
    }
}

/// Escapes a property name for a JSON Pointer.
pub(crate) fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}
