//! `CreateWorkItem`.

use holon_core::prelude::*;

use super::view::WorkItemView;
use holon_runtime::Runtime;
use holon_runtime::agency::services::{self, NewWorkItem};
use holon_runtime::agency::{PlanStatus, TodoItem};
use holon_runtime::agency::{caller, ids};

/// Arguments of CreateWorkItem.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct CreateWorkItemArgs {
    /// What the work is for: the outcome that counts as done, in a sentence or two.
    #[schemars(length(min = 1, max = 2000))]
    pub objective: String,
    /// How you mean to get there, as free text.
    #[serde(default)]
    #[schemars(length(max = 20000))]
    pub plan: Option<String>,
    /// Where the plan stands: `draft` (the default), `ready`, or `needs_input` when it
    /// waits for an answer from the operator.
    #[serde(default)]
    pub plan_status: Option<PlanStatus>,
    /// The first todo list, at most 100 entries, each a `text` and a `state`.
    #[serde(default)]
    #[schemars(length(max = 100))]
    pub todo_list: Option<Vec<TodoItem>>,
    /// Whether the new item becomes your focus (default true). The focus moves no task
    /// and no wait: those stay with the item that owned them.
    #[serde(default)]
    pub focus: Option<bool>,
}

/// What CreateWorkItem created.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CreatedWorkItem {
    /// The new work item, at revision 1.
    pub work_item: WorkItemView,
    /// The item you focused on before, when the focus moved to the new one.
    pub previous_focus_id: Option<String>,
}

/// Create a work item: a unit of your work with an objective, an optional plan and a
/// todo list. It starts `open` at revision 1 and becomes your focus unless `focus` is
/// false; the item you focused on before keeps its tasks and waits.
///
/// Use one work item per separately completable piece of work. Keep it current with
/// UpdateWorkItem, switch between items with PickWorkItem, and finish with
/// CompleteWorkItem.
#[holon_tool(
    family = CoreAgent,
    keywords = ["todo list", "new task", "ticket", "checklist", "plan", "goal"],
    annotations(open_world = false),
    example_file = "src/tools/work_item/create_examples.json"
)]
fn create_work_item(
    rt: &Runtime,
    ctx: &ToolContext,
    args: CreateWorkItemArgs,
) -> Result<ToolOutput<CreatedWorkItem>, ToolError> {
    let focus = args.focus.unwrap_or(true);
    let new_item = NewWorkItem {
        objective: &args.objective,
        plan: args.plan.as_deref(),
        plan_status: args.plan_status.unwrap_or_default(),
        todo_list: args.todo_list.as_deref().unwrap_or_default(),
    };
    let services::CreatedWorkItem {
        item,
        previous_focus: previous,
        focus: focused,
    } = rt.work_items().create(caller(ctx), &new_item, focus)?;
    let view = WorkItemView::of(&item, focused, true);
    let summary = format!("created {}: {}", view.work_item_id, item.objective);
    Ok(ToolOutput::new(CreatedWorkItem {
        work_item: view,
        previous_focus_id: previous
            .filter(|row| focus && *row != item.row)
            .map(|row| ids::format(ids::WORK_ITEM, row)),
    })
    .with_summary(summary))
}
