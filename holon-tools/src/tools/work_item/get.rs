//! `GetWorkItem`.

use holon_core::prelude::*;

use super::view::WorkItemView;
use holon_runtime::Runtime;
use holon_runtime::agency::work_items;
use holon_runtime::agency::{agents, caller, now_ms, turns, write};

/// Arguments of GetWorkItem.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct GetWorkItemArgs {
    /// The work item, such as `wi-3`.
    #[schemars(length(min = 1))]
    pub work_item_id: String,
    /// Include the whole todo list (by default only its counts).
    #[serde(default)]
    pub include_todo_list: bool,
}

/// One work item.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WorkItemDetail {
    /// The work item.
    pub work_item: WorkItemView,
}

/// Read one of your work items: objective, plan and its status, state, revision,
/// whether it is your focus, what blocks it, and its todo counts (the whole todo list
/// with `include_todo_list`).
#[holon_tool(family = CoreAgent, annotations(read_only, idempotent, open_world = false))]
fn get_work_item(
    rt: &Runtime,
    ctx: &ToolContext,
    args: GetWorkItemArgs,
) -> Result<ToolOutput<WorkItemDetail>, ToolError> {
    let agent = caller(ctx);
    let (item, focus) = write(rt.store(), "reading a work item", |tx| {
        turns::for_call(tx, agent, now_ms())?;
        let item = work_items::require_owned(tx, agent, &args.work_item_id, "work_item_id")?;
        Ok((item, agents::require(tx, agent)?.focus_work_item))
    })?;
    let view = WorkItemView::of(&item, focus, args.include_todo_list);
    let summary = format!(
        "{} ({}, revision {}): {}",
        view.work_item_id,
        view.state.as_str(),
        view.revision,
        view.objective
    );
    Ok(ToolOutput::new(WorkItemDetail { work_item: view }).with_summary(summary))
}
