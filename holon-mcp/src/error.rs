//! Why a server could not start, or stopped: what the serve calls return, for the
//! host to report (a binary prints it after its own name, as `holon-tools serve` does).

/// Why serving failed. Each message says what failed and how to fix it where the
/// operator can.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// A served tool has no MCP form rmcp takes (see [`McpServer::check`](crate::McpServer::check)).
    #[error("{0}")]
    Tools(String),
    /// The HTTP access settings cannot be used: the token file, the token variable,
    /// `no_auth` off loopback, or the OAuth settings (the message names which).
    #[error("{0}")]
    Access(String),
    /// [`HttpServer::bind`](crate::HttpServer::bind) could not bind its address (in
    /// use, or not this machine's).
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address asked for.
        addr: std::net::SocketAddr,
        /// Why not.
        source: std::io::Error,
    },
    /// The listener handed over has no local address (it is not bound, or closed).
    #[error("cannot read the listener's address: {0}; hand over a bound listener")]
    ListenerAddress(#[source] std::io::Error),
    /// The stdio client closed the streams, or sent something else, before it
    /// initialized the session.
    #[error("the MCP client did not connect: {0}")]
    Connect(#[source] Box<rmcp::service::ServerInitializeError>),
    /// The stdio session's task ended abnormally (it panicked or was cancelled).
    #[error("the MCP session failed: {0}")]
    Session(#[source] tokio::task::JoinError),
    /// [`run_stdio`](crate::run_stdio) could not start its Tokio runtime.
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
}
