//! One tool served over MCP on stdio, under this package's name:
//! `cargo run -p holon-mcp --example serve_mcp`.
use holon_core::Registry;
use holon_core::prelude::*;

/// Arguments of Add.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct AddArgs {
    /// The first addend.
    pub a: i64,
    /// The second addend.
    pub b: i64,
}

/// Adds two integers.
#[holon_tool(family = CoreAgent)]
fn add(args: AddArgs) -> i64 {
    args.a.saturating_add(args.b)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tools = Registry::of_module(module_path!())?; // this file's tools only
    let server = holon_mcp::McpServer::new(tools, holon_mcp::server_info!());
    holon_mcp::run_stdio(server)?; // until stdin closes, Ctrl-C or SIGTERM
    Ok(())
}
