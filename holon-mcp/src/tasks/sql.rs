//! What the SQL task stores share: a task's payload as text, and milliseconds as
//! the signed integers SQL databases keep.

use super::record::TaskState;
use super::store::TaskStoreError;

/// The state's payload as JSON text (`None` for the states without one).
pub(crate) fn payload_text(state: &TaskState) -> Result<Option<String>, TaskStoreError> {
    state
        .payload()
        .map(|payload| {
            serde_json::to_string(payload).map_err(|error| {
                TaskStoreError::new(format!("a task's payload is not JSON: {error}"))
            })
        })
        .transpose()
}

/// SQL integers are signed: milliseconds past `i64::MAX` are clamped.
pub(crate) fn to_sql(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// Milliseconds as stored (never negative: they were written by [`to_sql`]).
pub(crate) fn from_sql(ms: i64) -> u64 {
    u64::try_from(ms).unwrap_or(0)
}
