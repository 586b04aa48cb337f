//! How the work item tools show a work item.

use holon_core::prelude::*;

use holon_runtime::agency::ids;
use holon_runtime::agency::{PlanStatus, TodoItem, TodoState, WorkItemRecord, WorkItemState};

/// How many todo entries are in each state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TodoCounts {
    /// Not started.
    pub pending: usize,
    /// Being worked on.
    pub in_progress: usize,
    /// Done.
    pub completed: usize,
}

impl TodoCounts {
    /// The counts of `todo`.
    pub fn of(todo: &[TodoItem]) -> Self {
        let mut counts = Self::default();
        for item in todo {
            match item.state {
                TodoState::Pending => counts.pending += 1,
                TodoState::InProgress => counts.in_progress += 1,
                TodoState::Completed => counts.completed += 1,
            }
        }
        counts
    }
}

/// What blocks a work item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Blocker {
    /// The wait that blocks it, `wait-<n>`.
    pub wait_id: String,
    /// Why.
    pub reason: String,
}

/// A work item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct WorkItemView {
    /// Its id, `wi-<n>`.
    pub work_item_id: String,
    /// What it is for.
    pub objective: String,
    /// How to get there.
    pub plan: Option<String>,
    /// `draft`, `ready` or `needs_input`.
    pub plan_status: PlanStatus,
    /// `open`, `completing` (waiting for the turn's completion report) or `completed`.
    pub state: WorkItemState,
    /// Incremented by every change of the item.
    pub revision: i64,
    /// Whether it is your current focus.
    pub focused: bool,
    /// The wait blocking it, if any; PickWorkItem with `clear_blocker` removes it.
    pub blocker: Option<Blocker>,
    /// How many todo entries are in each state.
    pub todo_counts: TodoCounts,
    /// The todo list, when asked for (`include_todo_list`) or just changed.
    pub todo_list: Option<Vec<TodoItem>>,
    /// The operator-facing report it completed with.
    pub completion_report: Option<String>,
}

impl WorkItemView {
    /// The view of `item`; `focus` is the row its agent focuses on; the todo list is
    /// included when `with_todo_list`.
    pub fn of(item: &WorkItemRecord, focus: Option<i64>, with_todo_list: bool) -> Self {
        Self {
            work_item_id: item.id(),
            objective: item.objective.clone(),
            plan: item.plan.clone(),
            plan_status: item.plan_status,
            state: item.state,
            revision: item.revision,
            focused: focus == Some(item.row),
            blocker: item.blocker_wait.map(|wait| Blocker {
                wait_id: ids::format(ids::WAIT, wait),
                reason: item.blocker_reason.clone().unwrap_or_default(),
            }),
            todo_counts: TodoCounts::of(&item.todo_list),
            todo_list: with_todo_list.then(|| item.todo_list.clone()),
            completion_report: item.completion_report.clone(),
        }
    }
}
