//! MCP on a pair of byte streams: the process's stdin and stdout, or any the host
//! hands over.

pub(crate) mod lines;
pub(crate) mod pipes;

use std::future::Future;

use rmcp::ServiceExt;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::ServeError;
use crate::listing::ListingTransport;
use crate::server::McpServer;
use crate::shutdown::{ServeFuture, WithGracefulShutdown, shutdown_signal};
use crate::stdio::lines::{BoundedLines, DEFAULT_MAX_LINE_BYTES, LineLimit, rmcp_line_limit};
use crate::stdio::pipes::Streams;

/// The input the server reads.
type Input = Box<dyn AsyncRead + Send + Unpin>;
/// The output the server writes.
type Output = Box<dyn AsyncWrite + Send + Unpin>;

/// MCP over newline-delimited JSON-RPC on two streams, until the client closes its
/// input. A line longer than [`DEFAULT_MAX_LINE_BYTES`] (see
/// [`with_max_line_bytes`](Self::with_max_line_bytes)) is answered with a JSON-RPC
/// error and the session goes on.
///
/// ```no_run
/// # async fn doc(server: holon_mcp::McpServer) -> Result<(), holon_mcp::ServeError> {
/// holon_mcp::StdioServer::process(server)
///     .with_graceful_shutdown(holon_mcp::shutdown_signal())
///     .await
/// # }
/// ```
pub struct StdioServer {
    server: McpServer,
    streams: Option<(Input, Output)>,
    max_line_bytes: usize,
}

impl StdioServer {
    /// Serves `server` reading `input` and writing `output`.
    pub fn new(
        server: McpServer,
        input: impl AsyncRead + Send + Unpin + 'static,
        output: impl AsyncWrite + Send + Unpin + 'static,
    ) -> Self {
        Self {
            server,
            streams: Some((Box::new(input), Box::new(output))),
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
        }
    }

    /// Serves `server` on this process's stdin and stdout: pipes and Unix sockets
    /// read and written without blocking, and set back to blocking when it ends.
    pub fn process(server: McpServer) -> Self {
        Self {
            server,
            streams: None,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
        }
    }

    /// Lines of at most `max_line_bytes` (newline aside); a longer one is dropped and
    /// answered with a JSON-RPC error (`-32600`, kind `message_too_long`), and the
    /// session goes on.
    pub fn with_max_line_bytes(mut self, max_line_bytes: usize) -> Self {
        self.max_line_bytes = max_line_bytes;
        self
    }

    /// Serves until the client closes its input or `signal` resolves (such as
    /// [`shutdown_signal`](crate::shutdown_signal)).
    pub fn with_graceful_shutdown<F>(self, signal: F) -> WithGracefulShutdown<Self, F>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        WithGracefulShutdown {
            server: self,
            signal,
        }
    }

    /// Serves until the client closes its input or `shutdown` resolves.
    async fn serve_until(
        self,
        shutdown: impl Future<Output = ()> + Send,
    ) -> Result<(), ServeError> {
        match self.streams {
            Some((input, output)) => {
                serve_lines(self.server, input, output, self.max_line_bytes, shutdown).await
            }
            None => {
                // Inside the runtime: the pipes register with its reactor.
                let Streams {
                    input,
                    output,
                    restore,
                } = Streams::of_process();
                let served =
                    serve_lines(self.server, input, output, self.max_line_bytes, shutdown).await;
                drop(restore);
                served
            }
        }
    }
}

impl std::fmt::Debug for StdioServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StdioServer")
            .field("name", &self.server.info().name())
            .field("process_streams", &self.streams.is_none())
            .field("max_line_bytes", &self.max_line_bytes)
            .finish_non_exhaustive()
    }
}

/// Serves until the client closes its input.
impl IntoFuture for StdioServer {
    type Output = Result<(), ServeError>;
    type IntoFuture = ServeFuture;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.serve_until(std::future::pending()))
    }
}

/// Serves until the client closes its input or the signal comes.
impl<F> IntoFuture for WithGracefulShutdown<StdioServer, F>
where
    F: Future<Output = ()> + Send + 'static,
{
    type Output = Result<(), ServeError>;
    type IntoFuture = ServeFuture;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.server.serve_until(self.signal))
    }
}

/// Serves MCP on this process's stdin and stdout until the client closes them or
/// Ctrl-C or SIGTERM arrives, on a Tokio runtime of its own: for a `fn main` without
/// one. Inside a runtime, await [`StdioServer::process`] instead.
pub fn run_stdio(server: McpServer) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(
        StdioServer::process(server)
            .with_graceful_shutdown(shutdown_signal())
            .into_future(),
    )
}

/// Serves `server` on `input` and `output` until the input ends or `shutdown`.
async fn serve_lines(
    server: McpServer,
    input: impl AsyncRead + Send + Unpin + 'static,
    output: impl AsyncWrite + Send + Unpin + 'static,
    max_line_bytes: usize,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), ServeError> {
    let executions = server.catalog()?.executions();
    let (input, dropped) = LineLimit::new(input, max_line_bytes);
    let lines = AsyncRwTransport::new_server(input, output)
        .with_max_line_length(rmcp_line_limit(max_line_bytes));
    let stdio = ListingTransport::new(BoundedLines::new(lines, dropped), executions);
    let running = server
        .serve(stdio)
        .await
        .map_err(|error| ServeError::Connect(Box::new(error)))?;
    tokio::select! {
        finished = running.waiting() => finished.map(drop).map_err(ServeError::Session),
        () = shutdown => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use holon_core::Registry;
    use holon_core::prelude::holon_tool;
    use serde_json::{Value, json};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

    use super::*;
    use crate::ServerInfo;

    /// A guard against a hang only: what is tested happens long before.
    const HANG: Duration = Duration::from_secs(60);
    /// The line limit of the tests' server.
    const MAX: usize = 256;

    /// Says hello.
    #[holon_tool(family = CoreAgent)]
    fn say_hello() -> String {
        "hello".to_string()
    }

    /// The server on pipes whose input hands it at most 16 bytes a read: its stdin,
    /// the lines of its stdout, and its end.
    fn started() -> (
        DuplexStream,
        Lines<BufReader<DuplexStream>>,
        tokio::task::JoinHandle<Result<(), ServeError>>,
    ) {
        let registry = Registry::of_module(module_path!()).expect("the test's tool");
        let server = McpServer::new(registry, ServerInfo::new("stdio-test", "1.0.0"));
        let (stdin, server_in) = tokio::io::duplex(16);
        let (server_out, stdout) = tokio::io::duplex(1 << 20);
        let serving = tokio::spawn(
            StdioServer::new(server, server_in, server_out)
                .with_max_line_bytes(MAX)
                .into_future(),
        );
        (stdin, BufReader::new(stdout).lines(), serving)
    }

    async fn send(stdin: &mut DuplexStream, message: &Value) {
        stdin
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }

    /// The next line of stdout, which must be a JSON message of its own.
    async fn next(stdout: &mut Lines<BufReader<DuplexStream>>) -> Value {
        let line = tokio::time::timeout(HANG, stdout.next_line())
            .await
            .expect("a line")
            .unwrap()
            .expect("a line before the end");
        serde_json::from_str(&line).unwrap_or_else(|error| panic!("{error}: {line}"))
    }

    async fn initialized(stdin: &mut DuplexStream, stdout: &mut Lines<BufReader<DuplexStream>>) {
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "stdio-test", "version": "1"}}});
        send(stdin, &initialize).await;
        assert_eq!(next(stdout).await["id"], 1);
        send(
            stdin,
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await;
    }

    #[tokio::test]
    async fn a_long_line_in_small_reads_is_answered_on_a_line_of_its_own_and_the_next_request_too()
    {
        let (mut stdin, mut stdout, _serving) = started();
        initialized(&mut stdin, &mut stdout).await;
        // A request the server would answer, were it not over the limit.
        let long = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "SayHello", "arguments": {}, "_meta": {"pad": "a".repeat(4 * MAX)}}})
        .to_string();
        let call = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
            "params": {"name": "SayHello", "arguments": {}}});
        // One write, read by the server 16 bytes at a time.
        stdin
            .write_all(format!("{long}\n{call}\n").as_bytes())
            .await
            .unwrap();
        let refused = next(&mut stdout).await;
        assert_eq!(refused["error"]["code"], -32600, "{refused}");
        assert_eq!(refused["error"]["data"]["kind"], "message_too_long");
        assert_eq!(refused["error"]["data"]["length"], long.len());
        assert!(refused.get("id").is_none(), "{refused}");
        let answered = next(&mut stdout).await;
        assert_eq!(answered["id"], 6, "{answered}");
        assert_eq!(answered["result"]["structuredContent"]["result"], "hello");
    }

    #[tokio::test]
    async fn closing_stdin_ends_the_server_even_inside_an_over_long_line() {
        let (mut stdin, mut stdout, serving) = started();
        initialized(&mut stdin, &mut stdout).await;
        stdin.write_all(&[b'a'; 4 * MAX]).await.unwrap();
        drop(stdin);
        let code = tokio::time::timeout(HANG, serving)
            .await
            .expect("the server ends once stdin is closed")
            .unwrap();
        assert!(code.is_ok(), "{code:?}");
    }

    #[tokio::test]
    async fn a_client_that_closes_its_input_before_initializing_is_a_connect_error() {
        let (stdin, _stdout, serving) = started();
        drop(stdin);
        let served = tokio::time::timeout(HANG, serving)
            .await
            .expect("the server ends once stdin is closed")
            .unwrap();
        let error = served.unwrap_err();
        assert!(matches!(error, ServeError::Connect(_)), "{error:?}");
        assert!(
            error
                .to_string()
                .starts_with("the MCP client did not connect: "),
            "{error}"
        );
    }

    #[tokio::test]
    async fn the_server_returns_when_its_shutdown_signal_comes() {
        let registry = Registry::of_module(module_path!()).expect("the test's tool");
        let server = McpServer::new(registry, ServerInfo::new("stdio-test", "1.0.0"));
        let (mut stdin, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, stdout) = tokio::io::duplex(1 << 20);
        let mut stdout = BufReader::new(stdout).lines();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = tokio::spawn(
            StdioServer::new(server, server_in, server_out)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .into_future(),
        );
        initialized(&mut stdin, &mut stdout).await;
        stop.send(()).unwrap();
        // stdin stays open: only the signal ends it.
        let served = tokio::time::timeout(HANG, serving)
            .await
            .expect("the server returns once the signal came")
            .unwrap();
        assert!(served.is_ok(), "{served:?}");
    }
}
