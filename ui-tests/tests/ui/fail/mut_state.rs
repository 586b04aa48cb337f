use holon_core::prelude::*;

/// Arguments of Echo.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

pub struct Log {
    pub lines: Vec<String>,
}

/// Appends the text to the log.
#[holon_tool(family = CoreAgent)]
fn append(log: &mut Log, args: EchoArgs) -> Result<usize, ToolError> {
    log.lines.push(args.text);
    Ok(log.lines.len())
}

fn main() {}
