use holon_core::prelude::*;

/// Arguments of Echo.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

pub struct Echoer;

impl Echoer {
    /// Sends the text back.
    #[holon_tool(family = CoreAgent)]
    fn echo(&self, args: EchoArgs) -> Result<String, ToolError> {
        Ok(args.text)
    }
}

fn main() {}
