//! Latency of one MCP `tools/call`, over streamable HTTP on loopback and over stdio
//! (the baseline) in the same run: p50 and p99 of the client-side round trip.
//!
//! `cargo bench -p holon-tools --bench mcp_latency`. `HOLON_BENCH_BIN` measures another
//! build of `holon-tools` (e.g. an older commit's) instead of this one;
//! `HOLON_BENCH_CALLS` sets the calls per transport (default 400; 10 when the bench
//! runs as a test, `cargo test -p holon-tools --bench mcp_latency`).
//!
//! Both servers run at once and the transports take turns call by call, so that load
//! from elsewhere on the machine falls on both alike. The HTTP client keeps one
//! connection alive, as MCP clients do, and sets `TCP_NODELAY` itself, so what the
//! figures show of Nagle is the server's sockets.

// A benchmark harness: it sets up files, servers and processes of its own.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{self, Child, ChildStdin, ChildStdout, Command};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod support;

const TOKEN: &str = "bench-token-0123456789abcdef";
const WARMUP_CALLS: usize = 20;

fn main() {
    let binary = std::env::var("HOLON_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_holon-tools").to_string());
    let calls = std::env::var("HOLON_BENCH_CALLS")
        .ok()
        .and_then(|calls| calls.parse().ok())
        .unwrap_or(if support::test_mode() { 10 } else { 400 });
    let workspace = tempfile::tempdir().expect("a temporary workspace");
    println!("mcp_latency: {binary}, {calls} tools/call per transport (ListModelProviders)");
    let mut stdio = Stdio::start(&binary, workspace.path());
    let mut http = HttpServer::start(&binary, workspace.path());
    // The transports take turns, call by call, so that both see the same load.
    let (mut over_stdio, mut over_http) = (Vec::new(), Vec::new());
    for id in 1..=WARMUP_CALLS + calls {
        let stdio_took = stdio.call(id);
        let http_took = http.call(id);
        if id > WARMUP_CALLS {
            over_stdio.push(stdio_took);
            over_http.push(http_took);
        }
    }
    stdio.stop();
    http.stop();
    let (stdio, http) = (summarize(&over_stdio), summarize(&over_http));
    println!("stdio  p50 {:>8.3} ms  p99 {:>8.3} ms", stdio.0, stdio.1);
    println!("http   p50 {:>8.3} ms  p99 {:>8.3} ms", http.0, http.1);
    println!("http/stdio at p50: {:.1}x", http.0 / stdio.0);
}

fn call(id: usize) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "ListModelProviders", "arguments": {}}})
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "mcp_latency", "version": "0"},
    }})
}

const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// (p50, p99) in milliseconds.
fn summarize(latencies: &[Duration]) -> (f64, f64) {
    let mut sorted = latencies.to_vec();
    sorted.sort();
    let at = |quantile: f64| {
        let index = ((sorted.len() as f64 * quantile).ceil() as usize).clamp(1, sorted.len()) - 1;
        sorted[index].as_secs_f64() * 1000.0
    };
    (at(0.50), at(0.99))
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

/// `holon-tools serve` on stdio, initialized.
struct Stdio {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Stdio {
    fn start(binary: &str, workspace: &Path) -> Self {
        let mut child = server(binary, workspace, &["--families", "core_agent"]);
        let mut server = Self {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
        };
        server.exchange(&initialize());
        writeln!(server.stdin, "{INITIALIZED}").unwrap();
        server
    }

    fn exchange(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        loop {
            line.clear();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the server hung up"
            );
            let reply: Value = serde_json::from_str(&line).unwrap();
            if reply["id"] == message["id"] {
                assert!(reply.get("result").is_some(), "{reply}");
                return;
            }
        }
    }

    fn call(&mut self, id: usize) -> Duration {
        let started = Instant::now();
        self.exchange(&call(id));
        started.elapsed()
    }

    fn stop(mut self) {
        drop(self.stdin);
        let _ = self.child.wait();
    }
}

/// `holon-tools serve --http` on loopback, with one initialized session.
struct HttpServer {
    child: Child,
    client: Http,
    session: String,
}

impl HttpServer {
    fn start(binary: &str, workspace: &Path) -> Self {
        let mut child = server(binary, workspace, &["--http", "127.0.0.1:0"]);
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let authority = line
            .split("at http://")
            .nth(1)
            .and_then(|url| url.trim().strip_suffix("/mcp"))
            .unwrap_or_else(|| panic!("no URL in {line:?}"))
            .to_string();
        // Drain stderr so that the server never blocks on it.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));

        let mut client = Http::connect(&authority);
        let (headers, _) = client.post(&initialize().to_string(), None);
        let session = headers
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("mcp-session-id")
                    .then(|| value.trim().to_string())
            })
            .expect("a session id");
        client.post(INITIALIZED, Some(&session));
        Self {
            child,
            client,
            session,
        }
    }

    fn call(&mut self, id: usize) -> Duration {
        let started = Instant::now();
        let (_, body) = self.client.post(&call(id).to_string(), Some(&self.session));
        let took = started.elapsed();
        assert!(body.contains("\"result\""), "{body}");
        took
    }

    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Just enough HTTP/1.1 for the bench: one kept-alive connection, a POST, and a
/// response read to its end (a length or chunks).
struct Http {
    authority: String,
    stream: BufReader<TcpStream>,
}

impl Http {
    fn connect(authority: &str) -> Self {
        let stream = TcpStream::connect(authority).expect("the server accepts");
        stream.set_nodelay(true).unwrap();
        Self {
            authority: authority.to_string(),
            stream: BufReader::new(stream),
        }
    }

    /// The response's header block and body.
    fn post(&mut self, body: &str, session: Option<&str>) -> (String, String) {
        let session = session
            .map(|id| format!("Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-06-18\r\n"))
            .unwrap_or_default();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             {session}Content-Length: {}\r\n\r\n{body}",
            self.authority,
            body.len()
        );
        self.stream.get_mut().write_all(request.as_bytes()).unwrap();
        let mut headers = String::new();
        loop {
            let mut line = String::new();
            assert!(
                self.stream.read_line(&mut line).unwrap() > 0,
                "the server hung up"
            );
            if line == "\r\n" {
                break;
            }
            headers.push_str(&line);
        }
        assert!(headers.starts_with("HTTP/1.1 2"), "{headers}");
        let header = |name: &str| {
            headers.lines().find_map(|line| {
                let (key, value) = line.split_once(':')?;
                key.eq_ignore_ascii_case(name)
                    .then(|| value.trim().to_string())
            })
        };
        let mut body = Vec::new();
        if let Some(length) = header("content-length") {
            body.resize(length.parse().unwrap(), 0);
            self.stream.read_exact(&mut body).unwrap();
        } else if header("transfer-encoding").is_some_and(|value| value.contains("chunked")) {
            loop {
                let mut size = String::new();
                self.stream.read_line(&mut size).unwrap();
                let size = usize::from_str_radix(size.trim(), 16).unwrap();
                let start = body.len();
                body.resize(start + size + 2, 0);
                self.stream.read_exact(&mut body[start..]).unwrap();
                body.truncate(start + size);
                if size == 0 {
                    break;
                }
            }
        }
        (headers, String::from_utf8(body).unwrap())
    }
}
