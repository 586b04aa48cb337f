use holon_core::prelude::*;

/// Lists nothing.
#[holon_tool(name = "ListNothing")]
fn list_nothing() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

/// Lists nothing either.
#[holon_tool]
fn list_none() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

fn main() {}
