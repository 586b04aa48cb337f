use holon_core::prelude::*;

/// Arguments of Add.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct AddArgs {
    /// The first term.
    pub a: i64,
    /// The second term.
    pub b: i64,
}

#[derive(Serialize, JsonSchema)]
pub struct Sum {
    pub sum: i64,
}

/// Adds two integers.
#[holon_tool(family = CoreAgent)]
fn add(args: AddArgs) -> Result<Sum, ToolError> {
    Ok(Sum {
        sum: args.a + args.b,
    })
}

fn main() {
    let registry = holon_core::Registry::global();
    assert!(registry.get("Add").is_some());
}
