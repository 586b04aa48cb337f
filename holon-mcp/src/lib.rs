//! # holon-mcp
//!
//! Serves a holon tool [`Registry`](holon_core::Registry) over MCP (Model Context
//! Protocol), on stdio or streamable HTTP, under the host's own name: any tool crate's
//! tools, without the built-in runtime.
//!
//! ```no_run
//! use holon_core::prelude::*;
//! use holon_core::Registry;
//!
//! /// Says hello.
//! #[holon_tool(family = CoreAgent)]
//! fn hello() -> String {
//!     "hello".to_string()
//! }
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let registry = Registry::of_module(module_path!())?;
//!     let server = holon_mcp::McpServer::new(registry, holon_mcp::server_info!());
//!     Ok(holon_mcp::run_stdio(server)?)
//! }
//! ```
//!
//! Inside an async runtime, a host serves as with `axum::serve`: it binds the
//! listener (or hands over the streams), awaits the server, and reports what it
//! returns; the library prints nothing. `HttpServer` (feature `http`, off by default:
//! a stdio server builds no HTTP stack) and [`StdioServer`] show how.
//!
//! `tools/list` is the registry's MCP export under the context's family policy;
//! `tools/call` goes through the registry's dispatcher. Each call's context carries
//! what the transport knows (see [`holon_core::RequestMeta`] and its siblings).

mod approval;
#[cfg(feature = "http")]
pub mod auth;
mod client;
mod content;
mod context;
mod error;
mod extras;
#[cfg(feature = "http")]
mod http;
mod info;
pub mod keyring;
mod listing;
mod param_headers;
#[cfg(feature = "postgres")]
mod postgres;
mod progress;
mod rounds;
mod server;
mod shutdown;
#[cfg(feature = "sqlite")]
mod sqlite;
mod stdio;
mod stores;
pub mod tasks;
mod telemetry;

#[cfg(feature = "http")]
pub use auth::ScopeMap;
#[cfg(feature = "oauth")]
pub use auth::{KeySource, OAuthConfig};
#[cfg(feature = "http")]
pub use error::AccessError;
pub use error::{AllowedHostError, CatalogError, ConfigError, OriginError, ServeError};
#[cfg(feature = "http")]
/// Who may talk to the HTTP server: the bearer token, allowed origins and hosts.
#[cfg(feature = "http")]
pub use http::guard as http_guard;
#[cfg(feature = "http")]
pub use http::limits::HttpLimits;
#[cfg(feature = "http")]
pub use http::{DEFAULT_SSE_KEEP_ALIVE, HTTP_PATH, HttpOptions, HttpServer};
pub use info::ServerInfo;
pub use keyring::{Keyring, KeyringError};
pub use rmcp;
pub use server::{ListCaching, McpServer, ServedRegistry};
pub use shutdown::{ServeFuture, WithGracefulShutdown, shutdown_signal};
pub use stdio::lines::DEFAULT_MAX_LINE_BYTES;
pub use stdio::{StdioServer, run_stdio};
pub use stores::{STORE_URL_ENV, StoreUrl, StoreUrlError, Stores, StoresError};

/// The environment variable [`HttpServer`] takes the bearer token from when no token
/// file is given.
#[cfg(feature = "http")]
pub const TOKEN_ENV: &str = "HOLON_MCP_TOKEN";

/// The [`ServerInfo`] of the crate that calls it: its package's name and version
/// (`CARGO_PKG_NAME`, `CARGO_PKG_VERSION`), and its description when it has one.
#[macro_export]
macro_rules! server_info {
    () => {
        $crate::ServerInfo::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
            .with_description_if_any(env!("CARGO_PKG_DESCRIPTION"))
    };
}
