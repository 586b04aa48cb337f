//! Serves this crate's one tool over MCP: on stdio, or with `--http ADDR` over
//! streamable HTTP (the bearer token from HOLON_MCP_TOKEN, else a generated one),
//! with `--max-connections N`, `--max-sessions N` and `--header-timeout-ms N` in
//! place of the default limits.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use holon_core::Registry;
use holon_mcp::{HttpOptions, HttpServer, McpServer, ServeError, shutdown_signal};
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
    let served = if args.is_empty() {
        holon_mcp::run_stdio(server)
    } else {
        let Some((addr, options)) = http_options(&args) else {
            eprintln!("{USAGE}");
            return ExitCode::FAILURE;
        };
        run_http(addr, server, options)
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("holon-mcp-downstream: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Serves on `addr` until Ctrl-C or SIGTERM, on a runtime of its own, once stderr
/// names the URL (the tests read the port from it) and the token.
fn run_http(addr: SocketAddr, server: McpServer, options: HttpOptions) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(async {
        let http = HttpServer::bind(addr, server, options).await?;
        eprintln!("{}", http.announcement());
        http.with_graceful_shutdown(shutdown_signal()).await
    })
}

/// The address and options of `--http ADDR [FLAG N]...`, or `None` if they are not
/// that.
fn http_options(args: &[String]) -> Option<(SocketAddr, HttpOptions)> {
    let [flag, addr, rest @ ..] = args else {
        return None;
    };
    if flag != "--http" || rest.len() % 2 != 0 {
        return None;
    }
    let addr = addr.parse().ok()?;
    let mut options = HttpOptions::new();
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
    Some((addr, options))
}
