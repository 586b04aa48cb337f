use holon_core::prelude::*;

/// Never waits.
#[holon_tool(family = CoreAgent, timeout_ms = 0)]
fn zero_limit() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

/// Waits less than nothing.
#[holon_tool(family = CoreAgent, timeout_ms = -5)]
fn negative_limit() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

/// Waits for words.
#[holon_tool(family = CoreAgent, timeout_ms = "30s")]
fn string_limit() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

/// Waits a fraction.
#[holon_tool(family = CoreAgent, timeout_ms = 1.5)]
fn float_limit() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

fn main() {}
