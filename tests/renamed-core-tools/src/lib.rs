//! A tool crate that depends on `holon-core` renamed to `hc`: the code the macros
//! generate must name the crate the way this crate's manifest does.

use hc::prelude::*;

/// Arguments of RenamedDouble.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct DoubleArgs {
    /// The number to double.
    pub value: i64,
}

/// What RenamedDouble returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Doubled {
    /// Twice `value`.
    pub doubled: i64,
}

/// Doubles a number. Declared in a crate that calls holon-core `hc`.
#[holon_tool(family = CoreAgent, name = "RenamedDouble")]
pub fn double(args: DoubleArgs, context: &ToolContext) -> Result<Doubled, ToolError> {
    let _ = context.caller();
    let doubled = args.value.checked_mul(2).ok_or_else(|| {
        ToolError::invalid_input("`value` is too large to double").with_field("value")
    })?;
    Ok(Doubled { doubled })
}
