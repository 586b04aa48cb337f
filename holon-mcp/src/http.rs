//! MCP over streamable HTTP, served by hyper: every request needs the bearer token
//! and may not come from a foreign browser origin (see [`http_guard`]).

// The MCP server's own I/O: its listening socket.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONNECTION, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::Semaphore;

use crate::auth::Gate;
#[cfg(feature = "oauth")]
use crate::auth::OAuthConfig;
use crate::http_guard;
use crate::http_limits::{self, AcceptBackoff, HttpLimits};
use crate::listing::ListingSessions;
use crate::server::McpServer;
use crate::session_close::{self, Closings};
use crate::signal::shutdown_signal;

/// The path the streamable HTTP endpoint is served at.
pub const HTTP_PATH: &str = "/mcp";

/// How [`serve_http`] listens and whom it serves.
#[derive(Debug)]
pub struct HttpOptions {
    /// The address to bind.
    pub addr: SocketAddr,
    /// No bearer token (loopback only).
    pub no_auth: bool,
    /// The bearer token's file (else [`TOKEN_ENV`](crate::TOKEN_ENV), else one generated at start).
    pub token_file: Option<PathBuf>,
    /// Browser origins allowed besides the server's own (see
    /// [`http_guard::parse_origin`]).
    pub allow_origins: Vec<String>,
    /// What one client may hold of the server.
    pub limits: HttpLimits,
    /// OAuth access tokens instead of the generated bearer token (a token of
    /// `token_file` or [`TOKEN_ENV`](crate::TOKEN_ENV) stays accepted too).
    #[cfg(feature = "oauth")]
    pub oauth: Option<OAuthConfig>,
}

impl HttpOptions {
    /// Serves on `addr` with a bearer token, to no foreign origin.
    pub fn new(addr: SocketAddr) -> Self {
        Self {
            addr,
            no_auth: false,
            token_file: None,
            allow_origins: Vec::new(),
            limits: HttpLimits::default(),
            #[cfg(feature = "oauth")]
            oauth: None,
        }
    }

    /// Checks OAuth access tokens as `config` says (see [`OAuthConfig`]).
    #[cfg(feature = "oauth")]
    pub fn with_oauth(mut self, config: OAuthConfig) -> Self {
        self.oauth = Some(config);
        self
    }
}

/// Serves MCP over streamable HTTP at `http://ADDR/mcp` until a signal arrives, to
/// requests with the bearer token (see [`http_guard`]) from no foreign origin. The
/// address, then the token's source, go to stderr, each line starting with the
/// server's name.
pub async fn serve_http(server: McpServer, options: HttpOptions) -> ExitCode {
    let name: Arc<str> = server.info().name().into();
    let executions = match server.catalog() {
        Ok(catalog) => catalog.executions(),
        Err(error) => {
            note!("{name}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let addr = options.addr;
    let max_body = StreamableHttpServerConfig::default().max_request_body_bytes;
    let gate = match Gate::resolve(addr, &options, &server, max_body).await {
        Ok(gate) => gate,
        Err(error) => {
            note!("{name}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(listener) => listener,
        Err(error) => {
            note!("{name}: cannot listen on {addr}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let local = listener.local_addr().unwrap_or(addr);
    let origins = http_guard::allowed_origins(local, &options.allow_origins);
    let limits = options.limits;
    let sessions = Arc::new(LocalSessionManager::default());
    let service = StreamableHttpService::new(
        move || Ok(server.session()),
        Arc::new(ListingSessions::new(sessions.clone(), executions)),
        http_guard::transport_config(local, &options.allow_origins),
    );
    let endpoint = Arc::new(Endpoint {
        service,
        gate,
        origins,
        name: name.clone(),
        sessions,
        closings: Closings::default(),
        max_sessions: limits.max_sessions,
    });
    let connections = Arc::new(Semaphore::new(limits.max_connections));
    let mut backoff = AcceptBackoff::default();
    // The line a client (or a test that asked for port 0) reads the address from,
    // then the one about the token (the token itself when it was generated).
    note!(
        "{name}: serving MCP over streamable HTTP at http://{local}{HTTP_PATH}\n{}",
        endpoint.gate.announcement(&name)
    );
    if !local.ip().is_loopback() {
        note!(
            "{name}: {local} is not loopback: the token travels in clear text over plain HTTP, \
             so reach it through TLS or a trusted network only"
        );
    }
    let shutdown = shutdown_signal();
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    backoff.succeeded(&name);
                    stream
                }
                Err(error) => {
                    // Out of file descriptors, most often: retrying at once would
                    // spin (and log) until one frees, so wait, longer each time.
                    let pause = backoff.failed(&name, &error);
                    tokio::select! {
                        () = tokio::time::sleep(pause) => continue,
                        () = &mut shutdown => return ExitCode::SUCCESS,
                    }
                }
            },
            () = &mut shutdown => return ExitCode::SUCCESS,
        };
        let Ok(permit) = connections.clone().try_acquire_owned() else {
            refuse_connection(stream, limits.max_connections);
            continue;
        };
        // Without it each response's last small write waits for the client's delayed
        // ACK (Nagle): about 40 ms a request. A socket that refuses it still serves.
        let _ = stream.set_nodelay(true);
        let endpoint = endpoint.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
                let endpoint = endpoint.clone();
                async move { Ok::<_, Infallible>(endpoint.answer(request).await) }
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

/// What every request to the endpoint is answered with, shared by the connections.
struct Endpoint {
    service: StreamableHttpService<McpServer, ListingSessions<LocalSessionManager>>,
    gate: Gate,
    origins: Vec<String>,
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
    async fn answer(&self, request: Request<Incoming>) -> HttpResponse {
        let mut response = self.checked_answer(request).await;
        let status = response.status();
        if status.is_client_error() || status.is_server_error() {
            response
                .headers_mut()
                .insert(CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }

    /// A public document, or the checks (path, origin, token, session cap) and then
    /// the transport's answer.
    async fn checked_answer(&self, request: Request<Incoming>) -> HttpResponse {
        if let Some(answer) = self.gate.public_response(&request) {
            return answer;
        }
        if request.uri().path() != HTTP_PATH {
            return not_found();
        }
        if let Err(refused) = http_guard::check_origin(&self.origins, request.headers()) {
            return refused;
        }
        // The transport hands the request's extensions (the principal, the families a
        // token grants) to each call.
        let request = match self.gate.admit(&self.name, request).await {
            Ok(request) => request,
            Err(refused) => return refused,
        };
        if let Err(refused) =
            http_limits::check_sessions(&request, &self.sessions, self.max_sessions).await
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

/// A response of the endpoint.
type HttpResponse = Response<http_body_util::combinators::BoxBody<Bytes, Infallible>>;

fn not_found() -> HttpResponse {
    let body = Full::new(Bytes::from_static(b"not found: the MCP endpoint is /mcp\n")).boxed();
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

/// Answers a connection past the cap with a 503 and closes it. The answer is small
/// enough for a fresh socket's buffer: it is written without waiting, or not at all.
fn refuse_connection(stream: tokio::net::TcpStream, cap: usize) {
    let body =
        format!("too many connections: this server serves {cap} at once; retry when one closes\n");
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
