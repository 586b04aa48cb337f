//! The example server on stdio, spoken to in raw JSON-RPC through holon-test-support's
//! stdio client: stateless (2026-07-28, every request names its revision in `_meta`)
//! or initialized (2025-11-25).

// Each test binary uses part of the driver.
#![allow(dead_code)]

use std::process::{Command, Stdio};

use holon_test_support::initialize::Client;
use holon_test_support::stdio::StdioServer;
use serde_json::Value;

/// The running example server; killed when dropped.
pub struct Server(StdioServer);

impl Server {
    /// The server for stateless requests: no `initialize`.
    pub fn stateless() -> Self {
        Self::stateless_with(&[])
    }

    /// The server for stateless requests, started with the further `args`.
    pub fn stateless_with(args: &[&std::ffi::OsStr]) -> Self {
        Self(StdioServer::spawn(
            Command::new(env!("CARGO_BIN_EXE_conformance-server"))
                .arg("--stdio")
                .args(args)
                .stderr(Stdio::null()),
        ))
    }

    /// The server, initialized under 2025-11-25 by the client `client_name` of
    /// `capabilities` (request id 0).
    pub fn initialized(client_name: &str, capabilities: Value) -> Self {
        let mut server = Self::stateless();
        let client = Client::new(client_name)
            .version("1")
            .capabilities(capabilities);
        let answer = server.0.initialize(&client.initialize(0));
        assert!(
            answer["result"]["capabilities"]["logging"].is_object(),
            "{answer}"
        );
        server
    }

    /// Writes `message` as one line.
    pub fn send(&mut self, message: Value) {
        self.0.send(&message);
    }

    /// Every message before the answer to `id`, and the answer. A request of the
    /// server is answered with what `reply` gives for it.
    pub fn until_answer(
        &mut self,
        id: u64,
        reply: impl Fn(&Value) -> Option<Value>,
    ) -> (Vec<Value>, Value) {
        self.0.until_answer(id, reply)
    }

    /// Sends `method` with `params` under the next id; every message before its
    /// answer, and the answer.
    pub fn request(&mut self, method: &str, params: Value) -> (Vec<Value>, Value) {
        self.0.request(method, params)
    }
}
