use holon_core::prelude::*;

/// Finds lines.
#[holon_tool(family = CoreAgent, keywords = "grep")]
fn not_an_array() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

/// Finds lines.
#[holon_tool(family = CoreAgent, keywords = [])]
fn empty() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

/// Finds lines.
#[holon_tool(family = CoreAgent, keywords = ["grep", grep])]
fn not_a_string() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

/// Finds lines.
#[holon_tool(family = CoreAgent, keywords = ["grep", "  "])]
fn blank() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

/// Finds lines.
#[holon_tool(family = CoreAgent, keywords = ["grep", " ripgrep"])]
fn padded() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

/// Finds lines.
#[holon_tool(family = CoreAgent, keywords = ["grep", "Grep"])]
fn duplicate() -> Result<Vec<String>, ToolError> {
    Ok(Vec::new())
}

fn main() {}
