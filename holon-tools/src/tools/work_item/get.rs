//! `GetWorkItem`.

use holon_core::prelude::*;

use super::view::WorkItemView;
use holon_runtime::Runtime;
use holon_runtime::agency::caller;
use holon_runtime::agency::services::Actor;

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
#[holon_tool(
    family = CoreAgent,
    keywords = ["ticket details", "show task", "todos left", "progress", "checklist"],
    annotations(read_only, idempotent, open_world = false)
)]
fn get_work_item(
    rt: &Runtime,
    ctx: &ToolContext,
    args: GetWorkItemArgs,
) -> Result<ToolOutput<WorkItemDetail>, ToolError> {
    let (item, focus) = rt
        .work_items()
        .get(Actor::Agent(caller(ctx)), &args.work_item_id)?;
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
