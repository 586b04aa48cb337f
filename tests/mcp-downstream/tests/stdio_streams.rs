//! The downstream server's stdin and stdout as a client hands them over: pipes or
//! Unix sockets, which it reads and writes without blocking and leaves blocking when
//! it ends, or files, which it serves as before.

// Tests set their fixtures up with processes, pipes and files freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::initialize;
use holon_test_support::initialize::initialized;
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_holon-mcp-downstream");
/// `O_NONBLOCK` as `/proc/*/fdinfo` prints the flags: octal.
const O_NONBLOCK: u32 = 0o4000;

type Client = (
    std::process::Child,
    Box<dyn Write>,
    BufReader<Box<dyn Read>>,
    [OwnedFd; 2],
);

fn send(stdin: &mut Box<dyn Write>, message: &Value) {
    writeln!(stdin, "{message}").unwrap();
}

fn next(stdout: &mut BufReader<Box<dyn Read>>) -> Value {
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    serde_json::from_str(&line).unwrap_or_else(|error| panic!("{error}: {line:.200}"))
}

/// Whether the open file `fd` refers to is non-blocking (shared by every descriptor of it).
fn non_blocking(fd: &OwnedFd) -> bool {
    let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{}", fd.as_raw_fd())).unwrap();
    let flags = info
        .lines()
        .find_map(|line| line.strip_prefix("flags:"))
        .expect("a flags line");
    u32::from_str_radix(flags.trim(), 8).unwrap() & O_NONBLOCK != 0
}

/// The server with `server_in` as stdin and `server_out` as stdout, and a second
/// descriptor of each.
fn spawn(server_in: OwnedFd, server_out: OwnedFd) -> (std::process::Child, [OwnedFd; 2]) {
    let held = [
        server_in.try_clone().unwrap(),
        server_out.try_clone().unwrap(),
    ];
    let child = Command::new(SERVER)
        .stdin(Stdio::from(server_in))
        .stdout(Stdio::from(server_out))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    (child, held)
}

/// The server on two fresh pipes, as Python's and Rust's clients start one.
fn on_pipes() -> Client {
    let (server_in, stdin) = std::io::pipe().unwrap();
    let (stdout, server_out) = std::io::pipe().unwrap();
    let (child, held) = spawn(server_in.into(), server_out.into());
    (
        child,
        Box::new(stdin),
        BufReader::new(Box::new(stdout)),
        held,
    )
}

/// The server on two fresh Unix socket pairs, as Node's clients start one.
fn on_sockets() -> Client {
    let (server_in, stdin) = UnixStream::pair().unwrap();
    let (stdout, server_out) = UnixStream::pair().unwrap();
    let (child, held) = spawn(server_in.into(), server_out.into());
    (
        child,
        Box::new(stdin),
        BufReader::new(Box::new(stdout)),
        held,
    )
}

fn non_blocking_while_served_and_blocking_again_once_the_server_ends(client: Client) {
    let (mut child, mut stdin, mut stdout, held) = client;
    assert!(!held.iter().any(non_blocking), "they start blocking");
    send(&mut stdin, &initialize());
    assert_eq!(next(&mut stdout)["id"], 1);
    assert!(
        held.iter().all(non_blocking),
        "served without Tokio's blocking pool"
    );
    drop(stdin);
    assert!(child.wait().unwrap().success());
    for (fd, name) in held.iter().zip(["stdin", "stdout"]) {
        assert!(!non_blocking(fd), "{name} is left non-blocking");
    }
}

#[test]
fn pipes_are_non_blocking_while_served_and_blocking_again_once_the_server_ends() {
    non_blocking_while_served_and_blocking_again_once_the_server_ends(on_pipes());
}

#[test]
fn sockets_are_non_blocking_while_served_and_blocking_again_once_the_server_ends() {
    non_blocking_while_served_and_blocking_again_once_the_server_ends(on_sockets());
}

fn large_answers_go_out_whole_to_a_client_that_reads_late(client: Client) {
    let (mut child, mut stdin, mut stdout, _held) = client;
    send(&mut stdin, &initialize());
    next(&mut stdout);
    send(&mut stdin, &initialized());
    // RequestEcho answers with the request's `_meta.traceparent`: each answer is over
    // 300 KB, more than a pipe or a socket holds, so the server's writes stop short
    // until the client reads.
    let traces: Vec<String> = (0..3).map(|n| format!("{n}").repeat(300_000)).collect();
    for (id, trace) in traces.iter().enumerate() {
        send(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "id": id + 10, "method": "tools/call",
                    "params": {"name": "RequestEcho", "arguments": {"header": "none"},
                               "_meta": {"traceparent": trace}}}),
        );
    }
    std::thread::sleep(Duration::from_millis(300));
    // The calls run at once, so their answers come in the order they end, which a
    // busy machine may change: each must come whole, and once.
    let mut echoed = std::collections::BTreeMap::new();
    for _ in &traces {
        let answer = next(&mut stdout);
        let id = answer["id"].as_u64().expect("an answer to a request");
        let trace = answer["result"]["structuredContent"]["traceparent"].clone();
        assert!(echoed.insert(id, trace).is_none(), "{id} answered twice");
    }
    for (id, trace) in (10..).zip(&traces) {
        assert_eq!(echoed[&id], trace.as_str(), "the answer to {id}");
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn over_pipes_answers_larger_than_the_pipe_go_out_whole_and_once() {
    large_answers_go_out_whole_to_a_client_that_reads_late(on_pipes());
}

#[test]
fn over_sockets_answers_larger_than_the_socket_go_out_whole_and_once() {
    large_answers_go_out_whole_to_a_client_that_reads_late(on_sockets());
}

#[test]
fn files_as_stdin_and_stdout_are_served_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let requests = dir.path().join("requests.jsonl");
    let answers = dir.path().join("answers.jsonl");
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    std::fs::write(
        &requests,
        format!("{}\n{}\n{list}\n", initialize(), initialized()),
    )
    .unwrap();
    let status = Command::new(SERVER)
        .stdin(std::fs::File::open(&requests).unwrap())
        .stdout(std::fs::File::create(&answers).unwrap())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let answers = std::fs::read_to_string(&answers).unwrap();
    let answers: Vec<Value> = answers
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(answers[0]["id"], 1);
    assert_eq!(answers[1]["result"]["tools"][3]["name"], "RequestEcho");
}
