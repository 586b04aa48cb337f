//! The agency's own error type and the constructors the planes share.
//!
//! Every kind has a stable snake_case wire name a model or host can match on, and
//! every error says what to do next in its hint. [`AgencyError`] is what the services
//! return; tools get a [`ToolError`] through `From`, field for field.

use holon_core::{ToolError, ToolErrorKind};

use crate::service_error::{ServiceError, ServiceErrorKind};
use crate::workspace::WorkspaceError;

/// What went wrong in the agency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AgencyErrorKind {
    /// The turn published a WaitFor with `delivery = final` and now accepts only its
    /// operator-facing final brief: every further tool call of the turn is refused.
    TurnAwaitingFinal,
    /// A wait report expired before it could be settled: its task, execution binding,
    /// work item revision, a wake or an interjection changed. Nothing was written.
    StaleWaitSettlement,
    /// The store refused an operation.
    StoreFailed,
    /// No agent with this id is visible to the caller.
    UnknownAgent,
    /// An agent with this id already exists.
    AgentExists,
    /// The agent has stopped and takes no more messages or turns.
    AgentStopped,
    /// The caller's profile does not allow the operation (a private child spawning).
    FamilyNotAllowed,
    /// No work item with this id belongs to the caller.
    UnknownWorkItem,
    /// The work item is completed and cannot change any more.
    WorkItemCompleted,
    /// The work item is blocked by a wait.
    WorkItemBlocked,
    /// The caller's `expected_revision` is not the work item's revision.
    StaleRevision,
    /// An update that changes nothing.
    NothingToUpdate,
    /// Completing a work item whose todo list still has open entries.
    UnfinishedTodoItems,
    /// A required operator-facing text (final brief, completion report, reason) is
    /// empty.
    EmptyText,
    /// No turn with this id exists, or it is not in a state that allows the operation.
    TurnNotActive,
    /// The task is unknown.
    UnknownTask,
    /// The task belongs to another agent, or its owner was never captured.
    TaskNotOwned,
    /// A wait would cross the task's ownership boundary (another work item).
    TaskOwnershipMismatch,
    /// The timer is unknown or belongs to another agent.
    UnknownTimer,
    /// The timer already fired or was cancelled.
    TimerNotScheduled,
    /// The external trigger is unknown or belongs to another agent.
    UnknownExternalTrigger,
    /// The external trigger was cancelled.
    ExternalTriggerCancelled,
    /// A model or provider named in SpawnAgent is not in the model catalog.
    UnknownModel,
    /// A failure injected by an armed [`FailPoint`](super::FailPoint).
    InjectedFailure,
}

impl AgencyErrorKind {
    /// The wire name, the `kind` of the tool error.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::TurnAwaitingFinal => "turn_awaiting_final",
            Self::StaleWaitSettlement => "stale_wait_settlement",
            Self::StoreFailed => "store_failed",
            Self::UnknownAgent => "unknown_agent",
            Self::AgentExists => "agent_exists",
            Self::AgentStopped => "agent_stopped",
            Self::FamilyNotAllowed => "family_not_allowed",
            Self::UnknownWorkItem => "unknown_work_item",
            Self::WorkItemCompleted => "work_item_completed",
            Self::WorkItemBlocked => "work_item_blocked",
            Self::StaleRevision => "stale_revision",
            Self::NothingToUpdate => "nothing_to_update",
            Self::UnfinishedTodoItems => "unfinished_todo_items",
            Self::EmptyText => "empty_text",
            Self::TurnNotActive => "turn_not_active",
            Self::UnknownTask => "unknown_task",
            Self::TaskNotOwned => "task_not_owned",
            Self::TaskOwnershipMismatch => "task_ownership_mismatch",
            Self::UnknownTimer => "unknown_timer",
            Self::TimerNotScheduled => "timer_not_scheduled",
            Self::UnknownExternalTrigger => "unknown_external_trigger",
            Self::ExternalTriggerCancelled => "external_trigger_cancelled",
            Self::UnknownModel => "unknown_model",
            Self::InjectedFailure => "injected_failure",
        }
    }

    /// The tool error kind of the same name.
    pub const fn tool_kind(self) -> ToolErrorKind {
        ToolErrorKind::new(self.as_str())
    }
}

impl std::fmt::Display for AgencyErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error of the agency: a kind, what went wrong, how to go on, the input field it
/// is about, structured details (such as the stale dimensions of a wait), and whether
/// retrying may help.
pub type AgencyError = ServiceError<AgencyErrorKind>;

impl ServiceErrorKind for AgencyErrorKind {
    fn wire_name(self) -> &'static str {
        self.as_str()
    }
}

/// Why SpawnAgent failed: a rule of the agency, or the child's worktree (made by the
/// workspace service inside the spawn).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpawnError {
    /// The agency refused or failed.
    #[error(transparent)]
    Agency(#[from] AgencyError),
    /// The child's worktree could not be planned or made.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
}

impl From<SpawnError> for ToolError {
    fn from(error: SpawnError) -> Self {
        match error {
            SpawnError::Agency(error) => error.into(),
            SpawnError::Workspace(error) => error.into(),
        }
    }
}

/// A store failure while `doing` something, as a retryable error.
pub(crate) fn store(doing: &'static str) -> impl FnOnce(rusqlite::Error) -> AgencyError {
    move |source| {
        AgencyError::new(
            AgencyErrorKind::StoreFailed,
            format!("the state store failed while {doing}: {source}"),
        )
        .with_hint(
            "retry the call; if it keeps failing, the state directory may be read-only or full",
        )
        .retryable()
    }
}

/// An error of `kind` with `message` and `hint`.
pub(crate) fn error(
    kind: AgencyErrorKind,
    message: impl Into<String>,
    hint: impl Into<String>,
) -> AgencyError {
    AgencyError::new(kind, message).with_hint(hint)
}

/// `text` trimmed, or an `empty_text` error naming `what` and `field`.
pub fn non_empty<'a>(text: &'a str, what: &str, field: &str) -> Result<&'a str, AgencyError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(error(
            AgencyErrorKind::EmptyText,
            format!("the {what} is empty"),
            format!("write a non-empty {what}"),
        )
        .with_field(field.to_string()));
    }
    Ok(trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::WorkspaceErrorKind;

    #[test]
    fn every_part_survives_the_conversion_to_a_tool_error() {
        let error = error(
            AgencyErrorKind::StaleWaitSettlement,
            "the report expired",
            "look again",
        )
        .with_field("work_item_id")
        .with_details(serde_json::json!({ "stale": ["wake"] }))
        .retryable();
        let tool = ToolError::from(error.clone());
        assert_eq!(tool.kind.as_str(), "stale_wait_settlement");
        assert_eq!(tool.message, error.message);
        assert_eq!(tool.recovery_hint.as_deref(), Some("look again"));
        assert_eq!(tool.field.as_deref(), Some("work_item_id"));
        assert_eq!(
            tool.details.as_deref(),
            Some(&serde_json::json!({ "stale": ["wake"] }))
        );
        assert!(tool.retryable);
    }

    #[test]
    fn absent_parts_stay_absent_and_not_retryable_stays_so() {
        let tool = ToolError::from(AgencyError::new(AgencyErrorKind::UnknownTimer, "no timer"));
        assert_eq!(tool.kind, ToolErrorKind::new("unknown_timer"));
        assert_eq!(tool.field, None);
        assert_eq!(tool.details, None);
        assert_eq!(tool.recovery_hint, None);
        assert!(!tool.retryable);
    }

    #[test]
    fn a_store_failure_is_retryable_with_its_hint() {
        let failure = store("reading a turn")(rusqlite::Error::InvalidQuery);
        let tool = ToolError::from(failure);
        assert_eq!(tool.kind.as_str(), "store_failed");
        assert!(tool.retryable);
        assert!(
            tool.message
                .starts_with("the state store failed while reading a turn: ")
        );
        assert_eq!(
            tool.recovery_hint.as_deref(),
            Some(
                "retry the call; if it keeps failing, the state directory may be read-only or full"
            )
        );
    }

    #[test]
    fn a_spawn_error_converts_as_the_error_it_holds() {
        let agency =
            error(AgencyErrorKind::AgentExists, "taken", "choose another").with_field("agent_id");
        let workspace = WorkspaceError::new(WorkspaceErrorKind::BranchExists, "left over")
            .with_hint("delete the branch")
            .with_field("workspace_mode")
            .retryable();
        assert_eq!(
            ToolError::from(SpawnError::from(agency.clone())),
            ToolError::from(agency)
        );
        let tool = ToolError::from(SpawnError::from(workspace.clone()));
        assert_eq!(tool, ToolError::from(workspace));
        assert_eq!(tool.kind.as_str(), "branch_exists");
        assert_eq!(tool.field.as_deref(), Some("workspace_mode"));
        assert!(tool.retryable);
    }

    #[test]
    fn family_not_allowed_keeps_the_framework_kind() {
        assert_eq!(
            AgencyErrorKind::FamilyNotAllowed.tool_kind(),
            ToolErrorKind::FAMILY_NOT_ALLOWED
        );
    }

    #[test]
    fn empty_text_names_its_field() {
        let tool = ToolError::from(non_empty("  ", "reason", "reason").unwrap_err());
        assert_eq!(tool.kind.as_str(), "empty_text");
        assert_eq!(tool.field.as_deref(), Some("reason"));
        assert_eq!(
            tool.recovery_hint.as_deref(),
            Some("write a non-empty reason")
        );
        assert_eq!(tool.message, "the reason is empty");
    }
}
