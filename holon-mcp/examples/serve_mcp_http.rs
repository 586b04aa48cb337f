//! One tool served over streamable HTTP with a bearer token, under this package's
//! name: `cargo run -p holon-mcp --example serve_mcp_http` serves it at
//! `http://127.0.0.1:8080/mcp` and prints the URL and the token on stderr.
use holon_core::Registry;
use holon_core::prelude::*;
use holon_mcp::{HttpOptions, HttpServer, McpServer, shutdown_signal};

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

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tools = Registry::of_module(module_path!())?; // this file's tools only
    let server = McpServer::new(tools, holon_mcp::server_info!());
    // The token of HOLON_MCP_TOKEN, else one generated now: the announcement shows it.
    let http = HttpServer::bind("127.0.0.1:8080".parse()?, server, HttpOptions::new()).await?;
    eprintln!("{}", http.announcement());
    http.with_graceful_shutdown(shutdown_signal()).await?;
    Ok(())
}
