//! `ListWorkItems`.

use holon_core::prelude::*;

use super::view::WorkItemView;
use holon_runtime::Runtime;
use holon_runtime::agency::caller;
pub use holon_runtime::agency::services::ListFilter;

/// Work items returned when `limit` is not given.
pub const DEFAULT_LIST_LIMIT: usize = 20;

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
#[holon_tool(
    family = CoreAgent,
    keywords = ["backlog", "my tasks", "tickets", "pending work", "todo"],
    annotations(read_only, idempotent, open_world = false)
)]
fn list_work_items(
    rt: &Runtime,
    ctx: &ToolContext,
    args: ListWorkItemsArgs,
) -> Result<ToolOutput<WorkItemListing>, ToolError> {
    let filter = args.filter.unwrap_or_default();
    let limit = args.limit.map_or(DEFAULT_LIST_LIMIT, |l| l as usize);
    let listing = rt.work_items().list(caller(ctx), filter, limit)?;
    let (items, total, focus) = (listing.items, listing.total, listing.focus);
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
