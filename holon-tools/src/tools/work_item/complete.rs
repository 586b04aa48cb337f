//! `CompleteWorkItem`.

use holon_core::prelude::*;

use super::view::WorkItemView;
use holon_runtime::Runtime;
use holon_runtime::agency::work_items::{self, TodoState, WorkItemState};
use holon_runtime::agency::{
    UNFINISHED_TODO_ITEMS, WORK_ITEM_BLOCKED, agents, caller, errors, now_ms, turns, write,
};

/// Arguments of CompleteWorkItem.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct CompleteWorkItemArgs {
    /// The work item that is done, such as `wi-3`.
    #[schemars(length(min = 1))]
    pub work_item_id: String,
}

/// What CompleteWorkItem did.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CompletedWorkItem {
    /// The work item: `completed`, or `completing` until the report arrives.
    pub work_item: WorkItemView,
    /// The turn whose completion report completes it, `turn-<n>`.
    pub report_turn_id: String,
}

/// Mark one of your work items done. Completion needs an operator-facing completion
/// report from this same turn. When the turn already has one, the item completes now;
/// otherwise the call is deferred: the item is `completing`, and it completes when the
/// report arrives, so write the report (what was done, what is left, anything the
/// operator must know) in your reply.
///
/// Every todo entry must be completed first, and a blocked item must be unblocked
/// (PickWorkItem with `clear_blocker`). A completed item leaves your focus.
#[holon_tool(family = CoreAgent, annotations(open_world = false))]
fn complete_work_item(
    rt: &Runtime,
    ctx: &ToolContext,
    args: CompleteWorkItemArgs,
) -> Result<ToolOutput<CompletedWorkItem>, ToolError> {
    let agent = caller(ctx);
    let now = now_ms();
    let (item, turn, focus) = write(rt.store(), "completing a work item", |tx| {
        let turn = turns::for_call(tx, agent, now)?;
        let item = work_items::require_owned(tx, agent, &args.work_item_id, "work_item_id")?;
        if item.state == WorkItemState::Completed {
            return Err(work_items::completed_error(&item, "work_item_id"));
        }
        let open = item
            .todo_list
            .iter()
            .filter(|todo| todo.state != TodoState::Completed)
            .count();
        if open > 0 {
            return Err(errors::error(
                UNFINISHED_TODO_ITEMS,
                format!("{} still has {open} todo entr{} not completed", item.id(), if open == 1 { "y" } else { "ies" }),
                "finish them and mark them completed with UpdateWorkItem, or drop those that no longer apply",
            )
            .with_field("work_item_id"));
        }
        if item.blocker_wait.is_some() {
            return Err(errors::error(
                WORK_ITEM_BLOCKED,
                format!("{} is blocked by a wait and cannot complete", item.id()),
                "clear the blocker with PickWorkItem (clear_blocker: true, with a reason) first",
            )
            .with_field("work_item_id"));
        }
        let item = match &turn.completion_report {
            Some(report) => {
                agents::clear_focus_on(tx, item.row)?;
                work_items::complete(tx, item.row, report, now)?
            }
            None => work_items::begin_completion(tx, item.row, turn.row, now)?,
        };
        Ok((item, turn, agents::require(tx, agent)?.focus_work_item))
    })?;
    let view = WorkItemView::of(&item, focus, false);
    let id = view.work_item_id.clone();
    let output = CompletedWorkItem {
        work_item: view,
        report_turn_id: turn.id(),
    };
    if item.state == WorkItemState::Completed {
        return Ok(ToolOutput::new(output).with_summary(format!("completed {id}")));
    }
    let directive = format!(
        "{id} completes when {} supplies its operator-facing completion report; the runtime waits for that report. Write it in your reply: what was done, what is left, what the operator must know.",
        turn.id()
    );
    Ok(ToolOutput::new(output)
        .with_summary(format!(
            "{id} is completing: waiting for the completion report"
        ))
        .deferred(directive))
}
