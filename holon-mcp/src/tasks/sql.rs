//! What the SQL task stores share: a task's payload as text, and milliseconds as
//! the signed integers SQL databases keep.

use serde_json::{Map, Value};

use super::record::{TaskOwner, TaskRecord, TaskState};
use super::store::TaskStoreError;

/// A task's columns as both SQL stores read them.
pub(crate) struct TaskRow {
    pub(crate) id: String,
    pub(crate) owner: String,
    pub(crate) tool: String,
    pub(crate) status: String,
    pub(crate) payload: Option<String>,
    pub(crate) created: i64,
    pub(crate) updated: i64,
    pub(crate) ttl: Option<i64>,
    pub(crate) lease: i64,
}

impl TaskRow {
    /// The task the row holds; `failed` words a payload that is not JSON as the store
    /// words its errors.
    pub(crate) fn into_record(
        self,
        failed: fn(serde_json::Error) -> TaskStoreError,
    ) -> Result<TaskRecord, TaskStoreError> {
        let payload = self
            .payload
            .map(|text| serde_json::from_str::<Value>(&text).map_err(failed))
            .transpose()?;
        Ok(TaskRecord {
            id: self.id,
            owner: TaskOwner::from_stored(self.owner),
            tool: self.tool,
            state: TaskState::from_parts(&self.status, payload)?,
            created_at_ms: from_sql(self.created),
            updated_at_ms: from_sql(self.updated),
            ttl_ms: self.ttl.map(from_sql),
            lease_until_ms: from_sql(self.lease),
        })
    }
}

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

/// A JSON object stored as text (`None`: the empty object); `failed` words text
/// that is not one as the store words its errors.
pub(crate) fn object_of(
    text: Option<String>,
    failed: fn(serde_json::Error) -> TaskStoreError,
) -> Result<Map<String, Value>, TaskStoreError> {
    match text {
        None => Ok(Map::new()),
        Some(text) => serde_json::from_str(&text).map_err(failed),
    }
}

/// A JSON object as the text a store keeps.
pub(crate) fn object_text(object: &Map<String, Value>) -> Result<String, TaskStoreError> {
    serde_json::to_string(object)
        .map_err(|error| TaskStoreError::new(format!("a task's answers are not JSON: {error}")))
}
