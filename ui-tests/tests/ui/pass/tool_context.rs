use holon_core::prelude::*;

/// Arguments of Echo.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

#[derive(Serialize, JsonSchema)]
pub struct Echoed {
    pub echoed: String,
}

/// Sends the text back.
#[holon_tool(family = CoreAgent)]
fn echo(context: &ToolContext, args: EchoArgs) -> Result<Echoed, ToolError> {
    let _ = context;
    Ok(Echoed { echoed: args.text })
}

/// Same, with the context after the arguments and spelt with its full path.
#[holon_tool(family = CoreAgent)]
fn echo_again(args: EchoArgs, context: &holon_core::ToolContext) -> Result<Echoed, ToolError> {
    let _ = context;
    Ok(Echoed { echoed: args.text })
}

fn main() {
    let registry = holon_core::Registry::global();
    assert!(registry.get("Echo").is_some());
    assert!(registry.get("EchoAgain").is_some());
}
