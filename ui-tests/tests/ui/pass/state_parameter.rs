use std::sync::atomic::{AtomicU64, Ordering};

use holon_core::prelude::*;

/// Any host state: the host puts it into the context with `with_state`.
pub struct Counter {
    pub value: AtomicU64,
}

pub struct Config {
    pub step: u64,
}

/// Arguments of Increment.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct IncrementArgs {
    /// Multiplies the configured step.
    pub times: u64,
}

#[derive(Serialize, JsonSchema)]
pub struct Counted {
    pub value: u64,
}

/// Increments the shared counter.
#[holon_tool(family = CoreAgent)]
fn increment(
    counter: &Counter,
    context: &ToolContext,
    args: IncrementArgs,
    config: &Config,
) -> Result<Counted, ToolError> {
    let _ = context;
    let step = config.step * args.times;
    Ok(Counted {
        value: counter.value.fetch_add(step, Ordering::SeqCst) + step,
    })
}

/// Reads the shared counter; state only, no arguments.
#[holon_tool(family = CoreAgent)]
async fn read_counter(counter: &Counter) -> Result<Counted, ToolError> {
    Ok(Counted {
        value: counter.value.load(Ordering::SeqCst),
    })
}

fn main() {
    let registry = holon_core::Registry::global();
    assert!(registry.get("Increment").is_some());
    assert!(registry.get("ReadCounter").is_some());
}
