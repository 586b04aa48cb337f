use holon_core::prelude::*;

/// Arguments of Echo.
#[derive(Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    pub text: String,
}

#[derive(Serialize, JsonSchema)]
pub struct Echoed {
    pub text: String,
}

/// Sends the text back.
#[holon_tool(family = CoreAgent, example_file = "tests/ui/fail/no_such_examples.json")]
fn echo(args: EchoArgs) -> Echoed {
    Echoed { text: args.text }
}

fn main() {}
