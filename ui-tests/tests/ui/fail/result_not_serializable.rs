use holon_core::prelude::*;

/// Arguments of Echo.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

/// Neither `Serialize` nor `JsonSchema`.
pub struct Echoed {
    pub text: String,
}

/// Sends the text back.
#[holon_tool(family = CoreAgent)]
fn echo(args: EchoArgs) -> Result<Echoed, ToolError> {
    Ok(Echoed { text: args.text })
}

fn main() {}
