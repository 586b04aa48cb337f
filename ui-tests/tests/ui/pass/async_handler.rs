use holon_core::prelude::*;

/// Arguments of Sleep.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct SleepArgs {
    /// How long to wait, in milliseconds.
    pub duration_ms: u64,
}

#[derive(Serialize, JsonSchema)]
pub struct Slept {
    pub slept_ms: u64,
}

/// Waits, then reports how long it waited.
#[holon_tool(family = CoreAgent)]
async fn sleep(args: SleepArgs) -> Result<Slept, ToolError> {
    std::future::ready(()).await;
    Ok(Slept {
        slept_ms: args.duration_ms,
    })
}

fn main() {
    let registry = holon_core::Registry::global();
    assert!(registry.get("Sleep").is_some());
}
