//! The MCP client side of holon-tools' `mcp_latency` bench, which includes it by
//! `#[path]`: a server process on stdio, just enough HTTP/1.1 for one kept-alive
//! connection, and the quantiles of what it measured. holon-test-support has the same
//! (`stdio`, `http::BlockingClient`, `latency`); this copy goes once that bench uses it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, ChildStdout};
use std::time::Duration;

use serde_json::{Value, json};

/// The bearer token the benches start their HTTP servers with.
pub const TOKEN: &str = "bench-token-0123456789abcdef";

/// `notifications/initialized`.
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// `initialize` at revision `protocol`, from client `name`.
pub fn initialize(protocol: &str, name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": protocol,
        "capabilities": {},
        "clientInfo": {"name": name, "version": "0"},
    }})
}

/// (p50, p99) in milliseconds.
pub fn quantiles(latencies: &[Duration]) -> (f64, f64) {
    let mut sorted = latencies.to_vec();
    sorted.sort();
    let at = |quantile: f64| {
        let index = ((sorted.len() as f64 * quantile).ceil() as usize).clamp(1, sorted.len()) - 1;
        sorted[index].as_secs_f64() * 1000.0
    };
    (at(0.50), at(0.99))
}

/// A server on stdio, initialized.
pub struct StdioClient {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl StdioClient {
    /// Takes `child`'s stdio and initializes it with `initialize`.
    pub fn start(mut child: Child, initialize: &Value) -> Self {
        let mut client = Self {
            stdin: child.stdin.take().expect("the server's stdin, piped"),
            stdout: BufReader::new(child.stdout.take().expect("the server's stdout, piped")),
            child,
        };
        client.exchange(initialize);
        writeln!(client.stdin, "{INITIALIZED}").unwrap();
        client
    }

    /// Sends `message` and reads up to its answer, which must be a result and not a
    /// tool's error.
    pub fn exchange(&mut self, message: &Value) {
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
                assert!(reply["result"]["isError"] != true, "{reply}");
                assert!(reply.get("result").is_some(), "{reply}");
                return;
            }
        }
    }

    /// Closes the server's stdin and waits for it to end.
    pub fn stop(mut self) {
        drop(self.stdin);
        let _ = self.child.wait();
    }
}

/// The `host:port` an HTTP server prints on its stderr (`... at http://ADDR/mcp`),
/// the lines before it (`holon-tools serve` names its approval policy first)
/// skipped; the rest of its stderr is drained so that it never blocks.
pub fn listening_authority(child: &mut Child) -> String {
    let mut stderr = BufReader::new(child.stderr.take().expect("the server's stderr, piped"));
    let mut seen = String::new();
    let authority = loop {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap() == 0 {
            panic!("no URL in {seen:?}");
        }
        if let Some(url) = line.split("at http://").nth(1) {
            break url
                .trim()
                .strip_suffix("/mcp")
                .unwrap_or_else(|| panic!("no URL in {line:?}"))
                .to_string();
        }
        seen.push_str(&line);
    };
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    authority
}

/// Just enough HTTP/1.1 for the benches: one kept-alive connection with
/// `TCP_NODELAY` (so what the figures show of Nagle is the server's), a request with
/// [`TOKEN`], and its response read to its end (a length or chunks).
pub struct HttpClient {
    authority: String,
    protocol: &'static str,
    stream: BufReader<TcpStream>,
}

impl HttpClient {
    /// A connection to `authority`, whose sessions speak revision `protocol`.
    pub fn connect(authority: &str, protocol: &'static str) -> Self {
        let stream = TcpStream::connect(authority).expect("the server accepts");
        stream.set_nodelay(true).unwrap();
        Self {
            authority: authority.to_string(),
            protocol,
            stream: BufReader::new(stream),
        }
    }

    /// initialize (as `initialize`) and notifications/initialized: the session's id.
    pub fn open_session(&mut self, initialize: &Value) -> String {
        let (headers, _) = self.request("POST", &initialize.to_string(), None);
        let session = header(&headers, "mcp-session-id").expect("a session id");
        self.request("POST", INITIALIZED, Some(&session));
        session
    }

    /// The response's header block and body, which must have a 2xx status.
    pub fn request(&mut self, method: &str, body: &str, session: Option<&str>) -> (String, String) {
        let session = session
            .map(|id| {
                format!(
                    "Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: {}\r\n",
                    self.protocol
                )
            })
            .unwrap_or_default();
        let request = format!(
            "{method} /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\n\
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
        let mut body = Vec::new();
        if let Some(length) = header(&headers, "content-length") {
            body.resize(length.parse().unwrap(), 0);
            self.stream.read_exact(&mut body).unwrap();
        } else if header(&headers, "transfer-encoding")
            .is_some_and(|value| value.contains("chunked"))
        {
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

/// The value of header `name` in a response's header block.
pub fn header(headers: &str, name: &str) -> Option<String> {
    headers.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name)
            .then(|| value.trim().to_string())
    })
}
