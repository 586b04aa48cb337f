use holon_core::prelude::*;

/// Arguments of Echo.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

/// Only `Serialize`.
#[derive(Serialize)]
pub struct Echoed {
    pub echoed: String,
}

/// Sends the text back.
#[holon_tool(family = CoreAgent)]
fn echo(args: EchoArgs) -> ToolOutput<Echoed> {
    ToolOutput::new(Echoed { echoed: args.text })
}

fn main() {}
