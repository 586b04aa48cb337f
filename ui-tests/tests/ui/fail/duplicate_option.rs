use holon_core::prelude::*;

/// Lists nothing.
#[holon_tool(family = CoreAgent, name = "ListNothing", name = "ListNone")]
fn list_nothing() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

/// Lists nothing, twice as safely.
#[holon_tool(family = CoreAgent, annotations(read_only, idempotent, read_only = false))]
fn list_nothing_twice() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

fn main() {}
