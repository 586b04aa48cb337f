//! `holon-tools serve`, spoken to in raw JSON-RPC: over stdio, and over streamable
//! HTTP on loopback. (`.ci/run` also runs the official Python MCP SDK client against
//! both; see `tests/mcp_client/`.)

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use crate::cli_support::holon_command;
use serde_json::{Value, json};

const TIMEOUT: Duration = Duration::from_secs(60);

pub(crate) fn spawn(workspace: &std::path::Path, args: &[&str]) -> Child {
    let mut command = holon_command(workspace);
    command.arg("serve").args(args);
    spawn_stdio(command)
}

/// Starts `command` (a `serve` on stdio) with its stdin, stdout and stderr piped.
pub(crate) fn spawn_stdio(mut command: Command) -> Child {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Lines of a child's stream, read on a thread so that a test never hangs on them.
pub(crate) fn lines(stream: impl Read + Send + 'static) -> Receiver<String> {
    let (sender, receiver) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    receiver
}

pub(crate) fn send(stdin: &mut ChildStdin, message: &Value) {
    writeln!(stdin, "{message}").unwrap();
    stdin.flush().unwrap();
}

/// The answer to the request of id `id`, the messages before it skipped.
pub(crate) fn response(stdout: &Receiver<String>, id: impl Into<Value>) -> Value {
    let id = id.into();
    loop {
        let line = stdout.recv_timeout(TIMEOUT).expect("the server answers");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == id {
            return message;
        }
    }
}

pub(crate) fn wait(child: &mut Child) -> Option<i32> {
    for _ in 0..200 {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// The `initialize` request of every test, id 1.
pub(crate) fn initialize_request() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "0"},
    }})
}

/// Initializes a stdio session; the answer to `initialize`.
pub(crate) fn handshake(stdin: &mut ChildStdin, stdout: &Receiver<String>) -> Value {
    send(stdin, &initialize_request());
    let initialized = response(stdout, 1);
    send(
        stdin,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    initialized
}

#[test]
fn stdio_lists_calls_reports_errors_and_exits_when_stdin_closes() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn(dir.path(), &["--families", "core_agent"]);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = lines(child.stdout.take().unwrap());

    let initialized = handshake(&mut stdin, &stdout);
    assert_eq!(initialized["result"]["serverInfo"]["name"], "holon-tools");
    assert!(initialized["result"]["capabilities"]["tools"].is_object());

    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    let listed = response(&stdout, 2);
    let tools = listed["result"]["tools"].as_array().unwrap();
    let sleep = tools.iter().find(|tool| tool["name"] == "Sleep").unwrap();
    assert_eq!(sleep["title"], "Sleep");
    assert_eq!(sleep["inputSchema"]["type"], "object");
    assert_eq!(
        sleep["outputSchema"]["required"],
        json!(["slept_ms", "woke_at_unix_ms"])
    );
    assert_eq!(sleep["annotations"]["readOnlyHint"], true);
    assert!(
        tools.iter().all(|tool| tool["name"] != "ApplyPatch"),
        "--families core_agent leaves out other families"
    );

    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "Sleep", "arguments": {"duration_ms": 2}}}),
    );
    let called = response(&stdout, 3);
    let result = &called["result"];
    assert_eq!(result["isError"], false, "{called}");
    assert_eq!(result["content"][0]["type"], "text");
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("slept")
    );
    assert!(result["structuredContent"]["slept_ms"].as_u64().unwrap() >= 2);

    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                "params": {"name": "Sleep", "arguments": {"duration_mss": 2}}}),
    );
    let failed = response(&stdout, 4);
    let result = &failed["result"];
    assert_eq!(result["isError"], true, "{failed}");
    assert_eq!(result["_meta"]["holon/error"]["kind"], "unknown_field");
    assert!(result.get("structuredContent").is_none());
    let receipt = result["content"][0]["text"].as_str().unwrap();
    assert!(
        receipt.contains("unknown_field") && receipt.contains("duration_ms"),
        "{receipt}"
    );

    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                "params": {"name": "Slep", "arguments": {}}}),
    );
    let unknown = response(&stdout, 5);
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`Sleep`")
    );

    drop(stdin);
    assert_eq!(
        wait(&mut child),
        Some(0),
        "the server stops when stdin closes"
    );
}

#[test]
fn stdio_answers_tools_call_with_malformed_params_as_invalid_params() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn(dir.path(), &["--families", "core_agent"]);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = lines(child.stdout.take().unwrap());
    handshake(&mut stdin, &stdout);

    for (id, params, says) in [
        (2, json!({"arguments": {}}), "missing field `name`"),
        (3, json!({"name": "Sleep", "arguments": [1]}), "`arguments`"),
        (4, json!({"name": 7}), "`name`"),
        (
            5,
            json!({"name": "Sleep", "arguments": "{}"}),
            "`arguments`",
        ),
    ] {
        send(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}),
        );
        let reply = response(&stdout, id);
        assert_eq!(reply["error"]["code"], -32602, "{params}: {reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("invalid tools/call params") && message.contains(says),
            "{params}: {message}"
        );
    }
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call"}),
    );
    let reply = response(&stdout, 11);
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("params are missing"),
        "{reply}"
    );
    // A method the server does not have stays method-not-found.
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 6, "method": "tools/frobnicate", "params": {}}),
    );
    assert_eq!(response(&stdout, 6)["error"]["code"], -32601);

    // Upstream behaviour, pinned: params that are not an object (JSON-RPC allows an
    // array, MCP does not) fail rmcp's parse of the whole message, which it answers
    // with -32600 and no id at all, before any handler sees it.
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": []}),
    );
    let invalid = stdout.recv_timeout(TIMEOUT).expect("the server answers");
    let invalid: Value = serde_json::from_str(&invalid).unwrap();
    assert_eq!(invalid["error"]["code"], -32600, "{invalid}");
    assert!(invalid.get("id").is_none(), "{invalid}");

    // Upstream behaviour, pinned: rmcp (like the other official MCP SDKs) ignores a
    // line that is not JSON at all, rather than answering -32700 (replying to garbage
    // can start an error storm with a peer that echoes it; rust-sdk issue 938). The
    // next request is served as usual, and nothing answers the garbage.
    writeln!(
        stdin,
        "{{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": \"tools/list\""
    )
    .unwrap();
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list"}),
    );
    let next = stdout.recv_timeout(TIMEOUT).expect("the server answers");
    let next: Value = serde_json::from_str(&next).unwrap();
    assert_eq!(next["id"], 8, "no reply to the malformed line: {next}");
    assert!(next["result"]["tools"].is_array());

    drop(stdin);
    assert_eq!(wait(&mut child), Some(0));
}

/// A server on 127.0.0.1 port 0 with `args` after `--http`, and `token` in
/// HOLON_MCP_TOKEN (or none); its authority (`127.0.0.1:PORT`) and its stderr after the
/// URL line.
pub(crate) fn serve_http(
    workspace: &std::path::Path,
    args: &[&str],
    token: Option<&str>,
) -> (Server, String, Receiver<String>) {
    let mut command = holon_command(workspace);
    command
        .env_remove("HOLON_MCP_TOKEN")
        .args(["serve", "--http", "127.0.0.1:0"])
        .args(args);
    if let Some(token) = token {
        command.env("HOLON_MCP_TOKEN", token);
    }
    start_http(command)
}

/// Starts `command` (a `serve --http` on loopback); the server, the authority it
/// serves at (`127.0.0.1:PORT`) and the lines of its stderr after the one naming it.
/// A server that ends before it prints its URL fails the test.
pub(crate) fn start_http(mut command: Command) -> (Server, String, Receiver<String>) {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut server = Server(command.spawn().unwrap());
    let stderr = lines(server.0.stderr.take().unwrap());
    // The approval policy's line comes first.
    let line = std::iter::from_fn(|| stderr.recv_timeout(TIMEOUT).ok())
        .find(|line| line.contains("at http://"))
        .expect("the server prints its URL");
    let url = line
        .split("at http://")
        .nth(1)
        .unwrap_or_else(|| panic!("no URL in {line:?}"));
    let authority = url.strip_suffix("/mcp").unwrap().to_string();
    (server, authority, stderr)
}

/// A server process, killed when the test is done with it, failed assertions included.
pub(crate) struct Server(pub(crate) Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The status line and the rest of the answer to an `initialize` POST with `headers`
/// (each `Name: value`).
pub(crate) fn post_initialize(authority: &str, headers: &[String]) -> String {
    let body = initialize_request().to_string();
    let extra: String = headers
        .iter()
        .map(|header| format!("{header}\r\n"))
        .collect();
    http(
        authority,
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        ),
    )
}

/// POSTs the JSON-RPC `request` in `session` with the bearer `token`; the JSON-RPC
/// answer of the reply.
pub(crate) fn post_in_session(
    authority: &str,
    token: &str,
    session: &str,
    request: &Value,
) -> Value {
    let body = request.to_string();
    let reply = http(
        authority,
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{}\r\nMcp-Session-Id: {session}\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            bearer(token),
            body.len()
        ),
    );
    let data = reply
        .lines()
        .find_map(|line| {
            line.strip_prefix("data: ")
                .filter(|data| data.contains("\"id\""))
        })
        .unwrap_or_else(|| panic!("no JSON-RPC reply in {reply}"));
    serde_json::from_str(data).unwrap()
}

pub(crate) fn bearer(token: &str) -> String {
    format!("Authorization: Bearer {token}")
}

pub(crate) const TOKEN: &str = "test-token-6f1c2a9e4b7d";

#[test]
fn http_serves_mcp_to_requests_with_the_bearer_token_only() {
    let dir = tempfile::tempdir().unwrap();
    let (server, authority, _) = serve_http(dir.path(), &[], Some(TOKEN));

    let missing = post_initialize(&authority, &[]);
    assert!(missing.starts_with("HTTP/1.1 401"), "{missing}");
    assert!(
        missing
            .to_ascii_lowercase()
            .contains("www-authenticate: bearer realm=\"holon-tools\"\r\n"),
        "{missing}"
    );
    let wrong = post_initialize(&authority, &[bearer("test-token-6f1c2a9e4b7e")]);
    assert!(wrong.starts_with("HTTP/1.1 401"), "{wrong}");
    assert!(wrong.contains("error=\"invalid_token\""), "{wrong}");
    let basic = post_initialize(&authority, &["Authorization: Basic dGVzdDp0ZXN0".into()]);
    assert!(basic.starts_with("HTTP/1.1 401"), "{basic}");

    let reply = post_initialize(&authority, &[bearer(TOKEN)]);
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.contains("\"holon-tools\""), "{reply}");

    let missing = http(
        &authority,
        &format!("GET /elsewhere HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"),
    );
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");
    drop(server);
}

#[test]
fn http_generates_a_token_prints_it_once_and_reads_one_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let (server, authority, stderr) = serve_http(dir.path(), &[], None);
    let line = stderr.recv_timeout(TIMEOUT).expect("the token line");
    let token = line.rsplit(": ").next().unwrap().to_string();
    assert!(
        token.len() == 64 && token.chars().all(|c| c.is_ascii_hexdigit()),
        "256 bits in hex: {line}"
    );
    assert!(post_initialize(&authority, &[]).starts_with("HTTP/1.1 401"));
    let reply = post_initialize(&authority, &[bearer(&token)]);
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    drop(server);

    // A token file wins over HOLON_MCP_TOKEN, and is not printed.
    let file = dir.path().join("token");
    std::fs::write(&file, "file-token-0a1b2c3d4e5f\n").unwrap();
    let (server, authority, stderr) = serve_http(
        dir.path(),
        &["--token-file", file.to_str().unwrap()],
        Some(TOKEN),
    );
    let line = stderr.recv_timeout(TIMEOUT).expect("the token line");
    assert!(!line.contains("file-token"), "{line}");
    assert!(post_initialize(&authority, &[bearer(TOKEN)]).starts_with("HTTP/1.1 401"));
    let reply = post_initialize(&authority, &[bearer("file-token-0a1b2c3d4e5f")]);
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    drop(server);
}

#[test]
fn http_refuses_foreign_origins_and_serves_its_own_and_the_named_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (server, authority, _) = serve_http(
        dir.path(),
        &["--allow-origin", "https://app.example"],
        Some(TOKEN),
    );
    let port = authority.rsplit(':').next().unwrap();
    for origin in [
        "http://evil.example".to_string(),
        format!("http://evil.example:{port}"),
        "http://app.example".to_string(),
        "https://app.example:8443".to_string(),
        format!("http://127.0.0.1:{}", port.parse::<u16>().unwrap() + 1),
        "null".to_string(),
    ] {
        let reply = post_initialize(&authority, &[bearer(TOKEN), format!("Origin: {origin}")]);
        assert!(reply.starts_with("HTTP/1.1 403"), "{origin}: {reply}");
        // The origin is checked first: a page without the token learns nothing more
        // than that its origin is refused.
        for credentials in [None, Some(bearer("wrong-token-0123456789"))] {
            let mut headers = vec![format!("Origin: {origin}")];
            headers.extend(credentials.clone());
            let reply = post_initialize(&authority, &headers);
            assert!(
                reply.starts_with("HTTP/1.1 403"),
                "{origin} {credentials:?}: {reply}"
            );
        }
    }
    for origin in [
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
        "https://app.example".to_string(),
        "https://app.example:443".to_string(),
    ] {
        let reply = post_initialize(&authority, &[bearer(TOKEN), format!("Origin: {origin}")]);
        assert!(reply.starts_with("HTTP/1.1 200"), "{origin}: {reply}");
    }
    drop(server);
}

#[test]
fn http_answers_to_loopback_names_and_the_allowed_hosts_and_refuses_other_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let (server, authority, _) = serve_http(
        dir.path(),
        &[
            "--allowed-host",
            "mcp.example.com",
            "--allowed-host",
            "lb.example.com:8443",
        ],
        Some(TOKEN),
    );
    let body = initialize_request().to_string();
    let post_as = |host: &str| {
        http(
            &authority,
            &format!(
                "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nAuthorization: Bearer {TOKEN}\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            ),
        )
    };
    for host in [authority.as_str(), "mcp.example.com", "lb.example.com:8443"] {
        let reply = post_as(host);
        assert!(reply.starts_with("HTTP/1.1 200"), "{host}: {reply}");
    }
    for host in ["rebound.example", "lb.example.com:9000"] {
        let reply = post_as(host);
        assert!(reply.starts_with("HTTP/1.1 403"), "{host}: {reply}");
        assert!(reply.contains("--allowed-host"), "{host}: {reply}");
    }
    drop(server);

    let refused = holon_command(dir.path())
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--allowed-host",
            "https://mcp.example.com",
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("without scheme"), "{stderr}");
}

/// Whether a connection opened to `authority` while `held` stay open without a
/// request is refused: the status line of what it reads.
fn status_of_one_more_connection(authority: &str, held: usize) -> String {
    let _held: Vec<TcpStream> = (0..held)
        .map(|_| TcpStream::connect(authority).unwrap())
        .collect();
    // The server accepts connections in the order they were opened: the held ones
    // count before this one.
    let reply = http(
        authority,
        &format!(
            "GET /.well-known/none HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
        ),
    );
    reply.lines().next().unwrap_or_default().to_string()
}

#[test]
fn max_unauthenticated_per_peer_sets_how_many_connections_an_address_holds_before_a_request() {
    let dir = tempfile::tempdir().unwrap();
    // The default keeps room for 16: a third connection beside two idle ones is served.
    let (_server, authority, _) = serve_http(dir.path(), &[], Some(TOKEN));
    let status = status_of_one_more_connection(&authority, 2);
    assert!(status.contains(" 404 "), "{status}");
    // Behind a balancer every connection comes from one address; a small cap shows it.
    let (_server, authority, _) = serve_http(
        dir.path(),
        &["--max-unauthenticated-per-peer", "2"],
        Some(TOKEN),
    );
    let status = status_of_one_more_connection(&authority, 2);
    assert!(status.contains(" 503 "), "{status}");
    // Zero would refuse every client: refused at start, naming the option.
    let output = holon_command(dir.path())
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--max-unauthenticated-per-peer",
            "0",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--max-unauthenticated-per-peer"),
        "{stderr}"
    );
}

/// The `Mcp-Session-Id` an HTTP `initialize` reply assigned.
pub(crate) fn session_id(reply: &str) -> String {
    reply
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_string())
        })
        .unwrap_or_else(|| panic!("no session id in {reply}"))
}

#[test]
fn http_answers_tools_call_with_malformed_params_as_invalid_params() {
    let dir = tempfile::tempdir().unwrap();
    let (server, authority, _) = serve_http(dir.path(), &[], Some(TOKEN));
    let reply = post_initialize(&authority, &[bearer(TOKEN)]);
    let session = session_id(&reply);
    for (id, params, says) in [
        (2, json!({"arguments": {}}), "missing field `name`"),
        (3, json!({"name": "Sleep", "arguments": [1]}), "`arguments`"),
    ] {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let answer = post_in_session(&authority, TOKEN, &session, &request);
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["error"]["code"], -32602, "{params}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{params}: {message}");
    }
    drop(server);
}

#[test]
fn no_auth_is_refused_off_loopback_and_serves_without_a_token_on_it() {
    let dir = tempfile::tempdir().unwrap();
    for addr in ["0.0.0.0:0", "[::]:0"] {
        let refused = holon_command(dir.path())
            .args(["serve", "--http", addr, "--no-auth"])
            .output()
            .unwrap();
        assert!(!refused.status.success(), "{addr}");
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(
            stderr.contains("--no-auth is allowed on a loopback address only"),
            "{addr}: {stderr}"
        );
    }

    let (server, authority, stderr) = serve_http(dir.path(), &["--no-auth"], Some(TOKEN));
    let line = stderr.recv_timeout(TIMEOUT).expect("the access line");
    assert!(line.contains("--no-auth"), "{line}");
    let reply = post_initialize(&authority, &[]);
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    // Origins are checked all the same.
    let reply = post_initialize(&authority, &["Origin: http://evil.example".into()]);
    assert!(reply.starts_with("HTTP/1.1 403"), "{reply}");
    drop(server);
}

#[test]
fn a_store_url_that_names_no_store_is_refused_with_the_forms_there_are() {
    let dir = tempfile::tempdir().unwrap();
    let by_flag = holon_command(dir.path())
        .args(["serve", "--store", "mysql://root:hunter2@db/tasks"])
        .output()
        .unwrap();
    let by_env = holon_command(dir.path())
        .arg("serve")
        .env("HOLON_STORE_URL", "sqlite:")
        .output()
        .unwrap();
    for (refused, says) in [
        (&by_flag, "mysql://root:***@db/tasks"),
        (&by_env, "write `sqlite:PATH`"),
    ] {
        assert_eq!(refused.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(stderr.contains(says), "{stderr}");
        assert!(
            !stderr.contains("hunter2"),
            "the password is masked: {stderr}"
        );
    }
    let stderr = String::from_utf8_lossy(&by_flag.stderr);
    assert!(stderr.contains("`memory`, `sqlite:PATH`"), "{stderr}");
}

pub(crate) fn http(authority: &str, request: &str) -> String {
    let mut stream = TcpStream::connect(authority).unwrap();
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = String::new();
    // An SSE reply stays open after the answer; read until the answer is in (or, for
    // a refusal, to the end: the server closes the connection).
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                reply.push_str(&String::from_utf8_lossy(&buffer[..n]));
                if reply.contains("\"result\"")
                    || reply.contains("\"error\"")
                    || reply.contains("not found")
                {
                    break;
                }
            }
        }
    }
    reply
}

/// A warning the MCP library reports through `tracing` (here: the OAuth key set could
/// not be fetched at start) still reaches `serve`'s stderr, beside the URL line.
#[test]
fn a_warning_of_the_mcp_library_reaches_stderr() {
    let workspace = tempfile::tempdir().unwrap();
    // Nothing listens on a port that was bound and closed again here: the fetch fails.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let mut command = holon_command(workspace.path());
    command
        .env_remove("HOLON_MCP_TOKEN")
        .args(["--policy", "none", "serve", "--http", "127.0.0.1:0"])
        .args(["--oauth-resource", "http://127.0.0.1/mcp"])
        .args(["--oauth-issuer", "https://issuer.example"])
        .args(["--oauth-jwks-url", &format!("http://{closed}/jwks")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut server = Server(command.spawn().unwrap());
    let stderr = lines(server.0.stderr.take().unwrap());
    let mut seen = Vec::new();
    while !(seen.iter().any(|line: &String| line.contains("at http://"))
        && seen
            .iter()
            .any(|line| line.contains("fetching it again on the first token")))
    {
        match stderr.recv_timeout(TIMEOUT) {
            Ok(line) => seen.push(line),
            Err(_) => panic!("no URL line and key-set warning on stderr: {seen:#?}"),
        }
    }
}
