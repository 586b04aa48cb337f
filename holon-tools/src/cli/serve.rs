//! `holon-tools serve`: the tools as an MCP server, on stdio or streamable HTTP.
//!
//! Built on `rmcp`, the official Rust SDK. `tools/list` is the registry's MCP export
//! under the family policy; `tools/call` goes through the dispatcher, on the same
//! runtime as every other command, so each call is recorded in the store. A success is
//! the receipt as text (plus the tool's image blocks) and the structured result; a tool
//! error, invalid arguments included, is a result with `isError: true` whose receipt
//! names the error and whose `_meta["holon/error"]` is the typed error, without
//! `structuredContent` (the `outputSchema` describes successes, and MCP validates
//! successful results only); an unknown tool, or `tools/call` params that do not
//! parse, is a JSON-RPC invalid-params error.
//!
//! Each call is cancelled by the client's `notifications/cancelled` for its request
//! (the dispatcher drops it, which kills a command's process group), and reports its
//! progress as `notifications/progress` when the request has `_meta.progressToken`.
//!
//! Over HTTP every request needs the bearer token and may not come from a foreign
//! browser origin: see [`http_guard`](super::http_guard).
//!
//! Calls do not pass the runtime's turn gate: the gate waits for the model's final
//! reply, which goes to the MCP client, never to this server, so nothing here could
//! lift it. The host that owns the turn publishes the brief.

// The MCP server's own I/O: its listening socket.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use holon_core::{FamilyPolicy, Registry, ToolCall, ToolContext, closest};
use holon_export::{self as export, ExportOptions, Provider};
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
#[allow(deprecated)] // logging: see mcp_client
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ErrorCode,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

use super::http_guard::{self, Access};
use super::mcp_client::{McpClient, SessionLogLevel};
use super::mcp_content;
use super::mcp_progress::CallProgress;
use holon_runtime::Runtime;

/// The path the streamable HTTP endpoint is served at.
pub const HTTP_PATH: &str = "/mcp";

/// What the server tells a client about itself when it connects.
const INSTRUCTIONS: &str = "The built-in tools of the holon agent runtime. Each call returns a \
receipt as text and the typed result as structuredContent; a failed call has isError set, and \
its receipt names the error kind, the offending field and how to fix the call.";

/// The MCP server: the registry behind `tools/list` and `tools/call`.
#[derive(Clone)]
pub struct McpServer {
    registry: &'static Registry,
    context: ToolContext,
    tools: Arc<Vec<Tool>>,
    /// Where relative artifact paths are, for their `file://` links.
    workspace: Option<PathBuf>,
    /// The session's `logging/setLevel`; each session gets its own ([`Self::session`]).
    log_level: Arc<SessionLogLevel>,
}

impl McpServer {
    /// A server for the tools `policy` allows, dispatching on `runtime`.
    pub fn new(
        registry: &'static Registry,
        runtime: &Arc<Runtime>,
        policy: FamilyPolicy,
    ) -> Result<Self, serde_json::Error> {
        let server = Self::with_context(registry, runtime.context(policy))?;
        Ok(server.with_workspace(runtime.workspace_root()))
    }

    /// A server for the tools of `registry` that `context`'s policy allows, each call
    /// dispatched in `context` (plus the client's handles).
    pub fn with_context(
        registry: &'static Registry,
        context: ToolContext,
    ) -> Result<Self, serde_json::Error> {
        let options = ExportOptions::new(context.policy());
        let export = export::export(registry, Provider::Mcp, options);
        let tools = export
            .tools
            .into_iter()
            .map(|tool| serde_json::from_value::<Tool>(tool.wire))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            registry,
            context,
            tools: Arc::new(tools),
            workspace: None,
            log_level: Arc::default(),
        })
    }

    /// Resolves relative artifact paths in `workspace` for their `file://` links.
    pub fn with_workspace(mut self, workspace: impl Into<PathBuf>) -> Self {
        self.workspace = Some(workspace.into());
        self
    }

    /// The same server for a new session: its own log level.
    fn session(&self) -> Self {
        Self {
            log_level: Arc::default(),
            ..self.clone()
        }
    }

    /// The context of one call: the server's, plus the client the call came from.
    fn call_context(&self, request: &RequestContext<RoleServer>) -> ToolContext {
        let client = McpClient::new(request.peer.clone(), self.log_level.clone());
        self.context.clone().with_client(Arc::new(client))
    }

    fn unknown_tool(&self, name: &str) -> ErrorData {
        let suggestion = closest(name, self.tools.iter().map(|tool| tool.name.as_ref()));
        let message = match suggestion {
            Some(best) => format!("unknown tool `{name}`; did you mean `{best}`?"),
            None => format!("unknown tool `{name}`; tools/list shows the tools"),
        };
        ErrorData::invalid_params(
            message,
            Some(json!({ "kind": "unknown_tool", "tool": name, "did_you_mean": suggestion })),
        )
    }
}

impl ServerHandler for McpServer {
    #[allow(deprecated)] // logging: see mcp_client
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(
                "holon-tools",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    /// The client's least level of the log messages its tools send it.
    #[allow(deprecated)] // logging: see mcp_client
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log_level.set(request.level);
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        let Some(definition) = self
            .registry
            .get(name)
            .filter(|definition| definition.is_model_facing())
        else {
            return Err(self.unknown_tool(name));
        };
        // rmcp delivers the arguments already parsed: a key the client repeated has
        // been collapsed to its last value here, so the `Value` entry point it is.
        let input = Value::Object(request.arguments.unwrap_or_default());
        // rmcp cancels the request's token on `notifications/cancelled` (and when the
        // session ends); the dispatch then stops the call's work.
        let mut call_context = self
            .call_context(&context)
            .with_cancellation(context.ct.clone());
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| CallProgress::start(context.peer.clone(), token));
        if let Some(progress) = &progress {
            call_context = call_context.with_progress(progress.sink());
        }
        let result = self
            .registry
            .dispatch(&call_context, ToolCall::new(name, input))
            .await;
        if let Some(progress) = progress {
            progress.flush().await;
        }
        let result = mcp_content::call_result(definition, result, self.workspace.as_deref())?;
        Ok(result.into())
    }

    /// rmcp hands a request whose params do not parse (a `tools/call` without `name`,
    /// with array `arguments`) here as a custom request, which would answer
    /// method-not-found: for a method this server has, the answer is invalid-params,
    /// naming what is wrong where.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let problem = match request.method.as_str() {
            "tools/call" => params_problem::<CallToolRequestParams>(request.params),
            _ => None,
        };
        Err(match problem {
            Some((field, message)) => ErrorData::invalid_params(
                format!("invalid {} params: {message}", request.method),
                Some(json!({ "kind": "invalid_params", "field": field })),
            ),
            None => ErrorData::new(ErrorCode::METHOD_NOT_FOUND, request.method, None),
        })
    }
}

/// Why `params` do not parse as `T` (the path of the offending field, `None` for the
/// params themselves, and serde's message), or `None` if they do.
fn params_problem<T: serde::de::DeserializeOwned>(
    params: Option<Value>,
) -> Option<(Option<String>, String)> {
    let Some(params) = params else {
        return Some((None, "params are missing".to_string()));
    };
    let error = serde_path_to_error::deserialize::<_, T>(params).err()?;
    let path = error.path().to_string();
    let field = (path != ".").then_some(path);
    let message = match &field {
        Some(path) => format!("at `{path}`: {}", error.inner()),
        None => error.inner().to_string(),
    };
    Some((field, message))
}

/// Serves MCP on stdin and stdout until the client closes them or a signal arrives.
pub async fn serve_stdio(server: McpServer) -> ExitCode {
    let running = match server.serve(rmcp::transport::stdio()).await {
        Ok(running) => running,
        Err(error) => {
            eprintln!("holon-tools: the MCP client did not connect: {error}");
            return ExitCode::FAILURE;
        }
    };
    tokio::select! {
        finished = running.waiting() => match finished {
            Ok(_) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("holon-tools: the MCP session failed: {error}");
                ExitCode::FAILURE
            }
        },
        () = shutdown_signal() => ExitCode::SUCCESS,
    }
}

/// How `serve --http` listens and whom it serves.
#[derive(Debug)]
pub struct HttpOptions {
    /// The address to bind.
    pub addr: SocketAddr,
    /// `--no-auth`: no bearer token (loopback only).
    pub no_auth: bool,
    /// `--token-file`: the bearer token's file.
    pub token_file: Option<PathBuf>,
    /// `--allow-origin`: browser origins allowed besides the server's own.
    pub allow_origins: Vec<String>,
}

/// Serves MCP over streamable HTTP at `http://ADDR/mcp` until a signal arrives, to
/// requests with the bearer token (see the `http_guard` module) from no foreign origin.
pub async fn serve_http(server: McpServer, options: HttpOptions) -> ExitCode {
    let addr = options.addr;
    let access = match Access::resolve(
        addr,
        options.no_auth,
        options.token_file.as_deref(),
        std::env::var_os(http_guard::TOKEN_ENV),
    ) {
        Ok(access) => Arc::new(access),
        Err(error) => {
            eprintln!("holon-tools: {error}");
            return ExitCode::FAILURE;
        }
    };
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("holon-tools: cannot listen on {addr}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let local = listener.local_addr().unwrap_or(addr);
    let origins: Arc<[String]> = http_guard::allowed_origins(local, &options.allow_origins).into();
    let service = StreamableHttpService::new(
        move || Ok(server.session()),
        Arc::new(LocalSessionManager::default()),
        http_guard::transport_config(local, &options.allow_origins),
    );
    // The line a client (or a test that asked for port 0) reads the address from,
    // then the one about the token (the token itself when it was generated).
    eprintln!(
        "holon-tools: serving MCP over streamable HTTP at http://{local}{HTTP_PATH}\n{}",
        access.announcement()
    );
    if !local.ip().is_loopback() {
        eprintln!(
            "holon-tools: {local} is not loopback: the token travels in clear text over plain HTTP, \
             so reach it through TLS or a trusted network only"
        );
    }
    let shutdown = shutdown_signal();
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    eprintln!("holon-tools: cannot accept a connection: {error}");
                    continue;
                }
            },
            () = &mut shutdown => return ExitCode::SUCCESS,
        };
        // Without it each response's last small write waits for the client's delayed
        // ACK (Nagle): about 40 ms a request. A socket that refuses it still serves.
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        let access = access.clone();
        let origins = origins.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
                let service = service.clone();
                let access = access.clone();
                let origins = origins.clone();
                async move {
                    if request.uri().path() != HTTP_PATH {
                        return Ok::<_, Infallible>(not_found());
                    }
                    if let Err(refused) = http_guard::check_origin(&origins, request.headers()) {
                        return Ok(refused);
                    }
                    if let Err(refused) = access.check(request.headers()) {
                        return Ok(refused);
                    }
                    Ok(service.handle(request).await)
                }
            });
            // A connection that fails (the client went away) ends only itself.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handler)
                .await;
        });
    }
}

fn not_found() -> Response<http_body_util::combinators::BoxBody<Bytes, Infallible>> {
    let body = Full::new(Bytes::from_static(b"not found: the MCP endpoint is /mcp\n")).boxed();
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

/// Resolves on Ctrl-C, or on SIGTERM where there is one. A signal that cannot be
/// listened for never fires (it does not stop the server).
async fn shutdown_signal() {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                terminate.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}
