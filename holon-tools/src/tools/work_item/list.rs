//! `ListWorkItems`.

use holon_core::prelude::*;

use super::view::WorkItemView;
use holon_runtime::Runtime;
use holon_runtime::agency::work_items;
use holon_runtime::agency::{agents, caller, now_ms, turns, write};

/// Work items returned when `limit` is not given.
pub const DEFAULT_LIST_LIMIT: usize = 20;

/// Which work items to list.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ClosedInput,
)]
#[serde(rename_all = "snake_case")]
pub enum ListFilter {
    /// Every item, completed ones too.
    All,
    /// Items not completed yet (`open` or `completing`).
    #[default]
    Open,
    /// Items waiting for their turn's completion report.
    Completing,
    /// Completed items.
    Completed,
    /// Your current focus.
    Current,
    /// Open items never focused on yet.
    Queued,
    /// Open items focused on before, not now.
    Yielded,
    /// Items a wait blocks.
    Blocked,
    /// Items blocked on the operator: a wait for operator input, or a plan that
    /// `needs_input`.
    WaitingForOperator,
    /// Open items nothing blocks: workable now.
    Runnable,
}

impl ListFilter {
    /// The SQL condition of the filter (`?2` is the focus row).
    fn condition(self) -> &'static str {
        match self {
            Self::All => "1 = 1",
            Self::Open => "state <> 'completed'",
            Self::Completing => "state = 'completing'",
            Self::Completed => "state = 'completed'",
            Self::Current => "id = ?2",
            Self::Queued => "state <> 'completed' AND id <> ?2 AND first_picked_at_ms IS NULL",
            Self::Yielded => "state <> 'completed' AND id <> ?2 AND first_picked_at_ms IS NOT NULL",
            Self::Blocked => "state <> 'completed' AND blocker_wait_id IS NOT NULL",
            Self::WaitingForOperator => {
                "state <> 'completed' AND (plan_status = 'needs_input' OR blocker_wait_id IN
                   (SELECT id FROM waits WHERE wake = 'operator_input'))"
            }
            Self::Runnable => {
                "state = 'open' AND blocker_wait_id IS NULL AND plan_status <> 'needs_input'"
            }
        }
    }
}

/// Arguments of ListWorkItems.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ListWorkItemsArgs {
    /// Which items: `open` (the default), `all`, `completing`, `completed`, `current`,
    /// `queued`, `yielded`, `blocked`, `waiting_for_operator` or `runnable`.
    #[serde(default)]
    pub filter: Option<ListFilter>,
    /// Include each item's whole todo list (by default only its counts).
    #[serde(default)]
    pub include_todo_list: bool,
    /// At most this many items, 1 to 100. Defaults to 20.
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
}

/// The work items that matched.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WorkItemListing {
    /// The items, your focus first, then oldest first.
    pub work_items: Vec<WorkItemView>,
    /// How many items match in all (more than listed when `limit` cut the list).
    pub total_matching: i64,
    /// The filter that was applied.
    pub applied_filter: ListFilter,
}

/// List your work items, filtered by where they stand: `open` by default, or `all`,
/// `completing`, `completed`, `current` (your focus), `queued` (never focused),
/// `yielded` (focused before, not now), `blocked`, `waiting_for_operator` or
/// `runnable`. Your focus comes first, then the oldest; `total_matching` tells whether
/// `limit` (1 to 100, default 20) cut the list.
#[holon_tool(family = CoreAgent, annotations(read_only, idempotent, open_world = false))]
fn list_work_items(
    rt: &Runtime,
    ctx: &ToolContext,
    args: ListWorkItemsArgs,
) -> Result<ToolOutput<WorkItemListing>, ToolError> {
    let agent = caller(ctx);
    let filter = args.filter.unwrap_or_default();
    let limit = args.limit.map_or(DEFAULT_LIST_LIMIT, |l| l as usize);
    let (items, total, focus) = write(rt.store(), "listing work items", |tx| {
        turns::for_call(tx, agent, now_ms())?;
        let focus = agents::require(tx, agent)?.focus_work_item;
        let (items, total) = work_items::select(tx, agent, focus, filter.condition(), limit)?;
        Ok((items, total, focus))
    })?;
    let views: Vec<WorkItemView> = items
        .iter()
        .map(|item| WorkItemView::of(item, focus, args.include_todo_list))
        .collect();
    let summary = format!("{} of {total} work item(s)", views.len());
    Ok(ToolOutput::new(WorkItemListing {
        work_items: views,
        total_matching: total,
        applied_filter: filter,
    })
    .with_summary(summary))
}
