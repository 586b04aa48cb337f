//! The memory service's error type.
//!
//! Every kind has a stable snake_case wire name a model or host can match on, and
//! every error says what to do next in its hint. [`MemoryError`] is what the service
//! returns; tools get a [`ToolError`] through `From`, field for field.

use holon_core::ToolErrorKind;

use super::walk::NotIndexed;
use crate::StoreError;
use crate::service_error::{ServiceError, ServiceErrorKind};

/// What went wrong in the memory service.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MemoryErrorKind {
    /// The query has no word to search for.
    InvalidQuery,
    /// The text is not a `source_ref`.
    InvalidSourceRef,
    /// No bound workspace or worktree has the ref's execution root id.
    UnknownSourceRoot,
    /// The ref's path is absolute or climbs out of its root.
    SourceOutsideIndex,
    /// The file or note does not exist (any more).
    SourceNotFound,
    /// The file is a FIFO, socket or device.
    NotARegularFile,
    /// Reading the file failed.
    SourceUnreadable,
    /// The file exists but the index does not cover it (skipped, not Markdown, too
    /// large, through a symlink).
    SourceNotIndexed,
    /// The ref's line range starts past the end of the source as it is now.
    LineRangeOutOfBounds,
    /// The store holding the index failed.
    MemoryIndexError,
}

impl MemoryErrorKind {
    /// The wire name, the `kind` of the tool error.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::InvalidQuery => "invalid_query",
            Self::InvalidSourceRef => "invalid_source_ref",
            Self::UnknownSourceRoot => "unknown_source_root",
            Self::SourceOutsideIndex => "source_outside_index",
            Self::SourceNotFound => "source_not_found",
            Self::NotARegularFile => "not_a_regular_file",
            Self::SourceUnreadable => "source_unreadable",
            Self::SourceNotIndexed => "source_not_indexed",
            Self::LineRangeOutOfBounds => "line_range_out_of_bounds",
            Self::MemoryIndexError => "memory_index_error",
        }
    }

    /// The tool error kind of the same name.
    pub const fn tool_kind(self) -> ToolErrorKind {
        ToolErrorKind::new(self.as_str())
    }
}

impl std::fmt::Display for MemoryErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error of the memory service: a kind, what went wrong, how to go on, the input
/// field it is about, structured details (such as the source's line count), and
/// whether retrying may help.
pub type MemoryError = ServiceError<MemoryErrorKind>;

impl ServiceErrorKind for MemoryErrorKind {
    fn wire_name(self) -> &'static str {
        self.as_str()
    }
}

/// An error of `kind` with `message` and `hint`: every memory error says how to go on.
pub(super) fn error(
    kind: MemoryErrorKind,
    message: impl Into<String>,
    hint: impl Into<String>,
) -> MemoryError {
    MemoryError::new(kind, message).with_hint(hint)
}

/// Why `shown` (the ref as the caller wrote it) cannot be read.
pub(super) fn not_indexed(shown: &str, why: &NotIndexed) -> MemoryError {
    let (kind, hint) = match why {
        NotIndexed::Escapes => (
            MemoryErrorKind::SourceOutsideIndex,
            "refs name files inside their root; pass a `source_ref` exactly as MemorySearch returned it",
        ),
        NotIndexed::Missing => (
            MemoryErrorKind::SourceNotFound,
            "the file may have moved: search again",
        ),
        NotIndexed::NotRegular(_) => (
            MemoryErrorKind::NotARegularFile,
            "MemoryGet reads regular files only, not FIFOs, sockets or devices",
        ),
        NotIndexed::Unreadable(_) => (
            MemoryErrorKind::SourceUnreadable,
            "retry; check the file's permissions",
        ),
        NotIndexed::Excluded(_) | NotIndexed::NotMarkdown | NotIndexed::TooLarge(_) => (
            MemoryErrorKind::SourceNotIndexed,
            "MemoryGet reads indexed Markdown files only; read other files with a command",
        ),
    };
    let error = self::error(kind, format!("`{shown}` cannot be read: {why}"), hint)
        .with_field("source_ref");
    if matches!(why, NotIndexed::Unreadable(_)) {
        error.retryable()
    } else {
        error
    }
}

impl From<StoreError> for MemoryError {
    fn from(store: StoreError) -> Self {
        Self::store_failed(MemoryErrorKind::MemoryIndexError, &store)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use holon_core::ToolError;
    use holon_gates::fs::NotRegular;

    #[test]
    fn every_part_survives_the_conversion_to_a_tool_error() {
        let error = error(
            MemoryErrorKind::LineRangeOutOfBounds,
            "the ref starts at line 9",
            "search again",
        )
        .with_field("source_ref")
        .with_details(serde_json::json!({ "total_lines": 3 }))
        .retryable();
        let tool = ToolError::from(error.clone());
        assert_eq!(tool.kind.as_str(), "line_range_out_of_bounds");
        assert_eq!(tool.message, error.message);
        assert_eq!(tool.recovery_hint.as_deref(), Some("search again"));
        assert_eq!(tool.field.as_deref(), Some("source_ref"));
        assert_eq!(
            tool.details.as_deref(),
            Some(&serde_json::json!({ "total_lines": 3 }))
        );
        assert!(tool.retryable);
    }

    #[test]
    fn absent_parts_stay_absent_and_not_retryable_stays_so() {
        let tool = ToolError::from(error(
            MemoryErrorKind::InvalidQuery,
            "no words",
            "search for words",
        ));
        assert_eq!(tool.kind, ToolErrorKind::new("invalid_query"));
        assert_eq!(tool.field, None);
        assert_eq!(tool.details, None);
        assert!(!tool.retryable);
    }

    #[test]
    fn a_store_failure_is_a_retryable_index_error_with_its_hint() {
        let store = StoreError::Sqlite {
            doing: "searching the memory index".to_string(),
            source: rusqlite::Error::InvalidQuery,
        };
        let shown = store.to_string();
        let tool = ToolError::from(MemoryError::from(store));
        assert_eq!(tool.kind.as_str(), "memory_index_error");
        assert_eq!(tool.message, shown);
        assert_eq!(
            tool.recovery_hint.as_deref(),
            Some("retry; if it keeps failing, the operator should check the state directory")
        );
        assert_eq!(tool.field, None);
        assert!(tool.retryable);
    }

    #[test]
    fn each_unreadable_path_keeps_its_kind_field_and_retryability() {
        let cases = [
            (NotIndexed::Escapes, "source_outside_index", false),
            (NotIndexed::Missing, "source_not_found", false),
            (
                NotIndexed::NotRegular(NotRegular::Fifo),
                "not_a_regular_file",
                false,
            ),
            (
                NotIndexed::Unreadable("denied".into()),
                "source_unreadable",
                true,
            ),
            (
                NotIndexed::Excluded("skipped".into()),
                "source_not_indexed",
                false,
            ),
            (NotIndexed::NotMarkdown, "source_not_indexed", false),
            (NotIndexed::TooLarge(1), "source_not_indexed", false),
        ];
        for (why, kind, retryable) in cases {
            let tool = ToolError::from(not_indexed("workspace:w:a.md", &why));
            assert_eq!(tool.kind.as_str(), kind, "{why:?}");
            assert_eq!(
                tool.message,
                format!("`workspace:w:a.md` cannot be read: {why}")
            );
            assert_eq!(tool.field.as_deref(), Some("source_ref"));
            assert!(tool.recovery_hint.is_some());
            assert_eq!(tool.retryable, retryable, "{why:?}");
        }
    }
}
