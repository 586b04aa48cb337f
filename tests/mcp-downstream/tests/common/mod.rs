//! The downstream server as the tests run it: over stdio (holon-test-support's stdio
//! client) or on a loopback HTTP port, killed when the test is done with it.

// Each test binary uses part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};

use holon_test_support::initialize::Client;
pub use holon_test_support::stdio::{StdioServer, TIMEOUT};
use serde_json::Value;

/// The bearer token of the HTTP server.
pub const TOKEN: &str = "downstream-token-4f7a1c9e2b";

/// A server process, killed when the test is done with it, failed assertions included.
pub struct Server {
    child: Child,
    /// Its stderr past the URL line, read on so that the server never blocks on it.
    stderr: Option<Receiver<String>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Lines of a child's stream, read on a thread so that a test never hangs on them.
fn lines(reader: impl Read + Send + 'static) -> Receiver<String> {
    let (sender, receiver) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(reader).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    receiver
}

/// The server over stdio, killed when dropped.
pub fn over_stdio() -> StdioServer {
    StdioServer::spawn(
        Command::new(env!("CARGO_BIN_EXE_holon-mcp-downstream")).stderr(Stdio::null()),
    )
}

/// The 2025-11-25 `initialize` (id 1) of the tests' client.
pub fn initialize() -> Value {
    Client::new("downstream-test").version("1").initialize(1)
}

/// The server on a free loopback port with `TOKEN` and the flags `args`: the line
/// it printed its URL on, and its authority (`127.0.0.1:PORT`).
pub fn over_http(args: &[&str]) -> (Server, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_holon-mcp-downstream"))
        .args(["--http", "127.0.0.1:0"])
        .args(args)
        .env("HOLON_MCP_TOKEN", TOKEN)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = lines(child.stderr.take().unwrap());
    let server = Server {
        child,
        stderr: Some(stderr),
    };
    let line = server
        .stderr
        .as_ref()
        .and_then(|stderr| stderr.recv_timeout(TIMEOUT).ok())
        .expect("the URL line");
    let authority = line
        .split("at http://")
        .nth(1)
        .and_then(|url| url.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_string();
    (server, line, authority)
}
