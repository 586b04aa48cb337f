//! `CreateTimer` and `CancelTimer`: durable timers an agent can wait for.

use holon_core::prelude::*;

use holon_runtime::Runtime;
use holon_runtime::agency::TimerRecord;
use holon_runtime::agency::caller;

/// The longest delay of a timer (30 days).
pub const MAX_TIMER_DELAY_MS: u64 = 2_592_000_000;

/// Arguments of CreateTimer.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct CreateTimerArgs {
    /// When the timer fires, in milliseconds from now: 1 to 2,592,000,000 (30 days).
    #[schemars(range(min = 1, max = 2_592_000_000u64))]
    pub delay_ms: u64,
    /// What the timer is for; it comes back with the wake.
    #[serde(default)]
    #[schemars(length(max = 2000))]
    pub reason: Option<String>,
}

/// The timer a call created or cancelled.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TimerOutcome {
    /// The timer.
    pub timer: TimerRecord,
    /// How many waits wait for it.
    pub waiter_count: i64,
}

/// Set a durable timer that fires once, `delay_ms` from now. It survives restarts of
/// the runtime. To sleep until it fires, call WaitFor with `wake = timer` and the
/// returned `timer_id` as `resource`; when it fires, that wait wakes. Cancel it with
/// CancelTimer.
#[holon_tool(
    family = CoreAgent,
    keywords = ["reminder", "alarm", "schedule", "cron", "wake up later", "countdown"],
    annotations(open_world = false)
)]
fn create_timer(
    rt: &Runtime,
    ctx: &ToolContext,
    args: CreateTimerArgs,
) -> Result<ToolOutput<TimerOutcome>, ToolError> {
    let timer = rt
        .timers()
        .create(caller(ctx), args.delay_ms, args.reason.as_deref())?;
    let summary = format!("{} fires in {} ms", timer.timer_id, args.delay_ms);
    Ok(ToolOutput::new(TimerOutcome {
        timer,
        waiter_count: 0,
    })
    .with_summary(summary))
}

/// Arguments of CancelTimer.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct CancelTimerArgs {
    /// The timer to cancel, such as `timer-2`.
    #[schemars(length(min = 1))]
    pub timer_id: String,
}

/// Cancel one of your timers before it fires. A cancelled timer never fires and never
/// wakes a wait; a wait on it stays until something else wakes it (its recheck, or
/// PickWorkItem with `clear_blocker`). Cancelling a timer that already fired or was
/// cancelled changes nothing; the result says its state.
#[holon_tool(
    family = CoreAgent,
    keywords = ["delete reminder", "remove alarm", "unschedule", "stop countdown"],
    annotations(idempotent, open_world = false)
)]
fn cancel_timer(
    rt: &Runtime,
    ctx: &ToolContext,
    args: CancelTimerArgs,
) -> Result<ToolOutput<TimerOutcome>, ToolError> {
    let (timer, waiters) = rt.timers().cancel(caller(ctx), &args.timer_id)?;
    let summary = format!("{} is {}", timer.timer_id, timer.state);
    Ok(ToolOutput::new(TimerOutcome {
        timer,
        waiter_count: waiters,
    })
    .with_summary(summary))
}
