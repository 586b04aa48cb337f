//! The problems of an input: what the parse found, every schema violation (with the
//! `validate` feature, schema_violations.rs lists them) and serde's own error, with
//! the registry's hints (a result field named as such).

use serde_json::Value;

use crate::error::{ToolError, ToolErrorKind};
use crate::input::InputReport;
use crate::problems::{Category, Problem, Problems, combine};
use crate::registry::Entry;

impl InputReport for Entry {
    fn report(&self, value: &Value, found: Problems, serde: Option<Problem>) -> ToolError {
        report(self, value, found, serde)
    }
}

/// Everything wrong with `value` for `entry`: `found` (repeated keys, noted while
/// parsing), every schema violation, and `serde`, the typed parse's own error. The
/// typed parse's error replaces the schema's at the same field (it names the Rust
/// type, such as `u32`), and is kept alone when the schema sees nothing wrong.
pub(crate) fn report(
    entry: &Entry,
    value: &Value,
    found: impl Into<Problems>,
    serde: Option<Problem>,
) -> ToolError {
    let mut found = found.into();
    #[cfg(feature = "validate")]
    crate::schema_violations::collect(entry, value, &mut found);
    #[cfg(not(feature = "validate"))]
    let _ = value;
    if let Some(mut serde) = serde {
        serde.error = enrich(entry, serde.error);
        let field = serde.error.field.clone();
        let same_field = found.find_mut(|problem| {
            problem.category != Category::DuplicateField && problem.error.field == field
        });
        match same_field {
            Some(problem) => {
                // The schema's hint (the type meant, an example) outlives its message.
                if serde.error.recovery_hint.is_none() {
                    serde.error.recovery_hint = problem.error.recovery_hint.take();
                }
                *problem = serde;
            }
            None => found.push(serde),
        }
    }
    combine(found)
}

/// Adds what only the registry knows to an input error: a field that belongs to the
/// result is `result_field_in_input`.
pub(crate) fn enrich(entry: &Entry, mut error: ToolError) -> ToolError {
    if error.kind != ToolErrorKind::UNKNOWN_FIELD {
        return error;
    }
    let Some(field) = error.field.as_deref() else {
        return error;
    };
    if entry.result_fields.iter().any(|result| result == field) {
        let name = &entry.definition.spec.name;
        error.kind = ToolErrorKind::RESULT_FIELD_IN_INPUT;
        error.message = format!(
            "`{field}` is a field of {name}'s result, not of its input: result fields are never valid arguments"
        );
        error.recovery_hint = Some(format!(
            "remove `{field}`; the input fields of {name} are: {}",
            entry.tool.input_fields().join(", ")
        ));
    }
    error
}
