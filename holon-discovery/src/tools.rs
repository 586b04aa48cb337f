//! The two meta-tools.

use crate::Discovery;
use holon_core::prelude::*;
use serde_json::Value;

/// The most tools one search returns.
pub const MAX_LIMIT: u32 = 50;
/// How many tools a search returns when the call does not say.
pub const DEFAULT_LIMIT: u32 = 8;

/// Arguments of SearchTools.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct SearchToolsArgs {
    /// What you want to do, in a few words ("resize an image", "send an invoice"), or
    /// a tool's name if you know it.
    #[schemars(length(min = 1, max = 1000))]
    pub query: String,
    /// How many tools to return, best first (default 8).
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<u32>,
}

/// One tool a search found.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FoundTool {
    /// The tool's name: call it by this name, or pass it to DescribeTool.
    pub name: String,
    /// What the tool does, in one sentence.
    pub summary: String,
    /// How well it matches the query; higher is better, comparable within one search.
    pub score: f32,
}

/// What SearchTools found.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchToolsResult {
    /// The tools that match best, best first; empty when nothing matches.
    pub tools: Vec<FoundTool>,
}

/// Find the tools that can do something: give what you want to do in a few words, get the names of the best matching tools with a one-line summary each, best first. Call DescribeTool with a name to see that tool's full definition (its arguments) before you call it.
#[holon_tool(family = CoreAgent, annotations(read_only, idempotent))]
pub fn search_tools(
    discovery: &Discovery,
    context: &ToolContext,
    args: SearchToolsArgs,
) -> SearchToolsResult {
    let limit = args.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT) as usize;
    let tools = discovery
        .search(context, &args.query, limit)
        .into_iter()
        .map(|hit| FoundTool {
            name: hit.name.to_string(),
            summary: hit.summary,
            // Three decimals say all a ranking needs and keep the result short.
            score: (hit.score * 1000.0).round() / 1000.0,
        })
        .collect();
    SearchToolsResult { tools }
}

/// Arguments of DescribeTool.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct DescribeToolArgs {
    /// The tool's name, as SearchTools returned it.
    #[schemars(length(min = 1, max = 128))]
    pub name: String,
}

/// One tool's full definition.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DescribedTool {
    /// The tool's name.
    pub name: String,
    /// The model API the definition is written for (`openai-chat`, `anthropic`, ...).
    pub provider: String,
    /// The tool exactly as that API takes it in its list of tools: name, description
    /// and the schema of its arguments.
    pub definition: Value,
}

/// Get the full definition of one tool by its name: its description and the schema of its arguments, in the same form as the tools you were given. Use it after SearchTools, before you call a tool you have not used yet.
#[holon_tool(family = CoreAgent, annotations(read_only, idempotent))]
pub fn describe_tool(
    discovery: &Discovery,
    context: &ToolContext,
    args: DescribeToolArgs,
) -> Result<DescribedTool, ToolError> {
    let tool = discovery.describe(context, &args.name)?;
    Ok(DescribedTool {
        name: tool.name.to_string(),
        provider: discovery.provider().as_str().to_string(),
        definition: tool.wire,
    })
}
