//! Why a server could not start, or stopped: what the serve calls return, for the
//! host to report (a binary prints it after its own name, as `holon-tools serve` does).

/// An OAuth or scope setting a server cannot be built with: which one, what is wrong
/// with it, and what it should be. Its messages are the ones `holon-tools serve` prints
/// for its `--oauth-*` flags.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A URL setting that does not parse: `what` names it (the JWKS URL, the issuer,
    /// the resource URL, the authorization server).
    #[cfg(feature = "oauth")]
    #[error("the {what} `{value}` is not a URL: {source}")]
    NotAUrl {
        /// Which setting.
        what: &'static str,
        /// Its value.
        value: String,
        /// Why it does not parse.
        source: url::ParseError,
    },
    /// A JWKS URL that is plain HTTP off loopback.
    #[cfg(feature = "oauth")]
    #[error(
        "the JWKS URL `{0}` must be https:// (plain http:// only on a loopback host): \
         keys fetched in clear text could be swapped on the way"
    )]
    InsecureJwksUrl(String),
    /// A resource URL that is not http(s), or has no host.
    #[cfg(feature = "oauth")]
    #[error(
        "the resource URL `{0}` must be an http(s) URL with a host, e.g. https://mcp.example.com/mcp"
    )]
    ResourceNotHttp(String),
    /// A resource URL with a query or a fragment.
    #[cfg(feature = "oauth")]
    #[error("the resource URL `{0}` cannot have a query or fragment (RFC 8707)")]
    ResourceQueryOrFragment(String),
    /// An empty list of authorization servers.
    #[cfg(feature = "oauth")]
    #[error("name at least one authorization server")]
    NoAuthorizationServer,
    /// A signing algorithm tokens may not be pinned to (HS*, `none`, or unknown).
    #[cfg(feature = "oauth")]
    #[error(
        "`{0}` is not an algorithm a token may be pinned to; choose among {list}",
        list = crate::auth::ASYMMETRIC_ALGORITHMS.join(", ")
    )]
    UnknownAlgorithm(String),
    /// An empty list of signing algorithms.
    #[cfg(feature = "oauth")]
    #[error("name at least one signing algorithm")]
    NoAlgorithm,
    /// An empty scope.
    #[error("a scope cannot be empty")]
    EmptyScope,
    /// A scope with a character an RFC 6749 scope token cannot have.
    #[error(
        "the scope `{scope}` has the character {character:?}, which an OAuth scope cannot have \
         (printable ASCII only, no space, `\"` or `\\`)"
    )]
    ScopeCharacter {
        /// The scope.
        scope: String,
        /// The first character it cannot have.
        character: char,
    },
    /// A scope mapping without `=`.
    #[error(
        "`{0}` is not a scope mapping: write SCOPE=FAMILY[,FAMILY...], e.g. mcp:read=core_agent,web"
    )]
    NotAScopeMapping(String),
    /// A scope mapping whose families do not parse.
    #[error("`{entry}`: {source}")]
    ScopeFamilies {
        /// The mapping, as written.
        entry: String,
        /// The family no tool has.
        source: holon_core::UnknownFamily,
    },
    /// A scope mapping whose scope is not a scope token.
    #[error("`{entry}`: {source}")]
    ScopeMapping {
        /// The mapping, as written.
        entry: String,
        /// What is wrong with its scope.
        source: Box<ConfigError>,
    },
}

/// A browser origin that cannot be allowed (see
/// [`http_guard::parse_origin`](crate::http_guard::parse_origin)).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OriginError {
    /// Not a URI at all.
    #[error("`{value}` is not an origin (scheme://host[:port]): {reason}")]
    Unparsed {
        /// The value given.
        value: String,
        /// The URI parser's complaint.
        reason: String,
    },
    /// No scheme, or no host.
    #[error("`{0}` is not an origin: it needs a scheme and a host, e.g. https://app.example")]
    NoSchemeOrHost(String),
    /// A path or a query.
    #[error("`{0}` is not an origin: an origin has no path or query, e.g. https://app.example")]
    PathOrQuery(String),
    /// User information (`user@`).
    #[error("`{0}` is not an origin: it has user information")]
    UserInfo(String),
}

/// A served tool that cannot be listed over MCP (see
/// [`McpServer::check`](crate::McpServer::check)): the servers refuse to start with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// A tool's exported form is not a tool rmcp takes.
    #[error("a tool cannot be listed over MCP: {reason}")]
    NotAnMcpTool {
        /// What rmcp's `Tool` refused.
        reason: String,
    },
    /// A tool declares an `Mcp-Param-*` header clients would drop.
    #[error("tool `{tool}` declares an MCP header wrongly: {reason}")]
    Header {
        /// The tool.
        tool: String,
        /// What is wrong with the header, and where in the input schema.
        reason: String,
    },
}

/// How clients authenticate cannot be settled: what [`Access::resolve`](crate::http_guard::Access::resolve)
/// and the HTTP server's start refuse. Each message names the setting and its fix.
#[cfg(feature = "http")]
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AccessError {
    /// `no_auth` on an address off loopback.
    #[error(
        "--no-auth is allowed on a loopback address only (127.0.0.1:PORT or [::1]:PORT), \
         not on {addr}: anyone who reaches it could run commands; drop --no-auth \
         (clients then send the bearer token) or bind to loopback"
    )]
    OpenOffLoopback {
        /// The address the server listens on.
        addr: std::net::SocketAddr,
    },
    /// The token file cannot be read.
    #[error("--token-file {}: cannot read it: {source}", path.display())]
    TokenFileUnreadable {
        /// The file.
        path: std::path::PathBuf,
        /// Why not.
        source: std::io::Error,
    },
    /// The token file holds no usable token.
    #[error("--token-file {}: {reason}", path.display())]
    TokenFileInvalid {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong with the token and what to use.
        reason: String,
    },
    /// The token variable is not UTF-8.
    #[error("{} is not valid UTF-8", crate::TOKEN_ENV)]
    TokenEnvNotUtf8,
    /// The token variable holds no usable token.
    #[error("{}: {reason}", crate::TOKEN_ENV)]
    TokenEnvInvalid {
        /// What is wrong with the token and what to use.
        reason: String,
    },
    /// The operating system gave no randomness for a generated token.
    #[error("cannot generate a bearer token: {0}")]
    Generate(getrandom::Error),
    /// `no_auth` together with OAuth.
    #[error("no_auth and OAuth exclude each other: drop one (--no-auth or the --oauth-* settings)")]
    OpenWithOAuth,
    /// The OAuth resource server could not start (its keys could not be loaded, or a
    /// setting the token verifier needs is missing); the message says which.
    #[error("{0}")]
    OAuth(String),
}

/// Why a value is not a `Host` name the HTTP server can be allowed to answer to (see
/// [`http_guard::parse_allowed_host`](crate::http_guard::parse_allowed_host)).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AllowedHostError {
    /// Nothing, or only spaces.
    #[error(
        "the allowed host is empty; name a host as clients reach the server, e.g. mcp.example.com or mcp.example.com:8443"
    )]
    Empty,
    /// A URL or anything else than `host` or `host:port`.
    #[error(
        "`{0}` is not a host name: give the host (and port) of the Host header, without scheme, path or user, e.g. mcp.example.com or mcp.example.com:8443"
    )]
    NotAHost(String),
}

/// Why serving failed. Each message says what failed and how to fix it where the
/// operator can.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// A served tool has no MCP form rmcp takes (see [`McpServer::check`](crate::McpServer::check)).
    #[error(transparent)]
    Tools(#[from] CatalogError),
    /// The HTTP access settings cannot be used: the token file, the token variable,
    /// `no_auth` off loopback, or the OAuth settings (the error names which).
    #[cfg(feature = "http")]
    #[error(transparent)]
    Access(#[from] AccessError),
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
    /// An HTTP setting of [`HttpOptions`](crate::HttpOptions) cannot be used (the
    /// message names it and what it takes).
    #[error("{0}")]
    Setting(String),
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
