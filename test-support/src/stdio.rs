//! An MCP client of a server process on stdio: JSON-RPC messages written as lines to
//! its stdin, its stdout read line by line on a thread, so that a test waits for an
//! answer with a deadline and never hangs on a silent server.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// How long a test waits for what should happen; never reached when it does.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// A server process on stdio; killed when dropped, failed assertions included.
pub struct StdioServer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl StdioServer {
    /// Starts `command` with its stdin and stdout piped (its stderr as `command` says).
    pub fn spawn(command: &mut Command) -> Self {
        let child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("{command:?} does not start: {error}"));
        Self::of_child(child)
    }

    /// Takes over `child`, whose stdin and stdout are piped.
    pub fn of_child(mut child: Child) -> Self {
        let stdin = child.stdin.take().expect("the server's stdin, piped");
        let stdout = child.stdout.take().expect("the server's stdout, piped");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            stdin: Some(stdin),
            lines,
            next_id: 1,
        }
    }

    /// The server's stdin, for what is not one JSON-RPC line (bytes split across
    /// writes, malformed input).
    pub fn stdin(&mut self) -> &mut ChildStdin {
        self.stdin.as_mut().expect("the server's stdin, not closed")
    }

    /// The lines of the server's stdout not read yet.
    pub fn lines(&self) -> &Receiver<String> {
        &self.lines
    }

    /// Writes `message` as one line.
    pub fn send(&mut self, message: &Value) {
        let stdin = self.stdin();
        writeln!(stdin, "{message}").expect("the server reads its stdin");
        stdin.flush().expect("the server reads its stdin");
    }

    /// The next line of the server's stdout; `None` once it ended. Panics after
    /// [`TIMEOUT`] without one.
    pub fn next_line(&self) -> Option<String> {
        match self.lines.recv_timeout(TIMEOUT) {
            Ok(line) => Some(line),
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => panic!("the server wrote nothing in {TIMEOUT:?}"),
        }
    }

    /// The next message the server writes, which must be one line of JSON.
    pub fn next(&self) -> Value {
        let line = self.next_line().expect("the server answers");
        serde_json::from_str(&line)
            .unwrap_or_else(|error| panic!("the server writes JSON lines ({error}): {line:?}"))
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
            let message = self.next();
            if message["id"] == id && message.get("method").is_none() {
                return (before, message);
            }
            if message.get("method").is_some()
                && message.get("id").is_some()
                && let Some(result) = reply(&message)
            {
                self.send(&json!({"jsonrpc": "2.0", "id": message["id"], "result": result}));
            }
            before.push(message);
        }
    }

    /// Sends `method` with `params` under the next id (from 1 on); every message before
    /// its answer, and the answer.
    pub fn request(&mut self, method: &str, params: Value) -> (Vec<Value>, Value) {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.until_answer(id, |_| None)
    }

    /// Sends `initialize` (a request with a numeric id), waits for its answer, then
    /// sends `notifications/initialized`: the answer.
    pub fn initialize(&mut self, initialize: &Value) -> Value {
        let id = initialize["id"]
            .as_u64()
            .expect("an initialize with a numeric id");
        self.send(initialize);
        let (_, answer) = self.until_answer(id, |_| None);
        self.send(&crate::initialize::initialized());
        answer
    }

    /// Closes the server's stdin and waits for the server to end: how it ended.
    pub fn close(mut self) -> ExitStatus {
        drop(self.stdin.take());
        self.child.wait().expect("the server's exit status")
    }
}
