use holon_core::prelude::*;

/// Lists the tasks.
#[holon_tool(family = CoreAgent, aliases = ["TaskList", "tasks.list"])]
fn list_tasks() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

fn main() {}
