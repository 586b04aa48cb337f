use holon_core::prelude::*;

/// Lists nothing.
#[holon_tool(family = Filesystem, name = "list nothing", retries = 3, stability = beta)]
fn list_nothing() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

fn main() {}
