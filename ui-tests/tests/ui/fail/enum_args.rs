use holon_core::prelude::*;

/// Arguments of Move.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub enum MoveArgs {
    Up { steps: u32 },
    Down { steps: u32 },
}

/// Moves.
#[holon_tool(family = CoreAgent)]
fn move_cursor(args: MoveArgs) -> Result<(), ToolError> {
    let _ = args;
    Ok(())
}

fn main() {}
