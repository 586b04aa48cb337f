//! `UpdateWorkItem`.

use holon_core::prelude::*;

use super::view::WorkItemView;
use holon_runtime::Runtime;
use holon_runtime::agency::caller;
use holon_runtime::agency::services::{Actor, WorkItemChange};
use holon_runtime::agency::{PlanStatus, TodoItem};

/// Arguments of UpdateWorkItem.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct UpdateWorkItemArgs {
    /// The work item to change, such as `wi-3`.
    #[schemars(length(min = 1))]
    pub work_item_id: String,
    /// A new objective.
    #[serde(default)]
    #[schemars(length(min = 1, max = 2000))]
    pub objective: Option<String>,
    /// A new plan, replacing the old one.
    #[serde(default)]
    #[schemars(length(max = 20000))]
    pub plan: Option<String>,
    /// A new plan status: `draft`, `ready` or `needs_input`.
    #[serde(default)]
    pub plan_status: Option<PlanStatus>,
    /// The whole new todo list (at most 100 entries); it replaces the old list
    /// entirely, so send every entry you want to keep.
    #[serde(default)]
    #[schemars(length(max = 100))]
    pub todo_list: Option<Vec<TodoItem>>,
    /// The revision you last read; when given and the item has changed since, nothing
    /// is written and the call fails with `stale_revision`.
    #[serde(default)]
    pub expected_revision: Option<u64>,
}

/// What UpdateWorkItem changed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct UpdatedWorkItem {
    /// The work item at its new revision, with its todo list.
    pub work_item: WorkItemView,
    /// The names of the fields that were changed.
    pub changed_fields: Vec<String>,
}

/// Change one of your open work items: its objective, plan, plan status, or its whole
/// todo list (the list you send replaces the old one entirely). Every update
/// increments the item's revision; pass `expected_revision` to make sure you change
/// what you last read. Completed items cannot change.
#[holon_tool(
    family = CoreAgent,
    keywords = ["tick off", "check off", "edit plan", "revise", "checklist", "todo list"],
    annotations(idempotent, open_world = false)
)]
fn update_work_item(
    rt: &Runtime,
    ctx: &ToolContext,
    args: UpdateWorkItemArgs,
) -> Result<ToolOutput<UpdatedWorkItem>, ToolError> {
    let change = WorkItemChange {
        objective: args.objective,
        plan: args.plan,
        plan_status: args.plan_status,
        todo_list: args.todo_list,
        expected_revision: args.expected_revision,
    };
    let changed: Vec<String> = change.fields().into_iter().map(String::from).collect();
    let (item, focus) =
        rt.work_items()
            .update(Actor::Agent(caller(ctx)), &args.work_item_id, &change)?;
    let view = WorkItemView::of(&item, focus, true);
    let summary = format!(
        "updated {} ({}) to revision {}",
        view.work_item_id,
        changed.join(", "),
        view.revision
    );
    Ok(ToolOutput::new(UpdatedWorkItem {
        work_item: view,
        changed_fields: changed,
    })
    .with_summary(summary))
}
