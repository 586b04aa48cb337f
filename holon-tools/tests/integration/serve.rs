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

fn spawn(workspace: &std::path::Path, args: &[&str]) -> Child {
    holon_command(workspace)
        .arg("serve")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Lines of a child's stream, read on a thread so that a test never hangs on them.
fn lines(stream: impl Read + Send + 'static) -> Receiver<String> {
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

fn send(stdin: &mut ChildStdin, message: &Value) {
    writeln!(stdin, "{message}").unwrap();
    stdin.flush().unwrap();
}

fn response(stdout: &Receiver<String>, id: u64) -> Value {
    loop {
        let line = stdout.recv_timeout(TIMEOUT).expect("the server answers");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == id {
            return message;
        }
    }
}

fn wait(child: &mut Child) -> Option<i32> {
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

#[test]
fn stdio_lists_calls_reports_errors_and_exits_when_stdin_closes() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn(dir.path(), &["--families", "core_agent"]);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = lines(child.stdout.take().unwrap());

    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw-test", "version": "0"},
        }}),
    );
    let initialized = response(&stdout, 1);
    assert_eq!(initialized["result"]["serverInfo"]["name"], "holon-tools");
    assert!(initialized["result"]["capabilities"]["tools"].is_object());
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );

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
fn http_serves_mcp_on_loopback_only() {
    let dir = tempfile::tempdir().unwrap();
    let refused = Command::new(env!("CARGO_BIN_EXE_holon-tools"))
        .arg("--workspace")
        .arg(dir.path())
        .args(["serve", "--http", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("loopback"), "{stderr}");

    let mut child = spawn(dir.path(), &["--http", "127.0.0.1:0"]);
    let stderr = lines(child.stderr.take().unwrap());
    let line = stderr
        .recv_timeout(TIMEOUT)
        .expect("the server prints its URL");
    let url = line
        .split("at http://")
        .nth(1)
        .unwrap_or_else(|| panic!("no URL in {line:?}"));
    let authority = url.strip_suffix("/mcp").unwrap().to_string();

    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "0"},
    }})
    .to_string();
    let reply = http(
        &authority,
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        ),
    );
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.contains("\"holon-tools\""), "{reply}");

    let missing = http(
        &authority,
        &format!("GET /elsewhere HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"),
    );
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");

    let _ = child.kill();
    let _ = child.wait();
}

fn http(authority: &str, request: &str) -> String {
    let mut stream = TcpStream::connect(authority).unwrap();
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = String::new();
    // An SSE reply stays open after the answer; read until the answer is in.
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                reply.push_str(&String::from_utf8_lossy(&buffer[..n]));
                if reply.contains("\"result\"") || reply.contains("not found") {
                    break;
                }
            }
        }
    }
    reply
}
