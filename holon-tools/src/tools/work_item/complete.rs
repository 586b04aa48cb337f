//! `CompleteWorkItem`.

use holon_core::prelude::*;

use super::view::WorkItemView;
use holon_runtime::Runtime;
use holon_runtime::agency::WorkItemState;
use holon_runtime::agency::caller;
use holon_runtime::agency::services::Completion;

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
#[holon_tool(
    family = CoreAgent,
    keywords = ["done", "finish", "close ticket", "resolve", "wrap up"],
    annotations(open_world = false)
)]
fn complete_work_item(
    rt: &Runtime,
    ctx: &ToolContext,
    args: CompleteWorkItemArgs,
) -> Result<ToolOutput<CompletedWorkItem>, ToolError> {
    let Completion { item, turn, focus } =
        rt.work_items().complete(caller(ctx), &args.work_item_id)?;
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
