//! `WaitFor`.

use holon_core::prelude::*;

use holon_runtime::Runtime;
use holon_runtime::agency::services::WaitRequest;
use holon_runtime::agency::{Delivery, WaitView};
use holon_runtime::agency::{WakeKind, caller};

/// Arguments of WaitFor.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
#[schemars(extend(
    "if" = { "properties": { "wake": { "enum": ["task_result", "timer"] } }, "required": ["wake"] },
    "then" = { "required": ["resource"], "properties": { "resource": { "type": "string", "minLength": 1 } } }
))]
pub struct WaitForArgs {
    /// Why you wait, in a sentence the operator understands.
    #[schemars(length(min = 1, max = 2000))]
    pub reason: String,
    /// What wakes you: `task_result` (a task ends), `operator_input`, `external` (an
    /// external trigger fires), `timer` or `system`.
    pub wake: WakeKind,
    /// `final`: publish an operator-facing final brief first, and the wait starts when
    /// it arrives. `silent`: no brief; the wait starts at once.
    pub delivery: Delivery,
    /// What you wait for: the task handle for `task_result` (`task-<n>` or
    /// `agent:<id>`) and the timer id for `timer` (both required); optionally a trigger
    /// id for `external`.
    #[serde(default)]
    pub resource: Option<String>,
    /// The work item the wait blocks until it wakes. For `task_result` the wait always
    /// belongs to the work item that owns the task; naming another is refused.
    #[serde(default)]
    pub work_item_id: Option<String>,
    /// Wake anyway after this many milliseconds to check again (1 to 604,800,000).
    #[serde(default)]
    #[schemars(range(min = 1, max = 604_800_000))]
    pub recheck_after_ms: Option<u64>,
}

/// What WaitFor did.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WaitForOutcome {
    /// The wait: `active` once entered, `pending_final` until the final brief.
    pub wait: WaitView,
    /// Whether the wait is entered and the turn closed (always for `silent`; for
    /// `final` only after the brief).
    pub settled: bool,
}

/// Record what you wait for and end your turn. Use it when nothing useful can happen
/// until a task ends, the operator answers, an external trigger or a timer fires: say
/// why (`reason`), what wakes you (`wake`, with the task handle or timer id as
/// `resource`), and whether the operator gets a brief (`delivery`).
///
/// With `delivery = final` the call is deferred: publish your operator-facing final
/// brief as your reply and make no further tool call in this turn (any is refused with
/// `turn_awaiting_final`); the wait starts when the brief arrives. With `silent` the
/// wait starts at once and the turn ends without a brief.
///
/// A wait on a task belongs to the work item that owned the task when it was created,
/// whatever you focus on now. If something changed since you decided to wait (a new
/// message, a wake, the work item, the task already ended), the wait is refused with
/// `stale_wait_settlement`: look at what changed first.
#[holon_tool(
    family = CoreAgent,
    keywords = ["block until", "yield turn", "idle", "await", "resume later", "wait for user"],
    annotations(open_world = false)
)]
fn wait_for(
    rt: &Runtime,
    ctx: &ToolContext,
    args: WaitForArgs,
) -> Result<ToolOutput<WaitForOutcome>, ToolError> {
    let needs_resource = matches!(args.wake, WakeKind::TaskResult | WakeKind::Timer);
    if needs_resource && args.resource.as_deref().is_none_or(|r| r.trim().is_empty()) {
        return Err(ToolError::invalid_input(format!(
            "`resource` is required with wake = {}",
            args.wake.as_str()
        ))
        .with_field("resource")
        .with_hint("pass the task handle (task_result) or the timer id (timer) as `resource`"));
    }
    let request = WaitRequest {
        reason: &args.reason,
        wake: args.wake,
        delivery: args.delivery,
        resource: args.resource.as_deref(),
        work_item_id: args.work_item_id.as_deref(),
        recheck_after_ms: args.recheck_after_ms,
    };
    let report = rt
        .agents()
        .wait_for(caller(ctx), ctx.principal_id(), &request)?;
    let wait_id = report.wait.wait_id.clone();
    let output = WaitForOutcome {
        wait: report.wait,
        settled: report.settled,
    };
    if report.settled {
        return Ok(ToolOutput::new(output).with_summary(format!(
            "waiting ({wait_id}, wake on {}); the turn is over",
            args.wake.as_str()
        )));
    }
    Ok(ToolOutput::new(output)
        .with_summary(format!("{wait_id} waits for the final brief"))
        .deferred(format!(
            "Publish your operator-facing final brief now: reply with it as plain text and make no further tool call in this turn. The runtime enters {wait_id} (wake on {}) when the brief arrives; a tool call before that is refused with turn_awaiting_final.",
            args.wake.as_str()
        )))
}
