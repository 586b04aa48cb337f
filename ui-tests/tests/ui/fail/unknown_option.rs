use holon_core::prelude::*;

/// Lists nothing.
#[holon_tool(family = CoreAgent, retries = 3)]
fn list_nothing() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

fn main() {}
