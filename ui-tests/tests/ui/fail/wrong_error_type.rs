use holon_core::prelude::*;

/// Arguments of Echo.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

/// Reads the file named by the text.
#[holon_tool(family = LocalEnvironment)]
fn echo(args: EchoArgs) -> Result<String, std::io::Error> {
    std::fs::read_to_string(args.text)
}

fn main() {}
