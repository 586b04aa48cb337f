//! The problems of an input: what the parse found, every schema violation (with the
//! `validate` feature, schema_violations.rs lists them) and serde's own error, with
//! the registry's hints (a result field named as such).

use serde_json::Value;

use crate::input::InputReport;
use crate::input::problems::{Category, Problem, Problems, combine};
use crate::registry::Entry;
use crate::result::error::{ToolError, ToolErrorKind};

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
    if let Some(validator) = entry.full_validator() {
        validator.collect(value, &mut found);
    }
    if let Some(mut serde) = serde {
        serde.error = entry.enrich(serde.error);
        let field = serde.error.field.clone();
        let same_field = found.find_mut(|problem| {
            problem.category != Category::DuplicateField && problem.error.field == field
        });
        match same_field {
            // The schema names the fields valid where an unknown one is, in the very
            // variant or flattened struct; serde, under `flatten`, names none.
            Some(problem)
                if serde.error.kind == ToolErrorKind::UNKNOWN_FIELD
                    && problem.category == Category::UnknownField => {}
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
