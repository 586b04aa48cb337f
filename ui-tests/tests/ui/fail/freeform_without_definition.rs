use holon_core::prelude::*;

/// Arguments of Echo.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

impl FromFreeform for EchoArgs {
    fn from_freeform(text: String) -> Result<Self, ToolError> {
        Ok(Self { text })
    }
}

/// Sends the text back.
#[holon_tool(family = CoreAgent, freeform(syntax = "lark"))]
fn echo(args: EchoArgs) -> Result<String, ToolError> {
    Ok(args.text)
}

fn main() {}
