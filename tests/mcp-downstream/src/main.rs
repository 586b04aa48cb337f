//! Serves this crate's one tool over MCP: on stdio, or with `--http ADDR` over
//! streamable HTTP (the bearer token from HOLON_MCP_TOKEN, else a generated one),
//! with `--max-connections N`, `--max-sessions N` and `--header-timeout-ms N` in
//! place of the default limits.

use std::process::ExitCode;
use std::time::Duration;

use holon_core::Registry;
use holon_mcp::{HttpOptions, McpServer};
// Links the library, whose tool the registry then finds.
use holon_mcp_downstream as _;

const USAGE: &str = "usage: holon-mcp-downstream [--http ADDR [--max-connections N] \
[--max-sessions N] [--header-timeout-ms N]]";

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
    if args.is_empty() {
        return holon_mcp::run_stdio(server);
    }
    match http_options(&args) {
        Some(options) => holon_mcp::run_http(server, options),
        None => {
            eprintln!("{USAGE}");
            ExitCode::FAILURE
        }
    }
}

/// The options of `--http ADDR [FLAG N]...`, or `None` if they are not that.
fn http_options(args: &[String]) -> Option<HttpOptions> {
    let [flag, addr, rest @ ..] = args else {
        return None;
    };
    if flag != "--http" || rest.len() % 2 != 0 {
        return None;
    }
    let mut options = HttpOptions::new(addr.parse().ok()?);
    for pair in rest.chunks(2) {
        let number: u64 = pair[1].parse().ok()?;
        let limits = &mut options.limits;
        match pair[0].as_str() {
            "--max-connections" => limits.max_connections = usize::try_from(number).ok()?,
            "--max-sessions" => limits.max_sessions = usize::try_from(number).ok()?,
            "--header-timeout-ms" => limits.header_read_timeout = Duration::from_millis(number),
            _ => return None,
        }
    }
    Some(options)
}
