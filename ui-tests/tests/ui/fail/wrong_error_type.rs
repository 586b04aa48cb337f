use holon_core::prelude::*;

/// Arguments of Echo.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

/// Parses the text as a number; `ParseIntError` does not convert into `ToolError`.
#[holon_tool(family = LocalEnvironment)]
fn echo(args: EchoArgs) -> Result<String, std::num::ParseIntError> {
    args.text.parse::<u32>().map(|n| n.to_string())
}

fn main() {}
