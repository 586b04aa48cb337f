use holon_core::prelude::*;

/// Sends the arguments back.
#[holon_tool(family = CoreAgent)]
fn echo<T: ToolArgs + Serialize>(args: T) -> Result<T, ToolError> {
    Ok(args)
}

fn main() {}
