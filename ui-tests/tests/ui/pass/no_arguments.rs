use holon_core::prelude::*;

#[derive(Serialize, JsonSchema)]
pub struct Clock {
    pub now_ms: u64,
}

/// Reports the current time. Takes no arguments: its input is `{}`.
#[holon_tool(family = CoreAgent)]
fn get_time() -> Result<Clock, ToolError> {
    Ok(Clock { now_ms: 0 })
}

fn main() {
    let registry = holon_core::Registry::global();
    let tool = registry.get("GetTime").expect("GetTime is registered");
    assert_eq!(tool.spec.input_schema["additionalProperties"], false);
}
