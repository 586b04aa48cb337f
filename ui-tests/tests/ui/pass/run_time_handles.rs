use holon_core::prelude::*;

#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct WaitArgs {
    pub millis: u64,
}

/// Waits, reporting progress, until cancelled.
#[holon_tool(family = CoreAgent, timeout_ms = 30000)]
async fn wait(cancel: Cancellation, progress: &Progress, args: WaitArgs) -> Result<u64, ToolError> {
    progress.report(0.0, Some(1.0), Some("waiting"));
    cancel.cancelled().await;
    Ok(args.millis)
}

/// Checks its cancellation by reference.
#[holon_tool(family = CoreAgent)]
fn check(cancel: &Cancellation, progress: Progress) -> Result<bool, ToolError> {
    progress.report(1.0, None, None);
    Ok(cancel.is_cancelled())
}

fn main() {}
