use holon_core::prelude::*;

/// Lists nothing.
#[holon_tool(family = CoreAgent, timeout_ms = 500)]
fn list_nothing() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

fn main() {}
