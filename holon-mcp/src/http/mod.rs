//! MCP over streamable HTTP, served by hyper: every request needs the bearer token
//! and may not come from a foreign browser origin (see [`guard`]).

pub mod guard;
pub(crate) mod limits;
pub(crate) mod listing_sessions;
pub(crate) mod plain;
mod server;
pub(crate) mod session_close;

pub use server::{DEFAULT_SSE_KEEP_ALIVE, HTTP_PATH, HttpOptions, HttpServer};
