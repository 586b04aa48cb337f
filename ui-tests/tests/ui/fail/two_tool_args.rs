use holon_core::prelude::*;

/// Arguments of Echo.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

/// More arguments.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct RepeatArgs {
    /// How often.
    pub times: u32,
}

/// Sends the text back: two argument types, one by reference.
#[holon_tool(family = CoreAgent)]
fn echo(args: &EchoArgs, repeat: RepeatArgs) -> Result<String, ToolError> {
    Ok(args.text.repeat(repeat.times as usize))
}

fn main() {}
