use holon_core::prelude::*;
use holon_core::ToolContext as Ctx;

/// Arguments of Echo.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

/// Sends the text back; the arguments by reference, the context renamed.
#[holon_tool(family = CoreAgent)]
fn echo(context: &Ctx, args: &EchoArgs) -> Result<String, ToolError> {
    let _ = context.caller();
    Ok(args.text.clone())
}

/// The same, async.
#[holon_tool(family = CoreAgent)]
async fn echo_later(args: &EchoArgs) -> String {
    args.text.clone()
}

fn main() {}
