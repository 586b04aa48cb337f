use holon_core::prelude::*;

/// Counts slowly.
#[holon_tool(family = CoreAgent, task = always)]
fn count_slowly() -> Result<u32, ToolError> {
    Ok(1)
}

fn main() {}
