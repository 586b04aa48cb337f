//! The example server on stdio, spoken to in raw JSON-RPC: one driver for the test
//! binaries, stateless (2026-07-28, every request names its revision in `_meta`) or
//! initialized (2025-11-25).

// Each test binary uses part of the driver.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

const TIMEOUT: Duration = Duration::from_secs(60);

/// The running example server; killed when dropped.
pub struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Value>,
    next_id: u64,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// The server for stateless requests: no `initialize`.
    pub fn stateless() -> Self {
        Self::stateless_with(&[])
    }

    /// The server for stateless requests, started with the further `args`.
    pub fn stateless_with(args: &[&std::ffi::OsStr]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_conformance-server"))
            .arg("--stdio")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the example server starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let message = serde_json::from_str(&line).expect("the server writes JSON lines");
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            stdin,
            lines,
            next_id: 1,
        }
    }

    /// The server, initialized under 2025-11-25 by the client `client_name` of
    /// `capabilities` (request id 0).
    pub fn initialized(client_name: &str, capabilities: Value) -> Self {
        let mut server = Self::stateless();
        server.send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "clientInfo": {"name": client_name, "version": "1"}
            }}),
        );
        let (_, answer) = server.until_answer(0, |_| None);
        assert!(
            answer["result"]["capabilities"]["logging"].is_object(),
            "{answer}"
        );
        server.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    /// Writes `message` as one line.
    pub fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Every message before the answer to `id`, and the answer. A request of the
    /// server is answered with what `reply` gives for it.
    pub fn until_answer(
        &mut self,
        id: u64,
        reply: impl Fn(&Value) -> Option<Value>,
    ) -> (Vec<Value>, Value) {
        let mut before = Vec::new();
        loop {
            let message = self
                .lines
                .recv_timeout(TIMEOUT)
                .expect("the server answers");
            if message["id"] == id && message.get("method").is_none() {
                return (before, message);
            }
            if message.get("method").is_some()
                && message.get("id").is_some()
                && let Some(result) = reply(&message)
            {
                self.send(json!({"jsonrpc": "2.0", "id": message["id"], "result": result}));
            }
            before.push(message);
        }
    }

    /// Sends `method` with `params` under the next id; every message before its
    /// answer, and the answer.
    pub fn request(&mut self, method: &str, params: Value) -> (Vec<Value>, Value) {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.until_answer(id, |_| None)
    }
}
