//! `Sleep`: pause the agent for a bounded time.

use std::time::{Duration, Instant};

use holon_core::prelude::*;

use holon_runtime::Runtime;
use holon_runtime::agency::{caller, now_ms};

/// The pause when `duration_ms` is not given.
pub const DEFAULT_SLEEP_MS: u64 = 1_000;

/// The longest pause one call may ask for (ten minutes).
pub const MAX_SLEEP_MS: u64 = 600_000;

/// Arguments of Sleep.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct SleepArgs {
    /// Why the agent pauses; kept in the execution record for the operator.
    #[serde(default)]
    pub reason: Option<String>,
    /// How long to pause, in milliseconds: 1 to 600,000. Defaults to 1,000.
    #[serde(default)]
    #[schemars(range(min = 1, max = 600_000))]
    pub duration_ms: Option<u64>,
}

/// What Sleep did.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SleepOutcome {
    /// How long the pause really lasted, in milliseconds.
    pub slept_ms: u64,
    /// When the agent woke, in milliseconds since the Unix epoch.
    pub woke_at_unix_ms: u64,
}

/// Pause for `duration_ms` milliseconds (default 1,000, at most 600,000), then return.
///
/// Use it to give a background process time to make progress before checking on it
/// again, or to back off before retrying something that failed for a transient reason.
/// The pause blocks only this call; the result says how long it really lasted. To wait
/// for longer, or across a restart, set a timer (CreateTimer) and WaitFor it.
// Recording the pause is the runtime's bookkeeping, like every execution record: the
// tool changes nothing the caller can see, so it stays read-only.
#[holon_tool(
    family = CoreAgent,
    keywords = ["pause", "delay", "nap", "back off", "do nothing", "seconds"],
    annotations(read_only, idempotent, open_world = false)
)]
async fn sleep(ctx: &ToolContext, args: SleepArgs) -> Result<ToolOutput<SleepOutcome>, ToolError> {
    let requested = args.duration_ms.unwrap_or(DEFAULT_SLEEP_MS);
    // On a runtime the pause is recorded in the store (as a timer of kind `sleep`).
    let record = match ctx.state::<Runtime>() {
        Ok(rt) => Some((
            rt,
            rt.timers()
                .start_sleep(caller(ctx), requested, args.reason.as_deref())?,
        )),
        Err(_) => None,
    };
    let started = Instant::now();
    tokio::time::sleep(Duration::from_millis(requested)).await;
    if let Some((rt, sleep)) = record {
        rt.timers().finish_sleep(sleep)?;
    }
    let slept_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let woke_at_unix_ms = u64::try_from(now_ms()).unwrap_or(0);
    let summary = match &args.reason {
        Some(reason) => format!("slept {slept_ms} ms ({reason})"),
        None => format!("slept {slept_ms} ms"),
    };
    Ok(ToolOutput::new(SleepOutcome {
        slept_ms,
        woke_at_unix_ms,
    })
    .with_summary(summary))
}
