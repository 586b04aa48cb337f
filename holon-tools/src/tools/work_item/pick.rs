//! `PickWorkItem`.

use holon_core::prelude::*;

use super::view::WorkItemView;
use holon_runtime::Runtime;
use holon_runtime::agency::work_items::{self, WorkItemState};
use holon_runtime::agency::{WORK_ITEM_BLOCKED, agents, caller, errors, ids, now_ms, turns, write};

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
#[holon_tool(family = CoreAgent, annotations(idempotent, open_world = false))]
fn pick_work_item(
    rt: &Runtime,
    ctx: &ToolContext,
    args: PickWorkItemArgs,
) -> Result<ToolOutput<PickedWorkItem>, ToolError> {
    let agent = caller(ctx);
    // The schema requires the reason already; this holds for hosts that skip it.
    let reason = match (args.clear_blocker, args.reason.as_deref()) {
        (true, Some(reason)) => Some(errors::non_empty(reason, "reason", "reason")?),
        (true, None) => Some(errors::non_empty("", "reason", "reason")?),
        (false, _) => None,
    };
    let now = now_ms();
    let (item, previous, cleared) = write(rt.store(), "picking a work item", |tx| {
        turns::for_call(tx, agent, now)?;
        let item = work_items::require_owned(tx, agent, &args.work_item_id, "work_item_id")?;
        if item.state == WorkItemState::Completed {
            return Err(work_items::completed_error(&item, "work_item_id"));
        }
        let mut cleared = None;
        if let Some(wait) = item.blocker_wait {
            let Some(reason) = reason else {
                return Err(errors::error(
                    WORK_ITEM_BLOCKED,
                    format!(
                        "{} is blocked: {}",
                        item.id(),
                        item.blocker_reason.as_deref().unwrap_or("a wait holds it")
                    ),
                    "wait for the wake, or pass clear_blocker: true with a reason to cancel the wait",
                )
                .with_field("work_item_id"));
            };
            tx.execute(
                "UPDATE waits SET state = 'cancelled', resolved_at_ms = ?2,
                        reason = reason || ' [cleared: ' || ?3 || ']'
                 WHERE id = ?1 AND state = 'active'",
                rusqlite::params![wait, now, reason],
            )
            .map_err(errors::store("cancelling a wait"))?;
            work_items::clear_blocker(tx, item.row, now)?;
            agents::refresh_lifecycle(tx, agent)?;
            cleared = Some(ClearedBlocker {
                wait_id: ids::format(ids::WAIT, wait),
                blocked_on: item.blocker_reason.clone().unwrap_or_default(),
                cleared_because: reason.to_string(),
            });
        }
        let previous = agents::require(tx, agent)?.focus_work_item;
        agents::set_focus(tx, agent, Some(item.row))?;
        work_items::mark_picked(tx, item.row, now)?;
        let item = work_items::load(tx, item.row)?.unwrap_or(item);
        Ok((item, previous, cleared))
    })?;
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
