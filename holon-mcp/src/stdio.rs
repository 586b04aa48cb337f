//! MCP on stdin and stdout.

use std::process::ExitCode;

use rmcp::ServiceExt;

use crate::server::McpServer;
use crate::signal::shutdown_signal;

/// Serves MCP on stdin and stdout until the client closes them or a signal arrives.
/// Problems go to stderr, named by the server's name.
pub async fn serve_stdio(server: McpServer) -> ExitCode {
    let name = server.info().name().to_string();
    if let Err(error) = server.check() {
        note!("{name}: {error}");
        return ExitCode::FAILURE;
    }
    let running = match server.serve(rmcp::transport::stdio()).await {
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
