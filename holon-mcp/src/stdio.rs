//! MCP on stdin and stdout.

use std::process::ExitCode;

use rmcp::ServiceExt;
use rmcp::transport::async_rw::AsyncRwTransport;

use crate::listing::ListingTransport;
use crate::server::McpServer;
use crate::signal::shutdown_signal;
use crate::stdio_lines::{DEFAULT_MAX_LINE_BYTES, bounded_stdio};

/// Serves MCP on stdin and stdout until the client closes them or a signal arrives.
/// Problems go to stderr, named by the server's name. A line longer than
/// [`DEFAULT_MAX_LINE_BYTES`] is answered with a JSON-RPC error.
pub async fn serve_stdio(server: McpServer) -> ExitCode {
    serve_stdio_bounded(server, DEFAULT_MAX_LINE_BYTES).await
}

/// [`serve_stdio`] with lines of at most `max_line_bytes` (newline aside); a longer
/// one is dropped and answered with a JSON-RPC error (`-32600`, kind
/// `message_too_long`), and the session goes on.
pub async fn serve_stdio_bounded(server: McpServer, max_line_bytes: usize) -> ExitCode {
    let name = server.info().name().to_string();
    let executions = match server.catalog() {
        Ok(catalog) => catalog.executions(),
        Err(error) => {
            note!("{name}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let (read, write) = tokio::io::split(bounded_stdio(max_line_bytes));
    let stdio = ListingTransport::new(AsyncRwTransport::new_server(read, write), executions);
    let running = match server.serve(stdio).await {
        Ok(running) => running,
        Err(error) => {
            note!("{name}: the MCP client did not connect: {error}");
            return ExitCode::FAILURE;
        }
    };
    tokio::select! {
        finished = running.waiting() => match finished {
            Ok(_) => ExitCode::SUCCESS,
            Err(error) => {
                note!("{name}: the MCP session failed: {error}");
                ExitCode::FAILURE
            }
        },
        () = shutdown_signal() => ExitCode::SUCCESS,
    }
}
