//! `holon-tools serve`: the built-in tools as an MCP server (holon-mcp's), on stdio
//! or streamable HTTP, under holon-tools' own name and instructions.
//!
//! Calls go through the dispatcher on the same runtime as every other command, so
//! each call is recorded in the store. They do not pass the runtime's turn gate: the
//! gate waits for the model's final reply, which goes to the MCP client, never to this
//! server, so nothing here could lift it. The host that owns the turn publishes the
//! brief.
//!
//! The library prints nothing: this command prints the address and the token line
//! the server announces (clients and tests read them from stderr), and the error a
//! server returns, after its name.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use holon_core::{FamilyPolicy, Registry};
use holon_mcp::{
    HttpLimits, HttpOptions, HttpServer, Keyring, McpServer, OAuthConfig, ServeError, ServerInfo,
    StdioServer, StoreUrl, Stores, shutdown_signal,
};
use holon_runtime::Runtime;

/// What the server tells a client about itself when it connects.
const INSTRUCTIONS: &str = "The built-in tools of the holon agent runtime. Each call returns a \
receipt as text and the typed result as structuredContent; a failed call has isError set, and \
its receipt names the error kind, the offending field and how to fix the call.";

/// How `serve` was asked to serve.
pub(super) struct ServeOptions {
    /// `--http`: the address, or stdio when `None`.
    pub(super) http: Option<SocketAddr>,
    /// `--token-file`.
    pub(super) token_file: Option<PathBuf>,
    /// `--no-auth`.
    pub(super) no_auth: bool,
    /// `--allow-origin`.
    pub(super) allow_origins: Vec<String>,
    /// `--allowed-host`.
    pub(super) allowed_hosts: Vec<String>,
    /// `--max-unauthenticated-per-peer`.
    pub(super) max_unauthenticated_per_peer: Option<u32>,
    /// `--families`.
    pub(super) families: FamilyPolicy,
    /// `--oauth-*`: OAuth access tokens, when `--oauth-resource` is given.
    pub(super) oauth: Option<OAuthConfig>,
    /// `--discovery`: the tools tools/list shows.
    pub(super) listed: Option<super::serve_discovery::Listed>,
    /// `--store`: where the server keeps its state.
    pub(super) store: StoreUrl,
    /// `--key-file`: the keys that seal `requestState`, over the store's.
    pub(super) keyring: Option<Keyring>,
}

/// Serves `registry`'s tools that `options.families` allows, dispatching on `runtime`.
pub(super) async fn serve(
    registry: &'static Registry,
    runtime: Arc<Runtime>,
    options: ServeOptions,
) -> ExitCode {
    let info = ServerInfo::new("holon-tools", env!("CARGO_PKG_VERSION"))
        .with_title("holon tools")
        .with_instructions(INSTRUCTIONS);
    let mut context = runtime.context(options.families);
    if options.listed.is_some() {
        context = super::serve_discovery::context(context, registry);
    }
    let stores = match Stores::open(&options.store) {
        Ok(stores) => stores,
        Err(error) => {
            note(&format!(
                "holon-tools serve: --store {}: {error}",
                options.store
            ));
            return ExitCode::from(2);
        }
    };
    let mut server = McpServer::new(registry, info)
        .with_context(context)
        .with_workspace(runtime.workspace_root())
        .with_stores(&stores);
    if let Some(keyring) = &options.keyring {
        server = server.with_keyring(keyring);
    }
    if let Some(listed) = options.listed {
        server = server.with_listed(move |name| listed.shows(name));
    }
    let name = server.info().name().to_string();
    match options.http {
        Some(addr) => {
            let mut limits = HttpLimits::default();
            if let Some(cap) = options.max_unauthenticated_per_peer {
                limits.max_unauthenticated_per_peer = cap as usize;
            }
            let http = HttpOptions {
                no_auth: options.no_auth,
                token_file: options.token_file,
                allow_origins: options.allow_origins,
                allowed_hosts: options.allowed_hosts,
                limits,
                oauth: options.oauth,
                ..HttpOptions::new()
            };
            serve_http(&name, addr, server, http).await
        }
        None => {
            let served = StdioServer::process(server)
                .with_graceful_shutdown(shutdown_signal())
                .await;
            exit_code(&name, served)
        }
    }
}

/// Binds `addr`, prints what the server announces (the URL first), and serves until
/// Ctrl-C or SIGTERM.
async fn serve_http(
    name: &str,
    addr: SocketAddr,
    server: McpServer,
    options: HttpOptions,
) -> ExitCode {
    let http = match HttpServer::bind(addr, server, options).await {
        Ok(http) => http,
        Err(error) => return exit_code(name, Err(error)),
    };
    note(&http.announcement());
    exit_code(name, http.with_graceful_shutdown(shutdown_signal()).await)
}

/// The exit code of a server that `served`, its error printed after `name`.
fn exit_code(name: &str, served: Result<(), ServeError>) -> ExitCode {
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            note(&format!("{name}: {error}"));
            ExitCode::FAILURE
        }
    }
}

/// Writes `line` to stderr; a stderr nobody reads any more (a closed pipe) loses it
/// rather than ending the server.
fn note(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}
