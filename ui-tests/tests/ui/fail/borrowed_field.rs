use holon_core::prelude::*;

/// Arguments of Greet.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct GreetArgs<'a> {
    /// Who to greet.
    pub name: &'a str,
}

/// Greets someone by name.
#[holon_tool(family = CoreAgent)]
fn greet(args: GreetArgs<'static>) -> String {
    format!("hello, {}", args.name)
}

fn main() {}
