//! `holon-tools serve --discovery` over stdio: tools/list shows the meta-tools and the
//! pinned tools only, SearchTools finds the others and what it finds is callable by
//! name; without the flag the meta-tools are neither listed nor served.

use std::process::ChildStdin;
use std::sync::mpsc::Receiver;

use serde_json::{Value, json};

use crate::cli_support::holon;
use crate::serve::{handshake, lines, response, send, spawn, wait};

fn request(
    stdin: &mut ChildStdin,
    stdout: &Receiver<String>,
    id: u64,
    method: &str,
    params: Value,
) -> Value {
    send(
        stdin,
        &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    );
    response(stdout, id)
}

fn listed(stdin: &mut ChildStdin, stdout: &Receiver<String>) -> Vec<String> {
    let answer = request(stdin, stdout, 2, "tools/list", json!({}));
    let mut names: Vec<String> = answer["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("a list: {answer}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap_or_default().to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn discovery_lists_the_meta_tools_and_the_pinned_and_serves_what_a_search_finds() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn(dir.path(), &["--discovery", "--pin", "ApplyPatch"]);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = lines(child.stdout.take().unwrap());
    handshake(&mut stdin, &stdout);

    assert_eq!(
        listed(&mut stdin, &stdout),
        ["ApplyPatch", "DescribeTool", "SearchTools"]
    );
    let found = request(
        &mut stdin,
        &stdout,
        3,
        "tools/call",
        json!({"name": "SearchTools", "arguments": {"query": "sleep for a few milliseconds"}}),
    );
    let names: Vec<&str> = found["result"]["structuredContent"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("the found tools: {found}"))
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(names.first(), Some(&"Sleep"), "{found}");
    let described = request(
        &mut stdin,
        &stdout,
        4,
        "tools/call",
        json!({"name": "DescribeTool", "arguments": {"name": "Sleep"}}),
    );
    let definition = &described["result"]["structuredContent"]["definition"];
    assert_eq!(definition["name"], "Sleep", "{described}");
    assert!(
        definition["inputSchema"]["properties"]["duration_ms"].is_object(),
        "{described}"
    );
    let slept = request(
        &mut stdin,
        &stdout,
        5,
        "tools/call",
        json!({"name": "Sleep", "arguments": {"duration_ms": 1}}),
    );
    assert_eq!(slept["result"]["isError"], false, "{slept}");
    drop(stdin);
    assert_eq!(wait(&mut child), Some(0));
}

#[test]
fn without_discovery_the_meta_tools_are_not_served() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn(dir.path(), &[]);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = lines(child.stdout.take().unwrap());
    handshake(&mut stdin, &stdout);

    let names = listed(&mut stdin, &stdout);
    assert!(names.iter().any(|name| name == "Sleep"), "{names:?}");
    assert!(
        !names
            .iter()
            .any(|name| name == "SearchTools" || name == "DescribeTool"),
        "{names:?}"
    );
    let refused = request(
        &mut stdin,
        &stdout,
        3,
        "tools/call",
        json!({"name": "SearchTools", "arguments": {"query": "sleep"}}),
    );
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    drop(stdin);
    assert_eq!(wait(&mut child), Some(0));
    // Nor does any other command show them.
    let list = holon(dir.path(), &["list"]);
    let list = String::from_utf8_lossy(&list.stdout);
    assert!(
        list.contains("Sleep") && !list.contains("SearchTools"),
        "{list}"
    );
}

#[test]
fn a_pin_that_names_no_tool_is_refused_with_the_closest_name() {
    let dir = tempfile::tempdir().unwrap();
    let refused = holon(dir.path(), &["serve", "--discovery", "--pin", "Slep"]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("--pin Slep: no built-in tool is named `Slep`; did you mean `Sleep`?"),
        "{stderr}"
    );
}
