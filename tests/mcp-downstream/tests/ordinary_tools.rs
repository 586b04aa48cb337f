//! The ordinary tools of `numbers` over the server's real stdio transport: 64-bit
//! integer fields and fields named `pattern` and `format` start and are called in a
//! lean build (`.ci/run` tests this crate alone, without holon-core's `validate`
//! feature) as in a default one, and an integer past what a JSON client holds exactly
//! is refused with a typed error in both.

// Tests set their fixtures up with processes freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod common;

use common::{StdioServer, initialize, over_stdio};
use serde_json::{Value, json};

/// 2^53 - 1, JavaScript's `Number.MAX_SAFE_INTEGER`: the bound of a 64-bit field.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// A started stdio session with the server.
fn session() -> StdioServer {
    let mut server = over_stdio();
    server.send(&initialize());
    let initialized = server.next();
    assert!(initialized.get("result").is_some(), "{initialized}");
    server.send(&holon_test_support::initialize::initialized());
    server
}

fn call(server: &mut StdioServer, id: u64, name: &str, arguments: Value) -> Value {
    server.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}));
    let answer = server.next();
    assert_eq!(answer["id"], id, "{answer}");
    answer["result"].clone()
}

#[test]
fn integer_fields_and_keyword_named_fields_are_listed_and_called() {
    let mut server = session();
    server.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let listed = server.next();
    let tools = listed["result"]["tools"].as_array().expect("a list");
    let names: Vec<&str> = tools
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(
        names,
        ["Add", "FormatNumber", "Repeat", "RequestEcho"],
        "{listed}"
    );
    let format = &tools[1]["inputSchema"]["properties"];
    assert_eq!(
        format["value"]["maximum"],
        json!(MAX_SAFE_INTEGER),
        "{format}"
    );
    assert_eq!(format["format"]["type"], "string", "{format}");

    let added = call(&mut server, 3, "Add", json!({"a": -7, "b": 12}));
    assert_eq!(added["isError"], false, "{added}");
    assert_eq!(added["structuredContent"]["result"], 5, "{added}");
    let written = call(
        &mut server,
        4,
        "FormatNumber",
        json!({"value": MAX_SAFE_INTEGER, "format": "hex"}),
    );
    assert_eq!(written["isError"], false, "{written}");
    assert_eq!(
        written["structuredContent"]["result"], "0x1fffffffffffff",
        "{written}"
    );
    let repeated = call(
        &mut server,
        5,
        "Repeat",
        json!({"pattern": "ab", "times": 3}),
    );
    assert_eq!(repeated["isError"], false, "{repeated}");
    assert_eq!(
        repeated["structuredContent"]["result"], "ababab",
        "{repeated}"
    );
}

#[test]
fn an_integer_past_the_safe_bound_is_a_typed_error() {
    let mut server = session();
    let cases = [
        (
            "Add",
            json!({"a": MAX_SAFE_INTEGER + 1, "b": 0}),
            "a",
            "greater than the maximum of 9007199254740991",
        ),
        (
            "Add",
            json!({"a": 1, "b": -(MAX_SAFE_INTEGER as i64) - 1}),
            "b",
            "less than the minimum of -9007199254740991",
        ),
        (
            "FormatNumber",
            json!({"value": MAX_SAFE_INTEGER + 1, "format": "hex"}),
            "value",
            "greater than the maximum of 9007199254740991",
        ),
        (
            "Repeat",
            json!({"pattern": "", "times": MAX_SAFE_INTEGER + 1}),
            "times",
            "greater than the maximum of 9007199254740991",
        ),
    ];
    for (id, (name, arguments, field, words)) in (10..).zip(cases) {
        let refused = call(&mut server, id, name, arguments);
        assert_eq!(refused["isError"], true, "{refused}");
        let error = &refused["_meta"]["holon/error"];
        assert_eq!(error["kind"], "invalid_tool_input", "{refused}");
        assert_eq!(error["field"], field, "{refused}");
        let message = error["message"].as_str().unwrap_or_default();
        assert!(message.contains(words), "{refused}");
    }
}
