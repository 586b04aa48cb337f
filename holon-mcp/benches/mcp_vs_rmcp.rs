//! The same one-tool server (CountWords) on holon-mcp and on rmcp 3.11 directly, in the
//! same run: `tools/call` p50 and p99 over stdio and over streamable HTTP, calls/s with
//! 8 concurrent HTTP clients, and the server's RSS (all of it, and its anonymous part)
//! after opening and closing 1,000 HTTP sessions. Calls are timed against rmcp twice:
//! its tool answering the count as text, and the same tool declaring its output schema
//! and answering `structuredContent` as holon-mcp's does (rmcp's `Json<T>`).
//!
//! `cargo bench -p holon-mcp --bench mcp_vs_rmcp`; as a test (`cargo test -p holon-mcp
//! --bench mcp_vs_rmcp`) each case runs a few times only. `HOLON_BENCH_CALLS` sets the
//! calls per transport (default 2,000: the p50 of 400 moved by several per cent between
//! runs), `HOLON_BENCH_SESSIONS` the sessions (1,000).
//!
//! The bench is its own server: it runs itself again with `MCP_VS_RMCP_SERVE` set to
//! the server it should be, so that each server is a process of its own on real
//! stdio or a real socket. The servers take turns block by block (latency), round by
//! round (throughput) and batch by batch (sessions), so that load from elsewhere on
//! the machine falls on both alike. Both HTTP servers set `TCP_NODELAY` on their
//! sockets; the holon-mcp one also checks its bearer token, as it always does.

// A benchmark harness: it starts processes and sockets of its own.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::net::SocketAddr;
use std::process::{self, Child, Command, ExitCode};
use std::time::{Duration, Instant};

use holon_core::Registry;
use holon_core::prelude::*;
use serde_json::{Value, json};

use holon_test_support::bench::test_mode;
use holon_test_support::http::BlockingClient as HttpClient;
use holon_test_support::initialize::Client;
use holon_test_support::latency::quantiles;
use holon_test_support::process::listening_address;
use holon_test_support::stdio::StdioServer;
use hyper::Method;

/// The bearer token the HTTP servers start with.
const TOKEN: &str = "bench-token-0123456789abcdef";

/// The server a child process is: `holon-stdio`, `holon-http`, `rmcp-stdio`, `rmcp-http`.
const ROLE_ENV: &str = "MCP_VS_RMCP_SERVE";
const PROTOCOL: &str = "2025-11-25";
const WARMUP_CALLS: usize = 20;
/// The calls a server answers in a row before the next server's turn (latency).
const LATENCY_BLOCK: usize = 100;
const CLIENTS: usize = 8;
const TEXT: &str = "the quick brown fox jumps over the lazy dog";

/// Arguments of CountWords.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct CountWordsArgs {
    /// The text to count the words of.
    pub text: String,
}

/// Count the words of a text.
#[holon_tool(family = CoreAgent)]
fn count_words(args: CountWordsArgs) -> usize {
    args.text.split_whitespace().count()
}

fn main() -> ExitCode {
    if let Ok(role) = std::env::var(ROLE_ENV) {
        return serve(&role);
    }
    let quick = test_mode();
    let count = |name: &str, full: usize, test: usize| {
        std::env::var(name)
            .ok()
            .and_then(|value| value.parse().ok())
            .unwrap_or(if quick { test } else { full })
    };
    let calls = count("HOLON_BENCH_CALLS", 2000, 10);
    let sessions = count("HOLON_BENCH_SESSIONS", 1000, 20);
    println!("mcp_vs_rmcp: CountWords, {calls} tools/call per transport, {sessions} sessions");
    latency(calls);
    throughput(if quick { 2 } else { 100 }, if quick { 1 } else { 5 });
    session_memory(sessions);
    ExitCode::SUCCESS
}

/// The servers, holon-mcp's first.
#[derive(Clone, Copy)]
enum Server {
    Holon,
    /// CountWords on rmcp, answering its count as text.
    Rmcp,
    /// The same rmcp server's CountWords that declares its output schema (`Json<T>`)
    /// and answers with `structuredContent` beside the text, as holon-mcp's does: the
    /// same tool as holon-mcp's in `tools/list`.
    RmcpJson,
}

impl Server {
    const BOTH: [Server; 2] = [Server::Holon, Server::Rmcp];
    const ALL: [Server; 3] = [Server::Holon, Server::Rmcp, Server::RmcpJson];

    fn name(self) -> &'static str {
        match self {
            Self::Holon => "holon-mcp",
            Self::Rmcp => "rmcp 3.11",
            Self::RmcpJson => "rmcp Json",
        }
    }

    fn call(self, id: usize) -> Value {
        let tool = match self {
            Self::Holon => "CountWords",
            Self::Rmcp => "count_words",
            Self::RmcpJson => "count_words_json",
        };
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": tool, "arguments": {"text": TEXT}}})
    }

    fn spawn(self, transport: &str) -> Child {
        let role = match self {
            Self::Holon => "holon",
            Self::Rmcp | Self::RmcpJson => "rmcp",
        };
        Command::new(std::env::current_exe().expect("the bench's own path"))
            .env(ROLE_ENV, format!("{role}-{transport}"))
            .env(holon_mcp::TOKEN_ENV, TOKEN)
            .stdin(process::Stdio::piped())
            .stdout(process::Stdio::piped())
            .stderr(process::Stdio::piped())
            .spawn()
            .expect("the server starts")
    }
}

fn latency(calls: usize) {
    let mut stdio = Server::ALL.map(start_stdio);
    let mut http = Server::ALL.map(HttpServer::start);
    let mut took: [[Vec<Duration>; 3]; 2] = Default::default();
    // Block by block: each server in turn on stdio, then the same on HTTP. A server's
    // work after its answer (freeing, parking its threads) then overlaps only its own
    // next call, not another server's.
    let mut id = 0;
    let mut next_id = || {
        id += 1;
        id
    };
    let blocks = calls.div_ceil(LATENCY_BLOCK);
    for block in 0..=blocks {
        // Block 0 warms each server up and is not counted.
        let size = if block == 0 {
            WARMUP_CALLS
        } else {
            LATENCY_BLOCK.min(calls - (block - 1) * LATENCY_BLOCK)
        };
        for (index, server) in Server::ALL.into_iter().enumerate() {
            for _ in 0..size {
                let on_stdio = call_over_stdio(&mut stdio[index], server, next_id());
                if block > 0 {
                    took[0][index].push(on_stdio);
                }
            }
        }
        for (index, server) in Server::ALL.into_iter().enumerate() {
            let HttpServer {
                client, session, ..
            } = &mut http[index];
            for _ in 0..size {
                let on_http = call_over_http(client, server, next_id(), session);
                if block > 0 {
                    took[1][index].push(on_http);
                }
            }
        }
    }
    for (transport, took) in ["stdio", "http"].into_iter().zip(&took) {
        let quantiles = took.each_ref().map(|took| quantiles(took));
        for (server, (p50, p99)) in Server::ALL.into_iter().zip(quantiles) {
            println!(
                "{transport:<6} {:<10} p50 {p50:>8.3} ms  p99 {p99:>8.3} ms",
                server.name()
            );
        }
        println!(
            "{transport:<6} holon-mcp/rmcp at p50: {:.2}x (rmcp Json: {:.2}x)",
            quantiles[0].0 / quantiles[1].0,
            quantiles[0].0 / quantiles[2].0
        );
    }
    for client in stdio {
        let _ = client.close();
    }
}

/// Calls/s of `CLIENTS` clients at once, each with its connection and session making
/// `calls` calls, over `rounds` rounds that alternate the servers.
fn throughput(calls: usize, rounds: usize) {
    let servers = Server::ALL.map(HttpServer::start);
    let mut clients: Vec<Vec<(HttpClient, String)>> = servers
        .iter()
        .map(|server| {
            (0..CLIENTS)
                .map(|_| {
                    let mut client = connect(server.addr);
                    let session = client.open_session(&initialize());
                    (client, session)
                })
                .collect()
        })
        .collect();
    let mut elapsed = [Duration::ZERO; 3];
    for _ in 0..rounds {
        for (index, server) in Server::ALL.into_iter().enumerate() {
            let started = Instant::now();
            std::thread::scope(|scope| {
                for (client, session) in &mut clients[index] {
                    scope.spawn(move || {
                        for id in 1..=calls {
                            call_over_http(client, server, id, session);
                        }
                    });
                }
            });
            elapsed[index] += started.elapsed();
        }
    }
    let total = (calls * CLIENTS * rounds) as f64;
    let rates = elapsed.map(|took| total / took.as_secs_f64());
    for (server, rate) in Server::ALL.into_iter().zip(rates) {
        println!(
            "http   {:<10} {CLIENTS} clients: {rate:>8.0} calls/s",
            server.name()
        );
    }
    println!(
        "http   rmcp/holon-mcp in calls/s: {:.2}x (rmcp Json: {:.2}x)",
        rates[1] / rates[0],
        rates[2] / rates[0]
    );
}

/// The servers' RSS after `sessions` sessions were each opened (initialize,
/// initialized) and closed (DELETE), in batches that alternate the servers.
fn session_memory(sessions: usize) {
    let mut servers = Server::BOTH.map(HttpServer::start);
    let mut clients = servers.each_ref().map(|server| connect(server.addr));
    let before = servers.each_mut().map(|server| rss_kib(&server.child));
    let batch = 50;
    let mut opened = 0;
    while opened < sessions {
        let this_batch = batch.min(sessions - opened);
        for client in &mut clients {
            for _ in 0..this_batch {
                let session = client.open_session(&initialize());
                client.request(Method::DELETE, "", Some(&session));
            }
        }
        opened += this_batch;
    }
    let after = servers.each_mut().map(|server| rss_kib(&server.child));
    let mib = |kib: u64| kib as f64 / 1024.0;
    for ((server, before), after) in Server::BOTH.into_iter().zip(before).zip(after) {
        println!(
            "http   {:<10} RSS {:>6.1} MiB at start, {:>6.1} MiB after {sessions} sessions \
             (anonymous {:.1} and {:.1})",
            server.name(),
            mib(before[0]),
            mib(after[0]),
            mib(before[1]),
            mib(after[1]),
        );
    }
    println!(
        "http   holon-mcp/rmcp in RSS after: {:.2}x (anonymous {:.2}x)",
        after[0][0] as f64 / after[1][0] as f64,
        after[0][1] as f64 / after[1][1] as f64
    );
}

/// The resident set of `child` in KiB, from `/proc`: all of it (`VmRSS`) and its
/// anonymous part (`RssAnon`, the heap and stacks; the rest is pages of the binary and
/// its libraries, shared and reclaimable). 0 where there is none.
fn rss_kib(child: &Child) -> [u64; 2] {
    let status =
        std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
    ["VmRSS:", "RssAnon:"].map(|field| {
        status
            .lines()
            .find_map(|line| {
                line.strip_prefix(field)?
                    .trim()
                    .strip_suffix("kB")?
                    .trim()
                    .parse()
                    .ok()
            })
            .unwrap_or(0)
    })
}

fn initialize() -> Value {
    Client::new("mcp_vs_rmcp").initialize_at(PROTOCOL, 0)
}

fn start_stdio(server: Server) -> StdioServer {
    let mut client = StdioServer::of_child(server.spawn("stdio"));
    client.initialize(&initialize());
    client
}

fn connect(addr: SocketAddr) -> HttpClient {
    HttpClient::connect(addr, PROTOCOL, Some(TOKEN))
}

/// One `tools/call` of CountWords in `session`: its round trip.
fn call_over_http(client: &mut HttpClient, server: Server, id: usize, session: &str) -> Duration {
    let started = Instant::now();
    let (_, body) = client.request(Method::POST, &server.call(id).to_string(), Some(session));
    let took = started.elapsed();
    assert!(
        body.contains("\"result\"") && !body.contains("\"isError\":true"),
        "{body}"
    );
    took
}

/// One `tools/call` of CountWords on stdio: its round trip.
fn call_over_stdio(client: &mut StdioServer, server: Server, id: usize) -> Duration {
    let started = Instant::now();
    client.send(&server.call(id));
    let (_, reply) = client.until_answer(id as u64, |_| None);
    let took = started.elapsed();
    assert!(reply["result"]["isError"] != true, "{reply}");
    assert!(reply.get("result").is_some(), "{reply}");
    took
}

/// A server on streamable HTTP on loopback, with a client holding one session.
struct HttpServer {
    child: Child,
    addr: SocketAddr,
    client: HttpClient,
    session: String,
}

impl HttpServer {
    fn start(server: Server) -> Self {
        let mut child = server.spawn("http");
        let addr = listening_address(&mut child);
        let mut client = connect(addr);
        let session = client.open_session(&initialize());
        Self {
            child,
            addr,
            client,
            session,
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs as the server `role` names, until its client goes.
fn serve(role: &str) -> ExitCode {
    let loopback: SocketAddr = "127.0.0.1:0".parse().unwrap();
    match role {
        "holon-stdio" => exit_code(holon_mcp::run_stdio(holon_server())),
        "holon-http" => exit_code(runtime().block_on(serve_holon_http(loopback))),
        "rmcp-stdio" => runtime().block_on(on_rmcp::serve_stdio()),
        "rmcp-http" => runtime().block_on(on_rmcp::serve_http(loopback)),
        other => {
            eprintln!("mcp_vs_rmcp: no server {other:?}");
            ExitCode::FAILURE
        }
    }
}

fn holon_server() -> holon_mcp::McpServer {
    let tools = Registry::of_module(module_path!()).expect("the bench's one tool");
    holon_mcp::McpServer::new(tools, holon_mcp::server_info!())
}

/// holon-mcp's server on streamable HTTP on `addr`, its URL and token on stderr, as
/// `holon-tools serve --http` runs it.
async fn serve_holon_http(addr: SocketAddr) -> Result<(), holon_mcp::ServeError> {
    let options = holon_mcp::HttpOptions::new();
    let http = holon_mcp::HttpServer::bind(addr, holon_server(), options).await?;
    eprintln!("{}", http.announcement());
    http.with_graceful_shutdown(holon_mcp::shutdown_signal())
        .await
}

/// The exit code of a holon-mcp server that `served`, its error on stderr.
fn exit_code(served: Result<(), holon_mcp::ServeError>) -> ExitCode {
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp_vs_rmcp: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The runtime holon-mcp's `run_stdio` starts, for its HTTP server and rmcp's.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a Tokio runtime")
}

/// The same server on rmcp 3.11 alone: its macros, stdio and streamable HTTP over hyper,
/// as `scripts/mcp-build-cost` builds it, with CountWords a second time as `Json<T>`.
mod on_rmcp {
    use std::net::SocketAddr;
    use std::process::ExitCode;
    use std::sync::Arc;

    use hyper::body::Incoming;
    use hyper_util::rt::TokioIo;
    use rmcp::handler::server::router::tool::ToolRouter;
    use rmcp::handler::server::wrapper::{Json, Parameters};
    use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };
    use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};

    #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    struct CountWordsArgs {
        /// The text to count the words of.
        text: String,
    }

    #[derive(Debug, serde::Serialize, schemars::JsonSchema)]
    struct WordCount {
        /// How many words the text has.
        result: usize,
    }

    #[derive(Debug, Clone)]
    struct Server {
        tool_router: ToolRouter<Self>,
    }

    #[tool_router]
    impl Server {
        #[tool(description = "Count the words of a text.")]
        fn count_words(&self, Parameters(args): Parameters<CountWordsArgs>) -> String {
            args.text.split_whitespace().count().to_string()
        }

        #[tool(description = "Count the words of a text.")]
        fn count_words_json(
            &self,
            Parameters(args): Parameters<CountWordsArgs>,
        ) -> Json<WordCount> {
            Json(WordCount {
                result: args.text.split_whitespace().count(),
            })
        }
    }

    #[tool_handler(router = self.tool_router)]
    impl ServerHandler for Server {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
                .with_server_info(Implementation::new("on-rmcp", "0.1.0"))
        }
    }

    fn server() -> Server {
        Server {
            tool_router: Server::tool_router(),
        }
    }

    pub(crate) async fn serve_stdio() -> ExitCode {
        let Ok(running) = server().serve(rmcp::transport::stdio()).await else {
            return ExitCode::FAILURE;
        };
        let _ = running.waiting().await;
        ExitCode::SUCCESS
    }

    pub(crate) async fn serve_http(addr: SocketAddr) -> ExitCode {
        let service = StreamableHttpService::new(
            || Ok(server()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .expect("the address");
        let local = listener.local_addr().expect("a bound address");
        eprintln!("on-rmcp: serving MCP over streamable HTTP at http://{local}/mcp");
        loop {
            let (stream, _) = listener.accept().await.expect("a connection");
            // As holon-mcp does: no delayed-ACK stall on each response.
            let _ = stream.set_nodelay(true);
            let service = service.clone();
            tokio::spawn(async move {
                let handler = hyper::service::service_fn(
                    move |request: hyper::Request<Incoming>| {
                        let service = service.clone();
                        async move { Ok::<_, std::convert::Infallible>(service.handle(request).await) }
                    },
                );
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), handler)
                    .await;
            });
        }
    }
}
