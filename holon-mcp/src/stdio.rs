//! MCP on stdin and stdout.

use std::process::ExitCode;

use rmcp::ServiceExt;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::listing::ListingTransport;
use crate::server::McpServer;
use crate::signal::shutdown_signal;
use crate::stdio_lines::{BoundedLines, DEFAULT_MAX_LINE_BYTES, LineLimit, rmcp_line_limit};
use crate::stdio_pipes::Streams;

/// Serves MCP on stdin and stdout until the client closes them or a signal arrives.
/// Problems go to stderr, named by the server's name. A line longer than
/// [`DEFAULT_MAX_LINE_BYTES`] is answered with a JSON-RPC error.
pub async fn serve_stdio(server: McpServer) -> ExitCode {
    serve_stdio_bounded(server, DEFAULT_MAX_LINE_BYTES).await
}

/// [`serve_stdio`] with lines of at most `max_line_bytes` (newline aside); a longer
/// one is dropped and answered with a JSON-RPC error (`-32600`, kind
/// `message_too_long`), and the session goes on.
pub async fn serve_stdio_bounded(server: McpServer, max_line_bytes: usize) -> ExitCode {
    let Streams {
        input,
        output,
        restore,
    } = Streams::of_process();
    let code = serve_lines(server, input, output, max_line_bytes).await;
    drop(restore);
    code
}

/// [`serve_stdio_bounded`] on `input` and `output`.
async fn serve_lines(
    server: McpServer,
    input: impl AsyncRead + Send + Unpin + 'static,
    output: impl AsyncWrite + Send + Unpin + 'static,
    max_line_bytes: usize,
) -> ExitCode {
    let name = server.info().name().to_string();
    let executions = match server.catalog() {
        Ok(catalog) => catalog.executions(),
        Err(error) => {
            note!("{name}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let (input, dropped) = LineLimit::new(input, max_line_bytes);
    let lines = AsyncRwTransport::new_server(input, output)
        .with_max_line_length(rmcp_line_limit(max_line_bytes));
    let stdio = ListingTransport::new(BoundedLines::new(lines, dropped), executions);
    let running = match server.serve(stdio).await {
        Ok(running) => running,
        Err(error) => {
            note!("{name}: the MCP client did not connect: {error}");
            return ExitCode::FAILURE;
        }
    };
    tokio::select! {
        finished = running.waiting() => match finished {
            Ok(_) => ExitCode::SUCCESS,
            Err(error) => {
                note!("{name}: the MCP session failed: {error}");
                ExitCode::FAILURE
            }
        },
        () = shutdown_signal() => ExitCode::SUCCESS,
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
        tokio::task::JoinHandle<ExitCode>,
    ) {
        let registry = Registry::of_module(module_path!()).expect("the test's tool");
        let server = McpServer::new(registry, ServerInfo::new("stdio-test", "1.0.0"));
        let (stdin, server_in) = tokio::io::duplex(16);
        let (server_out, stdout) = tokio::io::duplex(1 << 20);
        let serving = tokio::spawn(serve_lines(server, server_in, server_out, MAX));
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
        assert_eq!(code, ExitCode::SUCCESS);
    }
}
