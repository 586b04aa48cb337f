use holon_core::prelude::*;

/// Arguments of Echo.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

pub struct Log;

/// Appends to the log.
#[holon_tool(family = CoreAgent, visibility = hidden)]
fn append<T>(log: &mut Log, args: EchoArgs, extra: T) -> Result<String, ToolError> {
    let _ = (log, extra);
    Ok(args.text)
}

fn main() {}
