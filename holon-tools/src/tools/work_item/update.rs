//! `UpdateWorkItem`.

use holon_core::prelude::*;

use super::view::WorkItemView;
use holon_runtime::Runtime;
use holon_runtime::agency::work_items::{self, PlanStatus, TodoItem, WorkItemPatch, WorkItemState};
use holon_runtime::agency::{
    NOTHING_TO_UPDATE, STALE_REVISION, agents, caller, errors, now_ms, turns, write,
};

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
#[holon_tool(family = CoreAgent, annotations(idempotent, open_world = false))]
fn update_work_item(
    rt: &Runtime,
    ctx: &ToolContext,
    args: UpdateWorkItemArgs,
) -> Result<ToolOutput<UpdatedWorkItem>, ToolError> {
    let agent = caller(ctx);
    let mut changed = Vec::new();
    for (name, given) in [
        ("objective", args.objective.is_some()),
        ("plan", args.plan.is_some()),
        ("plan_status", args.plan_status.is_some()),
        ("todo_list", args.todo_list.is_some()),
    ] {
        if given {
            changed.push(name.to_string());
        }
    }
    if changed.is_empty() {
        return Err(errors::error(
            NOTHING_TO_UPDATE,
            "the update names no field to change",
            "pass at least one of objective, plan, plan_status, todo_list",
        ));
    }
    let objective = match &args.objective {
        Some(objective) => Some(errors::non_empty(objective, "objective", "objective")?),
        None => None,
    };
    let now = now_ms();
    let (item, focus) = write(rt.store(), "updating a work item", |tx| {
        turns::for_call(tx, agent, now)?;
        let item = work_items::require_owned(tx, agent, &args.work_item_id, "work_item_id")?;
        if item.state == WorkItemState::Completed {
            return Err(work_items::completed_error(&item, "work_item_id"));
        }
        if let Some(expected) = args.expected_revision
            && i64::try_from(expected).ok() != Some(item.revision)
        {
            return Err(errors::error(
                STALE_REVISION,
                format!(
                    "{} is at revision {}, not {expected}: it changed since you read it",
                    item.id(),
                    item.revision
                ),
                "read it again with GetWorkItem and apply your change to what it is now",
            )
            .with_field("expected_revision"));
        }
        let patch = WorkItemPatch {
            objective,
            plan: args.plan.as_deref(),
            plan_status: args.plan_status,
            todo_list: args.todo_list.as_deref(),
        };
        let item = work_items::update(tx, item.row, &patch, now)?;
        Ok((item, agents::require(tx, agent)?.focus_work_item))
    })?;
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
