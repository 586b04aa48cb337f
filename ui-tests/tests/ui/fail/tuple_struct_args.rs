use holon_core::prelude::*;

/// Arguments of Echo.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs(pub String);

/// Sends the text back.
#[holon_tool(family = CoreAgent)]
fn echo(args: EchoArgs) -> Result<String, ToolError> {
    Ok(args.0)
}

fn main() {}
