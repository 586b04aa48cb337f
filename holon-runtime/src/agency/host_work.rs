//! What the host does with work items on the operator's behalf, outside the agent's
//! turns: move an agent's focus, and edit a work item. Both obey the same rules as the
//! tools (a focus switch moves no task; every edit increments the revision).

use holon_core::prelude::*;

use super::work_items::{self, PlanStatus, TodoItem, WorkItemPatch, WorkItemRecord, WorkItemState};
use super::{agents, errors, now_ms, write};
use crate::Runtime;

/// An operator's edit of a work item; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct WorkItemEdit {
    /// A new objective.
    pub objective: Option<String>,
    /// A new plan.
    pub plan: Option<String>,
    /// A new plan status.
    pub plan_status: Option<PlanStatus>,
    /// A new todo list, replacing the old one whole.
    pub todo_list: Option<Vec<TodoItem>>,
}

impl Runtime {
    /// Moves `agent_id`'s focus to its work item `work_item_id` (`None` clears it). No
    /// task and no wait moves with the focus.
    pub fn set_focus(&self, agent_id: &str, work_item_id: Option<&str>) -> Result<(), ToolError> {
        let now = now_ms();
        write(self.store(), "moving a focus", |tx| {
            agents::require(tx, agent_id)?;
            let row = match work_item_id {
                Some(id) => {
                    let item = work_items::require_owned(tx, agent_id, id, "work_item_id")?;
                    work_items::mark_picked(tx, item.row, now)?;
                    Some(item.row)
                }
                None => None,
            };
            agents::set_focus(tx, agent_id, row)
        })
    }

    /// Edits `agent_id`'s work item `work_item_id` for the operator; returns it at its
    /// new revision.
    pub fn edit_work_item(
        &self,
        agent_id: &str,
        work_item_id: &str,
        edit: &WorkItemEdit,
    ) -> Result<WorkItemRecord, ToolError> {
        let now = now_ms();
        write(self.store(), "editing a work item", |tx| {
            let item = work_items::require_owned(tx, agent_id, work_item_id, "work_item_id")?;
            if item.state == WorkItemState::Completed {
                return Err(work_items::completed_error(&item, "work_item_id"));
            }
            if let Some(objective) = &edit.objective {
                errors::non_empty(objective, "objective", "objective")?;
            }
            let patch = WorkItemPatch {
                objective: edit.objective.as_deref().map(str::trim),
                plan: edit.plan.as_deref(),
                plan_status: edit.plan_status,
                todo_list: edit.todo_list.as_deref(),
            };
            work_items::update(tx, item.row, &patch, now)
        })
    }

    /// `agent_id`'s work item `work_item_id`.
    pub fn work_item(
        &self,
        agent_id: &str,
        work_item_id: &str,
    ) -> Result<WorkItemRecord, ToolError> {
        work_items::require_owned(
            &self.store().connection(),
            agent_id,
            work_item_id,
            "work_item_id",
        )
    }
}
