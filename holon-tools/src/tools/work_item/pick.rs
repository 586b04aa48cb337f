//! `PickWorkItem`.

use holon_core::prelude::*;

use super::view::WorkItemView;
use holon_runtime::Runtime;
use holon_runtime::agency::services::{Actor, Picked};
use holon_runtime::agency::{caller, ids};

/// Arguments of PickWorkItem.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
#[schemars(extend(
    "if" = { "properties": { "clear_blocker": { "const": true } }, "required": ["clear_blocker"] },
    "then" = { "required": ["reason"], "properties": { "reason": { "type": "string", "minLength": 1 } } }
))]
pub struct PickWorkItemArgs {
    /// The work item to focus on, such as `wi-3`.
    #[schemars(length(min = 1))]
    pub work_item_id: String,
    /// Also remove the item's blocker: its wait is cancelled and will not wake you.
    /// Requires `reason`.
    #[serde(default)]
    pub clear_blocker: bool,
    /// Why the blocker no longer applies (required with `clear_blocker`); kept with the
    /// cancelled wait for the operator.
    #[serde(default)]
    pub reason: Option<String>,
}

/// A blocker PickWorkItem removed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ClearedBlocker {
    /// The cancelled wait, `wait-<n>`.
    pub wait_id: String,
    /// What the item was blocked on.
    pub blocked_on: String,
    /// Why it was cleared.
    pub cleared_because: String,
}

/// What PickWorkItem did.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PickedWorkItem {
    /// The work item now in focus.
    pub work_item: WorkItemView,
    /// The item in focus before, if another.
    pub previous_focus_id: Option<String>,
    /// The blocker removed, with `clear_blocker`.
    pub blocker_cleared: Option<ClearedBlocker>,
}

/// Make one of your open work items your focus: the item you work on now, shown as
/// `focused`. Switching focus moves nothing else: background tasks and waits stay with
/// the work item that owned them.
///
/// A blocked item (one a wait holds) can only be picked with `clear_blocker: true` and
/// a `reason`; its wait is then cancelled.
#[holon_tool(
    family = CoreAgent,
    keywords = ["focus", "switch task", "current task", "resume", "work on next"],
    annotations(idempotent, open_world = false)
)]
fn pick_work_item(
    rt: &Runtime,
    ctx: &ToolContext,
    args: PickWorkItemArgs,
) -> Result<ToolOutput<PickedWorkItem>, ToolError> {
    // The schema requires the reason already; an absent one is refused as empty
    // for hosts that skip the schema.
    let clear = args
        .clear_blocker
        .then(|| args.reason.as_deref().unwrap_or_default());
    let Picked {
        item,
        previous_focus: previous,
        cleared,
    } = rt
        .work_items()
        .pick(Actor::Agent(caller(ctx)), &args.work_item_id, clear)?;
    let cleared = cleared.map(|cleared| ClearedBlocker {
        wait_id: ids::format(ids::WAIT, cleared.wait),
        blocked_on: cleared.blocked_on,
        cleared_because: cleared.reason,
    });
    let view = WorkItemView::of(&item, Some(item.row), false);
    let summary = match &cleared {
        Some(cleared) => format!(
            "focused on {} (cleared {})",
            view.work_item_id, cleared.wait_id
        ),
        None => format!("focused on {}", view.work_item_id),
    };
    Ok(ToolOutput::new(PickedWorkItem {
        work_item: view,
        previous_focus_id: previous
            .filter(|row| *row != item.row)
            .map(|row| ids::format(ids::WORK_ITEM, row)),
        blocker_cleared: cleared,
    })
    .with_summary(summary))
}
