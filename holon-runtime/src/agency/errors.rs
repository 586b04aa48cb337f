//! The error kinds of the agent-facing planes, and the constructors the planes share.
//!
//! Every kind is a stable snake_case string a model or host can match on; every error
//! says what to do next in its recovery hint.

use holon_core::{ToolError, ToolErrorKind};

/// The turn published a WaitFor with `delivery = final` and now accepts only its
/// operator-facing final brief: every further tool call of the turn is refused.
pub const TURN_AWAITING_FINAL: ToolErrorKind = ToolErrorKind::new("turn_awaiting_final");
/// A wait report expired before it could be settled: its task, execution binding, work
/// item revision, a wake or an interjection changed. Nothing was written.
pub const STALE_WAIT_SETTLEMENT: ToolErrorKind = ToolErrorKind::new("stale_wait_settlement");
/// The store refused an operation.
pub const STORE_FAILED: ToolErrorKind = ToolErrorKind::new("store_failed");
/// No agent with this id is visible to the caller.
pub const UNKNOWN_AGENT: ToolErrorKind = ToolErrorKind::new("unknown_agent");
/// An agent with this id already exists.
pub const AGENT_EXISTS: ToolErrorKind = ToolErrorKind::new("agent_exists");
/// The agent has stopped and takes no more messages or turns.
pub const AGENT_STOPPED: ToolErrorKind = ToolErrorKind::new("agent_stopped");
/// No work item with this id belongs to the caller.
pub const UNKNOWN_WORK_ITEM: ToolErrorKind = ToolErrorKind::new("unknown_work_item");
/// The work item is completed and cannot change any more.
pub const WORK_ITEM_COMPLETED: ToolErrorKind = ToolErrorKind::new("work_item_completed");
/// The work item is blocked by a wait.
pub const WORK_ITEM_BLOCKED: ToolErrorKind = ToolErrorKind::new("work_item_blocked");
/// The caller's `expected_revision` is not the work item's revision.
pub const STALE_REVISION: ToolErrorKind = ToolErrorKind::new("stale_revision");
/// An update that changes nothing.
pub const NOTHING_TO_UPDATE: ToolErrorKind = ToolErrorKind::new("nothing_to_update");
/// Completing a work item whose todo list still has open entries.
pub const UNFINISHED_TODO_ITEMS: ToolErrorKind = ToolErrorKind::new("unfinished_todo_items");
/// A required operator-facing text (final brief, completion report, reason) is empty.
pub const EMPTY_TEXT: ToolErrorKind = ToolErrorKind::new("empty_text");
/// No turn with this id exists, or it is not in a state that allows the operation.
pub const TURN_NOT_ACTIVE: ToolErrorKind = ToolErrorKind::new("turn_not_active");
/// The task is unknown.
pub const UNKNOWN_TASK: ToolErrorKind = ToolErrorKind::new("unknown_task");
/// The task belongs to another agent, or its owner was never captured.
pub const TASK_NOT_OWNED: ToolErrorKind = ToolErrorKind::new("task_not_owned");
/// A wait would cross the task's ownership boundary (another work item).
pub const TASK_OWNERSHIP_MISMATCH: ToolErrorKind = ToolErrorKind::new("task_ownership_mismatch");
/// The timer is unknown or belongs to another agent.
pub const UNKNOWN_TIMER: ToolErrorKind = ToolErrorKind::new("unknown_timer");
/// The timer already fired or was cancelled.
pub const TIMER_NOT_SCHEDULED: ToolErrorKind = ToolErrorKind::new("timer_not_scheduled");
/// The external trigger is unknown or belongs to another agent.
pub const UNKNOWN_EXTERNAL_TRIGGER: ToolErrorKind = ToolErrorKind::new("unknown_external_trigger");
/// The external trigger was cancelled.
pub const EXTERNAL_TRIGGER_CANCELLED: ToolErrorKind =
    ToolErrorKind::new("external_trigger_cancelled");
/// A model or provider named in SpawnAgent is not in the model catalog.
pub const UNKNOWN_MODEL: ToolErrorKind = ToolErrorKind::new("unknown_model");
/// A failure injected by an armed [`FailPoint`](super::FailPoint).
pub const INJECTED_FAILURE: ToolErrorKind = ToolErrorKind::new("injected_failure");

/// A store failure while `doing` something, as a retryable tool error.
pub fn store(doing: &'static str) -> impl FnOnce(rusqlite::Error) -> ToolError {
    move |source| {
        ToolError::new(
            STORE_FAILED,
            format!("the state store failed while {doing}: {source}"),
        )
        .with_hint(
            "retry the call; if it keeps failing, the state directory may be read-only or full",
        )
        .retryable()
    }
}

/// An error of `kind` with `message` and `hint`.
pub fn error(
    kind: ToolErrorKind,
    message: impl Into<String>,
    hint: impl Into<String>,
) -> ToolError {
    ToolError::new(kind, message).with_hint(hint)
}

/// `text` trimmed, or an [`EMPTY_TEXT`] error naming `what` and `field`.
pub fn non_empty<'a>(text: &'a str, what: &str, field: &str) -> Result<&'a str, ToolError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(error(
            EMPTY_TEXT,
            format!("the {what} is empty"),
            format!("write a non-empty {what}"),
        )
        .with_field(field.to_string()));
    }
    Ok(trimmed)
}
