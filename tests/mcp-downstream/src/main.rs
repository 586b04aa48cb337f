//! Serves this crate's one tool over MCP: on stdio, or with `--http ADDR` over
//! streamable HTTP (the bearer token from HOLON_MCP_TOKEN, else a generated one).

use std::process::ExitCode;

use holon_core::Registry;
// Links the library, whose tool the registry then finds.
use holon_mcp::{HttpOptions, McpServer};
use holon_mcp_downstream as _;

fn main() -> ExitCode {
    // This crate's tools: the library's module, named like the package.
    let registry = match Registry::of_module("holon_mcp_downstream") {
        Ok(registry) => registry,
        Err(error) => {
            eprintln!("holon-mcp-downstream: {error}");
            return ExitCode::FAILURE;
        }
    };
    let server = McpServer::new(registry, holon_mcp::server_info!());
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => holon_mcp::run_stdio(server),
        [flag, addr] if flag == "--http" => match addr.parse() {
            Ok(addr) => holon_mcp::run_http(server, HttpOptions::new(addr)),
            Err(error) => {
                eprintln!("holon-mcp-downstream: `{addr}` is not an address: {error}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!("usage: holon-mcp-downstream [--http ADDR]");
            ExitCode::FAILURE
        }
    }
}
