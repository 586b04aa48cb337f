use holon_core::prelude::*;

#[derive(Serialize, JsonSchema)]
pub struct Matches {
    pub lines: Vec<String>,
}

/// Finds the lines of the workspace that match a pattern.
#[holon_tool(family = CoreAgent, keywords = ["grep", "search files", "ripgrep"])]
fn find_lines() -> Result<Matches, ToolError> {
    Ok(Matches { lines: Vec::new() })
}

fn main() {
    let registry = holon_core::Registry::global();
    let tool = registry.get("FindLines").expect("FindLines is registered");
    assert_eq!(tool.keywords, ["grep", "search files", "ripgrep"]);
}
