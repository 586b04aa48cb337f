//! Why a schema cannot be lowered to OpenAI's strict subset: the error the lowering
//! ([`crate::strict`]) and the limit checks of the subset give.

use std::fmt;

/// Why a schema cannot be lowered to the strict subset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LowerError {
    /// The keyword responsible.
    pub keyword: String,
    /// JSON Pointer of the subschema that has it (`""` for the root).
    pub path: String,
    /// Why strict mode cannot take it.
    pub reason: String,
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.path.is_empty() {
            "#"
        } else {
            &self.path
        };
        write!(
            f,
            "OpenAI's strict mode does not support `{}` (at `{at}`): {}",
            self.keyword, self.reason
        )
    }
}

impl std::error::Error for LowerError {}

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
