//! The HTTP server: hyper on the listener its host bound, each connection through the
//! guard and the limits to rmcp's streamable-HTTP service.

// The MCP server's own I/O: the listening socket its host bound.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::header::{CONNECTION, HeaderValue};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::ServeError;
use crate::auth::Gate;
#[cfg(feature = "oauth")]
use crate::auth::OAuthConfig;
use crate::http::guard;
use crate::http::limits::{
    self, AcceptBackoff, HttpLimits, PendingConnection, UnauthenticatedPeers,
};
use crate::http::listing_sessions::ListingSessions;
use crate::http::plain::{HttpResponse, plain_text};
use crate::http::session_close::{self, Closings};
use crate::server::McpServer;
use crate::shutdown::{ServeFuture, WithGracefulShutdown};

/// The path the streamable HTTP endpoint is served at.
pub const HTTP_PATH: &str = "/mcp";

/// The default interval of SSE keep-alive comments on an event stream that has
/// nothing to send: well under the idle timeouts of common proxies (nginx's
/// `proxy_read_timeout` is 60 s), so a balancer never cuts an idle stream.
pub const DEFAULT_SSE_KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Whom an [`HttpServer`] serves, and what one client may hold of it.
#[derive(Debug)]
pub struct HttpOptions {
    /// No bearer token (loopback only).
    pub no_auth: bool,
    /// The bearer token's file (else [`TOKEN_ENV`](crate::TOKEN_ENV), else one generated at start).
    pub token_file: Option<PathBuf>,
    /// Browser origins allowed besides the server's own (see
    /// [`guard::parse_origin`]).
    pub allow_origins: Vec<String>,
    /// `Host` names the server answers to (see [`guard::parse_allowed_host`]):
    /// besides the loopback names on a loopback bind; on another bind, only these
    /// once one is named (none: any `Host`, the token guarding the server). The name
    /// clients reach the server by, such as a balancer's, when it is public.
    pub allowed_hosts: Vec<String>,
    /// How often an event stream with nothing to send carries a keep-alive comment
    /// (`None`: never), so that proxies do not close it as idle. Default
    /// [`DEFAULT_SSE_KEEP_ALIVE`]; zero is refused.
    pub sse_keep_alive: Option<Duration>,
    /// What one client may hold of the server.
    pub limits: HttpLimits,
    /// OAuth access tokens instead of the generated bearer token (a token of
    /// `token_file` or [`TOKEN_ENV`](crate::TOKEN_ENV) stays accepted too).
    #[cfg(feature = "oauth")]
    pub oauth: Option<OAuthConfig>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            no_auth: false,
            token_file: None,
            allow_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            sse_keep_alive: Some(DEFAULT_SSE_KEEP_ALIVE),
            limits: HttpLimits::default(),
            #[cfg(feature = "oauth")]
            oauth: None,
        }
    }
}

impl HttpOptions {
    /// A bearer token, to no foreign origin, within the default limits.
    pub fn new() -> Self {
        Self::default()
    }

    /// Checks OAuth access tokens as `config` says (see [`OAuthConfig`]).
    #[cfg(feature = "oauth")]
    pub fn with_oauth(mut self, config: OAuthConfig) -> Self {
        self.oauth = Some(config);
        self
    }
}

/// MCP over streamable HTTP at `http://ADDR/mcp` on a listener the host bound, to
/// requests with the bearer token (see [`guard`](super::guard)) from no foreign origin.
///
/// [`HttpServer::new`] settles who may connect (a token is read or generated, an
/// OAuth key set fetched), so the host can show the address and the token
/// ([`announcement`](Self::announcement)) before it serves; awaiting the server
/// serves until the runtime ends, and [`with_graceful_shutdown`](Self::with_graceful_shutdown)
/// until a signal:
///
/// ```no_run
/// # async fn doc(server: holon_mcp::McpServer) -> Result<(), Box<dyn std::error::Error>> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// let http = holon_mcp::HttpServer::new(listener, server, holon_mcp::HttpOptions::new()).await?;
/// // Or, binding it too: HttpServer::bind("127.0.0.1:8080".parse()?, server, options)
/// eprintln!("{}", http.announcement());
/// http.with_graceful_shutdown(holon_mcp::shutdown_signal()).await?;
/// # Ok(())
/// # }
/// ```
pub struct HttpServer {
    listener: TcpListener,
    local: SocketAddr,
    endpoint: Arc<Endpoint>,
    limits: HttpLimits,
}

impl HttpServer {
    /// The server of `server`'s tools on `listener`, as `options` say. An error when a
    /// served tool has no MCP form, when the access settings cannot be used (a token
    /// file that cannot be read, `no_auth` off loopback, an OAuth key set that cannot
    /// be loaded), or when `listener` has no address.
    pub async fn new(
        listener: TcpListener,
        server: McpServer,
        options: HttpOptions,
    ) -> Result<Self, ServeError> {
        let name: Arc<str> = server.info().name().into();
        let executions = server.catalog()?.executions();
        let local = listener.local_addr().map_err(ServeError::ListenerAddress)?;
        // A zero interval would send keep-alives without pause.
        if options.sse_keep_alive == Some(Duration::ZERO) {
            return Err(ServeError::Setting(
                "sse_keep_alive is zero: give an interval such as 15 s, or None for no \
                 keep-alive comments"
                    .to_string(),
            ));
        }
        let named_hosts = options
            .allowed_hosts
            .iter()
            .map(|name| guard::parse_allowed_host(name))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| ServeError::Setting(format!("allowed_hosts: {error}")))?;
        let max_body = StreamableHttpServerConfig::default().max_request_body_bytes;
        let gate = Gate::resolve(local, &options, &server, max_body).await?;
        let origins = guard::allowed_origins(local, &options.allow_origins);
        let hosts = guard::allowed_hosts(local, &named_hosts);
        let sessions = Arc::new(LocalSessionManager::default());
        let service = StreamableHttpService::new(
            move || Ok(server.session()),
            Arc::new(ListingSessions::new(sessions.clone(), executions)),
            guard::transport_config(local, &options.allow_origins, &named_hosts)
                .with_sse_keep_alive(options.sse_keep_alive),
        );
        let endpoint = Arc::new(Endpoint {
            service,
            gate,
            origins,
            hosts,
            name,
            sessions,
            closings: Closings::default(),
            max_sessions: options.limits.max_sessions,
        });
        Ok(Self {
            listener,
            local,
            endpoint,
            limits: options.limits,
        })
    }

    /// [`HttpServer::new`] on a listener bound to `addr` (port 0: one the system
    /// chooses, which [`local_addr`](Self::local_addr) tells).
    pub async fn bind(
        addr: SocketAddr,
        server: McpServer,
        options: HttpOptions,
    ) -> Result<Self, ServeError> {
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Listen { addr, source })?;
        Self::new(listener, server, options).await
    }

    /// The address it listens on (the port the system chose for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// The endpoint's URL, `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{HTTP_PATH}", self.local)
    }

    /// The bearer token generated at start, which only the host can show to the
    /// operator; `None` when it was chosen (a file, [`TOKEN_ENV`](crate::TOKEN_ENV)),
    /// under OAuth, or with `no_auth`.
    pub fn generated_token(&self) -> Option<&str> {
        self.endpoint.gate.generated_token()
    }

    /// What an operator reads at start, each line starting with the server's name:
    /// the URL (the line a client takes the address from), how clients authenticate
    /// (the token itself when it was generated), and a warning when the address is
    /// not loopback. `holon-tools serve` prints it on stderr.
    pub fn announcement(&self) -> String {
        let name = &self.endpoint.name;
        let local = self.local;
        let mut text = format!(
            "{name}: serving MCP over streamable HTTP at {}\n{}",
            self.url(),
            self.endpoint.gate.announcement(name)
        );
        if !local.ip().is_loopback() {
            text.push_str(&format!(
                "\n{name}: {local} is not loopback: the token travels in clear text over plain \
                 HTTP, so reach it through TLS or a trusted network only"
            ));
        }
        text
    }

    /// Serves until `signal` resolves (such as [`shutdown_signal`](crate::shutdown_signal)),
    /// then stops accepting connections and returns. The connections already open are
    /// not waited for (a client's event stream may stay open for good): they end with
    /// the runtime, or when their clients close them.
    pub fn with_graceful_shutdown<F>(self, signal: F) -> WithGracefulShutdown<Self, F>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        WithGracefulShutdown {
            server: self,
            signal,
        }
    }

    /// Accepts connections and serves each until `shutdown` resolves.
    async fn serve_until(
        self,
        shutdown: impl Future<Output = ()> + Send,
    ) -> Result<(), ServeError> {
        let Self {
            listener,
            endpoint,
            limits,
            ..
        } = self;
        let name = endpoint.name.clone();
        let connections = Arc::new(Semaphore::new(limits.max_connections));
        let peers = UnauthenticatedPeers::new(limits.max_unauthenticated_per_peer);
        let mut backoff = AcceptBackoff::default();
        tokio::pin!(shutdown);
        loop {
            let (stream, peer) = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, peer)) => {
                        backoff.succeeded(&name);
                        (stream, peer)
                    }
                    Err(error) => {
                        // Out of file descriptors, most often: retrying at once would
                        // spin (and log) until one frees, so wait, longer each time.
                        let pause = backoff.failed(&name, &error);
                        tokio::select! {
                            () = tokio::time::sleep(pause) => continue,
                            () = &mut shutdown => return Ok(()),
                        }
                    }
                },
                () = &mut shutdown => return Ok(()),
            };
            // A peer without a token may hold only a few connections, so the cap
            // keeps room for those that authenticate.
            let Some(place) = peers.admit(peer.ip()) else {
                let cap = limits.max_unauthenticated_per_peer;
                refuse_connection(
                    stream,
                    &format!(
                        "too many connections from your address without a valid token: this \
                         server keeps {cap} such at once; send the token, or retry when one closes"
                    ),
                );
                continue;
            };
            let Ok(permit) = connections.clone().try_acquire_owned() else {
                let cap = limits.max_connections;
                refuse_connection(
                    stream,
                    &format!(
                        "too many connections: this server serves {cap} at once; retry when one closes"
                    ),
                );
                continue;
            };
            let pending = Arc::new(PendingConnection::new(place));
            // Without it each response's last small write waits for the client's delayed
            // ACK (Nagle): about 40 ms a request. A socket that refuses it still serves.
            let _ = stream.set_nodelay(true);
            let endpoint = endpoint.clone();
            tokio::spawn(async move {
                let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
                    let endpoint = endpoint.clone();
                    let pending = pending.clone();
                    async move { Ok::<_, Infallible>(endpoint.answer(request, &pending).await) }
                });
                // A connection that fails (the client went away) ends only itself. One
                // that does not send a request's head in time (half-sent, or idle between
                // requests) is closed.
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(limits.header_read_timeout)
                    .serve_connection(TokioIo::new(stream), handler)
                    .await;
                drop(permit);
            });
        }
    }
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("name", &self.endpoint.name)
            .field("local_addr", &self.local)
            .finish_non_exhaustive()
    }
}

/// Serves until the runtime ends.
impl IntoFuture for HttpServer {
    type Output = Result<(), ServeError>;
    type IntoFuture = ServeFuture;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.serve_until(std::future::pending()))
    }
}

/// Serves until the signal.
impl<F> IntoFuture for WithGracefulShutdown<HttpServer, F>
where
    F: Future<Output = ()> + Send + 'static,
{
    type Output = Result<(), ServeError>;
    type IntoFuture = ServeFuture;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.server.serve_until(self.signal))
    }
}

/// What every request to the endpoint is answered with, shared by the connections.
struct Endpoint {
    service: StreamableHttpService<McpServer, ListingSessions<LocalSessionManager>>,
    gate: Gate,
    origins: Vec<String>,
    hosts: Vec<String>,
    name: Arc<str>,
    sessions: Arc<LocalSessionManager>,
    closings: Closings,
    max_sessions: usize,
}

impl Endpoint {
    /// The answer to `request`. A refusal (4xx, 5xx) is the last answer on its
    /// connection: it may come before the request's body was read (a missing token, a
    /// foreign origin, the session cap), and when the body has not all arrived by
    /// then, hyper closes the connection rather than wait for it. Without
    /// `Connection: close`, a client sending its next request there (its retry with a
    /// token) would find the connection gone.
    /// `pending` learns when the request carried a valid token.
    async fn answer(
        &self,
        request: Request<Incoming>,
        pending: &PendingConnection,
    ) -> HttpResponse {
        let mut response = self.checked_answer(request, pending).await;
        let status = response.status();
        if status.is_client_error() || status.is_server_error() {
            response
                .headers_mut()
                .insert(CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }

    /// A public document, or the checks (path, host, origin, token, session cap) and
    /// then the transport's answer.
    async fn checked_answer(
        &self,
        request: Request<Incoming>,
        pending: &PendingConnection,
    ) -> HttpResponse {
        if let Some(answer) = self.gate.public_response(&request) {
            return answer;
        }
        if request.uri().path() != HTTP_PATH {
            return not_found();
        }
        if let Err(refused) = guard::check_host(&self.hosts, request.uri(), request.headers()) {
            return refused;
        }
        if let Err(refused) = guard::check_origin(&self.origins, request.headers()) {
            return refused;
        }
        // The transport hands the request's extensions (the principal, the families a
        // token grants) to each call.
        let request = match self.gate.admit(&self.name, request).await {
            Ok(request) => request,
            Err(refused) => return refused,
        };
        pending.authenticated();
        if let Err(refused) =
            limits::check_sessions(&request, &self.sessions, self.max_sessions).await
        {
            return refused;
        }
        if request.method() == Method::DELETE {
            let close = |request| self.service.handle(request);
            return session_close::delete(request, &self.sessions, &self.closings, close).await;
        }
        self.service.handle(request).await
    }
}

fn not_found() -> HttpResponse {
    plain_text(
        StatusCode::NOT_FOUND,
        "not found: the MCP endpoint is /mcp\n",
    )
}

/// Answers a connection past a cap with a 503 that says `why` and closes it. The
/// answer is small enough for a fresh socket's buffer: it is written without
/// waiting, or not at all.
fn refuse_connection(stream: tokio::net::TcpStream, why: &str) {
    let body = format!("{why}\n");
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Retry-After: 1\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    // A fresh socket has room for it: one non-blocking write, without waiting for
    // Tokio to learn that the socket is writable.
    if let Ok(socket) = stream.into_std() {
        let _ = std::io::Write::write(&mut &socket, response.as_bytes());
    }
}
