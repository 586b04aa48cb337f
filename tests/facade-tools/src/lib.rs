//! A tool crate without a `holon-core` dependency: it reaches the framework through
//! `holon_facade`, and says so with `crate = ...` on both macros.

use holon_facade::core::prelude::*;

/// Arguments of FacadeGreet.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
#[tool_args(crate = "holon_facade::core")]
pub struct GreetArgs {
    /// Who to greet.
    pub name: String,
}

/// What FacadeGreet returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Greeting {
    /// The greeting.
    pub text: String,
}

/// Greets someone. Declared in a crate that reaches holon-core through a facade.
#[holon_tool(crate = holon_facade::core, family = CoreAgent, name = "FacadeGreet")]
pub fn greet(args: GreetArgs) -> Greeting {
    Greeting {
        text: format!("hello, {}", args.name),
    }
}
