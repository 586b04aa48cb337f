use holon_core::prelude::*;

/// Lists nothing.
#[holon_tool(family = CoreAgent, name = "list nothing")]
fn list_nothing() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

/// Lists nothing either.
#[holon_tool(family = CoreAgent, name = "9Lives")]
fn nine_lives() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

fn main() {}
