//! `holon-tools serve` in raw JSON-RPC, over stdio and HTTP: `notifications/cancelled`
//! stops a call's work (the command's process group is gone), and a call with
//! `_meta.progressToken` gets `notifications/progress` before its answer.

use std::process::ChildStdin;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::cli_support::holon_command;
use crate::serve::{
    TOKEN, bearer, handshake, http, lines, post_initialize, send, session_id, spawn_stdio,
    start_http, wait,
};
use crate::task_support::{alive, gone, sleeper, written_pids};

/// `holon-tools --policy none serve ARGS...`: these tests are about cancellation and
/// progress, not the approval policy (whose default asks before ExecCommand).
fn serve_unasked(workspace: &std::path::Path, args: &[&str]) -> std::process::Command {
    let mut command = holon_command(workspace);
    command.args(["--policy", "none", "serve"]).args(args);
    command
}

/// The pids a [`sleeper`] wrote to `path`, once it did.
fn pids_of(path: &std::path::Path) -> Vec<u64> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(pids) = written_pids(path) {
            return pids;
        }
        assert!(
            Instant::now() < deadline,
            "the command never wrote its pids"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn call(stdin: &mut ChildStdin, id: u64, name: &str, arguments: Value, meta: Option<Value>) {
    let mut params = json!({ "name": name, "arguments": arguments });
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    send(
        stdin,
        &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}),
    );
}

/// Every message up to the answer to `id`, the answer last.
fn messages_until(stdout: &Receiver<String>, id: u64) -> Vec<Value> {
    let mut messages = Vec::new();
    loop {
        let line = stdout
            .recv_timeout(Duration::from_secs(60))
            .expect("the server answers");
        let message: Value = serde_json::from_str(&line).unwrap();
        let done = message["id"] == id;
        messages.push(message);
        if done {
            return messages;
        }
    }
}

#[test]
fn stdio_cancellation_kills_the_commands_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn_stdio(serve_unasked(dir.path(), &[]));
    let mut stdin = child.stdin.take().unwrap();
    let stdout = lines(child.stdout.take().unwrap());
    handshake(&mut stdin, &stdout);

    let pids_path = dir.path().join("pids");
    let command = sleeper(&pids_path);
    call(
        &mut stdin,
        2,
        "ExecCommand",
        json!({ "cmd": command, "yield_time_ms": 600_000 }),
        None,
    );
    let pids = pids_of(&pids_path);
    assert!(
        pids.iter().all(|pid| alive(*pid)),
        "running before the cancel"
    );
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 2, "reason": "the user stopped it"}}),
    );
    for pid in &pids {
        assert!(gone(*pid), "process {pid} survived notifications/cancelled");
    }

    // The server goes on serving; the cancelled request gets no answer.
    call(&mut stdin, 3, "Sleep", json!({ "duration_ms": 1 }), None);
    let messages = messages_until(&stdout, 3);
    assert!(
        messages.iter().all(|message| message["id"] != 2),
        "{messages:?}"
    );
    assert_eq!(messages.last().unwrap()["result"]["isError"], false);
    drop(stdin);
    assert_eq!(wait(&mut child), Some(0));
}

#[test]
fn stdio_progress_reaches_the_client_before_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn_stdio(serve_unasked(dir.path(), &[]));
    let mut stdin = child.stdin.take().unwrap();
    let stdout = lines(child.stdout.take().unwrap());
    handshake(&mut stdin, &stdout);

    call(
        &mut stdin,
        2,
        "ExecCommand",
        json!({ "cmd": "for i in 1 2 3 4; do echo line $i; done" }),
        Some(json!({ "progressToken": "exec-1" })),
    );
    let messages = messages_until(&stdout, 2);
    let (answer, notifications) = messages.split_last().unwrap();
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    let progress: Vec<&Value> = notifications
        .iter()
        .filter(|message| message["method"] == "notifications/progress")
        .map(|message| &message["params"])
        .collect();
    assert!(!progress.is_empty(), "no progress in {messages:?}");
    assert!(
        progress
            .iter()
            .all(|params| params["progressToken"] == "exec-1")
    );
    let values: Vec<f64> = progress
        .iter()
        .map(|params| params["progress"].as_f64().unwrap())
        .collect();
    assert!(
        values.windows(2).all(|pair| pair[0] < pair[1]),
        "{values:?}"
    );
    let last = progress.last().unwrap();
    assert_eq!(last["progress"], 4.0, "{progress:?}");
    assert_eq!(last["message"], "line 4", "{progress:?}");

    // Without a token, no progress.
    call(
        &mut stdin,
        3,
        "ExecCommand",
        json!({ "cmd": "echo one" }),
        None,
    );
    let messages = messages_until(&stdout, 3);
    assert_eq!(messages.len(), 1, "{messages:?}");
    drop(stdin);
    assert_eq!(wait(&mut child), Some(0));
}

/// A POST of `body` to the session's endpoint; the whole reply (an SSE reply up to
/// the answer).
fn post(authority: &str, session: &str, body: &Value) -> String {
    let body = body.to_string();
    http(
        authority,
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{}\r\nMcp-Session-Id: {session}\r\n\
             Mcp-Protocol-Version: 2025-06-18\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            bearer(TOKEN),
            body.len()
        ),
    )
}

#[test]
fn http_cancellation_kills_the_commands_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let mut command = serve_unasked(dir.path(), &["--http", "127.0.0.1:0"]);
    command.env("HOLON_MCP_TOKEN", TOKEN);
    let (server, authority, _) = start_http(command);
    let reply = post_initialize(&authority, &[bearer(TOKEN)]);
    let session = session_id(&reply);
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let accepted = post(&authority, &session, &initialized);
    assert!(accepted.starts_with("HTTP/1.1 202"), "{accepted}");

    let pids_path = dir.path().join("pids");
    let command = sleeper(&pids_path);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "ExecCommand",
        "arguments": { "cmd": command, "yield_time_ms": 600_000 },
    }});
    // The call's reply stream stays open while it runs: it is read on a thread.
    let (call_authority, call_session) = (authority.clone(), session.clone());
    let running = std::thread::spawn(move || post(&call_authority, &call_session, &call));
    let pids = pids_of(&pids_path);
    assert!(
        pids.iter().all(|pid| alive(*pid)),
        "running before the cancel"
    );
    let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": 2, "reason": "the user stopped it"}});
    let accepted = post(&authority, &session, &cancelled);
    assert!(accepted.starts_with("HTTP/1.1 202"), "{accepted}");
    for pid in &pids {
        assert!(gone(*pid), "process {pid} survived notifications/cancelled");
    }
    drop(server);
    // With the server gone, the call's stream ends.
    let reply = running.join().unwrap();
    assert!(
        !reply.contains("\"result\""),
        "a cancelled call is not answered: {reply}"
    );
}
