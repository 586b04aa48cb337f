use holon_core::prelude::*;

// A plain comment is not a description.
#[holon_tool(family = CoreAgent)]
fn list_nothing() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

fn main() {}
