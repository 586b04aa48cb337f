//! Latency of one MCP `tools/call`, over streamable HTTP on loopback and over stdio
//! (the baseline) in the same run: p50 and p99 of the client-side round trip.
//!
//! `cargo bench -p holon-cli --bench mcp_latency`. `HOLON_BENCH_BIN` measures another
//! build of `holon-tools` (e.g. an older commit's) instead of this one;
//! `HOLON_BENCH_CALLS` sets the calls per transport (default 400; 10 when the bench
//! runs as a test, `cargo test -p holon-cli --bench mcp_latency`).
//!
//! Both servers run at once and the transports take turns call by call, so that load
//! from elsewhere on the machine falls on both alike. The HTTP client keeps one
//! connection alive, as MCP clients do, and sets `TCP_NODELAY` itself, so what the
//! figures show of Nagle is the server's sockets.

// A benchmark harness: it sets up files, servers and processes of its own.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::path::Path;
use std::process::{self, Child, Command};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use holon_test_support::bench::test_mode;
use holon_test_support::http::BlockingClient as HttpClient;
use holon_test_support::initialize::Client;
use holon_test_support::latency::quantiles;
use holon_test_support::process::listening_address;
use holon_test_support::stdio::StdioServer;
use hyper::Method;

/// The bearer token the HTTP server starts with.
const TOKEN: &str = "bench-token-0123456789abcdef";

const PROTOCOL: &str = "2025-06-18";
const WARMUP_CALLS: usize = 20;

fn main() {
    let binary = std::env::var("HOLON_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_holon-tools").to_string());
    let calls = std::env::var("HOLON_BENCH_CALLS")
        .ok()
        .and_then(|calls| calls.parse().ok())
        .unwrap_or(if test_mode() { 10 } else { 400 });
    let workspace = tempfile::tempdir().expect("a temporary workspace");
    println!("mcp_latency: {binary}, {calls} tools/call per transport (ListModelProviders)");
    let mut stdio = StdioServer::of_child(server(
        &binary,
        workspace.path(),
        &["--families", "core_agent"],
    ));
    stdio.initialize(&initialize());
    let mut http = HttpServer::start(&binary, workspace.path());
    // The transports take turns, call by call, so that both see the same load.
    let (mut over_stdio, mut over_http) = (Vec::new(), Vec::new());
    for id in 1..=WARMUP_CALLS + calls {
        let started = Instant::now();
        stdio.send(&call(id));
        stdio.until_answer(id as u64, |_| None);
        let stdio_took = started.elapsed();
        let http_took = http.call(id);
        if id > WARMUP_CALLS {
            over_stdio.push(stdio_took);
            over_http.push(http_took);
        }
    }
    let _ = stdio.close();
    http.stop();
    let (stdio, http) = (quantiles(&over_stdio), quantiles(&over_http));
    println!("stdio  p50 {:>8.3} ms  p99 {:>8.3} ms", stdio.0, stdio.1);
    println!("http   p50 {:>8.3} ms  p99 {:>8.3} ms", http.0, http.1);
    println!("http/stdio at p50: {:.1}x", http.0 / stdio.0);
}

fn call(id: usize) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "ListModelProviders", "arguments": {}}})
}

fn initialize() -> Value {
    Client::new("mcp_latency").initialize_at(PROTOCOL, 0)
}

fn server(binary: &str, workspace: &Path, args: &[&str]) -> Child {
    // The state next to the workspace, not in the user's data directory.
    Command::new(binary)
        .arg("--workspace")
        .arg(workspace)
        .env("HOLON_HOME", workspace.join(".holon"))
        .arg("serve")
        .args(args)
        .env("HOLON_MCP_TOKEN", TOKEN)
        .stdin(process::Stdio::piped())
        .stdout(process::Stdio::piped())
        .stderr(process::Stdio::piped())
        .spawn()
        .expect("the server starts")
}

/// `holon-tools serve --http` on loopback, with one initialized session.
struct HttpServer {
    child: Child,
    client: HttpClient,
    session: String,
}

impl HttpServer {
    fn start(binary: &str, workspace: &Path) -> Self {
        let mut child = server(binary, workspace, &["--http", "127.0.0.1:0"]);
        let addr = listening_address(&mut child);
        let mut client = HttpClient::connect(addr, PROTOCOL, Some(TOKEN));
        let session = client.open_session(&initialize());
        Self {
            child,
            client,
            session,
        }
    }

    fn call(&mut self, id: usize) -> Duration {
        let started = Instant::now();
        let (_, body) =
            self.client
                .request(Method::POST, &call(id).to_string(), Some(&self.session));
        let took = started.elapsed();
        assert!(body.contains("\"result\""), "{body}");
        took
    }

    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
