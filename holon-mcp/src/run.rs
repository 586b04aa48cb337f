//! The servers for a `fn main` without an async runtime of its own: each starts
//! Tokio's multi-threaded runtime and serves on it.

use std::process::ExitCode;

use crate::http::{HttpOptions, serve_http};
use crate::server::McpServer;
use crate::stdio::serve_stdio;

/// [`serve_stdio`] on a Tokio runtime of its own.
pub fn run_stdio(server: McpServer) -> ExitCode {
    let name = server.info().name().to_string();
    match tokio_runtime() {
        Ok(runtime) => runtime.block_on(serve_stdio(server)),
        Err(error) => {
            note!("{name}: cannot start the async runtime: {error}");
            ExitCode::FAILURE
        }
    }
}

/// [`serve_http`] on a Tokio runtime of its own.
pub fn run_http(server: McpServer, options: HttpOptions) -> ExitCode {
    let name = server.info().name().to_string();
    match tokio_runtime() {
        Ok(runtime) => runtime.block_on(serve_http(server, options)),
        Err(error) => {
            note!("{name}: cannot start the async runtime: {error}");
            ExitCode::FAILURE
        }
    }
}

fn tokio_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
}
