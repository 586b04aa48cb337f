//! What the host does with work items on the operator's behalf, outside the agent's
//! turns: move an agent's focus, and edit a work item. Both are the work item
//! service's operations ([`super::services::WorkItems`]) acting as the operator, so
//! the tools' rules apply to them unchanged.

use super::errors::AgencyError;
use super::services::{Actor, WorkItemChange};
use super::work_items::WorkItemRecord;
use crate::Runtime;

/// An operator's edit of a work item: the same change UpdateWorkItem makes, with its
/// optional `expected_revision`.
pub type WorkItemEdit = WorkItemChange;

impl Runtime {
    /// Moves `agent_id`'s focus to its work item `work_item_id` (`None` clears it). No
    /// task and no wait moves with the focus; a completed item cannot be focused, a
    /// blocked one can (its wait stays).
    pub fn set_focus(&self, agent_id: &str, work_item_id: Option<&str>) -> Result<(), AgencyError> {
        match work_item_id {
            Some(id) => self
                .work_items()
                .pick(Actor::Operator(agent_id), id, None)
                .map(|_| ()),
            None => self.work_items().clear_focus(agent_id),
        }
    }

    /// Edits `agent_id`'s work item `work_item_id` for the operator; returns it at its
    /// new revision. Refused like UpdateWorkItem: an edit that names no field, an
    /// empty objective, a completed item, another revision than `expected_revision`.
    pub fn edit_work_item(
        &self,
        agent_id: &str,
        work_item_id: &str,
        edit: &WorkItemEdit,
    ) -> Result<WorkItemRecord, AgencyError> {
        self.work_items()
            .update(Actor::Operator(agent_id), work_item_id, edit)
            .map(|(item, _)| item)
    }

    /// `agent_id`'s work item `work_item_id`.
    pub fn work_item(
        &self,
        agent_id: &str,
        work_item_id: &str,
    ) -> Result<WorkItemRecord, AgencyError> {
        self.work_items()
            .get(Actor::Operator(agent_id), work_item_id)
            .map(|(item, _)| item)
    }
}
